"""``guardspec mutants`` and ``guardspec explore``: the property machinery from the command line.

Thin wrappers over ``guardspec.properties``: the lead wires ``mutants`` and ``explore`` into the
``guardspec`` group.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

import click
from attrs import evolve
from rich.console import Console
from rich.table import Table

from guardspec.conformance.census import Census
from guardspec.model import codec
from guardspec.model.agent import Memory
from guardspec.progress import Progress


@click.command("mutants")
@click.option("--list", "list_only", is_flag=True, help="Print the mutant names, one a line.")
@click.option("--budget", type=int, default=None, help="Examples a mutant may take to die (default: the profile's).")
@click.option("--only", multiple=True, help="Run only these mutants.")
def mutants(list_only: bool, budget: int | None, only: tuple[str, ...]) -> None:
    """Run every semantic mutant against the properties; exit 0 only when all are killed."""
    # deferred: Hypothesis and the properties are heavy; kept out of `guardspec --help`
    from guardspec.properties import settings as profiles
    from guardspec.properties.mutants import MUTANTS, kill

    if list_only:
        for name in MUTANTS:
            click.echo(name)
        return
    profiles.load()
    names = list(only) or list(MUTANTS)
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        click.echo(f"error: unknown mutant(s) {', '.join(unknown)}", err=True)
        sys.exit(2)
    console = Console()
    table = Table(title="semantic mutants")
    for col in ("mutant", "clause", "killed by", "examples"):
        table.add_column(col)
    survivors = 0
    with Progress() as progress:
        task = progress.task("mutants", total=len(names))
        for name in names:
            task.update(info=name)
            v = kill(name, budget)
            if v.killed_by is None:
                survivors += 1
            table.add_row(v.mutant, v.clause, v.killed_by or "[red]SURVIVED[/red]", str(v.examples))
            task.advance(info=f"{name}: {'killed' if v.killed_by else 'SURVIVED'}")
        task.done(f"{len(names) - survivors} killed")
    console.print(table)
    console.print(f"{len(names) - survivors}/{len(names)} killed")
    sys.exit(1 if survivors else 0)


@click.command("explore")
@click.option("--examples", "n", type=int, default=None, help="Call sequences to generate per strategy.")
@click.option("--seed", type=int, default=None, help="Hypothesis seed (reproducible run).")
@click.option("--profile", type=click.Choice(["dev", "ci", "campaign"]), default=None)
@click.option("--mode", type=click.Choice(["guarded", "raw"]), default="guarded")
@click.option("--save", "save_dir", type=click.Path(file_okay=False), default=".", help="Where to save a failing vector.")
def explore(n: int | None, seed: int | None, profile: str | None, mode: str, save_dir: str) -> None:
    """Generate scenarios and call sequences and check every property on them."""
    # deferred: Hypothesis and the properties are heavy; kept out of `guardspec --help`
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from guardspec.properties import settings as profiles
    from guardspec.properties.harness import run_sequence
    from guardspec.properties.report import describe, save_vector
    from guardspec.properties.strategies import battery, call_sequences

    if profile:
        os.environ["GUARDSPEC_PROFILE"] = profile
    name = profiles.load()
    per = n or settings.default.max_examples
    console = Console()
    runs = battery()
    stats = {"examples": 0, "calls": 0}
    failure: list = []
    t0 = time.perf_counter()
    census = Census()
    with Progress() as progress:
        task = progress.task(f"explore ({name}, {mode})", total=per * len(runs))
        for label, strat in runs:

            @settings(max_examples=per, phases=[Phase.generate], database=None, deadline=None, suppress_health_check=list(HealthCheck))
            @given(call_sequences(strat))
            def body(seq):
                execs, found = run_sequence(seq, mode)
                stats["examples"] += 1
                stats["calls"] += len(execs)
                for e in execs:
                    census.add(codec.scenario_to_json(e.scenario))
                task.advance(info=f"{label}: {stats['calls']} calls")  # noqa: B023 (body runs within this iteration)
                if found:
                    if not failure:
                        failure.append((seq, execs, found))
                    raise _Found()

            if seed is not None:
                body = hseed(seed)(body)
            try:
                body()
            except _Found:
                pass
            if failure:
                break
        task.done(f"{stats['examples']} sequences, {stats['calls']} calls")
    dt = time.perf_counter() - t0
    summary = Table(title="explore")
    summary.add_column("figure")
    summary.add_column("value")
    summary.add_row("profile", name)
    summary.add_row("examples", str(stats["examples"]))
    summary.add_row("calls", str(stats["calls"]))
    summary.add_row("examples/s", f"{stats['examples'] / dt:.0f}")
    summary.add_row("calls/s", f"{stats['calls'] / dt:.0f}")
    console.print(summary)
    console.print(census.table("shape census of the calls' scenarios"))
    if failure:
        _seq, execs, found = failure[0]
        console.print(describe(execs[-1], found), markup=False, highlight=False)
        path = save_vector(Path(save_dir) / "counterexample.json", [e.scenario for e in execs], mode, found)
        console.print(f"saved {path}")
        sys.exit(1)


class _Found(Exception):
    """A property failed (carried out of Hypothesis, which replays it once)."""


def verify_section(console: Console) -> bool:
    """``guardspec verify``: the properties on generated call sequences in guarded mode (no
    violation), the violations I12 predicts in raw mode (all found), and the mutant table
    (every mutant killed), all under the ``ci`` profile's budget."""
    # deferred: Hypothesis and the properties are heavy; kept out of `guardspec --help`
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from guardspec.properties import invariants as inv
    from guardspec.properties import settings as profiles
    from guardspec.properties.harness import check_call, execute, raw_tally, run_sequence
    from guardspec.properties.machines import moves_text_out_of_input
    from guardspec.properties.mutants import MUTANTS, kill
    from guardspec.properties.strategies import RAW_I12, battery, call_sequences, scenarios

    profiles.load()
    quiet = dict(phases=[Phase.generate], database=None, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    table = Table(title="properties (guarded mode, every loop)")
    for col in ("strategy", "sequences", "calls", "violations"):
        table.add_column(col)
    ok = True

    def sample(strat):
        stats = {"seq": 0, "calls": 0}
        bad: list[str] = []

        @settings(max_examples=60, **quiet)
        @given(call_sequences(strat))
        def body(seq):
            execs, found = run_sequence(seq, "guarded")
            stats["seq"] += 1
            stats["calls"] += len(execs)
            bad.extend(sorted(found))

        body()
        return stats, bad

    for label, strat in battery():
        stats, bad = sample(strat)
        ok &= not bad
        table.add_row(label, str(stats["seq"]), str(stats["calls"]), ", ".join(sorted(set(bad))) or "none")
    console.print(table)

    raw: Counter = Counter()
    guarded: Counter = Counter()

    @settings(max_examples=200, **quiet)
    @given(scenarios(st.just(RAW_I12)))
    def hunt(sc):
        moved = moves_text_out_of_input(sc.agent)
        r = execute(sc, "raw")
        raw.update(raw_tally(r, check_call(r), moved))
        g = execute(evolve(sc, agent=evolve(sc.agent, memory=Memory())), "guarded")
        guarded.update(raw_tally(g, check_call(g), moved))

    hunt()
    missing = inv.raw_mode_shows_predicted_violations(raw) + inv.guarded_mode_shows_none(guarded)
    ok &= not missing
    console.print(
        f"I12: raw mode shows I1 on durable {raw['I1@durable']}x, I2 on durable {raw['I2@durable']}x, "
        f"I4 on moved text {raw['I4@moved']}x; guarded mode {sum(guarded.values())}x"
        + (f" [red]{'; '.join(missing)}[/red]" if missing else "")
    )

    mt = Table(title="semantic mutants")
    for col in ("mutant", "clause", "killed by", "examples"):
        mt.add_column(col)
    for name in MUTANTS:
        v = kill(name)
        ok &= v.killed_by is not None
        mt.add_row(v.mutant, v.clause, v.killed_by or "[red]SURVIVED[/red]", str(v.examples))
    console.print(mt)
    return ok


COMMANDS = [mutants, explore]
