"""Commands that put real Mastra in the loop (docs/protocol.md, src/guardspec/mastra_diff.py).

``COMMANDS`` are added to the ``guardspec`` group by cli.py; ``verify_section`` and
``bench_section`` are its hooks for ``guardspec verify`` / ``guardspec bench``.
Exit codes: 0 all agree, 1 a disagreement (or the adapter failed), 2 bad arguments or input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click


def _adapter_or_exit() -> None:
    from guardspec.mastra_client import adapter_available

    if not adapter_available():
        click.echo("real Mastra is not available: need node and `npm ci` in adapters/mastra", err=True)
        sys.exit(2)


@click.command("mastra-diff")
@click.option("--ops", "ops", type=click.IntRange(min=0), default=2000, show_default=True, help="MessageList op sequences.")
@click.option("--scenarios", type=click.IntRange(min=0), default=200, show_default=True, help="Raw scenarios (three loops).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="vectors/mastra", show_default=True, help="Where disagreement vectors go.")
@click.option("--no-save", is_flag=True, help="Do not write vectors.")
@click.option("--loop", "loops", multiple=True, type=click.Choice(["generate", "stream", "durable"]), help="Restrict raw scenarios to these loops.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def mastra_diff_cmd(ops: int, scenarios: int, seed: int, out_dir: str, no_save: bool, loops: tuple[str, ...], as_json: bool) -> None:
    """The model against real Mastra: op sequences and raw scenarios, field by field."""
    from guardspec.mastra_diff import run_diff
    from guardspec.model.scenario import Loop

    _adapter_or_exit()
    loop_t = tuple(Loop(x) for x in loops) or (Loop.GENERATE, Loop.STREAM, Loop.DURABLE)
    report = run_diff(ops=ops, scenarios=scenarios, seed=seed, out_dir=None if no_save else Path(out_dir), loops=loop_t)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "ops": report.ops_run,
                    "raw": report.raw_run,
                    "rawByLoop": report.raw_by_loop,
                    "seconds": round(report.seconds, 2),
                    "adapterErrors": report.errored,
                    "disagreements": [{"signature": d.signature, "vector": d.path, "differences": d.differences} for d in report.disagreements],
                },
                indent=2,
            )
        )
    else:
        click.echo(report.summary())
    sys.exit(0 if report.ok and not report.errored else 1)


@click.command("mastra-replay")
@click.argument("vector", type=click.Path(dir_okay=False))
def mastra_replay_cmd(vector: str) -> None:
    """Re-run one saved vector (vectors/mastra/*.json) on both sides."""
    from guardspec.mastra_diff import main

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
    from guardspec.mastra_diff import bench_mastra

    _adapter_or_exit()
    click.echo(json.dumps(bench_mastra(ops, scenarios, seed), indent=2))


COMMANDS = (mastra_diff_cmd, mastra_replay_cmd, mastra_bench_cmd)


def verify_section(console: Any) -> bool:
    """``guardspec verify``: a short differential run (skipped when Node/Mastra are absent)."""
    from guardspec.mastra_client import adapter_available
    from guardspec.mastra_diff import run_diff

    if not adapter_available():
        console.print("real Mastra not available (node, npm ci in adapters/mastra): skipped")
        return True
    report = run_diff(ops=300, scenarios=45, seed=0, out_dir=None)
    console.print(report.summary())
    return report.ok and not report.errored


def bench_section(console: Any, seconds: float) -> None:
    """For ``guardspec bench``: the model against real Mastra on the same inputs, in one run."""
    from rich.table import Table

    from guardspec.mastra_client import adapter_available
    from guardspec.mastra_diff import bench_mastra

    if not adapter_available():
        console.print("real Mastra: the adapter is not installed (make setup)")
        return
    n = max(50, int(200 * seconds))
    f = bench_mastra(ops=n, scenarios=max(10, n // 10))
    t = Table(title="model against real Mastra (same inputs, same run)")
    for col in ("what", "model /s", "real Mastra /s", "ratio model/Mastra"):
        t.add_column(col)
    t.add_row(f"op sequences ({f['op_sequences']}), Node in process", f"{f['ops_per_s_python']:,.0f}", f"{f['ops_per_s_node_in_process']:,.0f}", f"{f['ops_per_s_python'] / f['ops_per_s_node_in_process']:.2f}")
    t.add_row("op sequences, Node over the pipe", f"{f['ops_per_s_python']:,.0f}", f"{f['ops_per_s_node_over_pipe']:,.0f}", f"{f['ops_per_s_python'] / f['ops_per_s_node_over_pipe']:.2f}")
    t.add_row(f"raw scenarios ({f['raw_scenarios']}), interpreter vs Agent.generate", f"{f['raw_per_s_interpreter']:,.0f}", f"{f['raw_per_s_mastra_generate']:,.0f}", f"{f['raw_per_s_interpreter'] / f['raw_per_s_mastra_generate']:.0f}x")
    t.add_row("raw scenarios, with the JSON round trip", f"{f['raw_per_s_python']:,.0f}", f"{f['raw_per_s_mastra_generate']:,.0f}", f"{f['raw_per_s_python'] / f['raw_per_s_mastra_generate']:.0f}x")
    console.print(t)