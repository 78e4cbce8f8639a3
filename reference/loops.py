"""M9-M13, G2: what differs between the three loops, as one table of rules.

``generate`` and ``stream`` are Mastra's standard loop; ``durable`` is its durable loop (raw:
M9, M10). Around the processors and the model step they differ in how a thrown error is
reported, whether the result text is read back, which earlier responses are added again, how
the turn is saved and titled, and what the call returns. ``run`` consults ``LOOP_RULES[loop]`` wherever a
loop decides, rather than asking which loop it is on.
"""

from __future__ import annotations

from attrs import frozen

from guardspec.model.scenario import Loop


@frozen
class LoopRules:
    """M9 Raw standard loop: the rules one loop follows, as one record per loop (the durable
    loop's departures are M10's; G2, G10 and G12 read some of them too).

    Errors. ``failed_id``: the id generate and stream reject with when the list throws at
    preparation, a processor throws (raw, M9) or the prompt conversion fails at a message's
    text; None on the durable loop, which reports Mastra's error as it is.
    ``swallows_processor_errors``: a processor's error other than a tripwire is swallowed and
    the model runs on the list as it stood (raw durable, M10). ``rbac_throws``: RBAC runs
    before Mastra and a denial throws (generate, stream); on durable it is a tripwire (G2).
    ``policy_sees_whole_list``: the policy engine receives every message on the list, not the
    input view (G10). ``rethrown_processor_id``: the processorId Mastra gives a TripWire a
    processor threw itself, ``{agent}`` the agent's id (G6.1).

    Model step (M12). ``download_error``: the error a failed asset download fails the call
    with, ``{url}`` the redacted URL. ``reads_back_after_failed_download``: with memory (or
    guarded) the result text is read back after a failed download, and a read-back error
    replaces the download's. ``reads_back_without_memory``: the result text is read back
    from the response messages with or without memory (durable).
    ``policy_engine_readds_response``: the guarded final-result step re-adds the response
    messages before they are saved (durable, G12). ``readds_earlier_responses``: after the
    reply the earlier response messages are added again as ``response`` (generate, stream).

    Saving and titles (M13). ``durable_saving``: the turn is saved by the durable finalisation
    (``finish.save``/``save_raw``'s ``durable``). ``saves_failed_turn``: a prompt conversion
    that throws adds an error response and saves the turn (durable).
    ``titles_failed_turn``: a failed model step's turn is still titled (durable).
    ``title_needs_read_back``: a read-back that throws leaves the thread without a title
    (durable). ``finalises_refusal``: a refused call's turn is saved and titled as the
    finalisation does (raw durable, M10; guarded durable, G14).

    Results (M13). ``gives_result``: the call returns a result (generate, stream); the durable
    loop's finalisation drains the unsaved sets instead (``drains_unsaved``).
    ``read_back_error``: how a read-back that throws fails the call, ``{name}`` and
    ``{message}`` the error's class and message; None: the call resolves with finishReason
    ``error`` (stream). ``unsaved_error``: the error a failed save fails the call with
    (generate: the memory output processor's workflow failed); ``resolves_when_unsaved``:
    a failed save makes the call resolve even after a failed asset download (stream)."""

    loop: Loop
    failed_id: str | None
    swallows_processor_errors: bool
    rbac_throws: bool
    policy_sees_whole_list: bool
    rethrown_processor_id: str
    download_error: str
    reads_back_after_failed_download: bool
    reads_back_without_memory: bool
    policy_engine_readds_response: bool
    readds_earlier_responses: bool
    durable_saving: bool
    saves_failed_turn: bool
    titles_failed_turn: bool
    title_needs_read_back: bool
    finalises_refusal: bool
    gives_result: bool
    drains_unsaved: bool
    read_back_error: str | None
    unsaved_error: str | None
    resolves_when_unsaved: bool


def _standard(loop: Loop, failed_id: str, read_back_error: str | None, unsaved_error: str | None) -> LoopRules:
    """M9: generate and stream, which differ only in how they fail."""
    return LoopRules(
        loop=loop,
        failed_id=failed_id,
        swallows_processor_errors=False,
        rbac_throws=True,
        policy_sees_whole_list=True,
        rethrown_processor_id="{agent}-input-processor",
        download_error="DOWNLOAD_ASSETS_FAILED",
        reads_back_after_failed_download=True,
        reads_back_without_memory=False,
        policy_engine_readds_response=False,
        readds_earlier_responses=True,
        durable_saving=False,
        saves_failed_turn=False,
        titles_failed_turn=False,
        title_needs_read_back=False,
        finalises_refusal=False,
        gives_result=True,
        drains_unsaved=False,
        read_back_error=read_back_error,
        unsaved_error=unsaved_error,
        resolves_when_unsaved=unsaved_error is None,
    )


def _durable() -> LoopRules:
    """M10 Raw durable loop: the caller sees a tripwire yet the finalisation saves and titles,
    other processor errors are swallowed, the result text is always read back, and there is no
    generate result; its guarded departures (RBAC as a tripwire, G2.1) are here too."""
    return LoopRules(
        loop=Loop.DURABLE,
        failed_id=None,
        swallows_processor_errors=True,
        rbac_throws=False,
        policy_sees_whole_list=False,
        rethrown_processor_id="",
        download_error="Error: Failed to download asset: {url}",
        reads_back_after_failed_download=False,
        reads_back_without_memory=True,
        policy_engine_readds_response=True,
        readds_earlier_responses=False,
        durable_saving=True,
        saves_failed_turn=True,
        titles_failed_turn=True,
        title_needs_read_back=True,
        finalises_refusal=True,
        gives_result=False,
        drains_unsaved=True,
        read_back_error="Error: {message}",
        unsaved_error=None,
        resolves_when_unsaved=False,
    )


LOOP_RULES: dict[Loop, LoopRules] = {
    Loop.GENERATE: _standard(Loop.GENERATE, "AGENT_GENERATE_FAILED", "{name}: {message}", "PROCESSOR_WORKFLOW_FAILED"),
    Loop.STREAM: _standard(Loop.STREAM, "AGENT_STREAM_FAILED", None, None),
    Loop.DURABLE: _durable(),
}
"""M9-M13: the rules of each loop."""


__all__ = ["LOOP_RULES", "LoopRules"]
