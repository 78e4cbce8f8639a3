"""G6 Outcome classes (S4): return, own abort or TripWire, and everything else."""

import pytest
from conftest import LOOPS, events, prompt_lines, scenario

from guardspec.model.agent import Allow
from guardspec.model.messages import user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import (
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    ArrayOf,
    EditText,
    OtherList,
    Primitive,
    Processor,
    Return,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run


def _run(end, loop=None, **kw):
    extra = {"loop": loop} if loop else {}
    return run(
        scenario(user("u1", "hi", 10), processors=(Processor("proc", end=end),), policies=(Allow("all"),), **extra, **kw), Mode.GUARDED
    )


def test_g6_normal_return_is_applied():
    obs = _run(Return(ArrayOf(edits=(EditText("u1", "hi, edited"),))))
    assert isinstance(obs.outcome, Answered)
    assert "user: hi, edited" in prompt_lines(obs)


@pytest.mark.parametrize("loop", LOOPS)
def test_g6_own_abort_refuses_with_its_reason_and_no_processor_event(loop):
    obs = _run(Abort("not allowed here"), loop)
    assert obs.outcome == Refused("not allowed here", "proc")
    assert events(obs, "agent.input.processor") == []
    assert events(obs, "agent.input.policy") == []


@pytest.mark.parametrize("loop", LOOPS)
def test_g6_thrown_tripwire_refuses_with_its_reason_and_no_processor_event(loop):
    obs = _run(ThrowTripWire("tripped"), loop)
    assert isinstance(obs.outcome, Refused)
    assert obs.outcome.reason == "tripped"
    assert events(obs, "agent.input.processor") == []


FAILURES = [
    Throw("boom"),
    AbortThenThrow("aborted", "then thrown"),
    AbortFinallyThrow("aborted", "finally thrown"),
    Return(OtherList()),
    Return(Primitive(1)),
]


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("end", FAILURES)
def test_g6_other_throw_or_unappliable_value_is_refused_as_processor_failure(end, loop):
    obs = _run(end, loop)
    assert obs.outcome == Refused("input processor failed", "proc")
    (e,) = events(obs, "agent.input.processor")
    assert (e.decision, e.reason, dict(e.detail)) == ("error", "input processor failed", {"processor": "proc"})


@pytest.mark.parametrize("end", FAILURES)
def test_g6_failure_has_no_policy_event_and_no_model_call(end):
    obs = _run(end)
    assert events(obs, "agent.input.policy") == []
    assert obs.prompts == ()


@pytest.mark.parametrize("loop, pid", [(Loop.GENERATE, "bot-input-processor"), (Loop.STREAM, "bot-input-processor"), (Loop.DURABLE, "")])
def test_g6_own_tripwire_is_rethrown_and_named_by_mastra(loop, pid):
    """G6.1: a TripWire the processor built is named <agent id>-input-processor on generate and stream, "" on durable."""
    # Breakwater agent/index.ts guardInputProcessor rethrows a TripWire the processor built
    # itself; Mastra's runner names it (measured; Evidence: G6.1).
    obs = run(
        scenario(user("u1", "hi", 10), loop=loop, id="bot", processors=(Processor("own", end=ThrowTripWire("tripped")),)), Mode.GUARDED
    )
    assert obs.outcome == Refused("tripped", pid)


@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.DURABLE])
def test_g6_abort_still_names_the_processor(loop):
    """G6.1: an abort names the processor."""
    obs = run(scenario(user("u1", "hi", 10), loop=loop, processors=(Processor("own", end=Abort("no")),)), Mode.GUARDED)
    assert obs.outcome == Refused("no", "own")


@pytest.mark.parametrize("loop", LOOPS)
def test_g6_a_list_operation_that_throws_is_a_processor_failure(loop):
    """G6.2: an add Mastra refuses inside the processor is a failure, with one processor event."""
    from guardspec.model.processors import AddMessages, Processor

    elsewhere = user("x2", "elsewhere", 20, thread_id="other-thread")
    proc = Processor("proc", steps=(AddMessages((elsewhere,)),))
    obs = run(scenario(user("u1", "hi", 10), memory=True, loop=loop, processors=(proc,)), Mode.GUARDED)
    assert obs.outcome == Refused("input processor failed", "proc")
    assert len(events(obs, "agent.input.processor")) == 1
    assert obs.prompts == ()


def test_g6_the_removal_after_a_throwing_operation_starts_from_the_list_as_the_throw_left_it():
    """G6.2: what the processor did before the throwing operation stands: a removed history message stays off the list."""
    from conftest import stored

    from guardspec.model.processors import AddMessages, AddSystem, Processor, RemoveByIds

    elsewhere = user("x2", "elsewhere", 21, thread_id="other-thread")
    proc = Processor("proc", steps=(RemoveByIds(("h1",)), AddSystem("ADDED"), AddMessages((elsewhere,))))
    obs = run(scenario(user("u1", "hi", 10), threads=stored(user("h1", "old", 5)), processors=(proc,)), Mode.GUARDED)
    assert obs.outcome == Refused("input processor failed", "proc")
    assert [lm.message.id for lm in obs.list.messages] == []
    assert "ADDED" in [s.content for s in obs.list.untagged]
    assert [m.id for m in obs.stored] == ["h1"]  # the thread itself is untouched (G14)
