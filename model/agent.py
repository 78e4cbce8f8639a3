"""The agent, its policies, client tools and memory; threads and actors (the spec's vocabulary)."""

from __future__ import annotations

from typing import Union

from attrs import field, frozen

from .messages import Message
from .processors import Processor


@frozen
class DenyPatterns:
    """G12: denies when one of ``patterns`` occurs in the text read."""

    name: str
    patterns: tuple[str, ...]


@frozen
class ThrowingEvaluator:
    """G12: an evaluator that throws (``policy evaluation failed``)."""

    name: str


@frozen
class NoDecision:
    """G12: an evaluator that gives no decision (``policy evaluation failed``)."""

    name: str


@frozen
class Allow:
    """G12: allows everything; what it read shows in the observation's ``read``."""

    name: str


Policy = Union[DenyPatterns, ThrowingEvaluator, NoDecision, Allow]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


@frozen
class Mapping:
    """A client tool's ``toModelOutput`` (M11).

    ``text``: returns ``{type: 'text', value: prefix + JSON(result)}``; ``null``: returns null
    (the part is marked computed, nothing cached); ``throws``: the mapping throws.
    """

    kind: str = "text"  # text | null | throws
    prefix: str = "mapped:"


@frozen
class ClientTool:
    name: str
    mapping: Mapping | None = None


@frozen
class Memory:
    """Memory bound to the agent; ``generate_title`` asks Mastra for thread titles (M13, G0)."""

    generate_title: bool = False


@frozen
class Agent:
    id: str = "agent"
    instructions: str = "You are a guarded agent."
    allowed_roles: tuple[str, ...] = ("operator",)  # Breakwater's roles: admin builder operator reviewer viewer
    allowed_principal_kinds: tuple[str, ...] = ("human",)
    # Breakwater's input-assets gate: the http(s) origins a user file URL may name; none by
    # default (G16.1)
    allowed_input_asset_origins: tuple[str, ...] = ()
    policies: tuple[Policy, ...] = ()
    processors: tuple[Processor, ...] = ()
    client_tools: tuple[ClientTool, ...] = ()
    memory: Memory | None = None
    max_steps: int = 1

    def client_tool(self, name: str) -> ClientTool | None:
        for t in self.client_tools:
            if t.name == name:
                return t
        return None


@frozen
class Actor:
    id: str
    role: str
    kind: str | None = "human"  # None: the actor declares no principal kind (G3)


@frozen
class Thread:
    id: str
    resource: str
    messages: tuple[Message, ...] = ()
    title: str = ""


@frozen
class MemoryBinding:
    thread: str
    resource: str


def _empty() -> tuple:
    return ()


@frozen
class ThreadStore:
    """The stored threads of a scenario, by id."""

    threads: tuple[Thread, ...] = field(factory=_empty)

    def get(self, thread_id: str) -> Thread | None:
        for t in self.threads:
            if t.id == thread_id:
                return t
        return None

    def put(self, thread: Thread) -> ThreadStore:
        rest = tuple(t for t in self.threads if t.id != thread.id)
        if len(rest) == len(self.threads):
            return ThreadStore(self.threads + (thread,))
        return ThreadStore(tuple(thread if t.id == thread.id else t for t in self.threads))
