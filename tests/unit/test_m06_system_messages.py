"""M6 System messages: addSystem dedupe per bucket, prompt order, replaceAllSystemMessages."""

import pytest
from raw_json import observe

from guardspec.model.messages import Message, Role, SystemMessage, TextPart, user
from guardspec.model.values import UNDEFINED, JsSymbol, obj
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MastraError, MessageList
from guardspec.reference.prompt import prompt


def _contents(msgs):
    return [m.content for m in msgs]


def test_m6_add_system_dedupes_within_one_bucket_by_content():
    """M6.3: string content is keyed by the string alone, options ignored, the first entry wins."""
    lst = ml.add_system(MessageList(), "same")
    lst = ml.add_system(lst, "same")
    lst = ml.add_system(lst, SystemMessage("same", provider_options=obj(x=1)))
    assert _contents(lst.untagged) == ["same"]


def test_m6_same_text_may_exist_untagged_and_under_each_tag():
    """M6.3: the same text may stand untagged and under each tag."""
    lst = ml.add_system(MessageList(), "same")
    lst = ml.add_system(lst, "same", "tagA")
    lst = ml.add_system(lst, "same", "tagB")
    lst = ml.add_system(lst, "same", "tagA")
    assert _contents(lst.untagged) == ["same"]
    assert [(t, _contents(b)) for t, b in lst.tagged] == [("tagA", ["same"]), ("tagB", ["same"])]


def test_m6_prompt_order_is_untagged_then_tags_in_insertion_order():
    lst = ml.add_system(MessageList(), "tagged B", "tagB")
    lst = ml.add_system(lst, "base")
    lst = ml.add_system(lst, "tagged A", "tagA")
    lst = ml.add_system(lst, "more base")
    lst = ml.add(lst, user("u1", "hi", 1), ml.Source.INPUT)
    entries = prompt(lst)
    assert [e.content for e in entries[:4]] == ["base", "more base", "tagged B", "tagged A"]
    assert isinstance(entries[4], Message) and entries[4].id == "u1"


def test_m6_replace_all_replaces_the_untagged_bucket_only_without_dedupe():
    """M6.6: replaceAllSystemMessages refills the untagged bucket in order, others skipped, no dedupe."""
    lst = ml.add_system(MessageList(), "base")
    lst = ml.add_system(lst, "t", "tagA")
    lst = ml.replace_all_system(lst, [SystemMessage("r1"), user("u9", "not system", 1), SystemMessage("r1")])
    assert _contents(lst.untagged) == ["r1", "r1"]
    assert [(t, _contents(b)) for t, b in lst.tagged] == [("tagA", ["t"])]
    assert lst.all() == ()


def test_m6_replace_all_keeps_array_content_and_part_options():
    """M6.6: replaceAllSystemMessages keeps array content and part providerOptions."""
    # Evidence: M6.6: replaceAllSystemMessages stores entries as given.
    parts = (TextPart("p", provider_options=obj(anthropic=obj(cacheControl=obj(type="z")))),)
    lst = ml.replace_all_system(MessageList(), [SystemMessage(parts)])
    assert lst.untagged[0].content == parts


def test_m6_add_system_flattens_array_content_without_metadata_key():
    """M6.1: on the v5 path texts are joined by newlines, part options dropped, message options moved."""
    # Evidence: M6.1 (v5 path): joined with newlines, part options dropped,
    # message providerOptions moved to experimental_providerMetadata.
    po = obj(anthropic=obj(cacheControl=obj(type="msg")))
    msg = SystemMessage((TextPart("hello", provider_options=obj(a=1)), TextPart("world")), provider_options=po)
    (stored,) = ml.add_system(MessageList(), msg).untagged
    assert stored.content == "hello\nworld"
    assert stored.experimental_provider_metadata == po
    assert stored.provider_options is UNDEFINED


def test_m6_add_system_with_metadata_key_is_stored_as_given():
    """M6.2: with an experimental_providerMetadata key, even null, the message is stored as given."""
    parts = (TextPart("hello", provider_options=obj(a=1)), TextPart("world"))
    msg = SystemMessage(parts, provider_options=obj(b=2), experimental_provider_metadata=None)
    (stored,) = ml.add_system(MessageList(), msg).untagged
    assert stored.content == parts
    assert stored.provider_options == obj(b=2)


def test_m6_add_system_refuses_a_user_role_message():
    """M6.5: addSystem refuses a message of another role."""
    with pytest.raises(MastraError):
        ml.add_system(MessageList(), Message("u", Role.USER, parts=(TextPart("x"),)))


def test_m6_replace_all_keeps_a_stored_format_system_message_as_it_is():
    """M6.6, M6.4: a kept stored-format entry stays {format: 2, parts} and poisons its bucket alone."""
    # Measured (Evidence: M6.6, M6.4): the bucket holds
    # the stored-format message, content ``{format: 2, parts}``; it is never sent; a later
    # untagged ``addSystem`` throws ``TypeError: content is not iterable``; a tagged one works.
    from guardspec.model import codec

    db = Message("n1", Role.SYSTEM, parts=(TextPart("note-00"),), created_at=5)
    lst = ml.replace_all_system(MessageList(), [db])
    assert codec.system_to_json(lst.untagged[0]) == {
        "role": "system",
        "content": {"format": 2, "parts": [{"type": "text", "text": "note-00"}]},
    }
    assert codec.system_from_json(codec.system_to_json(lst.untagged[0])) == lst.untagged[0]
    with pytest.raises(MastraError) as e:
        ml.add_system(lst, "note-01")
    assert e.value.code == "TypeError"
    tagged = ml.add_system(lst, "note-02", "tagA")
    assert [m.content for m in prompt(tagged)] == ["note-02"]


def test_m6_prompt_system_entry_as_the_model_receives_it():
    """M12.2: a system entry is sent as its text parts concatenated, with the options the clause names."""
    # Measured (Evidence: M12.2): array content is the
    # concatenation of its text parts without separator, other parts adding no text, no part at
    # all → not sent; providerOptions: the message's own, else its experimental_providerMetadata, else the
    # text parts' spread together; non-text content is not sent.
    from guardspec.model.messages import FilePart
    from guardspec.reference.prompt import system_prompt_entry

    t = lambda x, po=UNDEFINED: TextPart(x, po)  # noqa: E731
    assert system_prompt_entry(SystemMessage((t("a", obj(x=1)), t("b", obj(y=2))))) == SystemMessage("ab", obj(x=1, y=2))
    assert system_prompt_entry(SystemMessage((t("a", obj(note=1)), t("b", obj(note=2, other=3))))) == SystemMessage(
        "ab", obj(note=2, other=3)
    )
    assert system_prompt_entry(SystemMessage((t("a", obj(y=1)),), obj(note=9))) == SystemMessage("a", obj(note=9))
    assert system_prompt_entry(SystemMessage("x", obj(note=2), obj(note=1))) == SystemMessage("x", obj(note=2))
    assert system_prompt_entry(SystemMessage("a", None, obj(b=2))) == SystemMessage("a", obj(b=2))
    assert system_prompt_entry(SystemMessage((t("a"), FilePart("aGk=", "text/plain")))) == SystemMessage("a")
    # a file part alone is sent without text (measured: ``[{type: 'file', data, mediaType}]``)
    assert system_prompt_entry(SystemMessage((FilePart("aGk=", "text/plain"),))) == SystemMessage("")
    assert system_prompt_entry(SystemMessage((3, "x"))) is None  # values that are no part
    assert system_prompt_entry(SystemMessage(())) is None
    assert system_prompt_entry(SystemMessage(UNDEFINED)) is None
    assert system_prompt_entry(SystemMessage(5)) is None
    assert system_prompt_entry(SystemMessage("")) == SystemMessage("")


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# evidence: M6.4
def test_a_system_message_without_content_under_a_new_tag_is_kept_and_the_call_answers():
    """M6.4: addSystem of a system message with no content into an empty tagged bucket keeps it, and the call answers."""
    # adapter run: `addSystem({role: 'system'}, 'tag-a')`: answered
    o = observe([{"id": "p1", "steps": [{"op": "addSystem", "message": {"role": "system"}, "tag": "tag-a"}]}])
    assert o["outcome"] == {"kind": "answered"}
    assert o["list"]["tagged"] == [["tag-a", [{"role": "system"}]]]


# evidence: M6.4
def test_a_system_message_without_content_in_a_bucket_with_entries_fails_the_call():
    """M6.4: addSystem of a system message with no content into a bucket that has entries throws, failing the call."""
    # M6.4: the untagged bucket holds the instructions; the dedupe scan throws `content is not iterable`
    o = observe([{"id": "p1", "steps": [{"op": "addSystem", "message": {"role": "system"}}]}])
    assert o["outcome"]["kind"] == "failed"


# evidence: M6.4
def test_provider_options_edited_onto_a_kept_system_entry_show_in_the_list():
    """M6.4: providerOptions set on a kept system entry by an edit show on that entry in the list."""
    # impl `$.list.tagged[0][1][0].providerOptions: {"note": "note-05"}`
    steps = [
        {"op": "addSystem", "message": {"role": "system"}, "tag": "tag-a"},
        {"op": "editSystem", "index": 0, "field": "providerOptions", "value": {"note": "note-05"}},
    ]
    o = observe([{"id": "p1", "steps": steps, "end": {"abortThenThrow": {"reason": "", "message": ""}}}])
    assert o["list"]["untagged"][0] == {"role": "system", "content": "You are a guarded agent.", "providerOptions": {"note": "note-05"}}


# evidence: M6.7
def test_new_content_on_a_kept_stored_format_system_entry_is_sent():
    """M6.7: editing the content of a kept stored-format system entry replaces it, and the model receives the new content."""
    # adapter runs: replaceAll([stored-format system message]), then editSystem content
    # "note-00": the model receives {role: 'system', content: 'note-00'}
    stored = {"id": "u0", "role": "system", "createdAt": 20, "parts": [{"type": "file", "data": "note-05", "mediaType": "text/plain"}]}
    steps = [
        {"op": "replaceAllSystemMessages", "entries": [stored]},
        {"op": "editSystem", "index": 0, "field": "content", "value": "note-00"},
    ]
    o = observe([{"id": "p1", "steps": steps}], loop="durable", messages=["hi"])
    assert o["prompts"][0][0] == {"role": "system", "content": "note-00"}


# evidence: M6.6
def test_a_kept_stored_format_system_entry_keeps_its_messages_metadata():
    """M6.6: a kept stored-format system entry keeps its message's metadata until its content is edited."""

    # adapter run: replaceAllSystemMessages of stored-format
    # system messages with metadata [null, 1] and {k: 'v'}: the untagged bucket lists
    # {format: 2, parts, metadata} with that metadata; an editSystem of the content drops it
    def entry(id, text, metadata):
        return {"id": id, "role": "system", "createdAt": 5, "parts": [{"type": "text", "text": text}], "metadata": metadata}

    steps = [{"op": "replaceAllSystemMessages", "entries": [entry("a0", "note-09", [None, 1]), entry("a1", "note-10", {"k": "v"})]}]
    o = observe([{"id": "p1", "steps": steps, "end": {"abortThenThrow": {"reason": "r", "message": "m"}}}], messages=["hi"])
    assert [e["content"].get("metadata") for e in o["list"]["untagged"]] == [[None, 1], {"k": "v"}]
    edit = {"op": "editSystem", "index": 0, "field": "content", "value": "note-00"}
    o = observe([{"id": "p1", "steps": [*steps, edit], "end": {"abortThenThrow": {"reason": "r", "message": "m"}}}], messages=["hi"])
    assert o["list"]["untagged"][0] == {"role": "system", "content": "note-00"}


# evidence: M6.6
def test_empty_metadata_on_a_kept_system_entry_counts_as_none():
    """M6.6: metadata {} on a kept stored-format system entry is normalised away, as for messages."""
    # the adapter reports content.metadata {} as none (as for messages): both sides normalised
    from guardspec.mastra.normalise import normalise_observation

    entry = {"role": "system", "content": {"format": 2, "parts": [{"type": "text", "text": "a"}], "metadata": {}}}
    out = normalise_observation({"list": {"messages": [], "untagged": [entry], "tagged": []}}, {})
    assert out["list"]["untagged"][0]["content"] == {"format": 2, "parts": [{"type": "text", "text": "a"}]}


def _kept(content, **kw):
    """A system message kept as given (an experimental_providerMetadata key: the v4 path, M6.2)."""
    return SystemMessage(content, experimental_provider_metadata=None, **kw)


# The keys below are worked out by hand from ``CacheKeyGenerator.fromAIV4CoreMessageContent``
# (@mastra/core 1.71.0): each element's ``type`` appended as a string, then per type a few fields.


@pytest.mark.parametrize(
    "first, second",
    [
        ((TextPart("ab"),), (TextPart("cd"),)),  # "text2" both: lengths, not texts
        ((TextPart("ab"),), "text2"),  # a string content is its own key
        ((TextPart("\U0001f600"),), (TextPart("ab"),)),  # one character outside the BMP: length 2
        ((3,), "undefined"),  # a number has no type
        (("x", True), (3, "y")),  # "undefinedundefined" both
        ((obj(type="image", image="aGk="),), "image4undefined"),  # an image string by its length
    ],
)
def test_m6_array_content_is_keyed_by_the_concatenated_element_keys(first, second):
    """M6.3: the second add is a duplicate of the first: the same concatenated key."""
    lst = ml.add_system(MessageList(), _kept(first))
    lst = ml.add_system(lst, second if isinstance(second, str) else _kept(second))
    assert len(lst.untagged) == 1


@pytest.mark.parametrize(
    "first, second",
    [
        ((TextPart("ab"),), (TextPart("abc"),)),
        ((TextPart("ab"),), (obj(type="text", text="ab", providerMetadata=obj(openai=obj(itemId="i1"))),)),  # "text2|openai:i1"
        ((obj(type="image", image="aGk="),), (obj(type="image", image="aGk=", mimeType="image/png"),)),
        ((obj(type="tool-call", toolCallId="c1", toolName="t"),), (obj(type="tool-call", toolCallId="c2", toolName="t"),)),
    ],
)
def test_m6_array_content_with_another_element_key_is_added(first, second):
    """M6.3: a different concatenated key is no duplicate: both entries stand."""
    lst = ml.add_system(MessageList(), _kept(first))
    lst = ml.add_system(lst, _kept(second))
    assert len(lst.untagged) == 2


@pytest.mark.parametrize("element, name", [(None, "null"), (UNDEFINED, "undefined")])
def test_m6_a_null_element_in_a_stored_entry_throws_at_the_next_add(element, name):
    """M6.3: the dedupe scan reads ``type`` of every element of a stored entry: a null or
    undefined one throws, and nothing is added."""
    lst = ml.add_system(MessageList(), _kept((TextPart("Be brief."), element)))
    with pytest.raises(MastraError, match=rf"Cannot read properties of {name} \(reading 'type'\)"):
        ml.add_system(lst, "Answer in French.")


def test_m6_a_symbol_type_throws_at_the_next_add():
    """M6.3, M14.3: a symbol appended to the key string throws."""
    lst = ml.add_system(MessageList(), _kept((obj(type=JsSymbol("s")),)))
    with pytest.raises(MastraError, match="Cannot convert a Symbol value to a string"):
        ml.add_system(lst, "Answer in French.")
