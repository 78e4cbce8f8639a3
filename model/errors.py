"""The errors Mastra throws, as the model raises them."""

from __future__ import annotations

from typing import Any


class MastraError(Exception):
    """An error Mastra throws (its MastraError id, or the JS error name).

    ``partial`` is the list as Mastra leaves it when the throw comes part-way through an
    operation that had already changed it (``add`` of several messages is not atomic,
    M2.1): a ``guardspec.reference.messagelist.MessageList``, which
    the vocabulary does not name (it is the interpreter's value)."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.partial: Any = None
