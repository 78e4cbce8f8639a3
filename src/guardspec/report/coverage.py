"""Line and branch coverage of ``reference/`` per clause, measured with coverage.py in this run.

A line belongs to the clauses of the innermost function or class around it whose docstring
names clauses first (``G13 Refusal removal: ...``, read by ``traceability.named_clauses``),
so a clause's code is exactly the code a reviewer ticks off against SPEC.md. Lines outside any
such function belong to no clause. Invariants (I*) have no code of their own in ``reference/``:
their row counts the code of the clauses their properties and proofs cite.
"""

from __future__ import annotations

import ast
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from attrs import field, frozen

from guardspec import traceability as tr

def reference_dir() -> Path:
    """The ``reference/`` folder this installation runs (a checkout or an installed package),
    found without importing it, so that measuring starts before its modules load."""
    import importlib.util

    spec = importlib.util.find_spec("guardspec.reference")
    assert spec is not None and spec.submodule_search_locations
    return Path(list(spec.submodule_search_locations)[0]).resolve()


@frozen
class ClauseCoverage:
    """One clause's share of ``reference/``: lines and branches, and how many this run ran."""

    clause: str
    functions: tuple[str, ...] = ()
    lines: int = 0
    lines_run: int = 0
    branches: int = 0
    branches_run: int = 0
    via: tuple[str, ...] = ()  # for an invariant: the clauses whose code is counted
    unrun: tuple[str, ...] = field(default=())  # functions with no line run

    @property
    def line_pct(self) -> float | None:
        return None if not self.lines else 100.0 * self.lines_run / self.lines

    @property
    def branch_pct(self) -> float | None:
        return None if not self.branches else 100.0 * self.branches_run / self.branches

    @property
    def exercised(self) -> bool:
        return self.lines_run > 0


@frozen
class Span:
    """A function or class of ``reference/`` that names clauses, and its lines."""

    file: str
    name: str
    first: int
    last: int
    clauses: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{Path(self.file).stem}.{self.name}"


def clause_spans(root: Path) -> list[Span]:
    """Every function or class under ``root`` whose docstring names clauses first; a span starts
    at its body (the ``def`` line runs at import, which exercises nothing of the clause)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            named = tr.named_clauses(node)
            # A sub-clause's code is also its clause's: the report counts per top-level clause.
            clauses = tuple(dict.fromkeys([*named, *(tr.top(c) for c in named)]))
            if clauses:
                body = node.body[1:] if ast.get_docstring(node) is not None else node.body  # type: ignore[attr-defined]
                first = body[0].lineno if body else (node.end_lineno or node.lineno) + 1
                out.append(Span(str(path.resolve()), node.name, first, node.end_lineno or node.lineno, tuple(clauses)))
    return out


def headers(root: Path) -> dict[str, set[int]]:
    """file → the lines of every ``def`` and ``class`` statement's header (run at import)."""
    out: dict[str, set[int]] = {}
    for path in sorted(root.rglob("*.py")):
        lines = out.setdefault(str(path.resolve()), set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                lines.update(range(start, node.body[0].lineno))
    return out


def _owner(spans: list[Span], line: int) -> tuple[str, ...]:
    """The clauses of the innermost span holding ``line``."""
    best: Span | None = None
    for sp in spans:
        if sp.first <= line <= sp.last and (best is None or sp.last - sp.first < best.last - best.first):
            best = sp
    return best.clauses if best else ()


@contextmanager
def measuring(data_dir: Path, source: Path | None = None) -> Iterator[Any]:
    """coverage.py on ``reference/`` (lines and branches) while the body runs; the data is saved
    under ``data_dir`` with a per-process suffix so other processes' data can be combined."""
    import coverage

    data_dir.mkdir(parents=True, exist_ok=True)
    cov = coverage.Coverage(data_file=str(data_dir / ".coverage"), data_suffix=True, branch=True,
                            source=[str(source or reference_dir())], config_file=False)
    cov.start()
    try:
        yield cov
    finally:
        cov.stop()
        cov.save()


def per_clause(data_dir: Path, clauses: list[str], cited: dict[str, list[str]], source: Path | None = None) -> list[ClauseCoverage]:
    """Combine the data under ``data_dir`` and count, per clause, its lines and branches run.

    ``cited``: for an invariant, the clauses whose code it exercises (from its properties and
    proofs)."""
    import coverage

    src = source or reference_dir()
    cov = coverage.Coverage(data_file=str(data_dir / ".coverage"), branch=True, source=[str(src)], config_file=False)
    cov.combine([str(data_dir)], keep=True)
    cov.save()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "coverage.json"
        with open(os.devnull, "w") as null, _quiet(null):
            cov.json_report(outfile=str(out))
        files = json.loads(out.read_text())["files"]
    spans = clause_spans(src)
    heads = headers(src)
    by_file: dict[str, list[Span]] = {}
    for sp in spans:
        by_file.setdefault(sp.file, []).append(sp)
    counts = {c: [0, 0, 0, 0] for c in clauses}
    run_lines: dict[str, set[int]] = {}
    for rel, data in files.items():
        f = str(Path(rel).resolve()) if Path(rel).is_absolute() else str((Path.cwd() / rel).resolve())
        owned = by_file.get(f, [])
        run_lines[f] = set(data["executed_lines"]) - heads.get(f, set())
        for line in data["executed_lines"] + data["missing_lines"]:
            if line in heads.get(f, ()):
                continue
            for c in _owner(owned, line):
                if c in counts:
                    counts[c][0] += 1
                    counts[c][1] += line in run_lines[f]
        for arcs, taken in ((data.get("executed_branches", []), 1), (data.get("missing_branches", []), 0)):
            for a, _b in arcs:
                for c in _owner(owned, a):
                    if c in counts:
                        counts[c][2] += 1
                        counts[c][3] += taken
    rows = []
    for c in clauses:
        mine = [sp for sp in spans if c in sp.clauses]
        fns = tuple(dict.fromkeys(sp.label for sp in mine))
        unrun = tuple(dict.fromkeys(sp.label for sp in mine if sp.first <= sp.last and not any(sp.first <= x <= sp.last for x in run_lines.get(sp.file, ()))))
        if fns or c not in cited:
            n, r, b, br = counts[c]
            rows.append(ClauseCoverage(c, fns, n, r, b, br, (), unrun))
            continue
        via = tuple(x for x in cited[c] if x in counts and any(x in sp.clauses for sp in spans))
        n, r, b, br = (sum(counts[x][k] for x in via) for k in range(4))
        rows.append(ClauseCoverage(c, (), n, r, b, br, via, ()))
    return rows


@contextmanager
def paused(cov: Any) -> Iterator[None]:
    """Not measured: the body runs code that is not the reference (a mutant patches it)."""
    cov.stop()
    try:
        yield
    finally:
        cov.start()


@contextmanager
def _quiet(sink) -> Iterator[None]:
    """coverage.py prints the report's path; the report keeps stdout for its own lines."""
    import contextlib

    with contextlib.redirect_stdout(sink):
        yield


__all__ = ["ClauseCoverage", "clause_spans", "measuring", "paused", "per_clause", "reference_dir"]
