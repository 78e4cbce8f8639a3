"""M7 Preparation: the list a call starts from, and the memory processors."""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Agent
from guardspec.model.fast import evolve
from guardspec.model.messages import TOOL_RANK, Message, Role, Source, SystemMessage, TextPart, ToolPart
from guardspec.model.scenario import Call, Loop
from guardspec.model.values import UNDEFINED

from . import messagelist as ml
from .messagelist import MastraError, MessageList


def binding(agent: Agent, call: Call) -> tuple[str | None, str | None] | None:
    """M7.1 The binding: without agent memory the call's memory option binds nothing; an empty
    thread id or resource counts as none (``thread || undefined``), both empty bind nothing,
    and exactly one empty is handled by ``new_list``.

    Evidence: M7.1
    """
    b = call.memory if agent.memory is not None else None
    if b is None or (not b.thread and not b.resource):
        return None
    return b.thread or None, b.resource or None


def new_list(agent: Agent, call: Call) -> MessageList:
    """M7 Preparation: instructions to the untagged bucket, context messages as ``context``, the
    caller's messages as ``input``, before any history is loaded; with exactly one of thread id
    and resource empty, generate and stream fail here (M7.1) while durable goes on."""
    b = binding(agent, call)
    if b and None in b and call.loop is not Loop.DURABLE:
        raise MastraError("AGENT_GENERATE_FAILED" if call.loop is Loop.GENERATE else "AGENT_STREAM_FAILED")
    lst = MessageList(
        thread_id=b[0] if b else None,
        resource_id=b[1] if b else None,
        clock=call.now,
    )
    if agent.instructions:
        lst = ml.add_system(lst, SystemMessage(agent.instructions))
    if call.context:
        lst = ml.add(lst, tuple(call.context), Source.CONTEXT)
    if call.messages:
        lst = ml.add(lst, tuple(call.messages), Source.INPUT)
    return lst


def _advances(part: ToolPart, stored: Message | None) -> bool:
    """A client tool update that advances the stored call with its toolCallId (the last
    stored part with that id)."""
    if stored is None:
        return False
    states = {p.tool_call_id: p.state for p in stored.parts or () if isinstance(p, ToolPart)}
    s = states.get(part.tool_call_id)
    return s is not None and TOOL_RANK[s] < 4 and TOOL_RANK[part.state] > TOOL_RANK[s]


def _strip_provider_metadata(m: Message) -> Message:
    """``stripAssistantProviderMetadata``: an assistant message's parts lose providerMetadata /
    providerOptions, client tool updates excepted (a new object)."""
    if m.role is not Role.ASSISTANT:
        return m
    parts = []
    for p in m.parts or ():
        if isinstance(p, ToolPart):
            if not p.is_client_outcome:
                p = evolve(p, provider_metadata=UNDEFINED)
        elif isinstance(p, TextPart):
            p = evolve(p, provider_options=UNDEFINED)
        parts.append(p)
    return evolve(m, parts=tuple(parts), ref=0)


def input_filter(lst: MessageList, stored: tuple[Message, ...], persisted_ids: frozenset[str] | None = None) -> MessageList:
    """M7.4 The memory input filter, on the input before the history is loaded.

    Input ending with user messages: keep the user messages after the last assistant message;
    that boundary assistant message comes back (its id, only its client tool updates) only when
    they advance a pending call stored under its id, otherwise it is dropped. Input ending with
    an assistant message: keep only its trailing client tool updates (as a copy with that id);
    none, and the id is stored (``persisted_ids``, any thread) → nothing is kept; none, and the
    id is not stored → the input is left as it is. Unchanged input is left as it is. A thread
    with no stored rows keeps all its input, stripped of assistant provider metadata. The
    rewrite clears the input and re-adds what is kept with merge off."""
    inputs = lst.view(Source.INPUT)
    if not inputs:
        return lst
    by_id = {m.id: m for m in stored}
    last = inputs[-1]
    boundary: Message | None = None
    if last.role is Role.USER:
        last_assistant = max((i for i, m in enumerate(inputs) if m.role is Role.ASSISTANT), default=-1)
        kept: list[Message] = list(inputs[last_assistant + 1 :])
        boundary = inputs[last_assistant] if last_assistant >= 0 else None
    elif last.role is Role.ASSISTANT:
        trailing: list[ToolPart] = []
        for p in reversed(last.parts or ()):
            if not (isinstance(p, ToolPart) and p.is_client_outcome):
                break
            trailing.insert(0, p)
        kept = [evolve(last, parts=tuple(trailing), ref=0)] if trailing else []
    else:
        return lst
    if len(kept) == len(inputs) and all(a.ref == b.ref for a, b in zip(kept, inputs)):
        return lst
    if not stored:
        seeded = [_strip_provider_metadata(m) for m in inputs]
        lst = ml.clear_source(lst, Source.INPUT)
        return ml.add(lst, tuple(seeded), Source.INPUT, merge=False)
    if not kept:
        known = persisted_ids if persisted_ids is not None else frozenset(by_id)
        if last.id not in known:
            return lst
    if boundary is not None:
        updates = tuple(p for p in boundary.parts or () if isinstance(p, ToolPart) and p.is_client_outcome)
        advancing = tuple(p for p in updates if _advances(p, by_id.get(boundary.id)))
        if advancing:
            kept.insert(0, evolve(boundary, parts=advancing, ref=0))
    lst = ml.clear_source(lst, Source.INPUT)
    return ml.add(lst, tuple(kept), Source.INPUT, merge=False)


def load_history(lst: MessageList, stored: tuple[Message, ...]) -> MessageList:
    """M7 Preparation: the history processor adds the thread's stored messages as ``memory``
    (M3 folds a stored message onto a caller input message with its id)."""
    for m in stored:
        lst, m = lst.fresh(m)
        lst = ml.add_one(lst, m, Source.MEMORY)
    return lst


def received_first(agent: Agent, lst: MessageList) -> tuple[tuple[Message, ...], tuple[SystemMessage, ...]]:
    """M7.5 What the first processor receives: in the raw runner, the list's own arrays when
    memory processors ran before it (they return the list), else the input messages."""
    msgs = lst.all() if agent.memory is not None else lst.view(Source.INPUT)
    return msgs, lst.untagged


def persisted_ids(threads: Any) -> frozenset[str]:
    """M7.4 The memory input filter: the ids of every stored message of any thread
    (``storage.listMessagesById``), against which a trailing echo is dropped."""
    return frozenset(m.id for t in getattr(threads, "threads", ()) for m in t.messages)


def stored_messages(threads: Any, thread_id: str | None) -> tuple[Message, ...]:
    """M7 Preparation: the bound thread's stored messages, which the filter and the history
    processor read (none without a thread)."""
    t = threads.get(thread_id) if thread_id else None
    return t.messages if t else ()
