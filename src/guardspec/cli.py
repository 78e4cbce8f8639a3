"""The ``guardspec`` command line: thin wrappers that decode, call the reference, encode.

Bad input (a malformed scenario or argument) prints ``error: <JSON path>: <what was expected>``
on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.table import Table

from guardspec import traceability as tr
from guardspec.commands import report_cmds
from guardspec.model import codec
from guardspec.model.fast import evolve
from guardspec.model.scenario import Loop, Mode, Scenario
from guardspec.progress import Progress

EXIT_BAD_INPUT = 2


def bad_input(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def read_scenario(path: str, loop: str | None = None) -> Scenario:
    """Load a scenario file; bad input exits 2 with the JSON path and what was expected."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        bad_input(f"{path}: cannot read ({e.strerror})")
    try:
        scenario = codec.load_scenario(text)
    except codec.FormatError as e:
        bad_input(f"{path}: {e.path}: {e.expected}")
    if loop:
        scenario = evolve(scenario, call=evolve(scenario.call, loop=Loop(loop)))
    return scenario


MODE = click.Choice([m.value for m in Mode])
LOOP = click.Choice([l.value for l in Loop])


@click.group()
@click.version_option(package_name="guardspec")
def main() -> None:
    """guardspec: an executable model of the guarded input processor contract."""


@main.command("run")
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--mode", type=MODE, default="guarded", show_default=True)
@click.option("--loop", type=LOOP, default=None, help="Override the scenario's loop.")
def run_cmd(scenario: str, mode: str, loop: str | None) -> None:
    """Run one call and print its observation as JSON."""
    # deferred: the reference is heavy; kept out of `guardspec --help`, which imports this module
    from guardspec.reference import run

    sc = read_scenario(scenario, loop)
    click.echo(json.dumps(codec.observation_to_json(run(sc, Mode(mode))), indent=2, ensure_ascii=False))


@main.command("explain")
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--mode", type=MODE, default="guarded", show_default=True)
@click.option("--loop", type=LOOP, default=None, help="Override the scenario's loop.")
def explain_cmd(scenario: str, mode: str, loop: str | None) -> None:
    """Print a readable trace: the list after each stage, additions, what was read, outcome."""
    # deferred: explain loads the reference and its tracer, heavy; kept out of `guardspec --help`, which imports this module
    from .explain import print_explain

    print_explain(read_scenario(scenario, loop), Mode(mode))


def examples_section(root: Path, console: Console) -> bool:
    """The examples: each expected observation against the reference."""
    # deferred: the examples load the reference, heavy; kept out of `guardspec --help`, which imports this module
    from .examples import check, example_paths, load_example

    table = Table(title=f"examples ({root})")
    for col in ("example", "clauses", "mode", "loop", "agrees"):
        table.add_column(col)
    ok = True
    paths = example_paths(root)
    if not paths:
        console.print(f"[red]no examples under {root}[/red]")
        return False
    for p in paths:
        try:
            ex = load_example(p)
        except codec.FormatError as e:
            table.add_row(p.stem, "", "", "", f"[red]bad input: {e.path}: {e.expected}[/red]")
            ok = False
            continue
        for mode, mismatches in check(ex).items():
            agrees = not mismatches
            ok &= agrees
            table.add_row(
                p.stem,
                " ".join(ex.scenario.clauses),
                mode,
                ex.scenario.call.loop.value,
                "yes" if agrees else "[red]NO: " + "; ".join(mismatches)[:200] + "[/red]",
            )
    console.print(table)
    return ok


# Command modules contributed by later issues, in the order verify and bench report them.
SECTION_MODULES = (
    ("properties", "properties_cmds"),
    ("proofs", "prove_cmds"),
    ("real Mastra", "mastra_cmds"),
    ("conformance", "conformance_cmds"),
    ("report", "report_cmds"),
)


def _module(name: str) -> Any:
    return importlib.import_module(f"guardspec.commands.{name}")


def _sections(hook: str) -> list[tuple[str, Any]]:
    """The modules' ``verify_section`` or ``bench_section`` hooks, in order."""
    return [(title, getattr(_module(m), hook)) for title, m in SECTION_MODULES if hasattr(_module(m), hook)]


@main.command("verify")
@click.option("--examples", "examples_dir", type=click.Path(file_okay=False), default="examples", show_default=True)
@click.option(
    "--report", "report_dir", type=click.Path(file_okay=False), default=None, help="Also write the review report into this folder."
)
def verify_cmd(examples_dir: str, report_dir: str | None) -> None:
    """The main job: every example against the reference, then every other section."""
    console = Console()
    root = Path(examples_dir)
    if not root.is_dir():
        bad_input(f"{examples_dir}: no such folder of examples")
    results = [("examples", examples_section(root, console))]
    for name, section in _sections("verify_section"):
        console.rule(name)
        results.append((name, bool(section(console))))
    summary = Table(title="verify")
    summary.add_column("section")
    summary.add_column("result")
    for name, ok in results:
        summary.add_row(name, "[green]pass[/green]" if ok else "[red]FAIL[/red]")
    console.print(summary)
    if report_dir:
        report_cmds.write_report(report_dir, echo=console.print, extra={"verify": {name: "pass" if ok else "FAIL" for name, ok in results}})
    sys.exit(0 if all(ok for _, ok in results) else 1)


@main.command("bench")
@click.option("--seconds", type=click.FloatRange(min=0.01), default=1.0, show_default=True, help="Time per measurement.")
@click.option("--examples", "examples_dir", type=click.Path(file_okay=False), default="examples", show_default=True)
@click.option(
    "--budget",
    type=click.FloatRange(min=1),
    default=110.0,
    show_default=True,
    help="Seconds the whole bench may take; what does not fit is skipped, saying so.",
)
@click.option("--proofs", is_flag=True, help="Also the proof-growth table: z3 against enumeration as the bound grows.")
@click.option(
    "--proof-timeout", type=click.FloatRange(min=1), default=30.0, show_default=True, help="Seconds per bound of the proof-growth table."
)
def bench_cmd(seconds: float, examples_dir: str, budget: float, proofs: bool, proof_timeout: float) -> None:
    """Interpreter speed and memory, the substrate and the harness, and campaigns against the
    adapters' own busy time, within a time budget."""
    # deferred: the benchmark loads the reference, heavy; kept out of `guardspec --help`, which imports this module
    from .bench import BenchRun, Budget

    run = BenchRun(seconds, Budget(budget), proofs, proof_timeout)
    console = Console()
    # the proof-growth table takes what the budget has left, so it comes last
    sections = sorted(_sections("bench_section"), key=lambda s: s[0] == "proofs")
    with Progress() as progress:
        task = progress.task("bench", total=2 + len(sections))
        _bench(console, run, examples_dir, sections, task)
        task.done()
    console.print(f"bench: {run.budget.spent():.1f} s of a {budget:g} s budget")


def _bench(console: Console, run: Any, examples_dir: str, sections: list, task: Any) -> None:
    # deferred: the benchmark loads the reference and Hypothesis, heavy; kept out of `guardspec --help`, which imports this module
    from .bench import example_scenarios, interpreter_rows, memory_rows

    root = Path(examples_dir)
    examples = example_scenarios(root) if root.is_dir() else []
    table = Table(title="interpreter speed (one core, measured in this run)")
    for col in ("inputs", "mode", "calls/s"):
        table.add_column(col)
    task.update(info="interpreter speed")
    # four measurements and the memory pass: at most a fifth of the budget
    rows = interpreter_rows(examples, min(run.seconds, run.budget.seconds / 25))
    task.advance(info="memory")
    for name, mode, r in rows:
        table.add_row(name, mode, f"{r:,.0f}")
    console.print(table)
    guarded = {n: r for n, m, r in rows if m == "guarded"}
    raw = {n: r for n, m, r in rows if m == "raw"}
    for n in guarded:
        console.print(f"{n}: guarded/raw speed ratio {guarded[n] / raw[n]:.2f}")
    mem = dict(memory_rows())
    task.advance()
    console.print(
        f"memory: median peak of one generated call {mem['guarded']:.0f} KiB guarded, {mem['raw']:.0f} KiB raw "
        f"(guarded/raw {mem['guarded'] / mem['raw']:.2f})"
    )
    for name, section in sections:
        task.update(info=name)
        section(console, run)
        task.advance()


@main.command("clauses")
@click.option("--root", type=click.Path(file_okay=False), default=".", show_default=True)
@click.option("--write", is_flag=True, help="Rewrite the table in README.md in place.")
@click.option("--check", is_flag=True, help="Check spec/SPEC.md against reference/, the tests and the README; exit 1 on a gap.")
def clauses_cmd(root: str, write: bool, check: bool) -> None:
    """Print the clause table: clause → implementation → tests → properties.

    With --check: every clause of spec/SPEC.md has an implementing function (a property for an
    invariant) and a test or property; every public function of reference/ names exactly one
    existing clause first; every clause id the code cites exists; the README's table is current.
    """
    base = Path(root)
    if check:
        found = tr.problems(base)
        for line in found:
            click.echo(line)
        spec = tr.read_spec(base)
        click.echo(f"{len(spec)} clauses in {tr.SPEC}; {len(found)} problem(s)")
        sys.exit(1 if found else 0)
    text = tr.table(base)
    if not write:
        click.echo(text)
        return
    readme = base / "README.md"
    old = readme.read_text()
    if tr.readme_table(old) is None:
        bad_input(f"{readme}: no clause-table markers")
    head, rest = old.split(tr.BEGIN, 1)
    tail = rest.split(tr.END, 1)[1]
    readme.write_text(f"{head}{tr.BEGIN}\n{text}\n{tr.END}{tail}")


for _, _name in SECTION_MODULES:
    for _cmd in _module(_name).COMMANDS:
        main.add_command(_cmd)


if __name__ == "__main__":  # pragma: no cover
    main()
