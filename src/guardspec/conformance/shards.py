"""Shards of a campaign that no cluster runs (a CI matrix), and the merge of their results.

``guardspec diff --shard I/N`` draws the whole campaign (the same cases for the same seed and
``--examples``) and runs only the cases whose index is I modulo N, both modes of a case in one
shard; its results folder's header names the shard. ``guardspec merge OUT DIR...`` checks that
the folders are the N shards of one campaign (seed, examples, strategy, implementation, modes),
each complete, and writes OUT as the unsharded campaign would have: every case record, the
incidents, and for each distinct disagreement the shrunk vector of its smallest case, which the
shard holding that case shrank (the smallest of the campaign is also the smallest of its shard).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .drawing import generate_scenarios
from .impl import Incident
from .results import RESULTS, ResultsWriter, header_shard, read_results
from .settings import BadArguments, Config

if TYPE_CHECKING:
    from .campaign import Report

SAME = ("seed", "examples", "strategy", "impl", "modes")
"""What the shards of one campaign share in their results headers."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N); ``BadArguments`` unless 0 <= I < N."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not m or int(m[2]) < 1 or int(m[1]) >= int(m[2]):
        raise BadArguments(f"--shard {text!r}: I/N, two whole numbers with 0 <= I < N (e.g. 0/4 to 3/4)")
    return int(m[1]), int(m[2])


def shard_cases(n: int, shard: tuple[int, int] | None) -> list[int]:
    """The indices of the cases a shard runs, out of ``n``: every one when ``shard`` is None."""
    if shard is None:
        return list(range(n))
    i, k = shard
    return list(range(i, n, k))


def read_header(path: Path) -> dict | None:
    """The ``campaign`` record of a results file, or None."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("type") == "campaign":
                return rec
    return None


def merge_results(out: Path, folders: Sequence[Path], on_generate: Callable[[int], None] | None = None) -> Report:
    """Merge the results folders of a campaign's shards into ``out``; returns its
    ``campaign.Report``. ``BadArguments`` when the folders are not the complete shards of one
    campaign, or ``out`` already holds results."""
    # deferred: the campaign module loads the reference, heavy; kept out of `guardspec --help`
    from .campaign import Report, summarise

    t0 = time.perf_counter()
    if (out / RESULTS).exists():
        raise BadArguments(f"{out / RESULTS}: already holds results; merge into a new folder")
    parts = []
    for d in folders:
        path = Path(d) / RESULTS
        header = read_header(path) if path.is_file() else None
        if header is None:
            raise BadArguments(f"{d}: no {RESULTS} with a campaign header (a folder written by `guardspec diff --out`)")
        if header_shard(header) is None:
            raise BadArguments(f"{d}: holds a whole campaign, not a shard (`guardspec diff --shard I/N` writes shards)")
        parts.append((Path(d), header))
    first_dir, first = parts[0]
    for d, h in parts[1:]:
        for key in SAME:
            if h.get(key) != first.get(key):
                raise BadArguments(
                    f"{d}: {key} {json.dumps(h.get(key))}, unlike {first_dir}'s {json.dumps(first.get(key))}: "
                    "only the shards of one campaign merge"
                )
    n = header_shard(first)[1]  # type: ignore[index]
    got: dict[int, Path] = {}
    for d, h in parts:
        i, k = header_shard(h)  # type: ignore[misc]
        if k != n:
            raise BadArguments(f"{d}: shard {i}/{k}, unlike {first_dir}'s {n} shards")
        if i in got:
            raise BadArguments(f"{d}: shard {i}/{n} again (also {got[i]})")
        got[i] = d
    missing = [i for i in range(n) if i not in got]
    if missing:
        raise BadArguments(f"shards {', '.join(f'{i}/{n}' for i in missing)} missing: a merge needs all {n}")

    modes = tuple(first["modes"])
    cfg = Config(impl=first["impl"], examples=first["examples"], seed=first["seed"], out=out, modes=modes, focus=first.get("focus"))
    scenarios = generate_scenarios(cfg.seed, cfg.examples, on_generate, focus=cfg.focus)
    # deferred with the campaign module: cases loads the reference
    from .cases import scenario_hash

    hashes = [scenario_hash(s) for s in scenarios]
    records: list[dict] = []
    incidents: list[dict] = []
    shrunk: dict[str, list[tuple[Path, dict]]] = {}
    for d, h in parts:
        shard = header_shard(h)
        _, cases, shrunk_here, incidents_here = read_results(
            d / RESULTS, Config(impl=cfg.impl, examples=cfg.examples, seed=cfg.seed, shard=shard)
        )
        mine = shard_cases(len(scenarios), shard)
        wanted = [(i, m) for i in mine for m in modes]
        absent = [c for c in wanted if c not in cases or cases[c].get("hash") != hashes[c[0]]]
        if absent:
            raise BadArguments(
                f"{d}: shard {shard[0]}/{shard[1]} has {len(wanted) - len(absent)} of its {len(wanted)} cases judged "  # type: ignore[index]
                f"(first missing: case {absent[0][0]} {absent[0][1]}); resume it with the same `guardspec diff --shard ... --out {d}`"
            )
        records.extend(cases[c] for c in wanted)
        incidents.extend(r for r in incidents_here if "case" not in r or (r.get("case"), r.get("mode")) in cases)
        for sig, rec in shrunk_here.items():
            shrunk.setdefault(sig, []).append((d, rec))

    report = Report(cfg, hello={"implementation": first.get("implementation"), "version": first.get("version")})
    records.sort(key=lambda r: (r["case"], r["mode"]))
    summarise(report, records, scenarios, list(range(len(scenarios))))
    for r in incidents:
        report.incidents.append(
            Incident(str(r.get("kind")), str(r.get("detail", "")), "", (r["case"], r.get("mode")) if "case" in r else None)
        )
    header = {k: v for k, v in first.items() if k != "shard"}
    writer = ResultsWriter(out / RESULTS)
    writer.write(header)
    for rec in records:
        writer.write(rec)
    for r in incidents:
        writer.write(r)
    for sig, f in report.found.items():
        rec = _chosen(f, shrunk.get(sig, []), out)
        if rec is not None:
            writer.write(rec)
            _take(f, rec)
    writer.close()
    report.seconds = time.perf_counter() - t0
    return report


def _chosen(f: Any, candidates: list[tuple[Path, dict]], out: Path) -> dict | None:
    """The shrunk record of ``f``'s smallest case (else any shard's, when that one's shard did
    not shrink it), its vector and explain files copied into ``out/vectors``."""
    first = f.first or {}
    exact = [c for c in candidates if c[1].get("case") == first.get("case") and c[1].get("mode") == first.get("mode")]
    if not (exact or candidates):
        return None
    d, rec = (exact or candidates)[0]
    rec = dict(rec)
    for key in ("vector", "explain"):
        if rec.get(key):
            src = Path(rec[key])
            if not src.is_file():
                src = d / "vectors" / src.name
            if src.is_file():
                (out / "vectors").mkdir(parents=True, exist_ok=True)
                dst = out / "vectors" / src.name
                shutil.copyfile(src, dst)
                rec[key] = str(dst)
    return rec


def _take(f: Any, rec: dict) -> None:
    f.vector, f.explain, f.messages, f.processors = rec.get("vector"), rec.get("explain"), rec.get("messages"), rec.get("processors")
    f.tried = rec.get("tried", 0)


__all__ = ["merge_results", "parse_shard", "read_header", "shard_cases"]
