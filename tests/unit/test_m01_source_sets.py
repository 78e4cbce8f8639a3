"""M1 Source sets: transitions of the source sets, and the id-based source checker."""

import pytest
from raw_json import HUMAN_OPERATOR, LOOP_NAMES

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation
from guardspec.model.messages import Source, assistant, user
from guardspec.reference import messagelist as ml
from guardspec.reference.guard.application import policy_engine_output_return
from guardspec.reference.messagelist import MessageList

M, I, R, C = Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT


def _on_list(lst, message_id):
    """The very object the list holds (re-adding it is re-adding the same object)."""
    return lst.slot_of(message_id).message


def test_m1_adding_to_memory_adds_to_memory_only():
    lst = ml.add(MessageList(), user("m1", "hi", 1), M)
    assert ml.sources_by_id(lst)["m1"] == {M}
    assert [m.id for m in lst.view(M)] == ["m1"]
    assert lst.view(I) == ()


def test_m1_adding_a_memory_message_to_input_keeps_it_in_memory():
    """M1.1: re-adding the list's own memory object under input keeps it in memory."""
    lst = ml.add(MessageList(), user("m1", "hi", 1), M)
    lst = ml.add(lst, _on_list(lst, "m1"), I)
    assert ml.sources_by_id(lst)["m1"] == {M, I}
    assert [m.id for m in lst.view(M)] == ["m1"]
    assert [m.id for m in lst.view(I)] == ["m1"]


def test_m1_adding_to_response_removes_from_memory_and_input():
    """M1.1: re-adding the list's own object under response drops memory and input."""
    lst = ml.add(MessageList(), user("m1", "hi", 1), M)
    lst = ml.add(lst, _on_list(lst, "m1"), I)
    lst = ml.add(lst, _on_list(lst, "m1"), R)
    assert ml.sources_by_id(lst)["m1"] == {R}
    assert lst.view(M) == () and lst.view(I) == ()


def test_m1_adding_to_response_keeps_context():
    """M1.1: response removes memory and input, and keeps context."""
    # Evidence: M1.1: response removes memory and input, and keeps context.
    lst = ml.add(MessageList(), user("m1", "hi", 1), C)
    lst = ml.add(lst, _on_list(lst, "m1"), R)
    assert ml.sources_by_id(lst)["m1"] == {C, R}


def test_m1_adding_to_context_adds_to_context():
    """M1.1: re-adding the list's own object under context adds context to its sets."""
    lst = ml.add(MessageList(), user("m1", "hi", 1), I)
    lst = ml.add(lst, _on_list(lst, "m1"), C)
    assert ml.sources_by_id(lst)["m1"] == {I, C}


def test_m1_checker_names_memory_for_a_memory_plus_input_message():
    lst = ml.add(MessageList(), user("m1", "hi", 1), M)
    lst = ml.add(lst, _on_list(lst, "m1"), I)
    assert ml.checker(lst)["m1"] is M


def test_m1_checker_order_is_memory_input_response_context():
    lst = MessageList()
    lst = ml.add(lst, user("c", "ctx", 1), C)
    lst = ml.add(lst, user("ic", "both", 2), I)
    lst = ml.add(lst, _on_list(lst, "ic"), C)
    lst = ml.add(lst, assistant("r", "resp", created_at=3), R)
    lst = ml.add(lst, _on_list(lst, "r"), C)
    check = ml.checker(lst)
    assert check == {"c": C, "ic": I, "r": R}


def test_m1_checker_is_a_snapshot_of_id_sets():
    """M1.2: the checker maps ids and keeps naming a message after it left the list."""
    lst = ml.add(MessageList(), user("m1", "hi", 1), I)
    check = ml.checker(lst)
    lst = ml.remove_by_ids(lst, ["m1"])
    lst = ml.add(lst, user("m2", "later", 2), M)
    assert check == {"m1": I}


def test_m1_equal_fresh_copy_joins_the_checker_but_not_the_views():
    """M2.6, M1.2: an equal fresh copy joins input in the checker while the views do not show it."""
    # Evidence: M1.2: context then an equal fresh copy as input: the checker
    # says input while get.input.db() is empty.
    lst = ml.add(MessageList(), user("m1", "hi", 2000), C)
    lst = ml.add(lst, user("m1", "hi", 2000), I)
    assert ml.checker(lst)["m1"] is I
    assert lst.view(I) == ()
    assert ml.sources_by_id(lst)["m1"] == {C}


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# adapter runs : thread t1 [u0, a0 (text, call tc1)], caller
# [a0 (tc1 approval-responded), c00]; p1 clears the input and returns false, p2 returns the array it
# received (p1's, holding the caller's a0 and c00): Mastra re-adds a0 under memory
RESPONDED_A0 = {
    "id": "a0",
    "role": "assistant",
    "createdAt": 2,
    "parts": [
        {
            "type": "tool-invocation",
            "toolCallId": "tc1",
            "toolName": "nullmap",
            "state": "approval-responded",
            "args": {"q": "note-19"},
            "approval": {"approved": False, "reason": "r"},
        }
    ],
}


THREAD_WITH_CALL = [
    {"id": "u0", "role": "user", "createdAt": 1, "threadId": "t1", "resourceId": "r1", "parts": [{"type": "text", "text": "note-25"}]},
    {
        "id": "a0",
        "role": "assistant",
        "createdAt": 2,
        "threadId": "t1",
        "resourceId": "r1",
        "parts": [
            {"type": "text", "text": "note-18"},
            {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "nullmap", "state": "call", "args": {"q": "note-19"}},
        ],
    },
]


CLEAR_THEN_RETURN_RECEIVED = [
    {"id": "p1", "hooks": ["processInput"], "steps": [{"op": "clearInput"}], "end": {"return": {"primitive": False}}},
    {
        "id": "p2",
        "hooks": ["processInput"],
        "steps": [],
        "end": {"return": {"array": {"base": "received", "copy": "none", "drop": [], "edits": [], "append": []}}},
    },
]


def _cleared_then_returned(loop):
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "note-17"}]}
    call = {
        "loop": loop,
        "actor": HUMAN_OPERATOR,
        "reply": "reply-0",
        "memory": {"thread": "t1", "resource": "r1"},
        "messages": [RESPONDED_A0, c00],
    }
    sj = {
        "guardspec": 1,
        "agent": {
            "memory": {"generateTitle": False},
            "processors": CLEAR_THEN_RETURN_RECEIVED,
            "clientTools": [{"name": "nullmap", "mapping": {"kind": "null", "prefix": "mapped:"}}],
        },
        "call": call,
        "threads": [{"id": "t1", "resource": "r1", "title": "", "messages": THREAD_WITH_CALL}],
    }
    return normalise_observation(model_observation(sj, "raw"), sj)


# evidence: M1.2
@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_a_cleared_memory_message_returned_again_is_re_added_under_memory(loop):
    """M1.2: a memory message cleared from the input and returned again is re-added under memory, by the checker's ids."""
    o = _cleared_then_returned(loop)
    assert o["result"]["rememberedMessages"] == ["u0", "a0"]
    listed = {e["message"]["id"]: e for e in o["list"]["messages"]}
    assert listed["a0"]["sources"] == ["memory"]
    assert listed["c00"]["sources"] == ["input"]
    # re-added under memory: the caller's merged a0, its parts not stamped
    assert [p.get("state") for p in listed["a0"]["message"]["parts"]] == [None, "approval-responded"]
    assert all("createdAt" not in p for p in listed["a0"]["message"]["parts"])


# evidence: M1.2
@pytest.mark.parametrize("loop", LOOP_NAMES)
def test_the_re_added_memory_message_is_not_saved_again(loop):
    """M1.2: a memory message re-added under memory is not saved again: the thread keeps its stored version."""
    o = _cleared_then_returned(loop)
    a0 = next(m for m in o["stored"] if m["id"] == "a0")
    assert [p.get("state") for p in a0["parts"]] == [None, "call"]
    assert [m["id"] for m in o["stored"]][:3] == ["u0", "a0", "c00"]


# M1.2's stale member once more: p3 removes a0 and returns the array it received (adapter runs,
# each copy kind and loop): a0 comes back under memory, and the thread
# stores u0, a0 (as stored), c00 and the reply
# evidence: M1.2
@pytest.mark.parametrize("copy", ["none", "shallow", "deep"])
@pytest.mark.parametrize("loop", LOOP_NAMES)
def test_a_stale_memory_message_removed_and_returned_again_comes_back_under_memory(copy, loop):
    """M1.2: a stale memory message removed and returned again comes back under memory, stored as the thread holds it."""
    p3 = {
        "id": "p3",
        "hooks": ["processInput"],
        "steps": [{"op": "removeByIds", "ids": ["a0"]}],
        "end": {"return": {"array": {"base": "received", "copy": copy, "drop": [], "edits": [], "append": []}}},
    }
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "note-17"}]}
    call = {
        "loop": loop,
        "actor": HUMAN_OPERATOR,
        "reply": "reply-0",
        "memory": {"thread": "t1", "resource": "r1"},
        "messages": [RESPONDED_A0, c00],
    }
    sj = {
        "guardspec": 1,
        "agent": {
            "memory": {"generateTitle": False},
            "processors": CLEAR_THEN_RETURN_RECEIVED + [p3],
            "clientTools": [{"name": "nullmap", "mapping": {"kind": "null", "prefix": "mapped:"}}],
        },
        "call": call,
        "threads": [{"id": "t1", "resource": "r1", "title": "", "messages": THREAD_WITH_CALL}],
    }
    o = normalise_observation(model_observation(sj, "raw"), sj)
    assert o["outcome"] == {"kind": "answered"}
    if loop != "durable":
        assert [(e["message"]["id"], e["sources"]) for e in o["list"]["messages"]][:3] == [
            ("u0", ["memory"]),
            ("a0", ["memory"]),
            ("c00", ["input"]),
        ]
    stored = o["stored"]
    assert [m["id"] for m in stored][:3] == ["u0", "a0", "c00"] and len(stored) == 4
    assert [p.get("state") for p in stored[1]["parts"]] == [None, "call"]


def test_m1_a_cleared_memory_and_input_message_keeps_its_memory_id_for_the_checker():
    """M1.2: clearing the input takes a memory+input message off the list, but memory's set
    keeps its id: the checker's sources (what G7.3 re-adds under) name it memory alone."""
    lst = ml.add(MessageList(), user("m1", "hi", 1), M)
    lst = ml.add(lst, _on_list(lst, "m1"), I)
    lst = ml.clear_source(lst, I)
    assert "m1" not in ml.sources_by_id(lst)
    assert ml.checked_sources(lst)["m1"] == {M}


def test_m1_3_the_persisted_response_set_keeps_a_message_that_left_it():
    """M1.3: a message added under response and re-added under input leaves the live response
    set but stays in the persisted one; a message never in the response set is not there."""
    lst = ml.add(MessageList(), user("u1", "hi", 1), I)
    lst = ml.add(lst, user("n2", "moved", 0), R)
    assert lst.responded == {"n2"}
    lst = ml.remove_by_ids(lst, ["n2"])
    lst = ml.add(lst, user("n2", "moved", 0), I, merge=False)
    assert [m.id for m in lst.view(R)] == []
    assert lst.responded == {"n2"}
    assert "u1" not in lst.responded


def test_m1_3_the_durable_output_step_re_adds_a_former_response_message_behind_its_tie():
    """G12.11 with M1.3: the output step hands back a message that was a response earlier in
    the call, now input; re-added under input it moves behind the other message dated 0."""
    lst = ml.add(MessageList(), user("n2", "first", 0), R)
    lst = ml.remove_by_ids(lst, ["n2"])
    lst = ml.add(lst, user("n2", "first", 0), I, merge=False)
    lst = ml.add(lst, user("n1", "second", 0), I)
    assert lst.ids() == ("n2", "n1")
    out = policy_engine_output_return(lst)
    assert out.ids() == ("n1", "n2")
    assert ml.sources_by_id(out)["n2"] == {I}
