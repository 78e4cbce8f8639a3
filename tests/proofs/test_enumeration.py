"""Bounded exhaustive enumeration through the interpreter agrees with the encoding and z3."""

from __future__ import annotations

import pytest

from guardspec.properties.symbolic.exhaustive import bench_proofs, enumerate_scope, verdicts_agree
from guardspec.properties.symbolic.scope import Scope


@pytest.mark.parametrize("mode", ["guarded", "raw"])
@pytest.mark.slow
def test_enumeration_agrees_call_by_call_and_with_z3(mode: str) -> None:
    en = enumerate_scope(Scope(1, 1, 0), mode)
    assert en.calls > 2000
    assert not en.disagreements, en.disagreements[:3]
    assert verdicts_agree(en) == []
    if mode == "raw":
        assert en.violations["I1"] and en.violations["I2"] and en.violations["I4"]


@pytest.mark.slow
def test_bench_proofs_rows() -> None:
    rows = bench_proofs([Scope(1, 1, 0, call_context=False)], [Scope(2, 1, 1)])
    assert len(rows) == 2
    (_, z1, e1), (_, z2, e2) = rows
    assert z1 >= 0 and e1 is not None and e1 > 0
    assert e2 is None and z2 >= 0
