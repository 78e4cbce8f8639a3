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
    """A client tool the agent declares, with or without a ``toModelOutput`` mapping (M11, G11)."""

    name: str
    mapping: Mapping | None = None


@frozen
class Memory:
    """Memory bound to the agent; ``generate_title`` asks Mastra for thread titles (M13, G0)."""

    generate_title: bool = False


@frozen
class Agent:
    """The agent (the spec's vocabulary, "Agent"): instructions, the roles and principal kinds
    RBAC allows (G3), the input asset origins the gate allows (G16.1), the input policies and the
    application input processors, each in order, client tools, and memory (absent, or with title
    generation, which the guarded agent refuses at construction, G0). ``max_steps``: model steps
    per call (one in every scenario)."""

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
    """G3.1: the actor the caller puts into the request context: id, role, principal kind.
    Breakwater reads it as no actor at all when the id is blank, the role is not one of its
    roles or the kind is not one of its kinds."""

    id: str
    role: str
    kind: str | None = "human"  # None: the actor declares no principal kind (G3)


@frozen
class Thread:
    """A stored thread: id, resource, its messages as storage holds them (M13.10), and its
    title (``""``: none, M13.9)."""

    id: str
    resource: str | None
    messages: tuple[Message, ...] = ()
    title: str = ""


@frozen
class MemoryBinding:
    """M7.1: the call's memory binding, a thread id and its resource."""

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
