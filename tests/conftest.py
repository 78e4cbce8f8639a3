"""Small builders shared by the clause tests (import them with ``from conftest import ...``)."""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Actor, Agent, Memory, MemoryBinding, Thread, ThreadStore
from guardspec.model.messages import Message, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.scenario import Call, Loop, Scenario

ALICE = Actor("alice", "operator")
THREAD, RESOURCE = "t1", "r1"
LOOPS = (Loop.GENERATE, Loop.STREAM, Loop.DURABLE)


def tool(call_id: str, state: str, result: Any = None, name: str = "getLocation", **kw: Any) -> ToolPart:
    """A tool-invocation part; ``result`` None means no result."""
    from guardspec.model.values import UNDEFINED

    return ToolPart(call_id, name, ToolState(state), result=UNDEFINED if result is None else result, **kw)


def stored(*messages: Message, title: str = "") -> ThreadStore:
    """Thread t1 of resource r1 holding ``messages`` (stamped with that thread)."""
    from attrs import evolve

    msgs = tuple(evolve(m, thread_id=THREAD, resource_id=RESOURCE) for m in messages)
    return ThreadStore((Thread(THREAD, RESOURCE, msgs, title),))


def scenario(
    *messages: Any,
    processors: tuple = (),
    policies: tuple = (),
    client_tools: tuple = (),
    threads: ThreadStore | None = None,
    memory: Memory | bool | None = None,
    loop: Loop = Loop.GENERATE,
    actor: Actor | None = ALICE,
    context: tuple = (),
    reply: str = "ok",
    **agent_kw: Any,
) -> Scenario:
    """One call. Memory is bound to thread t1 when ``threads`` is given or ``memory`` is set."""
    if memory is True or (memory is None and threads is not None):
        memory = Memory()
    if memory is False:
        memory = None
    agent = Agent(processors=tuple(processors), policies=tuple(policies), client_tools=tuple(client_tools), memory=memory, **agent_kw)
    binding = MemoryBinding(THREAD, RESOURCE) if memory is not None else None
    call = Call(loop=loop, messages=tuple(messages), actor=actor, memory=binding, reply=reply, context=tuple(context))
    return Scenario(agent, call, threads if threads is not None else ThreadStore())


def render(entry: Any) -> str:
    """A prompt or list entry as one line: ``system: text`` or ``role: text``."""
    if isinstance(entry, SystemMessage):
        c = entry.content
        if isinstance(c, tuple):
            c = "\n".join(p.text for p in c if isinstance(p, TextPart))
        return f"system: {c}"
    return f"{entry.role.value}: {entry.text()}"


def prompt_lines(obs: Any) -> list[str]:
    assert len(obs.prompts) == 1, obs.prompts
    return [render(e) for e in obs.prompts[0]]


def list_sources(obs: Any) -> dict[str, set[str]]:
    """Final list: message id -> set of source names."""
    return {lm.message.id: {s.value for s in lm.sources} for lm in obs.list.messages}


def list_message(obs: Any, message_id: str) -> Message:
    for lm in obs.list.messages:
        if lm.message.id == message_id:
            return lm.message
    raise KeyError(message_id)


def stored_ids(obs: Any) -> list[str]:
    return [m.id for m in obs.stored]


def stored_message(obs: Any, message_id: str) -> Message:
    for m in obs.stored:
        if m.id == message_id:
            return m
    raise KeyError(message_id)


def tool_parts(m: Message) -> list[ToolPart]:
    return [p for p in m.parts or () if isinstance(p, ToolPart)]


def events(obs: Any, action: str | None = None) -> list:
    return [e for e in obs.audit if action is None or e.action == action]
