"""``guardspec bench`` keeps to its time budget: the proof-growth table only when asked for,
each bound in a child process stopped at its timeout or when the budget is spent, shown as
such; the sections skip, saying why, what does not fit. (Speed itself is shown by the bench,
never asserted.)"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from guardspec.bench import BenchRun, Budget
from guardspec.commands import conformance_cmds, mastra_cmds, prove_cmds
from guardspec.properties.symbolic.scope import Scope


def printed(section, run: BenchRun) -> str:
    out = io.StringIO()
    section(Console(file=out, width=200), run)
    return out.getvalue()


def test_the_proof_growth_table_is_off_unless_asked_for() -> None:
    text = printed(prove_cmds.bench_section, BenchRun(proofs=False))
    assert "not asked for (guardspec bench --proofs)" in text and "z3 s" not in text


def test_a_spent_budget_runs_no_bound_and_says_so() -> None:
    small, large = Scope(1, 1, 0, call_context=False), Scope(4, 2, 3)
    rows = prove_cmds.proof_growth(30.0, Budget(0.0), (small,), (large,))
    assert [r[0] for r in rows] == [str(small), str(large)]
    assert all("not run (budget spent)" in r[1] for r in rows) and "not run (budget spent)" in rows[0][2]
    assert rows[1][2] == "—"  # the large bound is never enumerated


@pytest.mark.slow
def test_a_task_past_its_timeout_is_shown_timed_out_and_the_next_still_runs() -> None:
    small, large = Scope(1, 1, 0, call_context=False), Scope(8, 4, 4)
    (s_label, s_z3, s_enum, s_ratio), (l_label, l_z3, _, _) = prove_cmds.proof_growth(2.0, Budget(100.0), (small,), (large,))
    assert (l_label, l_z3) == (str(large), "[yellow]timed out after 2 s[/yellow]")
    # z3 at the small bound is done; its enumeration (tens of thousands of calls) is stopped,
    # and the ratio shown is the bound the stop gives
    assert s_label == str(small) and float(s_z3) >= 0
    assert s_enum == "[yellow]timed out after 2 s[/yellow]" and s_ratio.startswith("> ")


def test_sections_skip_saying_why_when_the_budget_is_spent(monkeypatch) -> None:
    spent = BenchRun(budget=Budget(0.0))
    assert "conformance harness: skipped: 0 s of the budget left" in printed(conformance_cmds.bench_section, spent)
    monkeypatch.setattr(mastra_cmds, "adapter_available", lambda: True)
    text = printed(mastra_cmds.bench_section, spent)
    assert "real Mastra: skipped: 0 s of the budget left" in text
    assert "real Mastra (raw): not measured: 0 s of the budget left" in text
    assert "Breakwater (guarded): not measured:" in text


def test_the_campaigns_name_why_breakwater_is_not_measured(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv("BREAKWATER_MODULE", raising=False)
    assert mastra_cmds._campaign_targets()[1][3] == "BREAKWATER_MODULE names no build"
    monkeypatch.setenv("BREAKWATER_MODULE", str(tmp_path / "absent.mjs"))
    assert mastra_cmds._campaign_targets()[1][3].endswith("absent.mjs: no such file")
