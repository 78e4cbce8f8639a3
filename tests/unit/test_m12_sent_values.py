"""M12 Model step: what the model receives of values that are not plain text (file data, metadata,
tool outcomes, cached outputs), and the values the prompt conversion cannot write. Expected
values are real Mastra 1.71.0's answers to the same scenarios (docs/evidence/mastra.md)."""

import pytest
from raw_json import LOOP_NAMES, NOTE_PARTS, adds, message, observe, observe_call, observe_with_memory, run_normalised

from guardspec.model.values import UNDEFINED, JsSymbol, obj
from guardspec.reference.downloads import received_data


# probe k-prompt-file-data (assistant message): obj → "[object Object]", 1 → "1",
# ['a', null, 2] → "a", null/undefined → "undefined", Symbol('s') → "Symbol(s)", true → "true",
# 0.5 → "0.5", 'aGk=' → "aGk="
# evidence: M12.8
@pytest.mark.parametrize(
    "data, sent",
    [
        (obj(answer="note-12"), "[object Object]"),
        (1, "1"),
        (("a", None, 2), "a"),
        (None, "undefined"),
        (UNDEFINED, "undefined"),
        (JsSymbol("s"), "Symbol(s)"),
        (True, "true"),
        (0.5, "0.5"),
        ("aGk=", "aGk="),
    ],
)
def test_file_data_reaches_the_model_as_its_javascript_string_before_the_first_comma(data, sent):
    """M12.8: the model receives file data as String(data) read back from a data URI: the text before its first comma."""
    assert received_data(data) == sent


# evidence: M12.8
def test_an_assistant_file_whose_data_is_an_object_is_sent_as_its_string():
    """M12.8: an assistant file part's object data reaches the prompt as the string `[object Object]`."""
    # adapter run (scenario fd-obj-assistant): prompt part data "[object Object]"
    file = {"type": "file", "data": {"answer": "note-12"}, "mediaType": "text/plain"}
    o = observe([], messages=["hi", {"id": "m2", "role": "assistant", "createdAt": 2, "parts": [file]}, "ok?"])
    sent = [p for m in o["prompts"][0] if "parts" in m for p in m["parts"] if p["type"] == "file"]
    assert [p["data"] for p in sent] == ["[object Object]"]


# evidence: M12.9
@pytest.mark.parametrize(
    "loop, error, stored",
    [("generate", "TypeError: p.text?.trim is not a function", 0), ("durable", "TypeError: p.text?.trim is not a function", 2)],
)
def test_a_kept_system_text_that_is_no_string_fails_the_prompt_conversion(loop, error, stored):
    """M12.9: a kept system entry whose text part holds no string fails the prompt conversion before the model."""
    # adapter runs: replaceAllSystemMessages([{content: [{type: 'text', text: 1}]}]); generate
    # saves nothing, durable saves [user, error response] and titles the thread "User: hi"
    p = {
        "id": "p1",
        "steps": [{"op": "replaceAllSystemMessages", "entries": [{"role": "system", "content": [{"type": "text", "text": 1}]}]}],
    }
    o = observe_with_memory(loop, ["hi"], processors=[p], title=True)
    assert o["outcome"] == {"kind": "failed", "error": error} and o["prompts"] == []
    assert len(o["stored"]) == stored
    assert o["title"] == ("User: hi" if loop == "durable" else "")


# evidence: M12.9
@pytest.mark.parametrize(
    "loop, error",
    [("generate", "AGENT_GENERATE_FAILED"), ("stream", "AGENT_STREAM_FAILED"), ("durable", "TypeError: p.text?.trim is not a function")],
)
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_a_message_text_that_is_no_string_fails_the_prompt_conversion(loop, error, role):
    """M12.9: a message's text part holding no string fails the prompt conversion on every loop, before the model."""
    # adapter runs (a caller message with text {}): text 1, {},
    # true, ['a'] fail on every loop; generate/stream report their own id
    msgs = [message("c00", role, 0, [{"type": "text", "text": 1}])]
    o = observe_with_memory(loop, msgs if role == "user" else ["hi", *msgs, "more"])
    assert o["outcome"] == {"kind": "failed", "error": error} and o["prompts"] == []


# evidence: M12.5
@pytest.mark.parametrize("metadata", [{"a": 1}, [None, 1], "str"])
def test_caller_message_metadata_does_not_reach_the_prompt(metadata):
    """M12.5: a caller message's metadata is never sent: each prompt message is role and content."""
    # probe k-message-metadata-prompt: each prompt message is {role, content}, for a user and an
    # assistant message whose content.metadata is {a: 1}, [null, 1] or 'str'
    msgs = [
        {**message("c0", "user", 1, [{"type": "text", "text": "hi"}]), "metadata": metadata},
        {**message("c1", "assistant", 2, [{"type": "text", "text": "yo"}]), "metadata": metadata},
    ]
    o = observe([], loop="stream", messages=msgs)
    sent = [e for e in o["prompts"][0] if e["role"] != "system"]
    assert [e["role"] for e in sent] == ["user", "assistant"] and not any("metadata" in e for e in sent)


# evidence: M12.5
@pytest.mark.parametrize("metadata", [{"a": 1}, "note-34", [], 3, None, True])
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_an_added_messages_metadata_is_not_in_the_prompt(role, metadata):
    """M12.5: a processor-added message's metadata, whatever its value, is not in the prompt."""
    # adapter runs (generate and durable): a processor appends n1 [text "t"] with
    # this metadata: the prompt's message has no metadata, whatever its value
    msg = {"id": "n1", "role": role, "createdAt": 0, "parts": [{"type": "text", "text": "t"}], "metadata": metadata}
    p1 = {"id": "p1", "steps": [], "end": {"return": {"array": {"base": "list", "append": [msg]}}}}
    o = observe_call("generate", ["hi"], [p1])
    sent = [m for m in o["prompts"][0] if any(p.get("text") == "t" for p in m.get("parts", []))]
    assert len(sent) == 1 and "metadata" not in sent[0]


THROWS = {"a": {"$getter": "get-a", "throws": True}}


GETTER_FAILED = {"generate": "AGENT_GENERATE_FAILED", "stream": "AGENT_STREAM_FAILED", "durable": "Error: getter get-a throws"}


# evidence: M12.9
@pytest.mark.parametrize(
    "where", ["processor-user", "assistant-then-user", "assistant-input", "caller-user", "caller-assistant", "merge-target", "class"]
)
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize("memory", [True, False])
def test_a_throwing_getter_in_message_metadata_fails_before_the_model(where, loop, memory):
    """M12.9: a throwing getter in any message's metadata fails the prompt conversion before the model."""
    # adapter runs: generate AGENT_GENERATE_FAILED, stream AGENT_STREAM_FAILED, durable
    # "Error: getter get-a throws" (its stack: AIV5Adapter.toUIMessage in MessageList.all.aiV5.model,
    # called by MastraLLMVNext.stream); no prompt sent; nothing stored, but on the durable loop
    # with memory the caller's messages before the one it cannot write (M13.4): [c1]
    caller, entries, source = [], [], None
    if where == "processor-user":
        entries = [{"id": "n1", "role": "user", "createdAt": 2, "parts": NOTE_PARTS, "metadata": THROWS}]
    elif where == "assistant-then-user":
        entries = [
            {"id": "a0", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": THROWS},
            {"id": "n1", "role": "user", "createdAt": 3, "parts": NOTE_PARTS},
        ]
    elif where == "assistant-input":
        entries, source = [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": THROWS}], "input"
    elif where == "caller-user":
        caller = [{"id": "c1", "role": "user", "createdAt": 1, "parts": NOTE_PARTS, "metadata": THROWS}]
    elif where == "caller-assistant":
        caller = [
            {"id": "c1", "role": "user", "createdAt": 1, "parts": NOTE_PARTS},
            {"id": "c2", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": THROWS},
        ]
    elif where == "merge-target":
        entries, source = [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": THROWS}], "response"
    else:
        entries, source = (
            [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": {"$class": "K", "props": THROWS}}],
            "response",
        )
    o = run_normalised(loop, [adds(entries, source)] if entries else [], caller, memory)
    assert o["outcome"] == {"kind": "failed", "error": GETTER_FAILED[loop]}
    assert o["prompts"] == []
    saved = ["c1"] if (where, loop, memory) == ("caller-assistant", "durable", True) else []
    assert [m["id"] for m in o["stored"] or []] == saved


def _system_content(value, loop, memory=False, steps=None):
    p1 = {"id": "p1", "steps": steps or [{"op": "editSystem", "index": 0, "field": "content", "value": value}]}
    c1 = {"id": "c1", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "hi"}]}
    return run_normalised(loop, [p1], [c1], memory)


NOTE_05 = {"type": "text", "text": "note-05"}


NULL_TYPE = "TypeError: Cannot read properties of null (reading 'type')"


UNDEFINED_TYPE = "TypeError: Cannot read properties of undefined (reading 'type')"


# adapter runs (caller c1, the agent's instructions edited; each loop,
# memory on and off): the call fails with the TypeError itself (not AGENT_*_FAILED) on every
# loop, before any prompt; nothing is stored, except on the durable loop with memory: c1 and an
# error response (M12.9's durable path)
# evidence: M12.9
@pytest.mark.parametrize(
    "value, error",
    [
        ([None], NULL_TYPE),
        ([{"$undefined": True}], UNDEFINED_TYPE),
        ([NOTE_05, None], NULL_TYPE),
        ([None, NOTE_05], NULL_TYPE),
        ([NOTE_05, {"$undefined": True}], UNDEFINED_TYPE),
        ([3], None),
        (["x"], None),
        ([NOTE_05], None),
    ],
)
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize("memory", [False, True])
def test_a_null_element_in_system_content_fails_the_prompt(value, error, loop, memory):
    """M12.9: a null or undefined element of a system entry's content array fails the prompt with the TypeError itself."""
    o = _system_content(value, loop, memory)
    stored = [m["id"] for m in o["stored"] or []]
    if error is None:
        assert o["outcome"] == {"kind": "answered"} and len(o["prompts"]) == 1
        return
    assert o["outcome"] == {"kind": "failed", "error": error}
    assert o["prompts"] == []
    if loop == "durable" and memory:
        assert len(stored) == 2 and stored[0] == "c1"
        assert o["stored"][1]["role"] == "assistant" and [p["text"] for p in o["stored"][1]["parts"]] == ["<mastra part error>"]
    else:
        assert stored == []


BAD_TEXT = [{"type": "text", "text": 5}]


# adapter runs (generate and durable): the null element is found
# before M12.9's text that is no string, whichever entry or bucket holds it
# evidence: M12.9
@pytest.mark.parametrize(
    "steps",
    [
        [
            {"op": "addSystem", "message": "note-07"},
            {"op": "editSystem", "index": 0, "field": "content", "value": BAD_TEXT},
            {"op": "editSystem", "index": 1, "field": "content", "value": [None]},
        ],
        [
            {"op": "addSystem", "message": "note-07", "tag": "t"},
            {"op": "editSystem", "index": 0, "field": "content", "value": BAD_TEXT},
            {"op": "editSystem", "index": 0, "tag": "t", "field": "content", "value": [None]},
        ],
        [{"op": "editSystem", "index": 0, "field": "content", "value": BAD_TEXT + [None]}],
    ],
)
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_a_null_system_element_is_found_before_a_text_that_is_no_string(steps, loop):
    """M12.9: the null element is found before a text that is no string, whichever entry or bucket holds it."""
    o = _system_content(None, loop, steps=steps)
    assert o["outcome"] == {"kind": "failed", "error": NULL_TYPE}


def _lookup_tool(tc, result, cached=None, state="result"):
    p = {"type": "tool-invocation", "toolCallId": tc, "toolName": "lookup", "state": state, "args": {"q": "a"}}
    if state == "result":
        p["result"] = result
    if state == "output-error":
        p["errorText"] = "boom"
    if state == "output-denied":
        p["approval"] = {"approved": False, "reason": "no"}
    if cached is not None:
        p["providerMetadata"] = {"mastra": {"modelOutput": cached}}
    return p


OUTPUT_1 = {"type": "text", "value": "M1"}


OUTPUT_2 = {"type": "text", "value": "M2"}


def _sent_results(loop, assistants):
    msgs = [{"id": "c0", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "hi"}]}]
    for i, parts in enumerate(assistants):
        msgs.append({"id": f"a{i + 1}", "role": "assistant", "createdAt": 2 + 2 * i, "parts": parts})
        msgs.append({"id": f"u{i + 1}", "role": "user", "createdAt": 3 + 2 * i, "parts": [{"type": "text", "text": f"u{i + 1}"}]})
    o = run_normalised(loop, [], msgs, memory=False)
    assert o["outcome"] == {"kind": "answered"}
    return [
        (p["toolCallId"], p["state"], p.get("result", p.get("errorText")))
        for e in o["prompts"][0]
        if isinstance(e, dict)
        for p in e.get("parts") or []
        if p.get("type") == "tool-invocation"
    ]


# adapter runs (caller [c0, a1, u1, a2, u2, ...], generate and durable
# alike): every tool result of a toolCallId is sent with the last cached output a result of that id
# holds on the list (llmPrompt's storedModelOutputs, a Map by toolCallId)
# evidence: M12.7
@pytest.mark.parametrize(
    "assistants, sent",
    [
        (
            [[_lookup_tool("tc0", {"x": 1}, OUTPUT_1)], [_lookup_tool("tc0", {"y": 2})]],
            [("tc0", "result", OUTPUT_1), ("tc0", "result", OUTPUT_1)],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1})], [_lookup_tool("tc0", {"y": 2}, OUTPUT_1)]],
            [("tc0", "result", OUTPUT_1), ("tc0", "result", OUTPUT_1)],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1}, OUTPUT_1)], [_lookup_tool("tc0", {"y": 2}, OUTPUT_2)]],
            [("tc0", "result", OUTPUT_2), ("tc0", "result", OUTPUT_2)],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1}, OUTPUT_1)], [_lookup_tool("tc1", {"y": 2})]],
            [("tc0", "result", OUTPUT_1), ("tc1", "result", {"y": 2})],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1}), _lookup_tool("tc0", {"y": 2}, OUTPUT_1)]],
            [("tc0", "result", OUTPUT_1), ("tc0", "result", OUTPUT_1)],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1}, OUTPUT_1)], [_lookup_tool("tc0", None, state="output-error")]],
            [("tc0", "result", OUTPUT_1), ("tc0", "result", OUTPUT_1)],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1}, OUTPUT_1)], [_lookup_tool("tc0", None, state="output-denied")]],
            [("tc0", "result", OUTPUT_1), ("tc0", "result", OUTPUT_1)],
        ),
        (
            [[_lookup_tool("tc0", {"x": 1})], [_lookup_tool("tc0", {"y": 2}, OUTPUT_1)], [_lookup_tool("tc0", {"z": 3})]],
            [("tc0", "result", OUTPUT_1)] * 3,
        ),
        (
            [[_lookup_tool("tc0", None, OUTPUT_1, state="output-error")], [_lookup_tool("tc0", {"y": 2})]],
            [("tc0", "output-error", "boom"), ("tc0", "result", {"y": 2})],
        ),
    ],
)
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_results_sharing_a_tool_call_id_share_its_last_cached_output(loop, assistants, sent):
    """M12.7: every result of a toolCallId is sent with the last cached output a result of that id holds."""
    assert _sent_results(loop, assistants) == sent


# adapter runs (generate): plain values with `type: "text"` that a
# processor writes into the instructions' content are read as text parts
# evidence: M12.9
@pytest.mark.parametrize(
    "value, sent, error",
    [
        ([NOTE_05], {"role": "system", "content": "note-05"}, None),
        (
            [dict(NOTE_05, providerOptions={"openai": {"a": 1}}), {"type": "text", "text": "note-06"}],
            {"role": "system", "content": "note-05note-06", "providerOptions": {"openai": {"a": 1}}},
            None,
        ),
        (BAD_TEXT, None, "TypeError: p.text?.trim is not a function"),
    ],
)
def test_text_values_written_into_system_content_are_read_as_text_parts(value, sent, error):
    """M12.9: plain values with type text written into a system entry's content are read as text parts."""
    o = _system_content(value, "generate")
    if error:
        assert o["outcome"] == {"kind": "failed", "error": error}
    else:
        assert o["prompts"][0][0] == sent


def _with_tool_outcome(loop, **slot):
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "args": {"q": "x"}, **slot}
    msgs = [
        {"id": "c00", "role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"id": "a01", "role": "assistant", "parts": [t]},
        {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]},
    ]
    return run_normalised(loop, [], msgs)


def _sent_tc1(o):
    return next(p for m in o["prompts"][0] if m["role"] == "assistant" for p in m["parts"] if p.get("toolCallId") == "tc1")


ABSENT = object()


# evidence: M12.6
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "value, sent",
    [
        ({"a": 1}, '{"a":1}'),
        ({"$class": "K", "props": {"a": 1}}, '{"a":1}'),
        ([1, {"b": {"$undefined": True}}], "[1,{}]"),
        ({"a": {"$getter": "get-a", "value": "x"}}, '{"a":"x"}'),
        (True, "true"),
        (5, "5"),
        ("s", "s"),
        # errorText || "": every falsy value is the empty text
        ({"$undefined": True}, ""),
        ({"$number": "NaN"}, ""),
        (0, ""),
        (False, ""),
        (None, ""),
        ("", ""),
        # JSON.stringify gives undefined: no errorText
        ({"$function": "f"}, ABSENT),
        ({"$symbol": "s"}, ABSENT),
    ],
)
def test_an_error_text_is_sent_as_the_ai_sdk_writes_its_message(loop, value, sent):
    """M12.6: an output-error part's errorText is sent through `errorText || ""` and the AI SDK's message: falsy values as empty text."""
    part = _sent_tc1(_with_tool_outcome(loop, state="output-error", errorText=value))
    assert part["state"] == "output-error"
    assert part.get("errorText", ABSENT) == sent


# evidence: M12.9
@pytest.mark.parametrize(
    "value, durable",
    [
        ({"$bigint": "5"}, "TypeError: Do not know how to serialize a BigInt"),
        ({"a": {"$getter": "get-a", "throws": True}}, "Error: getter get-a throws"),
    ],
)
def test_an_error_text_json_cannot_write_fails_before_the_model(value, durable):
    """M12.9: an errorText JSON.stringify throws on fails the prompt conversion before the model."""
    assert _with_tool_outcome("generate", state="output-error", errorText=value)["outcome"] == {
        "kind": "failed",
        "error": "AGENT_GENERATE_FAILED",
    }
    assert _with_tool_outcome("stream", state="output-error", errorText=value)["outcome"] == {
        "kind": "failed",
        "error": "AGENT_STREAM_FAILED",
    }
    assert _with_tool_outcome("durable", state="output-error", errorText=value)["outcome"] == {"kind": "failed", "error": durable}


# evidence: M12.6
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "value, sent",
    [
        ("s", {"type": "text", "value": "s"}),
        ("", {"type": "text", "value": ""}),
        ({"$undefined": True}, None),
        ({"a": 1}, {"a": 1}),
        (None, None),
        (0, 0),
    ],
)
def test_a_string_result_is_sent_as_a_text_output_and_undefined_as_null(loop, value, sent):
    """M12.6: a string result is sent as a text output, an undefined one as the JSON output null."""
    part = _sent_tc1(_with_tool_outcome(loop, state="result", result=value))
    assert part["state"] == "result"
    assert part["result"] == sent


# raw runs: replaceAllSystemMessages([{content: <getter 'be brief'>}]), and of {content: 'note',
# providerOptions: <getter {openai: {x: 'y'}}>}: the model receives the getters' values
# evidence: M12.2
@pytest.mark.parametrize(
    "entry, sent",
    [
        ({"content": {"$getter": "g", "value": "be brief"}}, {"role": "system", "content": "be brief"}),
        (
            {"content": "note", "providerOptions": {"$getter": "po", "value": {"openai": {"x": "y"}}}},
            {"role": "system", "content": "note", "providerOptions": {"openai": {"x": "y"}}},
        ),
        (
            {"content": "note", "experimental_providerMetadata": {"$getter": "po", "value": {"openai": {"x": "y"}}}},
            {"role": "system", "content": "note", "providerOptions": {"openai": {"x": "y"}}},
        ),
    ],
    ids=["content", "options", "metadata"],
)
def test_a_system_entrys_own_getters_are_read_for_the_prompt(entry, sent):
    """M12.2: the prompt reads a kept system entry's content and options through their getters."""
    o = observe([{"id": "p1", "steps": [{"op": "replaceAllSystemMessages", "entries": [{"role": "system", **entry}]}]}])
    assert o["outcome"] == {"kind": "answered"}
    assert o["prompts"][0][0] == sent


# raw runs on each loop: a kept entry whose content, providerOptions or (with no providerOptions)
# experimental_providerMetadata getter throws: generate and stream fail with the getter's error
# unwrapped, the durable loop reports it; the model is never called
# evidence: M12.2
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "entry",
    [
        {"content": {"$getter": "g", "throws": True}},
        {"content": "note", "providerOptions": {"$getter": "g", "throws": True}},
        {"content": "note", "experimental_providerMetadata": {"$getter": "g", "throws": True}},
    ],
    ids=["content", "options", "metadata"],
)
def test_a_system_getter_that_throws_fails_the_prompt_conversion(loop, entry):
    """M12.2: a kept system entry's getter that throws fails the prompt's conversion with its own error."""
    o = observe([{"id": "p1", "steps": [{"op": "replaceAllSystemMessages", "entries": [{"role": "system", **entry}]}]}], loop=loop)
    assert o["outcome"] == {"kind": "failed", "error": "Error: getter g throws"}
    assert o["prompts"] == []


# raw run: the instructions edited to providerOptions {openai: {a: 'b'}} and a throwing
# experimental_providerMetadata getter: answered, sent with {openai: {a: 'b'}}
# evidence: M12.2
def test_provider_metadata_is_not_read_when_provider_options_are_set():
    """M12.2: a system entry with providerOptions is sent with them, its experimental_providerMetadata never read."""
    steps = [
        {"op": "editSystem", "index": 0, "field": "providerOptions", "value": {"openai": {"a": "b"}}},
        {"op": "editSystem", "index": 0, "field": "experimental_providerMetadata", "value": {"$getter": "g", "throws": True}},
    ]
    o = observe([{"id": "p1", "steps": steps}])
    assert o["outcome"] == {"kind": "answered"}
    assert o["prompts"][0][0] == {"role": "system", "content": "You are a guarded agent.", "providerOptions": {"openai": {"a": "b"}}}
