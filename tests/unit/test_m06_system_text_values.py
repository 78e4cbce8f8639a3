"""M6/M12 system text that is not a plain string: what ``addSystem`` stores (AI SDK v5 path) and
what the model receives, for getters and other values (Evidence: M6.1, M12.2).

Every expected value is the output of probe ``adapters/mastra/probes/k-system-text-values.mjs``
on real Mastra 1.71.0 (quoted in each test), not the model's own output.
"""

import pytest

from guardspec.model.jsvalues import join_texts, to_string
from guardspec.model.messages import FilePart, ReasoningPart, SystemMessage, TextPart, ToolPart, ToolState, user
from guardspec.model.values import UNDEFINED, Accessor, BigInt, JsObject, JsSymbol, obj
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import MastraError, MessageList
from guardspec.reference.prompt import prompt, system_prompt_entry


def _text_obj(text):
    return JsObject((("type", "text"), ("text", text)))


def _stored(*content):
    """The untagged content after ``addSystem({role: 'system', content: [...]})`` (no
    experimental_providerMetadata key: the AI SDK v5 conversion)."""
    lst = ml.add_system(MessageList(), SystemMessage(tuple(content)))
    return [m.content for m in lst.untagged]


# probe: `getter v5 addSystem: {"stored":["note-00"],"sent":["note-00"]}`
# evidence: M6.1
def test_a_getter_text_is_stored_as_its_value():
    """M6.1: on the v5 path a text getter is read and its value stored."""
    assert _stored(_text_obj(Accessor("get-t", "note-00"))) == ["note-00"]
    assert _stored(TextPart(Accessor("get-t", "note-00"))) == ["note-00"]


# probe: `obj v5 addSystem: {"stored":["[object Object]"]...}`, `arr ...: ["a,,b"]`, `num: ["1"]`,
# `bool: ["true"]`, `big: ["5"]`, `getterObj: ["[object Object]"]`, `two: ["a\n[object Object]"]`
# evidence: M6.1
@pytest.mark.parametrize(
    "content, stored",
    [
        ((TextPart(obj()),), "[object Object]"),
        ((TextPart(("a", None, "b")),), "a,,b"),
        ((TextPart(1),), "1"),
        ((TextPart(True),), "true"),
        ((TextPart(BigInt(5)),), "5"),
        ((_text_obj(Accessor("get-o", obj(a=1))),), "[object Object]"),
        ((TextPart("a"), TextPart(obj())), "a\n[object Object]"),
    ],
)
def test_other_text_values_are_joined_as_javascript_strings(content, stored):
    """M6.1, M14.3: other text values are stored as String of them, joined by newlines."""
    assert _stored(*content) == [stored]


# probe: `textFile v5: ["a"]`, `textTool v5: ["a"]`, `textReasoning v5: ["a"]`, `nulPart v5: ["a"]`
# evidence: M6.1
def test_parts_that_are_not_text_are_left_out_of_the_stored_text():
    """M6.1: file, tool, reasoning and null elements add no text on the v5 path."""
    tool = ToolPart("c", "n", ToolState.CALL, obj())
    assert _stored(TextPart("a"), FilePart("aGk=", "text/plain")) == ["a"]
    assert _stored(TextPart("a"), tool) == ["a"]
    assert _stored(ReasoningPart("r"), TextPart("a")) == ["a"]
    assert _stored(None, TextPart("a")) == ["a"]


# probe: `nul v5 addSystem: INVALID_SYSTEM_MESSAGE_FORMAT`, `undef ...`, `onlyFile ...`,
# `emptyText ...`; `{role: 'system', content: ''}` likewise (adapter run: failed)
# evidence: M6.1
@pytest.mark.parametrize(
    "content",
    [(TextPart(None),), (TextPart(UNDEFINED),), (FilePart("aGk=", "text/plain"),), (TextPart(""),), ""],
)
def test_a_system_message_with_no_text_at_all_is_refused(content):
    """M6.5: a system message whose v5 text comes out empty is refused."""
    with pytest.raises(MastraError) as e:
        ml.add_system(MessageList(), SystemMessage(content))
    assert e.value.code == "INVALID_SYSTEM_MESSAGE_FORMAT"


# probe: `getterThrows v5 addSystem: Error: getter throws`, `sym v5 addSystem: TypeError: Cannot
# convert a Symbol value to a string`
# evidence: M6.1
def test_a_throwing_getter_or_a_symbol_text_throws():
    """M6.1, M14.1: a throwing text getter or a symbol text makes addSystem throw."""
    with pytest.raises(MastraError) as e:
        _stored(_text_obj(Accessor("get-x", throws=True)))
    assert e.value.code == "Error"
    with pytest.raises(MastraError) as e:
        _stored(TextPart(JsSymbol("s")))
    assert e.value.code == "TypeError" and "Symbol" in str(e.value)


# probe: `getter v4 addSystem: {"stored":[["getter"]],"sent":["note-00"]}` and
# `getter v5/v4 replaceAll sent: ["note-00"]`
# evidence: M12.2
def test_a_kept_getter_stays_a_getter_and_the_model_receives_its_value():
    """M6.2, M12.2: a kept entry keeps its getter, and the prompt reads it."""
    getter = Accessor("get-t", "note-00")
    lst = ml.add_system(MessageList(), SystemMessage((TextPart(getter),), experimental_provider_metadata=None))
    assert lst.untagged[0].content == (TextPart(getter),)
    lst = ml.add(lst, user("u1", "hi", 5), ml.Source.INPUT)
    assert prompt(lst)[0].content == "note-00"
    assert system_prompt_entry(SystemMessage((TextPart(getter), TextPart(None)))).content == "note-00"


def test_javascript_strings_of_values():
    # String(v) / [..].join(sep) as node prints them
    assert [to_string(v) for v in (None, UNDEFINED, 1.0, 1.5, 1e-7, 1e-6, 1e21, float("nan"), float("inf"))] == [
        "null",
        "undefined",
        "1",
        "1.5",
        "1e-7",
        "0.000001",
        "1e+21",
        "NaN",
        "Infinity",
    ]
    assert join_texts(["a", None, UNDEFINED, 2, ("x", "y")], "-") == "a---2-x,y"
