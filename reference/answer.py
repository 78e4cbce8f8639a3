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
    """M7.1 The binding: the thread the call reads and saves; none without a thread id."""
    b = preparation.binding(scenario.agent, scenario.call)
    if b is None or b[0] is None:
        return None
    return b[0], b[1]


def save_turn(
    scenario: Scenario, lst: MessageList, threads: ThreadStore, bound: tuple[str, str | None], *, raw: bool
) -> tuple[ThreadStore, bool]:
    """M13 Finish: the turn saved to the bound thread, and whether the save failed; raw mode
    saves as Mastra does, stopping at a message JSON cannot write (M13.4)."""
    durable = LOOP_RULES[scenario.call.loop].durable_saving
    if raw:
        return finish.save_raw(threads, *bound, lst, durable)
    return finish.save(threads, *bound, lst, durable), False


def finalise_failed_step(scenario: Scenario, lst: MessageList, threads: ThreadStore, *, raw: bool) -> tuple[ThreadStore, bool]:
    """M13.9 Title generation: after a failed model step the turn is still saved, and the durable
    finalisation still titles it; returns whether the save failed (M13.4)."""
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
    """M13 Finish: what the model step and what follows it leave: the list, the prompt the model
    received (None: not called), the stored threads, the result text, the error (the prompt
    conversion's or the download's when the model was not called, else the read-back's) and
    whether the save failed."""

    list: MessageList
    prompt: tuple[PromptEntry, ...] | None
    threads: ThreadStore
    text: str
    broken: str | None
    unsaved: bool


def _reads_back(scenario: Scenario, raw: bool) -> bool:
    """G12.12 The result text is read back on every loop: the guarded agent always has an output
    processor, its policy engine, so its text is read back from the response messages with or
    without memory; raw Mastra reads it back only with memory (M13.5)."""
    return scenario.agent.memory is not None or not raw


def _error_response(lst: MessageList, rules: LoopRules, raw: bool) -> MessageList:
    """M12.10 A failed model step: the error response is added as a message of its own (never
    merged); guarded on durable, the finalisation then runs the engine's output step (G12.11)."""
    lst = add_one(lst, error_message(lst), Source.RESPONSE, merge=False)
    return policy_engine_output_return(lst) if not raw and rules.policy_engine_readds_response else lst


def answer_step(scenario: Scenario, lst: MessageList, threads: ThreadStore, trace: Trace | None, *, raw: bool) -> Answer:
    """M12 Model step: the model step, then saving, the title (raw only) and the result text by
    the loop's rules. Guarded, the policy engine is the agent's output processor, so the result
    text is read back on every loop (G12.12), and on the durable loop its final-result step
    re-adds the response messages before they are saved, after a failed step too."""
    before = lst
    bound = bound_thread(scenario)
    rules = LOOP_RULES[scenario.call.loop]
    try:
        failure = download_failure(prompt(lst))
    except MastraError as e:
        # M12: the prompt conversion throws before the model is called: generate/stream
        # reject with the error and save nothing; the durable loop saves the turn with an error
        # response
        if rules.saves_failed_turn:
            lst = _error_response(lst, rules, raw)
            threads, _ = finalise_failed_step(scenario, lst, threads, raw=raw)
            return Answer(lst, None, threads, "", str(e), False)
        if isinstance(e, MessageTextError):
            return Answer(lst, None, threads, "", rules.failed_id, False)
        return Answer(lst, None, threads, "", str(e), False)
    if failure is not None:
        # M12: the asset download fails before the model is called; an error part is added as
        # the response and the turn is saved
        # as a message of its own: it never merges into a trailing assistant message
        lst = _error_response(lst, rules, raw)
        threads, unsaved = finalise_failed_step(scenario, lst, threads, raw=raw)
        err = rules.download_error.format(url=failure)
        if rules.reads_back_after_failed_download and (not raw or scenario.agent.memory is not None):
            # with memory, generate and stream still read the result text back from the response
            # messages: when that throws its error is the call's; the
            # guarded agent's policy engine is an output processor, so it reads back with or
            # without memory
            broken = response_conversion_error(lst)
            if broken:
                return Answer(lst, None, threads, "", ReadBackError(broken, broken.name), unsaved)
        return Answer(lst, None, threads, "", err, unsaved)
    lst, sent = model_step(lst, scenario.call.reply)
    if trace:
        trace.stage("model step", lst)
    # with memory its output processor (MessageHistory) runs and the text is read back from
    # the response messages; without output processors it is the model's own text (M13.5)
    # The guarded agent always has an output processor, its policy engine, so its text is read
    # back on every loop, memory or not.
    reads_back = _reads_back(scenario, raw)
    text = response_text(lst) if reads_back else scenario.call.reply
    # the durable loop reads its output text back from the response messages with or without
    # memory (measured: no memory, a response a0 holding an approval-responded call: durable
    # fails, generate and stream answer)
    broken = response_conversion_error(lst) if reads_back or rules.reads_back_without_memory else None
    if broken:
        # stream resolves all the same, with the model's own text (measured: a response a0
        # [text, approval-responded call, text] the reply merges into: text "reply-0", not the
        # read-back's "note-19reply-0")
        text = scenario.call.reply
    if not raw and rules.policy_engine_readds_response:
        lst = policy_engine_output_return(lst)
    unsaved = False
    if bound:
        threads, unsaved = save_turn(scenario, lst, threads, bound, raw=raw)
    if unsaved:
        # the memory output processor failed: stream resolves with the model's own text
        #
        text = scenario.call.reply
    # after saving and the result text
    lst = stamp_merged_reply(before, lst)
    if rules.readds_earlier_responses:
        lst = readd_earlier_responses(before, lst)
    # the title is made from the list after the earlier responses were added again
    # the durable finalisation reads its output text back before titling: when that throws, no
    # title
    memory = scenario.agent.memory
    if bound and raw and memory is not None and memory.generate_title and not (rules.title_needs_read_back and broken):
        threads = finish.entitle(threads, *bound, lst)
    return Answer(lst, sent, threads, text, broken, unsaved)


class ReadBackError(ConversionError):
    """M13.7 The read-back after a failed download: the read-back's error, which replaces
    ``DOWNLOAD_ASSETS_FAILED`` on generate and stream."""


def failed_after_chain(rules: LoopRules, answer: Answer) -> Failed | None:
    """M13.7 The read-back after a failed download: how the call fails after the processors.
    A failed save fails generate (``PROCESSOR_WORKFLOW_FAILED``, M13.4) and stream resolves; a
    failed download fails the call unless the read-back that follows throws, whose error then
    replaces it; a read-back that throws after the model fails as M13.6 says.

    Evidence: M13.7"""
    broken, unsaved = answer.broken, answer.unsaved
    if unsaved and rules.unsaved_error is not None:
        return Failed(rules.unsaved_error)
    if isinstance(broken, ReadBackError):
        return _broken_read_back(rules, broken)
    if answer.prompt is None:
        return None if unsaved and rules.resolves_when_unsaved else Failed(cast(str, broken))
    return _broken_read_back(rules, broken) if broken else None


def _broken_read_back(rules: LoopRules, broken: str) -> Failed | None:
    """M13.6 Read-back errors: the read-back of the result text throws (``response_conversion_error``):
    generate rejects with the error, named by its class (``AI_MessageConversionError``,
    ``AI_InvalidDataContentError``, ``Error``), the durable loop fails with its message as a
    plain ``Error``; stream resolves with finishReason ``error`` (None here)."""
    if rules.read_back_error is None:
        return None
    return Failed(rules.read_back_error.format(name=getattr(broken, "name", "AI_MessageConversionError"), message=broken))
