"""Text file parts in the z3 scope (G12.6, M12.8): an ADD's message
may carry a ``text/plain`` file part whose data is base64; the model receives it decoded and
the guard reads it decoded. Checked against the interpreter by hand and on random calls, I4
proven with them in scope, and the issue-9 mutant that reads the base64 string refuted."""

from __future__ import annotations

import random

import pytest
from attrs import evolve

from guardspec.model.messages import FilePart
from guardspec.model.observation import Answered
from guardspec.properties.harness import execute
from guardspec.properties.symbolic.decode import scenario
from guardspec.properties.symbolic.observe import disagreements, of_encoding, of_run
from guardspec.properties.symbolic.prove import PROVEN, encode, prove, refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, End, Kind, LoopC, Op, Scope, Src, assumptions, file_text

SCOPE = Scope(3, 2, 2, call_context=False)
F2 = ((False, False), (False, False))


def _add_with_file(src: Src, role_assistant: bool = False) -> Choices:
    """Nothing stored; m1 the caller's message; p0 adds m0 under ``src`` with a text part and a
    text/plain file part (``fil003``), then returns undefined."""
    grid = ((True, False), (False, False))
    return Choices(
        SCOPE,
        int(LoopC.GENERATE),
        True,
        False,
        False,
        False,
        (int(Kind.ABSENT), int(Kind.INPUT), int(Kind.ABSENT)),
        (False, False, False),
        (False, False, False),
        ((int(Op.ADD), 0), (0, 0)),
        ((0, 0), (0, 0)),
        ((int(src), 0), (0, 0)),
        F2,
        ((role_assistant, False), (False, False)),
        (int(End.UNDEFINED), int(End.UNDEFINED)),
        (0, 0),
        (False, False),
        oext=F2,
        ofile=grid,
    )


@pytest.mark.parametrize("src", [Src.INPUT, Src.MEMORY, Src.CONTEXT])
def test_a_text_file_an_add_carries_is_sent_and_read_decoded(src):
    ch = _add_with_file(src)
    assert all(assumptions(ch))
    ex = execute(scenario(ch), "guarded")
    d = disagreements(of_run(SCOPE, ex), of_encoding(encode(ch, "guarded")))
    assert not d, "\n".join(d)
    assert isinstance(ex.observation.outcome, Answered)
    # the model receives the file part (M12 sends a user message's text and file parts) ...
    sent = [p for e in ex.observation.prompts[0] if getattr(e, "id", None) == "m0" for p in e.parts if isinstance(p, FilePart)]
    assert len(sent) == 1 and sent[0].media_type == "text/plain"
    # ... and the policies read its text decoded, not the base64 (G12)
    assert file_text(SCOPE.op_label(0, 0)) in ex.read.split("\n")
    assert sent[0].data not in ex.read


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_on_file_parts(mode):
    """Random calls with most ADDs carrying a text/plain file part."""
    rng = random.Random(f"files{mode}")
    checked = with_file = 0
    for _ in range(150):
        ch = random_choices(SCOPE, rng)
        ch = evolve(
            ch, ofile=tuple(tuple(o == Op.ADD and rng.random() < 0.8 for o in row) for row in ch.op), ourl=(), ouri=()
        )  # base64 data only
        assert all(assumptions(ch))
        e = encode(ch, mode)
        if not e.in_scope:
            continue
        checked += 1
        with_file += any(any(row) for row in ch.ofile)
        d = disagreements(of_run(SCOPE, execute(scenario(ch), mode)), of_encoding(e))
        assert not d, f"{ch}\n" + "\n".join(d)
    assert checked > 100 and with_file > 40  # calls whose ADDs carry a file part: 47 of the 149 in scope with these draws


def test_i4_is_proven_with_file_parts_in_scope():
    (v,) = prove(Scope(3, 2, 2), "guarded", names=["I4"], timeout=600)
    assert v.status == PROVEN


def test_text_file_data_read_raw_is_refuted_by_i4():
    kill = refute_mutant("text_file_data_read_raw", Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.name == "I4"
    assert kill.under_mutant and not kill.without
    assert any(any(row) for row in kill.choices.ofile)
