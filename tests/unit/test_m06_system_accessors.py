"""M6 System messages whose own content, providerOptions or experimental_providerMetadata is an
accessor: what ``addSystem`` reads through the getter and what it keeps, and what the dedupe
reads. Expected values are real Mastra 1.71.0's answers to the same scenarios as the
protocol's JSON (docs/evidence/mastra.md; the raw runs quoted in each test)."""

import pytest
from raw_json import observe

from guardspec.model.messages import SystemMessage, TextPart
from guardspec.model.values import Accessor, obj
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MastraError, MessageList

GETTER = {"$getter": "g", "value": "be brief"}
THROWS = {"$getter": "g", "throws": True}
OPTIONS = {"$getter": "po", "value": {"openai": {"x": "y"}}}
OPTIONS_THROW = {"$getter": "po", "throws": True}


def _add_system(message, tag=None):
    step = {"op": "addSystem", "message": {"role": "system", **message}}
    if tag is not None:
        step["tag"] = tag
    return observe([{"id": "p1", "steps": [step]}])


# raw runs: addSystem({role: 'system', content: <getter 'be brief'>}), untagged and under tag `t`:
# the bucket holds {role: 'system', content: 'be brief'}, the model receives 'be brief'
# evidence: M6.1
@pytest.mark.parametrize("tag", [None, "t"])
def test_a_content_getter_on_the_v5_path_is_read_and_its_text_stored_as_data(tag):
    """M6.1: addSystem reads a content getter and stores a new object holding its text as data."""
    o = _add_system({"content": GETTER}, tag)
    bucket = o["list"]["untagged"][1:] if tag is None else o["list"]["tagged"][0][1]
    assert bucket == [{"role": "system", "content": "be brief"}]
    assert {"role": "system", "content": "be brief"} in o["prompts"][0]


# raw run: a content getter returning [{type: 'text', text: 'be brief'}]: stored 'be brief'
# evidence: M6.1
def test_a_content_getter_returning_text_parts_is_converted_as_parts():
    """M6.1: the value a content getter returns is converted as content would be: its texts joined."""
    o = _add_system({"content": {"$getter": "g", "value": [{"type": "text", "text": "be brief"}]}})
    assert o["list"]["untagged"][1] == {"role": "system", "content": "be brief"}


# raw run: addSystem({content: 'note', providerOptions: <getter {openai: {x: 'y'}}>}): stored
# {content: 'note', experimental_providerMetadata: {openai: {x: 'y'}}}, a data property
# evidence: M6.1
def test_a_provider_options_getter_on_the_v5_path_becomes_provider_metadata_as_data():
    """M6.1: addSystem reads a providerOptions getter; its value becomes experimental_providerMetadata."""
    o = _add_system({"content": "note", "providerOptions": OPTIONS})
    assert o["list"]["untagged"][1] == {"role": "system", "content": "note", "experimental_providerMetadata": {"openai": {"x": "y"}}}


# raw runs: a throwing content getter (with or without an experimental_providerMetadata key) and a
# throwing providerOptions getter on the v5 path: the processor throws, AGENT_GENERATE_FAILED
# evidence: M6.5
@pytest.mark.parametrize(
    "message",
    [
        {"content": THROWS},
        {"content": THROWS, "experimental_providerMetadata": {"openai": {"x": "z"}}},
        {"content": "note", "providerOptions": OPTIONS_THROW},
    ],
    ids=["content-v5", "content-v4", "options-v5"],
)
def test_a_throwing_getter_that_addsystem_reads_fails_the_call(message):
    """M6.5: addSystem reads content first on either path (and providerOptions on the v5 path): a throwing getter throws there."""
    o = _add_system(message)
    assert o["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}
    assert o["list"]["untagged"] == [{"role": "system", "content": "You are a guarded agent."}]


# raw runs: addSystem with an experimental_providerMetadata key and a content getter, or an
# experimental_providerMetadata getter: the bucket keeps the object, getter and all
# evidence: M6.2
@pytest.mark.parametrize(
    "message",
    [
        {"content": GETTER, "experimental_providerMetadata": {"openai": {"x": "z"}}},
        {"content": "note", "experimental_providerMetadata": OPTIONS},
        {"content": "note", "experimental_providerMetadata": OPTIONS_THROW},
    ],
    ids=["content", "metadata", "throwing-metadata"],
)
def test_on_the_v4_path_the_entry_is_kept_with_its_accessors(message):
    """M6.2: an experimental_providerMetadata key, an accessor included, keeps the entry as given, accessors uncalled."""
    o = _add_system(message)
    assert o["list"]["untagged"][1] == {"role": "system", **message}


def test_the_dedupe_key_reads_kept_content_through_its_getter():
    """M6.3: a kept entry's content getter is read for the dedupe key: a string equal to its value is a duplicate."""
    lst = ml.replace_all_system(MessageList(), [SystemMessage(Accessor("g", "be brief"))])
    assert ml.add_system(lst, "be brief").untagged == lst.untagged
    assert len(ml.add_system(lst, "other").untagged) == 2


# raw run: replaceAllSystemMessages([{content: <throwing getter>}]) then addSystem('more'):
# AGENT_GENERATE_FAILED, the bucket holding the getter alone
# evidence: M6.3
def test_a_throwing_content_getter_kept_in_a_bucket_makes_a_later_addsystem_throw():
    """M6.3: the dedupe scan keys each kept entry, so a throwing content getter in the bucket throws at the next addSystem."""
    steps = [{"op": "replaceAllSystemMessages", "entries": [{"role": "system", "content": THROWS}]}, {"op": "addSystem", "message": "more"}]
    o = observe([{"id": "p1", "steps": steps}])
    assert o["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}
    assert o["list"]["untagged"] == [{"role": "system", "content": THROWS}]
    with pytest.raises(MastraError, match="getter g throws"):
        ml.add_system(ml.replace_all_system(MessageList(), [SystemMessage(Accessor("g", throws=True))]), "more")


def test_replace_all_keeps_own_accessors_uncalled():
    """M6.6: replaceAllSystemMessages keeps an entry whose own fields are accessors as it is, a throwing one included."""
    entry = SystemMessage(Accessor("g", throws=True), Accessor("po", obj(a=1)), Accessor("pm", throws=True))
    assert ml.replace_all_system(MessageList(), [entry]).untagged == (entry,)


def test_a_content_getter_returning_parts_is_stored_joined_on_the_v5_path():
    """M6.1: a content getter's text parts are joined by newlines as array content is."""
    lst = ml.add_system(MessageList(), SystemMessage(Accessor("g", (TextPart("a"), TextPart("b")))))
    assert [m.content for m in lst.untagged] == ["a\nb"]


# raw runs: replaceAllSystemMessages([{role: 'system', content: 'be brief', providerOptions:
# <getter>}]) then `bucket[0].providerOptions = {note: 'y'}` in the same step: generate fails
# (AGENT_GENERATE_FAILED: the processor threw, M9), durable goes on (M10); a new accessor
# defined over the content getter is no error
# evidence: M14.1
@pytest.mark.parametrize("loop, kind", [("generate", "failed"), ("durable", "answered")])
def test_assigning_to_an_own_accessor_throws_and_defining_a_new_one_does_not(loop, kind):
    """M14.1: an accessor has no setter; assigning to it throws a TypeError, defining another
    accessor in its place replaces it."""
    kept = {"op": "replaceAllSystemMessages", "entries": [{"role": "system", "content": "be brief", "providerOptions": OPTIONS}]}
    assign = {"op": "editSystem", "index": 0, "field": "providerOptions", "value": {"note": "y"}}
    o = observe([{"id": "p1", "steps": [kept, assign]}], loop)
    assert o["outcome"]["kind"] == kind
    redefine = {"op": "editSystem", "index": 0, "field": "content", "value": {"$getter": "g2", "value": "other"}}
    kept_content = {"op": "replaceAllSystemMessages", "entries": [{"role": "system", "content": GETTER}]}
    assert observe([{"id": "p1", "steps": [kept_content, redefine]}], loop)["outcome"]["kind"] == "answered"
