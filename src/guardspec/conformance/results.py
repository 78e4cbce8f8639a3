"""A campaign's results file (``results.jsonl``): one JSON record a line, appended as each case
is judged, so that an interrupted campaign is resumed from what it already wrote. Besides the
header (``campaign``) and the cases (``case``): ``incident`` records (a duplicate or late reply,
a crash, a timeout: kind, case, mode, detail) and ``shrunk`` records."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from .drawing import strategy_of
from .settings import BadArguments, Config

RESULTS = "results.jsonl"


def results_path(cfg: Config) -> Path | None:
    """Where the campaign appends its records (None: it keeps none)."""
    return cfg.out / RESULTS if cfg.out else None


def header_record(cfg: Config, modes: tuple[str, ...], hello: dict | None = None) -> dict:
    """The first line of a results file: which campaign it belongs to (and which shard of it,
    ``[i, n]``, when it runs one: shards.py), the implementation's name and version, and the build
    that answered it when the implementation names one (``build`` of its start message)."""
    build = (hello or {}).get("build")
    rec = {
        "type": "campaign",
        "guardspec": 1,
        "seed": cfg.seed,
        "examples": cfg.examples,
        "strategy": strategy_of(cfg.focus),
        "impl": cfg.impl,
        "modes": list(modes),
        **({"build": build} if build is not None else {}),
        **({"focus": cfg.focus} if cfg.focus is not None else {}),
    }
    if hello:
        rec["implementation"], rec["version"] = hello.get("implementation"), hello.get("version")
    if cfg.shard is not None:
        rec["shard"] = list(cfg.shard)
    return rec


def header_shard(header: dict) -> tuple[int, int] | None:
    """The shard a results file's header names (None: the whole campaign)."""
    s = header.get("shard")
    return (int(s[0]), int(s[1])) if isinstance(s, list) and len(s) == 2 else None


def shard_name(shard: tuple[int, int] | None) -> str:
    return "the whole campaign" if shard is None else f"shard {shard[0]}/{shard[1]}"


def check_same_build(path: Path, header: dict | None, hello: dict | None) -> None:
    """A campaign is resumed only on the build that began it: results of two builds in one file
    would be reported as one build's. A header or start message without ``build`` names none."""
    then = (header or {}).get("build")
    now = (hello or {}).get("build")
    if then is not None and now is not None and then != now:
        raise BadArguments(
            f"{path}: begun on build sha256 {then.get('sha256')}, but the implementation is build sha256 "
            f"{now.get('sha256')}; use another --out for this build"
        )


def read_results(path: Path, cfg: Config) -> tuple[dict | None, dict, dict, list]:
    """(header, case records by (case, mode), shrunk records by signature, incident records) of
    an earlier run."""
    header, cases, shrunk, incidents = None, {}, {}, []
    if not path.exists():
        return header, cases, shrunk, incidents
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut short by an interruption
        if not isinstance(rec, dict):
            continue
        if rec.get("type") == "campaign" and header is None:
            header = rec
        elif rec.get("type") == "case":
            cases[(rec.get("case"), rec.get("mode"))] = rec
        elif rec.get("type") == "shrunk":
            shrunk[rec.get("signature")] = rec
        elif rec.get("type") == "incident":
            incidents.append(rec)
    if header is not None and (header.get("seed"), header.get("examples"), header.get("strategy")) != (
        cfg.seed,
        cfg.examples,
        strategy_of(cfg.focus),
    ):
        raise BadArguments(
            f"{path}: belongs to another campaign (seed {header.get('seed')}, {header.get('examples')} examples, "
            f"drawn from {header.get('strategy')}); use another --out, or the same --seed, --examples and --focus to resume it"
        )
    if header is not None and header_shard(header) != cfg.shard:
        raise BadArguments(f"{path}: holds {shard_name(header_shard(header))}, not {shard_name(cfg.shard)}; use another --out")
    return header, cases, shrunk, incidents


class ResultsWriter:
    """Appends records to the results file, one JSON line each, flushed at once."""

    def __init__(self, path: Path | None) -> None:
        self.lock = threading.Lock()
        self.f = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            cut = False
            if path.exists() and path.stat().st_size > 0:
                with path.open("rb") as f:
                    f.seek(-1, 2)
                    cut = f.read(1) != b"\n"
            # Held open for the whole campaign (closed by close()), so each result is appended as it comes.
            self.f = open(path, "a", encoding="utf-8")  # noqa: SIM115
            if cut:  # a line cut short by an interruption: the next record starts on a line of its own
                self.f.write("\n")

    def write(self, rec: dict) -> None:
        if self.f is None:
            return
        with self.lock:
            self.f.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.f.flush()

    def close(self) -> None:
        if self.f:
            self.f.close()


__all__ = ["RESULTS", "ResultsWriter", "check_same_build", "header_record", "header_shard", "read_results", "results_path"]
