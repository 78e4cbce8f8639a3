"""What the raw campaigns of issue 10 found after k45 (`guardspec diff --impl "node
adapters/mastra/server.mjs" --mode raw --normalise mastra --examples 2000`, seeds 20261209-20261211),
each confirmed by adapter runs on real Mastra 1.71.0, offline (docs/mastra-measurements.md §k
k46-). The expected values are the adapter's measured answers quoted in §k, not the model's output.
"""

import pytest

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation

ACTOR = {"id": "alice", "role": "operator", "kind": "human"}
LOOPS = ["generate", "stream", "durable"]
TEXT = [{"type": "text", "text": "note-16"}]


def _run(loop, processors, messages=(), memory=True):
    call = {"loop": loop, "actor": ACTOR, "messages": list(messages), "reply": "reply-0"}
    if memory:
        call["memory"] = {"thread": "t1", "resource": "r1"}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False} if memory else None, "processors": list(processors)}, "call": call}
    return normalise_observation(model_observation(sj, "raw"), sj)


def _adds(entries, source=None):
    step = {"op": "add", "entries": entries}
    if source:
        step.update(source=source, merge=False)
    return {"id": "p1", "steps": [step]}


# -- k46: the metadata of the message the reply merges into --------------------------------------

THROWS = {"a": {"$getter": "get-a", "throws": True}}


# adapter runs (scratch probe, a processor adds a0 [text] as response with this metadata, no caller
# message, so the reply merges into a0; each loop, memory on): the merged message's metadata, list
# and stored alike, once the normalisation dropped Mastra's modelId/provider (None: none left)
@pytest.mark.parametrize("metadata, merged", [
    ("ab", {"0": "a", "1": "b"}), (["x", "y"], {"0": "x", "1": "y"}), ([], None), (3, None), (True, None), (None, None), ("", None),
    ({"k": "v"}, {"k": "v"}), ({"$class": "K", "props": {"a": 1}}, {"a": 1}), ({"$class": "K"}, None),
    ({"a": {"$getter": "get-a", "value": "x"}}, {"a": "x"}), ({"$bigint": "5"}, None), ({"$function": "fn-a"}, None),
])
@pytest.mark.parametrize("loop", LOOPS)
def test_k46_the_reply_merging_into_a_message_spreads_its_metadata(loop, metadata, merged):
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": metadata}
    o = _run(loop, [_adds([a0], "response")])
    assert o["outcome"] == {"kind": "answered"}
    stored = o["stored"][0]
    assert stored["id"] == "a0" and len(stored["parts"]) == 2
    assert stored.get("metadata") == merged
    if loop != "durable":  # the durable loop reports no list
        assert o["list"]["messages"][0]["message"].get("metadata") == merged


@pytest.mark.parametrize("metadata, merged", [("ab", {"0": "a", "1": "b"}), (3, None), ({"$class": "K", "props": {"a": 1}}, {"a": 1})])
@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_k46_without_memory_the_listed_message_is_spread_alike(loop, metadata, merged):
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": metadata}
    o = _run(loop, [_adds([a0], "response")], memory=False)
    assert o["outcome"] == {"kind": "answered"}
    assert o["list"]["messages"][0]["message"].get("metadata") == merged


# -- k47: a throwing getter in any message's metadata fails the prompt conversion ---------------

FAILED = {"generate": "AGENT_GENERATE_FAILED", "stream": "AGENT_STREAM_FAILED", "durable": "Error: getter get-a throws"}


@pytest.mark.parametrize("where", ["processor-user", "assistant-then-user", "assistant-input", "caller-user", "caller-assistant", "merge-target", "class"])
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("memory", [True, False])
def test_k47_a_throwing_getter_in_message_metadata_fails_before_the_model(where, loop, memory):
    # adapter runs: generate AGENT_GENERATE_FAILED, stream AGENT_STREAM_FAILED, durable
    # "Error: getter get-a throws" (its stack: AIV5Adapter.toUIMessage in MessageList.all.aiV5.model,
    # called by MastraLLMVNext.stream); no prompt sent; nothing stored, but on the durable loop
    # with memory the caller's messages before the one it cannot write (k45): [c1]
    caller, entries, source = [], [], None
    if where == "processor-user":
        entries = [{"id": "n1", "role": "user", "createdAt": 2, "parts": TEXT, "metadata": THROWS}]
    elif where == "assistant-then-user":
        entries = [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": THROWS},
                   {"id": "n1", "role": "user", "createdAt": 3, "parts": TEXT}]
    elif where == "assistant-input":
        entries, source = [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": THROWS}], "input"
    elif where == "caller-user":
        caller = [{"id": "c1", "role": "user", "createdAt": 1, "parts": TEXT, "metadata": THROWS}]
    elif where == "caller-assistant":
        caller = [{"id": "c1", "role": "user", "createdAt": 1, "parts": TEXT},
                  {"id": "c2", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": THROWS}]
    elif where == "merge-target":
        entries, source = [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": THROWS}], "response"
    else:
        entries, source = [{"id": "a0", "role": "assistant", "createdAt": 2, "parts": TEXT, "metadata": {"$class": "K", "props": THROWS}}], "response"
    o = _run(loop, [_adds(entries, source)] if entries else [], caller, memory)
    assert o["outcome"] == {"kind": "failed", "error": FAILED[loop]}
    assert o["prompts"] == []
    saved = ["c1"] if (where, loop, memory) == ("caller-assistant", "durable", True) else []
    assert [m["id"] for m in o["stored"] or []] == saved


# -- k48: a null or undefined element in a system entry's content array ----------------------------


def _system_content(value, loop, memory=False, steps=None):
    p1 = {"id": "p1", "steps": steps or [{"op": "editSystem", "index": 0, "field": "content", "value": value}]}
    c1 = {"id": "c1", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "hi"}]}
    return _run(loop, [p1], [c1], memory)


NOTE = {"type": "text", "text": "note-05"}
NULL_TYPE = "TypeError: Cannot read properties of null (reading 'type')"
UNDEFINED_TYPE = "TypeError: Cannot read properties of undefined (reading 'type')"


# adapter runs (scratch m10/k46/sys_gen.py, caller c1, the agent's instructions edited; each loop,
# memory on and off): the call fails with the TypeError itself (not AGENT_*_FAILED) on every
# loop, before any prompt; nothing is stored, except on the durable loop with memory: c1 and an
# error response (k27's durable path)
@pytest.mark.parametrize("value, error", [([None], NULL_TYPE), ([{"$undefined": True}], UNDEFINED_TYPE), ([NOTE, None], NULL_TYPE),
                                          ([None, NOTE], NULL_TYPE), ([NOTE, {"$undefined": True}], UNDEFINED_TYPE), ([3], None), (["x"], None), ([NOTE], None)])
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("memory", [False, True])
def test_k48_a_null_element_in_system_content_fails_the_prompt(value, error, loop, memory):
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


# adapter runs (scratch m10/k46/sys2_gen.py, generate and durable): the null element is found
# before k27's text that is no string, whichever entry or bucket holds it
@pytest.mark.parametrize("steps", [
    [{"op": "addSystem", "message": "note-07"}, {"op": "editSystem", "index": 0, "field": "content", "value": BAD_TEXT},
     {"op": "editSystem", "index": 1, "field": "content", "value": [None]}],
    [{"op": "addSystem", "message": "note-07", "tag": "t"}, {"op": "editSystem", "index": 0, "field": "content", "value": BAD_TEXT},
     {"op": "editSystem", "index": 0, "tag": "t", "field": "content", "value": [None]}],
    [{"op": "editSystem", "index": 0, "field": "content", "value": BAD_TEXT + [None]}],
])
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k48_the_null_element_is_found_before_a_text_that_is_no_string(steps, loop):
    o = _system_content(None, loop, steps=steps)
    assert o["outcome"] == {"kind": "failed", "error": NULL_TYPE}


# -- k49: tool results that share a toolCallId -----------------------------------------------------


def _tool(tc, result, cached=None, state="result"):
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


M1 = {"type": "text", "value": "M1"}
M2 = {"type": "text", "value": "M2"}


def _sent_results(loop, assistants):
    msgs = [{"id": "c0", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "hi"}]}]
    for i, parts in enumerate(assistants):
        msgs.append({"id": f"a{i + 1}", "role": "assistant", "createdAt": 2 + 2 * i, "parts": parts})
        msgs.append({"id": f"u{i + 1}", "role": "user", "createdAt": 3 + 2 * i, "parts": [{"type": "text", "text": f"u{i + 1}"}]})
    o = _run(loop, [], msgs, memory=False)
    assert o["outcome"] == {"kind": "answered"}
    return [(p["toolCallId"], p["state"], p.get("result", p.get("errorText"))) for e in o["prompts"][0] if isinstance(e, dict)
            for p in e.get("parts") or [] if p.get("type") == "tool-invocation"]


# adapter runs (scratch m10/k46/tc_gen.py, caller [c0, a1, u1, a2, u2, ...], generate and durable
# alike): every tool result of a toolCallId is sent with the last cached output a result of that id
# holds on the list (llmPrompt's storedModelOutputs, a Map by toolCallId)
@pytest.mark.parametrize("assistants, sent", [
    ([[_tool("tc0", {"x": 1}, M1)], [_tool("tc0", {"y": 2})]], [("tc0", "result", M1), ("tc0", "result", M1)]),
    ([[_tool("tc0", {"x": 1})], [_tool("tc0", {"y": 2}, M1)]], [("tc0", "result", M1), ("tc0", "result", M1)]),
    ([[_tool("tc0", {"x": 1}, M1)], [_tool("tc0", {"y": 2}, M2)]], [("tc0", "result", M2), ("tc0", "result", M2)]),
    ([[_tool("tc0", {"x": 1}, M1)], [_tool("tc1", {"y": 2})]], [("tc0", "result", M1), ("tc1", "result", {"y": 2})]),
    ([[_tool("tc0", {"x": 1}), _tool("tc0", {"y": 2}, M1)]], [("tc0", "result", M1), ("tc0", "result", M1)]),
    ([[_tool("tc0", {"x": 1}, M1)], [_tool("tc0", None, state="output-error")]], [("tc0", "result", M1), ("tc0", "result", M1)]),
    ([[_tool("tc0", {"x": 1}, M1)], [_tool("tc0", None, state="output-denied")]], [("tc0", "result", M1), ("tc0", "result", M1)]),
    ([[_tool("tc0", {"x": 1})], [_tool("tc0", {"y": 2}, M1)], [_tool("tc0", {"z": 3})]], [("tc0", "result", M1)] * 3),
    ([[_tool("tc0", None, M1, state="output-error")], [_tool("tc0", {"y": 2})]], [("tc0", "output-error", "boom"), ("tc0", "result", {"y": 2})]),
])
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k49_results_sharing_a_tool_call_id_share_its_last_cached_output(loop, assistants, sent):
    assert _sent_results(loop, assistants) == sent


# -- k50: which failed download the durable loop names ---------------------------------------------

ASSETS = {"A": "https://assets.example/a.png", "C": "https://u:p@assets.example/d.png", "D": "note-29", "U": "data:text/plain,hello",
          "F": "ftp://assets.example/e.txt", "N": "note: see the file", "P": "https://assets.example:8443/c.png", "G": "aGk=",
          "Q": "https://v:w@assets.example/q.png", "T": "data:text/plain;base64,aGk="}
NAMED = {"A": "https://assets.example/a.png", "C": "https://assets.example/d.png", "D": "nullimage/png;base64,note-29",
         "U": "nullimage/png;base64,hello", "F": "ftp://assets.example/e.txt", "N": "null see the file",
         "P": "https://assets.example:8443/c.png", "Q": "https://assets.example/q.png"}


# adapter runs (scratch m10/k46/dl_gen.py and dl2, dl3: caller c1 [text, file parts with these
# data, mediaType image/png], durable, offline; 54 runs): the asset the error names
@pytest.mark.parametrize("combo, named", [
    ("AC", "C"), ("CA", "C"), ("AD", "D"), ("DA", "D"), ("AU", "U"), ("UA", "U"), ("AF", "F"), ("FA", "F"), ("AN", "N"), ("NA", "N"),
    ("CD", "C"), ("DC", "C"), ("CU", "C"), ("UC", "C"), ("CF", "C"), ("FC", "C"), ("CN", "C"), ("NC", "C"),
    ("UD", "U"), ("FN", "F"), ("NF", "N"), ("DF", "D"), ("FD", "F"), ("DN", "D"), ("ND", "N"), ("UF", "U"), ("FU", "F"),
    ("PA", "P"), ("AP", "A"), ("CQ", "C"), ("QC", "Q"),
    ("DAC", "D"), ("DUA", "D"), ("DCA", "C"), ("ADC", "C"), ("AAC", "C"), ("DDC", "D"), ("DUC", "D"), ("GDC", "C"), ("GC", "C"),
    ("GGC", "C"), ("ACD", "C"), ("DGC", "D"), ("FAC", "F"), ("NAC", "N"), ("UAC", "U"), ("DAAC", "D"), ("FGC", "F"), ("DTC", "D"),
    ("CDA", "C"),
])
def test_k50_the_durable_loop_names_the_first_download_to_fail(combo, named):
    parts = [{"type": "text", "text": "hi"}] + [{"type": "file", "data": ASSETS[k], "mediaType": "image/png"} for k in combo]
    o = _run("durable", [], [{"id": "c1", "role": "user", "createdAt": 1, "parts": parts}], memory=False)
    assert o["outcome"] == {"kind": "failed", "error": f"Error: Failed to download asset: {NAMED[named]}"}


@pytest.mark.parametrize("combo, named", [("DAC", "D"), ("DC", "C")])
def test_k50_positions_count_across_user_messages(combo, named):
    msgs = [{"id": f"c{i}", "role": "user", "createdAt": i + 1, "parts": [{"type": "file", "data": ASSETS[k], "mediaType": "image/png"}]}
            for i, k in enumerate(combo)]
    o = _run("durable", [], msgs, memory=False)
    assert o["outcome"] == {"kind": "failed", "error": f"Error: Failed to download asset: {NAMED[named]}"}


# -- k51: the durable loop's second save writes a message with no parts ---------------------------

HI = [{"type": "text", "text": "hi"}]


# adapter runs (scratch m10/k46/empty.json, memory on, caller c0): stored ids (with their part
# counts) on generate and durable
@pytest.mark.parametrize("caller, entries, source, generate, durable", [
    ([{"id": "c1", "role": "user", "createdAt": 2, "parts": []}], [], None, [("c0", 1), ("$id1", 1)], [("c0", 1), ("c1", 0), ("$id1", 1)]),
    ([], [{"id": "n1", "role": "user", "createdAt": 2, "parts": []}], None, [("c0", 1), ("$id1", 1)], [("c0", 1), ("n1", 0), ("$id1", 1)]),
    ([], [{"id": "a1", "role": "assistant", "createdAt": 2, "parts": []}, {"id": "n2", "role": "user", "createdAt": 3, "parts": HI}], None,
     [("c0", 1), ("n2", 1), ("$id1", 1)], [("c0", 1), ("a1", 0), ("n2", 1), ("$id1", 1)]),
    ([], [{"id": "a1", "role": "assistant", "createdAt": 2, "parts": []}], "response", [("c0", 1), ("a1", 1)], [("c0", 1), ("a1", 1)]),
])
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k51_the_durable_loop_saves_a_message_with_no_parts(caller, entries, source, generate, durable, loop):
    c0 = {"id": "c0", "role": "user", "createdAt": 1, "parts": HI}
    o = _run(loop, [_adds(entries, source)] if entries else [], [c0] + caller, memory=True)
    assert o["outcome"] == {"kind": "answered"}
    assert [(m["id"], len(m["parts"])) for m in o["stored"]] == (durable if loop == "durable" else generate)


# adapter runs (scratch m10/k46/systext.json, generate): plain values with `type: "text"` that a
# processor writes into the instructions' content are read as text parts
@pytest.mark.parametrize("value, sent, error", [
    ([NOTE], {"role": "system", "content": "note-05"}, None),
    ([dict(NOTE, providerOptions={"openai": {"a": 1}}), {"type": "text", "text": "note-06"}],
     {"role": "system", "content": "note-05note-06", "providerOptions": {"openai": {"a": 1}}}, None),
    (BAD_TEXT, None, "TypeError: p.text?.trim is not a function"),
])
def test_k48_text_values_written_into_system_content_are_text_parts(value, sent, error):
    o = _system_content(value, "generate")
    if error:
        assert o["outcome"] == {"kind": "failed", "error": error}
    else:
        assert o["prompts"][0][0] == sent


# -- k52: stored metadata is what JSON holds -------------------------------------------------------


# adapter runs (scratch m10/k46/cls.json and k163var.json: a processor adds n1 [text] with this
# metadata, memory on): the stored copy's metadata (None: none)
@pytest.mark.parametrize("metadata, stored", [({"$class": "Klass"}, None), ({"$class": "Klass", "props": {"a": 1}}, {"a": 1})])
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k52_the_stored_copy_holds_metadata_as_json_does(metadata, stored, loop):
    n1 = {"id": "n1", "role": "user", "parts": [{"type": "text", "text": "hi"}], "metadata": metadata}
    o = _run(loop, [_adds([n1])], memory=True)
    assert o["stored"][0]["id"] == "n1"
    assert o["stored"][0].get("metadata") == stored


# -- k53: every saved slot is what JSON holds ------------------------------------------------------

# adapter runs (scratch m10/k53/probe.py: caller [c00 user, a01 assistant <slot>, c02 user], memory
# on, each loop; THREAD=1: a01 in the scenario's thread t1 instead): what real Mastra stored for
# each value ("<absent>": the slot has no key)
K53_VALUES = [
    ([[None, {"$undefined": True}], []], [[None, None], []]),
    ({"$class": "Klass", "props": {"a": 1}}, {"a": 1}),
    ({"$class": "Klass", "props": {}}, {}),
    ({"a": {"$function": "f"}, "b": 1}, {"b": 1}),
    ({"a": {"$undefined": True}, "b": 1}, {"b": 1}),
    ({"a": {"$number": "NaN"}}, {"a": None}),
    ({"a": {"$getter": "get-a", "value": "x"}}, {"a": "x"}),
    ({"$function": "f"}, "<absent>"),
    ({"$number": "NaN"}, None),
]


def _tool(**kw):
    return {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", **kw}


K53_SLOTS = {
    "data": lambda v: [{"type": "text", "text": "a"}, {"type": "file", "data": v, "mediaType": "text/plain"}],
    "args": lambda v: [_tool(state="result", args=v, result={"r": 1})],
    "result": lambda v: [_tool(state="result", args={"q": "x"}, result=v)],
    "approval": lambda v: [_tool(state="output-denied", args={"q": "x"}, approval=v)],
    "providerMetadata": lambda v: [_tool(state="result", args={"q": "x"}, result={"r": 1}, providerMetadata=v)],
}


def _k53_messages(slot, value):
    say = lambda i, t, at: {"id": i, "role": "user", "createdAt": at, "parts": [{"type": "text", "text": t}]}
    return [say("c00", "fine", 10), {"id": "a01", "role": "assistant", "createdAt": 11, "parts": K53_SLOTS[slot](value)}, say("c02", "last", 12)]


@pytest.mark.parametrize("value, stored", K53_VALUES)
@pytest.mark.parametrize("slot", list(K53_SLOTS))
@pytest.mark.parametrize("loop", LOOPS)
def test_k53_every_saved_slot_is_stored_as_json_holds_it(loop, slot, value, stored):
    if slot in ("args", "result") and "$getter" in str(value):
        pytest.skip("a getter in a tool's args or result was not measured here")
    o = _run(loop, [], _k53_messages(slot, value))
    a01 = o["stored"][1]
    assert a01["id"] == "a01"
    got = a01["parts"][-1].get(slot, "<absent>")
    assert ("<absent>" if got == {"$undefined": True} else got) == stored  # the protocol's undefined: no key


@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k53_the_list_keeps_the_value_as_given(loop):
    # the storage's copy changes, the message on the list does not (a01 listed with its class instance)
    if loop == "durable":
        pytest.skip("the durable loop reports no list")
    o = _run(loop, [], _k53_messages("data", {"$class": "Klass", "props": {"a": 1}}))
    listed = [e["message"] for e in o["list"]["messages"] if e["message"]["id"] == "a01"][0]
    assert listed["parts"][-1]["data"] == {"$class": "Klass", "props": {"a": 1}}
    assert o["stored"][1]["parts"][-1]["data"] == {"a": 1}


@pytest.mark.parametrize("slot", ["data", "args"])
@pytest.mark.parametrize("loop", LOOPS)
def test_k53_a_thread_seeded_through_the_storage_holds_json_too(loop, slot):
    # THREAD=1 runs: a01 stored in t1 before the call is recalled and stored as JSON holds it
    a01 = {"id": "a01", "role": "assistant", "createdAt": 1, "threadId": "t1", "resourceId": "r1",
           "parts": K53_SLOTS[slot]({"a": {"$function": "f"}, "b": 1})}
    call = {"loop": loop, "actor": ACTOR, "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"},
            "messages": [{"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "fine"}]}]}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False}, "processors": []}, "call": call,
          "threads": [{"id": "t1", "resource": "r1", "messages": [a01]}]}
    o = normalise_observation(model_observation(sj, "raw"), sj)
    assert o["stored"][0]["id"] == "a01"
    assert o["stored"][0]["parts"][-1][slot] == {"b": 1}


# -- k54: a cleared message keeps its memory source for the checker -------------------------------

# adapter runs (scratch m10/k54/base-*.json): thread t1 [u0, a0 (text, call tc1)], caller
# [a0 (tc1 approval-responded), c00]; p1 clears the input and returns false, p2 returns the array it
# received (p1's, holding the caller's a0 and c00): Mastra re-adds a0 under memory
K54_A0_CALLER = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": [
    {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "nullmap", "state": "approval-responded",
     "args": {"q": "note-19"}, "approval": {"approved": False, "reason": "r"}}]}
K54_THREAD = [
    {"id": "u0", "role": "user", "createdAt": 1, "threadId": "t1", "resourceId": "r1", "parts": [{"type": "text", "text": "note-25"}]},
    {"id": "a0", "role": "assistant", "createdAt": 2, "threadId": "t1", "resourceId": "r1", "parts": [
        {"type": "text", "text": "note-18"},
        {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "nullmap", "state": "call", "args": {"q": "note-19"}}]},
]
K54_PROCESSORS = [
    {"id": "p1", "hooks": ["processInput"], "steps": [{"op": "clearInput"}], "end": {"return": {"primitive": False}}},
    {"id": "p2", "hooks": ["processInput"], "steps": [],
     "end": {"return": {"array": {"base": "received", "copy": "none", "drop": [], "edits": [], "append": []}}}},
]


def _k54(loop):
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "note-17"}]}
    call = {"loop": loop, "actor": ACTOR, "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"}, "messages": [K54_A0_CALLER, c00]}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False}, "processors": K54_PROCESSORS,
          "clientTools": [{"name": "nullmap", "mapping": {"kind": "null", "prefix": "mapped:"}}]},
          "call": call, "threads": [{"id": "t1", "resource": "r1", "title": "", "messages": K54_THREAD}]}
    return normalise_observation(model_observation(sj, "raw"), sj)


@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_k54_a_cleared_memory_message_returned_again_is_re_added_under_memory(loop):
    o = _k54(loop)
    assert o["result"]["rememberedMessages"] == ["u0", "a0"]
    listed = {e["message"]["id"]: e for e in o["list"]["messages"]}
    assert listed["a0"]["sources"] == ["memory"]
    assert listed["c00"]["sources"] == ["input"]
    # re-added under memory: the caller's merged a0, its parts not stamped
    assert [p.get("state") for p in listed["a0"]["message"]["parts"]] == [None, "approval-responded"]
    assert all("createdAt" not in p for p in listed["a0"]["message"]["parts"])


@pytest.mark.parametrize("loop", LOOPS)
def test_k54_the_re_added_memory_message_is_not_saved_again(loop):
    o = _k54(loop)
    a0 = [m for m in o["stored"] if m["id"] == "a0"][0]
    assert [p.get("state") for p in a0["parts"]] == [None, "call"]
    assert [m["id"] for m in o["stored"]][:3] == ["u0", "a0", "c00"]


# -- k55: a failed download, then the read-back of the result text -------------------------------

# adapter runs (scratch m10/k55/simple.py): caller c00 [file "note-16" text/plain], which fails the
# download; a processor adds a0 [tool tc1 approval-requested] as a response message
K55_ERROR = ('AI_MessageConversionError: ToolInvocation must have a result: '
             '{"state":"approval-requested","toolCallId":"tc1","toolName":"lookup","args":{"q":"note-12"}}')


def _k55(loop, memory):
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": [
        {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "lookup", "state": "approval-requested", "args": {"q": "note-12"}}]}
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "file", "data": "note-16", "mediaType": "text/plain"}]}
    return _run(loop, [_adds([a0], "response")], [c00], memory=memory)


@pytest.mark.parametrize("loop, memory, outcome", [
    ("generate", True, {"kind": "failed", "error": K55_ERROR}),
    ("stream", True, {"kind": "answered"}),
    ("durable", True, {"kind": "failed", "error": "Error: Failed to download asset: nulltext/plain;base64,note-16"}),
    ("generate", False, {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}),
    ("stream", False, {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}),
    ("durable", False, {"kind": "failed", "error": "Error: Failed to download asset: nulltext/plain;base64,note-16"}),
])
def test_k55_with_memory_the_read_back_error_replaces_the_download_failure(loop, memory, outcome):
    o = _k55(loop, memory)
    assert o["outcome"] == outcome
    assert o["prompts"] == []  # the model was never called
    if loop == "stream" and memory:
        assert o["result"]["text"] == "" and o["result"]["finishReason"] == "error"
    if memory:  # the turn was saved with its error response (k13)
        assert [m["id"] for m in o["stored"]][:2] == ["a0", "c00"] and len(o["stored"]) == 3


# -- k56: a user response message's file in the read-back -----------------------------------------

# adapter runs (scratch m10/k56/var2.py on seed 20261331 case 1000's shrunk vector): a processor adds
# c1 [text, file <data> <mediaType>] as a response message; with memory the read-back converts c1's
# file as an attachment. Each expectation is the adapter's answer on real Mastra 1.71.0.
INVALID_DATA = "Invalid data content. Content string is not a base64-encoded media."


def _k56(loop, data, media="text/plain", memory=True):
    c1 = {"id": "c1", "role": "user", "createdAt": 20, "parts": [{"type": "text", "text": "note-39"}, {"type": "file", "data": data, "mediaType": media}]}
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "note-34"}]}
    return _run(loop, [_adds([c1], "response")], [c00], memory=memory)


@pytest.mark.parametrize("data, media, generate", [
    ({"answer": "note-11"}, "text/plain", "Error: Invalid URL: [object Object]"),
    (["a", None, 2], "text/plain", "Error: Invalid URL: a,,2"),
    (None, "text/plain", "Error: Invalid URL: undefined"),
    ({"answer": "x"}, "image/png", "Error: Invalid URL: [object Object]"),
    ("not!base64", "text/plain", "AI_InvalidDataContentError: " + INVALID_DATA),
    ("data:image/png;base64,not!base64", "text/plain", "AI_InvalidDataContentError: " + INVALID_DATA),
    ("ftp://assets.example/e.txt", "text/plain", "Error: Unsupported URL protocol: ftp:"),
    ("note: see the file", "text/plain", "Error: Unsupported URL protocol: note:"),
    ("data:text/plain,https://other.example/f", "text/plain", "AI_InvalidDataContentError: " + INVALID_DATA),
    # the read-back converts these; the download's error stands
    ("note-02", "text/plain", "DOWNLOAD_ASSETS_FAILED"),  # atob reads "note+02"
    ("not!base64", "application/pdf", "DOWNLOAD_ASSETS_FAILED"),  # not decoded
    ("https://x.example/a", "text/plain", "DOWNLOAD_ASSETS_FAILED"),
    (["https://x.example/a"], "text/plain", "DOWNLOAD_ASSETS_FAILED"),
])
def test_k56_a_user_response_file_the_read_back_cannot_convert_replaces_the_download_failure(data, media, generate):
    g = _k56("generate", data, media)
    assert g["outcome"] == {"kind": "failed", "error": generate}
    assert g["prompts"] == []
    s = _k56("stream", data, media)
    if generate == "DOWNLOAD_ASSETS_FAILED":
        assert s["outcome"] == {"kind": "failed", "error": generate}
    else:  # stream resolves, with no text
        assert s["outcome"] == {"kind": "answered"}
        assert (s["result"]["text"], s["result"]["finishReason"]) == ("", "error")
    # without memory there is no read-back: the download's error
    assert _k56("generate", data, media, memory=False)["outcome"] == {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}


@pytest.mark.parametrize("data, durable", [
    ({"answer": "note-11"}, "Error: Failed to download asset: nulltext/plain;base64,[object Object]"),
    (["https://x.example/a"], "Error: Failed to download asset: nulltext/plain;base64,https://x.example/a"),
    ("data:text/plain;base64", "Error: Failed to download asset: nulltext/plain;base64"),
])
def test_k56_the_durable_loop_reports_the_download(data, durable):
    assert _k56("durable", data)["outcome"] == {"kind": "failed", "error": durable}


@pytest.mark.parametrize("data", ["aGk=", "data:text/plain;base64,aGk=", ""])
def test_k56_files_that_download_and_convert_answer(data):
    for loop in LOOPS:
        assert _k56(loop, data)["outcome"] == {"kind": "answered"}


def test_k56_data_the_download_accepts_and_atob_refuses_fails_after_the_model():
    # "aGk%3D" is percent-decoded by the fetch of its data URL, not by atob: the model answers,
    # then the read-back throws
    g = _k56("generate", "aGk%3D")
    assert g["outcome"] == {"kind": "failed", "error": "AI_InvalidDataContentError: " + INVALID_DATA}
    assert len(g["prompts"]) == 1
    s = _k56("stream", "aGk%3D")
    assert s["outcome"] == {"kind": "answered"}
    assert (s["result"]["text"], s["result"]["finishReason"]) == ("reply-0", "error")
    assert _k56("durable", "aGk%3D")["outcome"] == {"kind": "failed", "error": "Error: " + INVALID_DATA}


# -- k57: a copy that shares its content ------------------------------------------------------------

# adapter runs (scratch s20/share.py on seed 20261342 case 1427's shrunk vector): p2 adds a0 [the
# mapped client tool's result] as context and returns the list copied, a0's copy renamed n2; n2 is
# re-added as input, so M11 maps its part, and the reply merges into it. Each part as
# kind[:text][+PM when it carries providerMetadata]
K57_A0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": [
    {"type": "tool-invocation", "toolCallId": "tc0", "toolName": "lookup", "state": "result",
     "args": {"q": "note-17"}, "result": {"answer": "note-32"}, "createdAt": 500}]}


def _k57(loop, copy="shallow", edits=({"setId": {"id": "a0", "newId": "n2"}},), after=None):
    array = {"base": "list", "copy": copy, "drop": [], "edits": list(edits), "append": []}
    processors = [
        {"id": "p2", "hooks": ["processInput"], "steps": [{"op": "add", "entries": [K57_A0], "source": "context", "merge": False}],
         "end": {"return": {"array": array}}},
    ]
    if after:
        processors.append({"id": "p3", "hooks": ["processInput"], "steps": [after], "end": {"return": "sameList"}})
    call = {"loop": loop, "actor": ACTOR, "reply": "reply-0", "messages": [], "memory": {"thread": "t1", "resource": "r1"}}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False}, "processors": processors,
          "clientTools": [{"name": "lookup", "mapping": {"kind": "text", "prefix": "mapped:"}}]}, "call": call}
    return normalise_observation(model_observation(sj, "raw"), sj)


def _shape(o):
    def part(p):
        return p["type"][:4] + (":" + p["text"] if "text" in p else "") + ("+PM" if "providerMetadata" in p else "")
    return {e["message"]["id"]: [part(p) for p in e["message"]["parts"]] for e in o["list"]["messages"]}


@pytest.mark.parametrize("loop", ["generate", "stream"])
@pytest.mark.parametrize("copy, a0", [
    # {...m} and {...m, id} share the content: M11's write and the merged reply show in a0 too
    ("shallow", ["tool+PM", "text:reply-0"]),
    ("none", ["tool+PM", "text:reply-0"]),
    ("deep", ["tool"]),
])
def test_k57_a_renamed_copy_shares_its_content_with_the_original(loop, copy, a0):
    assert _shape(_k57(loop, copy)) == {"a0": a0, "n2": ["tool+PM", "text:reply-0"]}


@pytest.mark.parametrize("loop", ["generate", "stream"])
@pytest.mark.parametrize("target", ["a0", "n2"])
def test_k57_an_edit_in_place_of_either_shows_in_both(loop, target):
    o = _k57(loop, after={"op": "editMessage", "id": target, "text": "E"})
    assert _shape(o) == {"a0": ["tool+PM", "text:E", "text:reply-0"], "n2": ["tool+PM", "text:E", "text:reply-0"]}


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("target", ["a0", "n2"])
def test_k57_the_prompt_sends_the_edit_in_both_messages(loop, target):
    o = _k57(loop, after={"op": "editMessage", "id": target, "text": "E"})
    sent = [p.get("text") for m in o["prompts"][0] if m["role"] == "assistant" for p in m["parts"]]
    assert sent.count("E") == 2


@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_k57_a_copy_with_new_content_keeps_sharing_the_parts_it_did_not_replace(loop):
    # {...m, content: {...m.content, parts: [...]}}: a new text part, the tool part object kept
    o = _k57(loop, edits=({"editText": {"id": "a0", "text": "T"}}, {"setId": {"id": "a0", "newId": "n2"}}))
    assert _shape(o) == {"a0": ["tool+PM"], "n2": ["tool+PM", "text:T", "text:reply-0"]}


@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_k57_a_message_merged_into_the_copy_shows_in_the_original(loop):
    added = {"op": "add", "entries": [{"id": "a9", "role": "assistant", "createdAt": 3, "parts": [{"type": "text", "text": "M", "createdAt": 3}]}], "source": "input"}
    assert _shape(_k57(loop, after=added)) == {"a0": ["tool+PM", "text:M", "text:reply-0"], "n2": ["tool+PM", "text:M", "text:reply-0"]}


# the same shapes on the guarded path, a caller message c1 [text "hi"] added (Breakwater 0.17.0 build,
# scratch s20/bwshare.py: each loop, memory on and off, copy shallow/none/deep, the edit on a0, n2 or
# none: 54 runs agree with the model after k57, 32 disagreed before): the edit is sent in both
# messages, and Breakwater's policy engine reads it
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("target", ["a0", "n2"])
def test_k57_under_the_guard_the_shared_edit_is_sent_in_both_and_read(loop, target):
    from guardspec.model.codec import scenario_from_json
    from guardspec.properties.harness import check_call, execute

    array = {"base": "list", "copy": "shallow", "drop": [], "edits": [{"setId": {"id": "a0", "newId": "n2"}}], "append": []}
    processors = [
        {"id": "p2", "hooks": ["processInput"], "steps": [{"op": "add", "entries": [K57_A0], "source": "context", "merge": False}],
         "end": {"return": {"array": array}}},
        {"id": "p3", "hooks": ["processInput"], "steps": [{"op": "editMessage", "id": target, "text": "E"}], "end": {"return": "sameList"}},
    ]
    call = {"loop": loop, "actor": ACTOR, "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"},
            "messages": [{"id": "c1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]}
    sj = {"guardspec": 1, "agent": {"allowedPrincipalKinds": ["human"], "memory": {"generateTitle": False}, "processors": processors,
          "clientTools": [{"name": "lookup", "mapping": {"kind": "text", "prefix": "mapped:"}}]}, "call": call}
    o = normalise_observation(model_observation(sj, "guarded"), sj)
    assert o["outcome"] == {"kind": "answered"}
    sent = [p.get("text") for m in o["prompts"][0] if m["role"] == "assistant" for p in m["parts"]]
    assert sent.count("E") == 2
    ex = execute(scenario_from_json(sj), "guarded")
    assert "E" in ex.read.split("\n")
    assert not any(check_call(ex).values())


# -- k58: an error's text and a result as the model receives them ----------------------------------

# adapter runs (scratch s20/errtext.py): caller [c00 user "hi", a01 assistant [tool tc1 <slot>], c02
# user "yo"], memory on, each loop: 17 values × 2 slots × 3 loops, all agree after k58


def _k58(loop, **slot):
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "args": {"q": "x"}, **slot}
    msgs = [{"id": "c00", "role": "user", "parts": [{"type": "text", "text": "hi"}]}, {"id": "a01", "role": "assistant", "parts": [t]},
            {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]}]
    return _run(loop, [], msgs)


def _sent_tc1(o):
    return next(p for m in o["prompts"][0] if m["role"] == "assistant" for p in m["parts"] if p.get("toolCallId") == "tc1")


ABSENT = object()


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("value, sent", [
    ({"a": 1}, '{"a":1}'), ({"$class": "K", "props": {"a": 1}}, '{"a":1}'), ([1, {"b": {"$undefined": True}}], "[1,{}]"),
    ({"a": {"$getter": "get-a", "value": "x"}}, '{"a":"x"}'), (True, "true"), (5, "5"), ("s", "s"),
    # errorText || "": every falsy value is the empty text
    ({"$undefined": True}, ""), ({"$number": "NaN"}, ""), (0, ""), (False, ""), (None, ""), ("", ""),
    # JSON.stringify gives undefined: no errorText
    ({"$function": "f"}, ABSENT), ({"$symbol": "s"}, ABSENT),
])
def test_k58_an_error_text_is_sent_as_the_ai_sdk_writes_its_message(loop, value, sent):
    part = _sent_tc1(_k58(loop, state="output-error", errorText=value))
    assert part["state"] == "output-error"
    assert part.get("errorText", ABSENT) == sent


@pytest.mark.parametrize("value, durable", [
    ({"$bigint": "5"}, "TypeError: Do not know how to serialize a BigInt"),
    ({"a": {"$getter": "get-a", "throws": True}}, "Error: getter get-a throws"),
])
def test_k58_an_error_text_json_cannot_write_fails_before_the_model(value, durable):
    assert _k58("generate", state="output-error", errorText=value)["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}
    assert _k58("stream", state="output-error", errorText=value)["outcome"] == {"kind": "failed", "error": "AGENT_STREAM_FAILED"}
    assert _k58("durable", state="output-error", errorText=value)["outcome"] == {"kind": "failed", "error": durable}


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("value, sent", [
    ("s", {"type": "text", "value": "s"}), ("", {"type": "text", "value": ""}), ({"$undefined": True}, None),
    ({"a": 1}, {"a": 1}), (None, None), (0, 0),
])
def test_k58_a_string_result_is_sent_as_a_text_output_and_undefined_as_null(loop, value, sent):
    part = _sent_tc1(_k58(loop, state="result", result=value))
    assert part["state"] == "result"
    assert part["result"] == sent


# the same caller on the guarded path (Breakwater 0.17.0 build, scratch s20/bwerrtext.py: 17 values × 2
# slots × 3 loops, all agree after k58): the input-assets gate converts the prompt, so an errorText
# JSON.stringify throws on is not classified there; a bigint result passes it and the policy engine
# cannot read it
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("slot, gate", [
    ({"state": "output-error", "errorText": {"$bigint": "5"}}, "breakwater-input-assets"),
    ({"state": "result", "result": {"$bigint": "5"}}, "breakwater-policy-engine"),
])
def test_k58_under_the_guard_an_error_text_the_conversion_cannot_write_is_refused_by_the_input_assets_gate(loop, slot, gate):
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "args": {"q": "x"}, **slot}
    msgs = [{"id": "c00", "role": "user", "parts": [{"type": "text", "text": "hi"}]}, {"id": "a01", "role": "assistant", "parts": [t]},
            {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]}]
    call = {"loop": loop, "actor": ACTOR, "messages": msgs, "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"}}
    sj = {"guardspec": 1, "agent": {"allowedPrincipalKinds": ["human"], "memory": {"generateTitle": False}, "processors": []}, "call": call}
    o = normalise_observation(model_observation(sj, "guarded"), sj)
    assert o["outcome"] == {"kind": "refused", "reason": "input message content is not classified", "processorId": gate}


# the policies read an error's text as the prompt sends it (Breakwater build, scratch
# s21/errread.py: campaign seed 8476 case 1062, a caller output-error with errorText null folded
# onto the stored call, and a pure input variant; 10 values × 3 loops: every falsy value read
# nothing on the build, and the model read it as JSON before this was fixed)
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("value, read", [
    (None, None), (0, None), (False, None), ({"$number": "NaN"}, None), ("", None), ({"$undefined": True}, None),
    ({"a": 1}, '{"a":1}'), ("s", "s"), ([1], "[1]"), (True, "true"),
])
def test_k58_under_the_guard_an_error_text_is_read_as_it_is_sent(loop, value, read):
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "args": {"q": "x"}, "state": "output-error", "errorText": value}
    msgs = [{"id": "a01", "role": "assistant", "parts": [t]}, {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]}]
    call = {"loop": loop, "actor": ACTOR, "messages": msgs, "reply": "reply-0"}
    sj = {"guardspec": 1, "agent": {"allowedPrincipalKinds": ["human"], "processors": []}, "call": call}
    o = normalise_observation(model_observation(sj, "guarded"), sj)
    assert o["outcome"] == {"kind": "answered"}
    assert o["read"].split("\n") == ["plain", '{"q":"x"}', "plain"] + ([read] if read is not None else []) + ["yo"]


# a returned AI SDK system entry the next processor receives and copies (diff seed 20261350 case 209,
# which crashed the model once k57 gave copies a content to share): adapter runs (scratch
# s20/syscopy2.py, each copy kind and loop: answered, the prompt one user message and no system
# message, as the instructions were replaced by nothing)
@pytest.mark.parametrize("copy", ["none", "shallow", "deep"])
@pytest.mark.parametrize("loop", LOOPS)
def test_k57_a_received_system_entry_is_copied_as_a_system_message(copy, loop):
    system = {"role": "system", "content": "note-05"}
    processors = [
        {"id": "p1", "hooks": ["processInput"], "steps": [{"op": "replaceAllSystemMessages", "entries": []}],
         "end": {"return": {"array": {"base": "received", "copy": "none", "drop": [], "edits": [], "append": [system]}}}},
        {"id": "p2", "hooks": ["processInput"], "steps": [],
         "end": {"return": {"array": {"base": "received", "copy": copy, "drop": [], "edits": [], "append": []}}}},
    ]
    o = _run(loop, processors, [{"id": "c1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}])
    assert o["outcome"] == {"kind": "answered"}
    assert [(m["role"], [p.get("text") for p in m["parts"]]) for m in o["prompts"][0]] == [("user", ["hi"])]


# k54's stale member once more: p3 removes a0 and returns the array it received (adapter runs,
# scratch s20/k54stale.py, each copy kind and loop): a0 comes back under memory, and the thread
# stores u0, a0 (as stored), c00 and the reply
@pytest.mark.parametrize("copy", ["none", "shallow", "deep"])
@pytest.mark.parametrize("loop", LOOPS)
def test_k54_a_stale_message_removed_and_returned_again_comes_back_under_memory(copy, loop):
    p3 = {"id": "p3", "hooks": ["processInput"], "steps": [{"op": "removeByIds", "ids": ["a0"]}],
          "end": {"return": {"array": {"base": "received", "copy": copy, "drop": [], "edits": [], "append": []}}}}
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "note-17"}]}
    call = {"loop": loop, "actor": ACTOR, "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"}, "messages": [K54_A0_CALLER, c00]}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False}, "processors": K54_PROCESSORS + [p3],
          "clientTools": [{"name": "nullmap", "mapping": {"kind": "null", "prefix": "mapped:"}}]},
          "call": call, "threads": [{"id": "t1", "resource": "r1", "title": "", "messages": K54_THREAD}]}
    o = normalise_observation(model_observation(sj, "raw"), sj)
    assert o["outcome"] == {"kind": "answered"}
    if loop != "durable":
        assert [(e["message"]["id"], e["sources"]) for e in o["list"]["messages"]][:3] == [("u0", ["memory"]), ("a0", ["memory"]), ("c00", ["input"])]
    stored = o["stored"]
    assert [m["id"] for m in stored][:3] == ["u0", "a0", "c00"] and len(stored) == 4
    assert [p.get("state") for p in stored[1]["parts"]] == [None, "call"]


# -- k59: a client tool's mapping of a result JSON cannot write ---------------------------------------

# adapter runs (scratch s20/maprun.py, raw on Mastra and guarded on the Breakwater build: 12 result
# values × 3 loops each, all agree): caller [c00, a01 [lookup tc1 result <value>], c02], memory on;
# lookup maps to prefix + JSON.stringify(output). The scenario's mapping is the adapter's, so the
# rule is JSON.stringify's: undefined gives "undefined", a throw is the mapping's error (M11, G11)
def _k59(mode, loop, value):
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "lookup", "state": "result", "args": {"q": "x"}, "result": value}
    msgs = [{"id": "c00", "role": "user", "parts": [{"type": "text", "text": "hi"}]}, {"id": "a01", "role": "assistant", "parts": [t]},
            {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]}]
    sj = {"guardspec": 1, "agent": {"allowedPrincipalKinds": ["human"], "memory": {"generateTitle": False},
                                    "clientTools": [{"name": "lookup", "mapping": {"kind": "text", "prefix": "mapped:"}}]},
          "call": {"loop": loop, "actor": ACTOR, "messages": msgs, "reply": "r", "memory": {"thread": "t1", "resource": "r1"}}}
    return normalise_observation(model_observation(sj, mode), sj)


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("value, text", [
    ({"$function": "f"}, "mapped:undefined"), ({"$symbol": "s"}, "mapped:undefined"), ({"$undefined": True}, "mapped:undefined"),
    ({"$class": "K", "props": {"a": 1}}, 'mapped:{"a":1}'), ({"$number": "NaN"}, "mapped:null"), ("s", 'mapped:"s"'),
])
def test_k59_the_mapping_writes_json_stringify_of_the_result(loop, value, text):
    o = _k59("raw", loop, value)
    assert o["outcome"] == {"kind": "answered"}
    sent = [p["result"] for m in o["prompts"][0] for p in m.get("parts", []) if p.get("toolCallId") == "tc1"]
    assert sent == [{"type": "text", "value": text}]


@pytest.mark.parametrize("value", [{"$bigint": "5"}, {"a": {"$getter": "get-a", "throws": True}}])
def test_k59_a_mapping_that_throws_is_logged_raw_and_fails_the_guarded_call(value):
    # raw Mastra logs it and sends the raw result, whose save then fails (k45): generate rejects
    assert _k59("raw", "generate", value)["outcome"] == {"kind": "failed", "error": "PROCESSOR_WORKFLOW_FAILED"}
    assert _k59("raw", "stream", value)["outcome"] == {"kind": "answered"}
    assert _k59("raw", "durable", value)["outcome"] == {"kind": "answered"}
    # under the guard a bigint passes the input-assets gate and the mapping fails the call (G11);
    # a throwing getter is stopped earlier, by the gate's structuredClone
    gate = "breakwater-client-tool-output" if "$bigint" in value else "breakwater-input-assets"
    reason = "input processor failed" if "$bigint" in value else "input message content is not classified"
    for loop in LOOPS:
        assert _k59("guarded", loop, value)["outcome"] == {"kind": "refused", "reason": reason, "processorId": gate}


# -- k60: results that are output wrappers (`{type, value}`) ----------------------------------------

# adapter runs (scratch s21/unwrap.py): stored a0 [call tc1] (memory on) or none (off), caller [a0 or
# a1 [tool tc1 result <value>], u1 "hi"], client tool `loc` with a text or null mapping (or one that
# throws); 9 values × 3 mappings × memory on/off × 3 loops: raw on Mastra 96 of 162 disagreed before
# k60, guarded on the Breakwater build 102 of 162; after it 162 and 162 agree


def _k60(mode, loop, value, kind, memory=False):
    caller = {"id": "a0" if memory else "a1", "role": "assistant", "createdAt": 2, "parts": [
        {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "loc", "state": "result", "args": {"q": 1}, "result": value}]}
    sj = {"guardspec": 1,
          "agent": {"allowedPrincipalKinds": ["human"], "memory": {"generateTitle": False} if memory else None,
                    "policies": [{"kind": "denyPatterns", "name": "no-marker", "patterns": ["FORBIDDEN"]}],
                    "clientTools": [{"name": "loc", "mapping": {"kind": kind, "prefix": "mapped:"}}], "processors": []},
          "call": {"loop": loop, "actor": ACTOR, "reply": "reply-0",
                   "messages": [caller, {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]}}
    if memory:
        sj["call"]["memory"] = {"thread": "t1", "resource": "r1"}
        sj["threads"] = [{"id": "t1", "resource": "r1", "messages": [{"id": "a0", "role": "assistant", "createdAt": 1, "threadId": "t1", "resourceId": "r1",
                          "parts": [{"type": "tool-invocation", "toolCallId": "tc1", "toolName": "loc", "state": "call", "args": {"q": 1}}]}]}]
    return normalise_observation(model_observation(sj, mode), sj)


K60_WRAPPERS = [
    # (result, sent with a text mapping, sent with a null mapping): the prompt's result as the
    # observation writes it (a JSON output as its value, any other output as the output itself)
    ({"type": "text", "value": "note-2"}, {"type": "text", "value": 'mapped:"note-2"'}, {"type": "text", "value": "note-2"}),
    # an error wrapper is never mapped, and sent as its value
    ({"type": "error-text", "value": "note-3"}, {"type": "text", "value": "note-3"}, {"type": "text", "value": "note-3"}),
    ({"value": "note-8", "type": "error-text"}, {"type": "text", "value": "note-8"}, {"type": "text", "value": "note-8"}),
    ({"type": "error-json", "value": {"e": "note-4"}}, {"e": "note-4"}, {"e": "note-4"}),
    # a content output is sent as it is; the mapping is given its value
    ({"type": "content", "value": [{"type": "text", "text": "note-5"}]},
     {"type": "text", "value": 'mapped:[{"type":"text","text":"note-5"}]'}, {"type": "content", "value": [{"type": "text", "text": "note-5"}]}),
    # three keys: the mapping gets the whole object, the prompt still sends its value
    ({"type": "json", "value": {"answer": "note-6"}, "extra": 1},
     {"type": "text", "value": 'mapped:{"type":"json","value":{"answer":"note-6"},"extra":1}'}, {"answer": "note-6"}),
    ({"type": "other", "value": None}, {"type": "text", "value": "mapped:null"}, None),
    # no value: no wrapper
    ({"type": "error-text"}, {"type": "text", "value": 'mapped:{"type":"error-text"}'}, {"type": "error-text"}),
]


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("value, text_mapped, null_mapped", K60_WRAPPERS)
def test_k60_a_wrapped_result_is_mapped_and_sent_by_its_value(loop, value, text_mapped, null_mapped):
    for kind, sent in (("text", text_mapped), ("null", null_mapped)):
        o = _k60("raw", loop, value, kind)
        assert o["outcome"] == {"kind": "answered"}
        assert [p["result"] for m in o["prompts"][0] for p in m.get("parts", []) if p.get("toolCallId") == "tc1"] == [sent], kind


@pytest.mark.parametrize("loop", LOOPS)
def test_k60_an_error_wrapper_is_not_mapped_so_a_throwing_mapping_never_runs(loop):
    value = {"type": "error-text", "value": "note-3"}
    for mode in ("raw", "guarded"):
        o = _k60(mode, loop, value, "throws", memory=True)
        assert o["outcome"] == {"kind": "answered"}, mode
        # no cached output, no mark on the stored part
        part = next(p for m in o["stored"] for p in m["parts"] if p.get("toolCallId") == "tc1")
        assert "providerMetadata" not in part, mode


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("value, kind, read", [
    ({"type": "error-text", "value": "note-3"}, "text", "note-3"),
    ({"type": "text", "value": "note-2"}, "null", "note-2"),
    ({"type": "json", "value": {"answer": "note-6"}, "extra": 1}, "null", '{"answer":"note-6"}'),
    ({"type": "content", "value": [{"type": "text", "text": "note-5"}]}, "null", '{"type":"content","value":[{"type":"text","text":"note-5"}]}'),
])
def test_k60_under_the_guard_the_policies_read_the_result_as_it_is_sent(loop, value, kind, read):
    """G12 reads the prompt's conversion, so the unwrapped value (the Breakwater build agrees)."""
    o = _k60("guarded", loop, value, kind)
    assert o["outcome"] == {"kind": "answered"}
    assert o["read"].split("\n")[-1] == read
