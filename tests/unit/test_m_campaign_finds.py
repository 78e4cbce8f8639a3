"""What `guardspec diff --impl "node adapters/mastra/server.mjs" --mode raw --normalise mastra`
found at seed 7101 (issue 10), each as its shrunk scenario with the value real Mastra 1.71.0
gave (docs/mastra-measurements.md §k k18-k22). The expected values are the adapter's measured
answers quoted in §k and in probe ``k-prompt-file-data``, not the model's output.
"""

import pytest

from guardspec.conformance.cases import model_observation
from guardspec.model.values import UNDEFINED, JsFunction, JsSymbol, obj
from guardspec.reference.downloads import file_data_string, received_data

ACTOR = {"id": "alice", "role": "operator"}


def _observe(processors, loop="generate", messages=None, **extra):
    sj = {"guardspec": 1, "agent": {"processors": processors, **extra.pop("agent", {})},
          "call": {"actor": ACTOR, "loop": loop, **({"messages": messages} if messages is not None else {})}, **extra}
    return model_observation(sj, "raw")


# -- k18: file data in the prompt --------------------------------------------------------------


# probe k-prompt-file-data (assistant message): obj → "[object Object]", 1 → "1",
# ['a', null, 2] → "a", null/undefined → "undefined", Symbol('s') → "Symbol(s)", true → "true",
# 0.5 → "0.5", 'aGk=' → "aGk="
@pytest.mark.parametrize(
    "data, sent",
    [(obj(answer="note-12"), "[object Object]"), (1, "1"), (("a", None, 2), "a"), (None, "undefined"),
     (UNDEFINED, "undefined"), (JsSymbol("s"), "Symbol(s)"), (True, "true"), (0.5, "0.5"), ("aGk=", "aGk=")],
)
def test_k18_file_data_as_the_model_receives_it(data, sent):
    assert received_data(data) == sent


def test_k18_a_function_is_its_source_and_null_data_fails_the_download_as_undefined():
    assert file_data_string(JsFunction("fn-a")) == "function () { return undefined; }"
    # a user file with data null: Mastra fetches `data:text/plain;base64,undefined` and fails
    file = {"type": "file", "data": None, "mediaType": "text/plain"}
    o = _observe([], messages=[{"id": "m2", "role": "user", "createdAt": 2, "parts": [file]}])
    assert o["outcome"] == {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}


def test_k18_an_assistant_file_reaches_the_prompt_as_a_string():
    # adapter run (scenario fd-obj-assistant): prompt part data "[object Object]"
    file = {"type": "file", "data": {"answer": "note-12"}, "mediaType": "text/plain"}
    o = _observe([], messages=["hi", {"id": "m2", "role": "assistant", "createdAt": 2, "parts": [file]}, "ok?"])
    sent = [p for m in o["prompts"][0] if "parts" in m for p in m["parts"] if p["type"] == "file"]
    assert [p["data"] for p in sent] == ["[object Object]"]


# -- k19: a system message without content -------------------------------------------------------


def test_k19_add_system_without_content_under_a_new_tag_is_kept_and_the_call_answers():
    # seed 7101 case 1667, shrunk: `addSystem({role: 'system'}, 'tag-a')`: answered
    o = _observe([{"id": "p1", "steps": [{"op": "addSystem", "message": {"role": "system"}, "tag": "tag-a"}]}])
    assert o["outcome"] == {"kind": "answered"}
    assert o["list"]["tagged"] == [["tag-a", [{"role": "system"}]]]


def test_k19_without_content_in_a_bucket_that_has_entries_throws():
    # §g: the untagged bucket holds the instructions; the dedupe scan throws `content is not iterable`
    o = _observe([{"id": "p1", "steps": [{"op": "addSystem", "message": {"role": "system"}}]}])
    assert o["outcome"]["kind"] == "failed"


def test_k19_provider_options_edited_onto_a_kept_entry_show_in_the_list():
    # seed 7101 case 734, shrunk: impl `$.list.tagged[0][1][0].providerOptions: {"note": "note-05"}`
    steps = [{"op": "addSystem", "message": {"role": "system"}, "tag": "tag-a"},
             {"op": "editSystem", "index": 0, "field": "providerOptions", "value": {"note": "note-05"}}]
    o = _observe([{"id": "p1", "steps": steps, "end": {"abortThenThrow": {"reason": "", "message": ""}}}])
    assert o["list"]["untagged"][0] == {"role": "system", "content": "You are a guarded agent.", "providerOptions": {"note": "note-05"}}


# -- k20: new content on a kept stored-format system entry ---------------------------------------


def test_k20_new_content_on_a_kept_stored_format_entry_is_sent():
    # seed 7101 case 1944: replaceAll([stored-format system message]), then editSystem content
    # "note-00": the model receives {role: 'system', content: 'note-00'}
    stored = {"id": "u0", "role": "system", "createdAt": 20, "parts": [{"type": "file", "data": "note-05", "mediaType": "text/plain"}]}
    steps = [{"op": "replaceAllSystemMessages", "entries": [stored]},
             {"op": "editSystem", "index": 0, "field": "content", "value": "note-00"}]
    o = _observe([{"id": "p1", "steps": steps}], loop="durable", messages=["hi"])
    assert o["prompts"][0][0] == {"role": "system", "content": "note-00"}


# -- k21: the title sees the earlier responses added again --------------------------------------


A9 = {"id": "a9", "role": "assistant", "createdAt": 3, "threadId": "t1", "resourceId": "r1",
      "parts": [{"type": "tool-invocation", "toolCallId": "tc9", "toolName": "nullmap", "state": "result", "args": {"q": "note-04"}, "result": {"answer": "note-03"}}]}
TITLE = 'User: note-26\nAssistant: note-31\nTool Result nullmap: {"answer":"note-03"}\nAssistant: reply-0'


def k21_scenario(loop):
    """seed 7101 case 1022, shrunk: a processor adds a0 as a response message; the thread has
    no title yet."""
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "threadId": "t1", "resourceId": "r1", "parts": [{"type": "text", "text": "note-31"}]}
    u0 = {"id": "u0", "role": "user", "createdAt": 1, "threadId": "t1", "resourceId": "r1", "parts": [{"type": "text", "text": "note-26"}]}
    p = {"id": "p2", "steps": [{"op": "add", "entries": [a0], "source": "response", "merge": False}], "end": {"return": {"primitive": ""}}}
    return {"guardspec": 1, "agent": {"processors": [p], "memory": {"generateTitle": True}},
            "call": {"actor": ACTOR, "loop": loop, "messages": [], "memory": {"thread": "t1", "resource": "r1"}, "reply": "reply-0"},
            "threads": [{"id": "t1", "resource": "r1", "messages": [u0, A9], "title": ""}]}


@pytest.mark.parametrize("loop, tail", [("generate", "\nAssistant: note-31"), ("stream", "\nAssistant: note-31"), ("durable", "")])
def test_k21_the_title_is_made_after_the_earlier_responses_are_added_again(loop, tail):
    # measured titles (adapter runs of the shrunk vector on each loop): generate and stream end
    # with the re-added a0's text merged into the reply message, durable does not re-add
    assert model_observation(k21_scenario(loop), "raw")["title"] == TITLE + tail


# -- k22: a returned string ----------------------------------------------------------------------


def test_k22_a_string_among_returned_messages_is_added_as_an_input_user_message():
    # seed 7101 case 1229: `{messages: [...list, "note-33"], systemMessages}`: impl lists a user
    # message "note-33" under `input` and goes on
    ret = {"object": {"messages": {"array": {"base": "list", "copy": "shallow", "drop": [], "edits": [], "append": [{"value": "note-33"}]}},
                      "systemMessages": "received", "proto": None}}
    o = _observe([{"id": "p1", "steps": [], "end": {"return": ret}}], messages=["hi"])
    assert o["outcome"] == {"kind": "answered"}
    users = [(m["message"]["parts"][0]["text"], m["sources"]) for m in o["list"]["messages"] if m["message"]["role"] == "user"]
    assert users == [("hi", ["input"]), ("note-33", ["input"])]


# -- k23-k26: seed 7102 and the open items ---------------------------------------------------------


def _memory_call(loop, messages, thread_messages=(), processors=(), title=False, binding=("t1", "r1")):
    sj = {"guardspec": 1, "agent": {"processors": list(processors), "memory": {"generateTitle": title}},
          "call": {"actor": ACTOR, "loop": loop, "messages": list(messages), "memory": {"thread": binding[0], "resource": binding[1]}, "reply": "reply-0"},
          "threads": [{"id": "t1", "resource": "r1", "messages": list(thread_messages), "title": ""}]}
    return model_observation(sj, "raw")


def _msg(id, role, created, parts, stored=False):
    m = {"id": id, "role": role, "createdAt": created, "parts": parts}
    return {**m, "threadId": "t1", "resourceId": "r1"} if stored else m


BAD_FILE = {"type": "file", "data": 3, "mediaType": "text/plain"}
TEXT = {"type": "text", "text": "note-09"}
PENDING = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "lookup", "state": "partial-call", "args": {"q": "note-20"}}


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_k23_the_error_response_of_a_failed_download_is_a_message_of_its_own(loop):
    # adapter runs (seed 7002 case 1937 reduced): thread [u0, a0 [text]], caller c1 (createdAt 0)
    # with file data 3: stored [c1, u0, a0 [text], <new id> [error part]]
    o = _memory_call(loop, [_msg("c1", "user", 0, [BAD_FILE])], [_msg("u0", "user", 1, [{"type": "text", "text": "note-29"}], True), _msg("a0", "assistant", 2, [TEXT], True)])
    assert [(m["id"], len(m["parts"])) for m in o["stored"][:3]] == [("c1", 1), ("u0", 1), ("a0", 1)]
    assert o["stored"][3]["parts"] == [{"type": "text", "text": "<mastra part error>", "createdAt": 1000}]


@pytest.mark.parametrize("source", ["input", "response"])
def test_k24_durable_keeps_an_assistant_messages_partial_call(source):
    # adapter runs: a processor adds a5 [text, partial-call] as `source`: stored with both parts
    # on durable, with the text only on generate
    add = {"id": "p1", "steps": [{"op": "add", "entries": [_msg("a5", "assistant", 5, [TEXT, PENDING])], "source": source, "merge": False}]}
    durable = {m["id"]: m for m in _memory_call("durable", ["hi"], processors=[add])["stored"]}
    generate = {m["id"]: m for m in _memory_call("generate", ["hi"], processors=[add])["stored"]}
    assert [p["type"] for p in durable["a5"]["parts"]] == ["text", "tool-invocation"]
    assert [p["type"] for p in generate["a5"]["parts"]] == ["text"]


@pytest.mark.parametrize(
    "loop, binding, outcome, stored",
    [("generate", ("", ""), "answered", 0), ("stream", ("", ""), "answered", 0), ("durable", ("", ""), "answered", 0),
     ("generate", ("", "r1"), "failed", 0), ("stream", ("", "r1"), "failed", 0), ("durable", ("", "r1"), "answered", 0),
     ("generate", ("t1", ""), "failed", 0), ("durable", ("t1", ""), "answered", 2)],
)
def test_k25_an_empty_thread_or_resource_id_is_no_id(loop, binding, outcome, stored):
    # probe k-empty-thread-id: both empty → unbound, nothing stored; one empty → generate/stream
    # fail ("A resourceId and a threadId must be provided when using Memory"), durable answers
    # and saves only with a thread id (its messages without resourceId)
    sj = {"guardspec": 1, "agent": {"processors": [], "memory": {"generateTitle": False}},
          "call": {"actor": ACTOR, "loop": loop, "messages": ["hi"], "memory": {"thread": binding[0], "resource": binding[1]}}}
    o = model_observation(sj, "raw")
    assert o["outcome"]["kind"] == outcome
    assert len(o["stored"]) == stored
    assert all("resourceId" not in m for m in o["stored"])


def test_k26_title_lines_of_file_only_messages_and_the_trimmed_title():
    # adapter runs: [file, file] → "User: \nAssistant: reply-0"; [file, text] → "User: hello\n…";
    # durable download failure of a user message with an image only → "User:" (the error part
    # gives no line; the title is trimmed)
    f = {"type": "file", "data": "aGk=", "mediaType": "text/plain"}
    assert _memory_call("generate", [_msg("c00", "user", 10, [f, f])], title=True)["title"] == "User: \nAssistant: reply-0"
    assert _memory_call("generate", [_msg("c00", "user", 10, [f, {"type": "text", "text": "hello"}])], title=True)["title"] == "User: hello\nAssistant: reply-0"
    img = {"type": "image", "data": "note-25", "mediaType": "image/png"}
    o = _memory_call("durable", [_msg("c00", "user", 10, [img])], title=True)
    assert o["outcome"]["kind"] == "failed" and o["title"] == "User:"


# -- k27-k30: seed 7103 and the last open item ----------------------------------------------------


@pytest.mark.parametrize("loop, error, stored", [("generate", "TypeError: p.text?.trim is not a function", 0),
                                                ("durable", "TypeError: p.text?.trim is not a function", 2)])
def test_k27_a_kept_system_text_that_is_no_string_fails_the_prompt_conversion(loop, error, stored):
    # adapter runs: replaceAllSystemMessages([{content: [{type: 'text', text: 1}]}]); generate
    # saves nothing, durable saves [user, error response] and titles the thread "User: hi"
    p = {"id": "p1", "steps": [{"op": "replaceAllSystemMessages", "entries": [{"role": "system", "content": [{"type": "text", "text": 1}]}]}]}
    o = _memory_call(loop, ["hi"], processors=[p], title=True)
    assert o["outcome"] == {"kind": "failed", "error": error} and o["prompts"] == []
    assert len(o["stored"]) == stored
    assert o["title"] == ("User: hi" if loop == "durable" else "")


def test_k28_a_processor_without_process_input_is_not_run():
    # seed 7103 case 1927, shrunk: `hooks: []`, it would add n1 and throw; real Mastra answers
    p = {"id": "p1", "hooks": [], "steps": [{"op": "add", "entries": [_msg("n1", "user", 5, [TEXT])], "source": "input"}],
         "end": {"throw": "boom"}}
    o = _observe([p], messages=["hi"])
    assert o["outcome"] == {"kind": "answered"}
    assert all(m["message"]["id"] != "n1" for m in o["list"]["messages"])


AWAITING = {"type": "tool-invocation", "toolCallId": "tc2", "toolName": "lookup", "state": "approval-requested", "args": {"q": "note-36"}}


@pytest.mark.parametrize("role, outcome", [("user", "answered"), ("assistant", "failed")])
def test_k29_the_read_back_converts_only_assistant_tool_parts(role, outcome):
    # adapter runs: a processor adds n1 [approval-requested call] as a response message: as a
    # user message the call answers, as an assistant message generate fails
    # (AI_MessageConversionError: ToolInvocation must have a result)
    p = {"id": "p1", "steps": [{"op": "add", "entries": [_msg("n1", role, 5, [AWAITING])], "source": "response", "merge": True}]}
    o = _memory_call("generate", [], processors=[p])
    assert o["outcome"]["kind"] == outcome


@pytest.mark.parametrize("loop, outcome", [("generate", "answered"), ("stream", "answered"), ("durable", "failed")])
def test_k30_durable_reads_its_text_back_without_memory(loop, outcome):
    # seed 7103 case 1446 reduced: no agent memory, caller a0 [approval-responded call]
    a0 = _msg("a0", "assistant", 2, [{"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "state": "approval-responded",
                                      "args": {"q": "note-32"}, "approval": {"approved": False, "reason": "note-04"}}])
    o = _observe([], loop=loop, messages=[a0])
    assert o["outcome"]["kind"] == outcome
    if outcome == "failed":
        assert o["outcome"]["error"].startswith("Error: ToolInvocation must have a result: {\"state\":\"approval-responded\"")


# -- k31-k32: mastra-diff seed 20261201 ----------------------------------------------------------


@pytest.mark.parametrize("loop, error", [("generate", "AGENT_GENERATE_FAILED"), ("stream", "AGENT_STREAM_FAILED"),
                                         ("durable", "TypeError: p.text?.trim is not a function")])
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_k31_a_message_text_that_is_no_string_fails_the_prompt_conversion(loop, error, role):
    # adapter runs (seed 20261201 case 512, shrunk: a caller message with text {}): text 1, {},
    # true, ['a'] fail on every loop; generate/stream report their own id
    msgs = [_msg("c00", role, 0, [{"type": "text", "text": 1}])]
    o = _memory_call(loop, msgs if role == "user" else ["hi", *msgs, "more"])
    assert o["outcome"] == {"kind": "failed", "error": error} and o["prompts"] == []


@pytest.mark.parametrize("loop, saved", [("generate", ""), ("stream", ""), ("durable", None)])
def test_k32_a_null_text_is_saved_as_empty_text_on_generate_and_stream(loop, saved):
    # seed 20261201 case 604, shrunk: caller c00 [text null]: stored text "" (generate, stream),
    # null (durable); the list keeps null
    o = _memory_call(loop, [_msg("c00", "user", 0, [{"type": "text", "text": None}])])
    assert o["stored"][0]["parts"][0]["text"] == saved


def test_generated_ids_are_numbered_over_the_compared_fields_only():
    # seed 20261201 case 1753: the model reports a durable list, the adapter does not; the
    # list's generated ids must not shift the numbering of the stored reply
    from guardspec.conformance.compare import differences
    from guardspec.mastra.diff import MASTRA_COMPARISON

    sj = {"call": {"messages": []}}
    reply = {"id": "reply-1", "role": "assistant", "createdAt": 5, "parts": []}
    model = {"outcome": {"kind": "answered"}, "stored": [reply],
             "list": {"messages": [{"message": {**reply, "id": "msg-2"}, "sources": []}], "untagged": [], "tagged": []}}
    impl = {"outcome": {"kind": "answered"}, "stored": [{**reply, "id": "9f1c-uuid"}]}
    assert differences(model, impl, sj, "raw", MASTRA_COMPARISON, reported=["outcome", "stored"]) == []


# -- k33: seed 7201 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("end, outcome", [({"abort": "reason-9"}, "refused"), ({"return": "sameList"}, "failed")])
def test_k33_no_durable_title_when_the_read_back_throws(end, outcome):
    # seed 7201 case 1459, shrunk: a processor adds a0 [text, approval-responded call] as a
    # response message; durable, titles on: real Mastra saves but gives no title (refused, and
    # failed with `Error: ToolInvocation must have a result`)
    a0 = _msg("a0", "assistant", 2, [TEXT, {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "broken", "state": "approval-responded",
                                          "args": {"q": "note-29"}, "approval": {"approved": False, "reason": "FORBIDDEN-08"}}], True)
    p = {"id": "p1", "steps": [{"op": "add", "entries": [a0], "source": "response", "merge": False}], "end": end}
    o = _memory_call("durable", [_msg("c00", "user", 10, [{"type": "text", "text": "note-11"}])],
                     [_msg("u0", "user", 1, [{"type": "text", "text": "note-27"}], True)], processors=[p], title=True)
    assert o["outcome"]["kind"] == outcome and o["title"] == ""


# -- k35-k40: mastra-diff seeds 20261202-20261204 --------------------------------------------------


def test_k35_a_kept_stored_format_system_entry_keeps_its_messages_metadata():
    # seed 20261202 case 1957, reduced (adapter run): replaceAllSystemMessages of stored-format
    # system messages with metadata [null, 1] and {k: 'v'}: the untagged bucket lists
    # {format: 2, parts, metadata} with that metadata; an editSystem of the content drops it
    def entry(id, text, metadata):
        return {"id": id, "role": "system", "createdAt": 5, "parts": [{"type": "text", "text": text}], "metadata": metadata}

    steps = [{"op": "replaceAllSystemMessages", "entries": [entry("a0", "note-09", [None, 1]), entry("a1", "note-10", {"k": "v"})]}]
    o = _observe([{"id": "p1", "steps": steps, "end": {"abortThenThrow": {"reason": "r", "message": "m"}}}], messages=["hi"])
    assert [e["content"].get("metadata") for e in o["list"]["untagged"]] == [[None, 1], {"k": "v"}]
    edit = {"op": "editSystem", "index": 0, "field": "content", "value": "note-00"}
    o = _observe([{"id": "p1", "steps": [*steps, edit], "end": {"abortThenThrow": {"reason": "r", "message": "m"}}}], messages=["hi"])
    assert o["list"]["untagged"][0] == {"role": "system", "content": "note-00"}


def test_k35_metadata_empty_object_on_a_kept_entry_counts_as_none():
    # the adapter reports content.metadata {} as none (as for messages): both sides normalised
    from guardspec.mastra.normalise import normalise_observation

    entry = {"role": "system", "content": {"format": 2, "parts": [{"type": "text", "text": "a"}], "metadata": {}}}
    out = normalise_observation({"list": {"messages": [], "untagged": [entry], "tagged": []}}, {})
    assert out["list"]["untagged"][0]["content"] == {"format": 2, "parts": [{"type": "text", "text": "a"}]}


@pytest.mark.parametrize("metadata", [{"a": 1}, [None, 1], "str"])
def test_k36_message_metadata_does_not_reach_the_prompt(metadata):
    # probe k-message-metadata-prompt: each prompt message is {role, content}, for a user and an
    # assistant message whose content.metadata is {a: 1}, [null, 1] or 'str' (seed 20261203 case 88)
    msgs = [{**_msg("c0", "user", 1, [{"type": "text", "text": "hi"}]), "metadata": metadata},
            {**_msg("c1", "assistant", 2, [{"type": "text", "text": "yo"}]), "metadata": metadata}]
    o = _observe([], loop="stream", messages=msgs)
    sent = [e for e in o["prompts"][0] if e["role"] != "system"]
    assert [e["role"] for e in sent] == ["user", "assistant"] and not any("metadata" in e for e in sent)


B5 = {"$bigint": "5"}
FN = {"$function": "fn-a"}
UNDEF = {"$undefined": True}


# adapter runs (scratch texts.py, a caller message c00 [text <value>], durable, user and
# assistant alike): the saved text as real Mastra stored it; seed 20261203 case 114
@pytest.mark.parametrize("text, saved", [
    (B5, ""), ({"a": B5}, ""), ([B5, 1], ""), ({"a": {"$getter": "get-b", "throws": True}}, ""),
    (FN, UNDEF), ({"$symbol": "s"}, UNDEF), ({"a": FN, "b": 1}, {"b": 1}), ({"a": UNDEF, "b": 1}, {"b": 1}),
    ([FN, 1], [None, 1]), ([UNDEF, 1], [None, 1]), ({"$number": "NaN"}, None), ({"$number": "Infinity"}, None),
    ([{"$number": "NaN"}], [None]), ({"a": {"$getter": "get-a", "value": "x"}}, {"a": "x"}),
    ([{"text": {"$getter": "get-a", "value": "note-00"}}], [{"text": "note-00"}]),
    ({"$class": "K", "props": {"a": 1}}, {"a": 1}), ({"$class": "K"}, {}), (1, 1), ([0.5, 1e21], [0.5, 1e21]),
])
def test_k37_durable_saves_a_text_as_json_holds_it(text, saved):
    o = _memory_call("durable", [_msg("c00", "user", 0, [{"type": "text", "text": text}])])
    assert o["outcome"] == {"kind": "failed", "error": "TypeError: p.text?.trim is not a function"}
    assert o["stored"][0]["parts"][0]["text"] == saved


@pytest.mark.parametrize("loop, saved", [("generate", ""), ("stream", ""), ("durable", UNDEF)])
def test_k38_an_undefined_text_is_saved_as_empty_text_on_generate_and_stream(loop, saved):
    # seed 20261204 case 1387; adapter runs: caller c00 [text undefined]: stored "" (generate,
    # stream), no text (durable), user and assistant alike
    o = _memory_call(loop, [_msg("c00", "user", 0, [{"type": "text", "text": UNDEF}])])
    assert o["outcome"] == {"kind": "answered"} and o["stored"][0]["parts"][0]["text"] == saved


# adapter runs (scratch titles.py: durable, titles on, caller ["hi", c01 [text <value>]] with c01
# dated before "hi"), user and assistant alike; seed 20261203 case 1565
@pytest.mark.parametrize("text, line", [
    ({}, "[object Object]"), ({"a": 1}, "[object Object]"), (["a", None, 2], "a,,2"), (1, "1"), (True, "true"),
    ({"$number": "NaN"}, "NaN"), (B5, "5"), (FN, "function () { return undefined; }"), ({"$class": "K"}, "[object Object]"),
    ({"a": {"$getter": "get-a", "value": "x"}}, "[object Object]"), (None, "null"), (UNDEF, "undefined"),
])
def test_k39_a_title_line_shows_a_text_as_string_does(text, line):
    msgs = ["hi", _msg("c01", "assistant", 5, [{"type": "text", "text": text}])]
    o = _memory_call("durable", msgs, title=True)
    assert o["title"].split("\n")[:2] == [f"Assistant: {line}", "User: hi"]


def test_k39_a_symbol_text_leaves_the_thread_without_title():
    # the same run with text Symbol(s): the call fails (k31) and the thread gets no title
    o = _memory_call("durable", ["hi", _msg("c01", "user", 5, [{"type": "text", "text": {"$symbol": "s"}}])], title=True)
    assert o["outcome"]["kind"] == "failed" and o["title"] == ""


@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k40_equal_dates_are_listed_in_the_order_ids_first_entered_storage(loop):
    # mastra-diff seed 20261206 case 1162, reduced (adapter runs, generate and durable): thread t1
    # holds x9; the call on t2 saves m1 then x9, both dated 5: real Mastra lists x9, m1
    t1 = {"id": "t1", "resource": "r1", "title": "", "messages": [_msg("x9", "user", 1, [{"type": "text", "text": "old"}], True)]}
    sj = {"guardspec": 1, "agent": {"processors": [], "memory": {"generateTitle": False}},
          "call": {"actor": ACTOR, "loop": loop, "memory": {"thread": "t2", "resource": "r1"}, "reply": "reply-0",
                   "messages": [_msg("m1", "user", 5, [{"type": "text", "text": "one"}]), _msg("x9", "user", 5, [{"type": "text", "text": "two"}])]},
          "threads": [t1, {"id": "t2", "resource": "r1", "title": "", "messages": []}]}
    o = model_observation(sj, "raw")
    assert [m["id"] for m in o["stored"]][:2] == ["x9", "m1"]


# -- k43: a returned string handed on to the next processor ----------------------------------------


def _arr(base="received", copy="none", append=(), drop=()):
    return {"array": {"base": base, "copy": copy, "drop": list(drop), "edits": [], "append": list(append)}}


def _ret(pid, ret):
    return {"id": pid, "steps": [], "end": {"return": ret}}


NOTE33 = {"value": "note-33"}
C00 = _msg("c00", "user", 10, [{"type": "text", "text": "note-22"}])


def _user_texts(messages):
    return [m["parts"][0]["text"] for m in messages if m["role"] == "user"]


# adapter runs (scratch strre/probe.py, caller c00 "note-22", memory on, thread t1), each loop:
# real Mastra stored the string once more for each later processor that returned its received
# array, each copy a user message with its own generated id
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
@pytest.mark.parametrize("processors, copies", [
    # V1: p1 appends "note-33", p2 and p3 return their received arrays: 3 copies
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr()), _ret("p3", _arr())], 3),
    # V1b: one later return: 2 copies
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr())], 2),
    # V1c: p2 appends, p3 returns its received array (the shrunk seed 20261208 case): 2 copies
    ([_ret("p1", _arr()), _ret("p2", _arr(append=[NOTE33])), _ret("p3", _arr())], 2),
    # V4: p2 returns {messages: received, systemMessages: received}: 3 copies
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", {"object": {"messages": _arr(), "systemMessages": "received"}}), _ret("p3", _arr())], 3),
    # V6: p2 returns undefined (p3 gets p2's own array, the one p1 returned): 2 copies
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", {"primitive": {"$undefined": True}}), _ret("p3", _arr())], 2),
    # V2d: p2's deep copy keeps the string a string: 3 copies
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr(copy="deep")), _ret("p3", _arr())], 3),
    # V2: p2 returns a fresh array of the list's messages: 1 copy
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr(base="list")), _ret("p3", _arr())], 1),
    # V5: p2 returns the list: 1 copy
    ([_ret("p1", _arr(append=[NOTE33])), _ret("p2", "sameList"), _ret("p3", _arr())], 1),
])
def test_k43_a_returned_string_is_added_again_by_each_later_return_of_it(loop, processors, copies):
    o = _memory_call(loop, [C00], processors=processors)
    assert o["outcome"] == {"kind": "answered"}
    assert _user_texts(o["stored"]) == ["note-22"] + ["note-33"] * copies
    assert len({m["id"] for m in o["stored"]}) == len(o["stored"])


def test_k43_the_list_shows_every_copy_under_input():
    # V1, generate, no memory: impl list [c00, note-33 x3 (input), reply (response)]
    procs = [_ret("p1", _arr(append=[NOTE33])), _ret("p2", _arr()), _ret("p3", _arr())]
    o = _observe(procs, messages=[C00])
    assert [(m["message"]["role"], m["sources"]) for m in o["list"]["messages"]] == \
        [("user", ["input"])] * 4 + [("assistant", ["response"])]


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_k43_an_appended_message_object_is_not_added_again(loop):
    # V3: p1 appends n1 (an object), p2 and p3 return their received arrays: stored [n1, c00, reply]
    n1 = _msg("n1", "user", 5, [{"type": "text", "text": "note-11"}])
    procs = [_ret("p1", _arr(append=[n1])), _ret("p2", _arr()), _ret("p3", _arr())]
    o = _memory_call(loop, [C00], processors=procs)
    assert [m["id"] for m in o["stored"]][:2] == ["n1", "c00"] and len(o["stored"]) == 3


@pytest.mark.parametrize("value, added", [(NOTE33, 1), ({"value": ""}, 0), ({"value": ["note-40"]}, 1), ({"value": 0}, 0)])
@pytest.mark.parametrize("loop, outcome", [("generate", {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}),
                                           ("stream", {"kind": "failed", "error": "AGENT_STREAM_FAILED"}),
                                           ("durable", {"kind": "answered"})])
def test_k43_a_shallow_copy_of_a_handed_on_value_is_no_message(value, added, loop, outcome):
    # V2c, V11-V13: p2 returns `received.map(m => ({...m}))`: the string (or "", an array, 0) is
    # an object of its indexed characters, which `add` refuses: generate and stream fail, the
    # durable loop answers with what p1 added (stored [c00, <added>, reply])
    procs = [_ret("p1", _arr(append=[value])), _ret("p2", _arr(copy="shallow")), _ret("p3", _arr())]
    o = _memory_call(loop, [C00], processors=procs)
    assert o["outcome"] == outcome
    assert len(o["stored"]) == (0 if loop != "durable" else 2 + added)
    if loop != "durable":
        assert len(o["list"]["messages"]) == 1 + added


# -- k45: a message JSON cannot write stops the save -----------------------------------------------


B5J = {"$bigint": "5"}


def _tool(args, **kw):
    return {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "nullmap", "state": "result", "args": args, "result": {"answer": "x"}, **kw}


def _t(text, **kw):
    return {"type": "text", "text": text, **kw}


def _bigint_call(loop, second, processors=(), title=False):
    """caller [c00 "fine", c01 <second parts>, c02 "last"] (adapter runs, scratch bigprobe.py)."""
    msgs = [_msg("c00", "user", 10, [_t("fine")]), _msg("c01", "user", 11, second), _msg("c02", "user", 12, [_t("last")])]
    return _memory_call(loop, msgs, processors=processors, title=title)


OUTCOMES = [("generate", {"kind": "failed", "error": "PROCESSOR_WORKFLOW_FAILED"}), ("stream", {"kind": "answered"}), ("durable", {"kind": "answered"})]


# measured on each loop: a bigint in c01's tool args, in its text part's providerOptions, in a
# tool result, a throwing getter in its args: only c00 is stored
@pytest.mark.parametrize("loop, outcome", OUTCOMES)
@pytest.mark.parametrize("second", [
    [_t("ok"), _tool({"q": B5J})],
    [_t("ok", providerOptions={"note": B5J})],
    [_t("ok"), _tool({"q": 1}, result={"a": B5J})],
    [_t("ok"), _tool({"q": {"$getter": "get-q", "throws": True}})],
])
def test_k45_the_save_stops_at_a_message_json_cannot_write(loop, outcome, second):
    o = _bigint_call(loop, second)
    assert o["outcome"] == outcome
    assert [m["id"] for m in o["stored"]] == ["c00"]


def test_k45_stream_resolves_with_finish_reason_error_and_its_own_text():
    # adapter run (respbig): a processor adds a response a5 [text "resp" providerOptions {note: 5n}];
    # the reply merges into it; stream: {text: "reply-0", finishReason: "error"}, stored [c00]
    a5 = {"id": "a5", "role": "assistant", "createdAt": 20, "parts": [_t("resp", providerOptions={"note": B5J})]}
    p = {"id": "p1", "steps": [{"op": "add", "entries": [a5], "source": "response", "merge": False}], "end": {"return": {"primitive": ""}}}
    o = _memory_call("stream", [_msg("c00", "user", 10, [_t("fine")])], processors=[p])
    assert o["outcome"] == {"kind": "answered"}
    assert (o["result"]["text"], o["result"]["finishReason"]) == ("reply-0", "error")
    assert [m["id"] for m in o["stored"]] == ["c00"]


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_k45_the_title_is_still_generated(loop):
    # args2 with titles on: every loop titled the thread
    o = _bigint_call(loop, [_t("ok"), _tool({"q": B5J})], title=True)
    assert o["title"].startswith("User: fine\nUser: ok\n")


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_k45_a_bigint_in_a_tool_result_leaves_the_thread_without_title(loop):
    # resultbig with titles on: the transcript's JSON.stringify of the result throws: no title
    o = _bigint_call(loop, [_t("ok"), _tool({"q": 1}, result={"a": B5J})], title=True)
    assert o["title"] == ""


@pytest.mark.parametrize("loop, outcome, result", [
    ("generate", {"kind": "failed", "error": "PROCESSOR_WORKFLOW_FAILED"}, None),
    ("stream", {"kind": "answered"}, ("", "error")),
    ("durable", {"kind": "failed", "error": "Error: Failed to download asset: nulltext/plain;base64,note-00"}, None),
])
def test_k45_after_a_failed_download_generate_fails_as_the_save_and_stream_answers(loop, outcome, result):
    # dlargs: c00 [text, file data "note-00"] fails the download; c01 has a bigint in its args
    msgs = [_msg("c00", "user", 10, [_t("x"), {"type": "file", "data": "note-00", "mediaType": "text/plain"}]),
            _msg("c01", "user", 11, [_t("ok"), _tool({"q": B5J})])]
    o = _memory_call(loop, msgs)
    assert o["outcome"] == outcome
    assert [m["id"] for m in o["stored"]] == ["c00"]
    if result:
        assert (o["result"]["text"], o["result"]["finishReason"]) == result


def test_k45_a_durable_refusal_saves_up_to_that_message():
    # abort: p1 aborts; the durable finalisation stores c00 only
    o = _bigint_call("durable", [_t("ok"), _tool({"q": B5J})], processors=[{"id": "p1", "steps": [], "end": {"abort": "no"}}])
    assert o["outcome"]["kind"] == "refused" and [m["id"] for m in o["stored"]] == ["c00"]


@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_k45_a_pending_call_is_dropped_before_the_save_on_generate_and_stream(loop):
    # partial2: c01 [text, partial-call args {q: 5n}]: saved without the call, all stored
    o = _bigint_call(loop, [_t("ok"), _tool({"q": B5J}, state="partial-call")])
    assert o["outcome"] == {"kind": "answered"}
    assert [len(m["parts"]) for m in o["stored"]] == [1, 1, 1, 1]


def test_k45_durable_keeps_the_first_saves_version_of_the_message_it_cannot_write_again():
    # partial2, durable: the first save (pending call dropped) wrote every message; the second,
    # unfiltered, stops at c01: c01 stays without its call, the others are stored
    o = _bigint_call("durable", [_t("ok"), _tool({"q": B5J}, state="partial-call")])
    assert o["outcome"] == {"kind": "answered"}
    assert [m["id"][:3] for m in o["stored"]][:3] == ["c00", "c01", "c02"] and len(o["stored"]) == 4
    assert len(o["stored"][1]["parts"]) == 1
