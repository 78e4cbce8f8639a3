"""M13 Finish, the result text read back from the response messages: where its conversion throws,
and what generate, stream and the durable loop report then. Expected values are real Mastra
1.71.0's answers to the same scenarios (docs/evidence/mastra.md)."""

import pytest
from raw_json import HUMAN_OPERATOR, LOOP_NAMES, adds, message, observe, observe_with_memory, run_normalised

from guardspec.conformance.cases import model_observation

AWAITING = {"type": "tool-invocation", "toolCallId": "tc2", "toolName": "lookup", "state": "approval-requested", "args": {"q": "note-36"}}


# evidence: M13.6
@pytest.mark.parametrize("role, outcome", [("user", "answered"), ("assistant", "failed")])
def test_the_read_back_fails_only_at_an_assistant_approval_part(role, outcome):
    """M13.6: the result text read-back converts the tool parts of assistant messages only, so only there an approval part throws."""
    # adapter runs: a processor adds n1 [approval-requested call] as a response message: as a
    # user message the call answers, as an assistant message generate fails
    # (AI_MessageConversionError: ToolInvocation must have a result)
    p = {"id": "p1", "steps": [{"op": "add", "entries": [message("n1", role, 5, [AWAITING])], "source": "response", "merge": True}]}
    o = observe_with_memory("generate", [], processors=[p])
    assert o["outcome"]["kind"] == outcome


# evidence: M13.5
@pytest.mark.parametrize("loop, outcome", [("generate", "answered"), ("stream", "answered"), ("durable", "failed")])
def test_the_durable_loop_reads_its_text_back_without_memory(loop, outcome):
    """M13.5: the durable loop reads the result text back even without memory, so an approval part fails it."""
    # adapter runs: no agent memory, caller a0 [approval-responded call]
    a0 = message(
        "a0",
        "assistant",
        2,
        [
            {
                "type": "tool-invocation",
                "toolCallId": "tc1",
                "toolName": "plain",
                "state": "approval-responded",
                "args": {"q": "note-32"},
                "approval": {"approved": False, "reason": "note-04"},
            }
        ],
    )
    o = observe([], loop=loop, messages=[a0])
    assert o["outcome"]["kind"] == outcome
    if outcome == "failed":
        assert o["outcome"]["error"].startswith('Error: ToolInvocation must have a result: {"state":"approval-responded"')


# evidence: M13.6
@pytest.mark.parametrize(
    "state, text, reason",
    [("approval-responded", "reply-0", "error"), ("approval-requested", "reply-0", "error"), ("output-denied", "note-19reply-0", "stop")],
)
def test_stream_gives_the_models_own_text_when_the_read_back_throws(state, text, reason):
    """M13.6: when the read-back throws, stream answers with the model's own text and finishReason error."""
    # adapter runs (memory on, bound; a processor adds a0 [text note-16, tool in `state`, text
    # note-19] as response; no caller message, so the reply merges into a0): stream answers with
    # text "reply-0" and finishReason "error" when the read-back throws (M13.6), with the read-back
    # text "note-19reply-0" otherwise
    tool = {
        "type": "tool-invocation",
        "toolCallId": "tc1",
        "toolName": "plain",
        "state": state,
        "args": {"q": "note-17"},
        "approval": {"approved": False, "reason": "note-09"},
    }
    a0 = {
        "id": "a0",
        "role": "assistant",
        "createdAt": 2,
        "parts": [{"type": "text", "text": "note-16"}, tool, {"type": "text", "text": "note-19"}],
    }
    p1 = {"id": "p1", "steps": [{"op": "add", "entries": [a0], "source": "response", "merge": False}]}
    sj = {
        "guardspec": 1,
        "agent": {"memory": {"generateTitle": False}, "processors": [p1]},
        "call": {
            "loop": "stream",
            "actor": HUMAN_OPERATOR,
            "messages": [],
            "reply": "reply-0",
            "memory": {"thread": "t1", "resource": "r1"},
        },
    }
    o = model_observation(sj, "raw")
    assert o["outcome"] == {"kind": "answered"}
    assert (o["result"]["text"], o["result"]["finishReason"]) == (text, reason)


# adapter runs : caller c00 [file "note-16" text/plain], which fails the
# download; a processor adds a0 [tool tc1 approval-requested] as a response message
READ_BACK_ERROR = (
    "AI_MessageConversionError: ToolInvocation must have a result: "
    '{"state":"approval-requested","toolCallId":"tc1","toolName":"lookup","args":{"q":"note-12"}}'
)


def _failed_download_then_approval_request(loop, memory):
    a0 = {
        "id": "a0",
        "role": "assistant",
        "createdAt": 2,
        "parts": [
            {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "lookup", "state": "approval-requested", "args": {"q": "note-12"}}
        ],
    }
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "file", "data": "note-16", "mediaType": "text/plain"}]}
    return run_normalised(loop, [adds([a0], "response")], [c00], memory=memory)


# evidence: M13.7
@pytest.mark.parametrize(
    "loop, memory, outcome",
    [
        ("generate", True, {"kind": "failed", "error": READ_BACK_ERROR}),
        ("stream", True, {"kind": "answered"}),
        ("durable", True, {"kind": "failed", "error": "Error: Failed to download asset: nulltext/plain;base64,note-16"}),
        ("generate", False, {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}),
        ("stream", False, {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}),
        ("durable", False, {"kind": "failed", "error": "Error: Failed to download asset: nulltext/plain;base64,note-16"}),
    ],
)
def test_with_memory_the_read_back_error_replaces_the_download_failure(loop, memory, outcome):
    """M13.7: with memory a failed download is followed by the result text read-back, whose error generate reports instead."""
    o = _failed_download_then_approval_request(loop, memory)
    assert o["outcome"] == outcome
    assert o["prompts"] == []  # the model was never called
    if loop == "stream" and memory:
        assert o["result"]["text"] == "" and o["result"]["finishReason"] == "error"
    if memory:  # the turn was saved with its error response (M12.10)
        assert [m["id"] for m in o["stored"]][:2] == ["a0", "c00"] and len(o["stored"]) == 3


# adapter runs (a shrunk scenario): a processor adds
# c1 [text, file <data> <mediaType>] as a response message; with memory the read-back converts c1's
# file as an attachment. Each expectation is the adapter's answer on real Mastra 1.71.0.
INVALID_DATA = "Invalid data content. Content string is not a base64-encoded media."


def _user_response_file(loop, data, media="text/plain", memory=True):
    c1 = {
        "id": "c1",
        "role": "user",
        "createdAt": 20,
        "parts": [{"type": "text", "text": "note-39"}, {"type": "file", "data": data, "mediaType": media}],
    }
    c00 = {"id": "c00", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "note-34"}]}
    return run_normalised(loop, [adds([c1], "response")], [c00], memory=memory)


# evidence: M13.7
@pytest.mark.parametrize(
    "data, media, generate",
    [
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
    ],
)
def test_a_user_response_file_the_read_back_cannot_convert_replaces_the_download_failure(data, media, generate):
    """M13.7: a user response file the read-back cannot convert as an attachment gives generate that error instead of the download's."""
    g = _user_response_file("generate", data, media)
    assert g["outcome"] == {"kind": "failed", "error": generate}
    assert g["prompts"] == []
    s = _user_response_file("stream", data, media)
    if generate == "DOWNLOAD_ASSETS_FAILED":
        assert s["outcome"] == {"kind": "failed", "error": generate}
    else:  # stream resolves, with no text
        assert s["outcome"] == {"kind": "answered"}
        assert (s["result"]["text"], s["result"]["finishReason"]) == ("", "error")
    # without memory there is no read-back: the download's error
    assert _user_response_file("generate", data, media, memory=False)["outcome"] == {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}


# evidence: M13.7
@pytest.mark.parametrize(
    "data, durable",
    [
        ({"answer": "note-11"}, "Error: Failed to download asset: nulltext/plain;base64,[object Object]"),
        (["https://x.example/a"], "Error: Failed to download asset: nulltext/plain;base64,https://x.example/a"),
        ("data:text/plain;base64", "Error: Failed to download asset: nulltext/plain;base64"),
    ],
)
def test_the_durable_loop_reports_the_download_not_the_read_back(data, durable):
    """M13.7: the durable loop reports the failed download, not the read-back."""
    assert _user_response_file("durable", data)["outcome"] == {"kind": "failed", "error": durable}


# evidence: M13.7
@pytest.mark.parametrize("data", ["aGk=", "data:text/plain;base64,aGk=", ""])
def test_user_response_files_that_download_and_convert_answer(data):
    """M13.7: a user response file that downloads and converts lets every loop answer."""
    for loop in LOOP_NAMES:
        assert _user_response_file(loop, data)["outcome"] == {"kind": "answered"}


# evidence: M13.6
def test_data_the_download_accepts_and_atob_refuses_fails_the_read_back_after_the_model():
    """M13.6: data the download accepts and atob refuses fails the read-back after the model answered."""
    # "aGk%3D" is percent-decoded by the fetch of its data URL, not by atob: the model answers,
    # then the read-back throws
    g = _user_response_file("generate", "aGk%3D")
    assert g["outcome"] == {"kind": "failed", "error": "AI_InvalidDataContentError: " + INVALID_DATA}
    assert len(g["prompts"]) == 1
    s = _user_response_file("stream", "aGk%3D")
    assert s["outcome"] == {"kind": "answered"}
    assert (s["result"]["text"], s["result"]["finishReason"]) == ("reply-0", "error")
    assert _user_response_file("durable", "aGk%3D")["outcome"] == {"kind": "failed", "error": "Error: " + INVALID_DATA}
