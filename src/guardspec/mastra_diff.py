"""Differential testing of the model against real Mastra (issue "Real Mastra in the loop").

Two kinds of cases, generated with Hypothesis and run on both sides:

``ops``  MessageList operation sequences: the model side is reference/messagelist.py, the
         Mastra side the adapter's ``ops`` request (docs/protocol-mastra-ops.md) on a real
         ``MessageList``. Compared: each op's success/failure and value, and the final state
         (messages, parts, sources, detached set members, system buckets).
``raw``  raw-mode scenarios (SPEC §0) on the three loops: the model side is
         ``reference.run.run(scenario, "raw")``, the Mastra side the adapter's ``run`` request
         (docs/protocol.md) on a real ``Agent``. Compared: the observation fields the adapter
         reports, after src/guardspec/mastra_normalise.py.

Each disagreement is shrunk by Hypothesis (one search per distinct *signature*: kind, loop,
field) and saved as a JSON vector under ``vectors/mastra/`` with a one-line replay command
(``python -m guardspec.mastra_diff <vector>``).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

from attrs import define, evolve, field
from hypothesis import HealthCheck, Phase, given, seed as hseed, settings
from hypothesis import strategies as st

from guardspec.model import codec
from guardspec.model.agent import (
    Actor,
    Agent,
    ClientTool,
    DenyPatterns,
    Mapping,
    Memory,
    MemoryBinding,
    Thread,
    ThreadStore,
    ThrowingEvaluator,
)
from guardspec.model.messages import (
    SOURCE_ORDER,
    Message,
    Role,
    Source,
    SystemMessage,
    TextPart,
    ToolPart,
    ToolState,
)
from guardspec.model.processors import (
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    AddMessages,
    AddSystem,
    ArrayOf,
    ClearInput,
    EditMessage,
    EditSystem,
    EditText,
    ObjectOf,
    OtherList,
    Primitive,
    Processor,
    RemoveByIds,
    ReplaceAllSystem,
    Return,
    SameList,
    SetId,
    SetRole,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Call, Loop, Mode, Scenario
from guardspec.reference.run import run
from guardspec.model.values import UNDEFINED, obj

from . import mastra_normalise as norm
from .mastra_client import AdapterError, MastraClient, repo_root

VECTOR_DIR = Path("vectors") / "mastra"

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
            ops.append({"op": "addSystem", "message": content if shape == "string" else SystemMessage(content), "tag": draw(st.sampled_from([None, "tagA"]))})
        elif kind == "replaceAll":
            ops.append({"op": "replaceAllSystemMessages", "messages": [SystemMessage(draw(st.sampled_from(["r1", "r2"]))) for _ in range(draw(st.integers(0, 2)))]})
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


def _part_state(p: dict) -> dict:
    """A part as the ops reply reports it: DB shape, ``createdAt`` replaced by ``stamped``."""
    q = dict(p)
    stamped = q.pop("createdAt", None) is not None
    if stamped:
        q["stamped"] = True
    return q


def run_ops_model(ops: list[dict]) -> dict:
    """The op sequence on reference/messagelist.py, reported like the adapter's ``ops`` reply."""
    from guardspec.reference import messagelist as ml

    lst = ml.MessageList(thread_id=THREAD, resource_id=RESOURCE, clock=NOW)
    results: list[dict] = []
    snapshot: dict[str, Source] | None = None
    for op in ops:
        try:
            value: Any = None
            kind = op["op"]
            if kind == "add":
                msgs = op["messages"]
                entries = msgs if isinstance(msgs, str) else tuple(msgs)
                lst = ml.add(lst, entries, Source(op["source"]), op["merge"])
            elif kind == "addRef":
                slot = lst.slot_of(op["id"])
                if slot is None:
                    raise ml.MastraError("REF_NOT_FOUND")
                lst = ml.add(lst, (slot.message,), Source(op["source"]), None)
            elif kind == "removeByIds":
                present = set(lst.ids())
                value = [i for i in lst.ids() if i in set(op["ids"]) and i in present]
                lst = ml.remove_by_ids(lst, op["ids"])
            elif kind == "clearInput":
                # clear.input.db() returns every object in the input set, detached ones included
                value = sorted([m.id for m in lst.view(Source.INPUT)] + [i for i, x in lst.detached if x is Source.INPUT])
                lst = ml.clear_source(lst, Source.INPUT)
            elif kind == "addSystem":
                lst = ml.add_system(lst, op["message"], op["tag"])
            elif kind == "replaceAllSystemMessages":
                lst = ml.replace_all_system(lst, tuple(op["messages"]))
            elif kind == "checker":
                snapshot = ml.checker(lst)
                value = None
            elif kind == "getSource":
                if snapshot is None:
                    raise ml.MastraError("NO_CHECKER")
                src = snapshot.get(op["id"]) if lst.slot_of(op["id"]) else None
                value = src.value if src else None
            elif kind == "view":
                value = list(lst.ids()) if op["name"] == "all" else [m.id for m in lst.view({"remembered": Source.MEMORY, "input": Source.INPUT, "response": Source.RESPONSE}[op["name"]])]
            results.append({"ok": True, "value": value})
        except ml.MastraError as e:
            if e.partial is not None:  # add is not atomic: earlier elements stay added
                lst = e.partial
            results.append({"ok": False, "error": e.code})
    messages = []
    for s in lst.slots:
        d = _db_with_step_starts(s.message)
        messages.append(
            {
                "id": d["id"],
                "role": d["role"],
                "createdAt": d["createdAt"],
                "threadId": d.get("threadId"),
                "resourceId": d.get("resourceId"),
                "parts": [_part_state(p) for p in d.get("content", {}).get("parts", [])] if "content" in d else None,
            }
        )
    sources = {src.value: [s.message.id for s in lst.slots if src in s.sources] for src in SOURCE_ORDER}
    detached = {src.value: sorted(i for i, x in lst.detached if x is src) for src in SOURCE_ORDER}
    system = {
        "untagged": [_system_state(m) for m in lst.untagged],
        "tagged": [[t, [_system_state(m) for m in b]] for t, b in lst.tagged],
    }
    return {"results": results, "state": {"messages": messages, "sources": sources, "detached": detached, "system": system}}


def _db_with_step_starts(m: Message) -> dict:
    """``message_to_db`` that also reports the substrate's step-start parts as Mastra's
    ``{"type": "step-start"}`` (reference/messagelist.py ``StepStartPart``)."""
    from guardspec.reference.messagelist import StepStartPart, without_steps

    d = message_to_db(without_steps(m))
    if m.parts is None or len(m.parts) == len(without_steps(m).parts):
        return d
    visible = iter(d["content"]["parts"])
    parts = []
    for p in m.parts:
        if isinstance(p, StepStartPart):
            q: dict[str, Any] = {"type": "step-start"}
            if p.created_at is not None:
                q["createdAt"] = p.created_at
            parts.append(q)
        else:
            parts.append(next(visible))
    d["content"]["parts"] = parts
    return d


def _system_state(m: SystemMessage) -> dict:
    j = codec.system_to_json(m)
    return json.loads(json.dumps(j))


def _mastra_ops_comparable(reply: dict, wire_ops: list[dict]) -> dict:
    """The adapter's ops reply in the model's comparison shape."""
    st_ = reply["state"]
    results = []
    for op, r in zip(wire_ops, reply["results"]):
        if not r["ok"]:
            results.append({"ok": False})
            continue
        v = r["value"]
        if op["op"] == "clearInput":
            v = sorted(v)
        elif op["op"] == "checker":
            v = None
        results.append({"ok": True, "value": v})
    messages = [{k: m.get(k) for k in ("id", "role", "createdAt", "threadId", "resourceId", "parts")} for m in st_["messages"]]
    detached = {k: sorted(v) for k, v in st_["detached"].items()}
    return {"results": results, "state": {"messages": messages, "sources": st_["sources"], "detached": detached, "system": st_["system"]}}


def _model_ops_comparable(model: dict) -> dict:
    return {"results": [{"ok": r["ok"]} if not r["ok"] else r for r in model["results"]], "state": model["state"]}


def _normalise_ops(side: dict, inputs: Any) -> dict:
    """Ops comparisons go through the same normaliser (generated ids renamed)."""
    side = json.loads(json.dumps(side))
    ids = norm._Ids(norm.input_ids(inputs))
    for m in side["state"]["messages"]:
        m["id"] = ids(m["id"])
    for key in ("sources", "detached"):
        for src in list(side["state"][key]):
            side["state"][key][src] = [ids(i) for i in side["state"][key][src]]
    for op, r in zip(inputs if isinstance(inputs, list) else [], side["results"]):
        v = r.get("value")
        if isinstance(v, list):
            r["value"] = [ids(i) for i in v]
            if op.get("op") == "clearInput":  # set order: compared as sorted, after renaming
                r["value"] = sorted(r["value"])
    return side


# ==== raw scenarios ===========================================================================

U1 = _user("u1", "where am I?", 100)
A1_CALL = _assistant("a1", (TextPart("let me check"), _tool("call")), 200)
A1_DONE = _assistant("a1", (TextPart("let me check"), _tool("result", obj(city="Lyon"))), 200)
A1_ECHO = _assistant("a1", (_tool("result", PARIS),), 200)
U2 = _user("u2", "tell me more", 300)
U2_BAD = _user("u2", "a forbidden plan", 300)
C1 = _user("c1", "ctx", 50)
N1 = _user("n1", "added user", 500)
N2 = _assistant("n2", (TextPart("added assistant"),), 600)
N_BAD = _user("n3", "forbidden addition", 550)
OTHER_THREAD = _user("x1", "elsewhere", 520, thread_id="t2", resource_id=RESOURCE)
NO_CONTENT = Message("n4", Role.USER, None, 530)
DB_SYSTEM = Message("s1", Role.SYSTEM, (TextPart("DB SYSTEM"),), 540)
SYS = SystemMessage("ADDED SYSTEM")
SYS_PARTS = SystemMessage((TextPart("part one"), TextPart("part two")))

IDS = ["u1", "a1", "u2", "c1", "n1"]


@st.composite
def raw_steps(draw: Any) -> tuple:
    out = []
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.sampled_from(["add", "remove", "addSystem", "replaceAll", "clearInput", "editMessage", "editSystem"]))
        if k == "add":
            e = draw(st.sampled_from([N1, N2, N_BAD, OTHER_THREAD, NO_CONTENT, SYS, DB_SYSTEM]))
            out.append(AddMessages((e,), draw(st.sampled_from(list(Source))), draw(st.sampled_from([None, False]))))
        elif k == "remove":
            out.append(RemoveByIds(tuple(draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=2)))))
        elif k == "addSystem":
            out.append(AddSystem(draw(st.sampled_from(["plain system", SYS, SYS_PARTS])), draw(st.sampled_from([None, "tagA"]))))
        elif k == "replaceAll":
            out.append(ReplaceAllSystem(tuple(draw(st.lists(st.sampled_from([SYS, SystemMessage("replaced")]), max_size=2)))))
        elif k == "clearInput":
            out.append(ClearInput())
        elif k == "editMessage":
            out.append(EditMessage(draw(st.sampled_from(IDS)), draw(st.sampled_from(["edited", "forbidden edit"]))))
        else:
            out.append(EditSystem(0, "content", draw(st.sampled_from(["edited system", "forbidden system"]))))
    return tuple(out)


@st.composite
def raw_arrays(draw: Any) -> ArrayOf:
    edits = []
    if draw(st.booleans()):
        i = draw(st.sampled_from(IDS))
        edits.append(draw(st.sampled_from([EditText(i, "rewritten"), EditText(i, "forbidden rewrite"), SetRole(i, Role.SYSTEM), SetId(i, "renamed")])))
    return ArrayOf(
        base=draw(st.sampled_from(["received", "received", "list", "empty"])),
        copy=draw(st.sampled_from(["none", "shallow", "deep"])),
        drop=tuple(draw(st.lists(st.sampled_from(IDS), max_size=2))),
        edits=tuple(edits),
        append=tuple(draw(st.lists(st.sampled_from([N1, N2, N_BAD, SYS, DB_SYSTEM]), max_size=2))),
    )


@st.composite
def raw_endings(draw: Any) -> Any:
    k = draw(
        st.sampled_from(
            ["undefined", "null", "sameList", "array", "array", "array", "object", "otherList", "abort", "tripwire", "throw", "abortThenThrow", "abortFinallyThrow"]
        )
    )
    if k == "undefined":
        return Return(Primitive(UNDEFINED))
    if k == "null":
        return Return(Primitive(None))
    if k == "sameList":
        return Return(SameList())
    if k == "otherList":
        return Return(OtherList())
    if k == "array":
        return Return(draw(raw_arrays()))
    if k == "object":
        sysm = draw(st.sampled_from(["received", (SystemMessage("from object"),), ()]))
        return Return(ObjectOf(draw(raw_arrays()), sysm, draw(st.sampled_from([None, "Box"]))))
    if k == "abort":
        return Abort("stop here")
    if k == "tripwire":
        return ThrowTripWire("tripped")
    if k == "throw":
        return Throw("boom")
    if k == "abortThenThrow":
        return AbortThenThrow("stop", "after abort")
    return AbortFinallyThrow("stop", "in finally")


@st.composite
def raw_scenarios(draw: Any, loops: tuple[Loop, ...] = (Loop.GENERATE, Loop.STREAM, Loop.DURABLE)) -> Scenario:
    memory = draw(st.sampled_from([None, Memory(False), Memory(True)]))
    procs = tuple(
        Processor(f"p{i + 1}", draw(raw_steps()), draw(raw_endings())) for i in range(draw(st.integers(0, 2)))
    )
    policies = tuple(draw(st.lists(st.sampled_from([DenyPatterns("no-forbidden", ("forbidden",)), ThrowingEvaluator("broken")]), max_size=1)))
    tools = tuple(draw(st.lists(st.sampled_from([ClientTool("getLocation", Mapping("text")), ClientTool("getLocation", Mapping("null")), ClientTool("getLocation", Mapping("throws")), ClientTool("getLocation", None)]), max_size=1)))
    agent = Agent(
        instructions=draw(st.sampled_from(["You are a guarded agent.", "Be brief."])),
        processors=procs,
        policies=policies,
        client_tools=tools,
        memory=memory,
    )
    history = draw(st.sampled_from([(), (U1,), (U1, A1_CALL), (U1, A1_DONE)]))
    title = draw(st.sampled_from(["", "", "Old title"]))
    threads = ThreadStore((Thread(THREAD, RESOURCE, tuple(evolve(m, thread_id=THREAD, resource_id=RESOURCE) for m in history), title),)) if history or title else ThreadStore()
    caller = tuple(draw(st.lists(st.sampled_from(["hello there", U2, U2_BAD, A1_ECHO, U1]), min_size=1, max_size=2, unique_by=lambda x: x if isinstance(x, str) else x.id)))
    caller = tuple(sorted(caller, key=lambda x: 10**9 if isinstance(x, str) else x.created_at))
    bind = draw(st.booleans()) if memory is not None else draw(st.booleans()) and draw(st.booleans())
    call = Call(
        loop=draw(st.sampled_from(loops)),
        messages=caller,
        actor=draw(st.sampled_from([Actor("alice", "user"), Actor("alice", "user"), Actor("alice", "user"), None, Actor("bob", "admin")])),
        memory=MemoryBinding(THREAD, RESOURCE) if bind else None,
        reply="fine",
        context=draw(st.sampled_from([(), (C1,)])),
        now=NOW,
    )
    return Scenario(agent=agent, call=call, threads=threads)


def run_raw_model(scenario_json: dict) -> dict:
    sc = codec.scenario_from_json(scenario_json)
    return codec.observation_to_json(run(sc, "raw"))


# ==== comparing ===============================================================================


def first_difference(a: Any, b: Any, path: str = "$") -> tuple[str, Any, Any] | None:
    """The first path where two JSON values differ, with both values there."""
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool)):
        return path, a, b
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}", a.get(k, "<absent>"), b.get(k, "<absent>")
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path}.length", len(a), len(b)
        return None
    return None if a == b else (path, a, b)


def _coarse(path: str) -> str:
    """A path with indices removed: the signature of a disagreement."""
    import re

    return re.sub(r"\[\d+\]", "[]", path)


@define
class Disagreement:
    kind: str  # "ops" | "raw"
    signature: str
    input: Any
    model: Any
    mastra: Any
    differences: list[dict]
    path: str | None = None

    def to_json(self) -> dict:
        return {
            "guardspec": 1,
            "kind": self.kind,
            "signature": self.signature,
            "differences": self.differences,
            "input": self.input,
            "model": self.model,
            "mastra": self.mastra,
            "replay": f"python -m guardspec.mastra_diff {self.path}" if self.path else None,
        }


def compare_raw(scenario_json: dict, model_obs: dict, reply: dict) -> list[dict]:
    """Field-by-field differences of two raw observations (the fields the adapter reports)."""
    if reply.get("status") != "ok":
        return [{"field": "status", "path": "$", "model": "ok", "mastra": reply}]
    fields = reply.get("fields", [])
    a = norm.normalise_observation(model_obs, scenario_json)
    b = norm.normalise_observation(reply["observation"], scenario_json)
    out = []
    for f in fields:
        d = first_difference(a.get(f), b.get(f), f"$.{f}")
        if d:
            out.append({"field": f, "path": d[0], "model": d[1], "mastra": d[2]})
    return out


def compare_ops(wire: list[dict], model: dict, reply: dict) -> list[dict]:
    if reply.get("status") != "ok":
        return [{"field": "status", "path": "$", "model": "ok", "mastra": reply}]
    a = _normalise_ops(_model_ops_comparable(model), wire)
    b = _normalise_ops(_mastra_ops_comparable(reply, wire), wire)
    out = []
    for f in ("results", "state"):
        d = first_difference(a[f], b[f], f"$.{f}")
        if d:
            out.append({"field": f, "path": d[0], "model": d[1], "mastra": d[2]})
    return out


def _signature(kind: str, diffs: list[dict], loop: str | None = None) -> str:
    d = diffs[0]
    path = _coarse(d["path"])
    if kind == "ops" and path.startswith("$.results"):
        path = "$.results"
    return f"{kind}:{loop + ':' if loop else ''}{path}"


# ==== the search ===============================================================================


@define
class Report:
    ops_run: int = 0
    raw_run: int = 0
    raw_by_loop: dict = field(factory=dict)
    disagreements: list[Disagreement] = field(factory=list)
    errored: list[str] = field(factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.disagreements

    def summary(self) -> str:
        lines = [
            f"ops sequences: {self.ops_run}, raw scenarios: {self.raw_run} {self.raw_by_loop}, "
            f"disagreements: {len(self.disagreements)}, adapter errors: {len(self.errored)}, {self.seconds:.1f} s"
        ]
        for d in self.disagreements:
            first = d.differences[0]
            lines.append(f"  {d.signature}: model {json.dumps(first['model'])[:120]} vs mastra {json.dumps(first['mastra'])[:120]}")
            if d.path:
                lines.append(f"    replay: python -m guardspec.mastra_diff {d.path}")
        for e in self.errored[:10]:
            lines.append(f"  adapter: {e}")
        return "\n".join(lines)


class _Found(Exception):
    pass


def _search(
    strategy: st.SearchStrategy,
    check: Callable[[Any], tuple[str, Disagreement] | None],
    n: int,
    seed: int,
    known: set[str],
    found: list[Disagreement],
    max_rounds: int = 8,
) -> None:
    """Each new disagreement signature is shrunk by Hypothesis and kept, then the search starts
    again with that signature known (at most ``max_rounds`` shrinks); a last pass then runs all
    ``n`` examples without stopping, so at least ``n`` cases are always compared."""

    def probe_with(raise_new: bool) -> None:
        last: dict[str, Disagreement] = {}

        @hseed(seed)
        @settings(
            max_examples=n,
            database=None,
            deadline=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate, Phase.shrink] if raise_new else [Phase.generate],
            report_multiple_bugs=False,
            print_blob=False,
        )
        @given(strategy)
        def probe(x: Any) -> None:
            r = check(x)
            if r is None:
                return
            sig, dis = r
            if not raise_new:
                if sig not in known:  # found after the shrink budget: kept unshrunk
                    known.add(sig)
                    found.append(dis)
                return
            if sig in known:
                return
            last["d"] = dis
            raise _Found(sig)

        try:
            probe()
        except _Found:
            # Hypothesis replays the shrunk example last
            d = last["d"]
            known.add(d.signature)
            found.append(d)
            raise

    for _ in range(max_rounds):
        try:
            probe_with(True)
            return  # a full pass with nothing new
        except _Found:
            continue
    probe_with(False)


def save_vector(d: Disagreement, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    body = json.dumps(d.input, sort_keys=True)
    h = hashlib.sha1((d.signature + body).encode()).hexdigest()[:10]
    safe = "".join(c if c.isalnum() else "-" for c in d.signature).strip("-")[:60]
    path = out_dir / f"{d.kind}-{safe}-{h}.json"
    d.path = str(path)
    path.write_text(json.dumps(d.to_json(), indent=2, ensure_ascii=False) + "\n")
    return path


def run_diff(
    ops: int = 2000,
    scenarios: int = 200,
    seed: int = 0,
    client: MastraClient | None = None,
    out_dir: Path | None = VECTOR_DIR,
    loops: tuple[Loop, ...] = (Loop.GENERATE, Loop.STREAM, Loop.DURABLE),
) -> Report:
    """The differential run. ``out_dir`` None: do not save vectors."""
    own = client is None
    client = client or MastraClient()
    report = Report()
    t0 = time.perf_counter()
    try:
        def check_ops(seq: list[dict]) -> tuple[str, Disagreement] | None:
            report.ops_run += 1
            wire = ops_to_wire(seq)
            model = run_ops_model(seq)
            try:
                reply = client.ops(wire, {"threadId": THREAD, "resourceId": RESOURCE}, {"start": NOW, "step": 0})
            except AdapterError as e:
                report.errored.append(f"ops: {e}")
                return None
            diffs = compare_ops(wire, model, reply)
            if not diffs:
                return None
            sig = _signature("ops", diffs)
            return sig, Disagreement("ops", sig, {"ops": wire}, _normalise_ops(_model_ops_comparable(model), wire), _normalise_ops(_mastra_ops_comparable(reply, wire), wire) if reply.get("status") == "ok" else reply, diffs)

        def check_raw(sc: Scenario) -> tuple[str, Disagreement] | None:
            report.raw_run += 1
            loop = sc.call.loop.value
            report.raw_by_loop[loop] = report.raw_by_loop.get(loop, 0) + 1
            sj = codec.scenario_to_json(sc)
            model = run_raw_model(sj)
            try:
                reply = client.run(sj, "raw")
            except AdapterError as e:
                report.errored.append(f"run: {e}")
                return None
            if reply.get("status") == "skipped":
                return None
            diffs = compare_raw(sj, model, reply)
            if not diffs:
                return None
            sig = _signature("raw", diffs, loop)
            mastra = norm.normalise_observation(reply["observation"], sj) if reply.get("status") == "ok" else reply
            return sig, Disagreement("raw", sig, sj, norm.normalise_observation(model, sj), mastra, diffs)

        known: set[str] = set()
        if ops > 0:
            _search(op_sequences(), check_ops, ops, seed, known, report.disagreements)
        if scenarios > 0:
            _search(raw_scenarios(loops), check_raw, scenarios, seed, known, report.disagreements)
    finally:
        if own:
            client.close()
    report.seconds = time.perf_counter() - t0
    if out_dir is not None:
        for d in report.disagreements:
            save_vector(d, Path(out_dir))
    return report


# ==== replay ===================================================================================


def replay(path: Path, client: MastraClient | None = None) -> list[dict]:
    """Re-run a saved vector on both sides; returns the differences now (empty: they agree)."""
    data = json.loads(Path(path).read_text())
    own = client is None
    client = client or MastraClient()
    try:
        if data["kind"] == "ops":
            wire = data["input"]["ops"]
            seq = wire_to_ops(wire)
            reply = client.ops(wire, {"threadId": THREAD, "resourceId": RESOURCE}, {"start": NOW, "step": 0})
            return compare_ops(wire, run_ops_model(seq), reply)
        sj = data["input"]
        return compare_raw(sj, run_raw_model(sj), client.run(sj, "raw"))
    finally:
        if own:
            client.close()


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
                out.append({"op": "add", "messages": m if isinstance(m, str) else [_db_to_message(x) for x in m], "source": op["source"], "merge": op.get("merge")})
        elif op["op"] == "addSystem":
            m = op["message"]
            out.append({"op": "addSystem", "message": m if isinstance(m, str) else codec.system_from_json(m), "tag": op.get("tag")})
        elif op["op"] == "replaceAllSystemMessages":
            out.append({"op": "replaceAllSystemMessages", "messages": [s if isinstance(s, str) else codec.system_from_json(s) for s in op["messages"]]})
        else:
            out.append(dict(op))
    return out


# ==== speed ====================================================================================


def bench_mastra(ops: int = 500, scenarios: int = 60, seed: int = 0, client: MastraClient | None = None) -> dict:
    """Figures on the same inputs in the same run: op sequences/s on the Python substrate vs
    the real MessageList in Node (in-process ``bench-ops``, and round trips over the pipe),
    and raw scenarios/s for the interpreter vs the real Agent (generate loop)."""
    own = client is None
    client = client or MastraClient()
    try:
        seqs = _examples(op_sequences(), ops, seed)
        scs = [evolve(s, call=evolve(s.call, loop=Loop.GENERATE)) for s in _examples(raw_scenarios((Loop.GENERATE,)), scenarios, seed)]
        wires = [ops_to_wire(s) for s in seqs]
        t = time.perf_counter()
        for s in seqs:
            run_ops_model(s)
        py_ops = len(seqs) / (time.perf_counter() - t)
        t = time.perf_counter()
        for w in wires:
            client.ops(w, {"threadId": THREAD, "resourceId": RESOURCE}, {"start": NOW, "step": 0})
        pipe_ops = len(wires) / (time.perf_counter() - t)
        node_total = 0.0
        for w in wires:
            r = client.request({"kind": "bench-ops", "count": 20, "ops": w, "thread": {"threadId": THREAD, "resourceId": RESOURCE}, "clock": {"start": NOW, "step": 0}})
            node_total += r["seconds"] / 20
        node_ops = len(wires) / node_total
        # the interpreter itself on the decoded scenarios, and with the JSON round trip the
        # differential run adds (schema validation, decoding, normalisation, encoding)
        t = time.perf_counter()
        for sc in scs:
            run(sc, Mode.RAW)
        py_interp = len(scs) / (time.perf_counter() - t)
        sjs = [codec.scenario_to_json(s) for s in scs]
        t = time.perf_counter()
        for sj in sjs:
            run_raw_model(sj)
        py_raw = len(sjs) / (time.perf_counter() - t)
        t = time.perf_counter()
        for sj in sjs:
            client.run(sj, "raw")
        node_raw = len(sjs) / (time.perf_counter() - t)
        return {
            "op_sequences": len(seqs),
            "ops_per_s_python": round(py_ops, 1),
            "ops_per_s_node_in_process": round(node_ops, 1),
            "ops_per_s_node_over_pipe": round(pipe_ops, 1),
            "raw_scenarios": len(sjs),
            "raw_per_s_interpreter": round(py_interp, 1),
            "raw_per_s_python": round(py_raw, 1),
            "raw_per_s_mastra_generate": round(node_raw, 1),
        }
    finally:
        if own:
            client.close()


def _examples(strategy: st.SearchStrategy, n: int, seed: int) -> list:
    out: list = []

    @hseed(seed)
    @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(strategy)
    def collect(x: Any) -> None:
        out.append(x)

    collect()
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m guardspec.mastra_diff VECTOR.json``: replay one saved vector."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m guardspec.mastra_diff VECTOR.json", file=sys.stderr)
        return 2
    try:
        diffs = replay(Path(argv[0]))
    except (OSError, KeyError, ValueError) as e:
        print(f"cannot replay {argv[0]}: {e}", file=sys.stderr)
        return 2
    if not diffs:
        print("agree")
        return 0
    for d in diffs:
        print(f"{d['path']}: model {json.dumps(d['model'])} | mastra {json.dumps(d['mastra'])}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
