"""The report's Markdown twin: the same sections and figures as tables, the drawings as the SVG
files written beside it."""

from __future__ import annotations

from typing import Any

from .chain import STAGES, stages_for
from .html import SECTIONS


def _cell(xs: list[str], limit: int = 3) -> str:
    if not xs:
        return "—"
    return ", ".join(f"`{x}`" for x in xs[:limit]) + (f" (+{len(xs) - limit})" if len(xs) > limit else "")


def _pct(run: int, total: int) -> str:
    return "no code" if not total else f"{run}/{total} ({100 * run / total:.0f}%)"


def _esc(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(_esc(str(c)) for c in r) + " |" for r in rows] + [""]


def page(r: dict[str, Any]) -> str:
    m = r["meta"]
    out = [f"# guardspec review report", "",
           f"{m['commit']} · generated {m['when']} · profile {m['profile']} · measured in this run in {m['total']:.1f} s "
           f"({', '.join(f'{k} {v:.1f} s' for k, v in m['seconds'].items())}). The HTML page beside this file draws the same.", ""]
    if "verify" in m:
        out += ["Written by `guardspec verify --report`: " + ", ".join(f"{k} {v}" for k, v in m["verify"].items()) + ".", ""]
    title = dict(SECTIONS)
    cov = {c["clause"]: c for c in r["coverage"]}
    out += [f"## {title['chain']}", "", "![the guarded chain per loop](chain.svg)", ""]
    out += _table(["stage", "clauses", "gate", "lines of its clauses run"],
                  [[s.name + ("" if s.modelled else " (not modelled)"), " ".join(s.clauses) or s.note, "yes" if s.gate else "",
                    _pct(sum(cov[c]["linesRun"] for c in s.clauses if c in cov), sum(cov[c]["lines"] for c in s.clauses if c in cov))] for s in STAGES])
    out += [f"## {title['coverage']}", "", "Coverage of `reference/` per clause, measured with coverage.py in this run.", ""]
    rows = []
    for c in r["coverage"]:
        k, ln = c["clause"], r["links"][c["clause"]]
        where = _cell(c["functions"]) if c["functions"] else (f"invariant: code of {' '.join(c['via'])}" if c["via"] else "**no function names it**")
        if not c["linesRun"]:
            where += " — **no line exercised**"
        rows.append([f"{k} {c['title']}".strip(), ", ".join(s.name for s in stages_for(k)) or "—", where, _cell(ln["tests"], 2), _cell(ln["properties"], 2),
                     _cell(ln["proofs"]), len(ln["examples"]) or "—", len(ln["vectors"]) or "—", _cell(ln["mutants"], 2),
                     _pct(c["linesRun"], c["lines"]), _pct(c["branchesRun"], c["branches"])])
    out += _table(["clause", "stage", "implemented in", "tests", "properties", "proofs", "examples", "vectors", "mutants", "lines run", "branches run"], rows)
    ex = r["examples"]
    p = r["properties"]
    out += [f"## {title['checks']}", "", f"Examples: {sum(e['ok'] for e in ex)}/{len(ex)} agree.", ""]
    out += _table(["strategy", "call sequences", "calls", "violations"],
                  [[b["strategy"], b["sequences"], b["calls"], ", ".join(b["violations"]) or "none"] for b in p["battery"]])
    out += [f"I12 hunt over {p['hunt']} scenarios: raw I1 on durable {p['raw'].get('I1@durable', 0)}×, I2 on durable {p['raw'].get('I2@durable', 0)}×, "
            f"I4 on moved text {p['raw'].get('I4@moved', 0)}×; guarded {sum(p['guarded'].values())}.", ""]
    z = r["z3"]
    out += [f"## {title['proofs']}", "", f"Bound: `{z['scope']}`.", ""]
    out += _table(["claim", "mode", "z3 s", "result", "premise", "replayed", "clauses"],
                  [[f"{x['claim']} {x['title']}", x["mode"], f"{x['seconds']:.3f}", x["status"], x["premise"], "yes" if x["replayed"] else "—", " ".join(x["clauses"])] for x in z["proofs"]])
    out += [f"## {title['mutants']}", ""]
    chosen = r.get("mutantsChosen")
    if chosen and chosen["mutants"] != chosen["of"]:
        out += [f"{chosen['mutants']} of the {chosen['of']} mutants were run (chosen with `--mutants`); the others are not shown.", ""]
    out += _table(["mutant", "bends", "killed by", "after examples", "z3"],
                  [[m["mutant"], m["clause"], m["killedBy"] or "**SURVIVED**", m["examples"],
                    (lambda q: f"refuted by {q.get('claim')} ({q.get('seconds', 0):.2f} s)" if q.get("status") == "refuted" else f"{q.get('status', '')} {q.get('why', '')}".strip())(z["refuted"].get(m["mutant"], {}))]
                   for m in r["mutants"]])
    out += [f"## {title['differential']}", ""]
    for d in r["differential"]:
        out += [f"### {d['label']}", ""]
        if d["status"] != "run":
            out += [d["status"], ""]
            continue
        out += [f"`{d['command']}` — {d['implementation']}: {d['cases']} cases, {d['seconds']:.1f} s; " + ", ".join(f"{k} {v}" for k, v in sorted(d["counts"].items())), ""]
        out += _table(["mode/loop", "agree", "disagree", "problem", "skipped", "known"], [[k] + [v.get(s, 0) for s in ("agree", "disagree", "problem", "skipped", "known")] for k, v in d["cells"].items()])
        if d["found"]:
            out += _table(["signature", "cases", "first difference"], [[f["signature"], f["count"], f["first"][:200]] for f in d["found"]])
    out += [f"## {title['findings']}", ""]
    f = r["findings"]
    out += _table(["finding", "clauses", "vectors"], [[i["title"], " ".join(i["clauses"]), _cell(i["vectors"])] for i in f["items"]]) if f["present"] else ["not present: no `docs/breakwater-findings.md` in this checkout.", ""]
    out += [i["text"] for i in f["items"] if i.get("text")] if f["present"] else []
    out += [f"## {title['timelines']}", ""]
    for i, t in enumerate(r["timelines"]):
        out += [f"### {t['title']}", "", f"{t['origin']}" + (f": {t['error']}" if "error" in t else ""), ""]
        if "error" in t:
            continue
        if t["violation"]:
            out += [f"`{t['violation'][:300]}`", ""]
        out += [f"![timeline](timeline-{i + 1}.svg)", "", f"- outcome ({t['mode']}, {t['loop']}): {t['outcome']}",
                f"- reached memory: {', '.join(('**' + s['id'] + '**') if s['new'] and t['refused'] else s['id'] for s in t['stored']) or 'nothing'}",
                f"- title: {t['titleAfter']!r} (before {t['titleBefore']!r})",
                f"- sent to the model: {'; '.join(('**' + p['text'] + '** (unread)') if p['unread'] else p['text'] for p in t['prompts']) or 'no model call'}",
                f"- the same call under the guard: {t['guarded']}", ""]
    return "\n".join(out)
