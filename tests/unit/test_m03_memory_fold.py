"""M3 Memory fold: stored history added over a caller input message with the same id."""

from conftest import tool, tool_parts

from guardspec.model.messages import Source, assistant, user
from guardspec.model.values import UNDEFINED, JsObject, obj
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MessageList

M, I = Source.MEMORY, Source.INPUT


def _stored_a1(state="call", **kw):
    return assistant("a1", "let me check", tool("tc1", state, args=obj(q=1), **kw), created_at=2000)


def _fold(caller, stored):
    lst = ml.add(MessageList(), caller, I)  # the caller's input is added before history
    for m in stored:
        lst = ml.add(lst, m, M)
    return lst


def test_m3_caller_result_joins_the_remembered_assistant_message():
    """M3.1, M3.2: a caller result folds onto the stored call, which ends memory and input."""
    caller = assistant("a1", tool("tc1", "result", result=obj(city="Paris")), created_at=2000)
    lst = _fold(caller, [user("u1", "where am I?", 1000), _stored_a1()])
    assert ml.sources_by_id(lst)["a1"] == {M, I}
    (p,) = tool_parts(lst.slot_of("a1").message)
    assert p.state.value == "result"
    assert p.result == obj(city="Paris")


def test_m3_stored_text_and_args_are_kept_client_text_ignored():
    """M3.2: over call input the stored text and args are kept and the caller's text ignored."""
    caller = assistant("a1", "CLIENT TEXT", tool("tc1", "result", result=1, args=obj(q=99)), created_at=2000)
    lst = _fold(caller, [_stored_a1()])
    a1 = lst.slot_of("a1").message
    assert a1.text() == "let me check"
    assert tool_parts(a1)[0].args == obj(q=1)


def test_m3_stale_echo_does_not_move_a_terminal_stored_state():
    """M3.2: a stale echo onto a terminal stored state is ignored."""
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    lst = _fold(caller, [_stored_a1("result", result="Stored")])
    assert tool_parts(lst.slot_of("a1").message)[0].result == "Stored"
    assert ml.sources_by_id(lst)["a1"] == {M, I}


def test_m3_every_client_outcome_state_advances_a_pending_call():
    """M3.2: every client tool outcome state advances a stored call and is merged."""
    for state in ("approval-responded", "result", "output-error", "output-denied"):
        caller = assistant("a1", tool("tc1", state), created_at=2000)
        lst = _fold(caller, [_stored_a1()])
        assert tool_parts(lst.slot_of("a1").message)[0].state.value == state


def test_m3_non_advancing_copy_still_makes_the_message_memory_and_input():
    """M3.1: a fold onto input makes the message memory and input even when nothing advances."""
    caller = assistant("a1", tool("tc1", "call"), created_at=2000)
    lst = _fold(caller, [_stored_a1()])
    assert ml.sources_by_id(lst)["a1"] == {M, I}
    assert tool_parts(lst.slot_of("a1").message)[0].state.value == "call"


def test_m3_checker_reads_a_folded_message_as_memory():
    caller = assistant("a1", tool("tc1", "result", result=1), created_at=2000)
    lst = _fold(caller, [_stored_a1()])
    assert ml.checker(lst)["a1"] is M


def test_m3_user_message_input_then_memory_keeps_the_stored_text():
    """M3.2: a user message folded onto call input keeps the stored text; sets {memory, input}."""
    # M3.2: input first, then memory: stored text wins; sets {memory, input}.
    lst = _fold(user("u1", "edited", 1000), [user("u1", "where am I?", 1000)])
    assert lst.slot_of("u1").message.text() == "where am I?"
    assert ml.sources_by_id(lst)["u1"] == {M, I}


# -- measured on real Mastra (Evidence: M3.1, M3.2) -----------------------------------------------


def test_m3_fold_applies_when_already_in_memory_and_a_response_copy_ends_response_only():
    """M3.1, M3.4: a fold onto a response copy ends in {response} alone and keeps the live parts."""
    from guardspec.model.messages import Source, assistant
    from guardspec.reference import messagelist as ml
    from guardspec.reference.messagelist import MessageList

    lst = MessageList(thread_id="t1", resource_id="r1")
    lst = ml.add(lst, assistant("a1", "one", created_at=2000), Source.MEMORY)
    lst = ml.add(lst, assistant("a1", "one", "two", created_at=2000), Source.RESPONSE)
    assert lst.slot_of("a1").sources == frozenset({Source.RESPONSE})  # memory then response: merge path
    lst = ml.add(lst, assistant("a1", "one", created_at=2000), Source.MEMORY)
    s = lst.slot_of("a1")
    assert s.sources == frozenset({Source.RESPONSE})
    assert [p.text for p in s.message.parts] == ["one", "two"]


# -- user/user fold metadata (Evidence: M3.3; probe on @mastra/core 1.71.0:
# live n1 without metadata, then memory n1 of the same id: content.metadata is {}) -------------


def _user_fold(live_src, live_md=UNDEFINED, stored_md=UNDEFINED):
    lst = MessageList(thread_id="t1", resource_id="r1")
    lst = ml.add(lst, user("n1", "LIVE", 11, metadata=live_md), live_src)
    return ml.add(lst, user("n1", "STORED", 11, metadata=stored_md), M).slot_of("n1").message


def test_m3_user_user_fold_writes_an_empty_metadata_object_when_neither_copy_has_one():
    """M3.3: a user/user fold keeps the live parts and writes {} when neither copy has metadata."""
    for live_src in (Source.CONTEXT, Source.RESPONSE):
        folded = _user_fold(live_src)
        assert folded.text() == "LIVE"  # the live content is kept
        assert folded.metadata == JsObject()  # an own, empty object, not absent


def test_m3_user_user_fold_metadata_is_stored_spread_then_live():
    """M3.3: a user/user fold's metadata is the stored metadata spread first, the live one over it."""
    folded = _user_fold(Source.CONTEXT, live_md=obj(a=1, b=1), stored_md=obj(b=2, c=2))
    assert folded.metadata == JsObject((("b", 1), ("c", 2), ("a", 1)))  # Mastra's key order
    assert _user_fold(Source.CONTEXT, stored_md=obj(c=2)).metadata == obj(c=2)


def test_m3_input_fold_adds_no_metadata():
    """M3.2: the fold onto call input keeps the stored message and writes no metadata."""
    # The input branch (clientToolOutcomes merge) writes no metadata: measured, no key.
    folded = _user_fold(I)
    assert folded.text() == "STORED"
    assert folded.metadata is UNDEFINED


def test_m3_other_folds_take_the_live_text_up_to_surrounding_whitespace():
    """M3.4: over a live context copy a stored text equal up to surrounding whitespace takes the live text."""
    lst = ml.add(MessageList(), assistant("a1", "  the answer \n", created_at=2000), Source.CONTEXT)
    lst = ml.add(lst, assistant("a1", "the answer", created_at=2000), M)
    assert [p.text for p in lst.slot_of("a1").message.parts] == ["  the answer \n"]
    assert ml.sources_by_id(lst)["a1"] == {M, Source.CONTEXT}
