"""What the raw campaigns of issue 10 found after k45 (`guardspec diff --impl "node
adapters/mastra/server.mjs" --mode raw --normalise mastra --examples 2000`, seeds 20261209-20261211),
each confirmed by adapter runs on real Mastra 1.71.0, offline (docs/mastra-measurements.md §k
k46-). The expected values are the adapter's measured answers quoted in §k, not the model's output.
"""

import pytest

from guardspec.conformance.cases import model_observation
from guardspec.mastra_normalise import normalise_observation

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
