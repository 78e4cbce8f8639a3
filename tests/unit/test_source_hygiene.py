"""The project's sources as a whole: no import cycle among the modules, and no history (seeds,
case numbers, commit hashes, issue numbers) in the semantics' code and docstrings (STYLE.md:
what the code should and should not carry)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _package_dirs() -> dict[str, Path]:
    """guardspec's packages and the folder each is installed from (pyproject's package-dir)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {name: ROOT / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


def _modules() -> dict[str, Path]:
    """Every module of the installed layout by its dotted name (``guardspec.model.messages``)."""
    dirs = _package_dirs()
    out: dict[str, Path] = {}
    for package, folder in dirs.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("").parts
            # a sub-folder installed as a package of its own is walked under that name
            if len(rel) > 1 and f"{package}.{rel[0]}" in dirs:
                continue
            parts = rel[:-1] if rel[-1] == "__init__" else rel
            out[".".join((package, *parts))] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_level_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: top-level ones, and those in top-level
    ``if`` / ``try`` blocks, but not under ``if TYPE_CHECKING`` nor inside functions."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                out += _module_level_imports(node.body)
            out += _module_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                out += _module_level_imports(block)
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports at module level."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _module_level_imports(ast.parse(path.read_text(), str(path)).body):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from pkg import sub` imports the submodule when there is one, else a name of pkg
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_module_walk_sees_every_layer() -> None:
    modules = _modules()
    for name in (
        "guardspec.cli",
        "guardspec.model.messages",
        "guardspec.reference.guard.chain",
        "guardspec.properties.invariants",
        "guardspec.properties.symbolic",
    ):
        assert name in modules, name


def test_a_cycle_is_found_and_an_import_inside_a_function_is_not_an_edge() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    tree = ast.parse(
        "import a\nif TYPE_CHECKING:\n    import b\ndef f():\n    import c\ntry:\n    import d\nexcept ImportError:\n    pass\n"
    )
    assert [n.names[0].name for n in _module_level_imports(tree.body)] == ["a", "d"]


def test_no_import_cycle_among_the_projects_modules() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == []


HISTORY = re.compile(r"seed [0-9]{2,}|case [0-9]+|\b[0-9a-f]{7,40}\b|issue [0-9]+")


def _history_hits() -> list[str]:
    hits = []
    for folder in ("reference", "properties", "model"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                for m in HISTORY.finditer(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)}")
    return hits


def test_the_history_pattern_finds_what_it_is_meant_to() -> None:
    hits = [HISTORY.search(s) for s in ("seed 8476", "case 1062", "on 7923104", "bd9b968", "issue 10")]
    assert all(hits)
    assert not any(HISTORY.search(s) for s in ("seed sentence", "seed 1", "stage 2", "M12", "0xff", "decade"))


def test_the_semantics_carry_no_seed_case_hash_or_issue_number() -> None:
    """reference/, properties/ and model/ state rules, not where they were found."""
    assert _history_hits() == []


def _defined_functions(pattern: str) -> list[str]:
    """Every module-level or nested function whose name matches, as ``module:name``."""
    found = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and re.search(pattern, node.name):
                found.append(f"{name}:{node.name}")
    return sorted(found)


def test_javascript_truthiness_is_written_once() -> None:
    """M14.2: one module says what JavaScript counts as falsy; everything else asks it."""
    assert _defined_functions(r"falsy|truthy") == ["guardspec.model.jsvalues:falsy", "guardspec.model.jsvalues:truthy"]


def test_urls_are_parsed_in_one_module() -> None:
    """G16.6: one URL model serves the input-assets gate and the downloads; no other module parses a URL."""
    parsers = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if re.search(r"\burllib\b|\burlparse\b|\burlsplit\b|\bclass Url\b", text):
            parsers.append(name)
    assert parsers == ["guardspec.reference.urls"]
