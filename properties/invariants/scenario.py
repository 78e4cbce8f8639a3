"""What the scenario itself says, independently of any run: the bound thread, the caller's
messages, the stored history, the configured system message.
"""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Actor, Agent
from guardspec.model.messages import Message, Role, Source, SystemMessage
from guardspec.model.observation import Observation
from guardspec.model.processors import AddMessages, ClearInput, RemoveByIds
from guardspec.model.scenario import Scenario

PROCESSOR_FAILED = "input processor failed"
RECORDER = "breakwater-client-tool-outcome-recorder"


def bound_thread(scenario: Scenario) -> str | None:
    """The thread a call is bound to (memory configured and a binding given), else None."""
    b = scenario.call.memory
    return b.thread if b is not None and scenario.agent.memory is not None else None


def caller_messages(scenario: Scenario) -> list[Message]:
    """The call's caller messages, one level of nesting flattened (M2)."""
    out: list[Message] = []
    for m in scenario.call.messages:
        for x in m if isinstance(m, tuple) else (m,):
            if isinstance(x, Message):
                out.append(x)
    return out


def caller_ids(scenario: Scenario) -> set[str]:
    return {m.id for m in caller_messages(scenario)}


def stored_before(scenario: Scenario) -> tuple[Message, ...]:
    t = bound_thread(scenario)
    th = scenario.threads.get(t) if t else None
    return th.messages if th else ()


def configured_system(agent: Agent) -> set[SystemMessage]:
    return {SystemMessage(agent.instructions)} if agent.instructions else set()


def _reasons(o: Observation) -> str:
    return f"{o.outcome!r}"


def touches(processor: Any, mid: str) -> bool:
    """A processor that moves message ``mid`` with in-place steps (removes it, adds an entry
    with its id, clears the input, or adds an assistant under ``response`` that may merge into
    it): such a message is not "returned" (I8).

    The merge case (M4.1, M1.1): an assistant added under ``response`` with merging on merges
    into the latest message whatever its own id, and that message leaves memory and input.
    Which message is latest depends on the list, so any such add counts."""
    for s in processor.steps:
        if isinstance(s, ClearInput) or (isinstance(s, RemoveByIds) and mid in s.ids):
            return True
        if isinstance(s, AddMessages) and any(isinstance(e, Message) and e.id == mid for e in s.entries):
            return True
        merging = isinstance(s, AddMessages) and s.source is Source.RESPONSE and s.merge is not False
        if merging and any(isinstance(e, Message) and e.role is Role.ASSISTANT for e in s.entries):
            return True
    return False


# G3.1: Breakwater's closed role set and its principal kinds (G0.2)
BREAKWATER_ROLES = frozenset({"admin", "builder", "operator", "reviewer", "viewer"})
PRINCIPAL_KINDS = frozenset({"human", "service", "agent", "system"})


def request_actor(actor: Actor | None) -> Actor | None:
    """G3.1: the actor Breakwater reads from the
    request context, or None: an actor with an empty id, a role outside the closed role set or
    a principal kind outside the known kinds (null included) is no actor at all."""
    if actor is None or not actor.id.strip() or actor.role not in BREAKWATER_ROLES or actor.kind not in PRINCIPAL_KINDS:
        return None
    return actor
