"""One call, end to end, in guarded or raw mode, on any loop; and a sequence of calls.

``run(scenario, mode)`` is a pure function of the scenario (SPEC §0): it returns the
observation (§O). ``run_thread`` threads the stored threads through a sequence of calls.
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import frozen

from guardspec.model.agent import ThreadStore
from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.messages import SOURCE_ORDER, Source
from guardspec.model.observation import Answered, Failed, ListMessage, ListView, Observation, Refused
from guardspec.model.scenario import Mode, Scenario

from . import finish, preparation
from .answer import answer_step, bound_thread, failed_after_chain
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
    """An observation and the stored threads after the call."""

    observation: Observation
    threads: ThreadStore


def list_view(lst: MessageList) -> ListView:
    """§O ``list``: the final message list by source, and the system buckets."""
    return ListView(
        messages=tuple(
            ListMessage(evolve(without_steps(s.message), ref=0), tuple(x for x in SOURCE_ORDER if x in s.sources)) for s in lst.slots
        ),
        untagged=tuple(evolve(m, ref=0) for m in lst.untagged),
        tagged=tuple((t, tuple(evolve(m, ref=0) for m in b)) for t, b in lst.tagged),
    )


def _stored_view(threads: ThreadStore, scenario: Scenario) -> tuple:
    b = scenario.call.memory
    if b is None:
        return None, None
    t = threads.get(b.thread)
    return (t.messages, t.title) if t else ((), "")


def _observe(scenario: Scenario, threads: ThreadStore, **kw) -> Run:
    stored, title = _stored_view(threads, scenario)
    return Run(Observation(stored=stored, title=title, **kw), threads)


def run(scenario: Scenario, mode: Mode | str = Mode.GUARDED, trace: Trace | None = None) -> Observation:
    """Run one call and return its observation (§O)."""
    return run_call(scenario, Mode(mode), trace).observation


def run_call(scenario: Scenario, mode: Mode, trace: Trace | None = None) -> Run:
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


def _run_raw(scenario: Scenario, trace: Trace | None) -> Run:
    """M9 Raw standard loop, M10 Raw durable loop: the application processors handed
    straight to Mastra."""
    agent, call = scenario.agent, scenario.call
    threads = finish.as_stored(scenario.threads)
    try:
        lst, threads = _prepare(scenario, threads)
    except MastraError as e:
        # M9: generate/stream wrap what the list throws at preparation in their own error;
        # the durable loop reports Mastra's error id (measured, docs/mastra-measurements.md §k)
        rules = LOOP_RULES[call.loop]
        return _observe(scenario, threads, outcome=Failed(rules.failed_id or e.code))
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
            # M10: finalisation still saves the input and response messages and titles the thread.
            if bound:
                threads, _ = finish.save_raw(threads, *bound, lst, rules.durable_saving)  # stops at what JSON cannot write (k45)
                if agent.memory.generate_title and response_conversion_error(lst) is None:  # k33
                    threads = finish.entitle(threads, *bound, lst)
            lst = drain_unsaved(lst)
            return _observe(scenario, threads, outcome=outcome, list=list_view(lst))
        # M9: no model call, nothing saved, no title; the result carries the tripwire.
        return _observe(scenario, threads, outcome=outcome, result=finish.result(lst, "", "other"), list=list_view(lst))
    if isinstance(stop, Failure) and not rules.swallows_processor_errors:
        # M9: generate/stream reject; nothing saved.
        return _observe(scenario, threads, outcome=Failed(rules.failed_id), list=list_view(lst))
    # M10: any other processor error is swallowed on the durable loop: the model runs on the list as it stood.
    lst = map_client_outputs(agent, lst, strict=False)
    answer = answer_step(scenario, lst, threads, trace, raw=True)
    lst, threads = answer.list, answer.threads
    failed = failed_after_chain(rules, answer)
    prompts = () if answer.prompt is None else (answer.prompt,)
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
    """G6 Outcome classes, the refusal's processorId: a processor's abort names the processor;
    a TripWire the processor threw itself is rethrown unchanged by Breakwater's wrapper, and
    Mastra names it as its own runner does: ``<agent id>-input-processor`` on generate/stream,
    ``""`` on the durable loop (docs/breakwater-measurements.md §3)."""
    if not refusal.rethrown:
        return refusal.processor_id
    return LOOP_RULES[scenario.call.loop].rethrown_processor_id.format(agent=scenario.agent.id)


def _run_guarded(scenario: Scenario, trace: Trace | None) -> Run:
    """G2 Chain per loop, G14 Consequences: one guarded call, G over M.

    G0 and G1 are checked before anything runs; RBAC (G3) throws before Mastra on
    generate/stream and is a tripwire on durable; the rest of the chain is ``guarded_chain``;
    a refused call keeps nothing G13 removed and generates no title."""
    agent, call = scenario.agent, scenario.call
    threads = finish.as_stored(scenario.threads)
    err = construction_error(agent) or call_options_error(call) or caller_input_error(call.messages)
    if err:
        return _observe(scenario, threads, outcome=Failed(err))
    denial = rbac_denial(agent, call.actor)
    # G3: one agent.input.authorize event per decision.
    audit = (event(agent, call.actor, "agent.input.authorize", "denied" if denial else "allowed", denial),)
    rules = LOOP_RULES[call.loop]
    if denial and rules.rbac_throws:
        # G2: on generate/stream RBAC runs before Mastra and a denial throws.
        return _observe(
            scenario,
            threads,
            outcome=Refused(denial, "breakwater-rbac", f"GuardedAgent authorization denied: {denial}"),
            audit=audit,
        )
    try:
        lst, threads = _prepare(scenario, threads)
    except MastraError as e:
        return _observe(scenario, threads, outcome=Failed(str(e)), audit=audit)
    if trace:
        trace.stage("preparation", lst)
    bound = bound_thread(scenario)
    stored = preparation.stored_messages(threads, bound[0]) if bound else ()

    if denial:
        # G2: on durable RBAC is a tripwire from breakwater-rbac; G13 removes the input.
        # read through its module at call time, as the chain reads it, so one G13 rule serves both
        lst = removal.refusal_removal(lst, (), None, ())
        if bound:
            threads = finish.save(threads, *bound, lst, rules.durable_saving)  # durable finalisation: nothing left to save
        lst = drain_unsaved(lst)
        return _observe(
            scenario,
            threads,
            outcome=Refused(denial, "breakwater-rbac"),
            audit=audit,
            list=list_view(lst),
        )

    context = ChainContext(memory_bound=bound is not None, whole_list=rules.policy_sees_whole_list, trace=trace)
    chain = guarded_chain(agent, call.actor, lst, stored, context)
    lst = chain.list
    audit += chain.audit
    if chain.refusal is not None:
        # G14 Consequences: nothing G13 removed is saved or titled; the result omits it.
        outcome = Refused(chain.refusal.reason, refusal_processor_id(scenario, chain.refusal))
        if rules.finalises_refusal:
            if bound:
                threads = finish.save(threads, *bound, lst, rules.durable_saving)
            lst = drain_unsaved(lst)
            return _observe(scenario, threads, outcome=outcome, audit=audit, list=list_view(lst), read=chain.read)
        return _observe(
            scenario,
            threads,
            outcome=outcome,
            audit=audit,
            result=finish.result(lst, "", "other"),
            list=list_view(lst),
            read=chain.read,
        )
    answer = answer_step(scenario, lst, threads, trace, raw=False)
    lst, threads = answer.list, answer.threads
    failed = failed_after_chain(rules, answer)
    prompts = () if answer.prompt is None else (answer.prompt,)
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
    """A sequence of calls over shared stored threads: each call starts from the threads the
    previous one left (the first call's ``threads`` seed them; later scenarios' own ``threads``
    are ignored)."""
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
