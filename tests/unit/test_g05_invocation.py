"""G5 Invocation: once per call, on the initial input, seeing the whole list on every loop."""

import pytest
from conftest import LOOPS, events, list_sources, prompt_lines, scenario, stored, stored_ids
from raw_json import HUMAN_OPERATOR, LOOP_NAMES, MAPPED_RESULT_A0

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation
from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import Message, Source, SystemMessage, TextPart, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import (
    AddMessages,
    AddSystem,
    ArrayOf,
    ObjectOf,
    Primitive,
    Processor,
    RemoveByIds,
    ReplaceAllSystem,
    Return,
)
from guardspec.model.scenario import Loop, Mode
from guardspec.model.values import obj
from guardspec.reference import run

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
        # a guarded generate/stream call takes no context option (G1.1): durable only
        context=(user("c1", "ctx", 20),) if loop is Loop.DURABLE else (),
        loop=loop,
        processors=(Processor("p", end=EMPTY),),
    )
    obs = run(sc, Mode.GUARDED)
    assert not any(isinstance(e, Message) for e in obs.prompts[0])


def test_g5_later_processor_receives_the_list_not_its_predecessors_received_messages():
    """G5.1: the guard returns the list, so each later processor receives the list's arrays afresh."""
    # Unlike the raw runner (M7): p2 receives the context message and p1's addition (on
    # durable: a guarded generate/stream call takes no context option, G1.1).
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


# The processor's ``messages`` and ``systemMessages`` are the list's own arrays
# (G5.1, Evidence: G5.1): Breakwater hands it ``get.all.db()`` and Mastra's
# ``getSystemMessages()``, so what it adds in place shows in them until an operation replaces
# an array; G7 then applies what the returned array holds.

RECEIVED = Return(ArrayOf(base="received"))
RECEIVED_OBJECT = Return(ObjectOf(ArrayOf(base="received"), "received"))


def _memory_add_then_return(loop, steps_before=()):
    return scenario(
        user("u1", "hi", 30),
        threads=stored(user("h1", "old", 10)),
        loop=loop,
        processors=(Processor("p", steps=steps_before + (AddMessages((user("n2", "noted", 20),), Source.MEMORY),), end=RECEIVED),),
    )


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_a_message_added_in_place_as_memory_is_in_the_returned_received_array_and_becomes_input(loop):
    """G5.1, G7.3: an in-place add shows in the received array, which re-adds it under input."""
    # The received array held ``n2`` when it was returned; G7 re-adds each entry under the
    # source it had before the processor ran, and ``n2`` had none: it is call input, so it is
    # saved with the caller's message and is no remembered message.
    obs = run(_memory_add_then_return(loop), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    assert "n2" in stored_ids(obs)
    if loop is not Loop.DURABLE:
        assert list_sources(obs)["n2"] == {"input"}
        assert "n2" not in obs.result.remembered


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_an_array_replaced_by_remove_keeps_what_it_held_so_the_memory_add_stays_memory(loop):
    """G5.1: after removeByIds gives the list a new array, the received array does not show a later add."""
    # ``removeByIds`` replaces the list's array before the add: the received array no longer
    # shows ``n2``, which keeps its memory source and is not saved.
    obs = run(_memory_add_then_return(loop, (RemoveByIds(("nothing-by-this-id",)),)), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    assert "n2" not in stored_ids(obs)
    if loop is not Loop.DURABLE:
        assert list_sources(obs)["n2"] == {"memory"}


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_a_system_message_added_in_place_survives_returning_the_received_system_messages(loop):
    """G5.1, G7.5: the received system array is the list's bucket; returned, it keeps an in-place addition."""
    # ``systemMessages: received`` is the bucket itself, the added message in it: it stays,
    # is read by the policies (G12) and refuses the call here.
    sc = scenario(
        user("u1", "hi", 30),
        loop=loop,
        policies=(DenyPatterns("no-marker", ("MARKER",)),),
        processors=(Processor("p", steps=(AddSystem("sys MARKER"),), end=RECEIVED_OBJECT),),
    )
    obs = run(sc, Mode.GUARDED)
    assert obs.outcome == Refused("policy 'no-marker' denied the input", "breakwater-policy-engine")
    assert "sys MARKER" in obs.read.split("\n")


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_a_bucket_replaced_in_a_step_is_not_the_received_system_messages(loop):
    """G5.1, G7.5: after replaceAllSystemMessages the received system array is no longer the list's bucket."""
    # ``replaceAllSystemMessages`` gives the list a new bucket; the received one keeps the
    # instructions alone, and returning it puts them back: neither replacement nor addition is
    # sent.
    sc = scenario(
        user("u1", "hi", 30),
        loop=loop,
        processors=(Processor("p", steps=(ReplaceAllSystem((SystemMessage("other"),)), AddSystem("added")), end=RECEIVED_OBJECT),),
    )
    obs = run(sc, Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    system = [line for line in prompt_lines(obs) if line.startswith("system: ")]
    assert system == [f"system: {sc.agent.instructions}"]


@pytest.mark.parametrize("loop", LOOPS)
def test_g5_a_system_entry_added_as_input_is_read_with_its_provider_options(loop):
    """G12.4, G12.5: a system entry's provider options are read through the closed table: a non-object namespace is not classified."""
    # Mastra's ``add`` puts a system-role entry in the untagged bucket; returned there, its
    # provider options are read through the closed table (G12.5), and a namespace that is not an
    # object is not classified (seed 8413 cases 35-38).
    entry = SystemMessage((TextPart("a"), TextPart("b")), provider_options=obj(note="x"))
    sc = scenario(
        user("u1", "hi", 30),
        loop=loop,
        policies=(DenyPatterns("no-marker", ("MARKER",)),),
        processors=(Processor("p", steps=(AddMessages((entry,), Source.INPUT),), end=RECEIVED_OBJECT),),
    )
    obs = run(sc, Mode.GUARDED)
    assert obs.outcome == Refused("input message content is not classified", "breakwater-policy-engine")
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason) == ("error", "input message content is not classified")


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# the same shapes on the guarded path, a caller message c1 [text "hi"] added (Breakwater 0.17.0 build,
# each loop, memory on and off, copy shallow/none/deep, the edit on a0, n2 or
# none: 54 runs agree with the model after M2.10, 32 disagreed before): the edit is sent in both
# messages, and Breakwater's policy engine reads it
# evidence: G5.2
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize("target", ["a0", "n2"])
def test_under_the_guard_a_shared_edit_is_sent_in_both_messages_and_read(loop, target):
    """G5.2: under the guard an edit of shared content is sent in both messages and the policies read it."""
    from guardspec.model.codec import scenario_from_json
    from guardspec.properties.harness import check_call, execute

    array = {"base": "list", "copy": "shallow", "drop": [], "edits": [{"setId": {"id": "a0", "newId": "n2"}}], "append": []}
    processors = [
        {
            "id": "p2",
            "hooks": ["processInput"],
            "steps": [{"op": "add", "entries": [MAPPED_RESULT_A0], "source": "context", "merge": False}],
            "end": {"return": {"array": array}},
        },
        {"id": "p3", "hooks": ["processInput"], "steps": [{"op": "editMessage", "id": target, "text": "E"}], "end": {"return": "sameList"}},
    ]
    call = {
        "loop": loop,
        "actor": HUMAN_OPERATOR,
        "reply": "reply-0",
        "memory": {"thread": "t1", "resource": "r1"},
        "messages": [{"id": "c1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}],
    }
    sj = {
        "guardspec": 1,
        "agent": {
            "allowedPrincipalKinds": ["human"],
            "memory": {"generateTitle": False},
            "processors": processors,
            "clientTools": [{"name": "lookup", "mapping": {"kind": "text", "prefix": "mapped:"}}],
        },
        "call": call,
    }
    o = normalise_observation(model_observation(sj, "guarded"), sj)
    assert o["outcome"] == {"kind": "answered"}
    sent = [p.get("text") for m in o["prompts"][0] if m["role"] == "assistant" for p in m["parts"]]
    assert sent.count("E") == 2
    ex = execute(scenario_from_json(sj), "guarded")
    assert "E" in ex.read.split("\n")
    assert not any(check_call(ex).values())
