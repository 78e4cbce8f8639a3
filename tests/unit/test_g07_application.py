"""G7 Application (S2, S3): how the guard applies a processor's return value."""

import pytest
from conftest import list_message, list_sources, prompt_lines, scenario, stored, stored_message, tool, tool_parts

from guardspec.model.messages import Message, Role, SystemMessage, TextPart, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import (
    MISSING,
    AddMessages,
    ArrayOf,
    EditText,
    ObjectOf,
    OtherList,
    Primitive,
    Processor,
    Return,
    SameList,
    SetRole,
)
from guardspec.model.scenario import Mode
from guardspec.model.values import UNDEFINED, Accessor, BigInt
from guardspec.reference import run

FAILED = Refused("input processor failed", "p")
BASE_PROMPT = ["system: You are a guarded agent.", "user: old", "user: hi"]


def _run(value, steps=(), *messages, **kw):
    msgs = messages or (user("u1", "hi", 30),)
    kw.setdefault("threads", stored(user("h1", "old", 10)))
    return run(scenario(*msgs, processors=(Processor("p", steps=steps, end=Return(value)),), **kw), Mode.GUARDED)


@pytest.mark.parametrize("v", [UNDEFINED, None, False, 0, 0.0, -0.0, BigInt(0), "", float("nan")], ids=repr)
def test_g7_falsy_return_changes_nothing(v):
    obs = _run(Primitive(v))
    assert isinstance(obs.outcome, Answered)
    assert prompt_lines(obs) == BASE_PROMPT


def test_g7_same_list_changes_nothing_more_than_in_place_work():
    obs = _run(SameList(), (AddMessages((user("n1", "added", 40),)),))
    assert isinstance(obs.outcome, Answered)
    assert prompt_lines(obs) == BASE_PROMPT + ["user: added"]


@pytest.mark.parametrize("value", [OtherList(), Primitive(1), Primitive("x"), Primitive(True), Primitive(float("inf"))], ids=repr)
def test_g7_different_list_or_truthy_non_object_cannot_be_applied(value):
    assert _run(value).outcome == FAILED


def test_g7_array_missing_a_received_id_removes_it():
    """G7.1: received ids missing from the returned array are removed."""
    obs = _run(ArrayOf(drop=("h1",)))
    assert prompt_lines(obs) == ["system: You are a guarded agent.", "user: hi"]


def test_g7_object_replaces_the_system_bucket_first_then_applies_messages():
    # a DB-shaped system entry adds its text (an AI SDK one would add nothing, G7.2 below)
    """G7.1, G7.5: an object's systemMessages replace the bucket before its messages' system entries add their text."""
    value = ObjectOf(
        messages=ArrayOf(append=(Message("s9", Role.SYSTEM, (TextPart("FROM ARRAY"),)),)), system_messages=(SystemMessage("REPLACED"),)
    )
    obs = _run(value)
    assert isinstance(obs.outcome, Answered)
    assert [s.content for s in obs.list.untagged] == ["REPLACED", "FROM ARRAY"]


def test_g7_object_of_any_prototype_is_applied():
    obs = _run(ObjectOf(messages=ArrayOf(drop=("h1",)), system_messages="received", proto="Result"))
    assert isinstance(obs.outcome, Answered)
    assert "h1" not in list_sources(obs)


@pytest.mark.parametrize(
    "value",
    [
        ObjectOf(messages=ArrayOf(), system_messages=MISSING),
        ObjectOf(messages=MISSING, system_messages="received"),
        ObjectOf(messages=5, system_messages="received"),
        ObjectOf(messages=ArrayOf(), system_messages=None),
    ],
    ids=["no-systemMessages", "no-messages", "messages-not-array", "systemMessages-not-array"],
)
def test_g7_object_without_array_messages_and_system_messages_cannot_be_applied(value):
    assert _run(value).outcome == FAILED


def test_g7_system_role_entry_becomes_system_text_and_its_id_stays():
    """G7.1, G7.2: a system-role entry adds its text, and the message sharing its id is not removed."""
    obs = _run(ArrayOf(edits=(SetRole("u1", Role.SYSTEM),)))
    assert isinstance(obs.outcome, Answered)
    assert "hi" in [s.content for s in obs.list.untagged]
    assert list_sources(obs)["u1"] == {"input"}
    assert list_message(obs, "u1").role is Role.USER


def test_g7_changed_history_is_re_added_under_its_previous_source():
    """G7.3: a changed history message is re-added under memory, its earlier source."""
    obs = _run(ArrayOf(edits=(EditText("h1", "old, rewritten"),)))
    assert list_sources(obs)["h1"] == {"memory"}
    assert "user: old, rewritten" in prompt_lines(obs)


def test_g7_new_entry_is_added_as_input():
    """G7.3: an entry whose id had no source is added as input."""
    obs = _run(ArrayOf(append=(user("n1", "new", 40),)))
    assert list_sources(obs)["n1"] == {"input"}
    assert "n1" in [m.id for m in obs.stored]


def test_g7_entries_are_re_added_with_merge_off():
    """G7.3: entries are re-added with merging off, so an appended assistant stays a message of its own."""
    obs = _run(ArrayOf(append=(assistant("a9", "appended", created_at=50),)), (), assistant("a0", "caller", created_at=30))
    assert {"a0", "a9"} <= set(list_sources(obs))


def test_g7_returned_memory_plus_input_copy_stays_both():
    """G7.3, S3: a returned copy of a memory+input message is re-added as memory and input, so its outcome is saved."""
    # S3: a remembered assistant message with the caller's client tool outcome stays both,
    # so its outcome is saved.
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = _run(ArrayOf(copy="deep"), (), caller, user("u2", "thanks", 3000), threads=threads)
    assert isinstance(obs.outcome, Answered)
    assert list_sources(obs)["a1"] == {"memory", "input"}
    assert tool_parts(stored_message(obs, "a1"))[0].state.value == "result"


@pytest.mark.parametrize(
    "entry",
    [
        None,
        Message("x1", Role.USER, parts=None),
        user("x2", "elsewhere", 40, thread_id="other-thread"),
        SystemMessage(UNDEFINED),
    ],
    ids=["null", "no-content", "other-thread", "undefined-system-content"],
)
def test_g7_entries_mastra_cannot_add_cannot_be_applied(entry):
    """G7.4, G7.6: null, a message without parts, another thread's message as input, a system entry without content fail."""
    assert _run(ArrayOf(append=(entry,))).outcome == FAILED


def test_g7_a_returned_memory_message_of_another_thread_is_re_added():
    """G7.6: another thread's message re-added as memory, the source it had, is accepted."""
    # Evidence: G7.6 (measured on the Breakwater 0.17.0 build): Mastra checks the thread only of a message added under a source other than memory;
    # p1 adds another thread's message as memory; p2 returns it, and it is re-added as memory
    # (the source it had before p2 ran), so the call goes on. A message of another thread re-added
    # as input still cannot be applied (``test_g7_entries_mastra_cannot_add_cannot_be_applied``).
    from guardspec.model.messages import Source

    elsewhere = user("x2", "elsewhere", 20, thread_id="other-thread")
    p1 = Processor("p1", steps=(AddMessages((elsewhere,), Source.MEMORY, merge=False),), end=Return(SameList()))
    p2 = Processor("p2", end=Return(ArrayOf(base="received")))
    obs = run(scenario(user("u1", "hi", 30), processors=(p1, p2), threads=stored(user("h1", "old", 10))), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)
    assert list_sources(obs)["x2"] == {"memory"}


# -- G7.2, G7.5: system entries Breakwater applies (Evidence: G7.2, G7.5) ------------------------


@pytest.mark.parametrize(
    "entry",
    [SystemMessage("SPOKEN"), SystemMessage((TextPart("SPO"), TextPart("KEN"))), SystemMessage(3)],
    ids=["string-content", "text-parts", "number-content"],
)
def test_g7_an_ai_sdk_system_entry_adds_nothing(entry):
    # content.content ?? content.parts?.map(...).join('\n') ?? '': neither property on a string,
    # an array or a number, so "" is added, which is nothing
    """G7.2: an AI SDK system entry has neither content.content nor content.parts and adds nothing."""
    obs = _run(ArrayOf(append=(entry,)))
    assert obs.outcome == Answered()
    assert [s.content for s in obs.list.untagged] == ["You are a guarded agent."]
    assert "SPO" not in obs.read


# Breakwater run (guarded): a returned array appending {role: 'system', content: <getter>}:
# answered, nothing added; with a throwing getter: input processor failed from p1
# evidence: G7.2
def test_g7_a_system_entrys_content_getter_is_read_and_one_that_throws_cannot_be_applied():
    """G7.2: ``content.content`` reads a system entry's content getter: its value adds nothing, a throwing getter cannot be applied."""
    obs = _run(ArrayOf(append=(SystemMessage(Accessor("g", "SPOKEN")),)))
    assert obs.outcome == Answered()
    assert [s.content for s in obs.list.untagged] == ["You are a guarded agent."]
    assert _run(ArrayOf(append=(SystemMessage(Accessor("g", throws=True)),))).outcome == FAILED


def test_g7_a_db_shaped_system_entry_adds_its_parts_joined_non_text_parts_empty():
    """G7.2: a stored-format system entry adds its parts' texts joined by newlines, "" for a non-text part."""
    from guardspec.model.messages import FilePart

    entry = Message("s9", Role.SYSTEM, (TextPart("one"), FilePart("aGk=", "text/plain"), TextPart("two")))
    obs = _run(ArrayOf(append=(entry,)))
    assert obs.outcome == Answered()
    assert [s.content for s in obs.list.untagged] == ["You are a guarded agent.", "one\n\ntwo"]


@pytest.mark.parametrize("bad", [UNDEFINED, None], ids=["undefined", "null"])
def test_g7_system_messages_holding_undefined_cannot_be_applied(bad):
    # replaceAllSystemMessages reads ``role`` of each entry: it throws there, the bucket already
    # emptied and holding the entries before it
    """G7.5: a null or undefined systemMessages entry cannot be applied; the entries before it stay."""
    value = ObjectOf(messages=ArrayOf(), system_messages=(SystemMessage("KEPT"), bad, SystemMessage("NEVER")))
    obs = _run(value)
    assert obs.outcome == FAILED
    assert [s.content for s in obs.list.untagged] == ["KEPT"]


def test_g7_a_stored_format_system_message_in_system_messages_fails_g8():
    """G7.5, G8.2: a stored-format entry kept from a returned systemMessages fails the processor."""
    value = ObjectOf(messages=ArrayOf(), system_messages=(Message("s9", Role.SYSTEM, (TextPart("rule"),)),))
    obs = _run(value)
    assert obs.outcome == FAILED


def test_g7_a_stored_format_system_message_given_to_replace_all_in_a_step_fails_g8():
    """G8.2: a stored-format entry kept by the processor's own replaceAllSystemMessages fails it."""
    from guardspec.model.processors import Processor, ReplaceAllSystem

    proc = Processor("p", steps=(ReplaceAllSystem((Message("s9", Role.SYSTEM, (TextPart("rule"),)),)),))
    obs = run(scenario(user("u1", "hi", 30), processors=(proc,)), Mode.GUARDED)
    assert obs.outcome == FAILED


def test_g7_a_string_entry_is_added_as_a_user_message_of_the_input():
    # messageList.add of a string: a new user message, source input (G7.4); read as the caller's
    """G7.4: a string entry is a new user message of the call's input, read as a caller message."""
    obs = _run(ArrayOf(append=("EXTRA TEXT",)))
    assert obs.outcome == Answered()
    assert "EXTRA TEXT" in obs.read
    added = [lm for lm in obs.list.messages if getattr((lm.message.parts or (None,))[0], "text", None) == "EXTRA TEXT"]
    assert len(added) == 1 and added[0].message.role is Role.USER and {s.value for s in added[0].sources} == {"input"}


@pytest.mark.parametrize("entry", [5, UNDEFINED], ids=["number", "undefined"])
def test_g7_a_number_or_undefined_entry_cannot_be_applied(entry):
    """G7.4: a number or undefined entry cannot be applied."""
    assert _run(ArrayOf(append=(entry,))).outcome == FAILED


def test_g7_application_is_not_atomic_what_came_before_a_failing_entry_stays():
    """G7.1: removals and system entries applied before an entry that cannot be applied stay on the list."""
    system_entry = Message("s9", Role.SYSTEM, (TextPart("ADDED"),))
    elsewhere = user("x2", "elsewhere", 40, thread_id="other-thread")
    obs = _run(ArrayOf(drop=("h1",), append=(system_entry, elsewhere)))
    assert obs.outcome == FAILED
    assert "ADDED" in [s.content for s in obs.list.untagged]  # system messages survive the removal (G13)
    assert "h1" not in list_sources(obs)


def test_g7_an_objects_replaced_system_bucket_stays_when_its_messages_cannot_be_applied():
    """G7, G7.5: the bucket is replaced before the messages are applied, and the failure does
    not undo it (a null entry among the messages fails the processor; Breakwater measured)."""
    value = ObjectOf(messages=ArrayOf(append=(None,)), system_messages=(SystemMessage("REPLACED"), SystemMessage("TWICE")))
    obs = _run(value)
    assert obs.outcome == FAILED
    assert [s.content for s in obs.list.untagged] == ["REPLACED", "TWICE"]
