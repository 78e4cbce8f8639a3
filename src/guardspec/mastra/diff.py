"""``guardspec mastra-diff``: the model against real Mastra, through the one differential harness.

Two kinds of cases, both on the Mastra adapter (``node adapters/mastra/server.mjs``, protocol v1):

``ops``  MessageList operation sequences (src/guardspec/mastra/ops.py), which only the Mastra
         adapter understands: drawn, run, judged (``Verdict``), recorded, shrunk and written
         here, with the harness's own pieces (``draw_distinct``, ``shrink``, the results
         format, the known-discrepancies file).
``raw``  raw-mode scenarios (SPEC, Shape of the model) on the three loops: a conformance campaign
         (src/guardspec/conformance/campaign.py) with the Mastra adapter as the implementation,
         mode ``raw`` and the normalisation the adapter declares in its ``hello`` (``mastra``)
         unless the caller names one: the same generators, comparison, shrinker and results as
         ``guardspec diff``.

With ``out``: ``out/ops`` and ``out/raw`` each hold a ``results.jsonl`` (one JSON line per case,
then one per shrunk disagreement) and the shrunk vectors. Known discrepancies, each with its
reason, are ``vectors/mastra/KNOWN.json`` (``known.load_known``): empty, and kept so.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import define, field

from guardspec.conformance.campaign import Found, Report, run_campaign
from guardspec.conformance.cases import scenario_hash
from guardspec.conformance.census import census_of
from guardspec.conformance.compare import Comparison
from guardspec.conformance.drawing import draw_distinct
from guardspec.conformance.impl import Impl
from guardspec.conformance.known import known_reason, load_known
from guardspec.conformance.results import ResultsWriter
from guardspec.conformance.settings import BadArguments, ChosenComparison, Config, chosen_comparison, implementation_hello
from guardspec.conformance.shrink import shrink, size
from guardspec.progress import CampaignTasks, counts_text

from .client import default_command, repo_root
from .ops import OPS_SHAPES, op_sequences, ops_request, ops_shapes, ops_to_wire
from .ops_judge import judge_ops, model_ops_observation

OPS_STRATEGY = "mastra_ops.op_sequences(), distinct"
MASTRA_COMPARISON = Comparison(normalise="mastra")  # what the Mastra adapter's hello declares


def known_file() -> Path:
    return repo_root() / "vectors" / "mastra" / "KNOWN.json"


def mastra_command() -> str:
    """The Mastra adapter's command line (absolute, so any working directory will do)."""
    return shlex.join(default_command())


# ==== op sequences ===========================================================================


@define
class OpsReport:
    cases: int = 0
    counts: dict = field(factory=dict)
    found: dict = field(factory=dict)  # signature -> Found
    incidents: list = field(factory=list)
    seconds: float = 0.0
    census: Any = None  # census.Census of the op sequences
    hello: dict | None = None  # the adapter's start message

    @property
    def ok(self) -> bool:
        return not self.counts.get("disagree") and not self.counts.get("problem")


def generate_op_sequences(seed: int, n: int, tick: Callable[[int], None] | None = None) -> list[list[dict]]:
    """``n`` distinct op sequences (wire JSON), the same for the same (seed, n)."""
    return draw_distinct(op_sequences(), seed, n, ops_to_wire, tick)


def run_ops(
    n: int,
    seed: int,
    impl_cmd: str,
    known: list,
    out: Path | None,
    tick: Callable[[int, dict], None] | None = None,
    shrink_seconds: float = 60.0,
    chunk: int = 64,
    timeout: float = 30.0,
    on_generate: Callable[[int], None] | None = None,
) -> OpsReport:
    """Every op sequence on the model and on the adapter, judged; each distinct disagreement
    shrunk (the same cause kept: ``Verdict.cause``) and written under ``out/vectors``."""
    t0 = time.perf_counter()
    rep = OpsReport()
    seqs = generate_op_sequences(seed, n, on_generate)
    rep.census = census_of(seqs, OPS_SHAPES, ops_shapes)
    writer = ResultsWriter(out / "results.jsonl" if out else None)
    writer.write(
        {"type": "campaign", "guardspec": 1, "kind": "mastra-ops", "seed": seed, "examples": n, "strategy": OPS_STRATEGY, "impl": impl_cmd}
    )
    records: list[dict] = []
    with Impl(impl_cmd, timeout=timeout) as impl:
        impl.start()
        for k in range(0, len(seqs), chunk):
            batch = seqs[k : k + chunk]
            answers = impl.exchange([ops_request(w) for w in batch])
            for i, (wire, ans) in enumerate(zip(batch, answers), start=k):
                v = judge_ops(wire, model_ops_observation(wire), ans)
                h = scenario_hash(wire)
                rec = {"type": "case", "case": i, "mode": "ops", "loop": "ops", "hash": h, **v.to_json(), "seconds": round(ans.seconds, 4)}
                if v.status in ("disagree", "problem"):
                    why = known_reason(known, v, "ops", h)
                    if why is not None:
                        rec["status"], rec["known"] = "known", why
                writer.write(rec)
                records.append(rec)
                rep.counts[rec["status"]] = rep.counts.get(rec["status"], 0) + 1
            if tick:
                tick(len(records), dict(rep.counts))
        rep.cases = len(records)
        for rec in records:
            if rec["status"] in ("disagree", "problem"):
                f = rep.found.setdefault(rec["signature"], Found(rec["signature"]))
                f.count += 1
                s = size(seqs[rec["case"]])
                if s < f.first_size:
                    f.first, f.first_size = rec, s
        for f in rep.found.values():
            _shrink_ops(f, seqs[f.first["case"]], impl, writer, out, seed, impl_cmd, shrink_seconds)  # type: ignore[index]
        rep.incidents = list(impl.incidents)
        rep.hello = impl.hello
    writer.close()
    rep.seconds = time.perf_counter() - t0
    return rep


def _judge_wire(wire: Any, impl: Impl) -> Any:
    return judge_ops(wire, model_ops_observation(wire), impl.exchange([ops_request(wire)])[0])


def _shrink_ops(
    f: Found, wire: list[dict], impl: Impl, writer: ResultsWriter, out: Path | None, seed: int, impl_cmd: str, seconds: float
) -> None:
    v = _judge_wire(wire, impl)
    small, tried = {"ops": wire}, 0
    if v.signature == f.signature and v.status == "disagree":
        cause = v.cause()

        def still_fails(batch: list[dict]) -> list[bool]:
            oks = []
            for c in batch:
                try:
                    oks.append(_judge_wire(c.get("ops"), impl).cause() == cause)
                except Exception:  # not an op sequence: never a smaller case
                    oks.append(False)
            return oks

        small, tried = shrink(small, still_fails, seconds=seconds)
        v = _judge_wire(small["ops"], impl)
    f.tried, f.messages = tried, len(small["ops"])
    f.line = v.line()
    if out is not None:
        vdir = out / "vectors"
        vdir.mkdir(parents=True, exist_ok=True)
        path = vdir / f"ops-{f.signature.replace(':', '-')}-{scenario_hash(small['ops'])}.json"
        vec = {
            "guardspec": 1,
            "kind": "mastra-ops-vector",
            "note": f"Found by `guardspec mastra-diff --seed {seed}` (case {f.first['case']}), shrunk: {v.line()}",  # type: ignore[index]
            "ops": small["ops"],
            "expect": model_ops_observation(small["ops"]),
            "found": {"impl": impl_cmd, "signature": f.signature, "seed": seed, "verdict": v.to_json()},
            "replay": f"guardspec mastra-replay {path}",
        }
        path.write_text(json.dumps(vec, indent=2, ensure_ascii=False) + "\n")
        f.vector = str(path)
    writer.write(
        {
            "type": "shrunk",
            "signature": f.signature,
            "case": f.first["case"],
            "mode": "ops",
            "vector": f.vector,  # type: ignore[index]
            "ops": f.messages,
            "tried": tried,
        }
    )


# ==== the whole run ===========================================================================


@define
class MastraReport:
    ops: OpsReport
    raw: Report | None
    seconds: float = 0.0
    comparison: ChosenComparison | None = None  # the raw scenarios' comparison, and where it came from

    @property
    def ok(self) -> bool:
        return self.ops.ok and (self.raw is None or self.raw.ok)


def run_diff(
    ops: int = 2000,
    scenarios: int = 300,
    seed: int = 0,
    out: Path | None = None,
    jobs: int = 1,
    progress: Any = None,
    shrink_seconds: float = 60.0,
    known: list | None = None,
    impl_cmd: str | None = None,
    normalise: str | None = None,
) -> MastraReport:
    """Op sequences, then raw scenarios through the conformance campaign; ``progress``: a
    ``guardspec.progress.Progress`` (or None). The raw scenarios are compared as the adapter's
    ``hello`` declares, with ``normalise`` (when given) over it; ``BadArguments`` when the
    declaration is malformed."""
    t0 = time.perf_counter()
    impl_cmd = impl_cmd or mastra_command()
    known = load_known(known_file()) if known is None else known
    ops_rep = OpsReport()
    if ops > 0:
        drawing = progress.task("mastra-diff drawing op sequences", total=ops) if progress else None
        task: list = []

        def tick(done: int, counts: dict) -> None:
            if progress and not task:
                drawing.done()  # type: ignore[union-attr]
                task.append(progress.task("mastra-diff ops", total=ops))
            if task:
                task[0].update(done, counts_text(counts))

        ops_rep = run_ops(
            ops, seed, impl_cmd, known, out / "ops" if out else None, tick, shrink_seconds, on_generate=drawing.update if drawing else None
        )
        if task:
            task[0].done(counts_text(ops_rep.counts))
    raw_rep = chosen = None
    if scenarios > 0:
        hello = ops_rep.hello or implementation_hello(impl_cmd)
        try:
            chosen = chosen_comparison(hello, normalise=normalise)
        except BadArguments as e:
            raise BadArguments(f"--impl {impl_cmd!r}: {e}") from None
        cfg = Config(
            impl=impl_cmd,
            examples=scenarios,
            seed=seed,
            jobs=jobs,
            timeout=60.0,
            out=out / "raw" if out else None,
            modes=("raw",),
            comparison=chosen.comparison,
            known=known,
            shrink_seconds=shrink_seconds,
        )
        tasks = CampaignTasks(progress, "mastra-diff raw", scenarios)
        raw_rep = run_campaign(cfg, *tasks.callbacks())
        tasks.finish(raw_rep.counts)
    return MastraReport(ops_rep, raw_rep, time.perf_counter() - t0, chosen)


# ==== replay ===================================================================================


def replay(path: Path, impl_cmd: str | None = None) -> Any:
    """Re-run a saved op-sequence vector on both sides: its ``Verdict`` now."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict) or data.get("kind") != "mastra-ops-vector" or not isinstance(data.get("ops"), list):
        raise ValueError("$.kind: 'mastra-ops-vector' with an 'ops' array (raw vectors: guardspec vectors check)")
    with Impl(impl_cmd or mastra_command(), timeout=30) as impl:
        impl.start()
        return _judge_wire(data["ops"], impl)


def main(argv: list[str] | None = None) -> int:
    """``python -m guardspec.mastra.diff VECTOR.json``: replay one saved op-sequence vector."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m guardspec.mastra.diff VECTOR.json", file=sys.stderr)
        return 2
    try:
        v = replay(Path(argv[0]))
    except (OSError, KeyError, ValueError) as e:
        print(f"cannot replay {argv[0]}: {e}", file=sys.stderr)
        return 2
    print("agree" if v.status == "agree" else v.line())
    return 0 if v.status == "agree" else 1


if __name__ == "__main__":
    sys.exit(main())
