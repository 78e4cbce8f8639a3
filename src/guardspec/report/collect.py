"""What the report shows, measured in this run by the project's own checks (no subprocess where a
function will do): examples, properties and the I12 hunt, mutants killed by the properties and
refuted by z3, bounded proofs, differential campaigns per implementation and loop, findings.

Each collector returns plain data (dicts, lists, strings) so the renderers and the z3 worker
process exchange nothing but values. Sizes are the ``ci`` profile's or smaller, so a whole
report stays under a minute on two cores.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

# The bounded scope of the proofs and of the z3 mutant refutation (``guardspec verify``'s).
SCOPE = (5, 3, 3, True)
I12_EXPECTED = ("I1", "I2", "I4")


def timed(f: Any, *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = f(*args, **kw)
    return out, time.perf_counter() - t0


# -- examples and properties -------------------------------------------------------------------


def examples(root: Path) -> list[dict]:
    """Every example against the reference, per mode (``guardspec verify``'s first section)."""
    from guardspec.examples import check, example_paths, load_example
    from guardspec.model import codec

    rows = []
    for p in example_paths(root / "examples"):
        try:
            ex = load_example(p)
        except codec.FormatError as e:
            rows.append({"name": p.stem, "clauses": [], "mode": "", "loop": "", "ok": False, "problem": f"{e.path}: {e.expected}"})
            continue
        for mode, mismatches in check(ex).items():
            rows.append({"name": p.stem, "clauses": list(ex.scenario.clauses), "mode": mode, "loop": ex.scenario.call.loop.value,
                         "ok": not mismatches, "problem": "; ".join(mismatches)[:300]})
    return rows


def properties(per_strategy: int = 25, hunt: int = 150) -> dict:
    """The properties on generated call sequences in guarded mode (each strategy of the battery),
    and the I12 hunt: raw mode must show I1/I2 on durable and I4 on moved text, guarded none.
    Keeps the first scenario of each raw violation found, to draw it."""
    from attrs import evolve
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from guardspec.model.agent import Memory
    from guardspec.properties import settings as profiles
    from guardspec.properties.harness import check_call, execute, raw_tally, run_sequence
    from guardspec.properties.machines import moves_text_out_of_input
    from guardspec.properties.strategies import RAW_I12, battery, call_sequences, scenarios

    profiles.load()
    quiet = dict(phases=[Phase.generate], database=None, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    rows = []
    for label, strat in battery():
        stats = {"sequences": 0, "calls": 0}
        bad: Counter = Counter()

        @settings(max_examples=per_strategy, **quiet)
        @given(call_sequences(strat))
        def body(seq: Any) -> None:
            execs, found = run_sequence(seq, "guarded")
            stats["sequences"] += 1
            stats["calls"] += len(execs)
            bad.update(found)

        body()
        rows.append({"strategy": label, **stats, "violations": dict(bad)})

    raw: Counter = Counter()
    guarded: Counter = Counter()
    first: dict[str, Any] = {}

    @settings(max_examples=hunt, **quiet)
    @given(scenarios(st.just(RAW_I12)))
    def search(sc: Any) -> None:
        moved = moves_text_out_of_input(sc.agent)
        r = execute(sc, "raw")
        tally = raw_tally(r, check_call(r), moved)
        raw.update(tally)
        for k in tally:
            if k not in first or _size(sc) < _size(first[k]):
                first[k] = sc
        g = execute(evolve(sc, agent=evolve(sc.agent, memory=Memory())), "guarded")
        guarded.update(raw_tally(g, check_call(g), moved))

    search()
    return {"battery": rows, "hunt": hunt, "raw": dict(raw), "guarded": dict(guarded), "first": first}


def _size(sc: Any) -> int:
    return len(sc.call.messages) + sum(len(t.messages) for t in sc.threads.threads) + len(sc.agent.processors)


def mutants_killed(only: tuple[str, ...] | None = None) -> list[dict]:
    """Each semantic mutant (or those named in ``only``) run against the properties until one
    fails (the profile's budget)."""
    from guardspec.properties import settings as profiles
    from guardspec.properties.mutants import MUTANTS, kill

    profiles.load()
    out = []
    for name, m in MUTANTS.items():
        if only is not None and name not in only:
            continue
        v, took = timed(kill, name)
        out.append({"mutant": name, "clause": m.clause, "description": m.description, "killedBy": v.killed_by,
                    "examples": v.examples, "violation": (v.violation or "")[:300], "seconds": round(took, 2)})
    return out


# -- z3: run in a worker process, beside the rest ---------------------------------------------


def z3_job(coverage_dir: str | None = None, only: tuple[str, ...] | None = None) -> dict:
    """The bounded proofs (guarded: every claim; raw: the counterexamples I12 predicts) and the
    z3 refutation of every mutant (or those named in ``only``); counterexamples travel as
    scenario JSON."""
    from contextlib import nullcontext

    from .coverage import measuring

    t0 = time.process_time()
    with measuring(Path(coverage_dir)) if coverage_dir else nullcontext():
        out = _z3(only)
    return {**out, "cpu": time.process_time() - t0}


def _z3(only: tuple[str, ...] | None = None) -> dict:
    from guardspec.model import codec
    from guardspec.properties.mutants import MUTANTS
    from guardspec.properties.symbolic.claims import CLAIMS
    from guardspec.properties.symbolic.prove import assumptions_satisfiable, prove, refute_mutant
    from guardspec.properties.symbolic.scope import Scope
    from guardspec.properties.symbolic.switches import MUTANT_SWITCHES, OUT_OF_SCOPE, SURVIVORS

    scope = Scope(*SCOPE)
    proofs = []
    for mode, names in (("guarded", list(CLAIMS)), ("raw", list(I12_EXPECTED))):
        sat = assumptions_satisfiable(scope, mode)
        for v in prove(scope, mode, names, 60.0):
            proofs.append({"claim": v.name, "title": CLAIMS[v.name].title, "clauses": list(CLAIMS[v.name].clauses), "mode": mode,
                           "status": v.status, "seconds": round(v.seconds, 3), "premise": v.premise, "assumptions": sat,
                           "replayed": v.replayed, "replay": list(v.replay[:1]),
                           "scenario": codec.scenario_to_json(v.scenario) if v.scenario is not None else None})
    refuted = {}
    for name in MUTANTS:
        if only is not None and name not in only:
            continue
        if name in OUT_OF_SCOPE:
            refuted[name] = {"status": "outside the scope", "why": OUT_OF_SCOPE[name]}
            continue
        if name not in MUTANT_SWITCHES:
            refuted[name] = {"status": "not encoded"}
            continue
        t0 = time.perf_counter()
        try:
            k = refute_mutant(name, scope, 60.0)
        except Exception as e:  # a mutant whose patch no longer fits the reference: shown, not hidden
            refuted[name] = {"status": "cannot run", "why": f"{type(e).__name__}: {e}"[:200]}
            continue
        took = round(time.perf_counter() - t0, 2)
        if k is None:
            refuted[name] = {"status": "survives the scope", "why": SURVIVORS.get(name, ""), "seconds": took}
        else:
            refuted[name] = {"status": "refuted" if k.replayed else "not replayed", "claim": k.name, "seconds": took,
                             "replay": (k.under_mutant or ("",))[0][:200]}
    return {"scope": str(scope), "proofs": proofs, "refuted": refuted}


# -- differential campaigns ---------------------------------------------------------------------


def implementations(root: Path, breakwater: str | None) -> list[dict]:
    """The implementations to diff, each as its own command runs it: guardspec itself
    (``guardspec serve``, both modes), real Mastra in raw mode (``mastra-diff``'s adapter,
    comparison and known file), and Breakwater in guarded mode when a build is named
    (``adapters/breakwater``'s command, normalisation and known file)."""
    import shutil

    from guardspec.conformance.serve import serve_command

    node = shutil.which("node") is not None and (root / "adapters" / "mastra" / "node_modules").is_dir()
    bw = root / "adapters" / "breakwater" / "server.mjs"
    if not breakwater:
        bw_why = "not run: no build named (--breakwater or BREAKWATER_MODULE)"
    elif not bw.is_file():
        bw_why = f"not run: a build is named but {bw.relative_to(root)} is not in this checkout"
    elif not node:
        bw_why = "not run: node or adapters/mastra/node_modules missing (make setup)"
    else:
        bw_why = None
    return [
        {"label": "guardspec serve", "short": "serve", "show": "guardspec serve", "cmd": serve_command(), "why": None,
         "modes": None, "normalise": None, "known": None, "env": None},
        {"label": "real Mastra (raw)", "short": "mastra", "show": "node adapters/mastra/server.mjs",
         "cmd": ["node", str(root / "adapters" / "mastra" / "server.mjs")] if node else None,
         "why": None if node else "not run: node or adapters/mastra/node_modules missing (make setup)",
         "modes": ("raw",), "normalise": "mastra", "known": root / "vectors" / "mastra" / "KNOWN.json", "env": None},
        {"label": "Breakwater", "short": "breakwater", "show": "node adapters/breakwater/server.mjs", "cmd": ["node", str(bw)] if bw_why is None else None,
         "why": bw_why, "modes": ("guarded",), "normalise": "mastra", "known": root / "adapters" / "breakwater" / "KNOWN.json",
         "env": {"BREAKWATER_MODULE": breakwater} if breakwater else None},
    ]


def differential(impl: dict, examples: int, seed: int = 0) -> dict:
    """One campaign: counts per mode and loop (from the campaign's own results file) and each
    distinct disagreement with its first difference."""
    import os

    from guardspec.conformance.settings import BadArguments, Config, build_label
    from guardspec.conformance.known import load_known
    from guardspec.conformance.campaign import run_campaign
    from guardspec.conformance.compare import Comparison

    base = {"label": impl["label"], "short": impl["short"], "command": impl["show"], "examples": examples, "seed": seed}
    if impl["cmd"] is None:
        return {**base, "status": impl["why"]}
    cmp = Comparison(normalise=impl["normalise"]) if impl["normalise"] else Comparison()
    saved = {k: os.environ.get(k) for k in (impl["env"] or {})}
    os.environ.update(impl["env"] or {})
    try:
        known = load_known(impl["known"]) if impl["known"] and Path(impl["known"]).is_file() else []
        with tempfile.TemporaryDirectory() as tmp:
            cfg = Config(impl=impl["cmd"], examples=examples, seed=seed, out=Path(tmp), shrink=False, comparison=cmp, timeout=60.0,
                         modes=impl["modes"], known=known)
            try:
                rep = run_campaign(cfg)
            except BadArguments as e:
                return {**base, "status": f"did not start: {e}"[:300]}
            records = [json.loads(x) for x in (Path(tmp) / "results.jsonl").read_text().splitlines() if x.strip()]
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    cells: dict[str, dict[str, int]] = {}
    for r in records:
        if r.get("type") == "case":
            c = cells.setdefault(f"{r['mode']}/{r['loop']}", {})
            c[r["status"]] = c.get(r["status"], 0) + 1
    h = rep.hello or {}
    return {**base, "status": "run", "implementation": f"{h.get('implementation')} {h.get('version')}{build_label(h)}",
            "build": h.get("build"), "cases": rep.cases,
            "counts": rep.counts, "cells": dict(sorted(cells.items())), "seconds": round(rep.seconds, 2),
            "firstDisagreementAt": rep.first_disagreement_at, "known": len(known),
            "found": [{"signature": f.signature, "count": f.count, "first": f.line} for f in rep.found.values()],
            "incidents": len(rep.incidents)}


# -- findings and clause links ------------------------------------------------------------------


def findings(root: Path) -> dict:
    """``docs/breakwater-findings.md`` if present: its headed entries and the vectors they name."""
    path = root / "docs" / "breakwater-findings.md"
    if not path.is_file():
        return {"present": False, "items": []}
    text = path.read_text()
    items = []
    for block in re.split(r"(?m)^#{2,3} ", text)[1:]:
        title, _, body = block.partition("\n")
        vectors = [v for v in dict.fromkeys(re.findall(r"((?:vectors|examples)/[\w./-]+\.json)", body)) if (root / v).is_file()]
        items.append({"title": title.strip(), "body": body.strip()[:1200], "clauses": _clauses(title + body), "vectors": vectors})
    # each finding as `guardspec findings` prints it: the issue-ready text a maintainer files
    from guardspec.conformance.findings import findings as issues
    from guardspec.conformance.findings import markdown

    texts = {f["id"]: markdown(f) for f in issues(root)}
    for item in items:
        fid = item["title"].split(":", 1)[0]
        if fid in texts:
            item["id"], item["text"] = fid, texts[fid]
    return {"present": True, "items": items}


def _clauses(text: str) -> list[str]:
    from guardspec import traceability as tr

    return list(dict.fromkeys(tr._ids(text)))


def vectors_by_clause(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in sorted((root / "vectors" / "conformance").glob("*.json")):
        try:
            data = json.loads(p.read_text())
        except ValueError:
            continue
        for c in data.get("clauses", []) if isinstance(data, dict) else []:
            out.setdefault(c, []).append(p.stem)
    return out


def links(root: Path, z3: dict, killed: list[dict]) -> dict[str, dict[str, list[str]]]:
    """clause → implemented in, tests, properties, proofs, examples, vectors, mutants."""
    from guardspec import traceability as tr

    impl, tests, props = (tr.rolled_up(m) for m in (tr.implementations(root), tr.tests(root), tr.properties(root)))
    exs = tr.examples(root)
    vecs = vectors_by_clause(root)
    proofs: dict[str, list[str]] = {}
    for p in z3["proofs"]:
        if p["mode"] == "guarded":
            for c in dict.fromkeys([p["claim"], *p["clauses"]]):
                proofs.setdefault(c, []).append(p["claim"])
    muts: dict[str, list[str]] = {}
    for m in killed:
        for c in _clauses(m["clause"]):
            muts.setdefault(c, []).append(m["mutant"])
    return {c: {"implemented": impl.get(c, []), "tests": tests.get(c, []), "properties": props.get(c, []),
                "proofs": proofs.get(c, []),
                "examples": exs.get(c, []), "vectors": vecs.get(c, []), "mutants": muts.get(c, [])} for c in tr.CLAUSES}


def cited_by_invariants(root: Path, z3: dict) -> dict[str, list[str]]:
    """For each invariant, the M/G clauses its properties and its proof cite (whose code it runs)."""
    from guardspec import traceability as tr

    props = tr.properties(root)
    by_prop: dict[str, set[str]] = {}
    for c, names in props.items():
        for n in names:
            by_prop.setdefault(n, set()).add(c)
    named: dict[str, set[str]] = {}
    for c in tr.CLAUSES:
        if c.startswith("I"):
            named[c] = {x for n in props.get(c, []) for x in by_prop[n]} | {x for p in z3["proofs"] if p["claim"] == c for x in p["clauses"]}
    out: dict[str, list[str]] = {}
    for c, cs in named.items():
        own = {tr.top(x) for x in cs if x[0] in "MG"}
        if not own:  # an invariant stated over other invariants (I12 over I1, I2, I4) runs their code
            own = {tr.top(y) for x in cs if x.startswith("I") and x != c for y in named.get(x, ()) if y[0] in "MG"}
        out[c] = sorted(own, key=tr.CLAUSES.index)
    return out
