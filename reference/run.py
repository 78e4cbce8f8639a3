"""One call, end to end, in guarded or raw mode, on any loop; and a sequence of calls.

``run(scenario, mode)`` is a pure function of the scenario (SPEC §0): it returns the
observation (§O). ``run_thread`` threads the stored threads through a sequence of calls.
"""

from __future__ import annotations

from typing import Any, Iterable

from attrs import frozen
from guardspec.model.fast import evolve

from guardspec.model.agent import ThreadStore
from guardspec.model.messages import Source
from guardspec.model.observation import (
    Answered,
    AuditEvent,
    Failed,
    ListMessage,
    ListView,
    Observation,
    Refused,
)
from guardspec.model.messages import SOURCE_ORDER
from guardspec.model.scenario import Loop, Mode, Scenario

from . import finish, preparation
from .guard import removal
from .guard.application import policy_engine_output_return
from .guard.chain import Refusal, event, guarded_chain
from .guard.construction import call_options_error, caller_input_error, construction_error
from .mapping import map_client_outputs
from .messagelist import MastraError, MessageList, add_one, drain_unsaved, without_steps
from .downloads import download_failure
from .model_step import error_message, model_step, readd_earlier_responses, stamp_merged_reply
from .prompt import MessageTextError, prompt
from .read_back import ConversionError, response_conversion_error, response_text
from .policies import rbac_denial
from .raw_runner import Failure, Tripwire, run_raw_chain
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
            ListMessage(evolve(without_steps(s.message), ref=0), tuple(x for x in SOURCE_ORDER if x in s.sources))
            for s in lst.slots
        ),
        untagged=tuple(evolve(m, ref=0) for m in lst.untagged),
        tagged=tuple((t, tuple(evolve(m, ref=0) for m in b)) for t, b in lst.tagged),
    )


def _bound(scenario: Scenario) -> tuple[str, str | None] | None:
    """M7/M13: the thread the call reads and saves (``preparation.binding``; none without a
    thread id)."""
    b = preparation.binding(scenario.agent, scenario.call)
    if b is None or b[0] is None:
        return None
    return b[0], b[1]


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
    bound = _bound(scenario)
    if bound:
        threads = finish.ensure_thread(threads, *bound)
    return lst, threads


def _save(scenario: Scenario, lst: MessageList, threads: ThreadStore, bound: tuple[str, str], raw: bool) -> tuple[ThreadStore, bool]:
    """M13 saving, and whether it failed: raw mode saves as real Mastra does, stopping at a
    message JSON cannot write (``finish.save_raw``, k45); the guarded path keeps
    ``finish.save`` (not measured through Breakwater)."""
    durable = scenario.call.loop is Loop.DURABLE
    if raw:
        return finish.save_raw(threads, *bound, lst, durable)
    return finish.save(threads, *bound, lst, durable), False


def _finalise(scenario: Scenario, lst: MessageList, threads: ThreadStore, titles: bool) -> tuple[ThreadStore, bool]:
    """M13 after a failed model step: the turn is saved to the bound thread, and the durable
    finalisation still titles it (measured, docs/mastra-measurements.md §k k26, k27); whether
    the save failed (k45)."""
    bound = _bound(scenario)
    if not bound:
        return threads, False
    durable = scenario.call.loop is Loop.DURABLE
    threads, unsaved = _save(scenario, lst, threads, bound, titles)
    if durable and titles and scenario.agent.memory.generate_title:
        threads = finish.entitle(threads, *bound, lst)
    return threads, unsaved


def _answer(scenario: Scenario, lst: MessageList, threads: ThreadStore, titles: bool, trace: Trace | None, guarded: bool = False):
    """M12 then M13: the model step, saving, the title (raw only) and the result; whether the
    save failed (raw only, k45). ``guarded``
    (G12): the policy engine is the agent's output processor, so the result text is read back
    from the response messages on every loop, memory or not, and on the durable loop its
    final-result step re-adds the response messages before they are saved
    (``guard.application.policy_engine_output_return``; docs/breakwater-measurements.md §11)."""
    before = lst
    bound = _bound(scenario)
    durable = scenario.call.loop is Loop.DURABLE
    try:
        failure = download_failure(prompt(lst))
    except MastraError as e:
        # M12: the prompt conversion throws before the model is called (k27): generate/stream
        # reject with the error and save nothing; the durable loop saves the turn with an error
        # response
        if durable:
            lst = add_one(lst, error_message(lst), Source.RESPONSE, merge=False)
            threads, _ = _finalise(scenario, lst, threads, titles)
            return lst, None, threads, "", str(e), False
        if isinstance(e, MessageTextError):
            return lst, None, threads, "", "AGENT_GENERATE_FAILED" if scenario.call.loop is Loop.GENERATE else "AGENT_STREAM_FAILED", False
        return lst, None, threads, "", str(e), False
    if failure is not None:
        # M12: the asset download fails before the model is called; an error part is added as
        # the response and the turn is saved (measured, docs/mastra-measurements.md §k)
        # as a message of its own: it never merges into a trailing assistant message (k23)
        lst = add_one(lst, error_message(lst), Source.RESPONSE, merge=False)
        threads, unsaved = _finalise(scenario, lst, threads, titles)
        err = f"Error: Failed to download asset: {failure}" if scenario.call.loop is Loop.DURABLE else "DOWNLOAD_ASSETS_FAILED"
        if not durable and (guarded or scenario.agent.memory is not None):
            # with memory, generate and stream still read the result text back from the response
            # messages: when that throws (k8, k56) its error is the call's (measured, k55); the
            # guarded agent's policy engine is an output processor, so it reads back with or
            # without memory (measured on Breakwater, docs/breakwater-measurements.md §24)
            broken = response_conversion_error(lst)
            if broken:
                return lst, None, threads, "", ReadBackError(broken, broken.name), unsaved
        return lst, None, threads, "", err, unsaved
    lst, sent = model_step(lst, scenario.call.reply)
    if trace:
        trace.stage("model step", lst)
    # with memory its output processor (MessageHistory) runs and the text is read back from
    # the response messages; without output processors it is the model's own text (measured,
    # docs/mastra-measurements.md §j)
    # The guarded agent always has an output processor, its policy engine, so its text is read
    # back on every loop, memory or not (measured, docs/breakwater-measurements.md §11).
    reads_back = scenario.agent.memory is not None or guarded
    text = response_text(lst) if reads_back else scenario.call.reply
    # the durable loop reads its output text back from the response messages with or without
    # memory (measured: no memory, a response a0 holding an approval-responded call: durable
    # fails, generate and stream answer; k30)
    broken = response_conversion_error(lst) if reads_back or durable else None
    if broken:
        # stream resolves all the same, with the model's own text (measured: a response a0
        # [text, approval-responded call, text] the reply merges into: text "reply-0", not the
        # read-back's "note-19reply-0"; docs/mastra-measurements.md §k k41)
        text = scenario.call.reply
    if guarded and durable:
        lst = policy_engine_output_return(lst)
    unsaved = False
    if bound:
        threads, unsaved = _save(scenario, lst, threads, bound, titles)
    if unsaved:
        # the memory output processor failed: stream resolves with the model's own text
        # (measured, docs/mastra-measurements.md §k k45)
        text = scenario.call.reply
    # after saving and the result text (measured, docs/mastra-measurements.md §j)
    lst = stamp_merged_reply(before, lst)
    if scenario.call.loop is not Loop.DURABLE:
        lst = readd_earlier_responses(before, lst)
    # the title is made from the list after the earlier responses were added again (k21)
    # the durable finalisation reads its output text back before titling: when that throws, no
    # title (measured, k33)
    if bound and titles and scenario.agent.memory.generate_title and not (durable and broken):
        threads = finish.entitle(threads, *bound, lst)
    return lst, sent, threads, text, broken, unsaved


class ReadBackError(ConversionError):
    """M13: the read-back error of a generate/stream call whose asset download failed (k55,
    k56): it replaces ``DOWNLOAD_ASSETS_FAILED``."""


def _failed_after_chain(loop: Loop, sent: Any, broken: str | None, unsaved: bool = False) -> Failed | None:
    """M12/M13 failures after the processors: the asset download (no model call: ``sent`` is
    None, ``broken`` the error) or the result-text read-back. When the save failed
    (``unsaved``, k45) the memory output processor's workflow failed: generate rejects with
    ``PROCESSOR_WORKFLOW_FAILED``, stream resolves (finishReason ``error``) even after a failed
    asset download, the durable loop is unchanged (measured). With memory, a failed download
    is followed by the read-back of the result text on generate and stream: when that throws
    (``ReadBackError``), generate rejects with the read-back's error and stream resolves
    (finishReason ``error``), whatever the download (measured, docs/mastra-measurements.md §k
    k55)."""
    if unsaved and loop is Loop.GENERATE:
        return Failed("PROCESSOR_WORKFLOW_FAILED")
    if isinstance(broken, ReadBackError):
        return _broken_read_back(loop, broken)
    if sent is None:
        return None if unsaved and loop is Loop.STREAM else Failed(broken)
    return _broken_read_back(loop, broken) if broken else None


def _broken_read_back(loop: Loop, broken: str) -> Failed | None:
    """M13: the read-back of the result text throws (``response_conversion_error``):
    generate rejects with the error, named by its class (``AI_MessageConversionError``,
    ``AI_InvalidDataContentError``, ``Error``; k56), the durable loop fails with its message as a
    plain ``Error``; stream resolves with finishReason ``error`` (None here). Measured:
    docs/mastra-measurements.md §k."""
    if loop is Loop.GENERATE:
        return Failed(f"{getattr(broken, 'name', 'AI_MessageConversionError')}: {broken}")
    if loop is Loop.DURABLE:
        return Failed(f"Error: {broken}")
    return None


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
        err = {Loop.GENERATE: "AGENT_GENERATE_FAILED", Loop.STREAM: "AGENT_STREAM_FAILED"}.get(call.loop, e.code)
        return _observe(scenario, threads, outcome=Failed(err))
    bound = _bound(scenario)
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
    durable = call.loop is Loop.DURABLE
    stop = chain.stop

    if isinstance(stop, Tripwire):
        outcome = Refused(stop.reason, stop.processor_id)
        if durable:
            # M10: finalisation still saves the input and response messages and titles the thread.
            if bound:
                threads, _ = finish.save_raw(threads, *bound, lst, True)  # stops at what JSON cannot write (k45)
                if agent.memory.generate_title and response_conversion_error(lst) is None:  # k33
                    threads = finish.entitle(threads, *bound, lst)
            lst = drain_unsaved(lst)
            return _observe(scenario, threads, outcome=outcome, list=list_view(lst))
        # M9: no model call, nothing saved, no title; the result carries the tripwire.
        return _observe(scenario, threads, outcome=outcome, result=finish.result(lst, "", "other"), list=list_view(lst))
    if isinstance(stop, Failure) and not durable:
        # M9: generate/stream reject; nothing saved.
        err = "AGENT_GENERATE_FAILED" if call.loop is Loop.GENERATE else "AGENT_STREAM_FAILED"
        return _observe(scenario, threads, outcome=Failed(err), list=list_view(lst))
    # M10: any other processor error is swallowed on the durable loop: the model runs on the list as it stood.
    lst = map_client_outputs(agent, lst, strict=False)
    lst, sent, threads, text, broken, unsaved = _answer(scenario, lst, threads, True, trace)
    failed = _failed_after_chain(call.loop, sent, broken, unsaved)
    prompts = () if sent is None else (sent,)
    if durable:
        lst = drain_unsaved(lst)
        return _observe(scenario, threads, outcome=failed or Answered(), prompts=prompts, list=list_view(lst))
    if failed:
        return _observe(scenario, threads, outcome=failed, prompts=prompts, list=list_view(lst))
    return _observe(
        scenario,
        threads,
        outcome=Answered(),
        prompts=prompts,
        result=finish.result(lst, text, "error" if broken or unsaved else "stop"),
        list=list_view(lst),
    )


def refusal_processor_id(scenario: Scenario, refusal: Refusal) -> str:
    """G6 Outcome classes, the refusal's processorId: a processor's abort names the processor;
    a TripWire the processor threw itself is rethrown unchanged by Breakwater's wrapper, and
    Mastra names it as its own runner does: ``<agent id>-input-processor`` on generate/stream,
    ``""`` on the durable loop (docs/breakwater-measurements.md §3)."""
    if not refusal.rethrown:
        return refusal.processor_id
    return "" if scenario.call.loop is Loop.DURABLE else f"{scenario.agent.id}-input-processor"


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
    audit: list[AuditEvent] = []
    denial = rbac_denial(agent, call.actor)
    # G3: one agent.input.authorize event per decision.
    audit.append(
        event(agent, call.actor, "agent.input.authorize", "denied" if denial else "allowed", denial)
    )
    durable = call.loop is Loop.DURABLE
    if denial and not durable:
        # G2: on generate/stream RBAC runs before Mastra and a denial throws.
        return _observe(
            scenario,
            threads,
            outcome=Refused(denial, "breakwater-rbac", f"GuardedAgent authorization denied: {denial}"),
            audit=tuple(audit),
        )
    try:
        lst, threads = _prepare(scenario, threads)
    except MastraError as e:
        return _observe(scenario, threads, outcome=Failed(str(e)), audit=tuple(audit))
    if trace:
        trace.stage("preparation", lst)
    bound = _bound(scenario)
    stored = preparation.stored_messages(threads, bound[0]) if bound else ()

    if denial:
        # G2: on durable RBAC is a tripwire from breakwater-rbac; G13 removes the input.
        # read through its module at call time, as the chain reads it, so one G13 rule serves both
        lst = removal.refusal_removal(lst, (), None, ())
        if bound:
            threads = finish.save(threads, *bound, lst, True)  # durable finalisation: nothing left to save
        lst = drain_unsaved(lst)
        return _observe(
            scenario,
            threads,
            outcome=Refused(denial, "breakwater-rbac"),
            audit=tuple(audit),
            list=list_view(lst),
        )

    chain = guarded_chain(agent, call.actor, lst, stored, bound is not None, audit, trace, not durable)
    lst = chain.list
    if chain.refusal is not None:
        # G14 Consequences: nothing G13 removed is saved or titled; the result omits it.
        outcome = Refused(chain.refusal.reason, refusal_processor_id(scenario, chain.refusal))
        if durable:
            if bound:
                threads = finish.save(threads, *bound, lst, True)
            lst = drain_unsaved(lst)
            return _observe(scenario, threads, outcome=outcome, audit=chain.audit, list=list_view(lst), read=chain.read)
        return _observe(
            scenario,
            threads,
            outcome=outcome,
            audit=chain.audit,
            result=finish.result(lst, "", "other"),
            list=list_view(lst),
            read=chain.read,
        )
    lst, sent, threads, text, broken, _ = _answer(scenario, lst, threads, False, trace, guarded=True)
    failed = _failed_after_chain(call.loop, sent, broken)
    prompts = () if sent is None else (sent,)
    if durable:
        lst = drain_unsaved(lst)
        return _observe(
            scenario, threads, outcome=failed or Answered(), audit=chain.audit, prompts=prompts, list=list_view(lst), read=chain.read
        )
    if failed:
        return _observe(scenario, threads, outcome=failed, audit=chain.audit, prompts=prompts, list=list_view(lst), read=chain.read)
    return _observe(
        scenario,
        threads,
        outcome=Answered(),
        audit=chain.audit,
        prompts=prompts,
        result=finish.result(lst, text, "error" if broken else "stop"),
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


__all__ = ["run", "run_call", "run_thread", "Run", "list_view", "Source"]
