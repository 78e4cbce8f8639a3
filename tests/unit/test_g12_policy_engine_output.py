"""G12 The policy engine as the guarded agent's output processor
(G12.10-G12.12; Evidence: G12.10, G12.11, G12.12).

Breakwater's policy engine is also the guarded agent's output processor. The seed is silent
on its output step; measured through adapters/breakwater on Breakwater 0.17.0 (seeds
8401-8403, and each scenario below run on the build):

- durable: its final-result step returns the response messages it was handed and Mastra's
  runner re-adds them before the finalisation saves them, which stamps the unstamped parts of
  a remembered message the reply merged into (M2, M4, M13);
- every loop: the result text is read back from the response messages, memory or not (raw
  Mastra reads it back only with memory); when that read-back throws, generate fails and
  stream answers with the text the model streamed (M13).

The engine's input step returns the messages it was handed. On the durable loop those are the
input view, and Mastra re-adds each: a caller message moves behind a message a processor added
with the same createdAt (G12.10; the two scenarios at the end, run on the
build on all three loops). A remembered message with the caller's client tool outcome stays
remembered and call input and is saved on every loop (S3, I8); Breakwater does otherwise on
the durable loop, finding BW-F3.
"""

import pytest
from conftest import LOOPS, prompt_lines, scenario, stored, stored_message, tool, tool_parts

from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import FilePart, Message, Role, Source, TextPart, assistant, user
from guardspec.model.observation import Answered, Failed
from guardspec.model.processors import AddMessages, ArrayOf, Processor, Return
from guardspec.model.scenario import Loop, Mode
from guardspec.model.values import obj
from guardspec.reference import run

NOW = 1000  # the scenario's clock: a part added under a source other than memory is stamped with it
PENDING = stored(user("u0", "where am I?", 1), assistant("a0", "let me check", tool("tc1", "call"), created_at=2))
RESULT = assistant("a0", tool("tc1", "result", result=obj(city="Paris")), created_at=2)
ERROR = assistant("a0", tool("tc1", "output-error", error_text="boom"), created_at=2)
ALLOW = (DenyPatterns("deny", ("forbidden",)),)


def test_g12_durable_merged_remembered_message_is_saved_with_its_parts_stamped():
    # a0 (stored text + pending call) gets the caller's error (M3) and is the last message, so
    # the reply merges into it (M4) and it is a response message. The engine's final-result
    # step re-adds it as a response before saving: each of its parts without createdAt (the
    # stored text, the call now holding the error, the reply's text) is stamped with the
    # clock (M2). The stored u0 is not a response and is saved untouched.
    """G12.11: on durable the output step re-adds the response before saving, which stamps its unstamped parts."""
    obs = run(scenario(ERROR, threads=PENDING, loop=Loop.DURABLE, policies=ALLOW, reply="reply-0"), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    a0 = stored_message(obs, "a0")
    assert [p.created_at for p in a0.parts] == [NOW, NOW, NOW]
    assert [getattr(p, "text", None) for p in a0.parts][-1] == "reply-0"
    assert [p.state.value for p in tool_parts(a0)] == ["output-error"]
    assert stored_message(obs, "u0").parts[0].created_at is None


@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.STREAM])
def test_g12_merged_remembered_message_is_saved_as_it_was_on_generate_and_stream(loop):
    # No output re-add before saving there: only the reply's new text part carries a stamp.
    """G12.11: generate and stream have no output re-add before saving: the parts are saved unstamped."""
    obs = run(scenario(ERROR, threads=PENDING, loop=loop, policies=ALLOW, reply="reply-0"), Mode.GUARDED)
    a0 = stored_message(obs, "a0")
    assert [p.created_at for p in a0.parts] == [None, None, NOW]


@pytest.mark.parametrize("loop", LOOPS)
def test_g12_remembered_caller_outcome_is_saved_on_every_loop(loop):
    # S3, I8: the model keeps the seed; a0 stays remembered and call input and its call is
    # saved with the caller's result (on the durable loop Breakwater keeps it `call`: BW-F3).
    """G12.10: a carrier stays memory and input through the engine's input return, so its outcome is saved."""
    obs = run(scenario(RESULT, user("c1", "thanks", 10), threads=PENDING, loop=loop, policies=ALLOW, reply="reply-0"), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    assert [p.state.value for p in tool_parts(stored_message(obs, "a0"))] == ["result"]


def _replaces_input_with(entry):
    return Processor("p1", end=Return(ArrayOf(base="empty", append=(entry,))))


@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.STREAM])
def test_g12_result_text_is_read_back_without_memory(loop):
    # No memory. p1 returns only an input assistant a0 "before": the caller's u1 is removed
    # (G7) and the reply merges into a0 (M4). The guarded agent's output processor makes
    # Mastra read the text back from that response message: "before" + "reply-0". Raw Mastra
    # without memory has no output processor and returns the model's own text.
    """G12.12: the guarded result text is read back without memory, where raw Mastra gives the model's own text."""
    proc = _replaces_input_with(assistant("a0", "before", created_at=20))
    sc = scenario(user("u1", "hello", 10), processors=(proc,), loop=loop, reply="reply-0")
    guarded, raw = run(sc, Mode.GUARDED), run(sc, Mode.RAW)
    assert isinstance(guarded.outcome, Answered) and isinstance(raw.outcome, Answered)
    assert guarded.result.text == "beforereply-0"
    assert raw.result.text == "reply-0"


def _pending_approval_caller(loop):
    # No memory: the caller's assistant a0 holds an approval-responded call; the reply merges
    # into it, and converting that response message back to text throws (M13.5, M13.6).
    caller = assistant("a0", "before", tool("tc1", "approval-responded", approval=obj(id="ap1", approved=True)), created_at=2)
    return run(scenario(caller, loop=loop, reply="reply-0"), Mode.GUARDED)


def test_g12_read_back_failure_fails_generate_without_memory():
    """G12.12: a read-back that throws fails guarded generate without memory."""
    obs = _pending_approval_caller(Loop.GENERATE)
    assert isinstance(obs.outcome, Failed)
    assert obs.outcome.error.startswith("AI_MessageConversionError: ToolInvocation must have a result")


def test_g12_read_back_failure_on_stream_answers_with_the_streamed_text():
    """G12.12: a read-back that throws makes stream answer with the model's text and finishReason error."""
    obs = _pending_approval_caller(Loop.STREAM)
    assert isinstance(obs.outcome, Answered)
    assert (obs.result.text, obs.result.finish_reason) == ("reply-0", "error")


def test_g12_durable_output_step_sees_no_stale_memory_reference():
    """G12.11: the durable output step sees a rebuilt list without the stale memory reference, so a0 is saved as a response."""
    # Evidence: G12.11 (measured on the Breakwater 0.17.0 build): p1 clears the input, which leaves the remembered carrier a0 as a stale memory
    # reference (M5), then re-adds a0 as input; the reply merges into it. The durable output step
    # gets a list rebuilt from the workflow state, whose checker names a0 ``response`` only, so a0
    # is saved with the reply (Breakwater's checker there: memory empty, output ``[a0]``).
    from guardspec.model.messages import Source
    from guardspec.model.processors import AddMessages, ClearInput, RemoveByIds, SameList

    history = stored(user("u0", "hi", 1), assistant("a0", "let me check", tool("tc1", "call", args=obj(q=1)), created_at=2))
    caller = assistant("a0", tool("tc1", "result", result=obj(city="Paris"), args=obj(q=1)), created_at=2)
    literal = assistant("a0", "let me check", tool("tc1", "call", args=obj(q=1)), created_at=2)
    p1 = Processor(
        "p1", steps=(ClearInput(), RemoveByIds(("a0",)), AddMessages((literal,), Source.INPUT, merge=False)), end=Return(SameList())
    )
    obs = run(scenario(caller, threads=history, processors=(p1,), loop=Loop.DURABLE, reply="reply-0"), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    saved = stored_message(obs, "a0")
    assert saved.text().endswith("reply-0")


# -- the engine's input return on durable (G12.10, Evidence: G12.10) ---------------------------


@pytest.mark.parametrize("loop", LOOPS)
def test_g12_durable_input_return_moves_the_caller_message_behind_an_equal_stamp(loop):
    # p adds a context message with the caller's createdAt (5): it goes after the caller's u1.
    # On durable the engine's returned input view is re-added, so u1 goes to the end and the
    # stable sort by createdAt leaves it after c9; generate and stream keep u1 first.
    """G12.10: on durable the re-added input view puts a caller message behind one of equal createdAt."""
    add = Processor("p", steps=(AddMessages((user("c9", "ctx", 5),), Source.CONTEXT),))
    obs = run(scenario(user("u1", "hi", 5), processors=(add,), policies=ALLOW, loop=loop, memory=False), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    body = prompt_lines(obs)[1:]
    assert body == (["user: ctx", "user: hi"] if loop is Loop.DURABLE else ["user: hi", "user: ctx"])


@pytest.mark.parametrize("loop", LOOPS)
def test_g12_durable_reply_merges_into_the_caller_assistant_moved_last(loop):
    # The caller's assistant a1 and a response n2 that p adds, merge off, share createdAt 5. The
    # reply merges into the last assistant message (M4): n2 on generate and stream; a1 on
    # durable, where the engine's return re-added a1 behind n2.
    """G12.10: on durable the re-add changes which message the reply merges into."""
    add = Processor("p", steps=(AddMessages((assistant("n2", "added", created_at=5),), Source.RESPONSE, merge=False),))
    caller = assistant("a1", "caller text", created_at=5)
    obs = run(
        scenario(caller, processors=(add,), policies=ALLOW, loop=loop, threads=stored(user("u0", "q", 1)), reply="reply-0"), Mode.GUARDED
    )
    texts = {i: [p.text for p in stored_message(obs, i).parts] for i in ("a1", "n2")}
    if loop is Loop.DURABLE:
        assert prompt_lines(obs)[1:] == ["user: q", "assistant: added", "assistant: caller text"]
        assert texts == {"a1": ["caller text", "reply-0"], "n2": ["added"]}
    else:
        assert prompt_lines(obs)[1:] == ["user: q", "assistant: caller text", "assistant: added"]
        assert texts == {"a1": ["caller text"], "n2": ["added", "reply-0"]}


def _failed_download_then_pending_approval(loop, memory):
    # p1 adds, as response messages, a0 with an approval-requested call and c1 with a file whose
    # data is not base64: the download fails before the model is called (M12), and the policy
    # engine's read-back of the response messages then throws at a0 (M13.7 in raw Mastra).
    a0 = assistant("a0", "note-08", tool("tc9", "approval-requested", name="lookup", args=obj(q="note-28")), created_at=20)
    c1 = Message(id="c1", role=Role.USER, parts=(TextPart("note-39"), FilePart("note-02", "text/plain")), created_at=20)
    proc = Processor("p1", steps=(AddMessages((a0, c1), Source.RESPONSE, merge=True),))
    return run(
        scenario(user("c00", "note-34", 10), processors=(proc,), loop=loop, reply="reply-0", memory=memory, policies=ALLOW), Mode.GUARDED
    )


@pytest.mark.parametrize("memory", [True, False])
def test_g12_after_a_failed_download_the_read_back_error_is_the_calls_on_every_loop_memory_or_not(memory):
    # Measured on the build (Evidence: G12.12, each loop with and without
    # memory): generate fails with the read-back's error, stream answers with no text and
    # finishReason error, the durable loop reports the download. The model is never called.
    """G12.12: after a failed download the read-back runs on every loop, memory or not, and its error is the call's."""
    gen = _failed_download_then_pending_approval(Loop.GENERATE, memory)
    assert gen.outcome == Failed(
        'AI_MessageConversionError: ToolInvocation must have a result: {"state":"approval-requested","toolCallId":"tc9","toolName":"lookup","args":{"q":"note-28"}}'
    )
    stream = _failed_download_then_pending_approval(Loop.STREAM, memory)
    assert isinstance(stream.outcome, Answered)
    assert (stream.result.text, stream.result.finish_reason) == ("", "error")
    durable = _failed_download_then_pending_approval(Loop.DURABLE, memory)
    assert durable.outcome == Failed("Error: Failed to download asset: nulltext/plain;base64,note-02")
    assert gen.prompts == stream.prompts == durable.prompts == ()
