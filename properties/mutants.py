"""Semantic mutants: each bends one rule of the reference, and the properties must notice.

A mutant patches names at module level in the module that *uses* them (the reference imports
with ``from .x import f``), for the duration of ``with mutant.activate():``. ``kill`` runs the
properties (strategies + invariants, guarded mode, every loop) under a mutant and reports which
property caught it and after how many generated examples.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator
from typing import Any

from attrs import evolve, frozen
from hypothesis import given

from guardspec.model.agent import Allow, DenyPatterns
from guardspec.model.messages import Message, Role, Source, SystemMessage, ToolPart
from guardspec.model.observation import Refused
from guardspec.model.processors import AbortFinallyThrow, AbortThenThrow
from guardspec.model.scenario import Loop

M = importlib.import_module
chain = M("guardspec.reference.guard.chain")
removal = M("guardspec.reference.guard.removal")
application = M("guardspec.reference.guard.application")
changes = M("guardspec.reference.guard.changes")
runmod = M("guardspec.reference.run")
finish = M("guardspec.reference.finish")
preparation = M("guardspec.reference.preparation")
mapping = M("guardspec.reference.mapping")
ml = M("guardspec.reference.messagelist")
invocation = M("guardspec.reference.invocation")

Patch = tuple[Any, str, Any]  # (module, attribute, replacement)

# the old behaviour of each rule the model once read wrongly (properties/found.py)
from .found import (  # noqa: E402
    ai_sdk_system_entry_applied,
    allowed_with_reason,
    context_option_accepted,
    data_uri_read_under_its_own_type,
    history_input_read_unmapped,
    input_assets_gate_skipped,
    mapped_history_not_reread,
    message_metadata_sent,
    null_system_entries_skipped,
    part_provider_options_sent,
    rethrown_tripwire_named_by_processor,
    role_for_every_kind,
    stored_result_mapped,
    system_parts_read_apart,
    text_file_data_read_raw,
    unreadable_actor_kept,
    user_message_sends_every_part,
)


@frozen
class Mutant:
    name: str
    clause: str
    description: str
    patches: Callable[[], list[Patch]]

    @contextlib.contextmanager
    def activate(self) -> Iterator[None]:
        """Install the patches; restore the originals on exit, whatever happens."""
        saved = []
        try:
            for mod, attr, new in self.patches():
                saved.append((mod, attr, getattr(mod, attr)))
                setattr(mod, attr, new)
            yield
        finally:
            for mod, attr, old in reversed(saved):
                setattr(mod, attr, old)


# -- building blocks -----------------------------------------------------------------------------


def _removal(input=True, response=True, record=True, snapshot=True, carriers=True):
    """G13 with some of its five removals switched off."""

    def refusal_removal(lst, record_, snap, carriers_):
        if input:
            lst = ml.clear_source(lst, Source.INPUT)
        if response:
            lst = ml.clear_source(lst, Source.RESPONSE)
        if record:
            lst = ml.remove_by_ids(lst, [a.entry.id for a in record_ if isinstance(a.entry, Message)])
        if snapshot and snap is not None:
            lst = ml.remove_by_ids(lst, [e.id for e in changes.unmatched(snap, lst) if isinstance(e, Message)])
        if carriers:
            lst = ml.remove_by_ids(lst, carriers_)
        return lst

    return refusal_removal


def _both_removals(**flags) -> list[Patch]:
    f = _removal(**flags)
    return [(chain, "refusal_removal", f), (removal, "refusal_removal", f)]


def _wrap_chain(post: Callable[[Any, Any], Any]) -> list[Patch]:
    """Wrap the guarded chain as ``run`` calls it: ``post(agent, result) -> result``."""
    orig = runmod.guarded_chain

    def guarded_chain(agent, *a, **k):
        return post(agent, orig(agent, *a, **k))

    return [(runmod, "guarded_chain", guarded_chain)]


def _wrap_guarded_run(post: Callable[[Any, Any], Any]) -> list[Patch]:
    """Wrap one guarded call: ``post(scenario, run) -> run``."""
    orig = runmod._run_guarded

    def _run_guarded(scenario, trace=None):
        return post(scenario, orig(scenario, trace))

    return [(runmod, "_run_guarded", _run_guarded)]


def _refused_durable_bound(scenario, r) -> bool:
    return (
        isinstance(r.observation.outcome, Refused)
        and scenario.call.loop is Loop.DURABLE
        and scenario.call.memory is not None
        and scenario.agent.memory is not None
    )


def _with_threads(scenario, r, threads):
    stored, title = runmod._stored(threads, scenario), runmod._title(threads, scenario)
    return runmod.Run(evolve(r.observation, stored=stored, title=title), threads)


# -- the mutants ---------------------------------------------------------------------------------


def _additions_only_last() -> list[Patch]:
    last: list[Any] = [None]
    orig_adds = chain.additions_after

    def additions_after(*a, **k):
        adds = orig_adds(*a, **k)
        pid = a[3] if len(a) > 3 else k.get("processor_id")
        return adds if pid == last[0] else []

    orig_chain = runmod.guarded_chain

    def guarded_chain(agent, *a, **k):
        last[0] = agent.processors[-1].id if agent.processors else None
        return orig_chain(agent, *a, **k)

    return [(chain, "additions_after", additions_after), (runmod, "guarded_chain", guarded_chain)]


def _demote() -> list[Patch]:
    def _readd(lst, m, sources):
        ordered = [s for s in (Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT) if s in sources] or [Source.INPUT]
        return ml.add_one(lst, m, ordered[0], merge=False)

    return [(application, "_readd", _readd)]


def _read_filter(keep: Callable[[Any, Any], bool]) -> list[Patch]:
    orig = chain.read_text

    def read_text(lst, recorded, record, *rest):
        return orig(lst, recorded, [a for a in record if keep(lst, a)], *rest)

    return [(chain, "read_text", read_text)]


def _throw_as_abort() -> list[Patch]:
    orig = chain.invoke

    def invoke(proc, lst, received, system, **live):
        inv = orig(proc, lst, received, system, **live)
        if isinstance(proc.end, (AbortThenThrow, AbortFinallyThrow)) and isinstance(inv.ending, invocation.Throws):
            return invocation.Invocation(inv.list, invocation.Aborts(proc.end.reason))
        return inv

    return [(chain, "invoke", invoke)]


def _input_only_received() -> list[Patch]:
    orig = chain.invoke

    def invoke(proc, lst, received, system, **live):
        # a snapshot of the input view, not the list's own array
        return orig(proc, lst, lst.view(Source.INPUT), system, **{**live, "messages_live": False})

    return [(chain, "invoke", invoke)]


def _double_failure_event(agent, g):
    extra = tuple(e for e in g.audit if e.action == "agent.input.processor")
    return evolve(g, audit=g.audit + extra) if extra else g


def _abort_event(agent, g):
    procs = {p.id for p in agent.processors}
    if g.refusal is not None and g.refusal.processor_id in procs and g.refusal.reason != chain.PROCESSOR_FAILED:
        e = chain.event(agent, None, "agent.input.processor", "error", chain.PROCESSOR_FAILED, {"processor": g.refusal.processor_id})
        return evolve(g, audit=g.audit + (e,))
    return g


def _remap_moved() -> list[Patch]:
    """Mapping also walks memory-only assistant messages holding an outcome stamped at this
    call's clock: the caller's outcome, merged by M3, then moved out of the input."""

    def moved(s, clock) -> bool:
        return Source.INPUT not in s.sources and any(
            isinstance(p, ToolPart) and p.is_client_outcome and p.created_at == clock for p in s.message.parts or ()
        )

    def map_guarded_outputs(agent, lst, *rest):
        lst, remapped = orig(agent, lst, *rest)
        for s in lst.slots:
            m = s.message
            if m.role is Role.ASSISTANT and moved(s, lst.clock):
                parts = tuple(mapping._mapped(agent, p) if isinstance(p, ToolPart) else p for p in m.parts or ())
                if parts != m.parts:
                    lst = ml.replace_message(lst, evolve(m, parts=parts))
        return lst, remapped

    orig = chain.map_guarded_outputs
    return [(chain, "map_guarded_outputs", map_guarded_outputs)]


def _saved_on_refusal(scenario, r):
    if not _refused_durable_bound(scenario, r):
        return r
    b = scenario.call.memory
    threads = finish.save(r.threads, b.thread, b.resource, preparation.new_list(scenario.agent, scenario.call))
    return _with_threads(scenario, r, threads)


def _titled_on_refusal(scenario, r):
    if not _refused_durable_bound(scenario, r):
        return r
    b = scenario.call.memory
    threads = finish.entitle(r.threads, b.thread, b.resource, preparation.new_list(scenario.agent, scenario.call))
    return _with_threads(scenario, r, threads)


def _fingerprint_without_options() -> list[Patch]:
    orig = changes.fingerprint

    def fingerprint(e):
        if isinstance(e, SystemMessage):
            e = evolve(e, provider_options=None, experimental_provider_metadata=None)
        return orig(e)

    return [(changes, "fingerprint", fingerprint)]


def _recorder_blind() -> list[Patch]:
    orig = chain.record_outcomes

    def record_outcomes(lst):
        r = orig(lst)
        return None if r is None else frozenset()

    return [(chain, "record_outcomes", record_outcomes)]


def _policy_errors_ignored() -> list[Patch]:
    orig = chain.evaluate

    def evaluate(policies, text):
        return orig(tuple(p for p in policies if isinstance(p, (DenyPatterns, Allow))), text)

    return [(chain, "evaluate", evaluate)]


def _mapping_lenient() -> list[Patch]:
    # raw Mastra's mapping: a mapping error is logged and the raw result sent
    return [(chain, "map_guarded_outputs", lambda agent, lst, *rest: (mapping.map_client_outputs(agent, lst, False), ()))]


def _history_rewrite_unread(lst, a) -> bool:
    mem = {m.id for m in lst.view(Source.MEMORY)}
    return a.moved or not (isinstance(a.entry, Message) and a.entry.id in mem)


_ALL = [
    Mutant("refusal_keeps_input", "G13 S8", "refusal removal leaves the input messages on the list", lambda: _both_removals(input=False)),
    Mutant(
        "refusal_keeps_responses", "G13 S8", "refusal removal leaves response messages on the list", lambda: _both_removals(response=False)
    ),
    Mutant("refusal_keeps_additions", "G13 S8", "refusal removal ignores the additions record", lambda: _both_removals(record=False)),
    Mutant(
        "refusal_keeps_refusing_changes",
        "G13 S8",
        "refusal removal ignores the refusing processor's snapshot",
        lambda: _both_removals(snapshot=False),
    ),
    Mutant(
        "moved_outcomes_not_removed",
        "G13 S8",
        "refusal removal keeps remembered caller-outcome messages",
        lambda: _both_removals(carriers=False),
    ),
    Mutant(
        "durable_rbac_denial_keeps_input",
        "G2 G13",
        "a durable RBAC denial stops without removing the input",
        lambda: [(removal, "refusal_removal", lambda lst, *a: lst)],
    ),
    Mutant(
        "additions_recorded_only_after_last_processor",
        "G9 G10 S5",
        "only the last processor's additions are recorded",
        _additions_only_last,
    ),
    Mutant("memory_input_demoted_to_memory", "G7 S3", "a returned memory+input message is re-added as memory only", _demote),
    Mutant(
        "system_additions_not_read",
        "G10 S5",
        "the policies skip system messages a processor added or changed",
        lambda: _read_filter(lambda lst, a: not isinstance(a.entry, SystemMessage)),
    ),
    Mutant(
        "history_rewrite_not_read", "G10 S5", "the policies skip a rewritten history message", lambda: _read_filter(_history_rewrite_unread)
    ),
    Mutant("throw_after_abort_is_own_abort", "G6 S4", "a throw after or around abort counts as the processor's own abort", _throw_as_abort),
    Mutant("two_events_per_failure", "G6 S4", "a processor failure is audited twice", lambda: _wrap_chain(_double_failure_event)),
    Mutant(
        "own_abort_audited_as_failure",
        "G6",
        "a processor's own abort also emits a processor error event",
        lambda: _wrap_chain(_abort_event),
    ),
    Mutant("moved_outcome_remapped", "G11 S6", "client tool mapping walks remembered messages moved out of the input", _remap_moved),
    Mutant("mapping_error_ignored", "G11", "a throwing toModelOutput is logged and the raw result sent", _mapping_lenient),
    Mutant(
        "refused_durable_call_saved",
        "G14 S9",
        "a refused durable call saves the caller's input",
        lambda: _wrap_guarded_run(_saved_on_refusal),
    ),
    Mutant(
        "refused_durable_call_titled",
        "G14 S9",
        "a refused durable call titles the thread from the caller's input",
        lambda: _wrap_guarded_run(_titled_on_refusal),
    ),
    Mutant(
        "change_detection_ignores_provider_options",
        "G9",
        "a system message's fingerprint leaves out its provider options",
        _fingerprint_without_options,
    ),
    Mutant("recorder_misses_outcomes", "G4 G10", "the recorder records no client tool outcome", _recorder_blind),
    Mutant(
        "processors_receive_input_only",
        "G5",
        "a processor receives the input messages only (the raw runner's M7 rule)",
        _input_only_received,
    ),
    Mutant("policy_errors_ignored", "G12", "an evaluator that throws or gives no decision is skipped", _policy_errors_ignored),
    # rules the model once read wrongly, its policies' reading (S5): the old behaviour, switchable
    Mutant(
        "system_parts_read_apart",
        "G12 S5 I4",
        "a system message of several text parts is read as its parts joined by newlines; the model receives one text",
        system_parts_read_apart,
    ),
    # rules of the guard the model once read wrongly (Breakwater's behaviour): the old behaviour
    Mutant(
        "allowed_events_give_a_reason",
        "G15",
        "allowed authorize and policy events carry a reason (Breakwater's carry none)",
        allowed_with_reason,
    ),
    Mutant(
        "unreadable_actor_audited",
        "G3 G15",
        "an actor Breakwater cannot read (unknown role or kind) is still named in the audit",
        unreadable_actor_kept,
    ),
    Mutant(
        "history_input_read_unmapped",
        "G10 G11 S5 I4",
        "a history id re-added under input is read before mapping; the model receives its mapped output",
        history_input_read_unmapped,
    ),
    Mutant(
        "role_checked_for_every_kind",
        "G3",
        "RBAC checks the role of every principal kind (G3.2: Breakwater checks it for humans only)",
        role_for_every_kind,
    ),
    Mutant(
        "rethrown_tripwire_named_by_processor",
        "G6 I6",
        'a TripWire a processor throws itself refuses under the processor\'s id (Mastra names it <agent>-input-processor, or "" on durable: G6.1)',
        rethrown_tripwire_named_by_processor,
    ),
    Mutant(
        "input_assets_gate_skipped",
        "G16 I4",
        "no input-assets gate: a user file URL of another scheme, with credentials or of an origin not allowed reaches the model (G16)",
        input_assets_gate_skipped,
    ),
    Mutant(
        "null_system_entries_skipped",
        "G7",
        "a returned systemMessages holding null or undefined is applied with them skipped (Mastra throws on them: the processor fails; G7.5)",
        null_system_entries_skipped,
    ),
    Mutant(
        "ai_sdk_system_entry_applied",
        "G7",
        "an AI SDK system entry of a returned array adds its text as a system message (Breakwater adds nothing for it; G7.2)",
        ai_sdk_system_entry_applied,
    ),
    Mutant(
        "context_option_accepted",
        "G1",
        "a guarded generate/stream call given context runs (Breakwater throws a TypeError before anything runs; G1.1)",
        context_option_accepted,
    ),
    Mutant(
        "stored_result_mapped",
        "G11 I4",
        "a stored result on a remembered input message is mapped; the policies read only the caller's outcome parts of it (G11.1)",
        stored_result_mapped,
    ),
    Mutant(
        "mapped_history_not_reread",
        "G10 G11 I4",
        "a changed memory+input message is read as the processor left it; the model receives its results mapped (G11.3)",
        mapped_history_not_reread,
    ),
    Mutant(
        "text_file_data_read_raw",
        "G12 I4",
        "text file data is read as the string; the model receives the base64 text it decodes to (G12.6)",
        text_file_data_read_raw,
    ),
    Mutant(
        "data_uri_read_under_its_own_type",
        "G12 I4",
        "a file part's data URI is read under the URI's own media type; Mastra sends it under the part's type, so a text/* part's payload reaches the model unread (G12.6, M12.10)",
        data_uri_read_under_its_own_type,
    ),
    # rules of the substrate the model once read wrongly (real Mastra's prompt): the old behaviour
    Mutant(
        "user_message_sends_every_part",
        "M12 I4",
        "a user message sends its reasoning and tool parts too; the policies read its text and file parts (M12.4)",
        user_message_sends_every_part,
    ),
    Mutant(
        "part_provider_options_sent",
        "M12 I4",
        "a prompt text part keeps its providerOptions (content options reach the provider unread; M12.5)",
        part_provider_options_sent,
    ),
    Mutant(
        "message_metadata_sent",
        "M12 I4",
        "a prompt message keeps its metadata (it reaches the provider unread; M12.5)",
        message_metadata_sent,
    ),
]

MUTANTS: dict[str, Mutant] = {m.name: m for m in _ALL}


# -- killing -------------------------------------------------------------------------------------


@frozen
class Verdict:
    mutant: str
    clause: str
    killed_by: str | None  # the property, None = survived
    examples: int
    violation: str = ""
    sequence: Any = None


class _Killed(Exception):
    pass


def kill(mutant: Mutant | str, budget: int | None = None, strategies: Any = None) -> Verdict:
    """Run the properties under ``mutant`` (guarded mode, every loop, call sequences of up to
    three calls) until one fails or ``budget`` examples pass. The budget is shared evenly by
    the strategies of ``strategies.battery()``, run in order; ``examples`` counts across them."""
    from .harness import run_sequence
    from .settings import budget as default_budget
    from .settings import kill_settings
    from .strategies import battery, call_sequences

    m = MUTANTS[mutant] if isinstance(mutant, str) else mutant
    n = budget or default_budget("mutant")
    runs = strategies if strategies is not None else battery()
    share = max(1, n // len(runs))
    count = [0]
    first: list[Any] = []

    def hunt_with(swarm_strategy: Any) -> None:
        @kill_settings(share)
        @given(call_sequences(swarm_strategy))
        def hunt(seq):
            count[0] += 1
            _, found = run_sequence(seq, "guarded")
            if found:
                if not first:
                    name = next(iter(found))
                    first.append((name, found[name][0], count[0], seq))
                raise _Killed()

        try:
            hunt()
        except _Killed:
            pass

    with m.activate():
        for _, strat in runs:
            hunt_with(strat)
            if first:
                break
    if first:
        name, violation, at, seq = first[0]
        return Verdict(m.name, m.clause, name, at, violation, seq)
    return Verdict(m.name, m.clause, None, count[0])


__all__ = ["MUTANTS", "Mutant", "Verdict", "kill"]
