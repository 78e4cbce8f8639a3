"""Scenarios written as the protocol's JSON and run through the model in raw mode (or guarded),
for the clause tests whose expected values are real Mastra's answers to the same JSON
(docs/evidence/mastra.md): the builders they share."""

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation

OPERATOR = {"id": "alice", "role": "operator"}


def observe(processors, loop="generate", messages=None, **extra):
    sj = {
        "guardspec": 1,
        "agent": {"processors": processors, **extra.pop("agent", {})},
        "call": {"actor": OPERATOR, "loop": loop, **({"messages": messages} if messages is not None else {})},
        **extra,
    }
    return model_observation(sj, "raw")


def observe_with_memory(loop, messages, thread_messages=(), processors=(), title=False, binding=("t1", "r1")):
    sj = {
        "guardspec": 1,
        "agent": {"processors": list(processors), "memory": {"generateTitle": title}},
        "call": {
            "actor": OPERATOR,
            "loop": loop,
            "messages": list(messages),
            "memory": {"thread": binding[0], "resource": binding[1]},
            "reply": "reply-0",
        },
        "threads": [{"id": "t1", "resource": "r1", "messages": list(thread_messages), "title": ""}],
    }
    return model_observation(sj, "raw")


def message(id, role, created, parts, stored=False):
    m = {"id": id, "role": role, "createdAt": created, "parts": parts}
    return {**m, "threadId": "t1", "resourceId": "r1"} if stored else m


NOTE_PART = {"type": "text", "text": "note-09"}


BIGINT_5 = {"$bigint": "5"}


FUNCTION = {"$function": "fn-a"}


UNDEFINED_JSON = {"$undefined": True}


HUMAN_OPERATOR = {"id": "alice", "role": "operator", "kind": "human"}


def observe_call(loop, messages, processors=()):
    sj = {"guardspec": 1, "agent": {"processors": list(processors)}, "call": {"actor": HUMAN_OPERATOR, "loop": loop, "messages": messages}}
    return model_observation(sj, "raw")


def user_file_message(data, kind="file"):
    part = {"type": kind, "data": data, "mediaType": "text/plain" if kind == "file" else "image/png"}
    return {"id": "c1", "role": "user", "createdAt": 10, "parts": [{"type": "text", "text": "hi"}, part]}


LOOP_NAMES = ["generate", "stream", "durable"]


NOTE_PARTS = [{"type": "text", "text": "note-16"}]


def run_normalised(loop, processors, messages=(), memory=True):
    call = {"loop": loop, "actor": HUMAN_OPERATOR, "messages": list(messages), "reply": "reply-0"}
    if memory:
        call["memory"] = {"thread": "t1", "resource": "r1"}
    sj = {"guardspec": 1, "agent": {"memory": {"generateTitle": False} if memory else None, "processors": list(processors)}, "call": call}
    return normalise_observation(model_observation(sj, "raw"), sj)


def adds(entries, source=None):
    step = {"op": "add", "entries": entries}
    if source:
        step.update(source=source, merge=False)
    return {"id": "p1", "steps": [step]}


# adapter runs (a shrunk scenario): p2 adds a0 [the
# mapped client tool's result] as context and returns the list copied, a0's copy renamed n2; n2 is
# re-added as input, so M11 maps its part, and the reply merges into it. Each part as
# kind[:text][+PM when it carries providerMetadata]
MAPPED_RESULT_A0 = {
    "id": "a0",
    "role": "assistant",
    "createdAt": 2,
    "parts": [
        {
            "type": "tool-invocation",
            "toolCallId": "tc0",
            "toolName": "lookup",
            "state": "result",
            "args": {"q": "note-17"},
            "result": {"answer": "note-32"},
            "createdAt": 500,
        }
    ],
}


# adapter runs (raw on Mastra and guarded on the Breakwater build: 12 result
# values × 3 loops each, all agree): caller [c00, a01 [lookup tc1 result <value>], c02], memory on;
# lookup maps to prefix + JSON.stringify(output). The scenario's mapping is the adapter's, so the
# rule is JSON.stringify's: undefined gives "undefined", a throw is the mapping's error (M11, G11)
def mapped_lookup_call(mode, loop, value):
    t = {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "lookup", "state": "result", "args": {"q": "x"}, "result": value}
    msgs = [
        {"id": "c00", "role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"id": "a01", "role": "assistant", "parts": [t]},
        {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]},
    ]
    sj = {
        "guardspec": 1,
        "agent": {
            "allowedPrincipalKinds": ["human"],
            "memory": {"generateTitle": False},
            "clientTools": [{"name": "lookup", "mapping": {"kind": "text", "prefix": "mapped:"}}],
        },
        "call": {"loop": loop, "actor": HUMAN_OPERATOR, "messages": msgs, "reply": "r", "memory": {"thread": "t1", "resource": "r1"}},
    }
    return normalise_observation(model_observation(sj, mode), sj)


def wrapped_result_call(mode, loop, value, kind, memory=False):
    caller = {
        "id": "a0" if memory else "a1",
        "role": "assistant",
        "createdAt": 2,
        "parts": [
            {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "loc", "state": "result", "args": {"q": 1}, "result": value}
        ],
    }
    sj = {
        "guardspec": 1,
        "agent": {
            "allowedPrincipalKinds": ["human"],
            "memory": {"generateTitle": False} if memory else None,
            "policies": [{"kind": "denyPatterns", "name": "no-marker", "patterns": ["FORBIDDEN"]}],
            "clientTools": [{"name": "loc", "mapping": {"kind": kind, "prefix": "mapped:"}}],
            "processors": [],
        },
        "call": {
            "loop": loop,
            "actor": HUMAN_OPERATOR,
            "reply": "reply-0",
            "messages": [caller, {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}],
        },
    }
    if memory:
        sj["call"]["memory"] = {"thread": "t1", "resource": "r1"}
        sj["threads"] = [
            {
                "id": "t1",
                "resource": "r1",
                "messages": [
                    {
                        "id": "a0",
                        "role": "assistant",
                        "createdAt": 1,
                        "threadId": "t1",
                        "resourceId": "r1",
                        "parts": [{"type": "tool-invocation", "toolCallId": "tc1", "toolName": "loc", "state": "call", "args": {"q": 1}}],
                    }
                ],
            }
        ]
    return normalise_observation(model_observation(sj, mode), sj)


# M11.2's output wrappers: (result, sent with a text mapping, sent with a null mapping), the prompt's
# result as the observation writes it; real Mastra's answers (evidence M11.2).
OUTPUT_WRAPPERS = [
    # (result, sent with a text mapping, sent with a null mapping): the prompt's result as the
    # observation writes it (a JSON output as its value, any other output as the output itself)
    ({"type": "text", "value": "note-2"}, {"type": "text", "value": 'mapped:"note-2"'}, {"type": "text", "value": "note-2"}),
    # an error wrapper is never mapped, and sent as its value
    ({"type": "error-text", "value": "note-3"}, {"type": "text", "value": "note-3"}, {"type": "text", "value": "note-3"}),
    ({"value": "note-8", "type": "error-text"}, {"type": "text", "value": "note-8"}, {"type": "text", "value": "note-8"}),
    ({"type": "error-json", "value": {"e": "note-4"}}, {"e": "note-4"}, {"e": "note-4"}),
    # a content output is sent as it is; the mapping is given its value
    (
        {"type": "content", "value": [{"type": "text", "text": "note-5"}]},
        {"type": "text", "value": 'mapped:[{"type":"text","text":"note-5"}]'},
        {"type": "content", "value": [{"type": "text", "text": "note-5"}]},
    ),
    # three keys: the mapping gets the whole object, the prompt still sends its value
    (
        {"type": "json", "value": {"answer": "note-6"}, "extra": 1},
        {"type": "text", "value": 'mapped:{"type":"json","value":{"answer":"note-6"},"extra":1}'},
        {"answer": "note-6"},
    ),
    ({"type": "other", "value": None}, {"type": "text", "value": "mapped:null"}, None),
    # no value: no wrapper
    ({"type": "error-text"}, {"type": "text", "value": 'mapped:{"type":"error-text"}'}, {"type": "error-text"}),
]
