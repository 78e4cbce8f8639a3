"""The clause table and its check: ``spec/SPEC.md`` ↔ ``reference/`` ↔ tests and properties.

Everything is read from the checkout itself, so nothing here can drift from it:

- a clause is a bullet of ``spec/SPEC.md`` that starts with its bold id and title
  (``- **G13 Refusal removal.** ...``); a sub-clause is such a bullet nested under its parent;
- a function or class of ``reference/`` or ``model/`` implements the one clause its docstring
  starts with (``M12.3 Asset downloads: ...``): its *primary* clause; a module whose docstring
  starts with a clause id implements that clause as a whole (``model/jsvalues.py``, M14);
- a test covers the clause its file or function name starts with (``test_g13_...``) and the
  clauses the first line of its docstring starts with (``M12.3, G16.1: ...``);
- a property (a public function of ``properties/invariants/``) covers every clause its
  docstring cites.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from attrs import frozen

ROOT = Path(__file__).resolve().parents[2]
SPEC = Path("spec") / "SPEC.md"

_BULLET = re.compile(r"^(?P<indent> *)- \*\*(?P<id>[SMGOI]\d{1,2}(?:\.\d{1,2})?) (?P<title>[^*]+?)\.\*\*(?P<text>.*)$")
# An id, or a range of top-level ids written `G9-G12` or `G9-12`.
_ID = re.compile(r"\b([SMGOI])(\d{1,2})(?:\.(\d{1,2}))?(?:\s*[-–]\s*\1?(\d{1,2})\b(?!\.\d))?\b")
_TEST = re.compile(r"^test_([smgoi])0?(\d{1,2})(?:_|$)")


@frozen
class Clause:
    """One clause or sub-clause of the specification, as written there."""

    id: str
    title: str
    parent: str | None
    cites: tuple[str, ...]  # the ids its text names (a G clause names the S sentences it refines)


def _parse_ids(text: str) -> list[str]:
    out: list[str] = []
    for kind, a, sub, hi in _ID.findall(text):
        if sub:
            out.append(f"{kind}{int(a)}.{int(sub)}")
        else:
            out.extend(f"{kind}{n}" for n in range(int(a), (int(hi) if hi else int(a)) + 1))
    return out


def read_spec(root: Path) -> dict[str, Clause]:
    """Every clause of ``spec/SPEC.md`` in the order written (empty when the file is absent)."""
    path = root / SPEC
    if not path.is_file():
        return {}
    return dict(_parse_spec(str(path.resolve()), path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=8)
def _parse_spec(path: str, _mtime: int) -> tuple[tuple[str, Clause], ...]:
    # Keyed by the file's modification time, so a rewritten spec is read again.
    out: dict[str, Clause] = {}
    current: tuple[str, str, str | None, list[str]] | None = None

    def close() -> None:
        if current is not None:
            cid, title, parent, text = current
            cites = tuple(dict.fromkeys(c for c in _parse_ids(" ".join([title, *text])) if c != cid))
            out[cid] = Clause(cid, title.strip(), parent, cites)

    parent_id: str | None = None
    for line in Path(path).read_text().splitlines():
        m = _BULLET.match(line)
        if m:
            close()
            cid = m["id"]
            nested = bool(m["indent"]) and "." in cid
            if not nested:
                parent_id = cid
            current = (cid, m["title"], parent_id if nested else None, [m["text"]])
        elif current is not None and line.strip() and not line.lstrip().startswith(("#", "- **")):
            current[3].append(line)
        elif current is not None and (not line.strip() or line.startswith("#")):
            close()
            current = None
    close()
    return tuple(out.items())


def _default() -> dict[str, Clause]:
    return read_spec(ROOT)


def __getattr__(name: str) -> Any:
    # The clause lists of this checkout, read when first asked for (the report and the CLI use them).
    if name == "CLAUSES":
        return [c for c, v in _default().items() if v.parent is None]
    if name == "ALL":
        return list(_default())
    raise AttributeError(name)


def _known(root: Path | None) -> set[str]:
    return set(read_spec(root or ROOT))


def _ids(text: str, root: Path | None = None) -> list[str]:
    """The clause ids ``text`` names that exist in the specification, in order, each once."""
    known = _known(root)
    return list(dict.fromkeys(c for c in _parse_ids(text) if c in known))


def top(cid: str) -> str:
    """The top-level clause an id belongs to (``M12.3`` → ``M12``)."""
    return cid.split(".")[0]


def _label(doc: str) -> str:
    """The words a docstring starts with, up to its first colon or full stop on the first line."""
    first = doc.strip().split("\n")[0]
    return re.split(r"[:.](?:\s|$)", first, maxsplit=1)[0]


def primary(doc: str | None) -> list[str]:
    """The clause ids a docstring's label names (its first must start the docstring); exactly one
    is a well-formed primary clause."""
    if not doc or not re.match(r"^[SMGOI]\d", doc.strip()):
        return []
    return _parse_ids(_label(doc))


def named_clauses(node: ast.AST, root: Path | None = None) -> list[str]:
    """The clauses a function or class implements: the existing ids its docstring starts with."""
    if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return []
    known = _known(root)
    return [c for c in primary(ast.get_docstring(node)) if c in known]


def _sources(root: Path, folder: str) -> Iterable[tuple[str, Path, ast.Module]]:
    base = root / folder
    for path in sorted(base.rglob("*.py")):
        yield ".".join(path.relative_to(root).with_suffix("").parts), path, ast.parse(path.read_text())


IMPLEMENTING = ("reference", "model")


def implementations(root: Path) -> dict[str, list[str]]:
    """clause → the ``module.function`` of ``reference/`` or ``model/`` whose docstring names
    it first (a module itself, by its own docstring)."""
    known = _known(root)
    out: dict[str, list[str]] = {}
    for folder in IMPLEMENTING:
        for mod, _, tree in _sources(root, folder):
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)):
                    ids = primary(ast.get_docstring(node))
                    if ids and ids[0] in known:
                        out.setdefault(ids[0], []).append(mod if isinstance(node, ast.Module) else f"{mod}.{node.name}")
    return out


def tests(root: Path) -> dict[str, list[str]]:
    """clause → the test files that cover it (by file or test name, or a test's docstring)."""
    known = _known(root)
    out: dict[str, set[str]] = {}
    for path in sorted((root / "tests").rglob("test_*.py")):
        fm = _TEST.match(path.stem)
        rel = path.relative_to(root / "tests").as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"):
                ids = []
                m = _TEST.match(node.name) or fm
                if m:
                    ids.append(f"{m.group(1).upper()}{int(m.group(2))}")
                doc = ast.get_docstring(node)
                if doc and re.match(r"^[SMGOI]\d", doc.strip()):
                    ids.extend(_parse_ids(_label(doc)))
                for c in ids:
                    if c in known:
                        out.setdefault(c, set()).add(rel)
    return {k: sorted(v) for k, v in out.items()}


def properties(root: Path) -> dict[str, list[str]]:
    """clause → the property functions of ``properties/invariants/`` whose docstring cites it."""
    out: dict[str, list[str]] = {}
    for _, _, tree in _sources(root, "properties/invariants"):
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                for c in sorted(set(_ids(ast.get_docstring(node) or "", root))):
                    out.setdefault(c, []).append(node.name)
    return out


def examples(root: Path) -> dict[str, list[str]]:
    """clause → the examples (``examples/*.json``) that list it."""
    out: dict[str, list[str]] = {}
    for path in sorted((root / "examples").glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        for c in data.get("clauses", []):
            out.setdefault(c, []).append(path.stem)
    return out


def rolled_up(by_clause: dict[str, list[str]]) -> dict[str, list[str]]:
    """The same map with every sub-clause's entries also under its top-level clause, after the
    clause's own (the table names a clause's own function first)."""
    out: dict[str, list[str]] = {}
    for c, xs in sorted(by_clause.items(), key=lambda kv: kv[0] != top(kv[0])):
        for k in dict.fromkeys([c, top(c)]):
            out[k] = list(dict.fromkeys([*out.get(k, []), *xs]))
    return out


def table(root: Path) -> str:
    """The markdown clause table: one row per top-level clause, its sub-clauses rolled up."""
    spec = read_spec(root)
    impl, tst, props = rolled_up(implementations(root)), rolled_up(tests(root)), rolled_up(properties(root))
    subs: dict[str, int] = {}
    for c in spec.values():
        if c.parent:
            subs[c.parent] = subs.get(c.parent, 0) + 1

    def cell(xs: list[str], limit: int) -> str:
        if not xs:
            return "—"
        shown = ", ".join(f"`{x.rsplit('.', 1)[-1] if x.startswith(IMPLEMENTING) else x}`" for x in xs[:limit])
        return shown + (f" (+{len(xs) - limit})" if len(xs) > limit else "")

    lines = ["| clause | title | sub | implemented in | tests | properties |", "|---|---|---|---|---|---|"]
    for c in (c for c in spec.values() if c.parent is None):
        where = cell(impl.get(c.id, []), 1)
        if c.id[0] == "S":  # a seed sentence is implemented by the clauses that refine it
            refining = [r.id for r in spec.values() if c.id in r.cites and r.id[0] in "MG" and r.parent is None]
            where = "via " + ", ".join(refining) if refining else "—"
        lines.append(
            f"| {c.id} | {c.title} | {subs.get(c.id, '—')} | {where} | {cell(tst.get(c.id, []), 1)} | {cell(props.get(c.id, []), 1)} |"
        )
    return "\n".join(lines)


BEGIN = "<!-- clause-table:begin (generated by `guardspec clauses --write`) -->"
END = "<!-- clause-table:end -->"


def readme_table(readme: str) -> str | None:
    if BEGIN not in readme or END not in readme:
        return None
    return readme.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def _cited(root: Path, folders: Iterable[str]) -> dict[str, list[str]]:
    """id → ``path:line`` for every clause id the source of ``folders`` names (docstrings and
    comments alike), whether or not it exists."""
    out: dict[str, list[str]] = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                for c in _parse_ids(line):
                    out.setdefault(c, []).append(f"{path.relative_to(root).as_posix()}:{n}")
    return out


def problems(root: Path) -> list[str]:
    """What keeps the specification, the reference, the tests and the README from agreeing,
    one line each; empty when they agree."""
    spec = read_spec(root)
    if not spec:
        return [f"{SPEC}: no clauses (file missing, or no `- **<id> <title>.**` bullets)"]
    out: list[str] = []
    impl, tst, props = implementations(root), tests(root), properties(root)
    for c in spec.values():
        kind = c.id[0]
        if kind in "MGO" and c.id not in impl:
            out.append(f"{c.id} {c.title}: no function of reference/ or model/ names it first")
        if kind == "I" and c.id not in props:
            out.append(f"{c.id} {c.title}: no property of properties/invariants/ cites it")
        if kind == "S":
            refined = [r.id for r in spec.values() if c.id in r.cites and r.id[0] in "MG"]
            if not any(r in impl for r in refined):
                out.append(f"{c.id} {c.title}: no implemented M or G clause cites it")
            covered = c.id in tst or c.id in props or any(r in tst or r in props for r in refined)
        else:
            covered = c.id in tst or c.id in props
        if not covered:
            out.append(f"{c.id} {c.title}: no test or property cites it")
    for _mod, path, tree in _sources(root, "reference"):
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
                continue
            where = f"{path.relative_to(root).as_posix()}:{node.lineno} {node.name}"
            ids = primary(ast.get_docstring(node))
            if not ids:
                out.append(f"{where}: its docstring does not start with a clause id")
            elif len(ids) > 1:
                out.append(f"{where}: names {', '.join(ids)} first; a function has one primary clause")
            elif ids[0] not in spec:
                out.append(f"{where}: names {ids[0]}, which {SPEC} does not have")
    for c, places in _cited(root, ("reference", "properties", "model")).items():
        if c not in spec:
            out.append(f"{c}: cited at {', '.join(places[:3])}{' …' if len(places) > 3 else ''}, but {SPEC} does not have it")
    readme = root / "README.md"
    if readme.is_file():
        current = readme_table(readme.read_text())
        if current is None:
            out.append("README.md: no clause-table markers")
        elif current != table(root):
            out.append("README.md: the clause table is stale (run `guardspec clauses --write`)")
    return out
