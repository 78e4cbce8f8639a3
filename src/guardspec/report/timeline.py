"""A counterexample's story as data: the message list by source after each stage of the
reference's trace (``reference/trace.py``, as ``guardspec explain`` prints it), what was refused,
what still reached memory, the title, and what the model was sent with what was never read.

The same scenario is also run under the guard, so the timeline says what the guard changes.
"""

from __future__ import annotations

from typing import Any

from guardspec.examples import render_entry
from guardspec.explain import outcome_text
from guardspec.model.messages import SOURCE_ORDER
from guardspec.model.observation import Refused
from guardspec.model.scenario import Mode, Scenario
from guardspec.reference.raw_runner import raw_policy_text
from guardspec.reference.run import run_call
from guardspec.reference.trace import Trace

from .chain import stage_of_trace


def _short(s: str, n: int = 48) -> str:
    s = s.replace("\n", " ")
    return s if len(s) <= n else s[: n - 1] + "…"


def _columns(trace: Trace) -> tuple[list[dict], list[str]]:
    """One column per traced stage: row key → (sources, text). Rows: system entries, then ids."""
    cols, order = [], []
    for st in trace.stages:
        cells: dict[str, dict] = {}
        for i, s in enumerate(st.list.untagged):
            cells[f"system #{i + 1}"] = {"sources": "system", "text": _short(render_entry(s))}
        for tag, bucket in st.list.tagged:
            for i, s in enumerate(bucket):
                cells[f"system[{tag}] #{i + 1}"] = {"sources": "system", "text": _short(render_entry(s))}
        for slot in st.list.slots:
            srcs = "+".join(x.value for x in SOURCE_ORDER if x in slot.sources) or "none"
            cells[slot.message.id] = {"sources": srcs, "text": _short(render_entry(slot.message))}
        for k in cells:
            if k not in order:
                order.append(k)
        cols.append({"stage": st.name, "chain": stage_of_trace(st.name), "note": _short(st.note, 90), "cells": cells})
    order = [k for k in order if k.startswith("system")] + [k for k in order if not k.startswith("system")]
    return cols, order


def _bound_thread(scenario: Scenario) -> Any:
    b = scenario.call.memory
    if b is None:
        return None
    return next((t for t in scenario.threads.threads if t.id == b.thread), None)


def timeline(scenario: Scenario, mode: Mode, title: str, origin: str, violation: str = "") -> dict:
    """The story of one call in ``mode``, and the same call under the guard."""
    trace = Trace()
    r = run_call(scenario, mode, trace)
    o = r.observation
    cols, rows = _columns(trace)
    before = _bound_thread(scenario)
    before_lines = {f"{m.id} {render_entry(m)}" for m in (before.messages if before else ())}
    # new or changed: compared as values, so that a change the rendering does not show (a part
    # stamp a raw durable save adds, I1) is drawn too
    kept = before.messages if before else ()
    stored = [{"id": m.id, "text": _short(render_entry(m)), "new": m not in kept} for m in (o.stored or ())]
    if mode is Mode.GUARDED:
        read = o.read or ""
    else:
        raw = next((s for s in trace.stages if s.name == "application processors (raw)"), None)
        read = raw_policy_text(raw.list) if raw is not None and not raw.note and scenario.agent.policies else ""
    known = before_lines | {f"system: {scenario.agent.instructions}"}
    prompts = []
    for step in o.prompts:
        for e in step:
            line = render_entry(e)
            text = line.split(": ", 1)[-1]
            unread = line not in known and f"{getattr(e, 'id', '')} {line}" not in before_lines and (not text or text not in read)
            prompts.append({"text": _short(line, 60), "unread": unread})
    refused = isinstance(o.outcome, Refused)
    title_before = before.title if before else ""
    new_title = o.title is not None and o.title != title_before
    guarded = run_call(scenario, Mode.GUARDED, None).observation if mode is not Mode.GUARDED else o
    g_new = [m.id for m in (guarded.stored or ()) if f"{m.id} {render_entry(m)}" not in before_lines and isinstance(guarded.outcome, Refused)]
    highlight = [k for k, on in (("memory", refused and any(s["new"] for s in stored)), ("title", refused and new_title),
                                 ("model", any(p["unread"] for p in prompts))) if on]
    return {
        "title": title, "origin": origin, "violation": violation, "mode": mode.value, "loop": scenario.call.loop.value,
        "scenario": scenario.name or "", "columns": cols, "rows": rows, "outcome": outcome_text(o), "refused": refused,
        "storedBefore": [f"{m.id} {_short(render_entry(m))}" for m in (before.messages if before else ())],
        "stored": stored, "bound": before is not None or o.stored is not None,
        "titleBefore": title_before, "titleAfter": o.title or "", "newTitle": new_title,
        "read": _short(read, 200), "prompts": prompts, "highlight": highlight,
        "guarded": f"{outcome_text(guarded)}; stored {'unchanged' if not g_new else 'changed: ' + ', '.join(g_new)}; "
                   f"title {guarded.title!r}; model calls {len(guarded.prompts)}",
    }


def counterexamples(z3: dict, hunt: dict, found: dict, root: Any) -> list[dict]:
    """The raw counterexamples I12 predicts (z3's, and the I12 hunt's moved-text case), and
    each recorded finding that names a vector."""
    import json

    from guardspec.model import codec

    out = []
    for p in z3["proofs"]:
        if p["mode"] == "raw" and p["scenario"] is not None:
            sc = codec.scenario_from_json(p["scenario"])
            out.append(timeline(sc, Mode.RAW, f"{p['claim']} in raw mode ({sc.call.loop.value})", "z3 counterexample, replayed", (p["replay"] or [""])[0]))
    first = hunt.get("first", {})
    if "I4@moved" in first:
        sc = first["I4@moved"]
        out.append(timeline(sc, Mode.RAW, f"I4 in raw mode: a processor moves text out of the input ({sc.call.loop.value})",
                            "property hunt (I12), first case found", ""))
    for item in found.get("items", []):
        for v in item["vectors"]:
            try:
                data = json.loads((root / v).read_text())
                sj = data.get("scenario", data) if isinstance(data, dict) else data
                if isinstance(data, dict) and "scenarios" in data:
                    sj = data["scenarios"][-1]
                sc = codec.scenario_from_json(sj)
            except Exception as e:  # a finding's vector the model cannot load: say so, keep going
                out.append({"title": f"finding: {item['title']}", "origin": v, "error": f"{type(e).__name__}: {e}"[:200]})
                continue
            mode = Mode(data.get("mode", "guarded")) if isinstance(data.get("mode"), str) else Mode.GUARDED
            out.append(timeline(sc, mode, f"finding: {item['title']}", v, ""))
    return out
