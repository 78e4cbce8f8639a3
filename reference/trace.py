"""A run's trace for ``guardspec explain``: the list after each stage."""

from __future__ import annotations

from attrs import frozen

from .messagelist import MessageList


@frozen
class Stage:
    """O7 list: the message list after one named stage of a call, for ``guardspec explain``."""

    name: str
    list: MessageList
    note: str = ""


class Trace:
    """O7 list: the list after each stage, the additions G9 recorded and the text the policies
    read, collected when asked for; ``None`` is passed where no trace is wanted."""

    def __init__(self) -> None:
        self.stages: list[Stage] = []
        self.additions: list = []
        self.read: str | None = None

    def stage(self, name: str, lst: MessageList, note: str = "") -> None:
        self.stages.append(Stage(name, lst, note))
