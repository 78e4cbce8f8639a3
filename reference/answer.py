"""M12-M13 the answer step: after the processors, the model step, saving, the title and how
the call fails after the chain, by the rules of its loop (``loops.LOOP_RULES``)."""

from __future__ import annotations

from typing import cast

from attrs import frozen

from guardspec.model.agent import ThreadStore
from guardspec.model.errors import MastraError
from guardspec.model.messages import Source
from guardspec.model.observation import Failed, PromptEntry
from guardspec.model.scenario import Scenario

from . import finish, preparation
from .downloads import download_failure
from .guard.application import policy_engine_output_return
from .loops import LOOP_RULES, LoopRules
from .messagelist import MessageList, add_one
from .model_step import error_message, model_step, readd_earlier_responses, stamp_merged_reply
from .prompt import MessageTextError, prompt
from .read_back import ConversionError, response_conversion_error, response_text
from .trace import Trace


def bound_thread(scenario: Scenario) -> tuple[str, str | None] | None:
    """M7/M13: the thread the call reads and saves (``preparation.binding``; none without a
    thread id)."""
    b = preparation.binding(scenario.agent, scenario.call)
    if b is None or b[0] is None:
        return None
    return b[0], b[1]


def save_turn(
    scenario: Scenario, lst: MessageList, threads: ThreadStore, bound: tuple[str, str | None], *, raw: bool
) -> tuple[ThreadStore, bool]:
    """M13 saving, and whether it failed: raw mode saves as real Mastra does, stopping at a
    message JSON cannot write (``finish.save_raw``, k45); the guarded path keeps
    ``finish.save`` (not measured through Breakwater)."""
    durable = LOOP_RULES[scenario.call.loop].durable_saving
    if raw:
        return finish.save_raw(threads, *bound, lst, durable)
    return finish.save(threads, *bound, lst, durable), False


def finalise_failed_step(scenario: Scenario, lst: MessageList, threads: ThreadStore, *, raw: bool) -> tuple[ThreadStore, bool]:
    """M13 after a failed model step: the turn is saved to the bound thread, and the durable
    finalisation still titles it (measured, docs/mastra-measurements.md §k k26, k27); whether
    the save failed (k45)."""
    bound = bound_thread(scenario)
    if not bound:
        return threads, False
    threads, unsaved = save_turn(scenario, lst, threads, bound, raw=raw)
    memory = scenario.agent.memory
    if LOOP_RULES[scenario.call.loop].titles_failed_turn and raw and memory is not None and memory.generate_title:
        threads = finish.entitle(threads, *bound, lst)
    return threads, unsaved


@frozen
class Answer:
    """M12-M13: what the model step and what follows it leave: the list, the prompt the model
    received (None: the model was not called), the stored threads, the result text, the error
    (the prompt conversion's or the download's when the model was not called, else the
    read-back's ``ConversionError``; None: none) and whether the save failed (raw only, k45)."""

    list: MessageList
    prompt: tuple[PromptEntry, ...] | None
    threads: ThreadStore
    text: str
    broken: str | None
    unsaved: bool


def answer_step(scenario: Scenario, lst: MessageList, threads: ThreadStore, trace: Trace | None, *, raw: bool) -> Answer:
    """M12 then M13: the model step, saving, the title (raw only) and the result; whether the
    save failed (raw only, k45). Guarded (``raw`` False,
    G12): the policy engine is the agent's output processor, so the result text is read back
    from the response messages on every loop, memory or not, and on the durable loop its
    final-result step re-adds the response messages before they are saved
    (``guard.application.policy_engine_output_return``; docs/breakwater-measurements.md §11)."""
    before = lst
    bound = bound_thread(scenario)
    rules = LOOP_RULES[scenario.call.loop]
    try:
        failure = download_failure(prompt(lst))
    except MastraError as e:
        # M12: the prompt conversion throws before the model is called (k27): generate/stream
        # reject with the error and save nothing; the durable loop saves the turn with an error
        # response
        if rules.saves_failed_turn:
            lst = add_one(lst, error_message(lst), Source.RESPONSE, merge=False)
            threads, _ = finalise_failed_step(scenario, lst, threads, raw=raw)
            return Answer(lst, None, threads, "", str(e), False)
        if isinstance(e, MessageTextError):
            return Answer(lst, None, threads, "", rules.failed_id, False)
        return Answer(lst, None, threads, "", str(e), False)
    if failure is not None:
        # M12: the asset download fails before the model is called; an error part is added as
        # the response and the turn is saved (measured, docs/mastra-measurements.md §k)
        # as a message of its own: it never merges into a trailing assistant message (k23)
        lst = add_one(lst, error_message(lst), Source.RESPONSE, merge=False)
        threads, unsaved = finalise_failed_step(scenario, lst, threads, raw=raw)
        err = rules.download_error.format(url=failure)
        if rules.reads_back_after_failed_download and (not raw or scenario.agent.memory is not None):
            # with memory, generate and stream still read the result text back from the response
            # messages: when that throws (k8, k56) its error is the call's (measured, k55); the
            # guarded agent's policy engine is an output processor, so it reads back with or
            # without memory (measured on Breakwater, docs/breakwater-measurements.md §24)
            broken = response_conversion_error(lst)
            if broken:
                return Answer(lst, None, threads, "", ReadBackError(broken, broken.name), unsaved)
        return Answer(lst, None, threads, "", err, unsaved)
    lst, sent = model_step(lst, scenario.call.reply)
    if trace:
        trace.stage("model step", lst)
    # with memory its output processor (MessageHistory) runs and the text is read back from
    # the response messages; without output processors it is the model's own text (measured,
    # docs/mastra-measurements.md §j)
    # The guarded agent always has an output processor, its policy engine, so its text is read
    # back on every loop, memory or not (measured, docs/breakwater-measurements.md §11).
    reads_back = scenario.agent.memory is not None or not raw
    text = response_text(lst) if reads_back else scenario.call.reply
    # the durable loop reads its output text back from the response messages with or without
    # memory (measured: no memory, a response a0 holding an approval-responded call: durable
    # fails, generate and stream answer; k30)
    broken = response_conversion_error(lst) if reads_back or rules.reads_back_without_memory else None
    if broken:
        # stream resolves all the same, with the model's own text (measured: a response a0
        # [text, approval-responded call, text] the reply merges into: text "reply-0", not the
        # read-back's "note-19reply-0"; docs/mastra-measurements.md §k k41)
        text = scenario.call.reply
    if not raw and rules.policy_engine_readds_response:
        lst = policy_engine_output_return(lst)
    unsaved = False
    if bound:
        threads, unsaved = save_turn(scenario, lst, threads, bound, raw=raw)
    if unsaved:
        # the memory output processor failed: stream resolves with the model's own text
        # (measured, docs/mastra-measurements.md §k k45)
        text = scenario.call.reply
    # after saving and the result text (measured, docs/mastra-measurements.md §j)
    lst = stamp_merged_reply(before, lst)
    if rules.readds_earlier_responses:
        lst = readd_earlier_responses(before, lst)
    # the title is made from the list after the earlier responses were added again (k21)
    # the durable finalisation reads its output text back before titling: when that throws, no
    # title (measured, k33)
    memory = scenario.agent.memory
    if bound and raw and memory is not None and memory.generate_title and not (rules.title_needs_read_back and broken):
        threads = finish.entitle(threads, *bound, lst)
    return Answer(lst, sent, threads, text, broken, unsaved)


class ReadBackError(ConversionError):
    """M13: the read-back error of a generate/stream call whose asset download failed (k55,
    k56): it replaces ``DOWNLOAD_ASSETS_FAILED``."""


def failed_after_chain(rules: LoopRules, answer: Answer) -> Failed | None:
    """M12/M13 failures after the processors: the asset download (no model call: ``sent`` is
    None, ``broken`` the error) or the result-text read-back. When the save failed
    (``unsaved``, k45) the memory output processor's workflow failed: generate rejects with
    ``PROCESSOR_WORKFLOW_FAILED``, stream resolves (finishReason ``error``) even after a failed
    asset download, the durable loop is unchanged (measured). With memory, a failed download
    is followed by the read-back of the result text on generate and stream: when that throws
    (``ReadBackError``), generate rejects with the read-back's error and stream resolves
    (finishReason ``error``), whatever the download (measured, docs/mastra-measurements.md §k
    k55)."""
    broken, unsaved = answer.broken, answer.unsaved
    if unsaved and rules.unsaved_error is not None:
        return Failed(rules.unsaved_error)
    if isinstance(broken, ReadBackError):
        return _broken_read_back(rules, broken)
    if answer.prompt is None:
        return None if unsaved and rules.resolves_when_unsaved else Failed(cast(str, broken))
    return _broken_read_back(rules, broken) if broken else None


def _broken_read_back(rules: LoopRules, broken: str) -> Failed | None:
    """M13: the read-back of the result text throws (``response_conversion_error``):
    generate rejects with the error, named by its class (``AI_MessageConversionError``,
    ``AI_InvalidDataContentError``, ``Error``; k56), the durable loop fails with its message as a
    plain ``Error``; stream resolves with finishReason ``error`` (None here). Measured:
    docs/mastra-measurements.md §k."""
    if rules.read_back_error is None:
        return None
    return Failed(rules.read_back_error.format(name=getattr(broken, "name", "AI_MessageConversionError"), message=broken))
