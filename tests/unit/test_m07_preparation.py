"""M7 Preparation: instructions, caller input, Mastra's memory input filter, history, and
what the application processors receive (raw runner)."""

import pytest

from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import Source, assistant, user
from guardspec.model.processors import AddMessages, ArrayOf, Primitive, Processor, Return, SameList
from guardspec.model.scenario import Call, Mode
from guardspec.reference import preparation, run

from conftest import list_sources, prompt_lines, scenario, stored, stored_ids

EMPTY = Return(ArrayOf(base="empty"))


def test_m7_instructions_go_to_the_untagged_bucket():
    sc = scenario(user("u1", "hi", 10), instructions="Be a guard.")
    lst = preparation.new_list(sc.agent, sc.call)
    assert [s.content for s in lst.untagged] == ["Be a guard."]
    assert lst.tagged == ()


def test_m7_caller_messages_are_added_as_input():
    obs = run(scenario(user("u1", "hi", 10), user("u2", "there", 11)), Mode.RAW)
    srcs = list_sources(obs)
    assert srcs["u1"] == {"input"} and srcs["u2"] == {"input"}


def test_m7_history_is_loaded_as_memory():
    obs = run(scenario(user("u2", "new", 30), threads=stored(user("h1", "old", 10))), Mode.RAW)
    assert list_sources(obs)["h1"] == {"memory"}
    assert prompt_lines(obs)[1:3] == ["user: old", "user: new"]


def _echo_scenario(mode_policies=()):
    """Stored [h1, a1]; the caller resends h1 and a1, plus x1 before a1 and u2 after it."""
    threads = stored(user("h1", "old question", 10), assistant("a1", "old answer", created_at=20))
    return scenario(
        user("h1", "old question", 10),
        user("x1", "forbidden words", 15),
        assistant("a1", "old answer", created_at=20),
        user("u2", "new question", 30),
        threads=threads,
        policies=mode_policies,
    )


def test_m7_memory_filter_keeps_only_user_messages_after_the_last_assistant():
    """M7.4: input ending with user messages keeps those after the last assistant."""
    obs = run(_echo_scenario(), Mode.RAW)
    srcs = list_sources(obs)
    assert srcs["u2"] == {"input"}
    assert "x1" not in srcs
    assert srcs["h1"] == {"memory"} and srcs["a1"] == {"memory"}


@pytest.mark.parametrize("mode", [Mode.RAW, Mode.GUARDED])
def test_m7_what_the_filter_drops_never_reaches_any_gate(mode):
    obs = run(_echo_scenario((DenyPatterns("words", ("forbidden",)),)), mode)
    assert obs.outcome.__class__.__name__ == "Answered"
    assert not any("forbidden" in line for line in prompt_lines(obs))
    assert "x1" not in stored_ids(obs)
    assert obs.read is None or "forbidden" not in obs.read


def test_m7_thread_without_stored_rows_keeps_the_whole_input():
    """M7.4: a thread with no stored messages keeps all its input."""
    sc = scenario(user("x1", "a", 15), assistant("a0", "b", created_at=20), user("u2", "c", 30), memory=True)
    obs = run(sc, Mode.RAW)
    assert stored_ids(obs) == ["x1", "a0", "u2", "reply-1"]


def test_m7_with_memory_the_processor_receives_history_context_and_input():
    """M7.5: with memory the first processor receives the list's own array, history and context included."""
    sc = scenario(
        user("u1", "hi", 30),
        threads=stored(user("h1", "old", 10)),
        context=(user("c1", "ctx", 20),),
        processors=(Processor("p", end=EMPTY),),
    )
    obs = run(sc, Mode.RAW)
    assert obs.list.messages == () or [lm.message.id for lm in obs.list.messages] == ["reply-1"]


def test_m7_without_memory_the_first_processor_receives_only_the_input():
    """M7.5: without memory the first processor receives the input messages only."""
    sc = scenario(user("u1", "hi", 30), context=(user("c1", "ctx", 20),), processors=(Processor("p", end=EMPTY),))
    obs = run(sc, Mode.RAW)
    assert set(list_sources(obs)) == {"c1", "reply-1"}


def _two(first_end, first_steps=()):
    return scenario(
        user("u1", "hi", 30),
        context=(user("c1", "ctx", 20),),
        processors=(Processor("p1", steps=first_steps, end=first_end), Processor("p2", end=EMPTY)),
    )


ADD_N1 = (AddMessages((user("n1", "added", 40),)),)


def test_m7_raw_later_processor_receives_the_list_when_predecessor_returned_it():
    """M7.6: after a returned list the next processor receives the list's own arrays."""
    obs = run(_two(Return(SameList()), ADD_N1), Mode.RAW)
    assert set(list_sources(obs)) == {"reply-1"}


def test_m7_raw_later_processor_receives_the_predecessors_array():
    """M7.6: after a returned array the next processor receives that very array."""
    obs = run(_two(Return(ArrayOf(append=(user("z1", "from array", 35),))), ADD_N1), Mode.RAW)
    # p2 received [u1, z1]: both removed; c1 and n1 were not in p2's messages
    assert set(list_sources(obs)) == {"c1", "n1", "reply-1"}


def test_m7_raw_later_processor_receives_what_its_predecessor_received_otherwise():
    """M7.6: after any other return the next processor receives its predecessor's arrays."""
    obs = run(_two(Return(Primitive()), ADD_N1), Mode.RAW)
    assert set(list_sources(obs)) == {"c1", "n1", "reply-1"}


@pytest.mark.parametrize(
    "loop, error",
    [("generate", "AGENT_GENERATE_FAILED"), ("stream", "AGENT_STREAM_FAILED"), ("durable", "INVALID_SYSTEM_MESSAGE_FORMAT")],
)
def test_m7_a_caller_message_the_list_refuses_fails_the_call(loop, error):
    """M7.2, M2.8: a refused caller message fails generate and stream with their own id, durable with the list's."""
    # Measured (docs/mastra-measurements.md §k): a caller's stored-format system message
    # (parts only) makes ``add`` throw INVALID_SYSTEM_MESSAGE_FORMAT at preparation;
    # generate/stream reject with their own error id, the durable loop reports Mastra's id.
    from guardspec.model.messages import Message, Role, TextPart
    from guardspec.model.observation import Failed
    from guardspec.model.scenario import Loop

    sysmsg = Message("s1", Role.SYSTEM, parts=(TextPart("note-00"),), created_at=12)
    obs = run(scenario("note-00", sysmsg, loop=Loop(loop)), Mode.RAW)
    assert obs.outcome == Failed(error)
    assert obs.prompts == ()


def test_m7_the_bound_thread_is_created_before_the_processors_even_when_the_call_is_refused():
    """M7.3: with memory and a thread id, a new thread is created and saved before any processor runs."""
    from guardspec.model.processors import Abort
    from guardspec.reference import run_call

    sc = scenario(user("u1", "hi", 30), memory=True, processors=(Processor("p", end=Abort("no")),))
    assert sc.threads.get("t1") is None
    after = run_call(sc, Mode.RAW).threads.get("t1")
    assert after is not None and after.messages == ()  # the tripwire saved nothing (M9), the thread stands
