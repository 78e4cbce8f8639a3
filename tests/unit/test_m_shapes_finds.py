"""What the raw campaign found once it drew Breakwater's shapes (issue 9 point 3, issue 10):
`guardspec diff --impl "node adapters/mastra/server.mjs" --mode raw --normalise mastra
--examples 2000 --seed 7301` and 7302, each confirmed by adapter runs on real Mastra 1.71.0, offline
(docs/mastra-measurements.md §k k41, k42, k44). The expected values are the adapter's measured
answers quoted in §k, not the model's output.
"""

import pytest

from guardspec.conformance.cases import model_observation
from guardspec.reference.downloads import received_data
from guardspec.reference.urls import redacted_url

ACTOR = {"id": "alice", "role": "operator", "kind": "human"}


def _call(loop, messages, processors=()):
    sj = {"guardspec": 1, "agent": {"processors": list(processors)}, "call": {"actor": ACTOR, "loop": loop, "messages": messages}}
    return model_observation(sj, "raw")


def _user_file(data, kind="file"):
    part = {"type": kind, "data": data, "mediaType": "text/plain" if kind == "file" else "image/png"}
    return {"id": "c1", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "hi"}, part]}


# -- k41: stream's text when the read-back throws ------------------------------------------------


@pytest.mark.parametrize("state, text, reason", [("approval-responded", "reply-0", "error"), ("approval-requested", "reply-0", "error"),
                                                 ("output-denied", "note-19reply-0", "stop")])
def test_k41_stream_gives_the_models_own_text_when_the_read_back_throws(state, text, reason):
    # adapter runs (memory on, bound; a processor adds a0 [text note-16, tool in `state`, text
    # note-19] as response; no caller message, so the reply merges into a0): stream answers with
    # text "reply-0" and finishReason "error" when the read-back throws (k8), with the read-back
    # text "note-19reply-0" otherwise
    tool = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "state": state, "args": {"q": "note-17"},
            "approval": {"approved": False, "reason": "note-09"}}
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": [{"type": "text", "text": "note-16"}, tool, {"type": "text", "text": "note-19"}]}
    p1 = {"id": "p1", "steps": [{"op": "add", "entries": [a0], "source": "response", "merge": False}]}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False}, "processors": [p1]},
          "call": {"loop": "stream", "actor": ACTOR, "messages": [], "reply": "reply-0", "memory": {"thread": "t1", "resource": "r1"}}}
    o = model_observation(sj, "raw")
    assert o["outcome"] == {"kind": "answered"}
    assert (o["result"]["text"], o["result"]["finishReason"]) == (text, reason)




# -- k42: null or undefined among a returned systemMessages --------------------------------------

SIMPLE = {"role": "system", "content": "note-05"}


def _returns_system(entries, loop, tripwire_after=True):
    p1 = {"id": "p1", "steps": [], "end": {"return": {"object": {"messages": {"array": {"base": "list"}}, "systemMessages": {"entries": entries}}}}}
    p2 = {"id": "p2", "steps": [], "end": {"tripwire": "reason-2"}}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False}, "processors": [p1, p2] if tripwire_after else [p1]},
          "call": {"loop": loop, "actor": ACTOR, "messages": [], "memory": {"thread": "t1", "resource": "r1"}}}
    return model_observation(sj, "raw")


@pytest.mark.parametrize("loop, outcome", [("generate", {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}),
                                           ("stream", {"kind": "failed", "error": "AGENT_STREAM_FAILED"}), ("durable", {"kind": "answered"})])
@pytest.mark.parametrize("bad", [{"value": {"$undefined": True}}, {"value": None}])
def test_k42_a_null_or_undefined_system_entry_fails_the_call_before_a_later_tripwire(loop, outcome, bad):
    # adapter runs: [undefined, system parts] (and [null]) then a TripWire: generate/stream fail,
    # durable answers; the TripWire is never reached
    o = _returns_system([bad, {"role": "system", "content": [{"type": "text", "text": "note-02"}]}], loop)
    assert o["outcome"] == outcome


def test_k42_the_entries_before_it_are_kept_and_a_number_is_skipped():
    # adapter runs: [SIMPLE, undefined] leaves SIMPLE in the untagged bucket (generate fails);
    # [3] is skipped and the later TripWire refuses
    o = _returns_system([SIMPLE, {"value": {"$undefined": True}}], "generate", tripwire_after=False)
    assert o["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}
    assert o["list"]["untagged"] == [SIMPLE]
    assert _returns_system([{"value": 3}], "generate")["outcome"]["kind"] == "refused"


# -- k44: file data naming a URL, and data URIs ------------------------------------------------

# adapter runs (probe_url, each loop, a user message [text, file]): the durable loop's error
# names the URL Mastra fetched, origin and path; generate and stream fail DOWNLOAD_ASSETS_FAILED
MEASURED = [
    ("https://assets.example/a.png", "Error: Failed to download asset: https://assets.example/a.png"),
    ("ftp://assets.example/e.txt", "Error: Failed to download asset: ftp://assets.example/e.txt"),
    ("note: see the file", "Error: Failed to download asset: null see the file"),
    ("data:text/plain,https://other.example/f", "Error: Failed to download asset: nulltext/plain;base64,https://other.example/f"),
    ("data:text/plain,hello", "Error: Failed to download asset: nulltext/plain;base64,hello"),
    ("https://u:p@assets.example/d.png?x=1#f", "Error: Failed to download asset: https://assets.example/d.png"),
]


@pytest.mark.parametrize("data, durable_error", MEASURED)
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_k44_a_user_file_naming_a_url_fails_the_download(loop, data, durable_error):
    o = _call(loop, [_user_file(data)])
    error = durable_error if loop == "durable" else "DOWNLOAD_ASSETS_FAILED"
    assert o["outcome"] == {"kind": "failed", "error": error}
    assert o["prompts"] == []


@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_k44_a_data_uri_of_base64_is_fetched_and_answers(loop):
    # adapter runs: data:text/plain;base64,aGk= answers on each loop; the model receives "aGk="
    o = _call(loop, [_user_file("data:text/plain;base64,aGk=")])
    assert o["outcome"] == {"kind": "answered"}
    assert [p["data"] for m in o["prompts"][0] if "parts" in m for p in m["parts"] if p["type"] == "file"] == ["aGk="]


@pytest.mark.parametrize("data, sent", [("data:text/plain;base64,aGk=", "aGk="), ("data:text/plain,hello", "hello"),
                                        ("https://assets.example/a.png", "https://assets.example/a.png")])
def test_k44_an_assistant_file_data_uri_reaches_the_model_as_its_payload(data, sent):
    # adapter runs (probe_prompt, assistant message after "hi"): prompt file data "aGk=", "hello";
    # a URL reaches it as given (an assistant message's file is not downloaded)
    assert received_data(data) == sent
    file = {"type": "file", "data": data, "mediaType": "text/plain"}
    o = _call("generate", ["hi", {"id": "a1", "role": "assistant", "createdAt": 10, "parts": [{"type": "text", "text": "hi"}, file]}])
    assert o["outcome"] == {"kind": "answered"}
    assert [p["data"] for m in o["prompts"][0] if "parts" in m for p in m["parts"] if p["type"] == "file"] == [sent]


def test_k44_the_named_url_is_origin_and_path():
    # Mastra's redactUrlForLog: `${url.origin}${url.pathname}` (measured values above, and
    # WHATWG's default port left out of the origin)
    assert redacted_url("https://u:p@assets.example/d.png?x=1#f") == "https://assets.example/d.png"
    assert redacted_url("https://assets.example:8443/c.png") == "https://assets.example:8443/c.png"
    assert redacted_url("note: see the file") == "null see the file"


# -- k36: message metadata never reaches the model ----------------------------------------------


@pytest.mark.parametrize("metadata", [{"a": 1}, "note-34", [], 3, None, True])
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_k36_a_messages_metadata_is_not_in_the_prompt(role, metadata):
    # adapter runs (probe_meta, generate and durable): a processor appends n1 [text "t"] with
    # this metadata: the prompt's message has no metadata, whatever its value
    msg = {"id": "n1", "role": role, "createdAt": 0, "parts": [{"type": "text", "text": "t"}], "metadata": metadata}
    p1 = {"id": "p1", "steps": [], "end": {"return": {"array": {"base": "list", "append": [msg]}}}}
    o = _call("generate", ["hi"], [p1])
    sent = [m for m in o["prompts"][0] if any(p.get("text") == "t" for p in m.get("parts", []))]
    assert len(sent) == 1 and "metadata" not in sent[0]
