"""``guardspec prove``: I1-I10 on a bounded scope with z3 (properties/symbolic).

Thin: parse the bound, call ``properties.symbolic.prove``, print. Every verdict is one of
proven / counterexample / unknown (a timeout is never proven) with the time z3 took; a
counterexample is shrunk, decoded into a scenario and replayed through the interpreter, and
the violation the interpreter shows is printed with it. Exit 0 only when every invariant asked
for is proven; 1 otherwise; 2 on bad input.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from guardspec.progress import Progress
from guardspec.properties.symbolic.claims import CLAIMS
from guardspec.properties.symbolic.exhaustive import ENUMERABLE, PROVED, bench_proofs, enumerate_scope, verdicts_agree
from guardspec.properties.symbolic.prove import (
    COUNTEREXAMPLE,
    PROVEN,
    Verdict,
    assumptions_satisfiable,
    refute_mutant,
)
from guardspec.properties.symbolic.prove import (
    prove as prove_scope,
)
from guardspec.properties.symbolic.sample import count_choices
from guardspec.properties.symbolic.scope import Scope
from guardspec.properties.symbolic.switches import MUTANT_SWITCHES, OUT_OF_SCOPE, SURVIVORS

I12_EXPECTED = ("I1", "I2", "I4")


def _bad(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def describe(v: Verdict) -> str:
    """A counterexample as a person reads it: the call, then what the interpreter showed."""
    sc = v.scenario
    lines = [f"  {v.name} counterexample ({v.mode}): {sc.name}"]
    call = sc.call
    lines.append(
        f"    loop {call.loop.value}, actor role {call.actor.role}, title generation {'on' if sc.agent.memory.generate_title else 'off'}, mapping {'on' if sc.agent.client_tools[0].mapping else 'off'}"
    )
    lines.append(f"    stored: {[(m.id, m.role.value, m.text() or '-') for m in sc.threads.threads[0].messages]}")
    lines.append(f"    caller: {[(m.id, m.role.value, m.text() or 'tool outcome') for m in call.messages]}")
    if call.context:
        lines.append(f"    context: {[(m.id, m.text()) for m in call.context]}")
    for p in sc.agent.processors:
        lines.append(f"    processor {p.id}: steps {list(p.steps)} end {p.end}")
    if v.replay:
        lines.append("    interpreter replay: " + v.replay[0])
    else:
        lines.append("    interpreter replay: NO VIOLATION (the encoding and the interpreter disagree)")
    return "\n".join(lines)


def _verdict_table(verdicts: list[Verdict], title: str) -> Table:
    t = Table(title=title)
    for col in ("invariant", "verdict", "z3 s", "premise sat", "clauses", "replayed"):
        t.add_column(col)
    for v in verdicts:
        colour = {"proven": "green", "counterexample": "red", "unknown": "yellow"}.get(v.status, "dim")
        replayed = "" if v.status != COUNTEREXAMPLE else ("yes" if v.replayed else "[red]NO[/red]")
        t.add_row(v.name, f"[{colour}]{v.status}[/{colour}]", f"{v.seconds:.3f}", v.premise, " ".join(CLAIMS[v.name].clauses), replayed)
    return t


@click.command("prove")
@click.option("--messages", "n", type=click.IntRange(1, 12), default=5, show_default=True, help="Message slots.")
@click.option("--processors", "k", type=click.IntRange(0, 6), default=3, show_default=True, help="Application processors.")
@click.option("--ops", "j", type=click.IntRange(0, 6), default=3, show_default=True, help="Steps per processor (then one ending).")
@click.option("--timeout", type=click.FloatRange(0.1, 3600), default=60.0, show_default=True, help="Seconds per invariant.")
@click.option("--mode", type=click.Choice(["guarded", "raw"]), default="guarded", show_default=True)
@click.option("--invariant", "names", multiple=True, help="Only these (I1..I10); repeatable.")
@click.option(
    "--call-context/--no-call-context", default=True, show_default=True, help="Let a slot start as a context message the caller passes."
)
@click.option(
    "--mutants", is_flag=True, help="Also refute each semantic mutant (properties/mutants.py) with z3, replayed under the mutant."
)
@click.option("--enumerate", "enum", is_flag=True, help="Also enumerate the same scope through the interpreter (small bounds only).")
def prove(n: int, k: int, j: int, timeout: float, mode: str, names: tuple[str, ...], call_context: bool, mutants: bool, enum: bool) -> None:
    """Prove I1-I10 on a bounded scope with z3; replay every counterexample."""
    for name in names:
        if name not in CLAIMS:
            _bad(f"--invariant {name}: expected one of {', '.join(CLAIMS)}")
    scope = Scope(n, k, j, call_context)
    console = Console()
    asked = list(names) or list(CLAIMS)
    start = time.perf_counter()
    sat = assumptions_satisfiable(scope, mode)
    console.print(f"scope: {scope} (about {count_choices(scope):.1e} calls); mode {mode}; assumptions alone: {sat}")
    verdicts = []
    with Progress() as progress:
        task = progress.task(f"prove ({mode})", total=len(asked))
        for name in asked:  # one claim at a time, so that a larger bound shows where it is
            task.update(info=name)
            verdicts += prove_scope(scope, mode, [name], timeout)
            task.advance(info=f"{name}: {verdicts[-1].status}")
        task.done()
    console.print(_verdict_table(verdicts, f"guardspec prove ({mode})"))
    own = {c for v in verdicts for c in CLAIMS[v.name].clauses}
    console.print("the encoding relies on: " + " ".join(c for c in dict.fromkeys(x for v in verdicts for x in v.clauses) if c not in own))
    for v in verdicts:
        if v.status == COUNTEREXAMPLE:
            console.print(describe(v), markup=False, highlight=False)
    console.print(f"z3 time {sum(v.seconds for v in verdicts):.2f}s, wall {time.perf_counter() - start:.2f}s")
    if mode == "raw":
        found = [x.name for x in verdicts if x.name in I12_EXPECTED and x.replayed]
        expected = [x for x in I12_EXPECTED if x in asked]
        ok = found == expected
        console.print(
            f"I12: raw counterexamples found and replayed for {', '.join(found) or 'none'}"
            + (" (as I12 expects)" if ok else f"; expected {', '.join(expected)}")
        )
    if mutants:
        _mutant_table(console, scope, timeout)
    if enum:
        _enumeration(console, scope, mode)
    sys.exit(0 if sat == "sat" and all(v.status == PROVEN for v in verdicts) else 1)


def _mutant_table(console: Console, scope: Scope, timeout: float) -> None:
    # deferred: the mutants load the properties (Hypothesis), heavy; kept out of `guardspec --help`
    from guardspec.properties.mutants import MUTANTS

    t = Table(title="semantic mutants (guarded)")
    for col in ("mutant", "clause", "refuted by", "replayed under the mutant", "s"):
        t.add_column(col)
    with Progress() as progress:
        task = progress.task("prove mutants", total=len(MUTANTS))
        for name, m in MUTANTS.items():
            task.update(info=name)
            _mutant_row(t, name, m, scope, timeout)
            task.advance()
        task.done()
    console.print(t)


def _mutant_row(t: Table, name: str, m: Any, scope: Scope, timeout: float) -> None:
    if name in OUT_OF_SCOPE:
        t.add_row(name, m.clause, "[dim]outside the scope[/dim]", OUT_OF_SCOPE[name], "")
        return
    if name not in MUTANT_SWITCHES:
        t.add_row(name, m.clause, "[yellow]not encoded[/yellow]", "", "")
        return
    start = time.perf_counter()
    try:
        v = refute_mutant(name, scope, timeout)
    except Exception as e:  # a mutant whose patch no longer fits the reference
        t.add_row(name, m.clause, "[red]mutant cannot run[/red]", f"{type(e).__name__}: {e}"[:120], "")
        return
    took = f"{time.perf_counter() - start:.2f}"
    if v is None:
        t.add_row(name, m.clause, "[yellow]survives the scope[/yellow]", SURVIVORS.get(name, ""), took)
    elif v.replayed:
        t.add_row(name, m.clause, v.name, v.under_mutant[0][:120], took)
    else:
        t.add_row(name, m.clause, v.name, f"[red]NOT replayed[/red] (under mutant {len(v.under_mutant)}, without {len(v.without)})", took)


def _enumeration(console: Console, scope: Scope, mode: str) -> None:
    calls = count_choices(scope)
    if calls > 200_000:
        console.print(f"enumeration: {calls:.2e} calls is too many to enumerate (use a smaller bound)")
        return
    en = enumerate_scope(scope, mode)
    z3_s = sum(v.seconds for v in prove_scope(scope, mode, list(en.violations), replay_counterexamples=False))
    console.print(
        f"enumeration: {en.calls} calls through the interpreter in {en.seconds:.2f}s (z3 {z3_s:.2f}s); violations {en.violations}"
    )
    if en.disagreements:
        console.print(f"[red]{len(en.disagreements)} call(s) where the encoding and the interpreter disagree[/red]")
    for line in verdicts_agree(en):
        console.print(f"[red]{line}[/red]")


def _proof_growth_worker(conn: Any, tasks: list[tuple[str, Scope]]) -> None:
    """In a child process: each task's figure, sent as it is done: ``prove``, z3's seconds for
    I1-I10 at the bound (``bench_proofs``'s proof row, without its count of calls, which is
    itself slow at the larger bounds); ``enumerate``, ``bench_proofs``'s enumeration row."""
    conn.send(("ready", None))
    for kind, sc in tasks:
        if kind == "prove":
            conn.send(("row", sum(v.seconds for v in prove_scope(sc, "guarded", replay_counterexamples=False))))
        else:
            label, _, enum_s = bench_proofs(enumerate_bounds=[sc], proof_bounds=[])[0]
            conn.send(("row", (label, enum_s)))


def _run_tasks(tasks: list[tuple[str, Scope]], timeout: float, budget: Any) -> list[Any]:
    """Each task's figure, or a string saying why there is none (timed out, budget spent, the
    worker exited), in order. One child process runs the tasks; a task past ``timeout`` (or past
    the budget) is stopped by killing it, and a new child goes on with the next."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: the parent's threads do not follow it
    out: list[Any] = []
    while len(out) < len(tasks) and budget.left() >= 1:
        todo = tasks[len(out) :]
        parent, child = ctx.Pipe(duplex=False)
        worker = ctx.Process(target=_proof_growth_worker, args=(child, todo), daemon=True)
        worker.start()
        child.close()
        try:
            if not parent.poll(budget.left()):
                break
            try:
                parent.recv()  # ready: imports done, so a task's clock starts with the task
            except EOFError:
                out += ["the worker did not start"] * len(todo)
                break
            for _ in todo:
                allowed = min(timeout, budget.left())
                if not parent.poll(allowed):
                    out.append(f"{'timed out' if allowed >= timeout else 'budget spent'} after {allowed:.0f} s")
                    break
                try:
                    out.append(parent.recv()[1])
                except EOFError:  # the worker died (out of memory, say): this task has no figure
                    out.append("the worker exited")
                    break
        finally:
            worker.kill()
            worker.join()
            parent.close()
    return out + ["not run (budget spent)"] * (len(tasks) - len(out))


def proof_growth(
    timeout: float, budget: Any, enumerable: tuple[Scope, ...] = ENUMERABLE, proved: tuple[Scope, ...] = PROVED
) -> list[tuple[str, str, str, str]]:
    """The proof-growth rows (bound, z3 s, enumeration s, enumeration / z3): z3 at every bound
    first, smallest first, then the enumerations of the small bounds; each in a child process
    stopped after ``timeout`` seconds or when the ``budget`` runs out, and shown as such. An
    enumeration stopped at T seconds still bounds the ratio: more than T / z3."""
    bounds = list(enumerable) + list(proved)
    tasks = [("prove", sc) for sc in bounds] + [("enumerate", sc) for sc in enumerable]
    got = _run_tasks(tasks, timeout, budget)
    z3 = dict(zip(bounds, got[: len(bounds)]))
    enum = dict(zip(enumerable, got[len(bounds) :]))
    rows = []
    for sc in bounds:
        label, z3_s, e = str(sc), z3[sc], enum.get(sc)
        z3_cell = f"{z3_s:.2f}" if isinstance(z3_s, float) else f"[yellow]{z3_s}[/yellow]"
        if isinstance(e, tuple):
            label, enum_s = e
            enum_cell = f"{enum_s:.2f}"
            ratio = f"{enum_s / max(z3_s, 1e-3):,.0f}x" if isinstance(z3_s, float) else "—"
        elif e is None:
            enum_cell, ratio = "—", "—"  # too large to enumerate
        else:
            enum_cell, ratio = f"[yellow]{e}[/yellow]", "—"
            stopped_at = timeout if e.startswith("timed out") else None
            if stopped_at and isinstance(z3_s, float):
                ratio = f"> {stopped_at / max(z3_s, 1e-3):,.0f}x"
        rows.append((label, z3_cell, enum_cell, ratio))
    return rows


def bench_section(console: Console, run: Any) -> None:
    """For ``guardspec bench --proofs``: z3 proof time against exhaustive enumeration time per
    bound, each bound with a timeout, within what is left of the budget."""
    if not run.proofs:
        console.print("bounded proofs: the proof-growth table is not asked for (guardspec bench --proofs)")
        return
    t = Table(
        title=f"bounded proofs: z3 time as the bound grows, against exhaustive enumeration (guarded; {run.proof_timeout:g} s per bound)"
    )
    for col in ("bound", "z3 s", "enumeration s", "enumeration / z3"):
        t.add_column(col)
    for row in proof_growth(run.proof_timeout, run.budget):
        t.add_row(*row)
    console.print(t)


def verify_section(console: Console) -> bool:
    """``guardspec verify``: I1-I10 proven in guarded mode at the default bound, and the raw
    counterexamples I12 predicts (I1, I2, I4) found and replayed through the interpreter."""
    scope = Scope(5, 3, 3, True)
    ok = assumptions_satisfiable(scope, "guarded") == "sat"
    guarded = prove_scope(scope, "guarded", list(CLAIMS), 60.0)
    console.print(_verdict_table(guarded, f"bounded proofs, guarded ({scope})"))
    ok &= all(v.status == PROVEN for v in guarded)
    raw = prove_scope(scope, "raw", list(I12_EXPECTED), 60.0)
    console.print(_verdict_table(raw, "raw mode: the counterexamples I12 predicts"))
    ok &= all(v.status == COUNTEREXAMPLE and v.replayed for v in raw)
    return ok


COMMANDS = [prove]

__all__ = ["COMMANDS", "bench_proofs", "bench_section", "describe", "proof_growth", "prove", "verify_section"]
