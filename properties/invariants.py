"""The invariants of SPEC §P, one function each, named after what holds.

Every function returns a list of violation strings: empty means the invariant holds. They look
only at what an implementation can show (the scenario, its observation, the stored threads
before and after the call, and, where a clause speaks of what happened *between* processors, the
reference's stage trace), so that raw mode can be measured against them too (I12).

How I4 decides that an entry "was read": the policies' text (``read``) is the newline-joined
list of texts G12 extracts. An entry counts as read when every text G12 would extract from it
(``reading.part_texts`` for a part, ``reading.system_texts`` for a system message) occurs as a
substring of ``read``. Substring (not line) matching can only make the check more lenient: a
missed violation, never a false one. Generated texts are fixed-width tokens (``note-07``) so
that accidental containment is rare.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from attrs import evolve

from guardspec.model.agent import Agent, ThreadStore
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import Answered, Failed, Observation, Refused
from guardspec.model.processors import (
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    ArrayOf,
    ObjectOf,
    OtherList,
    Primitive,
    Return,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Loop, Scenario
from guardspec.model.values import UNDEFINED, BigInt, JsObject, obj, to_json_text
from guardspec.reference.reading import NotClassified, cached_output, part_texts, system_texts

PROCESSOR_FAILED = "input processor failed"
RECORDER = "breakwater-client-tool-outcome-recorder"

# -- what the scenario says, independently of the reference -----------------------------------


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


def _texts(entry: Any) -> list[str]:
    """G12 texts of a prompt entry, or a part; raises NotClassified."""
    if isinstance(entry, SystemMessage):
        return system_texts(entry)
    return part_texts(entry)


def _read_has(read: str | None, texts: Iterable[str]) -> bool:
    if read is None:
        return not any(texts)
    return all(t in read for t in texts)


def _substituted(p: Any) -> Any:
    """M11/M12: the part as the prompt shows it (a cached output replaces the result)."""
    if isinstance(p, ToolPart):
        out = cached_output(p)
        if out is not UNDEFINED:
            return evolve(p, result=out)
    return p


def as_sent(p: Any) -> Any:
    """M12: how Mastra's prompt conversion sends a part: an ``output-denied`` call as a result
    holding ``{type: 'text', value: <the approval's reason or Mastra's fixed text>}``, and a
    cached output in place of the result (M11)."""
    if isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_DENIED:
        reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
        text = reason if isinstance(reason, str) and reason else DENIAL_TEXT
        return evolve(p, state=ToolState.RESULT, result=obj(type="text", value=text), approval=UNDEFINED)
    return _substituted(p)


def known_parts(scenario: Scenario) -> set[tuple]:
    """Parts stored before the call, keyed (message id, role, part), as stored and as the
    prompt sends them (``as_sent``)."""
    out = set()
    for m in stored_before(scenario):
        for p in m.parts or ():
            out.add((m.id, m.role, p))
            out.add((m.id, m.role, _substituted(p)))
            out.add((m.id, m.role, as_sent(p)))
    return out


def configured_system(agent: Agent) -> set[SystemMessage]:
    return {SystemMessage(agent.instructions)} if agent.instructions else set()


def _reasons(o: Observation) -> str:
    return f"{o.outcome!r}"


# -- I1, I2, I3 --------------------------------------------------------------------------------


def refused_call_leaves_threads_intact(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """I1 (S8, S9, G13, G14): a refused call leaves every stored thread exactly as it was (a
    thread the call created at preparation, M7, stays empty and untitled)."""
    if not isinstance(obs.outcome, Refused):
        return []
    out = []
    for t in after.threads:
        old = before.get(t.id)
        if old is None:
            if t.messages or t.title:
                out.append(f"I1: refused call {_reasons(obs)} filled new thread {t.id!r}: {[m.id for m in t.messages]} title={t.title!r}")
        elif old.messages != t.messages:
            out.append(
                f"I1: refused call {_reasons(obs)} changed thread {t.id!r}: {[m.id for m in old.messages]} -> {[m.id for m in t.messages]}"
            )
    for t in before.threads:
        if after.get(t.id) is None:
            out.append(f"I1: refused call deleted thread {t.id!r}")
    return out


def failed_call_leaves_threads_intact(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """Extra (G0, G1, M9): a call that fails (TypeError or a rejected generate/stream) saves
    nothing."""
    if not isinstance(obs.outcome, Failed):
        return []
    return [f"failed call {_reasons(obs)} changed thread {t.id!r}" for t in after.threads if (before.get(t.id) or t).messages != t.messages]


def refused_call_generates_no_title(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """I2 (S9, G14): no thread title is generated from a refused call's content."""
    if not isinstance(obs.outcome, Refused):
        return []
    out = []
    for t in after.threads:
        old = before.get(t.id)
        if t.title != (old.title if old else ""):
            out.append(f"I2: refused call {_reasons(obs)} titled thread {t.id!r}: {t.title!r}")
    return out


def guarded_agent_generates_no_title(scenario: Scenario, obs: Observation, before: ThreadStore, after: ThreadStore) -> list[str]:
    """Extra (G0, G14): the guarded agent never generates titles, on any outcome."""
    return [
        f"G14: guarded call titled thread {t.id!r}: {t.title!r}"
        for t in after.threads
        if t.title != ((before.get(t.id).title) if before.get(t.id) else "")
    ]


def refused_result_omits_call_messages(scenario: Scenario, obs: Observation) -> list[str]:
    """I3 (S9): a refused generate/stream result's ``messages`` and ``rememberedMessages`` hold
    no input, response, added, changed or moved message: only unchanged stored history (and the
    call's context messages), never a caller message's id."""
    if not isinstance(obs.outcome, Refused) or obs.result is None:
        return []
    out = []
    for field, ids in (("messages", obs.result.messages), ("rememberedMessages", obs.result.remembered)):
        out.extend(f"I3: refused result.{field} holds {why}" for why in _not_history(scenario, obs, ids))
    if obs.result.finish_reason != "other" or obs.result.text != "":
        out.append(f"G14: refused result has finishReason {obs.result.finish_reason!r}, text {obs.result.text!r}")
    return out


def _not_history(scenario: Scenario, obs: Observation, ids: Iterable[str]) -> list[str]:
    """Which of ``ids`` (messages on the final list) are not unchanged stored history or the
    call's context: caller messages, additions, changed or moved history."""
    callers = caller_ids(scenario)
    stored = {m.id: m for m in stored_before(scenario)}
    context = {m.id for m in scenario.call.context} - callers
    on_list = {lm.message.id: lm.message for lm in obs.list.messages} if obs.list else {}
    out = []
    for i in ids:
        if i in callers:
            out.append(f"caller message {i!r}")
        elif i in stored:
            now = on_list.get(i)
            if now is not None and (now.role, now.parts) != (stored[i].role, stored[i].parts):
                out.append(f"changed history message {i!r}")
        elif i not in context:
            out.append(f"{i!r}, neither stored history nor context")
    return out


def refused_list_holds_only_history(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G13, S8): after a refusal the final message list holds only unchanged stored
    history and context (system messages stay), and on generate/stream no message is left in
    the input or response set."""
    if not isinstance(obs.outcome, Refused) or obs.list is None:
        return []
    out = [f"G13: refused list holds {why}" for why in _not_history(scenario, obs, [lm.message.id for lm in obs.list.messages])]
    if scenario.call.loop is not Loop.DURABLE:  # durable finalisation drains the sets
        for lm in obs.list.messages:
            left = {Source.INPUT, Source.RESPONSE} & set(lm.sources)
            if left:
                out.append(f"G13: refused list keeps {lm.message.id!r} in {sorted(s.value for s in left)}")
    return out


def refused_call_never_reaches_model(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G2): on any refusal nothing later runs and the model is never called."""
    if isinstance(obs.outcome, (Refused, Failed)) and obs.prompts:
        return [f"G2: {_reasons(obs)} yet the model was called"]
    return []


# -- I4 ------------------------------------------------------------------------------------------


# What Mastra's prompt conversion sends for an ``output-denied`` call with no reason (M12).
DENIAL_TEXT = "Tool call was not approved by the user"


def _denial_as_result(read: str | None, p: Any) -> bool:
    """M12: Mastra sends an ``output-denied`` call as a result holding ``{type: 'text', value:
    <the approval's reason>}``; the reason was read (as the JSON text of the approval reason,
    G12), or it is Mastra's own fixed text."""
    if not (isinstance(p, ToolPart) and p.state is ToolState.RESULT and isinstance(p.result, JsObject)):
        return False
    if p.result.get("type") != "text" or set(p.result.keys()) != {"type", "value"}:
        return False
    v = p.result.get("value")
    if not isinstance(v, str):
        return False
    return v == DENIAL_TEXT or _read_has(read, [to_json_text(v)])


def _unread_part(read: str | None, p: Any) -> str | None:
    """Why a part does not count as read, or None when it does."""
    try:
        texts = _texts(p)
    except NotClassified as e:
        return f"unclassifiable ({e})"
    missing = [t for t in texts if not _read_has(read, [t])]
    if missing and _denial_as_result(read, p):
        rest = _texts(evolve(p, result=UNDEFINED))
        missing = [t for t in rest if not _read_has(read, [t])]
    return f"texts {missing!r} not in the policies' read" if missing else None


def is_mastra_filler(e: Any) -> bool:
    """M12: the user message ``"."`` Mastra's prompt conversion puts first when the first
    non-system message is not a user message; nobody wrote it, so nothing is there to read."""
    return (
        isinstance(e, Message)
        and e.id == ""
        and e.role is Role.USER
        and len(e.parts or ()) == 1
        and isinstance(e.parts[0], TextPart)
        and e.parts[0].text == "."
    )


def prompt_entries_are_known_or_read(scenario: Scenario, obs: Observation, read: str | None) -> list[str]:
    """I4, first half (S5, G9, G10): every prompt entry (a system message, or a part of a
    message) is identical to one stored or configured before the call (a part keyed by its
    message's id and role), or was read by the input policies."""
    known = known_parts(scenario)
    configured = configured_system(scenario.agent)
    out = []
    for step, prompt in enumerate(obs.prompts):
        for e in prompt:
            if isinstance(e, SystemMessage):
                if e in configured:
                    continue
                why = _unread_part(read, e)
                if why:
                    out.append(f"I4: prompt[{step}] system message {e.content!r}: {why}")
                continue
            if is_mastra_filler(e):
                continue
            for i, p in enumerate(e.parts or ()):
                if (e.id, e.role, p) in known:
                    continue
                why = _unread_part(read, p)
                if why:
                    out.append(f"I4: prompt[{step}] message {e.id!r} part {i} ({type(p).__name__}): {why}")
    return out


def _mapped_later(agent: Agent, p: Any) -> bool:
    """A result part G11 may still map after the stage it was seen in (its text is then the
    mapped output, which the prompt check covers)."""
    if not isinstance(p, ToolPart) or p.state is not ToolState.RESULT or cached_output(p) is not UNDEFINED:
        return False
    tool = agent.client_tool(p.tool_name)
    return tool is not None and tool.mapping is not None


def additions_are_read(scenario: Scenario, read: str | None, stages: Sequence[tuple[str, Any]]) -> list[str]:
    """I4, second half (S5, G9, G10): text a processor ever added to the prompt outside the
    call's input is read, even if a later processor took it away.

    ``stages`` are the lists after each application processor (name, ``ListView``), as the
    reference's trace records them. An entry of such a list that is not input-only (G9's prompt
    entries), is not configured, and holds a part that was on no earlier list and is not stored
    history, is an addition; its texts must occur in ``read``. Checked only when the policies ran.
    """
    if read is None or not stages:
        return []
    known = known_parts(scenario)
    configured = configured_system(scenario.agent)
    seen_parts: set[tuple] = set()
    seen_system: set = set()
    out = []
    first = True
    for name, view in stages:
        systems = list(view.untagged) + [s for _, b in view.tagged for s in b]
        msgs = [(lm.message, lm.sources) for lm in view.messages]
        if first:
            # the list before any processor ran: the baseline
            seen_system.update(repr(s) for s in systems)
            seen_parts.update((m.id, m.role, p) for m, _ in msgs for p in m.parts or ())
            first = False
            continue
        for s in systems:
            if s in configured or repr(s) in seen_system:
                continue
            why = _unread_part(read, s)
            if why:
                out.append(f"I4: after {name}, added system message {s.content!r}: {why}")
        for m, sources in msgs:
            if set(sources) == {Source.INPUT}:
                continue
            for i, p in enumerate(m.parts or ()):
                key = (m.id, m.role, p)
                if key in known or key in seen_parts or _mapped_later(scenario.agent, p):
                    continue
                why = _unread_part(read, p)
                if why:
                    out.append(f"I4: after {name}, added/changed message {m.id!r} part {i}: {why}")
        seen_system.update(repr(s) for s in systems)
    return out


def nothing_reaches_model_unread(scenario: Scenario, obs: Observation, read: str | None, stages: Sequence[tuple[str, Any]] = ()) -> list[str]:
    """I4 (S5, G9, G10): nothing reaches the model unread; both halves."""
    return prompt_entries_are_known_or_read(scenario, obs, read) + additions_are_read(scenario, read, stages)


# -- I5, I6 --------------------------------------------------------------------------------------


def _falsy(v: Any) -> bool:
    if v is UNDEFINED or v is None or v is False or v == "":
        return True
    if isinstance(v, BigInt):
        return v.value == 0
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == 0 or v != v
    return False


def predicted_first_processor(scenario: Scenario) -> tuple[str, str] | None:
    """G6/G7 from the scenario alone: how the first application processor must end the call,
    when that is decided by its ending: ``("fail", id)`` or ``("abort", reason)`` (its steps may
    still throw first, which is a failure), else None."""
    if not scenario.agent.processors:
        return None
    p = scenario.agent.processors[0]
    end = p.end
    if isinstance(end, (Throw, AbortThenThrow, AbortFinallyThrow)):
        return ("fail", p.id)
    if isinstance(end, (Abort, ThrowTripWire)):
        return ("abort", end.reason)
    if isinstance(end, Return):
        v = end.value
        if isinstance(v, OtherList) or (isinstance(v, Primitive) and not _falsy(v.value)):
            return ("fail", p.id)
        if isinstance(v, ObjectOf):
            msgs_ok = isinstance(v.messages, (ArrayOf, tuple))
            sys_ok = isinstance(v.system_messages, tuple) or v.system_messages == "received"
            if not (msgs_ok and sys_ok):
                return ("fail", p.id)
    return None


def _reaches_processors(scenario: Scenario, obs: Observation) -> bool:
    """The chain reached the first application processor: no TypeError, RBAC allowed, no
    recorder failure (G1-G4), judged from the scenario and the first audit event."""
    if isinstance(obs.outcome, Failed) or not obs.audit or obs.audit[0].decision != "allowed":
        return False
    for m in caller_messages(scenario):
        ids = [p.tool_call_id for p in m.parts or () if isinstance(p, ToolPart) and p.is_client_outcome]
        if len(ids) != len(set(ids)):
            return False
    return True


def processor_failure_gives_one_error_event(scenario: Scenario, obs: Observation) -> list[str]:
    """I5 (S4, G6): a processor failure gives exactly one ``agent.input.processor`` error event
    with reason ``input processor failed`` naming the processor, no policy event and no model
    call; a processor whose ending must fail (a throw, an unappliable value) does fail."""
    out = []
    events = [e for e in obs.audit if e.action == "agent.input.processor"]
    o = obs.outcome
    failed = isinstance(o, Refused) and o.reason == PROCESSOR_FAILED
    if failed:
        if len(events) != 1:
            out.append(f"I5: processor failure with {len(events)} processor events")
        for e in events:
            if (e.decision, e.reason, dict(e.detail).get("processor")) != ("error", PROCESSOR_FAILED, o.processor_id):
                out.append(f"I5: processor event {e!r} does not match the failure of {o.processor_id!r}")
        if any(e.action == "agent.input.policy" for e in obs.audit):
            out.append("I5: processor failure followed by a policy event")
        if obs.prompts:
            out.append("I5: processor failure yet the model was called")
    elif events:
        out.append(f"I5: processor events {events!r} on outcome {o!r}")
    pred = predicted_first_processor(scenario)
    if pred and pred[0] == "fail" and _reaches_processors(scenario, obs):
        if o != Refused(PROCESSOR_FAILED, pred[1]):
            out.append(f"I5: first processor {pred[1]!r} must fail the call, outcome {o!r}")
    return out


def own_abort_refuses_with_own_reason(scenario: Scenario, obs: Observation) -> list[str]:
    """I6 (S4, G6): a processor's own abort or TripWire refuses with its own reason and no
    processor event; a refusal attributed to an application processor with another reason than
    ``input processor failed`` comes from such an ending."""
    out = []
    o = obs.outcome
    procs = {p.id: p for p in scenario.agent.processors}
    if isinstance(o, Refused) and o.processor_id in procs and o.reason != PROCESSOR_FAILED:
        end = procs[o.processor_id].end
        if not isinstance(end, (Abort, ThrowTripWire)) or end.reason != o.reason:
            out.append(f"I6: refused by {o.processor_id!r} with {o.reason!r}, but its ending is {end!r}")
        if any(e.action == "agent.input.processor" for e in obs.audit):
            out.append("I6: own abort produced a processor event")
    pred = predicted_first_processor(scenario)
    if pred and pred[0] == "abort" and _reaches_processors(scenario, obs):
        first = scenario.agent.processors[0].id
        if o not in (Refused(pred[1], first), Refused(PROCESSOR_FAILED, first)):
            out.append(f"I6: first processor {first!r} aborts with {pred[1]!r}, outcome {o!r}")
    return out


# -- I7 ------------------------------------------------------------------------------------------


def processors_run_once_before_model(scenario: Scenario, obs: Observation, stage_names: Sequence[str]) -> list[str]:
    """I7 (S1, G5): each processor runs exactly once per call (at most once when the chain
    stopped), in order, before the first and only model step."""
    out = []
    expected = [f"processor {p.id}" for p in scenario.agent.processors]
    ran = [n for n in stage_names if n.startswith("processor ")]
    if ran != expected[: len(ran)]:
        out.append(f"I7: processor stages {ran} are not a prefix of {expected}")
    if isinstance(obs.outcome, Answered) and ran != expected:
        out.append(f"I7: answered call ran processors {ran}, expected {expected}")
    if "model step" in stage_names:
        at = list(stage_names).index("model step")
        if any(n.startswith("processor ") for n in stage_names[at:]):
            out.append("I7: a processor ran after the model step")
    if len(obs.prompts) > 1:
        out.append(f"I7: {len(obs.prompts)} model steps")
    return out


# -- I8, I10: the caller's client tool outcome on a remembered message -------------------------


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


# M12: the tool states Mastra sends to the model (pending calls and approvals are not sent).
SENT_STATES = (ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED)


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
        outcome_parts = [p for p in lm.message.parts or () if isinstance(p, ToolPart) and p.is_client_outcome]
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
                from guardspec.model.values import obj, to_json_text

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
            states = [q.state for q in (sm.parts if sm else ()) if isinstance(q, ToolPart) and q.tool_call_id == p.tool_call_id]
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
            want = _substituted(p).result
            if sent[p.tool_call_id].result != want:
                out.append(f"I10: moved outcome {p.tool_call_id!r} of {cid!r} sent as {sent[p.tool_call_id].result!r}, expected {want!r}")
    return out


# -- I9 ------------------------------------------------------------------------------------------


def _prompt_strings(obs: Observation) -> list[str]:
    out = []
    for prompt in obs.prompts:
        for e in prompt:
            try:
                if isinstance(e, SystemMessage):
                    out.extend(system_texts(e))
                else:
                    for p in e.parts or ():
                        out.extend(part_texts(p))
            except NotClassified:
                out.append(repr(e))
    return out


def _literal_strings(scenario: Scenario) -> str:
    """Every string the scenario itself supplies for this call: caller messages, the agent's
    configuration (processors add their literal texts on every call)."""
    return repr(scenario.call) + repr(scenario.agent)


def refused_text_never_sent_later(history: Sequence[tuple[Scenario, Observation]]) -> list[str]:
    """I9 (S8, S9, G14): after a refused call, no later call on the thread sends the refused
    caller text to the model, unless a call after the refused one supplies the text itself or it
    was stored before the refused call."""
    out = []
    for i, (sc, obs) in enumerate(history):
        if not isinstance(obs.outcome, Refused):
            continue
        stored = repr(stored_before(sc))
        refused = {
            p.text
            for m in caller_messages(sc)
            for p in m.parts or ()
            if isinstance(getattr(p, "text", None), str) and len(p.text) >= 4 and p.text not in stored
        }
        supplied = ""
        for j in range(i + 1, len(history)):
            later, lobs = history[j]
            supplied += _literal_strings(later)  # a later call may supply (and store) it again
            if bound_thread(later) != bound_thread(sc):
                continue
            sent = "\n".join(_prompt_strings(lobs))
            for t in refused:
                if t not in supplied and t in sent:
                    out.append(f"I9: text {t!r} of refused call {i} sent to the model in call {j}")
    return out


# -- I11 -----------------------------------------------------------------------------------------


def same_scenario_same_observation(first: Observation, second: Observation) -> list[str]:
    """I11 (§0): the same scenario gives the same observation."""
    if first == second:
        return []
    diff = [f for f in ("outcome", "audit", "prompts", "stored", "title", "result", "list", "read") if getattr(first, f) != getattr(second, f)]
    return [f"I11: two runs of one scenario differ in {diff}"]


def touches(processor: Any, mid: str) -> bool:
    """A processor that moves message ``mid`` with in-place steps (removes it, adds an entry
    with its id, or clears the input): such a message is not "returned" (I8)."""
    from guardspec.model.processors import AddMessages, ClearInput, RemoveByIds

    for s in processor.steps:
        if isinstance(s, ClearInput) or (isinstance(s, RemoveByIds) and mid in s.ids):
            return True
        if isinstance(s, AddMessages) and any(isinstance(e, Message) and e.id == mid for e in s.entries):
            return True
    return False


# -- extras the seed implies ---------------------------------------------------------------------


def policy_verdict_matches_read(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G12): when the policies ran, the outcome is what the policies, in order, decide on
    the text read: the first deny-patterns match refuses, an evaluator that throws or gives no
    decision refuses with ``policy evaluation failed``, otherwise the call is answered; and
    there is exactly one policy event."""
    from guardspec.model.agent import Allow, DenyPatterns

    if obs.read is None:
        return []
    want: Any = Answered()
    for p in scenario.agent.policies:
        if isinstance(p, DenyPatterns):
            if any(x in obs.read for x in p.patterns):
                want = Refused(f"policy '{p.name}' denied the input", "breakwater-policy-engine")
                break
        elif not isinstance(p, Allow):
            want = Refused("policy evaluation failed", "breakwater-policy-engine")
            break
    out = []
    if obs.outcome != want:
        out.append(f"G12: policies on the read text decide {want!r}, outcome {obs.outcome!r}")
    n = sum(e.action == "agent.input.policy" for e in obs.audit)
    if n != 1:
        out.append(f"G12: {n} policy events for one evaluation")
    return out


def audit_is_hygienic(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G15): every event carries the actor, resource ``agent:<id>``, a decision and a
    reason, and no event carries message text or thrown-error text."""
    from guardspec.model.processors import AbortFinallyThrow, AbortThenThrow, Throw

    secrets = set()
    for m in caller_messages(scenario):
        for p in m.parts or ():
            if isinstance(getattr(p, "text", None), str) and len(p.text) >= 6:
                secrets.add(p.text)
    for p in scenario.agent.processors:
        if isinstance(p.end, (Throw, AbortThenThrow, AbortFinallyThrow)) and len(p.end.message) >= 6:
            secrets.add(p.end.message)
    out = []
    for e in obs.audit:
        if e.actor != scenario.call.actor or e.resource != f"agent:{scenario.agent.id}" or not e.decision or not e.reason:
            out.append(f"G15: event {e!r} lacks actor/resource/decision/reason")
        blob = repr((e.reason, e.detail))
        for t in secrets:
            if t in blob:
                out.append(f"G15: event {e.action} carries text {t!r}")
    return out


def identity_processors_change_nothing(plain: Observation, with_identity: Observation) -> list[str]:
    """Extra (G5, G7): processors that return the very list, a falsy value or the received
    array itself (no copies, no steps) leave the call as if they were absent: same outcome,
    prompts, stored messages, title and result."""
    fields = ("outcome", "prompts", "stored", "title", "result", "read")
    diff = [f for f in fields if getattr(plain, f) != getattr(with_identity, f)]
    return [f"G7: identity processors changed {diff}"] if diff else []


# -- I12 -----------------------------------------------------------------------------------------


def raw_mode_shows_predicted_violations(found: dict[str, int]) -> list[str]:
    """I12 (§0, S8, S9, S5): raw Mastra must show I1 or I2 violations on the durable loop and I4
    violations when a processor moves text out of the input. ``found`` counts the raw-mode
    violations seen, keyed ``I1@durable``, ``I2@durable``, ``I4@moved``; each missing one is a
    violation of I12 (the model failed to exhibit the counterexample)."""
    out = []
    if found.get("I1@durable", 0) + found.get("I2@durable", 0) == 0:
        out.append("I12: raw mode showed no I1/I2 violation on the durable loop")
    if found.get("I4@moved", 0) == 0:
        out.append("I12: raw mode showed no I4 violation for text moved out of the input")
    return out


def guarded_mode_shows_none(found: dict[str, int]) -> list[str]:
    """I12 (§0): guarded mode shows none of the violations raw mode shows."""
    return [f"I12: guarded mode violated {k} {n} time(s)" for k, n in found.items() if n]


def mapping_error_fails_call(scenario: Scenario, obs: Observation, stages: Sequence[tuple[str, Any]]) -> list[str]:
    """Extra (G11): a client tool mapping that throws on a message of the call's input fails the
    call (processor ``breakwater-client-tool-output``). Checked when the list after the last
    processor holds, in the input set, an assistant result part of a throwing-mapping tool with
    no cached output, and the chain got that far."""
    if not stages or len(stages) - 1 != len(scenario.agent.processors) or not _reaches_processors(scenario, obs):
        return []
    _, last = stages[-1]
    for lm in last.messages:
        if Source.INPUT not in lm.sources or lm.message.role is not Role.ASSISTANT:
            continue
        for p in lm.message.parts or ():
            tool = scenario.agent.client_tool(p.tool_name) if isinstance(p, ToolPart) else None
            if (
                tool is not None
                and tool.mapping is not None
                and tool.mapping.kind == "throws"
                and p.state is ToolState.RESULT
                and cached_output(p) is UNDEFINED
                and "modelOutputComputed" not in repr(p.provider_metadata)
            ):
                want = Refused(PROCESSOR_FAILED, "breakwater-client-tool-output")
                return [] if obs.outcome == want else [f"G11: mapping of {p.tool_call_id!r} throws, outcome {obs.outcome!r}"]
    return []
