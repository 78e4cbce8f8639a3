"""M12 Model step, asset downloads: which user file data is fetched before the model is called, how
a failed download ends the call and which asset it names. Expected values are real Mastra
1.71.0's answers to the same scenarios (docs/evidence/mastra.md)."""

import pytest
from raw_json import NOTE_PART, message, observe, observe_call, observe_with_memory, run_normalised, user_file_message

from guardspec.model.values import JsFunction
from guardspec.reference.downloads import file_data_string, received_data
from guardspec.reference.urls import redacted_url


# evidence: M12.10
def test_function_file_data_is_its_source_and_null_user_file_data_fails_the_download():
    """M12.10: a function's data is its source text; a user file whose data is null is fetched as base64 `undefined` and fails the download."""
    assert file_data_string(JsFunction("fn-a")) == "function () { return undefined; }"
    # a user file with data null: Mastra fetches `data:text/plain;base64,undefined` and fails
    file = {"type": "file", "data": None, "mediaType": "text/plain"}
    o = observe([], messages=[{"id": "m2", "role": "user", "createdAt": 2, "parts": [file]}])
    assert o["outcome"] == {"kind": "failed", "error": "DOWNLOAD_ASSETS_FAILED"}


BAD_FILE = {"type": "file", "data": 3, "mediaType": "text/plain"}


# evidence: M12.10
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_the_error_response_of_a_failed_download_is_a_message_of_its_own(loop):
    """M12.10: after a failed download the error response is saved as a message of its own, after the remembered ones."""
    # adapter runs: thread [u0, a0 [text]], caller c1 (createdAt 0)
    # with file data 3: stored [c1, u0, a0 [text], <new id> [error part]]
    o = observe_with_memory(
        loop,
        [message("c1", "user", 0, [BAD_FILE])],
        [message("u0", "user", 1, [{"type": "text", "text": "note-29"}], True), message("a0", "assistant", 2, [NOTE_PART], True)],
    )
    assert [(m["id"], len(m["parts"])) for m in o["stored"][:3]] == [("c1", 1), ("u0", 1), ("a0", 1)]
    assert o["stored"][3]["parts"] == [{"type": "text", "text": "<mastra part error>", "createdAt": 1000}]


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


# evidence: M12.10
@pytest.mark.parametrize("data, durable_error", MEASURED)
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_a_user_file_naming_a_url_fails_the_download(loop, data, durable_error):
    """M12.10: a user file whose data names a URL is fetched offline and fails; the durable loop names its origin and path."""
    o = observe_call(loop, [user_file_message(data)])
    error = durable_error if loop == "durable" else "DOWNLOAD_ASSETS_FAILED"
    assert o["outcome"] == {"kind": "failed", "error": error}
    assert o["prompts"] == []


# evidence: M12.10
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_a_user_file_data_uri_of_base64_is_fetched_and_answers(loop):
    """M12.10: a user file whose data is a base64 data URI downloads, and the model receives its payload."""
    # adapter runs: data:text/plain;base64,aGk= answers on each loop; the model receives "aGk="
    o = observe_call(loop, [user_file_message("data:text/plain;base64,aGk=")])
    assert o["outcome"] == {"kind": "answered"}
    assert [p["data"] for m in o["prompts"][0] if "parts" in m for p in m["parts"] if p["type"] == "file"] == ["aGk="]


# evidence: M12.8
@pytest.mark.parametrize(
    "data, sent",
    [
        ("data:text/plain;base64,aGk=", "aGk="),
        ("data:text/plain,hello", "hello"),
        ("https://assets.example/a.png", "https://assets.example/a.png"),
    ],
)
def test_an_assistant_file_data_uri_reaches_the_model_as_its_payload(data, sent):
    """M12.8: an assistant file is not downloaded: a data URI reaches the model as its payload, a URL as given."""
    # adapter runs (probe_prompt, assistant message after "hi"): prompt file data "aGk=", "hello";
    # a URL reaches it as given (an assistant message's file is not downloaded)
    assert received_data(data) == sent
    file = {"type": "file", "data": data, "mediaType": "text/plain"}
    o = observe_call(
        "generate", ["hi", {"id": "a1", "role": "assistant", "createdAt": 10, "parts": [{"type": "text", "text": "hi"}, file]}]
    )
    assert o["outcome"] == {"kind": "answered"}
    assert [p["data"] for m in o["prompts"][0] if "parts" in m for p in m["parts"] if p["type"] == "file"] == [sent]


# evidence: M12.10
def test_a_failed_download_names_the_urls_origin_and_path():
    """M12.10: the URL a failed download names is its origin and path, credentials, query and fragment left out."""
    # Mastra's redactUrlForLog: `${url.origin}${url.pathname}` (measured values above, and
    # WHATWG's default port left out of the origin)
    assert redacted_url("https://u:p@assets.example/d.png?x=1#f") == "https://assets.example/d.png"
    assert redacted_url("https://assets.example:8443/c.png") == "https://assets.example:8443/c.png"
    assert redacted_url("note: see the file") == "null see the file"


ASSETS = {
    "A": "https://assets.example/a.png",
    "C": "https://u:p@assets.example/d.png",
    "D": "note-29",
    "U": "data:text/plain,hello",
    "F": "ftp://assets.example/e.txt",
    "N": "note: see the file",
    "P": "https://assets.example:8443/c.png",
    "G": "aGk=",
    "Q": "https://v:w@assets.example/q.png",
    "T": "data:text/plain;base64,aGk=",
}


NAMED = {
    "A": "https://assets.example/a.png",
    "C": "https://assets.example/d.png",
    "D": "nullimage/png;base64,note-29",
    "U": "nullimage/png;base64,hello",
    "F": "ftp://assets.example/e.txt",
    "N": "null see the file",
    "P": "https://assets.example:8443/c.png",
    "Q": "https://assets.example/q.png",
}


# adapter runs (dl3: caller c1 [text, file parts with these
# data, mediaType image/png], durable, offline; 54 runs): the asset the error names
# evidence: M12.11
@pytest.mark.parametrize(
    "combo, named",
    [
        ("AC", "C"),
        ("CA", "C"),
        ("AD", "D"),
        ("DA", "D"),
        ("AU", "U"),
        ("UA", "U"),
        ("AF", "F"),
        ("FA", "F"),
        ("AN", "N"),
        ("NA", "N"),
        ("CD", "C"),
        ("DC", "C"),
        ("CU", "C"),
        ("UC", "C"),
        ("CF", "C"),
        ("FC", "C"),
        ("CN", "C"),
        ("NC", "C"),
        ("UD", "U"),
        ("FN", "F"),
        ("NF", "N"),
        ("DF", "D"),
        ("FD", "F"),
        ("DN", "D"),
        ("ND", "N"),
        ("UF", "U"),
        ("FU", "F"),
        ("PA", "P"),
        ("AP", "A"),
        ("CQ", "C"),
        ("QC", "Q"),
        ("DAC", "D"),
        ("DUA", "D"),
        ("DCA", "C"),
        ("ADC", "C"),
        ("AAC", "C"),
        ("DDC", "D"),
        ("DUC", "D"),
        ("GDC", "C"),
        ("GC", "C"),
        ("GGC", "C"),
        ("ACD", "C"),
        ("DGC", "D"),
        ("FAC", "F"),
        ("NAC", "N"),
        ("UAC", "U"),
        ("DAAC", "D"),
        ("FGC", "F"),
        ("DTC", "D"),
        ("CDA", "C"),
    ],
)
def test_the_durable_loop_names_the_first_download_to_fail(combo, named):
    """M12.11: the durable loop's error names the first asset whose download fails."""
    parts = [{"type": "text", "text": "hi"}] + [{"type": "file", "data": ASSETS[k], "mediaType": "image/png"} for k in combo]
    o = run_normalised("durable", [], [{"id": "c1", "role": "user", "createdAt": 1, "parts": parts}], memory=False)
    assert o["outcome"] == {"kind": "failed", "error": f"Error: Failed to download asset: {NAMED[named]}"}


# evidence: M12.11
@pytest.mark.parametrize("combo, named", [("DAC", "D"), ("DC", "C")])
def test_download_positions_count_across_user_messages(combo, named):
    """M12.11: the first failing download is counted across user messages, not within one."""
    msgs = [
        {"id": f"c{i}", "role": "user", "createdAt": i + 1, "parts": [{"type": "file", "data": ASSETS[k], "mediaType": "image/png"}]}
        for i, k in enumerate(combo)
    ]
    o = run_normalised("durable", [], msgs, memory=False)
    assert o["outcome"] == {"kind": "failed", "error": f"Error: Failed to download asset: {NAMED[named]}"}
