"""The call's outcome: G2 (a refusal never reaches the model), I5 and I6 (how a processor ends the
call), I7 (processors run once, before the one model step), I11 (determinism), G12 (the policies'
verdict on the text read), G7 (identity processors change nothing), G11 (a throwing mapping
fails the call).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from guardspec.model.agent import Allow, DenyPatterns
from guardspec.model.jsvalues import falsy as _falsy
from guardspec.model.messages import Role, Source, ToolPart, ToolState
from guardspec.model.observation import Answered, Failed, Observation, Refused
from guardspec.model.processors import (
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    AbortWrapThrow,
    ArrayOf,
    ObjectOf,
    OtherList,
    Primitive,
    Return,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Loop, Scenario
from guardspec.model.values import UNDEFINED

from .rendering import cached_output
from .scenario import PROCESSOR_FAILED, _reasons, caller_messages

INPUT_ASSETS = "breakwater-input-assets"  # the input-assets gate's processor id (G16)


def refused_call_never_reaches_model(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G2): on any refusal nothing later runs and the model is never called. M13: a
    failure of the result-text read-back comes after the model answered (M13.5, M13.6)."""
    if isinstance(obs.outcome, (Refused, Failed)) and obs.prompts and not _read_back_failure(obs.outcome):
        return [f"G2: {_reasons(obs)} yet the model was called"]
    return []


def _read_back_failure(outcome: Any) -> bool:
    """M12.10, M13.6: failures after the processors: the
    asset download before the model, the result-text read-back after it."""
    return isinstance(outcome, Failed) and after_chain_failure(outcome.error)


READ_BACK_ERRORS = (
    "Error: Invalid URL: ",
    "Error: Unsupported URL protocol: ",
    "Error: Invalid data URL format: ",
    "AI_InvalidDataContentError: Invalid data content.",
    "Error: Invalid data content.",
)


def after_chain_failure(error: str) -> bool:
    """M12.10, M13.6: the failures that come after the processors: the asset download and the
    result-text read-back's conversion errors (an approval call; a user response file the AI SDK
    cannot convert, M13.7), by their measured messages."""
    return (
        "ToolInvocation must have a result: " in error
        or error.startswith(READ_BACK_ERRORS)
        or error == "DOWNLOAD_ASSETS_FAILED"
        or error.startswith("Error: Failed to download asset: ")
    )


def predicted_first_processor(scenario: Scenario) -> tuple[str, str] | None:
    """G6/G7 from the scenario alone: how the first application processor must end the call,
    when that is decided by its ending: ``("fail", id)`` or ``("abort", reason)`` (its steps may
    still throw first, which is a failure), else None."""
    if not scenario.agent.processors:
        return None
    p = scenario.agent.processors[0]
    end = p.end
    if isinstance(end, (Throw, AbortThenThrow, AbortWrapThrow, AbortFinallyThrow)):
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
        refusal = cast(Refused, o)  # ``failed`` says it is one
        for e in events:
            # a processor event always has detail (G15)
            detail = dict(cast("tuple[tuple[str, Any], ...]", e.detail))
            if (e.decision, e.reason, detail.get("processor")) != ("error", PROCESSOR_FAILED, refusal.processor_id):
                out.append(f"I5: processor event {e!r} does not match the failure of {refusal.processor_id!r}")
        if any(e.action == "agent.input.policy" for e in obs.audit):
            out.append("I5: processor failure followed by a policy event")
        if obs.prompts:
            out.append("I5: processor failure yet the model was called")
    elif events:
        out.append(f"I5: processor events {events!r} on outcome {o!r}")
    pred = predicted_first_processor(scenario)
    if pred and pred[0] == "fail" and _reaches_processors(scenario, obs) and o != Refused(PROCESSOR_FAILED, pred[1]):
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
    if (
        isinstance(o, Refused)
        and o.processor_id == tripwire_name(scenario)
        and o.reason != PROCESSOR_FAILED
        and not any(isinstance(p.end, ThrowTripWire) and p.end.reason == o.reason for p in scenario.agent.processors)
    ):
        out.append(f"I6: refused as a rethrown TripWire with {o.reason!r}, but no processor throws one")
    pred = predicted_first_processor(scenario)
    if pred and pred[0] == "abort" and _reaches_processors(scenario, obs):
        first = scenario.agent.processors[0]
        named = tripwire_name(scenario) if isinstance(first.end, ThrowTripWire) else first.id
        if o not in (Refused(pred[1], named), Refused(PROCESSOR_FAILED, first.id)):
            out.append(f"I6: first processor {first.id!r} aborts with {pred[1]!r}, outcome {o!r}")
    return out


def tripwire_name(scenario: Scenario) -> str:
    """G6.1: a TripWire a processor throws itself
    is rethrown unchanged and carries no processorId, so Mastra names it as its runner does:
    ``<agent id>-input-processor`` on generate/stream, ``""`` on the durable loop (an
    ``abort(reason)`` still names the processor)."""
    return "" if scenario.call.loop is Loop.DURABLE else f"{scenario.agent.id}-input-processor"


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


def same_scenario_same_observation(first: Observation, second: Observation) -> list[str]:
    """I11 (the model is pure): the same scenario gives the same observation."""
    if first == second:
        return []
    diff = [
        f for f in ("outcome", "audit", "prompts", "stored", "title", "result", "list", "read") if getattr(first, f) != getattr(second, f)
    ]
    return [f"I11: two runs of one scenario differ in {diff}"]


def policy_verdict_matches_read(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G12): when the policies ran, the outcome is what the policies, in order, decide on
    the text read: the first deny-patterns match refuses, an evaluator that throws or gives no
    decision refuses with ``policy evaluation failed``, otherwise the call is answered; and
    there is exactly one policy event."""
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
    # M13: an answered call may still fail in the result-text read-back, after the model
    # (M13.5, M13.6)
    got = Answered() if _read_back_failure(obs.outcome) else obs.outcome
    if got != want:
        out.append(f"G12: policies on the read text decide {want!r}, outcome {obs.outcome!r}")
    n = sum(e.action == "agent.input.policy" for e in obs.audit)
    if n != 1:
        out.append(f"G12: {n} policy events for one evaluation")
    return out


def identity_processors_change_nothing(plain: Observation, with_identity: Observation) -> list[str]:
    """Extra (G5, G7): processors that return the very list, a falsy value or the received
    array itself (no copies, no steps) leave the call as if they were absent: same outcome,
    prompts, stored messages, title and result."""
    fields = ("outcome", "prompts", "stored", "title", "result", "read")
    diff = [f for f in fields if getattr(plain, f) != getattr(with_identity, f)]
    return [f"G7: identity processors changed {diff}"] if diff else []


def mapping_error_fails_call(scenario: Scenario, obs: Observation, stages: Sequence[tuple[str, Any]]) -> list[str]:
    """Extra (G11): a client tool mapping that throws on a message of the call's input fails the
    call (processor ``breakwater-client-tool-output``). Checked when the list after the last
    processor holds, in the input set, an assistant result part of a throwing-mapping tool with
    no cached output, and the chain got that far. SPEC G11: the mapping applies to the call's
    input, caller messages and input messages a processor changed; of a remembered message no
    processor changed (memory holds it, as on the list before the processors), only the parts
    the caller sent (its outcome, by message id and toolCallId) are the call's input: a stored
    result beside them is history, whose mapping never runs under the guard
    (G11.1, G11.2)."""
    if not stages or len(stages) - 1 != len(scenario.agent.processors) or not _reaches_processors(scenario, obs):
        return []
    # the input-assets gate runs between the processors and the mapping and stops the call
    # first (G16)
    if isinstance(obs.outcome, Refused) and obs.outcome.processor_id == INPUT_ASSETS:
        return []
    _, first = stages[0]
    _, last = stages[-1]
    loaded = {lm.message.id: lm.message for lm in first.messages if Source.MEMORY in lm.sources}
    sent = {(m.id, p.tool_call_id) for m in caller_messages(scenario) for p in m.parts or () if isinstance(p, ToolPart)}
    for lm in last.messages:
        if Source.INPUT not in lm.sources or lm.message.role is not Role.ASSISTANT:
            continue
        m = lm.message
        history = Source.MEMORY in lm.sources and m.id in loaded and loaded[m.id].parts == m.parts
        for p in m.parts or ():
            tool = scenario.agent.client_tool(p.tool_name) if isinstance(p, ToolPart) else None
            if history and isinstance(p, ToolPart) and (m.id, p.tool_call_id) not in sent:
                continue
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
