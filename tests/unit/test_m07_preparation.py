"""M7 Preparation: instructions, caller input, Mastra's memory input filter, history, and
what the application processors receive (raw runner)."""

import pytest
from conftest import list_sources, prompt_lines, scenario, stored, stored_ids
from raw_json import OPERATOR, message, observe, observe_with_memory

from guardspec.conformance.cases import model_observation
from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import assistant, user
from guardspec.model.processors import AddMessages, ArrayOf, Primitive, Processor, Return, SameList
from guardspec.model.scenario import Mode
from guardspec.reference import preparation, run

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
    # Measured (Evidence: M7.2): a caller's stored-format system message
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


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# evidence: M7.1
@pytest.mark.parametrize(
    "loop, binding, outcome, stored",
    [
        ("generate", ("", ""), "answered", 0),
        ("stream", ("", ""), "answered", 0),
        ("durable", ("", ""), "answered", 0),
        ("generate", ("", "r1"), "failed", 0),
        ("stream", ("", "r1"), "failed", 0),
        ("durable", ("", "r1"), "answered", 0),
        ("generate", ("t1", ""), "failed", 0),
        ("durable", ("t1", ""), "answered", 2),
    ],
)
def test_an_empty_thread_or_resource_id_is_no_id(loop, binding, outcome, stored):
    """M7.1: an empty thread or resource id counts as none: both empty is unbound, one empty fails generate and stream."""
    # probe k-empty-thread-id: both empty → unbound, nothing stored; one empty → generate/stream
    # fail ("A resourceId and a threadId must be provided when using Memory"), durable answers
    # and saves only with a thread id (its messages without resourceId)
    sj = {
        "guardspec": 1,
        "agent": {"processors": [], "memory": {"generateTitle": False}},
        "call": {"actor": OPERATOR, "loop": loop, "messages": ["hi"], "memory": {"thread": binding[0], "resource": binding[1]}},
    }
    o = model_observation(sj, "raw")
    assert o["outcome"]["kind"] == outcome
    assert len(o["stored"]) == stored
    assert all("resourceId" not in m for m in o["stored"])


def _arr(base="received", copy="none", append=(), drop=()):
    return {"array": {"base": base, "copy": copy, "drop": list(drop), "edits": [], "append": list(append)}}


def _ret(pid, ret):
    return {"id": pid, "steps": [], "end": {"return": ret}}


NOTE33 = {"value": "note-33"}


C00 = message("c00", "user", 10, [{"type": "text", "text": "note-22"}])


def _user_texts(messages):
    return [m["parts"][0]["text"] for m in messages if m["role"] == "user"]


# adapter runs (caller c00 "note-22", memory on, thread t1), each loop:
# real Mastra stored the string once more for each later processor that returned its received
# array, each copy a user message with its own generated id
# evidence: M7.6
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
@pytest.mark.parametrize(
    "processors, copies",
    [
        # V1: p1 appends "note-33", p2 and p3 return their received arrays: 3 copies
        ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr()), _ret("p3", _arr())], 3),
        # V1b: one later return: 2 copies
        ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr())], 2),
        # V1c: p2 appends, p3 returns its received array (a shrunk scenario): 2 copies
        ([_ret("p1", _arr()), _ret("p2", _arr(append=[NOTE33])), _ret("p3", _arr())], 2),
        # V4: p2 returns {messages: received, systemMessages: received}: 3 copies
        (
            [
                _ret("p1", _arr(append=[NOTE33])),
                _ret("p2", {"object": {"messages": _arr(), "systemMessages": "received"}}),
                _ret("p3", _arr()),
            ],
            3,
        ),
        # V6: p2 returns undefined (p3 gets p2's own array, the one p1 returned): 2 copies
        ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", {"primitive": {"$undefined": True}}), _ret("p3", _arr())], 2),
        # V2d: p2's deep copy keeps the string a string: 3 copies
        ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr(copy="deep")), _ret("p3", _arr())], 3),
        # V2: p2 returns a fresh array of the list's messages: 1 copy
        ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr(base="list")), _ret("p3", _arr())], 1),
        # V5: p2 returns the list: 1 copy
        ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", "sameList"), _ret("p3", _arr())], 1),
    ],
)
def test_a_returned_string_is_added_again_by_each_later_return_of_it(loop, processors, copies):
    """M7.6: a string a processor returns is added as a new user message again by each later processor that returns it."""
    o = observe_with_memory(loop, [C00], processors=processors)
    assert o["outcome"] == {"kind": "answered"}
    assert _user_texts(o["stored"]) == ["note-22"] + ["note-33"] * copies
    assert len({m["id"] for m in o["stored"]}) == len(o["stored"])


# evidence: M7.6
def test_the_list_shows_every_copy_of_a_returned_string_under_input():
    """M7.6: every copy of a returned string is listed as a user message under input."""
    # V1, generate, no memory: impl list [c00, note-33 x3 (input), reply (response)]
    procs = [_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr()), _ret("p3", _arr())]
    o = observe(procs, messages=[C00])
    assert [(m["message"]["role"], m["sources"]) for m in o["list"]["messages"]] == [("user", ["input"])] * 4 + [
        ("assistant", ["response"])
    ]


# evidence: M7.6
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_an_appended_message_object_is_not_added_again(loop):
    """M7.6: a message object a processor appends is added once, however often it is returned again."""
    # V3: p1 appends n1 (an object), p2 and p3 return their received arrays: stored [n1, c00, reply]
    n1 = message("n1", "user", 5, [{"type": "text", "text": "note-11"}])
    procs = [_ret("p1", _arr(append=[n1])), _ret("p2", _arr()), _ret("p3", _arr())]
    o = observe_with_memory(loop, [C00], processors=procs)
    assert [m["id"] for m in o["stored"]][:2] == ["n1", "c00"] and len(o["stored"]) == 3


# evidence: M7.6
@pytest.mark.parametrize("value, added", [(NOTE33, 1), ({"value": ""}, 0), ({"value": ["note-40"]}, 1), ({"value": 0}, 0)])
@pytest.mark.parametrize(
    "loop, outcome",
    [
        ("generate", {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}),
        ("stream", {"kind": "failed", "error": "AGENT_STREAM_FAILED"}),
        ("durable", {"kind": "answered"}),
    ],
)
def test_a_shallow_copy_of_a_handed_on_string_is_no_message(value, added, loop, outcome):
    """M7.6: a shallow copy of a handed-on string is an object of its characters, which add refuses."""
    # V2c, V11-V13: p2 returns `received.map(m => ({...m}))`: the string (or "", an array, 0) is
    # an object of its indexed characters, which `add` refuses: generate and stream fail, the
    # durable loop answers with what p1 added (stored [c00, <added>, reply])
    procs = [_ret("p1", _arr(append=[value])), _ret("p2", _arr(copy="shallow")), _ret("p3", _arr())]
    o = observe_with_memory(loop, [C00], processors=procs)
    assert o["outcome"] == outcome
    assert len(o["stored"]) == (0 if loop != "durable" else 2 + added)
    if loop != "durable":
        assert len(o["list"]["messages"]) == 1 + added
