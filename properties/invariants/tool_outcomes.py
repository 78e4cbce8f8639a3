"""I8 and I10: the caller's client tool outcome on a remembered message (M3), as it is kept,
sent, mapped and saved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from guardspec.model.agent import ThreadStore
from guardspec.model.messages import Message, Role, Source, ToolPart, ToolState
from guardspec.model.observation import Answered, Observation
from guardspec.model.scenario import Scenario
from guardspec.model.values import UNDEFINED, obj, to_json_text

from .prompt import _unread_part
from .rendering import SENT_STATES, cached_output
from .scenario import bound_thread, caller_messages, touches


def carrier_ids(stages: Sequence[tuple[str, Any]]) -> set[str]:
    """Remembered messages carrying the caller's client tool outcome: memory+input on the list
    before any processor ran (M3)."""
    if not stages:
        return set()
    _, view = stages[0]
    return {lm.message.id for lm in view.messages if Source.MEMORY in lm.sources and Source.INPUT in lm.sources}


def _sent_tool_parts(prompt: Sequence[Any], mid: str) -> dict[str, ToolPart]:
    """The tool parts the prompt sends for message ``mid``, by toolCallId (M12 may split one
    message into several prompt entries under its id)."""
    out: dict[str, ToolPart] = {}
    for e in prompt:
        if isinstance(e, Message) and e.id == mid:
            for p in e.parts or ():
                if isinstance(p, ToolPart):
                    out[p.tool_call_id] = p
    return out


def returned_memory_input_stays_both(
    scenario: Scenario, obs: Observation, read: str | None, stages: Sequence[tuple[str, Any]], after: ThreadStore
) -> list[str]:
    """I8 (S3, G7): a returned memory+input message stays both: after every processor it is
    still memory and input, and on success its caller outcome is read, mapped (M11) and saved."""
    carriers = carrier_ids(stages)
    if not carriers:
        return []
    out = []
    # The message must stay both through every processor that kept it and did not move it
    # with an in-place step: only processors built from return values count here.
    last_view = stages[-1][1]
    for cid in carriers:
        if any(touches(p, cid) for p in scenario.agent.processors[: len(stages) - 1]):
            continue
        lm = next((x for x in last_view.messages if x.message.id == cid), None)
        if lm is None:
            continue  # a processor dropped it: not returned
        if not (Source.MEMORY in lm.sources and Source.INPUT in lm.sources):
            out.append(f"I8: returned memory+input message {cid!r} is now {sorted(s.value for s in lm.sources)}")
            continue
        if not isinstance(obs.outcome, Answered):
            continue
        if lm.message.role is not Role.ASSISTANT:
            continue  # M12.4: a user message's tool parts are not sent
        # the caller's outcome parts: a stored (historical) result on the same message is not
        # the caller's, and is sent as stored (G11.2)
        given = {q.tool_call_id for m in caller_messages(scenario) if m.id == cid for q in m.parts or () if isinstance(q, ToolPart)}
        outcome_parts = [p for p in lm.message.parts or () if isinstance(p, ToolPart) and p.is_client_outcome and p.tool_call_id in given]
        sent = _sent_tool_parts(obs.prompts[0], cid) if obs.prompts else {}
        for p in outcome_parts:
            if p.state not in SENT_STATES:
                continue  # M12: an approval answer is not sent to the model
            tool = scenario.agent.client_tool(p.tool_name)
            sp = sent.get(p.tool_call_id)
            if sp is None:
                out.append(f"I8: outcome {p.tool_call_id!r} of {cid!r} not sent")
                continue
            if (
                p.state is ToolState.RESULT
                and tool is not None
                and tool.mapping is not None
                and tool.mapping.kind == "text"
                and cached_output(p) is UNDEFINED
            ):
                want = obj(type="text", value=tool.mapping.prefix + to_json_text(p.result))
                if sp.result != want:
                    out.append(f"I8: outcome {p.tool_call_id!r} of {cid!r} sent unmapped: {sp.result!r}")
            why = _unread_part(read, sp)
            if why:
                out.append(f"I8: outcome {p.tool_call_id!r} of {cid!r}: {why}")
        t = bound_thread(scenario)
        th = after.get(t) if t else None
        saved = {m.id: m for m in th.messages} if th else {}
        for p in outcome_parts:
            sm = saved.get(cid)
            # a saved message has parts (M13.2)
            sparts = cast("tuple[Any, ...]", sm.parts) if sm else ()
            states = [q.state for q in sparts if isinstance(q, ToolPart) and q.tool_call_id == p.tool_call_id]
            if p.state not in states:
                out.append(f"I8: outcome {p.tool_call_id!r} ({p.state.value}) of {cid!r} not saved: {states}")
    return out


def moved_outcome_not_remapped(scenario: Scenario, obs: Observation, stages: Sequence[tuple[str, Any]]) -> list[str]:
    """I10 (S6, G11): a remembered caller outcome a processor moved out of the input gets no new
    mapping: its result is sent as it stood after the last processor, its cached output (if
    any) substituted."""
    if not obs.prompts or len(stages) < 2:
        return []
    out = []
    _, last = stages[-1]
    for cid in carrier_ids(stages):
        lm = next((x for x in last.messages if x.message.id == cid), None)
        if lm is None or Source.INPUT in lm.sources:
            continue
        sent = _sent_tool_parts(obs.prompts[0], cid)
        for p in lm.message.parts or ():
            if not (isinstance(p, ToolPart) and p.state is ToolState.RESULT and p.tool_call_id in sent):
                continue
            cached = cached_output(p)
            want = p.result if cached is UNDEFINED else cached
            if sent[p.tool_call_id].result != want:
                out.append(f"I10: moved outcome {p.tool_call_id!r} of {cid!r} sent as {sent[p.tool_call_id].result!r}, expected {want!r}")
    return out
