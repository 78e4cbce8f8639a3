"""What the raw campaign found once it drew Breakwater's shapes (issue 9 point 3, issue 10):
`guardspec diff --impl "node adapters/mastra/server.mjs" --mode raw --normalise mastra
--examples 2000 --seed 7301` and 7302, each confirmed by adapter runs on real Mastra 1.71.0, offline
(docs/mastra-measurements.md §k k41-k42). The expected values are the adapter's measured
answers quoted in §k, not the model's output.
"""

import pytest

from guardspec.conformance.cases import model_observation

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
