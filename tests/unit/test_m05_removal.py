"""M5 Removal: removeByIds, clear.input, clear.response."""

from conftest import tool

from guardspec.model.messages import Source, assistant, user
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MessageList

M, I, R, C = Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT


def _list():
    """[u1 memory, a1 memory+input (fold), n1 input] (M1, M3.2)."""
    lst = ml.add(MessageList(), assistant("a1", tool("tc1", "result", result=1), created_at=2000), I)
    lst = ml.add(lst, user("n1", "new", 3000), I)
    lst = ml.add(lst, user("u1", "where am I?", 1000), M)
    lst = ml.add(lst, assistant("a1", "let me check", tool("tc1", "call"), created_at=2000), M)
    assert ml.sources_by_id(lst) == {"u1": {M}, "a1": {M, I}, "n1": {I}}
    return lst


def test_m5_remove_by_ids_takes_messages_out_of_list_and_every_source():
    lst = ml.remove_by_ids(_list(), ["a1"])
    assert lst.ids() == ("u1", "n1")
    assert [m.id for m in lst.view(M)] == ["u1"]
    assert [m.id for m in lst.view(I)] == ["n1"]
    assert "a1" not in ml.checker(lst)


def test_m5_remove_by_ids_ignores_missing_ids():
    """M5.1: removeByIds ignores ids the list does not hold."""
    lst = ml.remove_by_ids(_list(), ["u1", "n1", "does-not-exist"])
    assert lst.ids() == ("a1",)


def test_m5_clear_input_removes_memory_plus_input_messages():
    lst = ml.clear_source(_list(), I)
    assert lst.ids() == ("u1",)
    assert [m.id for m in lst.view(M)] == ["u1"]
    assert lst.view(I) == ()


def test_m5_clear_input_keeps_context_and_response():
    lst = ml.add(MessageList(), user("c1", "ctx", 1), C)
    lst = ml.add(lst, user("u1", "q", 2), I)
    lst = ml.add(lst, assistant("r1", "a", created_at=3), R)
    lst = ml.clear_source(lst, I)
    assert lst.ids() == ("c1", "r1")


def test_m5_clear_response_removes_response_messages_only():
    lst = ml.add(MessageList(), user("m1", "old", 1), M)
    lst = ml.add(lst, user("u1", "q", 2), I)
    lst = ml.add(lst, assistant("r1", "a", created_at=3), R)
    lst = ml.clear_source(lst, R)
    assert lst.ids() == ("m1", "u1")
    assert lst.view(R) == ()


def test_m5_removal_leaves_system_messages():
    lst = ml.add_system(_list(), "instructions")
    lst = ml.clear_source(ml.remove_by_ids(lst, ["u1"]), I)
    assert [s.content for s in lst.untagged] == ["instructions"]


def test_m5_clear_input_leaves_a_stale_memory_reference_the_checker_sees():
    # measured on real Mastra (Evidence: M5.2)
    """M5.2: clear.input leaves a memory+input message in memory although it is off the list."""
    from guardspec.model.messages import Source, assistant
    from guardspec.reference import messagelist as ml
    from guardspec.reference.messagelist import MessageList

    lst = MessageList(thread_id="t1", resource_id="r1")
    lst = ml.add(lst, assistant("a1", "x", created_at=2000), Source.MEMORY)
    lst = ml.add(lst, assistant("a1", "x", "y", created_at=2000), Source.INPUT)
    lst = ml.clear_source(lst, Source.INPUT)
    assert lst.all() == ()
    assert ("a1", Source.MEMORY) in lst.detached
