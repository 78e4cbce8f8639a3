"""MessageList operation sequences (docs/protocol-mastra-ops.md): the one kind of case only the
Mastra adapter understands, so ``guardspec mastra-diff`` runs them itself (raw scenarios go
through the conformance harness, src/guardspec/conformance/).

An op sequence is generated with Hypothesis (``op_sequences``), sent as wire JSON
(``ops_to_wire``; ``wire_to_ops`` is its inverse, for shrinking and replaying), run on the model
(``ops_judge.run_ops_model``, reference/messagelist.py) and on a real ``MessageList`` (the
adapter's ``ops`` request), and compared (``ops_judge.judge_ops``): each op's success/failure and
value, and the final state (messages, parts, sources, detached set members, system buckets),
with the ids the list makes up renamed on both sides.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from guardspec.model import codec
from guardspec.model.messages import SOURCE_ORDER, Message, Role, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, obj

# ==== values shared by both generators ===========================================================

THREAD, RESOURCE = "t1", "r1"
NOW = 1000


def _user(id: str, text: str, at: int, **kw: Any) -> Message:
    return Message(id, Role.USER, (TextPart(text),), at, **kw)


def _assistant(id: str, parts: tuple, at: int, **kw: Any) -> Message:
    return Message(id, Role.ASSISTANT, parts, at, **kw)


def _tool(state: str, result: Any = UNDEFINED, call_id: str = "tc1", name: str = "getLocation") -> ToolPart:
    return ToolPart(call_id, name, ToolState(state), args=obj(q=1), result=result)


PARIS = obj(city="Paris")

# ==== ops sequences ===========================================================================


def _op_messages() -> st.SearchStrategy[Message]:
    ids = st.sampled_from(["m1", "m2", "m3", "a1"])
    texts = st.sampled_from(["one", "two", "hello"])
    at = st.sampled_from([1000, 2000, 3000])
    user = st.builds(lambda i, t, a: _user(i, t, a), ids, texts, at)
    asst_text = st.builds(lambda i, t, a: _assistant(i, (TextPart(t),), a), ids, texts, at)
    asst_tool = st.builds(
        lambda i, a, s: _assistant(i, (TextPart("let me check"), _tool(s, PARIS if s == "result" else UNDEFINED)), a),
        ids,
        at,
        st.sampled_from(["call", "result"]),
    )
    other_thread = st.builds(lambda i, a: _user(i, "elsewhere", a, thread_id="t2", resource_id=RESOURCE), ids, at)
    return st.one_of(user, asst_text, asst_tool, other_thread)


@st.composite
def op_sequences(draw: Any) -> list[dict]:
    """A list of ops in an internal form: ``{"op": ..., ...}`` with model Messages inside."""
    n = draw(st.integers(1, 7))
    ops: list[dict] = []
    sources = st.sampled_from(["memory", "input", "response", "context"])
    for _ in range(n):
        kind = draw(
            st.sampled_from(
                ["add", "add", "add", "addString", "addRef", "removeByIds", "clearInput", "addSystem", "replaceAll", "checker", "view"]
            )
        )
        if kind == "add":
            msgs = draw(st.lists(_op_messages(), min_size=1, max_size=2))
            ops.append({"op": "add", "messages": msgs, "source": draw(sources), "merge": draw(st.sampled_from([None, False]))})
        elif kind == "addString":
            ops.append({"op": "add", "messages": "a string", "source": draw(sources), "merge": None})
        elif kind == "addRef":
            ops.append({"op": "addRef", "id": draw(st.sampled_from(["m1", "m2", "a1"])), "source": draw(sources)})
        elif kind == "removeByIds":
            ops.append({"op": "removeByIds", "ids": draw(st.lists(st.sampled_from(["m1", "m2", "m3", "a1", "x"]), max_size=2))})
        elif kind == "clearInput":
            ops.append({"op": "clearInput"})
        elif kind == "addSystem":
            content = draw(st.sampled_from(["sys A", "sys B"]))
            shape = draw(st.sampled_from(["string", "object"]))
            ops.append(
                {
                    "op": "addSystem",
                    "message": content if shape == "string" else SystemMessage(content),
                    "tag": draw(st.sampled_from([None, "tagA"])),
                }
            )
        elif kind == "replaceAll":
            ops.append(
                {
                    "op": "replaceAllSystemMessages",
                    "messages": [SystemMessage(draw(st.sampled_from(["r1", "r2"]))) for _ in range(draw(st.integers(0, 2)))],
                }
            )
        elif kind == "checker":
            ops.append({"op": "checker"})
            ops.append({"op": "getSource", "id": draw(st.sampled_from(["m1", "m2", "a1"]))})
        else:
            ops.append({"op": "view", "name": draw(st.sampled_from(["all", "remembered", "input", "response"]))})
    return ops


def message_to_db(m: Message) -> dict:
    """A model message as Mastra's DB message JSON (the ops protocol's message value)."""
    j = codec.message_to_json(m)
    out: dict[str, Any] = {"id": j["id"], "role": j["role"], "createdAt": j["createdAt"]}
    for k in ("threadId", "resourceId"):
        if k in j:
            out[k] = j[k]
    if j["parts"] is not None:
        parts = []
        for p in j["parts"]:
            if p["type"] == "tool-invocation":
                ti = {k: p[k] for k in ("state", "toolCallId", "toolName", "args", "result", "errorText", "approval") if k in p}
                q: dict[str, Any] = {"type": "tool-invocation", "toolInvocation": ti}
                if "providerMetadata" in p:
                    q["providerMetadata"] = p["providerMetadata"]
                if "createdAt" in p:
                    q["createdAt"] = p["createdAt"]
            else:
                q = dict(p)
            parts.append(q)
        out["content"] = {"format": 2, "parts": parts}
    return out


def system_to_wire(s: Any) -> Any:
    return s if isinstance(s, str) else codec.system_to_json(s)


def ops_to_wire(ops: list[dict]) -> list[dict]:
    out = []
    for op in ops:
        if op["op"] == "add":
            msgs = op["messages"]
            wire = msgs if isinstance(msgs, str) else [message_to_db(m) for m in msgs]
            d = {"op": "add", "messages": wire, "source": op["source"]}
            if op["merge"] is not None:
                d["merge"] = op["merge"]
            out.append(d)
        elif op["op"] == "addRef":
            out.append({"op": "add", "messages": {"$ref": op["id"]}, "source": op["source"]})
        elif op["op"] == "addSystem":
            out.append({"op": "addSystem", "message": system_to_wire(op["message"]), "tag": op["tag"]})
        elif op["op"] == "replaceAllSystemMessages":
            out.append({"op": "replaceAllSystemMessages", "messages": [system_to_wire(s) for s in op["messages"]]})
        else:
            out.append(dict(op))
    return out


def _db_to_message(d: dict) -> Message:
    parts = None
    if "content" in d:
        parts = []
        for p in d["content"]["parts"]:
            if p["type"] == "tool-invocation":
                q = dict(p["toolInvocation"])
                q["type"] = "tool-invocation"
                for k in ("providerMetadata", "createdAt"):
                    if k in p:
                        q[k] = p[k]
                parts.append(q)
            else:
                parts.append(p)
    j = {k: v for k, v in d.items() if k != "content"}
    j["parts"] = parts
    return codec.message_from_json(j)


def wire_to_ops(wire: list[dict]) -> list[dict]:
    """The inverse of ``ops_to_wire`` (for replaying a saved vector)."""
    out = []
    for op in wire:
        if op["op"] == "add":
            m = op["messages"]
            if isinstance(m, dict) and "$ref" in m:
                out.append({"op": "addRef", "id": m["$ref"], "source": op["source"]})
            else:
                out.append(
                    {
                        "op": "add",
                        "messages": m if isinstance(m, str) else [_db_to_message(x) for x in m],
                        "source": op["source"],
                        "merge": op.get("merge"),
                    }
                )
        elif op["op"] == "addSystem":
            m = op["message"]
            out.append({"op": "addSystem", "message": m if isinstance(m, str) else codec.system_from_json(m), "tag": op.get("tag")})
        elif op["op"] == "replaceAllSystemMessages":
            out.append(
                {
                    "op": "replaceAllSystemMessages",
                    "messages": [s if isinstance(s, str) else codec.system_from_json(s) for s in op["messages"]],
                }
            )
        else:
            out.append(dict(op))
    return out


OP_KINDS = frozenset({"add", "removeByIds", "clearInput", "addSystem", "replaceAllSystemMessages", "checker", "getSource", "view"})


def ops_request(wire: list[dict]) -> dict:
    """The adapter's ``ops`` request for a wire op sequence."""
    return {"kind": "ops", "ops": wire, "thread": {"threadId": THREAD, "resourceId": RESOURCE}, "clock": {"start": NOW, "step": 0}}


# ==== census ====================================================================================

OPS_SHAPES = {
    "op": tuple(sorted(OP_KINDS)),
    "source": tuple(s.value for s in SOURCE_ORDER),
    "added message": ("user", "assistant", "tool call", "tool result", "another thread", "a string", "a reference"),
    "system message": ("string", "object"),
}
"""The shapes of op sequences, for the census: the ops protocol's op kinds and sources."""


def ops_shapes(wire: list[dict]) -> set[tuple[str, str]]:
    """The (category, shape) pairs one op sequence (wire JSON) has."""
    out: set[tuple[str, str]] = set()
    for op in wire:
        out.add(("op", op.get("op", "?")))
        if "source" in op:
            out.add(("source", op["source"]))
        msgs = op.get("messages")
        if op.get("op") == "add":
            if isinstance(msgs, str):
                out.add(("added message", "a string"))
            elif isinstance(msgs, dict):
                out.add(("added message", "a reference"))
            for m in msgs if isinstance(msgs, list) else ():
                parts = (m.get("content") or {}).get("parts") or []
                tools = [p["toolInvocation"].get("state") for p in parts if p.get("type") == "tool-invocation"]
                out.add(
                    (
                        "added message",
                        "another thread"
                        if m.get("threadId") not in (None, THREAD)
                        else "tool result"
                        if "result" in tools
                        else "tool call"
                        if tools
                        else m.get("role", "?"),
                    )
                )
        if op.get("op") == "addSystem":
            out.add(("system message", "string" if isinstance(op.get("message"), str) else "object"))
        if op.get("op") == "replaceAllSystemMessages":
            for m in msgs or ():
                out.add(("system message", "string" if isinstance(m, str) else "object"))
    return out
