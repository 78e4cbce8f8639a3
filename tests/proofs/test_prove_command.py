"""``guardspec prove`` (src/guardspec/commands/prove_cmds.py)."""

from __future__ import annotations

import pytest
import z3
from click.testing import CliRunner

from guardspec.commands.prove_cmds import COMMANDS, prove


def test_prove_is_exported() -> None:
    assert [prove] == COMMANDS


@pytest.mark.slow
def test_guarded_proofs_exit_0_when_all_are_proven() -> None:
    r = CliRunner().invoke(prove, ["--messages", "3", "--processors", "2", "--ops", "2", "--no-call-context"])
    assert r.exit_code == 0, r.output
    assert r.output.count("proven") >= 10
    assert "counterexample" not in r.output


@pytest.mark.slow
def test_raw_mode_reports_the_i12_counterexamples_as_found() -> None:
    r = CliRunner().invoke(prove, ["--messages", "3", "--processors", "2", "--ops", "2", "--mode", "raw"])
    assert r.exit_code == 1, r.output
    assert "I12: raw counterexamples found and replayed for I1, I2, I4 (as I12 expects)" in r.output
    assert "interpreter replay: I1:" in r.output


def test_unknown_is_never_reported_as_proven(monkeypatch) -> None:
    from guardspec.properties.symbolic import prove as p

    monkeypatch.setattr(p, "_check", lambda solver, extra, timeout: (z3.unknown, timeout, None))
    r = CliRunner().invoke(prove, ["--messages", "2", "--processors", "1", "--ops", "1", "--invariant", "I1", "--timeout", "0.5"])
    assert r.exit_code == 1
    assert "unknown" in r.output and "proven" not in r.output


def test_bad_invariant_name_exits_2() -> None:
    r = CliRunner().invoke(prove, ["--invariant", "I99"])
    assert r.exit_code == 2
    assert "I99" in r.output
