"""z3 sees what I4 sees: a system message split over text parts, which the model
receives as one text, is in the encoding, agrees with the interpreter, and the mutant that
reads its parts apart is refuted with a replayed counterexample."""

import random

import agreement
import pytest
from attrs import evolve

from guardspec.properties.symbolic.prove import refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Op, Scope, split_parts

SCOPE = Scope(3, 2, 2)


def test_split_parts_hide_label_and_marker_apart_but_not_joined():
    parts = split_parts(7, True)
    assert "".join(parts).startswith("txt007 FORBIDDEN")
    apart = "\n".join(parts)
    assert "txt007" not in apart and "FORBIDDEN" not in apart
    # M6's v4 dedupe key is the parts' types and text lengths: no two labels may share it
    assert len({tuple(map(len, split_parts(label, m))) for label in range(12) for m in (False, True)}) == 24


def _with_split(ch, k: int, j: int, marked: bool):
    def put(grid, v):
        return tuple(tuple(v if (a, b) == (k, j) else x for b, x in enumerate(row)) for a, row in enumerate(grid))

    return evolve(
        ch,
        op=put(ch.op, int(Op.ADD_SYSTEM)),
        tgt=put(ch.tgt, 0),
        src=put(ch.src, 0),
        omark=put(ch.omark, marked),
        orole=put(ch.orole, True),
        oext=put(ch.oext, False),
        ofile=put(ch.ofile, False),
        ourl=put(ch.ourl, False),
        ouri=put(ch.ouri, False),
    )


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_with_the_interpreter_on_split_system_messages(mode):
    rng = random.Random(f"split{mode}")
    checked = 0
    for i in range(60):
        ch = _with_split(random_choices(SCOPE, rng), i % 2, i % 2, bool(i % 3))
        if agreement.check(ch, mode, SCOPE) is None:
            continue
        checked += 1
    assert checked > 40


def test_reading_split_parts_apart_is_refuted_by_i4_and_replayed():
    kill = refute_mutant("system_parts_read_apart", SCOPE, timeout=600)
    assert kill is not None and kill.name == "I4"
    assert any("as the model receives them" in v for v in kill.under_mutant) and not kill.without
