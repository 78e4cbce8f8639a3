"""`guardspec clauses --check`: the specification, the reference, the tests and the README agree."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from guardspec import traceability as tr
from guardspec.cli import main

SPEC = """\
# A small specification

- **S1 Scope.** The processor runs on the initial input only.
- **M1 Source sets.** Each message belongs to sources.
  - **M1.1 Memory and input.** A message can be both.
- **G5 Invocation.** Each processor runs once (S1).
- **I7 Once.** A processor runs exactly once per call (S1, G5).
"""

REFERENCE = '''\
def source_sets():
    """M1 Source sets: each message belongs to sources."""


def both():
    """M1.1 Memory and input: a message can be both."""


def invoke():
    """G5 Invocation: once per call (S1)."""
'''

TESTS = '''\
def test_m1_sources():
    pass


def test_both_sources():
    """M1.1: a message can be both."""


def test_g5_once():
    pass
'''

INVARIANTS = '''\
def processor_runs_once():
    """I7 (S1, G5): a processor runs exactly once."""
'''


def tree(tmp: Path, *, reference: str = REFERENCE, spec: str = SPEC, tests: str = TESTS) -> Path:
    (tmp / "spec").mkdir()
    (tmp / "spec" / "SPEC.md").write_text(spec)
    (tmp / "reference").mkdir()
    (tmp / "reference" / "core.py").write_text(reference)
    (tmp / "tests").mkdir()
    (tmp / "tests" / "test_core.py").write_text(tests)
    (tmp / "properties" / "invariants").mkdir(parents=True)
    (tmp / "properties" / "invariants" / "calls.py").write_text(INVARIANTS)
    (tmp / "model").mkdir()
    (tmp / "examples").mkdir()
    (tmp / "README.md").write_text(f"# x\n\n{tr.BEGIN}\n{tr.table(tmp)}\n{tr.END}\n")
    return tmp


def check(root: Path) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["clauses", "--check", "--root", str(root)])
    return r.exit_code, r.output


def test_a_tree_where_every_clause_is_implemented_and_tested_passes(tmp_path: Path) -> None:
    code, out = check(tree(tmp_path))
    assert code == 0, out
    assert "5 clauses" in out and "0 problem(s)" in out


def test_a_clause_with_no_function_fails_the_check(tmp_path: Path) -> None:
    code, out = check(
        tree(tmp_path, reference=REFERENCE.replace('"""M1.1 Memory and input: a message can be both."""', '"""M1 Source sets, again."""'))
    )
    assert code == 1
    assert "M1.1 Memory and input: no function of reference/ or model/ names it first" in out


def test_a_function_naming_a_clause_the_spec_lacks_fails_the_check(tmp_path: Path) -> None:
    code, out = check(tree(tmp_path, reference=REFERENCE + '\n\ndef extra():\n    """G99 Nothing: no such clause."""\n'))
    assert code == 1
    assert "reference/core.py:13 extra: names G99, which spec/SPEC.md does not have" in out
    assert "G99: cited at reference/core.py:14, but spec/SPEC.md does not have it" in out


def test_a_module_docstring_implements_its_clause(tmp_path: Path) -> None:
    # the clause the function named moves to the module's docstring: the check still passes
    ref = REFERENCE.replace('def both():\n    """M1.1 Memory and input: a message can be both."""', 'def _both():\n    """A helper."""')
    assert ref != REFERENCE
    code, out = check(tree(tmp_path, reference='"""M1.1 Memory and input, for the whole module."""\n' + ref))
    assert code == 0, out


def test_a_public_function_without_a_clause_or_with_two_fails_the_check(tmp_path: Path) -> None:
    extra = '\n\ndef helper():\n    """Joins two lists."""\n\n\ndef twice():\n    """M1, G5: two at once."""\n'
    code, out = check(tree(tmp_path, reference=REFERENCE + extra))
    assert code == 1
    assert "helper: its docstring does not start with a clause id" in out
    assert "twice: names M1, G5 first; a function has one primary clause" in out


def test_a_sub_clause_with_no_test_fails_the_check(tmp_path: Path) -> None:
    code, out = check(tree(tmp_path, tests=TESTS.replace('"""M1.1: a message can be both."""', "pass")))
    assert code == 1
    assert out.splitlines()[0] == "M1.1 Memory and input: no test or property cites it"


def test_a_seed_sentence_no_clause_refines_fails_the_check(tmp_path: Path) -> None:
    spec = SPEC.replace("(S1).", ".").replace("(S1, G5)", "(G5)")
    code, out = check(tree(tmp_path, spec=spec))
    assert code == 1
    assert "S1 Scope: no implemented M or G clause cites it" in out


def test_a_stale_readme_table_fails_the_check(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "reference" / "core.py").write_text(REFERENCE.replace("def invoke", "def invoke_once"))
    code, out = check(root)
    assert code == 1
    assert "README.md: the clause table is stale" in out


def test_sub_clauses_roll_up_into_their_clause_in_the_table(tmp_path: Path) -> None:
    table = tr.table(tree(tmp_path))
    row = next(line for line in table.splitlines() if line.startswith("| M1 "))
    assert row == "| M1 | Source sets | 1 | `source_sets` (+1) | `test_core.py` | — |"


def test_the_spec_parser_reads_ids_titles_parents_and_citations(tmp_path: Path) -> None:
    spec = tr.read_spec(tree(tmp_path))
    assert list(spec) == ["S1", "M1", "M1.1", "G5", "I7"]
    assert spec["M1.1"].parent == "M1" and spec["M1.1"].title == "Memory and input"
    assert spec["G5"].cites == ("S1",)
    assert spec["I7"].cites == ("S1", "G5")


def test_ranges_of_ids_are_read_as_every_id_in_them() -> None:
    assert tr._parse_ids("(G9-G11, M12.3, I1-3)") == ["G9", "G10", "G11", "M12.3", "I1", "I2", "I3"]


def test_the_repository_passes_its_own_check() -> None:
    found = tr.problems(tr.ROOT)
    assert found == [], "\n".join(found)
