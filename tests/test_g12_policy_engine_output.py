"""G12 The policy engine as the guarded agent's output processor
(docs/breakwater-measurements.md §11).

Breakwater's policy engine is also the guarded agent's output processor. The seed is silent
on its output step; measured through adapters/breakwater on Breakwater 0.17.0 (seeds
8401-8403, and each scenario below run on the build):

- durable: its final-result step returns the response messages it was handed and Mastra's
  runner re-adds them before the finalisation saves them, which stamps the unstamped parts of
  a remembered message the reply merged into (M2, M4, M13);
- every loop: the result text is read back from the response messages, memory or not (raw
  Mastra reads it back only with memory); when that read-back throws, generate fails and
  stream answers with the text the model streamed (M13).

What the engine's input step returns changes nothing in the model: a remembered message with
the caller's client tool outcome stays remembered and call input and is saved on every loop
(S3, I8); Breakwater does otherwise on the durable loop, finding BW-F3.
"""

import pytest

from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import assistant, user
from guardspec.model.observation import Answered, Failed
from guardspec.model.processors import ArrayOf, Processor, Return
from guardspec.model.scenario import Loop, Mode
from guardspec.model.values import obj
from guardspec.reference import run

from conftest import LOOPS, scenario, stored, stored_message, tool, tool_parts

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
    obs = run(scenario(ERROR, threads=PENDING, loop=loop, policies=ALLOW, reply="reply-0"), Mode.GUARDED)
    a0 = stored_message(obs, "a0")
    assert [p.created_at for p in a0.parts] == [None, None, NOW]


@pytest.mark.parametrize("loop", LOOPS)
def test_g12_remembered_caller_outcome_is_saved_on_every_loop(loop):
    # S3, I8: the model keeps the seed; a0 stays remembered and call input and its call is
    # saved with the caller's result (on the durable loop Breakwater keeps it `call`: BW-F3).
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
    proc = _replaces_input_with(assistant("a0", "before", created_at=20))
    sc = scenario(user("u1", "hello", 10), processors=(proc,), loop=loop, reply="reply-0")
    guarded, raw = run(sc, Mode.GUARDED), run(sc, Mode.RAW)
    assert isinstance(guarded.outcome, Answered) and isinstance(raw.outcome, Answered)
    assert guarded.result.text == "beforereply-0"
    assert raw.result.text == "reply-0"


def _pending_approval_caller(loop):
    # No memory: the caller's assistant a0 holds an approval-responded call; the reply merges
    # into it, and converting that response message back to text throws (k30).
    caller = assistant("a0", "before", tool("tc1", "approval-responded", approval=obj(id="ap1", approved=True)), created_at=2)
    return run(scenario(caller, loop=loop, reply="reply-0"), Mode.GUARDED)


def test_g12_read_back_failure_fails_generate_without_memory():
    obs = _pending_approval_caller(Loop.GENERATE)
    assert isinstance(obs.outcome, Failed)
    assert obs.outcome.error.startswith("AI_MessageConversionError: ToolInvocation must have a result")


def test_g12_read_back_failure_on_stream_answers_with_the_streamed_text():
    obs = _pending_approval_caller(Loop.STREAM)
    assert isinstance(obs.outcome, Answered)
    assert (obs.result.text, obs.result.finish_reason) == ("reply-0", "error")


def test_g12_durable_output_step_sees_no_stale_memory_reference():
    """docs/breakwater-measurements.md §21 (seed 8454 case 1227, measured on the Breakwater
    0.17.0 build): p1 clears the input, which leaves the remembered carrier a0 as a stale memory
    reference (M5), then re-adds a0 as input; the reply merges into it. The durable output step
    gets a list rebuilt from the workflow state, whose checker names a0 ``response`` only, so a0
    is saved with the reply (Breakwater's checker there: memory empty, output ``[a0]``)."""
    from guardspec.model.messages import Source
    from guardspec.model.processors import AddMessages, ClearInput, RemoveByIds, SameList

    history = stored(user("u0", "hi", 1), assistant("a0", "let me check", tool("tc1", "call", args=obj(q=1)), created_at=2))
    caller = assistant("a0", tool("tc1", "result", result=obj(city="Paris"), args=obj(q=1)), created_at=2)
    literal = assistant("a0", "let me check", tool("tc1", "call", args=obj(q=1)), created_at=2)
    p1 = Processor("p1", steps=(ClearInput(), RemoveByIds(("a0",)), AddMessages((literal,), Source.INPUT, merge=False)), end=Return(SameList()))
    obs = run(scenario(caller, threads=history, processors=(p1,), loop=Loop.DURABLE, reply="reply-0"), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    saved = stored_message(obs, "a0")
    assert saved.text().endswith("reply-0")
