"""G5 Invocation: once per call, on the initial input, seeing the whole list on every loop."""

import pytest

from guardspec.model.messages import Message, user
from guardspec.model.observation import Answered
from guardspec.model.processors import AddMessages, ArrayOf, Primitive, Processor, Return
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run

from conftest import LOOPS, list_sources, prompt_lines, scenario, stored

EMPTY = Return(ArrayOf(base="empty"))


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_processor_runs_exactly_once_per_call(loop):
    obs = run(scenario(user("u1", "hi", 10), loop=loop, processors=(Processor("p", steps=(AddMessages(("added once",)),)),)), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    assert prompt_lines(obs).count("user: added once") == 1


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_processor_receives_history_context_and_input_on_every_loop(loop):
    sc = scenario(
        user("u1", "hi", 30),
        threads=stored(user("h1", "old", 10)),
        # a guarded generate/stream call takes no context option (G1, §6): durable only
        context=(user("c1", "ctx", 20),) if loop is Loop.DURABLE else (),
        loop=loop,
        processors=(Processor("p", end=EMPTY),),
    )
    obs = run(sc, Mode.GUARDED)
    assert not any(isinstance(e, Message) for e in obs.prompts[0])


def test_g5_later_processor_receives_the_list_not_its_predecessors_received_messages():
    """Unlike the raw runner (M7): p2 receives the context message and p1's addition (on
    durable: a guarded generate/stream call takes no context option, G1 §6)."""
    sc = scenario(
        user("u1", "hi", 30),
        context=(user("c1", "ctx", 20),),
        loop=Loop.DURABLE,
        processors=(
            Processor("p1", steps=(AddMessages((user("n1", "added", 40),)),), end=Return(Primitive())),
            Processor("p2", end=EMPTY),
        ),
    )
    guarded = run(sc, Mode.GUARDED)
    assert set(list_sources(guarded)) == {"reply-1"}
    raw = run(sc, Mode.RAW)
    assert {"c1", "n1"} <= set(list_sources(raw))


def test_g5_processor_sees_the_initial_input_before_any_model_step():
    obs = run(scenario(user("u1", "hi", 30), processors=(Processor("p", end=EMPTY),), reply="answer"), Mode.GUARDED)
    # the reply is added after the processors ran, so they could not remove it
    assert list_sources(obs) == {"reply-1": {"response"}}
