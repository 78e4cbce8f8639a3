"""An op sequence on the model (``run_ops_model``, reference/messagelist.py) and judged against
the Mastra adapter's ``ops`` reply (``judge_ops``): both sides in one comparable shape, with the
ids the list makes up renamed."""

from __future__ import annotations

import json
from typing import Any

from guardspec.conformance.cases import Verdict
from guardspec.conformance.compare import Difference, Rules, first_difference
from guardspec.conformance.impl import Answer
from guardspec.conformance.wire import Problem
from guardspec.model import codec
from guardspec.model.messages import SOURCE_ORDER, Message, Source, SystemMessage
from guardspec.reference import messagelist as ml
from guardspec.reference.messagelist import StepStartPart, without_steps

from . import normalise as norm
from .ops import NOW, OP_KINDS, RESOURCE, THREAD, message_to_db, wire_to_ops

_NO_RULES = Rules((), "raw")


def _part_state(p: dict) -> dict:
    """A part as the ops reply reports it: DB shape, ``createdAt`` replaced by ``stamped``."""
    q = dict(p)
    stamped = q.pop("createdAt", None) is not None
    if stamped:
        q["stamped"] = True
    return q


def run_ops_model(ops: list[dict]) -> dict:
    """The op sequence on reference/messagelist.py, reported like the adapter's ``ops`` reply."""
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
                value = (
                    list(lst.ids())
                    if op["name"] == "all"
                    else [
                        m.id
                        for m in lst.view({"remembered": Source.MEMORY, "input": Source.INPUT, "response": Source.RESPONSE}[op["name"]])
                    ]
                )
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
    ids = norm.IdMap(norm.input_ids(inputs))
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


def model_ops_observation(wire: list[dict]) -> dict:
    """The model's side, normalised, in the comparison shape; ``ValueError``/``KeyError`` when
    ``wire`` is not an op sequence (a shrinking candidate may not be one)."""
    if not isinstance(wire, list) or not all(isinstance(op, dict) and op.get("op") in OP_KINDS for op in wire):
        raise ValueError(f"an op sequence: ops among {sorted(OP_KINDS)}")
    return _normalise_ops(_model_ops_comparable(run_ops_model(wire_to_ops(wire))), wire)


def judge_ops(wire: list[dict], model: dict, answer: Answer) -> Verdict:
    """One op sequence judged like a conformance case (``cases.judge``): the first difference of
    ``results`` and of ``state``, signature ``ops:<field>``."""
    if answer.problem is not None:
        return Verdict("problem", f"ops:{answer.problem.kind}", problem=answer.problem)
    reply = answer.reply or {}
    if reply.get("status") != "ok":
        return Verdict("problem", "ops:errored", problem=Problem("errored", "$.status", json.dumps(reply, ensure_ascii=False)[:300]))
    try:
        impl = _normalise_ops(_mastra_ops_comparable(reply, wire), wire)
    except (KeyError, TypeError, ValueError) as e:
        return Verdict("problem", "ops:garbage", problem=Problem("garbage", "$.state", f"an ops reply ({type(e).__name__}: {e})"))
    diffs = []
    for f in ("results", "state"):
        d = first_difference(model[f], impl[f], f"$.{f}", _NO_RULES)
        if d:
            diffs.append(Difference(f, d[0], d[1], d[2], d[3]))
    if not diffs:
        return Verdict("agree", fields=("results", "state"))
    return Verdict("disagree", f"ops:{diffs[0].field}", differences=tuple(diffs), fields=("results", "state"))


__all__ = ["judge_ops", "model_ops_observation", "run_ops_model"]
