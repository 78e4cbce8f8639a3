"""G2 the guarded chain: RBAC → recorder → memory processors → application input processors
→ input-assets gate → client tool output mapping → input policies; G4-G6, G11, G12, G15."""

from __future__ import annotations

from collections import Counter

from attrs import frozen

from guardspec.model.agent import Actor, Agent
from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Source, ToolPart
from guardspec.model.observation import AuditEvent

from .. import preparation
from ..invocation import Aborts, Returns, Throws, TripWires, invoke
from ..mapping import MappingError, map_guarded_outputs
from ..messagelist import MessageList, checked_sources
from ..policies import PolicyAllowed, PolicyDenied, PolicyFailed, evaluate, request_actor
from ..reading import NotClassified, fingerprint
from ..trace import Trace
from .application import CannotApply, apply_guarded, policy_engine_input_return
from .assets import INPUT_ASSETS, input_assets_gate, tool_output_asset_denial
from .changes import Addition, additions_after, all_entries, remembered_outcome_ids, snapshot, unmatched, unreadable
from .readset import read_text
from .removal import refusal_removal

CONTEXT_ONLY = frozenset({Source.CONTEXT})
RECORDER = "breakwater-client-tool-outcome-recorder"
MAPPER = "breakwater-client-tool-output"
POLICY_ENGINE = "breakwater-policy-engine"
PROCESSOR_FAILED = "input processor failed"


@frozen
class Refusal:
    """G6.1 Who the refusal names: ``rethrown``: a TripWire the processor built itself, which Breakwater rethrows unchanged,
    so Mastra names it (``processor_id`` is then the processor that threw it)."""

    reason: str
    processor_id: str
    rethrown: bool = False


@frozen
class ChainContext:
    """G2 Chain: What a guarded call's chain runs under: whether a thread is bound (the memory
    processors run only then, M7), whether the policy engine receives every message on the
    list rather than the input view (G10: generate and stream), and the trace that records
    each stage (None: no trace)."""

    memory_bound: bool
    whole_list: bool = True
    trace: Trace | None = None


@frozen
class GuardedChain:
    """G2 Chain: Where the chain stopped (``refusal`` None: it passed), the list as the model will see
    it, the audit events the chain emitted, and what the policies read."""

    list: MessageList
    refusal: Refusal | None
    audit: tuple[AuditEvent, ...]
    read: str | None
    record: tuple[Addition, ...]


def event(agent: Agent, actor: Actor | None, action: str, decision: str, reason: str | None, detail: dict | None = None) -> AuditEvent:
    """G15 Audit hygiene: every event carries the actor Breakwater reads from the request
    context (or null), resource ``agent:<id>``, the decision, and the reason of a denial or an
    error, and never thrown-error text, evaluator reasons or message text. Breakwater's shapes:
    an allowed event has no reason; RBAC events and the
    unclassified-content error have no detail; detail values are strings or lists of them."""
    items = None if detail is None else tuple(sorted(detail.items()))
    return AuditEvent(action, decision, reason, request_actor(actor), f"agent:{agent.id}", items)


def record_outcomes(lst: MessageList) -> frozenset[tuple[str, str, str]] | None:
    """G4 Recorder: before memory merges anything, the client tool outcome parts of every
    input message, by message id, toolCallId and state; None when one message holds two
    outcomes for one toolCallId (the call fails)."""
    out = set()
    for m in lst.view(Source.INPUT):
        seen: set[str] = set()
        for p in m.parts or ():
            if isinstance(p, ToolPart) and p.is_client_outcome:
                if p.tool_call_id in seen:
                    return None
                seen.add(p.tool_call_id)
                out.add((m.id, p.tool_call_id, p.state.value))
    return frozenset(out)


def _received(lst: MessageList) -> tuple[tuple[Message, ...], tuple]:
    """G5.1 The processor receives the list's own arrays: the guard hands it Mastra's
    ``get.all.db()`` and ``getSystemMessages()``, so what it adds in place shows in them until
    an operation gives the list a new array."""
    return lst.all(), lst.untagged


def _left_by_memory(lst: MessageList, recorded: frozenset[tuple[str, str, str]]) -> tuple[str, ...]:
    """G13.2 Refusals after the processors: the carriers the memory processors left, taken
    before any application processor runs; a refusal by the input-assets gate, the mapping or
    the policies removes them all, besides what G13 names, moved or not."""
    return remembered_outcome_ids(lst, recorded)


def _with_read(stopped: GuardedChain, text: str) -> GuardedChain:
    """O8 read: once the policies have run, what they read is observed, on a denial or an
    evaluation failure as on an allowed call; a refusal before the policy engine has none."""
    return evolve(stopped, read=text)


def guarded_chain(
    agent: Agent,
    actor: Actor | None,
    lst: MessageList,
    stored: tuple[Message, ...],
    context: ChainContext,
) -> GuardedChain:
    """G2 Chain, after RBAC allowed: recorder, memory processors, each application
    processor once on the whole list (G5, G5.1) with its outcome classified (G6), the
    input-assets gate (Breakwater's ``breakwater-input-assets``, G16), mapping
    (G11) with its own asset check, policies (G12). The first refusal stops it; nothing later
    runs. Each refusal removes what G13 names before it stops the call. ``whole_list``: the
    policy engine receives every message on the list (generate/stream), not the input view
    (durable) (G10); on durable Mastra re-adds the input view the engine returns
    (``policy_engine_input_return``, G12). The audit events are the chain's own, in order
    (RBAC's comes before them)."""
    bound, trace, whole_list = context.memory_bound, context.trace, context.whole_list
    audit: list[AuditEvent] = []
    record: list[Addition] = []

    def stop(
        lst: MessageList, reason: str, pid: str, snap: Counter | None = None, carriers: tuple[str, ...] = (), rethrown: bool = False
    ) -> GuardedChain:
        lst = refusal_removal(lst, record, snap, carriers)
        if trace:
            trace.stage(f"refusal removal ({pid})", lst, reason)
        return GuardedChain(lst, Refusal(reason, pid, rethrown), tuple(audit), None, tuple(record))

    def fail(lst: MessageList, pid: str, snap: Counter | None = None, carriers: tuple[str, ...] = ()) -> GuardedChain:
        """G6: exactly one processor error event, reason ``input processor failed``."""
        audit.append(event(agent, actor, "agent.input.processor", "error", PROCESSOR_FAILED, {"processor": pid}))
        return stop(lst, PROCESSOR_FAILED, pid, snap, carriers)

    recorded = record_outcomes(lst)
    if recorded is None:
        return fail(lst, RECORDER)

    if agent.memory is not None and bound:
        lst = preparation.input_filter(lst, stored)
        lst = preparation.load_history(lst, stored)
        if trace:
            trace.stage("memory processors", lst)
    all_carriers = _left_by_memory(lst, recorded)
    call_context = frozenset(fingerprint(s.message) for s in lst.slots if s.sources == CONTEXT_ONLY)

    for proc in agent.processors:
        # G5 Invocation: once, on the initial input, receiving every message on the list.
        before = snapshot(lst)
        before_all = snapshot(lst, all_entries)
        carriers = remembered_outcome_ids(lst, recorded)
        sources = checked_sources(lst)  # Breakwater's source checker: by id, on the list or off it
        received, system = _received(lst)
        inv = invoke(proc, lst, received, system, messages_live=True, system_live=True)
        lst = inv.list
        end = inv.ending
        # G6 Outcome classes.
        if isinstance(end, (Aborts, TripWires)):
            rethrown = isinstance(end, TripWires)
            return stop(lst, end.reason, proc.id, before, carriers + all_carriers, rethrown)
        if isinstance(end, Throws):
            return fail(lst, proc.id, before, carriers + all_carriers)
        assert isinstance(end, Returns)
        try:
            lst = apply_guarded(lst, end.value, received, sources)
        except CannotApply as err:
            return fail(lst if err.partial is None else err.partial, proc.id, before, carriers + all_carriers)
        adds = additions_after(before, lst, carriers, proc.id)
        if unreadable(unmatched(before_all, lst, all_entries)):
            return fail(lst, proc.id, before, carriers + all_carriers)
        record.extend(adds)
        if trace:
            trace.stage(f"processor {proc.id}", lst, f"{len(adds)} addition(s) recorded")
            trace.additions.extend(adds)

    # The input-assets gate (G16): content the prompt
    # conversion cannot take, or a file URL outside the allowed origins, stops the call here.
    gate = input_assets_gate(agent, lst)
    if gate is not None:
        audit.append(event(agent, actor, gate.action, gate.decision, gate.reason))
        return stop(lst, gate.reason, INPUT_ASSETS, None, all_carriers)
    if trace:
        trace.stage("input-assets gate", lst)

    try:
        added_ids = frozenset(a.entry.id for a in record if isinstance(a.entry, Message))
        lst, remapped = map_guarded_outputs(agent, lst, recorded, added_ids)
    except MappingError:
        return fail(lst, MAPPER, None, all_carriers)
    record.extend(Addition(m, MAPPER) for m in remapped)
    denial = tool_output_asset_denial(agent, lst)
    if denial is not None:
        audit.append(event(agent, actor, denial.action, denial.decision, denial.reason))
        return stop(lst, denial.reason, MAPPER, None, all_carriers)
    if trace:
        trace.stage("client tool output mapping", lst)

    try:
        text = read_text(lst, recorded, record, call_context, whole_list)
    except NotClassified:
        audit.append(event(agent, actor, "agent.input.policy", "error", "input message content is not classified"))
        return stop(lst, "input message content is not classified", POLICY_ENGINE, None, all_carriers)
    if trace:
        trace.read = text
    verdict = evaluate(agent.policies, text)
    if isinstance(verdict, PolicyDenied):
        audit.append(event(agent, actor, "agent.input.policy", "denied", "policy denied", {"policy": verdict.policy, "channel": "answer"}))
        return _with_read(stop(lst, f"policy '{verdict.policy}' denied the input", POLICY_ENGINE, None, all_carriers), text)
    if isinstance(verdict, PolicyFailed):
        audit.append(
            event(agent, actor, "agent.input.policy", "error", "policy evaluation failed", {"policy": verdict.policy, "channel": "answer"})
        )
        return _with_read(stop(lst, "policy evaluation failed", POLICY_ENGINE, None, all_carriers), text)
    assert isinstance(verdict, PolicyAllowed)
    audit.append(event(agent, actor, "agent.input.policy", "allowed", None, {"evaluated": verdict.evaluated}))
    if not whole_list:
        # durable: the engine returns the input view it was handed, and Mastra re-adds it (G12)
        lst = policy_engine_input_return(lst)
        if trace:
            trace.stage("policy engine's return (durable)", lst)
    return GuardedChain(lst, None, tuple(audit), text, tuple(record))
