"""reference/ never imports hypothesis or z3 (STYLE.md: definitions apart from proofs)."""

import ast
import subprocess
import sys
from pathlib import Path

import guardspec.reference

FORBIDDEN = ("hypothesis", "z3")
REFERENCE = Path(guardspec.reference.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def test_layering_reference_sources_exist():
    assert len(list(REFERENCE.rglob("*.py"))) > 5


def test_layering_reference_sources_import_neither_hypothesis_nor_z3():
    offenders = {
        str(p.relative_to(REFERENCE)): sorted(m for m in _imported_modules(p) if m.split(".")[0] in FORBIDDEN)
        for p in REFERENCE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_layering_importing_reference_loads_neither_hypothesis_nor_z3():
    code = (
        "import sys, guardspec.reference, guardspec.reference.guard.chain\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
