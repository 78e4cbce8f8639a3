"""``guardspec diff``: a differential campaign of an implementation against the model.

Scenarios come from the Hypothesis strategies (``drawing.py``), drawn from a seed so that a
campaign is the same list of cases every time; each case (scenario × mode) runs on both sides
and is judged (``execution.py``, ``cases.judge``), a known discrepancy set aside with its reason
(``known.py``). Every verdict is appended to ``results.jsonl`` as it comes (``results.py``), so an
interrupted campaign loses nothing: started again with the same seed and size it skips the cases
already judged. ``Config.shard`` runs one shard of the cases (``shards.py``), ``Config.cluster``
runs them on a Dask cluster's workers (``cluster.py``). Each distinct disagreement (mode and first differing field, or kind of problem)
is then shrunk (``shrink.py``) and written as a conformance vector with its ``explain``
rendering (``writing.py``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from attrs import define, field

from .cases import message_count, processor_count, scenario_hash
from .census import census_of
from .drawing import generate_scenarios
from .execution import CaseFeed, run_cases
from .impl import Impl, Incident, StartFailed
from .results import ResultsWriter, check_same_build, header_record, read_results, results_path
from .settings import BadArguments, Config
from .shards import shard_cases
from .shrink import run_one, shrink_case, size
from .writing import write_vector

NOT_SHRUNK = frozenset({"timeout", "start-failed"})


@define
class Found:
    """One distinct disagreement (or kind of problem): how often, and its shrunk vector."""

    signature: str
    count: int = 0
    first: dict | None = None  # the record of the smallest case
    first_size: int = 1 << 30
    vector: str | None = None
    explain: str | None = None
    messages: int | None = None
    processors: int | None = None
    tried: int = 0
    line: str = ""


@define
class Report:
    """What a campaign found: counts by status and by loop, each distinct disagreement
    (``Found``), the problems and the reference's own failures, and its scenarios' census."""

    config: Config
    hello: dict | None = None
    counts: dict = field(factory=dict)
    by_loop: dict = field(factory=dict)  # loop -> {status: count}
    found: dict = field(factory=dict)  # signature -> Found
    problems: list = field(factory=list)  # records of problem cases
    model_errors: list = field(factory=list)  # cases the reference itself failed on: not judged
    cases: int = 0
    resumed: int = 0
    seconds: float = 0.0
    incidents: list = field(factory=list)  # impl.Incident: this run's, and the resumed cases'
    first_disagreement_at: int | None = None  # 1-based example number
    census: Any = None  # census.Census of the campaign's scenarios
    unrun: list = field(factory=list)  # (case, mode) a cluster lost (its worker died or its task failed): not judged
    unrun_why: str = ""

    @property
    def incident_counts(self) -> dict[str, int]:
        """Incidents by kind: duplicate, late, out-of-order, stray replies, crashes, timeouts."""
        counts: dict[str, int] = {}
        for i in self.incidents:
            counts[i.kind] = counts.get(i.kind, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def ok(self) -> bool:
        return not self.counts.get("disagree") and not self.counts.get("problem") and not self.unrun


def _modes(cfg: Config, hello: dict) -> tuple[str, ...]:
    have = tuple(m for m in ("guarded", "raw") if m in hello.get("modes", ["raw", "guarded"]))
    if cfg.modes is None:
        return have
    missing = [m for m in cfg.modes if m not in have]
    if missing:
        raise BadArguments(f"--mode {missing[0]}: the implementation declares modes {list(have)}")
    return tuple(cfg.modes)


def run_campaign(
    cfg: Config,
    progress: Callable[[int, dict], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_shrink: Callable[[int, int, str], None] | None = None,
    on_generate: Callable[[int], None] | None = None,
) -> Report:
    """Run the campaign. ``on_generate(drawn)`` while the scenarios are drawn,
    ``on_start(total, already_done)``, then ``progress(done, counts)``;
    ``on_shrink(done, total, signature)`` before each shrink and once after the last."""
    t0 = time.perf_counter()
    report = Report(cfg)
    probe = Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window)
    try:
        hello = probe.start()
    except StartFailed as e:
        raise BadArguments(f"--impl {cfg.impl!r}: {e.problem.path}: {e.problem.expected}" + (f"\n{e.stderr}" if e.stderr else "")) from None
    report.hello = hello
    modes = _modes(cfg, hello)
    client = None
    if cfg.cluster is not None:
        # deferred: distributed is heavy, and only a cluster campaign needs it
        from .cluster import connect

        try:
            client = connect(cfg.cluster)  # before the drawing: a wrong address is told at once
        except BadArguments:
            probe.close()
            raise
    rpath = results_path(cfg)
    header, done, shrunk_before, incidents_before = read_results(rpath, cfg) if rpath else (None, {}, {}, [])
    if rpath:
        check_same_build(rpath, header, hello)
    writer = ResultsWriter(rpath)
    if header is None:
        writer.write(header_record(cfg, modes, hello))
    mine = shard_cases(cfg.examples, cfg.shard)
    wanted = set(mine)
    total = len(mine) * len(modes)
    if on_start:  # the resumed count is told before the draw shows which hashes still match
        on_start(total, sum(1 for (i, m) in done if i in wanted and m in modes))
    scenarios: list[dict] = []
    hashes: list[str] = []
    records: list[dict] = []
    counts: dict[str, int] = {}
    lock = threading.Lock()
    feed = CaseFeed()
    todo: list[tuple[int, str]] = []
    kept: set[tuple[int, str]] = set()  # the cases resumed from the results file

    def drawn(sj: dict) -> None:
        """Each scenario as it is drawn: its cases resumed from the results file (same hash)
        or handed to the processes (a local run starts on the first while the rest are drawn)."""
        i, h = len(scenarios), scenario_hash(sj)
        scenarios.append(sj)
        hashes.append(h)
        if i not in wanted:
            return
        for m in modes:
            rec = done.get((i, m))
            if rec is not None and rec.get("hash") == h:
                kept.add((i, m))
                with lock:
                    records.append(rec)
                    counts[rec["status"]] = counts.get(rec["status"], 0) + 1
            elif client is None:
                feed.put((i, m))
            else:
                todo.append((i, m))

    if client is None:
        ran: list = []
        runner = threading.Thread(
            target=lambda: ran.extend(run_cases(cfg, probe, hello, scenarios, hashes, feed, writer, records, counts, progress, lock)),
            daemon=True,
        )
        runner.start()
        try:
            generate_scenarios(cfg.seed, cfg.examples, on_generate, drawn, focus=cfg.focus)
        finally:
            feed.close()
            runner.join()
        report.incidents.extend(ran)
    else:
        generate_scenarios(cfg.seed, cfg.examples, on_generate, drawn, focus=cfg.focus)
    mine = [i for i in mine if i < len(scenarios)]
    report.resumed = len(kept)
    for r in incidents_before:  # those of resumed cases (the others' cases are run again)
        if "case" not in r or (r.get("case"), r.get("mode")) in kept:
            report.incidents.append(
                Incident(str(r.get("kind")), str(r.get("detail", "")), "", (r["case"], r.get("mode")) if "case" in r else None)
            )
    if client is not None:
        probe.close()  # the workers start their own processes
        from .cluster import run_cases_on_cluster

        try:
            incidents, report.unrun, report.unrun_why = run_cases_on_cluster(
                client, cfg, hello, scenarios, hashes, todo, writer, records, counts, progress
            )
        finally:
            client.close()
        report.incidents.extend(incidents)
    summarise(report, records, scenarios, mine)
    if cfg.shrink:
        _shrink_all(report, scenarios, hello, writer, shrunk_before, on_shrink)
    writer.close()
    report.seconds = time.perf_counter() - t0
    return report


def summarise(report: Report, records: list[dict], scenarios: list[dict], mine: list[int]) -> None:
    """Fill ``report`` from the case records: counts by status and by loop, the distinct
    disagreements (each with its smallest case), the problems; the census of the cases
    ``mine`` (the campaign's, or its shard's), with how far their model runs got."""
    report.counts = {}
    for rec in records:
        report.counts[rec["status"]] = report.counts.get(rec["status"], 0) + 1
    report.cases = len(records)
    # the guard's stages when the campaign ran guarded mode at all; else Mastra's own (raw)
    mode = "raw" if records and all(r.get("mode") == "raw" for r in records) else "guarded"
    report.census = census_of([scenarios[i] for i in mine], mode=mode)
    _collect(report, records, scenarios)


def _collect(report: Report, records: list[dict], scenarios: list[dict]) -> None:
    for rec in sorted(records, key=lambda r: (r["case"], r["mode"])):
        per = report.by_loop.setdefault(rec.get("loop", "generate"), {})
        per[rec["status"]] = per.get(rec["status"], 0) + 1
        if rec["status"] == "model-error":
            report.model_errors.append(rec)
        if rec["status"] not in ("disagree", "problem"):
            continue
        if rec["status"] == "problem":
            report.problems.append(rec)
        if rec["status"] == "disagree" and report.first_disagreement_at is None:
            report.first_disagreement_at = rec["case"] + 1
        f = report.found.setdefault(rec["signature"], Found(rec["signature"]))
        f.count += 1
        s = size(scenarios[rec["case"]])
        if s < f.first_size:
            f.first, f.first_size = rec, s
            d = rec.get("differences")
            f.line = (
                f"{d[0]['path']}: model {json.dumps(d[0].get('expected') or d[0]['model'])[:90]} | impl {json.dumps(d[0]['impl'])[:90]}"
                if d
                else f"{rec['problem']['path']}: {rec['problem']['expected']}"[:200]
            )


def _shrink_all(
    report: Report,
    scenarios: list[dict],
    hello: dict,
    writer: ResultsWriter,
    before: dict,
    on_shrink: Callable[[int, int, str], None] | None = None,
) -> None:
    cfg = report.config
    for k, (sig, f) in enumerate(report.found.items()):
        if on_shrink:
            on_shrink(k, len(report.found), sig)
        if sig in before:
            b = before[sig]
            f.vector, f.explain, f.messages, f.processors, f.tried = (
                b.get("vector"),
                b.get("explain"),
                b.get("messages"),
                b.get("processors"),
                b.get("tried", 0),
            )
            continue
        rec = f.first
        assert rec is not None
        if rec["status"] == "problem" and rec["problem"]["kind"] in NOT_SHRUNK:
            continue
        mode = rec["mode"]
        with Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window) as impl:
            try:
                impl.start()
            except StartFailed:
                continue
            small, tried = scenarios[rec["case"]], 0
            again = run_one(small, mode, impl, cfg)
            if again is not None and again[0].signature == sig:  # else not reproduced: kept whole
                small, tried = shrink_case(small, mode, again[0].cause(), impl, cfg)
            final = run_one(small, mode, impl, cfg)
        f.messages, f.processors, f.tried = message_count(small), processor_count(small), tried
        if cfg.out is not None and final is not None:
            v, mo, ans = final
            f.vector, f.explain = write_vector(cfg.out / "vectors", small, mode, sig, mo, ans, v, cfg, rec)
        writer.write(
            {
                "type": "shrunk",
                "signature": sig,
                "case": rec["case"],
                "mode": mode,
                "vector": f.vector,
                "explain": f.explain,
                "messages": f.messages,
                "processors": f.processors,
                "tried": tried,
            }
        )
    if on_shrink and report.found:
        on_shrink(len(report.found), len(report.found), "")


__all__ = ["Found", "Report", "run_campaign", "summarise"]
