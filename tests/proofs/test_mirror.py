"""The legacy ``toolInvocations`` mirror in the z3 scope (G9.2):
the carrier's outcome is a result (the fold writes the mirror) or an error (it writes none);
a MOVE's literal copy never has one. Checked against the interpreter by hand and on random
calls of that shape, and the mutant the error outcome brings back into reach refuted."""

from __future__ import annotations

import random

import agreement
import pytest
from attrs import evolve

from guardspec.model.observation import Answered, Refused
from guardspec.properties.symbolic.prove import refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, End, Kind, LoopC, Op, Scope, Src, assumptions

SCOPE = Scope(3, 2, 2, call_context=False)
NONE2 = ((0, 0), (0, 0))
FALSE2 = ((False, False), (False, False))


def _readd(car_err: bool, end: End, src: Src = Src.MEMORY) -> Choices:
    """m1 the carrier (its text txt001 stored, the caller's outcome sent back); p0 MOVEs it
    under ``src`` (its literal copy as memory loaded it), then ends with ``end``."""
    return Choices(
        SCOPE,
        int(LoopC.GENERATE),
        True,
        False,
        False,
        False,
        (int(Kind.INPUT), int(Kind.CARRIER), int(Kind.ABSENT)),
        (False, True, False),
        (False, False, False),
        ((int(Op.MOVE), 0), (0, 0)),
        ((1, 0), (0, 0)),
        ((int(src), 0), (0, 0)),
        FALSE2,
        FALSE2,
        (int(end), int(End.UNDEFINED)),
        (0, 0),
        (False, False),
        oext=FALSE2,
        car_err=car_err,
    )


def _agree(ch: Choices, mode: str = "guarded"):
    assert all(assumptions(ch))
    return agreement.check(ch, mode, SCOPE, in_scope=True)


def test_a_copy_of_a_result_carrier_moved_under_input_is_read_whole_of_an_error_carrier_is_not():
    # p0 takes the carrier out and adds its literal copy back under input: it is still input,
    # so not moved (G9), and only its fingerprint decides whether it changed. A result left the
    # mirror on the folded carrier, which the copy lacks: a change, read whole (its stored text
    # txt001 among the additions). An error left none: no change, and the copy, now input
    # alone, is read as the caller's whole, its text included. Either way the outcome is read.
    with_result = _agree(_readd(False, End.UNDEFINED, Src.INPUT))
    with_error = _agree(_readd(True, End.UNDEFINED, Src.INPUT))
    assert isinstance(with_result.observation.outcome, Answered)
    assert isinstance(with_error.observation.outcome, Answered)
    for ex in (with_result, with_error):
        assert "res-clean" in ex.read.split("\n")
        assert "txt001" in ex.read


def test_a_returned_received_carrier_keeps_its_mirror():
    # p0 moves the carrier under memory and returns the array it received: that array holds
    # the folded object itself (mirror and all), which the guard re-adds memory+input (S3):
    # no change, so the stored text is not read, only the caller's outcome part.
    for car_err in (False, True):
        ex = _agree(_readd(car_err, End.ARRAY))
        assert isinstance(ex.observation.outcome, Answered)
        assert "txt001" not in ex.read
        assert "res-clean" in ex.read.split("\n")


def test_a_moved_error_carrier_is_removed_on_refusal():
    # p0 moves the error carrier under memory (its copy matches the snapshot: no mirror on
    # either side) and aborts: G13 removes it as a moved carrier all the same, so the refused
    # result holds no caller message (I3).
    ex = _agree(_readd(True, End.ABORT))
    assert isinstance(ex.observation.outcome, Refused)
    assert "m1" not in ex.observation.result.messages
    assert "m1" not in ex.observation.result.remembered


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_on_error_carriers(mode):
    """Random calls with a carrier whose outcome is an error, moved by one step in one call of
    two."""
    rng = random.Random(f"mirror{mode}")
    checked = 0
    for _ in range(150):
        ch = random_choices(SCOPE, rng)
        ch = evolve(ch, **agreement.with_carrier_at_slot_1(ch), car_err=True)
        if rng.random() < 0.5:
            k, j = rng.randrange(SCOPE.processors), rng.randrange(SCOPE.ops)
            put = lambda g, v, k=k, j=j: tuple(tuple(v if (a, b) == (k, j) else x for b, x in enumerate(row)) for a, row in enumerate(g))  # noqa: E731
            ch = evolve(
                ch,
                op=put(ch.op, int(Op.MOVE)),
                tgt=put(ch.tgt, 1),
                src=put(ch.src, rng.randrange(4)),
                omark=put(ch.omark, False),
                orole=put(ch.orole, False),
                oext=put(ch.oext, False),
                ofile=put(ch.ofile, False),
                ourl=put(ch.ourl, False),
                ouri=put(ch.ouri, False),
            )
        assert all(assumptions(ch))
        if agreement.check(ch, mode, SCOPE) is None:
            continue
        checked += 1
    assert checked > 100


def test_moved_outcomes_not_removed_is_refuted_with_an_error_carrier():
    kill = refute_mutant("moved_outcomes_not_removed", Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.under_mutant and not kill.without
    # with a result carrier the literal copy lacks the mirror and the snapshot removes it
    # anyway: only an outcome that writes no mirror tells the mutant from the guard
    assert kill.choices.car_err
