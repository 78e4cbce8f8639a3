"""M4 Assistant merge: a non-memory assistant add right after an assistant merges into it."""

from guardspec.model.messages import Source, assistant, user
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MessageList

from conftest import tool, tool_parts

M, I, R = Source.MEMORY, Source.INPUT, Source.RESPONSE


def _base():
    return ml.add(MessageList(thread_id="t1", resource_id="r1"), user("u1", "q", 1000), I)


def test_m4_response_assistant_merges_into_the_latest_assistant():
    lst = ml.add(_base(), assistant("resp1", "one", created_at=2000), R)
    lst = ml.add(lst, assistant("resp2", "two", created_at=3000), R)
    assert lst.ids() == ("u1", "resp1")
    assert [p.text for p in lst.slot_of("resp1").message.parts] == ["one", "two"]


def test_m4_merge_off_keeps_the_message_separate():
    lst = ml.add(_base(), assistant("resp1", "one", created_at=2000), R)
    lst = ml.add(lst, assistant("resp3", "three", created_at=4000), R, merge=False)
    assert lst.ids() == ("u1", "resp1", "resp3")


def test_m4_two_input_assistant_adds_merge():
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), I)
    lst = ml.add(lst, assistant("a2", "two", created_at=3000), I)
    assert lst.ids() == ("a1",)
    assert ml.sources_by_id(lst)["a1"] == {I}


def test_m4_memory_adds_never_merge():
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), M)
    lst = ml.add(lst, assistant("a2", "two", created_at=3000), M)
    assert lst.ids() == ("a1", "a2")


def test_m4_no_merge_after_a_user_message():
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), I)
    lst = ml.add(lst, user("u2", "q", 2500), I)
    lst = ml.add(lst, assistant("a2", "two", created_at=3000), I)
    assert lst.ids() == ("a1", "u2", "a2")


def test_m4_latest_assistant_of_another_thread_blocks_the_merge():
    lst = MessageList(thread_id="t1", resource_id="r1")
    lst = ml.add(lst, assistant("a2", "other thread", created_at=3000, thread_id="t2", resource_id="r1"), M)
    lst = ml.add(lst, assistant("a3", "mine", created_at=4000), I)
    assert lst.ids() == ("a2", "a3")


def test_m4_merged_remembered_message_moves_to_the_incoming_source():
    lst = ml.add(MessageList(), assistant("a1", "stored", created_at=2000), M)
    lst = ml.add(lst, assistant("r1", "reply", created_at=3000), R)
    assert lst.ids() == ("a1",)
    assert ml.sources_by_id(lst)["a1"] == {R}


def test_m4_tool_result_overwrites_the_matching_part():
    lst = ml.add(MessageList(), assistant("a1", "checking", tool("tc1", "call"), created_at=2000), I)
    lst = ml.add(lst, assistant("a9", tool("tc1", "result", result="Paris"), created_at=3000), I)
    (p,) = tool_parts(lst.slot_of("a1").message)
    assert p.state.value == "result" and p.result == "Paris"
