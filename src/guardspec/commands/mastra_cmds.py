"""Commands that put real Mastra in the loop (docs/protocol.md, src/guardspec/mastra_diff.py).

``COMMANDS`` are added to the ``guardspec`` group by cli.py; ``verify_section`` and
``bench_section`` are its hooks for ``guardspec verify`` / ``guardspec bench``.
Exit codes: 0 all agree, 1 a disagreement (or the adapter failed), 2 bad arguments or input.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from guardspec.commands.conformance_cmds import print_report as print_raw
from guardspec.commands.conformance_cmds import report_json as raw_json
from guardspec.conformance.settings import BadArguments
from guardspec.mastra.client import adapter_available
from guardspec.progress import Progress


def _adapter_or_exit() -> None:
    if not adapter_available():
        click.echo("real Mastra is not available: need node and `npm ci` in adapters/mastra", err=True)
        sys.exit(2)


@click.command("mastra-diff")
@click.option("--ops", "ops", type=click.IntRange(min=0), default=2000, show_default=True, help="MessageList op sequences.")
@click.option(
    "--scenarios", type=click.IntRange(min=0), default=300, show_default=True, help="Raw scenarios (the diff generators, three loops)."
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=1, show_default=True, help="Adapter processes for the raw scenarios.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Results (ops/ and raw/: results.jsonl) and shrunk vectors go here.",
)
@click.option(
    "--shrink-seconds", type=click.FloatRange(min=0), default=60.0, show_default=True, help="Time for shrinking one disagreement."
)
@click.option(
    "--normalise",
    type=click.Choice(["ids", "mastra", "none"]),
    default=None,
    help="The raw scenarios' renaming of values Mastra chooses (default: what the adapter declares, mastra).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def mastra_diff_cmd(
    ops: int, scenarios: int, seed: int, jobs: int, out_dir: str | None, shrink_seconds: float, normalise: str | None, as_json: bool
) -> None:
    """The model against real Mastra: op sequences, and raw scenarios through the diff harness."""
    # deferred: the Mastra campaign loads the reference and Hypothesis, heavy; kept out of `guardspec --help`
    from guardspec.mastra.diff import run_diff

    _adapter_or_exit()
    try:
        with Progress() as progress:
            report = run_diff(
                ops=ops,
                scenarios=scenarios,
                seed=seed,
                out=Path(out_dir) if out_dir else None,
                jobs=jobs,
                progress=progress,
                shrink_seconds=shrink_seconds,
                normalise=normalise,
            )
    except BadArguments as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    else:
        print_report(report, Console())
    sys.exit(0 if report.ok else 1)


def report_json(report: Any) -> dict:
    o = report.ops
    return {
        "ops": {
            "cases": o.cases,
            "counts": o.counts,
            "seconds": round(o.seconds, 2),
            "found": [
                {"signature": f.signature, "count": f.count, "first": f.line, "vector": f.vector, "ops": f.messages, "tried": f.tried}
                for f in o.found.values()
            ],
            "incidents": [{"kind": i.kind, "detail": i.detail} for i in o.incidents[:50]],
            "census": o.census.to_json() if o.census else None,
        },
        "raw": {**raw_json(report.raw), "comparison": report.comparison.to_json()} if report.raw else None,
        "seconds": round(report.seconds, 2),
    }


def print_report(report: Any, console: Any) -> None:
    o = report.ops
    console.print(
        f"op sequences: {o.cases} cases, {' '.join(f'{k} {v}' for k, v in sorted(o.counts.items())) or 'none'}, {o.seconds:.1f} s",
        markup=False,
        highlight=False,
    )
    if o.found:
        t = Table(title="op-sequence disagreements and problems (each shrunk)")
        for c in ("signature", "cases", "first difference", "shrunk to", "vector"):
            t.add_column(c, overflow="fold")
        for f in o.found.values():
            t.add_row(f.signature, str(f.count), f.line, f"{f.messages} ops" if f.messages is not None else "-", f.vector or "-")
        console.print(t)
    for i in o.incidents[:10]:
        console.print(f"  adapter {i.kind}: {i.detail}", markup=False, highlight=False)
    if report.raw is not None:
        if report.comparison is not None:
            console.print(f"raw scenarios' {report.comparison.line()}", markup=False, highlight=False)
        console.print("raw scenarios: ", end="")
        print_raw(report.raw, console, census=False)
    if o.census is not None and o.cases:
        console.print(o.census.table("shape census of the op sequences"))
    if report.raw is not None and report.raw.census is not None:
        console.print(report.raw.census.table("shape census of the raw scenarios"))
    console.print(
        f"mastra-diff: {'no disagreement' if report.ok else 'DISAGREEMENTS'}, {report.seconds:.1f} s", markup=False, highlight=False
    )


@click.command("mastra-replay")
@click.argument("vector", type=click.Path(dir_okay=False))
def mastra_replay_cmd(vector: str) -> None:
    """Re-run one saved op-sequence vector (mastra-diff's ops/vectors/*.json) on both sides."""
    # deferred: the Mastra campaign loads the reference and Hypothesis, heavy; kept out of `guardspec --help`
    from guardspec.mastra.diff import main

    if not Path(vector).is_file():
        click.echo(f"{vector}: no such file", err=True)
        sys.exit(2)
    _adapter_or_exit()
    sys.exit(main([vector]))


@click.command("mastra-bench")
@click.option("--ops", type=click.IntRange(min=1), default=300, show_default=True)
@click.option("--scenarios", type=click.IntRange(min=1), default=40, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
def mastra_bench_cmd(ops: int, scenarios: int, seed: int) -> None:
    """Speed of the model vs real Mastra on the same inputs, in this run."""
    # deferred: the Mastra campaign loads the reference and Hypothesis, heavy; kept out of `guardspec --help`
    from guardspec.mastra.bench import bench_mastra

    _adapter_or_exit()
    click.echo(json.dumps(bench_mastra(ops, scenarios, seed), indent=2))


COMMANDS = (mastra_diff_cmd, mastra_replay_cmd, mastra_bench_cmd)


def verify_section(console: Any) -> bool:
    """``guardspec verify``: a short differential run (skipped when Node/Mastra are absent)."""
    # deferred: the Mastra campaign loads the reference and Hypothesis, heavy; kept out of `guardspec --help`
    from guardspec.mastra.diff import run_diff

    if not adapter_available():
        console.print("real Mastra not available (node, npm ci in adapters/mastra): skipped")
        return True
    with Progress() as progress:
        report = run_diff(ops=300, scenarios=45, seed=0, progress=progress)
    print_report(report, console)
    return report.ok


def bench_section(console: Any, run: Any) -> None:
    """For ``guardspec bench``: the model against real Mastra on the same inputs, in one run; then
    short campaigns against the adapters beside the adapters' own busy time."""
    if not adapter_available():
        why = "Node is not on PATH" if shutil.which("node") is None else "adapters/mastra has no @mastra/core (npm ci there: make setup)"
        console.print(f"real Mastra and the campaigns against the adapters: skipped: {why}")
        return
    if not run.fits(10):
        console.print(f"real Mastra: skipped: {run.budget.left():.0f} s of the budget left, the substrate table needs about 10 s")
    else:
        _substrate_table(console, run.seconds)
    campaign_section(console, run)


def _substrate_table(console: Any, seconds: float) -> None:
    # deferred: the Mastra campaign loads the reference and Hypothesis, heavy; kept out of `guardspec --help`
    from guardspec.mastra.bench import bench_mastra

    n = max(50, int(200 * seconds))
    f = bench_mastra(ops=n, scenarios=max(10, n // 10))
    t = Table(title="model against real Mastra (same inputs, same run)")
    for col in ("what", "model /s", "real Mastra /s", "ratio model/Mastra"):
        t.add_column(col)
    t.add_row(
        f"op sequences ({f['op_sequences']}), Node in process",
        f"{f['ops_per_s_python']:,.0f}",
        f"{f['ops_per_s_node_in_process']:,.0f}",
        f"{f['ops_per_s_python'] / f['ops_per_s_node_in_process']:.2f}",
    )
    t.add_row(
        "op sequences, Node over the pipe",
        f"{f['ops_per_s_python']:,.0f}",
        f"{f['ops_per_s_node_over_pipe']:,.0f}",
        f"{f['ops_per_s_python'] / f['ops_per_s_node_over_pipe']:.2f}",
    )
    t.add_row(
        f"raw scenarios ({f['raw_scenarios']}), interpreter vs Agent.generate",
        f"{f['raw_per_s_interpreter']:,.0f}",
        f"{f['raw_per_s_mastra_generate']:,.0f}",
        f"{f['raw_per_s_interpreter'] / f['raw_per_s_mastra_generate']:.0f}x",
    )
    t.add_row(
        "raw scenarios, with the JSON round trip",
        f"{f['raw_per_s_python']:,.0f}",
        f"{f['raw_per_s_mastra_generate']:,.0f}",
        f"{f['raw_per_s_python'] / f['raw_per_s_mastra_generate']:.0f}x",
    )
    console.print(t)


def _campaign_targets() -> list[tuple[str, list[str], str, str | None]]:
    """(label, command, mode, why not measured) for the Mastra adapter and, when
    ``BREAKWATER_MODULE`` names a build, the Breakwater adapter."""
    # deferred: the Mastra tools load the reference, heavy; kept out of `guardspec --help`
    from guardspec.mastra.client import default_command, repo_root

    targets = [("real Mastra (raw)", default_command(), "raw", None)]
    module = os.environ.get("BREAKWATER_MODULE")
    bw = [default_command()[0], str(repo_root() / "adapters" / "breakwater" / "server.mjs")]
    if not module:
        targets.append(("Breakwater (guarded)", bw, "guarded", "BREAKWATER_MODULE names no build"))
    elif not Path(module).is_file():
        targets.append(("Breakwater (guarded)", bw, "guarded", f"BREAKWATER_MODULE={module}: no such file"))
    else:
        targets.append(("Breakwater (guarded)", bw, "guarded", None))
    return targets


def campaign_section(console: Any, run: Any) -> None:
    """Cases/s of a short campaign on each adapter, against the busy time the adapter itself
    reports (``busyMs``): how much of a campaign's wall time is the implementation's own."""
    # deferred: the Mastra campaign loads the reference and Hypothesis, heavy; kept out of `guardspec --help`
    from guardspec.conformance.impl import StartFailed
    from guardspec.conformance.settings import BadArguments
    from guardspec.mastra.bench import campaign_busy

    t = Table(title="campaigns against the adapters' own busy time (one process each, same run)")
    for col in ("implementation", "cases", "cases/s", "campaign wall s", "adapter busy s", "busy / wall", "normalise"):
        t.add_column(col)
    notes = []
    for label, cmd, mode, why in _campaign_targets():
        if why is None and not run.fits(8):
            why = f"{run.budget.left():.0f} s of the budget left"
        if why is not None:
            notes.append(f"{label}: not measured: {why}")
            continue
        seconds = min(max(5.0, 10 * run.seconds), run.budget.left() / 4)
        try:
            f = campaign_busy(cmd, mode, seconds)
        except (StartFailed, BadArguments) as e:
            notes.append(f"{label}: not measured: it did not start: {e}")
            continue
        t.add_row(
            f"{f['implementation']} ({mode})",
            f"{f['cases']} ({' '.join(f'{k} {v}' for k, v in sorted(f['counts'].items()))})",
            f"{f['cases_per_s']:,.1f}",
            f"{f['seconds']:.2f}",
            f"{f['busy_seconds']:.2f}",
            f"{f['busy_over_wall']:.2f}",
            f["normalise"],
        )
    if t.row_count:
        console.print(t)
        console.print(
            "busy / wall: the adapter's own time (its replies' busyMs, summed) over the campaign's wall time; the rest is the model, judging and the pipe"
        )
    for n in notes:
        console.print(n, markup=False, highlight=False)
