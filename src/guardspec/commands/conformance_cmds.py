"""Differential conformance of other implementations (docs/protocol.md; src/guardspec/conformance/).

``serve``: the reference as a protocol-1 implementation (optionally with one semantic mutant);
``diff``: a differential campaign of an implementation against the model; ``vectors check`` /
``vectors generate``: the conformance vectors. ``verify_section`` / ``bench_section`` are
cli.py's hooks. Exit codes: 0 all agree, 1 a disagreement or a problem, 2 bad arguments.

Until cli.py registers this module, ``python -m guardspec.commands.conformance_cmds`` is the
same commands under their own group.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from guardspec.conformance.compare import Comparison
from guardspec.conformance.impl import Impl, StartFailed
from guardspec.conformance.settings import BadArguments, Config, build_label, chosen_comparison, implementation_hello
from guardspec.mastra.client import repo_root
from guardspec.progress import CampaignTasks, Progress

EXIT_BAD = 2
DEFAULT_VECTORS = "vectors/conformance"


def _bad(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_BAD)


def _user_comparison(compare: tuple[str, ...], normalise: str | None, compare_file: str | None) -> tuple:
    """What the user says about the comparison (``--compare-file``, ``--compare``,
    ``--normalise``), checked before any implementation is started."""
    user_file = None
    if compare_file:
        try:
            user_file = json.loads(Path(compare_file).read_text())
        except OSError as e:
            _bad(f"{compare_file}: cannot read ({e.strerror})")
        except ValueError as e:
            _bad(f"{compare_file}: $: valid JSON ({e})")
    fields: dict[str, str] = {}
    for c in compare:
        if "=" not in c:
            _bad(f"--compare {c!r}: expected FIELD=MODE (e.g. list=ids, read=ignore)")
        f, m = c.split("=", 1)
        fields[f.strip()] = m.strip()
    try:
        chosen_comparison(None, user_file, fields, normalise)
    except BadArguments as e:
        _bad(f"{compare_file}: {e}" if compare_file and str(e).startswith("$") else str(e))
    return user_file, fields, normalise


def _comparison(impl: str, hello: dict | None, user: tuple) -> Any:
    """The comparison a run uses (``settings.ChosenComparison``): what the implementation's
    ``hello`` declares, under what the user says (``_user_comparison``)."""
    try:
        return chosen_comparison(hello, *user)
    except BadArguments as e:
        _bad(f"--impl {impl!r}: {e}")


COMPARE_OPTS = [
    click.option(
        "--compare", "compare", multiple=True, metavar="FIELD=MODE", help="Per-field comparison: full, ids or ignore (repeatable)."
    ),
    click.option(
        "--normalise",
        type=click.Choice(["ids", "mastra", "none"]),
        default=None,
        help="Renaming of implementation-chosen values (default: what the implementation declares, else ids).",
    ),
    click.option(
        "--compare-file", type=click.Path(dir_okay=False), default=None, help="A comparison object (docs/schemas/comparison.schema.json)."
    ),
]


def _with_compare(f: Any) -> Any:
    for o in reversed(COMPARE_OPTS):
        f = o(f)
    return f


@click.command("serve")
@click.option("--mutant", default=None, help="Switch on one semantic mutant of properties/mutants.py.")
@click.option("--list-mutants", is_flag=True, help="Print the mutants' names and exit.")
def serve_cmd(mutant: str | None, list_mutants: bool) -> None:
    """The reference as an implementation: protocol 1 on stdin/stdout."""
    if list_mutants or mutant:
        # deferred: the mutants load the properties (Hypothesis), heavy; kept out of `guardspec --help`
        from guardspec.properties.mutants import MUTANTS

        if list_mutants:
            for name, m in MUTANTS.items():
                click.echo(f"{name}\t{m.clause}\t{m.description}")
            return
        if mutant not in MUTANTS:
            _bad(f"--mutant {mutant!r}: one of {', '.join(MUTANTS)}")
    # deferred: loads the reference, heavy; kept out of `guardspec --help`
    from guardspec.conformance.serve import serve

    sys.exit(serve(mutant=mutant))


@click.command("diff")
@click.option("--impl", "impl", required=True, help='The implementation\'s command line, e.g. "guardspec serve".')
@click.option(
    "--examples",
    type=click.IntRange(min=1),
    default=300,
    show_default=True,
    help="Generated scenarios (the default campaign: 300, as mastra-diff's).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=1, show_default=True, help="Implementation processes in parallel.")
@click.option("--timeout-per-case", "timeout", type=click.FloatRange(min=0.001), default=10.0, show_default=True, help="Seconds.")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default=None,
    help="Results (results.jsonl) and shrunk vectors go here; resumes a campaign found there.",
)
@click.option(
    "--mode", "modes", multiple=True, type=click.Choice(["guarded", "raw"]), help="Modes to run (default: all the implementation declares)."
)
@click.option(
    "--known", "known_file", type=click.Path(dir_okay=False), default=None, help="Known discrepancies to skip (each with its reason)."
)
@click.option("--no-shrink", is_flag=True, help="Do not shrink disagreements.")
@click.option(
    "--shrink-seconds", type=click.FloatRange(min=0), default=120.0, show_default=True, help="Time for shrinking one disagreement."
)
@click.option(
    "--shard",
    "shard_text",
    default=None,
    metavar="I/N",
    help="Run only shard I of N: the cases whose index is I modulo N (merge: `guardspec merge`).",
)
@click.option(
    "--cluster",
    default=None,
    metavar="ADDRESS",
    help="A Dask scheduler (e.g. tcp://10.0.0.5:8786): the cases run on its workers, one --impl process per worker thread (not --jobs).",
)
@click.option(
    "--focus",
    default=None,
    metavar="CLAUSE",
    help="Weight the campaign towards one clause (S1-S9, G0-G16; G8.1 aims at G8): half its cases "
    "from the swarms aimed at it, half the default mix.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@_with_compare
def diff_cmd(
    impl: str,
    examples: int,
    seed: int,
    jobs: int,
    timeout: float,
    out: str | None,
    modes: tuple,
    known_file: str | None,
    no_shrink: bool,
    shrink_seconds: float,
    shard_text: str | None,
    cluster: str | None,
    focus: str | None,
    as_json: bool,
    compare: tuple,
    normalise: str | None,
    compare_file: str | None,
) -> None:
    """A differential campaign: generated scenarios on the implementation and on the model."""
    # deferred: the harness loads the reference, heavy; kept out of `guardspec --help`
    from guardspec.conformance.campaign import run_campaign
    from guardspec.conformance.known import load_known
    from guardspec.conformance.shards import parse_shard

    if not impl.strip():
        _bad("--impl: a command line")
    shard = None
    if shard_text is not None:
        try:
            shard = parse_shard(shard_text)
        except BadArguments as e:
            _bad(str(e))
    if cluster is not None and not cluster.strip():
        _bad("--cluster: a Dask scheduler's address (e.g. tcp://127.0.0.1:8786)")
    if focus is not None:
        from guardspec.properties.strategies import focus_clause

        try:
            focus = focus_clause(focus)
        except ValueError as e:
            _bad(f"--focus: {e}")
    user = _user_comparison(compare, normalise, compare_file)
    try:
        hello = implementation_hello(impl)
    except BadArguments as e:
        _bad(str(e))
    chosen = _comparison(impl, hello, user)
    try:
        known = load_known(known_file) if known_file else []
    except BadArguments as e:
        _bad(str(e))
    cfg = Config(
        impl=impl,
        examples=examples,
        seed=seed,
        jobs=jobs,
        timeout=timeout,
        out=Path(out) if out else None,
        modes=tuple(modes) or None,
        comparison=chosen.comparison,
        known=known,
        shrink=not no_shrink,
        shrink_seconds=shrink_seconds,
        shard=shard,
        cluster=cluster,
        focus=focus,
    )
    try:
        with Progress() as progress:
            tasks = CampaignTasks(progress, "diff", examples)
            report = run_campaign(cfg, *tasks.callbacks())
            tasks.finish(report.counts)
    except BadArguments as e:
        _bad(str(e))
    if as_json:
        click.echo(json.dumps({**report_json(report), "comparison": chosen.to_json()}, indent=2, ensure_ascii=False))
    else:
        console = Console()
        console.print(chosen.line(), markup=False, highlight=False)
        print_report(report, console)
    sys.exit(0 if report.ok else 1)


def report_json(report: Any) -> dict:
    return {
        "implementation": (report.hello or {}).get("implementation"),
        "build": (report.hello or {}).get("build"),
        "examples": report.config.examples,
        "seed": report.config.seed,
        "focus": report.config.focus,
        "cases": report.cases,
        "resumed": report.resumed,
        "counts": report.counts,
        "byLoop": report.by_loop,
        "seconds": round(report.seconds, 2),
        "shard": list(report.config.shard) if report.config.shard else None,
        "unrun": len(report.unrun),
        "firstDisagreementAt": report.first_disagreement_at,
        "found": [
            {
                "signature": f.signature,
                "count": f.count,
                "first": f.line,
                "vector": f.vector,
                "explain": f.explain,
                "messages": f.messages,
                "processors": f.processors,
                "tried": f.tried,
            }
            for f in report.found.values()
        ],
        "problems": [{"case": r["case"], "mode": r["mode"], "problem": r.get("problem")} for r in report.problems[:200]],
        "modelErrors": [{"case": r["case"], "mode": r["mode"], "problem": r.get("problem")} for r in report.model_errors[:200]],
        "incidentCounts": report.incident_counts,
        "incidents": [_incident_json(i) for i in report.incidents[:50]],
        "census": report.census.to_json() if report.census else None,
    }


def _incident_json(i: Any) -> dict:
    d = {"kind": i.kind, "detail": i.detail}
    if isinstance(i.case, tuple):
        d["case"], d["mode"] = i.case
    return d


def print_report(report: Any, console: Any, census: bool = True) -> None:
    """The campaign's summary, its disagreements, and (``census``) its shape census last."""
    h = report.hello or {}
    console.print(
        f"{h.get('implementation')} {h.get('version')}{build_label(h)}: {report.cases} cases ({report.resumed} resumed), "
        f"{' '.join(f'{k} {v}' for k, v in sorted(report.counts.items()))}, {report.seconds:.1f} s",
        markup=False,
        highlight=False,
    )
    if report.by_loop:
        console.print(
            "  by loop: "
            + "; ".join(f"{loop}: {' '.join(f'{k} {v}' for k, v in sorted(c.items()))}" for loop, c in sorted(report.by_loop.items())),
            markup=False,
            highlight=False,
        )
    if report.found:
        t = Table(title="disagreements and problems (each shrunk)")
        for c in ("signature", "cases", "first difference", "shrunk to", "vector"):
            t.add_column(c, overflow="fold")
        for f in report.found.values():
            shrunk = f"{f.messages} msgs, {f.processors} procs" if f.messages is not None else "-"
            t.add_row(f.signature, str(f.count), f.line, shrunk, f.vector or "-")
        console.print(t)
    for r in report.problems[:20]:
        p = r.get("problem") or {}
        console.print(
            f"  case {r['case']} {r['mode']}: {p.get('kind')}: {p.get('path')}: {p.get('expected')}", markup=False, highlight=False
        )
    if len(report.problems) > 20:
        console.print(f"  … {len(report.problems) - 20} more problems in results.jsonl")
    if report.incidents:
        console.print(
            "  incidents: "
            + ", ".join(f"{k} {v}" for k, v in report.incident_counts.items())
            + (" (each in results.jsonl)" if report.config.out else ""),
            markup=False,
            highlight=False,
        )
        for i in [i for i in report.incidents if i.kind in ("duplicate", "late", "out-of-order", "stray")][:10]:
            where = f"case {i.case[0]} {i.case[1]}: " if isinstance(i.case, tuple) else ""
            console.print(f"    {i.kind}: {where}{i.detail}", markup=False, highlight=False)
    if report.model_errors:
        r = report.model_errors[0]
        console.print(
            f"[yellow]{len(report.model_errors)} cases not judged: the reference itself failed on them "
            f"(first: case {r['case']} {r['mode']}: {(r.get('problem') or {}).get('expected', '')[:160]})[/yellow]",
            markup=True,
            highlight=False,
        )
    if report.unrun:
        console.print(
            f"[red]{len(report.unrun)} cases not judged: the cluster lost them ({report.unrun_why[:200]}); "
            "the same command again runs them (it resumes from --out)[/red]",
            markup=True,
            highlight=False,
        )
    if census and report.census is not None:
        console.print(report.census.table("shape census of the scenarios"))
        if report.census.mode:
            console.print(report.census.stage_table())


@click.command("merge")
@click.argument("out", type=click.Path(file_okay=False))
@click.argument("folders", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the merged report as JSON.")
def merge_cmd(out: str, folders: tuple, as_json: bool) -> None:
    """Merge the results folders of a campaign's shards (`diff --shard I/N --out DIR`) into OUT,
    as the unsharded campaign would have written it, and print its report."""
    # deferred: the merge draws the campaign's scenarios (Hypothesis, the reference), heavy
    from guardspec.conformance.shards import merge_results

    try:
        with Progress() as progress:
            tasks = CampaignTasks(progress, "merge")
            report = merge_results(Path(out), [Path(f) for f in folders], tasks.on_generate)
            if tasks.drawing:
                tasks.drawing.done()
    except BadArguments as e:
        _bad(str(e))
    if as_json:
        click.echo(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    else:
        print_report(report, Console())
    sys.exit(0 if report.ok else 1)


@click.group("vectors")
def vectors_group() -> None:
    """Conformance vectors (vectors/conformance/*.json)."""


@vectors_group.command("check")
@click.option("--impl", "impl", required=True, help="The implementation's command line.")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--timeout-per-case", "timeout", type=click.FloatRange(min=0.001), default=10.0, show_default=True)
@click.option("--mode", "modes", multiple=True, type=click.Choice(["guarded", "raw"]))
@click.option("--only", "only", multiple=True, metavar="VECTOR", help="Run only this vector: its name or file name (repeatable).")
@click.option(
    "--known",
    "known_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Known deviations (e.g. adapters/breakwater/KNOWN.json): a vector whose case one matches is an expected deviation.",
)
@_with_compare
def vectors_check_cmd(
    impl: str,
    paths: tuple,
    timeout: float,
    modes: tuple,
    only: tuple,
    known_file: str | None,
    compare: tuple,
    normalise: str | None,
    compare_file: str | None,
) -> None:
    """Run the vectors on an implementation and print a table. Exit 0 when every vector agrees,
    is skipped or is an expected deviation naming its finding (``--known``); 1 otherwise."""
    from guardspec.conformance.known import load_known
    from guardspec.conformance.vectors import select

    user = _user_comparison(compare, normalise, compare_file)
    targets = [Path(p) for p in paths] or [Path(DEFAULT_VECTORS)]
    if not any(t.exists() for t in targets):
        _bad(f"{targets[0]}: no such vectors folder")
    chosen_paths, unknown = select(targets, tuple(only))
    if unknown:
        _bad(f"--only {unknown[0]!r}: no such vector in {', '.join(str(t) for t in targets)}")
    try:
        known = load_known(known_file) if known_file else []
    except BadArguments as e:
        _bad(f"--known: {e}")
    if only:
        targets = chosen_paths
    with Impl(impl, timeout=timeout) as im:
        try:
            hello = im.start()
        except StartFailed as e:
            _bad(f"--impl {impl!r}: {e.problem.path}: {e.problem.expected}")
        chosen = _comparison(impl, hello, user)
        console = Console()
        console.print(chosen.line(), markup=False, highlight=False)
        ok, bad = print_vectors(im, targets, console, chosen.comparison, tuple(modes) or None, known)
    sys.exit(0 if ok else (EXIT_BAD if bad else 1))


def print_vectors(
    im: Any, targets: list[Path], console: Any, cmp: Any = None, modes: Any = None, known: list | None = None
) -> tuple[bool, bool]:
    # deferred: the harness loads the reference, heavy; kept out of `guardspec --help`
    from guardspec.conformance.vectors import check

    rows = check(im, targets, cmp, modes, known=known)
    t = Table(
        title=f"conformance vectors — {(im.hello or {}).get('implementation')} {(im.hello or {}).get('version')}{build_label(im.hello)}"
    )
    for c in ("vector", "clauses", "mode", "loop", "result"):
        t.add_column(c, overflow="fold")
    for r in rows:
        if r.bad:
            res = f"[red]bad vector: {r.bad}[/red]"
        elif r.verdict.status == "agree":
            res = "[green]agrees[/green]" + (f" [yellow](stale: {r.stale})[/yellow]" if r.stale else "")
        elif r.verdict.status == "skipped":
            res = f"[yellow]skipped: {r.verdict.reason}[/yellow]"
        elif r.known:
            res = f"[cyan]expected deviation {r.known}[/cyan]" + (f" [yellow](stale: {r.stale})[/yellow]" if r.stale else "")
        else:
            res = f"[red]{r.verdict.status.upper()}: {r.verdict.line()}[/red]"
        t.add_row(r.name, " ".join(r.clauses), r.mode, r.loop, res)
    console.print(t)
    n_known = sum(bool(r.known) and r.ok for r in rows)
    n_ok = sum(r.ok for r in rows) - n_known
    tail = f", {n_known} expected deviations ({', '.join(sorted({r.known for r in rows if r.known}))})" if n_known else ""
    console.print(f"{n_ok}/{len(rows)} agree or skipped{tail}")
    return all(r.ok for r in rows), any(r.bad for r in rows)


@vectors_group.command("generate")
@click.option("--examples", "examples_dir", type=click.Path(file_okay=False, exists=True), default="examples", show_default=True)
@click.option("--out", "out", type=click.Path(file_okay=False), default=DEFAULT_VECTORS, show_default=True)
@click.option(
    "--generated", type=click.IntRange(min=0), default=40, show_default=True, help="Generated vectors of distinct outcome shapes."
)
@click.option("--seed", type=int, default=0, show_default=True)
def vectors_generate_cmd(examples_dir: str, out: str, generated: int, seed: int) -> None:
    """Write the vectors from the reference: the examples' scenarios, plus generated ones."""
    # deferred: the harness loads the reference, heavy; kept out of `guardspec --help`
    from guardspec.conformance.vectors import generate

    paths = generate(Path(examples_dir), Path(out), generated, seed)
    click.echo(f"{len(paths)} vectors written to {out}")


@click.command("findings")
@click.option("--root", type=click.Path(file_okay=False, exists=True), default=None, help="The checkout (default: this one).")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
def findings_cmd(root: str | None, fmt: str) -> None:
    """Print each finding of docs/breakwater-findings.md as an issue-ready text: the seed
    sentence, what Breakwater does, a minimal scenario, the model's and Breakwater's
    observations side by side, and the command that reproduces it."""
    # deferred: the findings run the reference on their vectors, heavy; kept out of `guardspec --help`
    from guardspec.conformance.findings import FINDINGS, findings, markdown

    base = Path(root) if root else (Path.cwd() if FINDINGS.is_file() else repo_root())
    if not (base / FINDINGS).is_file():
        _bad(f"{base / FINDINGS}: no such file")
    try:
        found = findings(base)
    except BadArguments as e:
        _bad(str(e))
    if fmt == "json":
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    click.echo("\n".join(markdown(f) for f in found).rstrip())


COMMANDS = (serve_cmd, diff_cmd, merge_cmd, vectors_group, findings_cmd)


def _vectors_dir() -> Path | None:
    for p in (Path(DEFAULT_VECTORS), repo_root() / DEFAULT_VECTORS):
        if p.is_dir():
            return p
    return None


def verify_section(console: Any) -> bool:
    """``guardspec verify``: the conformance vectors against ``guardspec serve`` (the reference
    through the protocol), a self-check of the vectors, the protocol and the harness."""
    # deferred: loads the reference, heavy; kept out of `guardspec --help`
    from guardspec.conformance.serve import serve_command

    root = _vectors_dir()
    if root is None:
        console.print(f"no {DEFAULT_VECTORS} folder: skipped")
        return True
    with Impl(serve_command(), timeout=30) as im:
        try:
            im.start()
        except StartFailed as e:
            console.print(f"[red]guardspec serve did not start: {e}[/red]")
            return False
        ok, _ = print_vectors(im, [root], console)
    return ok


def bench_section(console: Any, run: Any) -> None:
    """Harness round trips per second against a trivial echo implementation: requests
    pipelined, every reply parsed, checked and compared (with the outcome field)."""
    if not run.fits(run.seconds + 2):
        console.print(f"conformance harness: skipped: {run.budget.left():.0f} s of the budget left")
        return
    figures = bench_harness(run.seconds)
    console.print(
        f"conformance harness: {figures['roundTripsPerSecond']:,.0f} round trips/s against an echo implementation "
        f"({figures['roundTrips']:,} in {figures['seconds']:.2f} s, window {figures['window']}; "
        f"each reply parsed, checked and compared)"
    )


def bench_harness(seconds: float = 1.0, window: int = 512) -> dict:
    # deferred: the harness loads the reference, heavy; kept out of `guardspec --help`
    from guardspec.conformance.cases import judge

    req = {
        "kind": "run",
        "mode": "guarded",
        "scenario": {"guardspec": 1, "agent": {"id": "a"}, "call": {"loop": "generate", "messages": ["hi"]}},
    }
    expected = {"guardspec": 1, "outcome": {"kind": "answered"}}
    cmp = Comparison()
    with Impl([sys.executable, "-m", "guardspec.conformance.echo"], window=window) as im:
        hello = im.start()
        im.exchange([req] * 200)  # warm up
        n, t0 = 0, time.perf_counter()
        batch = 5000
        while True:
            answers = im.exchange([req] * batch)
            for a in answers:
                v = judge(req["scenario"], "guarded", expected, a, cmp, hello, "generate")
                if v.status != "agree":
                    raise RuntimeError(f"echo bench: {v.line()}")
            n += batch
            dt = time.perf_counter() - t0
            if dt >= seconds:
                break
    return {"roundTrips": n, "seconds": dt, "roundTripsPerSecond": n / dt, "window": window}


@click.group()
def _main() -> None:
    """guardspec conformance commands (the same as in the guardspec CLI)."""


for _c in COMMANDS:
    _main.add_command(_c)


if __name__ == "__main__":
    _main()
