"""M4 Assistant merge: a non-memory assistant add right after an assistant merges into it."""

from conftest import tool, tool_parts

from guardspec.model.messages import Source, assistant, user
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MessageList

M, I, R = Source.MEMORY, Source.INPUT, Source.RESPONSE


def _base():
    return ml.add(MessageList(thread_id="t1", resource_id="r1"), user("u1", "q", 1000), I)


def test_m4_response_assistant_merges_into_the_latest_assistant():
    lst = ml.add(_base(), assistant("resp1", "one", created_at=2000), R)
    lst = ml.add(lst, assistant("resp2", "two", created_at=3000), R)
    assert lst.ids() == ("u1", "resp1")
    assert [p.text for p in lst.slot_of("resp1").message.parts] == ["one", "two"]


def test_m4_merge_off_keeps_the_message_separate():
    """M4.1: merge: false keeps an assistant add apart from the latest assistant."""
    lst = ml.add(_base(), assistant("resp1", "one", created_at=2000), R)
    lst = ml.add(lst, assistant("resp3", "three", created_at=4000), R, merge=False)
    assert lst.ids() == ("u1", "resp1", "resp3")


def test_m4_two_input_assistant_adds_merge():
    """M4.1: two input assistant adds merge as two response adds do."""
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), I)
    lst = ml.add(lst, assistant("a2", "two", created_at=3000), I)
    assert lst.ids() == ("a1",)
    assert ml.sources_by_id(lst)["a1"] == {I}


def test_m4_memory_adds_never_merge():
    """M4.1: a memory add never merges."""
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), M)
    lst = ml.add(lst, assistant("a2", "two", created_at=3000), M)
    assert lst.ids() == ("a1", "a2")


def test_m4_no_merge_after_a_user_message():
    """M4.1: only the latest message is looked at: a user message in between blocks the merge."""
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), I)
    lst = ml.add(lst, user("u2", "q", 2500), I)
    lst = ml.add(lst, assistant("a2", "two", created_at=3000), I)
    assert lst.ids() == ("a1", "u2", "a2")


def test_m4_latest_assistant_of_another_thread_blocks_the_merge():
    """M4.1: an assistant of another thread in the latest place blocks the merge."""
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
    """M4.2, M4.3: an incoming result with a held toolCallId updates that part in place."""
    lst = ml.add(MessageList(), assistant("a1", "checking", tool("tc1", "call"), created_at=2000), I)
    lst = ml.add(lst, assistant("a9", tool("tc1", "result", result="Paris"), created_at=3000), I)
    (p,) = tool_parts(lst.slot_of("a1").message)
    assert p.state.value == "result" and p.result == "Paris"


# -- measured on real Mastra (Evidence: M4.1, M4.2) ---------------------------------------------


def _kinds(m):
    return [type(p).__name__ for p in m.parts]


def test_m4_text_after_a_trailing_tool_part_gets_a_step_start():
    """M4.2: a text pushed after a trailing tool part gets a step-start; equal texts pushed while fewer are held."""
    lst = ml.add(_base(), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000), I)
    lst = ml.add(lst, assistant("a2", "more", "more", created_at=3000), R)
    a1 = lst.slot_of("a1").message
    assert _kinds(a1) == ["TextPart", "ToolPart", "StepStartPart", "TextPart", "TextPart"]
    assert ml.visible_parts(a1.parts)[2].text == "more"


def test_m4_equal_text_is_not_duplicated_and_a_call_does_not_overwrite_a_result():
    """M4.2, M4.3: equal text is not doubled, and a matching call only anchors."""
    lst = ml.add(_base(), assistant("a1", "let me check", tool("tc1", "result", {"c": 1}), created_at=2000), I)
    lst = ml.add(lst, assistant("a1", "let me check", tool("tc1", "call"), created_at=2000), I)
    a1 = lst.slot_of("a1").message
    assert [p.text for p in a1.parts if hasattr(p, "text")] == ["let me check"]
    assert tool_parts(a1)[0].state.value == "result"


def test_m4_merge_target_is_the_latest_assistant_whatever_the_id():
    """M4.1: an incoming assistant merges into the latest message even when its id names another."""
    lst = ml.add(_base(), assistant("a0", "zero", created_at=1500), R, merge=False)
    lst = ml.add(lst, assistant("a1", "one", created_at=2000), R, merge=False)
    lst = ml.add(lst, assistant("a0", "other", created_at=2500), R)
    assert lst.ids() == ("u1", "a0", "a1")
    assert [p.text for p in lst.slot_of("a1").message.parts] == ["one", "other"]
    assert [p.text for p in lst.slot_of("a0").message.parts] == ["zero"]


def test_m4_when_the_latest_message_cannot_take_it_an_assistant_merges_into_the_one_its_id_names():
    """M4.1: behind a user message, an assistant whose id names a held assistant merges into that one."""
    lst = ml.add(MessageList(), assistant("a1", "one", created_at=2000), I)
    lst = ml.add(lst, user("u2", "q", 2500), I)
    lst = ml.add(lst, assistant("a1", "one", "two", created_at=3000), R)
    assert lst.ids() == ("a1", "u2")
    assert [p.text for p in lst.slot_of("a1").message.parts] == ["one", "two"]


def test_m4_a_result_spreads_the_new_args_over_the_old_and_writes_the_mirror():
    """M4.3: a merged result updates result and args ({...old, ...new}) and the toolInvocations mirror."""
    from guardspec.model.values import obj

    lst = ml.add(MessageList(), assistant("a1", tool("tc1", "call", args=obj(q=1, keep=2)), created_at=2000), I)
    lst = ml.add(lst, assistant("a9", tool("tc1", "result", result="Paris", args=obj(q=9)), created_at=3000), I)
    a1 = lst.slot_of("a1").message
    (p,) = tool_parts(a1)
    assert (p.state.value, p.result, p.args) == ("result", "Paris", obj(q=9, keep=2))
    assert a1.tool_invocations


def test_m4_an_error_merged_onto_a_call_puts_approval_before_error_text():
    """M4.3: an error state updates state, approval, errorText and args only, appending approval before errorText."""
    from guardspec.model.values import obj

    lst = ml.add(MessageList(), assistant("a1", tool("tc1", "call", args=obj(q=1)), created_at=2000), I)
    err = tool("tc1", "output-error", error_text="boom", approval=obj(approved=True), args=obj(q=1))
    lst = ml.add(lst, assistant("a9", err, created_at=3000), I)
    (p,) = tool_parts(lst.slot_of("a1").message)
    assert (p.state.value, p.error_text, p.approval) == ("output-error", "boom", obj(approved=True))
    assert p.approval_first
    assert not lst.slot_of("a1").message.tool_invocations
