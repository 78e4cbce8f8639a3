"""Writing a shrunk disagreement as a conformance vector (``vectors.py`` format), with the
model's ``explain`` trace of it beside, so that it is replayed with one command."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from guardspec.explain import explain
from guardspec.model import codec
from guardspec.model.scenario import Mode

from .cases import Verdict, scenario_hash
from .impl import Answer
from .settings import Config
from .vectors import infer_clauses


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in s).strip("-")[:60]


def explain_text(sj: dict, mode: str, header: list[str]) -> str:
    """``header``'s lines, then the model's trace of the scenario as ``guardspec explain``
    renders it, as plain text."""
    con = Console(record=True, width=120, file=io.StringIO(), color_system=None)
    for h in header:
        con.print(h, markup=False, highlight=False)
    try:
        con.print(explain(codec.scenario_from_json(sj), Mode(mode)))
    except Exception as e:  # the campaign keeps its vector even when explain cannot render it
        con.print(f"(explain failed on this scenario: {type(e).__name__}: {e})", markup=False, highlight=False)
    return con.export_text()


def write_vector(
    out: Path, sj: dict, mode: str, sig: str, model_obs: dict, ans: Answer, v: Verdict, cfg: Config, rec: dict
) -> tuple[str, str]:
    """The shrunk case as a conformance vector (vectors.py format) plus its explain text."""
    out.mkdir(parents=True, exist_ok=True)
    h = scenario_hash(sj)
    stem = f"{_safe(sig)}-{h}"
    name = f"diff-{stem}"
    vec = {
        "guardspec": 1,
        "kind": "conformance-vector",
        "name": name,
        "clauses": infer_clauses(sj, model_obs),
        "note": f"Found by `guardspec diff --seed {cfg.seed}` (case {rec['case']}), shrunk: {v.line()}",
        "scenario": {k: x for k, x in sj.items() if k not in ("name", "note", "clauses")},
        "expect": {mode: model_obs},
        "found": {
            "impl": cfg.impl,
            "signature": sig,
            "case": rec["case"],
            "seed": cfg.seed,
            "verdict": v.to_json(),
            "implReply": ans.reply,
        },
    }
    vpath = out / f"{stem}.json"
    vpath.write_text(json.dumps(vec, indent=2, ensure_ascii=False) + "\n")
    opts = f" --mode {mode}" + (f" --normalise {cfg.comparison.normalise}" if cfg.comparison.normalise != "ids" else "")
    header = [f"disagreement {sig} — {cfg.impl}", f"replay: guardspec vectors check --impl {json.dumps(cfg.impl)}{opts} {vpath}"]
    header += ["  " + d.line() for d in v.differences] or ["  " + v.line()]
    header.append("")
    header.append("model's trace:")
    tpath = out / f"{stem}.txt"
    tpath.write_text(explain_text(sj, mode, header))
    return str(vpath), str(tpath)


__all__ = ["explain_text", "write_vector"]
