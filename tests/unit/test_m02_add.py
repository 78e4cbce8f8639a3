"""M2 add: strings, nesting, refusals, system routing, thread check, part stamps, replacement."""

import pytest
from raw_json import HUMAN_OPERATOR, LOOP_NAMES, MAPPED_RESULT_A0, observe_call, run_normalised

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, user
from guardspec.model.values import UNDEFINED, Accessor, BigInt
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MastraError, MessageList
from guardspec.reference.reading import fingerprint

M, I, R, C = Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT


def test_m2_string_becomes_a_user_message():
    lst = ml.add(MessageList(clock=5), "hello", I)
    (m,) = lst.all()
    assert m.role is Role.USER
    assert m.text() == "hello"
    assert ml.sources_by_id(lst)[m.id] == {I}


def test_m2_one_level_of_nested_lists_is_flattened():
    lst = ml.add(MessageList(), (user("a", "1", 1), (user("b", "2", 2), user("c", "3", 3))), I)
    assert lst.ids() == ("a", "b", "c")


def test_m2_message_with_neither_content_nor_parts_is_refused():
    with pytest.raises(MastraError):
        ml.add(MessageList(), Message("x", Role.USER, parts=None), I)


def test_m2_message_with_empty_parts_is_accepted():
    lst = ml.add(MessageList(), Message("x", Role.USER, parts=()), I)
    assert lst.ids() == ("x",)


def test_m2_system_role_message_goes_to_the_untagged_bucket():
    """M2.8: a system-role message added under input goes to addSystem's untagged bucket."""
    lst = ml.add(MessageList(), SystemMessage("be brief"), I)
    assert lst.all() == ()
    assert [s.content for s in lst.untagged] == ["be brief"]
    assert lst.tagged == ()


def test_m2_db_shaped_system_message_without_content_string_is_refused():
    # Measured on real Mastra (Evidence: M2.8): a DB-shaped system message
    # goes through AIV4Adapter.systemToV4Core, which needs the content.content string; with
    # parts only it throws INVALID_SYSTEM_MESSAGE_FORMAT (the model's messages have no string).
    """M2.8: a stored-format system message added under input is refused INVALID_SYSTEM_MESSAGE_FORMAT."""
    sysmsg = Message("s", Role.SYSTEM, parts=(TextPart("be brief"),))
    with pytest.raises(ml.MastraError) as e:
        ml.add(MessageList(), sysmsg, I)
    assert e.value.code == "INVALID_SYSTEM_MESSAGE_FORMAT"


@pytest.mark.parametrize("entry", [Message("s", Role.SYSTEM, parts=(TextPart("x"),)), SystemMessage("x")])
def test_m2_system_message_added_as_memory_is_dropped(entry):
    """M2.8: a system-role message added under memory is dropped."""
    lst = ml.add(MessageList(), entry, M)
    assert lst.all() == () and lst.untagged == ()


@pytest.mark.parametrize("source", [I, R, C])
def test_m2_message_of_another_thread_is_refused(source):
    """M2.9: a message of another thread is refused under input, response and context."""
    lst = MessageList(thread_id="t1", resource_id="r1")
    with pytest.raises(MastraError):
        ml.add(lst, user("x", "hi", 1, thread_id="t2"), source)


def test_m2_non_memory_add_stamps_parts_from_the_scenario_clock():
    """M2.3: an input add stamps unstamped parts with the clock; a stamped part keeps its stamp."""
    lst = MessageList(clock=4242)
    m = Message("u", Role.USER, parts=(TextPart("a"), TextPart("b", created_at=42)), created_at=1)
    lst = ml.add(lst, m, I)
    (got,) = lst.all()
    assert [p.created_at for p in got.parts] == [4242, 42]


def test_m2_memory_add_stamps_nothing():
    """M2.3: an add under memory stamps nothing."""
    lst = ml.add(MessageList(clock=4242), user("u", "a", 1), M)
    assert lst.all()[0].parts[0].created_at is None


def test_m2_memory_message_re_added_under_input_changes_its_fingerprint():
    """M2.3: re-adding the list's memory object under input stamps its parts, so its fingerprint changes."""
    lst = ml.add(MessageList(clock=4242), user("u", "a", 1), M)
    before = lst.slot_of("u").message
    lst = ml.add(lst, before, I)
    after = lst.slot_of("u").message
    assert after.parts[0].created_at == 4242
    assert fingerprint(before) != fingerprint(after)


def test_m2_same_id_different_content_replaces_wholesale_and_leaves_every_source():
    """M2: user u1 memory then input (different text) → input only."""
    lst = ml.add(MessageList(), user("u1", "where am I?", 1000), M)
    lst = ml.add(lst, user("u1", "edited", 3000), I)
    assert lst.ids() == ("u1",)
    assert lst.slot_of("u1").message.text() == "edited"
    assert ml.sources_by_id(lst)["u1"] == {I}
    assert lst.view(M) == ()


def test_m2_add_is_not_atomic_and_a_deduplicated_memory_add_leaves_the_watermark():
    # measured on real Mastra (Evidence: M2.1, M2.4)
    """M2.1, M2.4, M3.5: a throwing add keeps what came before; an equal memory re-add leaves the watermark."""
    lst = MessageList(thread_id="t1", resource_id="r1", clock=1000)
    with pytest.raises(MastraError) as e:
        ml.add(lst, (user("m1", "one", 1000), user("x1", "elsewhere", 2000, thread_id="t2")), I)
    assert e.value.partial is not None and e.value.partial.ids() == ("m1",)
    lst = ml.add(lst, user("m1", "one", 1000), M)
    lst = ml.add(lst, user("m1", "one", 2000), M)
    lst = ml.add(lst, "a string", I)
    assert [m.created_at for m in lst.all()] == [1000, 1001]


def test_m2_image_part_is_held_as_a_file_part():
    # Measured (Evidence: M2.2): the stored format has no image part; an
    # appended {type:'image', data:'note-22', mediaType:'image/png'} is listed as a file part.
    """M2.2: an image part is held as a file part with the same data, media type and stamp."""
    from guardspec.model.messages import FilePart, ImagePart

    m = Message("u1", Role.USER, parts=(TextPart("look", created_at=5), ImagePart("note-22", "image/png", created_at=5)), created_at=1)
    lst = ml.add(MessageList(), m, I)
    assert lst.all()[0].parts == (TextPart("look", created_at=5), FilePart("note-22", "image/png", created_at=5))


def test_m2_a_same_id_add_compares_cache_keys_first_and_a_symbol_text_throws():
    """M2.5: a same-id add builds cache keys first, so a symbol text throws; a text is keyed as String of it."""
    # Evidence: M2.5 (raw Mastra 1.71.0 fails the call,
    # Breakwater fails the processor): ``shouldReplaceMessage`` builds both messages' cache keys
    # (``cacheKey += part.text``) before any fold or merge, and a symbol text cannot be added to a
    # string: the add throws. A text that is not a string is keyed as ``String`` gives it.
    from guardspec.model.values import JsSymbol

    lst = ml.add(MessageList(), Message("n2", Role.USER, (TextPart(JsSymbol("s")),), 5), M, merge=True)
    with pytest.raises(MastraError):
        ml.add(lst, user("n2", "later", 20), C)
    assert ml.part_key(TextPart(5)) == ml.part_key(TextPart("5"))


def test_m2_a_message_of_another_thread_is_accepted_under_memory_and_missing_ids_are_filled():
    """M2.9: the thread check applies to non-memory adds only; a missing thread or resource id is filled in."""
    lst = MessageList(thread_id="t1", resource_id="r1")
    lst = ml.add(lst, user("x", "elsewhere", 1, thread_id="t2", resource_id="r2"), M)
    lst = ml.add(lst, user("y", "no ids", 2), I)
    lst = ml.add(lst, user("z", "thread only", 3, thread_id="t1"), I)
    got = {m.id: (m.thread_id, m.resource_id) for m in lst.all()}
    assert got == {"x": ("t2", "r2"), "y": ("t1", "r1"), "z": ("t1", "r1")}


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


def _shared_copy(loop, copy="shallow", edits=({"setId": {"id": "a0", "newId": "n2"}},), after=None):
    array = {"base": "list", "copy": copy, "drop": [], "edits": list(edits), "append": []}
    processors = [
        {
            "id": "p2",
            "hooks": ["processInput"],
            "steps": [{"op": "add", "entries": [MAPPED_RESULT_A0], "source": "context", "merge": False}],
            "end": {"return": {"array": array}},
        },
    ]
    if after:
        processors.append({"id": "p3", "hooks": ["processInput"], "steps": [after], "end": {"return": "sameList"}})
    call = {"loop": loop, "actor": HUMAN_OPERATOR, "reply": "reply-0", "messages": [], "memory": {"thread": "t1", "resource": "r1"}}
    sj = {
        "guardspec": 1,
        "agent": {
            "memory": {"generateTitle": False},
            "processors": processors,
            "clientTools": [{"name": "lookup", "mapping": {"kind": "text", "prefix": "mapped:"}}],
        },
        "call": call,
    }
    return normalise_observation(model_observation(sj, "raw"), sj)


def _part_shapes(o):
    def part(p):
        return p["type"][:4] + (":" + p["text"] if "text" in p else "") + ("+PM" if "providerMetadata" in p else "")

    return {e["message"]["id"]: [part(p) for p in e["message"]["parts"]] for e in o["list"]["messages"]}


# evidence: M2.10
@pytest.mark.parametrize("loop", ["generate", "stream"])
@pytest.mark.parametrize(
    "copy, a0",
    [
        # {...m} and {...m, id} share the content: M11's write and the merged reply show in a0 too
        ("shallow", ["tool+PM", "text:reply-0"]),
        ("none", ["tool+PM", "text:reply-0"]),
        ("deep", ["tool"]),
    ],
)
def test_a_renamed_copy_shares_its_content_with_the_original(loop, copy, a0):
    """M2.10: a shallow or unchanged copy of a message shares its content: writes into one show in the other; a deep copy shares nothing."""
    assert _part_shapes(_shared_copy(loop, copy)) == {"a0": a0, "n2": ["tool+PM", "text:reply-0"]}


# evidence: M2.10
@pytest.mark.parametrize("loop", ["generate", "stream"])
@pytest.mark.parametrize("target", ["a0", "n2"])
def test_an_edit_in_place_of_a_shared_message_shows_in_both(loop, target):
    """M2.10: an in-place edit of the original or its renamed copy shows in both."""
    o = _shared_copy(loop, after={"op": "editMessage", "id": target, "text": "E"})
    assert _part_shapes(o) == {"a0": ["tool+PM", "text:E", "text:reply-0"], "n2": ["tool+PM", "text:E", "text:reply-0"]}


# evidence: M2.10
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize("target", ["a0", "n2"])
def test_the_prompt_sends_a_shared_edit_in_both_messages(loop, target):
    """M2.10: the prompt sends an edit of shared content in both messages, on every loop."""
    o = _shared_copy(loop, after={"op": "editMessage", "id": target, "text": "E"})
    sent = [p.get("text") for m in o["prompts"][0] if m["role"] == "assistant" for p in m["parts"]]
    assert sent.count("E") == 2


# evidence: M2.10
@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_a_copy_with_new_content_keeps_sharing_the_parts_it_did_not_replace(loop):
    """M2.10: a copy given new content keeps sharing the part objects it did not replace."""
    # {...m, content: {...m.content, parts: [...]}}: a new text part, the tool part object kept
    o = _shared_copy(loop, edits=({"editText": {"id": "a0", "text": "T"}}, {"setId": {"id": "a0", "newId": "n2"}}))
    assert _part_shapes(o) == {"a0": ["tool+PM"], "n2": ["tool+PM", "text:T", "text:reply-0"]}


# evidence: M2.10
@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_a_message_merged_into_the_copy_shows_in_the_original(loop):
    """M2.10: a message merged into the copy shows in the original that shares its content."""
    added = {
        "op": "add",
        "entries": [{"id": "a9", "role": "assistant", "createdAt": 3, "parts": [{"type": "text", "text": "M", "createdAt": 3}]}],
        "source": "input",
    }
    assert _part_shapes(_shared_copy(loop, after=added)) == {
        "a0": ["tool+PM", "text:M", "text:reply-0"],
        "n2": ["tool+PM", "text:M", "text:reply-0"],
    }


# a returned AI SDK system entry the next processor receives and copies: adapter runs (each copy
# kind and loop): answered, the prompt one user message and no system message, as the
# instructions were replaced by nothing
# evidence: M2.10
@pytest.mark.parametrize("copy", ["none", "shallow", "deep"])
@pytest.mark.parametrize("loop", LOOP_NAMES)
def test_a_received_system_entry_copied_by_the_next_processor_stays_a_system_message(copy, loop):
    """M2.10: a returned AI SDK system entry the next processor receives and copies is added as a system message, whatever the copy."""
    system = {"role": "system", "content": "note-05"}
    processors = [
        {
            "id": "p1",
            "hooks": ["processInput"],
            "steps": [{"op": "replaceAllSystemMessages", "entries": []}],
            "end": {"return": {"array": {"base": "received", "copy": "none", "drop": [], "edits": [], "append": [system]}}},
        },
        {
            "id": "p2",
            "hooks": ["processInput"],
            "steps": [],
            "end": {"return": {"array": {"base": "received", "copy": copy, "drop": [], "edits": [], "append": []}}},
        },
    ]
    o = run_normalised(loop, processors, [{"id": "c1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}])
    assert o["outcome"] == {"kind": "answered"}
    assert [(m["role"], [p.get("text") for p in m["parts"]]) for m in o["prompts"][0]] == [("user", ["hi"])]


@pytest.mark.parametrize("content", [None, UNDEFINED, 0, -0.0, BigInt(0), False])
@pytest.mark.parametrize("source", [Source.INPUT, Source.MEMORY, Source.CONTEXT])
def test_a_system_message_with_falsy_content_that_is_no_string_is_refused(content, source):
    """M2.7: add refuses a system message whose content is falsy and not a string, under any source, memory too."""
    with pytest.raises(MastraError) as e:
        ml.add(MessageList(), SystemMessage(content), source)
    assert e.value.code == "INVALID_MESSAGE_CONTENT"


def test_an_empty_string_system_content_passes_the_content_gate():
    """M2.7: an empty string is falsy but a string, so add's gate lets it through (memory drops it, M2.8)."""
    assert ml.add(MessageList(), SystemMessage(""), Source.MEMORY).all() == ()


# raw runs: a caller system message whose content is a getter: 'be brief' reaches the model; a
# throwing one: AGENT_GENERATE_FAILED before any processor (the list is never seen)
# evidence: M2.7
def test_the_content_gate_reads_a_content_getter_and_a_throwing_one_throws():
    """M2.7: the gate reads content through its getter: its value passes or is refused, a throwing getter throws."""
    lst = ml.add(MessageList(), SystemMessage(Accessor("g", "be brief")), Source.INPUT)
    assert [m.content for m in lst.untagged] == ["be brief"]
    with pytest.raises(MastraError) as e:
        ml.add(MessageList(), SystemMessage(Accessor("g", None)), Source.INPUT)
    assert e.value.code == "INVALID_MESSAGE_CONTENT"
    with pytest.raises(MastraError, match="getter g throws"):
        ml.add(MessageList(), SystemMessage(Accessor("g", throws=True)), Source.MEMORY)
    o = observe_call("generate", [{"role": "system", "content": {"$getter": "g", "throws": True}}, "hi"])
    assert o["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"} and o["list"] is None
