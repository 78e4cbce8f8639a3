"""The report as one static HTML page: inline CSS and SVG, no script, no network.

Sections (each an ``<section id=...>``): chain, coverage, checks (examples and properties),
proofs, mutants, differential, findings, timelines. Every clause has a row ``#clause-<id>``
and every stage ``#stage-<key>``; the drawings and tables link to them.
"""

from __future__ import annotations

from html import escape
from typing import Any

from . import svg
from .chain import EXTRA, STAGES, stages_for

SECTIONS = (
    ("chain", "1. The contract drawn"),
    ("coverage", "2. Clause coverage"),
    ("checks", "3. Examples and properties"),
    ("proofs", "4. Proofs"),
    ("mutants", "5. Mutants"),
    ("differential", "6. Differential results"),
    ("findings", "7. Findings"),
    ("timelines", "8. Counterexample timelines"),
)

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1d;background:#fafafa}
header{background:#1f2a44;color:#fff;padding:18px 28px}header h1{margin:0 0 4px;font-size:22px}
header p{margin:2px 0;color:#d6dcef}nav{padding:8px 28px;background:#e8ecf5;position:sticky;top:0;z-index:2}
nav a{margin-right:14px;color:#1a4fa0;text-decoration:none;font-weight:600}
main{padding:4px 28px 40px}section{margin:26px 0}h2{border-bottom:2px solid #1f2a44;padding-bottom:4px}
table{border-collapse:collapse;background:#fff;font-size:12.5px;margin:8px 0}
th,td{border:1px solid #d8d8d8;padding:3px 7px;text-align:left;vertical-align:top}th{background:#eef0f4}
td.num{text-align:right;font-variant-numeric:tabular-nums}code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.ok{color:#2e7d32;font-weight:600}.bad{color:#c62828;font-weight:600}.warn{color:#a15c00;font-weight:600}.dim{color:#777}
tr.unexercised td{background:#fdecea}.bar{display:inline-block;height:9px;background:#2e7d32;vertical-align:middle}
#coverage td:nth-child(2),#coverage td:nth-child(3){white-space:nowrap}.barbox{display:inline-block;width:80px;height:9px;background:#e3e3e3;margin-right:6px;vertical-align:middle}
.scroll{overflow-x:auto;background:#fff;border:1px solid #ddd;padding:8px}figure{margin:18px 0}figcaption{font-weight:600;margin-bottom:6px}
:target{outline:3px solid #f9a825}
"""


def _list(xs: list[str], limit: int = 4, code: bool = True) -> str:
    if not xs:
        return '<span class="dim">—</span>'
    shown = ", ".join(f"<code>{escape(x)}</code>" if code else escape(x) for x in xs[:limit])
    return shown + (f' <span class="dim">(+{len(xs) - limit})</span>' if len(xs) > limit else "")


def _clause(c: str) -> str:
    # a sub-clause counts for its clause (the coverage table has one row per clause)
    return f'<a href="#clause-{c.split(".")[0]}"><code>{c}</code></a>'


def _pct(run: int, total: int) -> str:
    if not total:
        return '<span class="dim">no code</span>'
    p = 100 * run / total
    return f'<span class="barbox"><span class="bar" style="width:{p * 0.8:.0f}px"></span></span>{run}/{total} ({p:.0f}%)'


def _table(head: list[str], rows: list[str]) -> str:
    return "<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"


def per_loop(r: dict) -> dict[str, list[str]]:
    """What this run measured per loop: examples agreeing, differential cases agreeing."""
    out: dict[str, list[str]] = {}
    for loop in ("generate", "stream", "durable"):
        ex = [e for e in r["examples"] if e["loop"] == loop]
        lines = [f"examples {sum(e['ok'] for e in ex)}/{len(ex)}"]
        for d in r["differential"]:
            for key, cell in d.get("cells", {}).items():
                if key.endswith("/" + loop):
                    lines.append(f"{d['short']} {key.split('/')[0]} {cell.get('agree', 0)}/{sum(cell.values())}")
        out[loop] = lines
    return out


def chain_section(r: dict) -> str:
    cov = {c["clause"]: c for c in r["coverage"]}
    rows = []
    for st in STAGES + EXTRA:
        run = sum(cov[c]["linesRun"] for c in st.clauses if c in cov)
        total = sum(cov[c]["lines"] for c in st.clauses if c in cov)
        rows.append(f'<tr id="stage-{st.key}"><td><b>{escape(st.name)}</b>{"" if st.modelled else " <span class=warn>(not modelled)</span>"}</td>'
                    f'<td>{" ".join(_clause(c) for c in st.clauses) or escape(st.note)}</td><td>{"gate" if st.gate else ""}</td><td>{_pct(run, total)}</td></tr>')
    diagram = svg.chain_diagram({c: (100 * x["linesRun"] / x["lines"] if x["lines"] else None) for c, x in cov.items()}, per_loop(r))
    return (f'<div class="scroll">{diagram}</div>'
            + _table(["stage", "clauses", "", "lines of its clauses run in this run"], rows))


def coverage_section(r: dict) -> str:
    rows, unrun = [], 0
    for c in r["coverage"]:
        k = c["clause"]
        ln = r["links"][k]
        exercised = c["linesRun"] > 0
        unrun += not exercised
        where = _list(c["functions"], 3) if c["functions"] else (f'<span class="dim">invariant: code of</span> {" ".join(_clause(x) for x in c["via"])}' if c["via"] else '<span class="bad">no function names it</span>')
        if not exercised:
            where += ' <span class="bad">no line exercised</span>'
        elif c["unrun"]:
            where += f' <span class="warn">not run: {", ".join(escape(x) for x in c["unrun"][:3])}</span>'
        stages = " ".join(f'<a href="#stage-{s.key}">{escape(s.name)}</a>' for s in stages_for(k)) or '<span class="dim">—</span>'
        rows.append(f'<tr id="clause-{k}"{"" if exercised else " class=unexercised"}><td><b><code>{k}</code></b><br><span class="dim">{escape(c["title"])}</span></td>'
                    f"<td>{_pct(c['linesRun'], c['lines'])}</td><td>{_pct(c['branchesRun'], c['branches'])}</td>"
                    f"<td>{stages}</td><td>{where}</td><td>{_list(ln['tests'], 2)}</td><td>{_list(ln['properties'], 2)}</td>"
                    f"<td>{_list(ln['proofs'], 3)}</td><td class=num>{len(ln['examples']) or '—'}</td><td class=num>{len(ln['vectors']) or '—'}</td>"
                    f"<td>{_list(ln['mutants'], 2)}</td></tr>")
    head = ["clause", "lines run", "branches run", "stage", "implemented in", "tests", "properties", "proofs", "examples", "vectors", "mutants that bend it"]
    note = (f"<p>Line and branch coverage of <code>reference/</code> measured with coverage.py during this run (the examples, the "
            f"properties and the I12 hunt, the model's side of the differential cases, the timelines; not the runs under a mutant, not z3's). A line counts for the clauses of the innermost function "
            f"whose docstring names them. {unrun} clause(s) with no exercised line.</p>")
    return note + f'<div class="scroll">{_table(head, rows)}</div>'


def checks_section(r: dict) -> str:
    ex = r["examples"]
    bad = [e for e in ex if not e["ok"]]
    out = [f"<p>Examples: <b>{len(ex) - len(bad)}/{len(ex)}</b> expected observations agree with the reference"
           + (f' <span class="bad">disagree: {", ".join(escape(e["name"]) for e in bad[:10])}</span>' if bad else "") + ".</p>"]
    p = r["properties"]
    rows = [f"<tr><td>{escape(b['strategy'])}</td><td class=num>{b['sequences']}</td><td class=num>{b['calls']}</td>"
            f"<td>{'<span class=ok>none</span>' if not b['violations'] else '<span class=bad>' + escape(', '.join(b['violations'])) + '</span>'}</td></tr>" for b in p["battery"]]
    out.append("<h3>Properties, guarded mode, every loop</h3>" + _table(["strategy", "call sequences", "calls", "violations"], rows))
    raw, g = p["raw"], p["guarded"]
    out.append(f"<p>I12 hunt over {p['hunt']} scenarios: raw mode shows I1 on durable <b>{raw.get('I1@durable', 0)}</b>×, "
               f"I2 on durable <b>{raw.get('I2@durable', 0)}</b>×, I4 on moved text <b>{raw.get('I4@moved', 0)}</b>×; "
               f"the same scenarios guarded: <b>{sum(g.values())}</b>.</p>")
    return "".join(out)


def proofs_section(r: dict) -> str:
    z = r["z3"]
    rows = []
    for p in z["proofs"]:
        cls = {"proven": "ok", "counterexample": "bad" if p["mode"] == "guarded" else "warn"}.get(p["status"], "warn")
        rows.append(f"<tr><td><b>{p['claim']}</b> {escape(p['title'])}</td><td>{p['mode']}</td><td><code>{escape(z['scope'])}</code></td>"
                    f"<td class=num>{p['seconds']:.3f}</td><td class={cls}>{p['status']}</td><td>{escape(p['premise'])}</td>"
                    f"<td>{'yes' if p['replayed'] else ('—' if p['status'] != 'counterexample' else '<span class=bad>NO</span>')}</td>"
                    f"<td>{' '.join(_clause(c) if c[0] in 'MGI' else c for c in p['clauses'])}</td></tr>")
    return ("<p>z3 on a bounded scope; a counterexample is decoded into a scenario and replayed through the interpreter. "
            "In raw mode the counterexamples are the ones I12 predicts.</p>"
            + _table(["claim", "mode", "bound", "z3 s", "result", "premise", "replayed", "clauses"], rows))


def mutants_section(r: dict) -> str:
    rows = []
    for m in r["mutants"]:
        z = r["z3"]["refuted"].get(m["mutant"], {})
        killed = f"<span class=ok>{escape(m['killedBy'])}</span>" if m["killedBy"] else "<span class=bad>SURVIVED</span>"
        zs = z.get("status", "")
        zc = f"<span class=ok>{escape(z.get('claim', ''))}</span> ({z.get('seconds', 0):.2f} s)" if zs == "refuted" else f"<span class=warn>{escape(zs)}</span> {escape(z.get('why', ''))[:120]}"
        rows.append(f"<tr><td><code>{escape(m['mutant'])}</code><br><span class=dim>{escape(m['description'])}</span></td>"
                    f"<td>{' '.join(_clause(c) for c in _ids(m['clause'])) or escape(m['clause'])}</td><td>{killed}</td><td class=num>{m['examples']}</td><td>{zc}</td></tr>")
    return _chosen(r) + _table(["mutant", "bends", "killed by (property)", "after examples", "refuted by z3 (claim, time)"], rows)


def _chosen(r: dict) -> str:
    c = r.get("mutantsChosen")
    if not c or c["mutants"] == c["of"]:
        return ""
    return f"<p class=warn>{c['mutants']} of the {c['of']} mutants were run (chosen with <code>--mutants</code>); the others are not shown.</p>"


def _ids(text: str) -> list[str]:
    from guardspec import traceability as tr

    return list(dict.fromkeys(tr._ids(text)))


def differential_section(r: dict) -> str:
    out = []
    for d in r["differential"]:
        out.append(f"<h3>{escape(d['label'])}</h3>")
        if d["status"] != "run":
            out.append(f"<p class=warn>{escape(d['status'])}</p>")
            continue
        out.append(f"<p><code>{escape(d['command'])}</code> — {escape(d['implementation'])}: {d['cases']} cases from {d['examples']} generated scenarios "
                   f"(seed {d['seed']}) in {d['seconds']:.1f} s; " + ", ".join(f"{k} {v}" for k, v in sorted(d["counts"].items())) + "</p>")
        rows = [f"<tr><td>{escape(k)}</td>" + "".join(f"<td class=num>{v.get(s, 0)}</td>" for s in ("agree", "disagree", "problem", "skipped", "known")) + "</tr>" for k, v in d["cells"].items()]
        out.append(_table(["mode/loop", "agree", "disagree", "problem", "skipped", "known"], rows))
        if d["found"]:
            out.append(_table(["signature", "cases", "first difference"], [f"<tr><td><code>{escape(f['signature'])}</code></td><td class=num>{f['count']}</td><td class=mono>{escape(f['first'])[:220]}</td></tr>" for f in d["found"]]))
    return "".join(out)


def findings_section(r: dict) -> str:
    f = r["findings"]
    if not f["present"]:
        return "<p class=warn>not present: no <code>docs/breakwater-findings.md</code> in this checkout.</p>"
    rows = [f"<tr><td><b>{escape(i['title'])}</b><br><span class=dim>{escape(i['body'][:400])}</span></td><td>{' '.join(_clause(c) for c in i['clauses'])}</td>"
            f"<td>{_list(i['vectors'], 3)}</td></tr>" for i in f["items"]]
    texts = [f"<details><summary>{escape(i['id'])}: as an issue</summary><pre class=mono style='white-space:pre-wrap'>{escape(i['text'])}</pre></details>"
             for i in f["items"] if i.get("text")]
    return _table(["finding", "clauses", "vectors"], rows) + "".join(texts)


def timelines_section(r: dict) -> str:
    out = [f"<p>After each stage of the reference's trace, the message list by source. Then what reached memory, the thread title "
           f"and what the model was sent; what should not have happened is red.</p>{svg.legend()}"]
    for i, t in enumerate(r["timelines"]):
        anchor = f"timeline-{i + 1}"
        if "error" in t:
            out.append(f'<figure id="{anchor}"><figcaption>{escape(t["title"])}</figcaption><p class=bad>{escape(t["origin"])}: {escape(t["error"])}</p></figure>')
            continue
        out.append(f'<figure id="{anchor}"><figcaption>{escape(t["title"])} <span class=dim>({escape(t["origin"])})</span></figcaption>'
                   + (f"<p class=mono>{escape(t['violation'])[:400]}</p>" if t["violation"] else "")
                   + f'<div class="scroll">{svg.timeline(t, anchor)}</div><p>The same call under the guard: {escape(t["guarded"])}</p></figure>')
    return "".join(out)


RENDER = {"chain": chain_section, "coverage": coverage_section, "checks": checks_section, "proofs": proofs_section,
          "mutants": mutants_section, "differential": differential_section, "findings": findings_section, "timelines": timelines_section}


def _verify(m: dict) -> str:
    """The sections of the ``guardspec verify`` run that wrote this report, if one did."""
    if "verify" not in m:
        return ""
    return "<p>written by <code>guardspec verify --report</code>: " + ", ".join(
        f'{escape(k)} <span class={"ok" if v == "pass" else "bad"}>{escape(v)}</span>' for k, v in m["verify"].items()) + "</p>"


def page(r: dict[str, Any]) -> str:
    m = r["meta"]
    nav = "".join(f'<a href="#{k}">{escape(t.split(". ", 1)[1])}</a>' for k, t in SECTIONS)
    body = "".join(f'<section id="{k}"><h2>{escape(t)}</h2>{RENDER[k](r)}</section>' for k, t in SECTIONS)
    times = ", ".join(f"{k} {v:.1f} s" for k, v in m["seconds"].items()) + "; CPU " + ", ".join(f"{k} {v:.1f} s" for k, v in m.get("cpu", {}).items())
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
            f"<title>guardspec review report</title><style>{CSS}</style></head><body>"
            f"<header><h1>guardspec review report</h1><p>{escape(m['commit'])} · generated {escape(m['when'])} · profile {escape(m['profile'])} · "
            f"measured in this run in {m['total']:.1f} s</p><p class=dim>{escape(times)}</p>{_verify(m)}</header><nav>{nav}</nav><main>{body}</main></body></html>")
