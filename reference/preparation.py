"""M7 Preparation: the list a call starts from, and the memory processors."""

from __future__ import annotations

from typing import Any

from guardspec.model.fast import evolve

from guardspec.model.agent import Agent
from guardspec.model.messages import TOOL_RANK, Message, Role, Source, SystemMessage, ToolPart
from guardspec.model.scenario import Call

from . import messagelist as ml
from .messagelist import MessageList


def new_list(agent: Agent, call: Call) -> MessageList:
    """M7: instructions to the untagged bucket, context messages as ``context``, the caller's
    messages as ``input`` (before any history is loaded)."""
    b = call.memory
    lst = MessageList(
        thread_id=b.thread if b else None,
        resource_id=b.resource if b else None,
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
    if stored is None:
        return False
    for p in stored.parts or ():
        if isinstance(p, ToolPart) and p.tool_call_id == part.tool_call_id:
            return TOOL_RANK[p.state] < 4 and TOOL_RANK[part.state] > TOOL_RANK[p.state]
    return False


def input_filter(lst: MessageList, stored: tuple[Message, ...]) -> MessageList:
    """M7 MemoryInputFilter (mastra-facts §1.4): for a thread with stored rows, trim the
    caller input to what memory lacks: the user messages after the last assistant message, and
    of that assistant message only the client tool outcomes that advance a stored pending call
    (an assistant message unknown to storage is kept whole). The rewrite clears the input and
    re-adds what is kept with merge off."""
    if not stored:
        return lst
    inputs = lst.view(Source.INPUT)
    by_id = {m.id: m for m in stored}
    last_assistant = max((i for i, m in enumerate(inputs) if m.role is Role.ASSISTANT), default=None)
    kept: list[Message] = []
    if last_assistant is None:
        kept = [m for m in inputs if m.role is Role.USER]
    else:
        a = inputs[last_assistant]
        if a.id not in by_id:
            kept.append(a)
        else:
            outcomes = tuple(
                p for p in a.parts or () if isinstance(p, ToolPart) and p.is_client_outcome and _advances(p, by_id[a.id])
            )
            if outcomes:
                kept.append(evolve(a, parts=outcomes))
        kept.extend(m for m in inputs[last_assistant + 1 :] if m.role is Role.USER)
    if [m.ref for m in kept] == [m.ref for m in inputs]:
        return lst
    lst = ml.clear_source(lst, Source.INPUT)
    return ml.add(lst, tuple(kept), Source.INPUT, merge=False)


def load_history(lst: MessageList, stored: tuple[Message, ...]) -> MessageList:
    """M7 MessageHistory: the thread's stored messages are added as ``memory`` (M3 folds a
    stored message onto a caller input message with its id)."""
    for m in stored:
        lst, m = lst.fresh(m)
        lst = ml.add_one(lst, m, Source.MEMORY)
    return lst


def received_first(agent: Agent, lst: MessageList) -> tuple[tuple[Message, ...], tuple[SystemMessage, ...]]:
    """M7: what the first application processor receives in the raw runner: every message on
    the list when memory processors ran before it (they return the list), else the input."""
    msgs = lst.all() if agent.memory is not None else lst.view(Source.INPUT)
    return msgs, lst.untagged


def stored_messages(threads: Any, thread_id: str | None) -> tuple[Message, ...]:
    t = threads.get(thread_id) if thread_id else None
    return t.messages if t else ()
