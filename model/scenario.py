"""A scenario: the agent, the stored threads and one call (the spec's shape of the model; "Call")."""

from __future__ import annotations

from enum import Enum
from typing import Any

from attrs import frozen

from .agent import Actor, Agent, MemoryBinding, ThreadStore
from .messages import Message


class Loop(str, Enum):
    """The loop a call runs: Mastra's standard loop (generate, stream) or its durable agent."""

    GENERATE = "generate"
    STREAM = "stream"
    DURABLE = "durable"


class Mode(str, Enum):
    """``guarded``: G over M; ``raw``: the same processors handed straight to Mastra (the spec's two modes)."""

    GUARDED = "guarded"
    RAW = "raw"


@frozen
class Call:
    """One call. ``messages`` holds what the caller passes: messages, strings, nested lists.

    ``now`` is the scenario's clock: part stamps (M2) and the reply's createdAt come from it.
    """

    loop: Loop = Loop.GENERATE
    messages: tuple[Any, ...] = ()
    actor: Actor | None = None
    memory: MemoryBinding | None = None
    reply: str = "ok"
    context: tuple[Message, ...] = ()
    now: int = 1000


@frozen
class Scenario:
    """One run's input: the agent, the stored threads and one call. ``name``, ``note`` and
    ``clauses`` describe the scenario and take no part in the run."""

    agent: Agent
    call: Call
    threads: ThreadStore = ThreadStore()
    name: str = ""
    note: str = ""
    clauses: tuple[str, ...] = ()
