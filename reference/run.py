"""One call, end to end, in guarded or raw mode, on any loop; and a sequence of calls.

``run(scenario, mode)`` is a pure function of the scenario: it returns the observation (O1-O8).
``run_thread`` threads the stored threads through a sequence of calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from attrs import frozen

from guardspec.model.agent import ThreadStore
from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.messages import SOURCE_ORDER, Source
from guardspec.model.observation import Answered, AuditEvent, Failed, ListMessage, ListView, Observation, Refused
from guardspec.model.scenario import Mode, Scenario

from . import finish, preparation
from .answer import Answer, answer_step, bound_thread, failed_after_chain
from .guard import removal
from .guard.chain import ChainContext, Refusal, event, guarded_chain
from .guard.construction import call_options_error, caller_input_error, construction_error
from .loops import LOOP_RULES
from .mapping import map_client_outputs
from .messagelist import MessageList, drain_unsaved, without_steps
from .policies import rbac_denial
from .raw_runner import Failure, Tripwire, run_raw_chain
from .read_back import response_conversion_error
from .trace import Trace


@frozen
class Run:
    """O4 stored: an observation, and the stored threads the call left, from which the next
    call of a sequence starts."""

    observation: Observation
    threads: ThreadStore


def list_view(lst: MessageList) -> ListView:
    """O7 list: the final message list, each message with its sources in source order and its
    step-start parts left out, and the untagged and tagged system buckets."""
    return ListView(
        messages=tuple(
            ListMessage(evolve(without_steps(s.message), ref=0), tuple(x for x in SOURCE_ORDER if x in s.sources)) for s in lst.slots
        ),
        untagged=tuple(evolve(m, ref=0) for m in lst.untagged),
        tagged=tuple((t, tuple(evolve(m, ref=0) for m in b)) for t, b in lst.tagged),
    )


def _stored(threads: ThreadStore, scenario: Scenario) -> tuple | None:
    """O4 stored: the bound thread's messages after the call, in the stored format; none
    without a memory binding, and none yet when the thread was never created."""
    b = scenario.call.memory
    if b is None:
        return None
    t = threads.get(b.thread)
    return t.messages if t else ()


def _title(threads: ThreadStore, scenario: Scenario) -> str | None:
    """O5 title: the bound thread's title after the call (``""`` when it has none)."""
    b = scenario.call.memory
    if b is None:
        return None
    t = threads.get(b.thread)
    return t.title if t else ""


def _prompts(answer: Answer) -> tuple:
    """O3 prompts: one entry list per model step; none when the model was not called."""
    return () if answer.prompt is None else (answer.prompt,)


def _observe(scenario: Scenario, threads: ThreadStore, **kw: Any) -> Run:
    return Run(Observation(stored=_stored(threads, scenario), title=_title(threads, scenario), **kw), threads)


def run(scenario: Scenario, mode: Mode | str = Mode.GUARDED, trace: Trace | None = None) -> Observation:
    """O1 outcome: run one call and return its observation, the outcome first (answered,
    refused or failed) and the other fields O2-O8 as the mode and loop give them."""
    return run_call(scenario, Mode(mode), trace).observation


def run_call(scenario: Scenario, mode: Mode, trace: Trace | None = None) -> Run:
    """O4 stored: one call in the given mode, its observation and the threads it left (raw:
    Mastra alone, M9 and M10; guarded: the guard over Mastra, G2)."""
    if mode is Mode.RAW:
        return _run_raw(scenario, trace)
    return _run_guarded(scenario, trace)


def _prepare(scenario: Scenario, threads: ThreadStore) -> tuple[MessageList, ThreadStore]:
    """M7: the list, and the bound thread fetched or created before any processor runs."""
    lst = preparation.new_list(scenario.agent, scenario.call)
    bound = bound_thread(scenario)
    if bound:
        threads = finish.ensure_thread(threads, *bound)
    return lst, threads


def _preparation_failure(scenario: Scenario, e: MastraError) -> Failed:
    """M7.2 Preparation errors: what the list throws while the caller's messages are added
    fails generate and stream with their own error id; the durable loop reports the list's.

    Evidence: M7.2
    """
    return Failed(LOOP_RULES[scenario.call.loop].failed_id or e.code)


def _finalise_raw_tripwire(scenario: Scenario, threads: ThreadStore, lst: MessageList) -> tuple[ThreadStore, MessageList]:
    """M10.1 Finalisation after a tripwire: the durable loop still saves the input and response
    messages, stopping at one JSON cannot write (M13.4), titles the thread unless the result-text
    read-back throws (M13.9), then drains the input and response sets (M10.2)."""
    bound = bound_thread(scenario)
    memory = scenario.agent.memory
    if bound:
        threads, _ = finish.save_raw(threads, *bound, lst, LOOP_RULES[scenario.call.loop].durable_saving)
        if memory is not None and memory.generate_title and response_conversion_error(lst) is None:
            threads = finish.entitle(threads, *bound, lst)
    return threads, drain_unsaved(lst)


def _run_raw(scenario: Scenario, trace: Trace | None) -> Run:
    """M9 Raw standard loop: the application processors handed straight to Mastra; on
    generate and stream a tripwire means no model call and a processor failure fails the call;
    the durable loop's departures (M10) come from its loop rules."""
    agent, call = scenario.agent, scenario.call
    threads = finish.as_stored(scenario.threads)
    try:
        lst, threads = _prepare(scenario, threads)
    except MastraError as e:
        return _observe(scenario, threads, outcome=_preparation_failure(scenario, e))
    bound = bound_thread(scenario)
    stored = preparation.stored_messages(threads, bound[0]) if bound else ()
    if trace:
        trace.stage("preparation", lst)
    if agent.memory is not None and bound:
        lst = preparation.input_filter(lst, stored, preparation.persisted_ids(threads))
        lst = preparation.load_history(lst, stored)
        if trace:
            trace.stage("memory processors", lst)
    received, system = preparation.received_first(agent, lst)
    chain = run_raw_chain(agent, call.actor, lst, received, system)
    lst = chain.list
    if trace:
        trace.stage("application processors (raw)", lst, repr(chain.stop) if chain.stop else "")
    rules = LOOP_RULES[call.loop]
    stop = chain.stop

    if isinstance(stop, Tripwire):
        outcome = Refused(stop.reason, stop.processor_id)
        if rules.finalises_refusal:
            # M10: the caller sees the tripwire, yet the finalisation runs.
            threads, lst = _finalise_raw_tripwire(scenario, threads, lst)
            return _observe(scenario, threads, outcome=outcome, list=list_view(lst))
        # M9: no model call, nothing saved, no title; the result carries the tripwire.
        return _observe(scenario, threads, outcome=outcome, result=finish.result(lst, "", "other"), list=list_view(lst))
    if isinstance(stop, Failure) and not rules.swallows_processor_errors:
        # M9: generate/stream reject; nothing saved.
        return _observe(scenario, threads, outcome=Failed(cast(str, rules.failed_id)), list=list_view(lst))
    # M10: any other processor error is swallowed on the durable loop: the model runs on the list as it stood.
    lst = map_client_outputs(agent, lst, strict=False)
    answer = answer_step(scenario, lst, threads, trace, raw=True)
    lst, threads = answer.list, answer.threads
    failed = failed_after_chain(rules, answer)
    prompts = _prompts(answer)
    if rules.drains_unsaved:
        lst = drain_unsaved(lst)
    if not rules.gives_result or failed:
        return _observe(scenario, threads, outcome=failed or Answered(), prompts=prompts, list=list_view(lst))
    return _observe(
        scenario,
        threads,
        outcome=Answered(),
        prompts=prompts,
        result=finish.result(lst, answer.text, "error" if answer.broken or answer.unsaved else "stop"),
        list=list_view(lst),
    )


def refusal_processor_id(scenario: Scenario, refusal: Refusal) -> str:
    """G6.1 Who the refusal names: a processor's abort names the processor; a TripWire the
    processor threw itself is passed on unchanged, and Mastra names it as its own runner does:
    ``<agent id>-input-processor`` on generate and stream, ``""`` on the durable loop.

    Evidence: G6.1
    """
    if not refusal.rethrown:
        return refusal.processor_id
    return LOOP_RULES[scenario.call.loop].rethrown_processor_id.format(agent=scenario.agent.id)


def _rbac_thrown(scenario: Scenario, threads: ThreadStore, denial: str, audit: tuple) -> Run:
    """G2.1 Where RBAC runs: on generate and stream RBAC runs before Mastra, and a denial throws
    ``GuardedAgent authorization denied: <reason>`` with its audit event and nothing else."""
    outcome = Refused(denial, "breakwater-rbac", f"GuardedAgent authorization denied: {denial}")
    return _observe(scenario, threads, outcome=outcome, audit=audit)


def _rbac_tripwire(scenario: Scenario, threads: ThreadStore, lst: MessageList, denial: str, audit: tuple) -> Run:
    """G13.1 An RBAC denial on durable: RBAC is the ``breakwater-rbac`` input processor, so its
    denial is a tripwire after preparation; the input and response messages are removed before
    the finalisation, so nothing of the call is saved.

    Evidence: G13.1
    """
    # read through its module at call time, as the chain reads it, so one G13 rule serves both
    lst = removal.refusal_removal(lst, (), None, ())
    bound = bound_thread(scenario)
    if bound:
        threads = finish.save(threads, *bound, lst, LOOP_RULES[scenario.call.loop].durable_saving)
    lst = drain_unsaved(lst)
    return _observe(scenario, threads, outcome=Refused(denial, "breakwater-rbac"), audit=audit, list=list_view(lst))


def _refused(scenario: Scenario, threads: ThreadStore, lst: MessageList, refusal: Refusal, audit: tuple, read: str | None) -> Run:
    """G14 Consequences: of what G13 removed a refused call saves nothing and titles nothing; on
    generate and stream the result has text ``""`` and finishReason ``other`` over the list as
    the removal left it; on durable the finalisation saves what is left and drains the sets."""
    outcome = Refused(refusal.reason, refusal_processor_id(scenario, refusal))
    rules = LOOP_RULES[scenario.call.loop]
    if rules.finalises_refusal:
        bound = bound_thread(scenario)
        if bound:
            threads = finish.save(threads, *bound, lst, rules.durable_saving)
        lst = drain_unsaved(lst)
        return _observe(scenario, threads, outcome=outcome, audit=audit, list=list_view(lst), read=read)
    return _observe(scenario, threads, outcome=outcome, audit=audit, result=finish.result(lst, "", "other"), list=list_view(lst), read=read)


def _run_guarded(scenario: Scenario, trace: Trace | None) -> Run:
    """G2 Chain: one guarded call, the guard over Mastra. G0 and G1 are checked before anything
    runs; RBAC (G3) throws before Mastra on generate and stream and is a tripwire on durable;
    the rest of the chain is ``guarded_chain``; a refusal has the consequences of G14."""
    agent, call = scenario.agent, scenario.call
    threads = finish.as_stored(scenario.threads)
    err = construction_error(agent) or call_options_error(call) or caller_input_error(call.messages)
    if err:
        return _observe(scenario, threads, outcome=Failed(err))
    denial = rbac_denial(agent, call.actor)
    # G3: one agent.input.authorize event per decision.
    audit: tuple[AuditEvent, ...] = (event(agent, call.actor, "agent.input.authorize", "denied" if denial else "allowed", denial),)
    rules = LOOP_RULES[call.loop]
    if denial and rules.rbac_throws:
        return _rbac_thrown(scenario, threads, denial, audit)
    try:
        lst, threads = _prepare(scenario, threads)
    except MastraError as e:
        return _observe(scenario, threads, outcome=Failed(str(e)), audit=audit)
    if trace:
        trace.stage("preparation", lst)
    bound = bound_thread(scenario)
    stored = preparation.stored_messages(threads, bound[0]) if bound else ()

    if denial:
        return _rbac_tripwire(scenario, threads, lst, denial, audit)

    context = ChainContext(memory_bound=bound is not None, whole_list=rules.policy_sees_whole_list, trace=trace)
    chain = guarded_chain(agent, call.actor, lst, stored, context)
    lst = chain.list
    audit += chain.audit
    if chain.refusal is not None:
        return _refused(scenario, threads, lst, chain.refusal, audit, chain.read)
    answer = answer_step(scenario, lst, threads, trace, raw=False)
    lst, threads = answer.list, answer.threads
    failed = failed_after_chain(rules, answer)
    prompts = _prompts(answer)
    if rules.drains_unsaved:
        lst = drain_unsaved(lst)
    if not rules.gives_result or failed:
        return _observe(scenario, threads, outcome=failed or Answered(), audit=audit, prompts=prompts, list=list_view(lst), read=chain.read)
    return _observe(
        scenario,
        threads,
        outcome=Answered(),
        audit=audit,
        prompts=prompts,
        result=finish.result(lst, answer.text, "error" if answer.broken else "stop"),
        list=list_view(lst),
        read=chain.read,
    )


def run_thread(scenarios: Iterable[Scenario], mode: Mode | str = Mode.GUARDED) -> list[tuple[Scenario, Observation]]:
    """O4 stored: a sequence of calls over shared stored threads, each starting from the threads
    the previous one left (the first call's ``threads`` seed them; later scenarios' own
    ``threads`` are ignored)."""
    out = []
    threads: ThreadStore | None = None
    for sc in scenarios:
        if threads is not None:
            sc = evolve(sc, threads=threads)
        r = run_call(sc, Mode(mode))
        threads = r.threads
        out.append((sc, r.observation))
    return out


__all__ = ["Run", "Source", "list_view", "run", "run_call", "run_thread"]
