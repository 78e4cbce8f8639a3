"""M8 Raw processor runner: how Mastra's workflow step applies a processor's return value."""

import pytest
from conftest import list_sources, prompt_lines, scenario, stored, stored_message, tool, tool_parts
from raw_json import HUMAN_OPERATOR, NOTE_PART, message, observe

from guardspec.conformance.cases import model_observation
from guardspec.model.messages import Message, Role, SystemMessage, TextPart, assistant, user
from guardspec.model.observation import Answered, Failed, Refused
from guardspec.model.processors import (
    Abort,
    AddMessages,
    ArrayOf,
    EditText,
    ObjectOf,
    OtherList,
    Primitive,
    Processor,
    Return,
    SameList,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Mode
from guardspec.model.values import Accessor, BigInt
from guardspec.reference import run


def raw(*procs, messages=(user("u1", "hi", 30),), **kw):
    return run(scenario(*messages, processors=procs, **kw), Mode.RAW)


def test_m8_same_list_returned_keeps_in_place_mutations():
    """M8.2: returning the list itself changes nothing more; in-place additions stay."""
    obs = raw(Processor("p", steps=(AddMessages((user("n1", "added", 40),)),), end=Return(SameList())))
    assert isinstance(obs.outcome, Answered)
    assert list_sources(obs)["n1"] == {"input"}


def test_m8_different_list_returned_fails_the_run():
    """M8.2: returning a different list fails the run."""
    obs = raw(Processor("p", end=Return(OtherList())))
    assert isinstance(obs.outcome, Failed)
    assert obs.prompts == ()


def test_m8_array_missing_a_received_id_removes_it():
    """M8.3: a received id missing from the returned array is removed."""
    obs = raw(
        Processor("p", end=Return(ArrayOf(drop=("h1",)))),
        messages=(user("u1", "hi", 30),),
        threads=stored(user("h1", "old", 10)),
    )
    assert "h1" not in list_sources(obs)
    assert "user: old" not in prompt_lines(obs)


def test_m8_returned_copy_is_re_added_under_its_checker_source():
    """M8.3: a returned copy is re-added under the source the checker names."""
    obs = raw(
        Processor("p", end=Return(ArrayOf(edits=(EditText("h1", "old, edited"),)))),
        threads=stored(user("h1", "old", 10)),
    )
    assert list_sources(obs)["h1"] == {"memory"}
    assert "user: old, edited" in prompt_lines(obs)


def test_m8_new_returned_message_is_added_as_input():
    """M8.3: a returned message the checker does not name is added as input."""
    obs = raw(Processor("p", end=Return(ArrayOf(append=(user("n1", "new", 40),)))))
    assert list_sources(obs)["n1"] == {"input"}


def test_m8_returned_assistant_is_re_added_with_merge_off():
    """M8.3: a returned assistant is re-added with merge off, so it stays a message of its own."""
    obs = raw(
        Processor("p", end=Return(ArrayOf(append=(assistant("a9", "appended", created_at=50),)))),
        messages=(assistant("a0", "caller", created_at=30),),
    )
    srcs = list_sources(obs)
    assert "a0" in srcs and "a9" in srcs


def test_m8_system_role_entry_is_added_as_untagged_system_text():
    """M8.4: a stored-format system entry adds its parts' texts joined by newlines."""
    sysmsg = Message("s1", Role.SYSTEM, parts=(TextPart("line one"), TextPart("line two")))
    obs = raw(Processor("p", end=Return(ArrayOf(append=(sysmsg,)))))
    assert [s.content for s in obs.list.untagged][-1] == "line one\nline two"
    assert "s1" not in list_sources(obs)


# raw runs: a returned array appending {role: 'system', content: <getter 'be brief'>}: nothing is
# added; with a throwing content getter: AGENT_GENERATE_FAILED
# evidence: M8.4
def test_m8_a_system_entrys_content_getter_is_read_and_one_that_throws_fails_the_call():
    """M8.4: ``content.content`` reads a system entry's content getter: an AI SDK entry adds nothing, a throwing getter fails the call."""
    obs = raw(Processor("p", end=Return(ArrayOf(append=(SystemMessage(Accessor("g", "be brief")),)))))
    assert isinstance(obs.outcome, Answered)
    assert [s.content for s in obs.list.untagged] == ["You are a guarded agent."]
    obs = raw(Processor("p", end=Return(ArrayOf(append=(SystemMessage(Accessor("g", throws=True)),)))))
    assert obs.outcome == Failed("AGENT_GENERATE_FAILED")


def test_m8_object_applies_messages_then_replaces_the_untagged_bucket():
    """M8.2: an object's messages are applied, then its systemMessages replace the untagged bucket."""
    # M8.2: in the workflow path a system entry in ``messages`` is overwritten by
    # the replace.
    value = ObjectOf(
        messages=ArrayOf(append=(SystemMessage("FROM ARRAY"), user("n1", "new", 40))), system_messages=(SystemMessage("REPLACED"),)
    )
    obs = raw(Processor("p", end=Return(value)))
    assert [s.content for s in obs.list.untagged] == ["REPLACED"]
    assert list_sources(obs)["n1"] == {"input"}


@pytest.mark.parametrize(
    "value", [Primitive(), Primitive(None), Primitive(0), Primitive(""), Primitive(False), Primitive(BigInt(0)), Primitive(-0.0)]
)
def test_m8_falsy_primitive_changes_nothing(value):
    """M8.2: a falsy return passes the messages through."""
    obs = raw(Processor("p", end=Return(value)))
    assert isinstance(obs.outcome, Answered)
    assert prompt_lines(obs) == ["system: You are a guarded agent.", "user: hi"]


@pytest.mark.parametrize("value", [Primitive("note-34"), Primitive(1), Primitive(True), Primitive(BigInt(1))])
def test_m8_truthy_primitive_fails_the_call(value):
    """M8.2: a truthy primitive return throws, and the later processor never runs."""
    # Measured (Evidence: M8.2): ``result && "messages" in result`` throws a
    # TypeError for a truthy primitive; generate rejects, and the later processor never runs.
    obs = raw(Processor("p1", end=Return(value)), Processor("p2", end=Abort("never reached")))
    assert obs.outcome == Failed("AGENT_GENERATE_FAILED")
    assert obs.prompts == ()


def test_m8_abort_stops_the_chain_with_a_tripwire_from_that_processor():
    """M8.7: an abort stops the chain with a tripwire naming the processor."""
    obs = raw(Processor("p1", end=Abort("no thanks")), Processor("p2", steps=(AddMessages((user("n2", "late", 40),)),)))
    assert obs.outcome == Refused("no thanks", "p1")
    assert "n2" not in list_sources(obs)


def test_m8_thrown_tripwire_is_reported_under_the_workflow_id():
    """M8.7: a TripWire thrown without a processor id is named <agent id>-input-processor."""
    # M8.7: a bare TripWire reports processorId "<agent>-input-processor".
    obs = raw(Processor("p1", end=ThrowTripWire("tw")))
    assert obs.outcome == Refused("tw", "agent-input-processor")


def test_m8_any_other_throw_fails_the_run():
    obs = raw(Processor("p1", end=Throw("boom")), Processor("p2", steps=(AddMessages((user("n2", "late", 40),)),)))
    assert isinstance(obs.outcome, Failed)


def _fold_scenario(end):
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    # u2 after a1 keeps the reply from merging into a1 (M4), which would move it to response
    return scenario(caller, user("u2", "thanks", 3000), threads=threads, processors=(Processor("p", end=end),))


def test_m8_memory_plus_input_message_returned_as_copy_comes_back_memory_only():
    """M8.3: a returned copy of a memory+input message is re-added as memory alone."""
    obs = run(_fold_scenario(Return(ArrayOf(copy="deep"))), Mode.RAW)
    assert list_sources(obs)["a1"] == {"memory"}
    # the client result is then lost; storage keeps ``call``
    assert tool_parts(stored_message(obs, "a1"))[0].state.value == "call"


def test_m8_memory_plus_input_message_returned_as_itself_stays_both():
    """M8.3: the very object the list holds is not re-added, so it stays memory and input."""
    obs = run(_fold_scenario(Return(ArrayOf())), Mode.RAW)
    assert tool_parts(stored_message(obs, "a1"))[0].state.value == "result"


def test_m8_object_with_null_system_messages_empties_the_bucket_then_fails():
    """M8.6: a null systemMessages throws after the untagged bucket was emptied."""
    # Measured (Evidence: M8.6): ``replaceAllSystemMessages(null)``
    # empties the untagged bucket before ``for (… of null)`` throws.
    obs = raw(Processor("p1", end=Return(ObjectOf(messages=ArrayOf(base="received"), system_messages=None))))
    assert obs.outcome == Failed("AGENT_GENERATE_FAILED")
    assert obs.list.untagged == ()


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# evidence: M8.5
def test_a_string_among_returned_messages_is_added_as_an_input_user_message():
    """M8.5: a string in a processor's returned messages becomes a new user message under input."""
    # adapter run: `{messages: [...list, "note-33"], systemMessages}`: impl lists a user
    # message "note-33" under `input` and goes on
    ret = {
        "object": {
            "messages": {"array": {"base": "list", "copy": "shallow", "drop": [], "edits": [], "append": [{"value": "note-33"}]}},
            "systemMessages": "received",
            "proto": None,
        }
    }
    o = observe([{"id": "p1", "steps": [], "end": {"return": ret}}], messages=["hi"])
    assert o["outcome"] == {"kind": "answered"}
    users = [(m["message"]["parts"][0]["text"], m["sources"]) for m in o["list"]["messages"] if m["message"]["role"] == "user"]
    assert users == [("hi", ["input"]), ("note-33", ["input"])]


# evidence: M8.1
def test_a_processor_without_process_input_is_not_run():
    """M8.1: a processor without a processInput hook is not run on the input step."""
    # adapter run: `hooks: []`, it would add n1 and throw; real Mastra answers
    p = {
        "id": "p1",
        "hooks": [],
        "steps": [{"op": "add", "entries": [message("n1", "user", 5, [NOTE_PART])], "source": "input"}],
        "end": {"throw": "boom"},
    }
    o = observe([p], messages=["hi"])
    assert o["outcome"] == {"kind": "answered"}
    assert all(m["message"]["id"] != "n1" for m in o["list"]["messages"])


SIMPLE_SYSTEM = {"role": "system", "content": "note-05"}


def _returns_system(entries, loop, tripwire_after=True):
    p1 = {
        "id": "p1",
        "steps": [],
        "end": {"return": {"object": {"messages": {"array": {"base": "list"}}, "systemMessages": {"entries": entries}}}},
    }
    p2 = {"id": "p2", "steps": [], "end": {"tripwire": "reason-2"}}
    sj = {
        "guardspec": 1,
        "agent": {"memory": {"generateTitle": False}, "processors": [p1, p2] if tripwire_after else [p1]},
        "call": {"loop": loop, "actor": HUMAN_OPERATOR, "messages": [], "memory": {"thread": "t1", "resource": "r1"}},
    }
    return model_observation(sj, "raw")


# evidence: M8.6
@pytest.mark.parametrize(
    "loop, outcome",
    [
        ("generate", {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}),
        ("stream", {"kind": "failed", "error": "AGENT_STREAM_FAILED"}),
        ("durable", {"kind": "answered"}),
    ],
)
@pytest.mark.parametrize("bad", [{"value": {"$undefined": True}}, {"value": None}])
def test_a_null_or_undefined_returned_system_entry_fails_the_call_before_a_later_tripwire(loop, outcome, bad):
    """M8.6: a null or undefined entry in returned systemMessages fails generate and stream before a later processor's TripWire."""
    # adapter runs: [undefined, system parts] (and [null]) then a TripWire: generate/stream fail,
    # durable answers; the TripWire is never reached
    o = _returns_system([bad, {"role": "system", "content": [{"type": "text", "text": "note-02"}]}], loop)
    assert o["outcome"] == outcome


# evidence: M8.6
def test_returned_system_entries_before_a_null_one_are_kept_and_a_number_is_skipped():
    """M8.6: the returned system entries before an undefined one stay in the bucket; a number is skipped."""
    # adapter runs: [SIMPLE_SYSTEM, undefined] leaves SIMPLE_SYSTEM in the untagged bucket (generate fails);
    # [3] is skipped and the later TripWire refuses
    o = _returns_system([SIMPLE_SYSTEM, {"value": {"$undefined": True}}], "generate", tripwire_after=False)
    assert o["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}
    assert o["list"]["untagged"] == [SIMPLE_SYSTEM]
    assert _returns_system([{"value": 3}], "generate")["outcome"]["kind"] == "refused"
