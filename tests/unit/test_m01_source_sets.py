"""M1 Source sets: transitions of the source sets, and the id-based source checker."""

from guardspec.model.messages import Source, assistant, user
from guardspec.reference import messagelist as ml
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
    # docs/mastra-measurements.md §a: response removes memory and input, and keeps context.
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
    # docs/mastra-measurements.md §a: context then an equal fresh copy as input: the checker
    # says input while get.input.db() is empty.
    lst = ml.add(MessageList(), user("m1", "hi", 2000), C)
    lst = ml.add(lst, user("m1", "hi", 2000), I)
    assert ml.checker(lst)["m1"] is I
    assert lst.view(I) == ()
    assert ml.sources_by_id(lst)["m1"] == {C}
