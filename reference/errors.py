"""The errors Mastra throws, as the model raises them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .messagelist import MessageList


class MastraError(Exception):
    """An error Mastra throws (its MastraError id, or the JS error name).

    ``partial`` is the list as Mastra leaves it when the throw comes part-way through an
    operation that had already changed it (``add`` of several messages is not atomic,
    docs/mastra-measurements.md §j)."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.partial: MessageList | None = None
