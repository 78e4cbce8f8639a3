"""``guardspec report``: the review report (src/guardspec/report/), measured in one run.

Thin: choose the profile and the Breakwater build, call ``report.build.build``, print where the
page is and how long each part took. ``write_report`` is what ``guardspec verify --report``
calls after its sections.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from guardspec.mastra.client import repo_root


def _root() -> Path:
    here = Path.cwd()
    return here if (here / "reference").is_dir() and (here / "examples").is_dir() else repo_root()


def write_report(
    out: str, breakwater: str | None = None, echo: Any = click.echo, extra: dict | None = None, mutants: tuple[str, ...] | None = None
) -> Any:
    """Measure and write the report into ``out``; print each part's time and the total."""
    # deferred: the report runs every section (the reference, Hypothesis, z3), heavy; kept out of `guardspec --help`
    from guardspec.report.build import build

    os.environ.setdefault("GUARDSPEC_PROFILE", "ci")
    written = build(Path(out), _root(), breakwater or os.environ.get("BREAKWATER_MODULE") or None, echo, extra=extra, mutants=mutants)
    echo("report parts: " + ", ".join(f"{k} {v:.1f} s" for k, v in written.seconds.items()))
    cpu = ", ".join(f"{k} {v:.1f} s" for k, v in written.cpu.items())
    echo(f"report written in {written.total:.1f} s (CPU: {cpu}): {written.html} and {written.markdown}")
    if written.unexercised:
        echo(f"clauses with no exercised line: {' '.join(written.unexercised)}")
    return written


@click.command("report")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    default="report",
    show_default=True,
    help="Folder for report.html, report.md and the SVG files.",
)
@click.option(
    "--breakwater",
    "breakwater",
    default=None,
    metavar="MODULE",
    help="A Breakwater build for adapters/breakwater (default: $BREAKWATER_MODULE; none: that section says not run).",
)
@click.option(
    "--profile", type=click.Choice(["dev", "ci", "campaign"]), default="ci", show_default=True, help="Hypothesis settings profile."
)
@click.option(
    "--mutants",
    "mutants",
    default=None,
    metavar="NAME,...",
    help="Run only these mutants (killed by the properties, refuted by z3); the page says how many of all were run. Default: every mutant.",
)
def report_cmd(out: str, breakwater: str | None, profile: str, mutants: str | None) -> None:
    """Measure and write the review report: the chain drawn, clause coverage, proofs, mutants,
    differential results, findings and counterexample timelines (HTML and Markdown)."""
    if Path(out).exists() and not Path(out).is_dir():
        click.echo(f"error: --out {out}: a folder (this is a file)", err=True)
        sys.exit(2)
    chosen = None
    if mutants is not None:
        # deferred: the mutants load the properties (Hypothesis), heavy; kept out of `guardspec --help`
        from guardspec.properties.mutants import MUTANTS

        chosen = tuple(n.strip() for n in mutants.split(",") if n.strip())
        unknown = [n for n in chosen if n not in MUTANTS]
        if unknown or not chosen:
            click.echo(
                f"error: --mutants: expected mutant names from `guardspec mutants --list`; unknown: {', '.join(unknown) or '(none given)'}",
                err=True,
            )
            sys.exit(2)
    os.environ["GUARDSPEC_PROFILE"] = profile
    write_report(out, breakwater, mutants=chosen)


COMMANDS = (report_cmd,)
