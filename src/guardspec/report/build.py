"""One report run: measure everything (coverage.py watching ``reference/`` throughout), then
write ``report.html`` (one file), ``report.md`` with the drawings as SVG files beside it, and
``report.json`` (the measured data).

The z3 work (proofs and mutant refutation) runs in a second process, beside the property hunts
and the differential campaigns, so the whole report uses both cores. Coverage is measured in this
process only (examples, properties, the I12 hunt, the model's side of the differential cases,
the timelines), and paused while a mutant patches the reference.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable

from attrs import frozen

from . import collect, coverage

# Sizes of one report: the ``ci`` profile's budgets, cut so the run stays under a minute.
SIZES = {"per_strategy": 20, "hunt": 120, "serve_examples": 60, "mastra_examples": 60, "breakwater_examples": 60}


@frozen
class Written:
    html: Path
    markdown: Path
    seconds: dict[str, float]
    total: float
    unexercised: tuple[str, ...]
    cpu: dict[str, float]


def _commit(root: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %s"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip()[:100] or "not a git checkout"
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"


def clause_titles(root: Path, z3: dict) -> dict[str, str]:
    """A short title per clause: its title in ``spec/SPEC.md``, else its proof's title."""
    from guardspec import traceability as tr

    titles = {c: v.title for c, v in tr.read_spec(root).items()}
    for p in z3["proofs"]:
        titles.setdefault(p["claim"], p["title"])
    return titles


def measure(root: Path, breakwater: str | None, sizes: dict[str, int], cov_dir: Path, say: Callable[[str], None],
            mutants: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Every measurement of the report, as plain data; ``mutants`` names the mutants to run (all
    when None)."""
    seconds: dict[str, float] = {}
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        z3_future = pool.submit(collect.z3_job, None, mutants)  # not measured: its replays are few, and tracing doubles its time
        with coverage.measuring(cov_dir) as cov:
            examples, seconds["examples"] = collect.timed(collect.examples, root)
            say(f"examples: {len(examples)} checks, {seconds['examples']:.1f} s")
            props, seconds["properties"] = collect.timed(collect.properties, sizes["per_strategy"], sizes["hunt"])
            say(f"properties and the I12 hunt: {seconds['properties']:.1f} s")
            with coverage.paused(cov):  # a mutant's run is not the reference's
                killed, seconds["mutants"] = collect.timed(collect.mutants_killed, mutants)
            say(f"mutants killed by the properties: {seconds['mutants']:.1f} s")
            diffs = []
            t0 = time.perf_counter()
            for impl, n in zip(collect.implementations(root, breakwater), ("serve_examples", "mastra_examples", "breakwater_examples")):
                diffs.append(collect.differential(impl, sizes[n]))
                say(f"differential, {impl['label']}: {diffs[-1]['status']}")
            seconds["differential"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            z3 = z3_future.result()
            seconds["z3 wait"] = time.perf_counter() - t0
            from .timeline import counterexamples

            found = collect.findings(root)
            timelines, seconds["timelines"] = collect.timed(counterexamples, z3, props, found, root)
    say(f"z3 proofs and mutant refutation (second process) joined after {seconds['z3 wait']:.1f} s more")
    t0 = time.perf_counter()
    from guardspec import traceability as tr

    cited = collect.cited_by_invariants(root, z3)
    rows = coverage.per_clause(cov_dir, list(tr.CLAUSES), cited)
    titles = clause_titles(root, z3)
    cov = [{"clause": c.clause, "title": titles.get(c.clause, ""), "functions": list(c.functions), "lines": c.lines, "linesRun": c.lines_run,
            "branches": c.branches, "branchesRun": c.branches_run, "via": list(c.via), "unrun": list(c.unrun)} for c in rows]
    seconds["coverage"] = time.perf_counter() - t0
    from guardspec.properties.mutants import MUTANTS

    chosen = {"mutants": len(killed), "of": len(MUTANTS)}
    return {"examples": examples, "properties": props, "mutants": killed, "mutantsChosen": chosen, "differential": diffs, "z3": z3,
            "findings": found, "timelines": timelines, "coverage": cov, "links": collect.links(root, z3, killed), "seconds": seconds}


def write(out: Path, r: dict[str, Any]) -> tuple[Path, Path]:
    from . import html, markdown, svg

    out.mkdir(parents=True, exist_ok=True)
    page = out / "report.html"
    page.write_text(html.page(r), encoding="utf-8")
    md = out / "report.md"
    md.write_text(markdown.page(r), encoding="utf-8")
    cov = {c["clause"]: (100 * c["linesRun"] / c["lines"] if c["lines"] else None) for c in r["coverage"]}
    (out / "chain.svg").write_text(svg.chain_diagram(cov, html.per_loop(r)), encoding="utf-8")
    for i, t in enumerate(r["timelines"]):
        if "error" not in t:
            (out / f"timeline-{i + 1}.svg").write_text(svg.timeline(t, f"timeline-{i + 1}"), encoding="utf-8")
    data = dict(r, properties={k: v for k, v in r["properties"].items() if k != "first"})
    (out / "report.json").write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str), encoding="utf-8")
    return page, md


def build(out: Path, root: Path, breakwater: str | None = None, say: Callable[[str], None] = lambda s: None,
          sizes: dict[str, int] | None = None, extra: dict[str, Any] | None = None, mutants: tuple[str, ...] | None = None) -> Written:
    """Measure and write the report into ``out``; ``mutants`` limits the mutants run (all when None)."""
    from guardspec.properties import settings as profiles

    t0, c0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="guardspec-report-cov-") as tmp:
        r = measure(root, breakwater, sizes or SIZES, Path(tmp), say, mutants)
    total = time.perf_counter() - t0
    cpu = {"this process": time.process_time() - c0, "z3 process": r["z3"].pop("cpu", 0.0)}
    r["meta"] = {"commit": _commit(root), "when": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 "profile": profiles.profile_name(), "total": total, "seconds": r.pop("seconds"), "cpu": cpu, **(extra or {})}
    page, md = write(out, r)
    unexercised = tuple(c["clause"] for c in r["coverage"] if not c["linesRun"])
    return Written(page, md, r["meta"]["seconds"], total, unexercised, cpu)
