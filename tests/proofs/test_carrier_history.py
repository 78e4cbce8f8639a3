"""A stored result beside the caller's outcome on the remembered message, in the z3 scope
(``Choices.car_hist``): the carrier's stored message holds the result of an earlier call
(``hst<s>``, its own result text) before its pending call. G11 under the guard
(G11.1, G11.2): of a remembered input message only the caller's
outcome parts are mapped, so the stored result is sent as stored; of one a processor changed
every result part is mapped, and Breakwater records it again so that the mapped text is read
(G10). Checked against the interpreter by hand and on random calls of that shape, and the two
issue-9 mutants it brings into reach refuted with replayed counterexamples."""

from __future__ import annotations

import random

import agreement
import pytest
from attrs import evolve

from guardspec.model.messages import Message, ToolPart
from guardspec.model.observation import Answered
from guardspec.model.values import UNDEFINED, obj
from guardspec.properties.harness import check_call
from guardspec.properties.symbolic.prove import PROVEN, prove, refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, End, Kind, LoopC, Op, Scope, assumptions

SCOPE = Scope(3, 2, 2, call_context=False)
FALSE2 = ((False, False), (False, False))


def _carrier(op: Op = Op.NOP, mapping_throws: bool = False, car_err: bool = False, loop: LoopC = LoopC.GENERATE) -> Choices:
    """m1 the carrier (stored: txt001, the result of call hst1, the pending call tc1; the
    caller sends tc1's outcome back), the mapping on; p0's one step ``op`` on m1."""
    return Choices(
        SCOPE,
        int(loop),
        True,
        False,
        True,
        False,
        (int(Kind.INPUT), int(Kind.CARRIER), int(Kind.ABSENT)),
        (False, True, False),
        (False, False, False),
        ((int(op), 0), (0, 0)),
        ((1 if op is not Op.NOP else 0, 0), (0, 0)),
        ((0, 0), (0, 0)),
        FALSE2,
        FALSE2,
        (int(End.UNDEFINED), int(End.UNDEFINED)),
        (0, 0),
        (False, False),
        mapping_throws=mapping_throws,
        oext=FALSE2,
        ofile=FALSE2,
        car_err=car_err,
        car_hist=True,
    )


def _agree(ch: Choices, mode: str = "guarded"):
    assert all(assumptions(ch))
    return agreement.check(ch, mode, SCOPE, in_scope=True)


def _sent_hist(ex) -> ToolPart:
    m = next(e for e in ex.observation.prompts[0] if isinstance(e, Message) and e.id == "m1")
    return next(p for p in m.parts if isinstance(p, ToolPart) and p.tool_call_id == "hst1")


def test_an_unchanged_remembered_message_sends_its_stored_result_as_stored():
    # G11.1: of the remembered input message only the caller's outcome tc1 is mapped and
    # read (G10: the recorded outcome parts); the stored result goes to the model as stored
    # (history, I4), unread, with no cached output
    ex = _agree(_carrier())
    assert isinstance(ex.observation.outcome, Answered)
    # sent as stored: the string result as its text output (M12.6), with no cached mapping
    assert _sent_hist(ex).result == obj(type="text", value="hst-clean") and _sent_hist(ex).provider_metadata is UNDEFINED
    assert 'mapped:"res-clean"' in ex.read and "hst" not in ex.read
    assert check_call(ex, ["I4 nothing_reaches_model_unread"]) == {}


def test_a_changed_remembered_message_is_mapped_whole_and_read_as_sent():
    # p0 edits m1's text in place: a change (G9), recorded; G11 maps every result part of it,
    # the stored result too, and Breakwater records it again as mapped (G10), so the mapped
    # text the model receives is read
    ex = _agree(_carrier(Op.EDIT))
    assert isinstance(ex.observation.outcome, Answered)
    assert 'mapped:"hst-clean"' in repr(_sent_hist(ex).provider_metadata)
    assert 'mapped:"hst-clean"' in ex.read.split("\n")
    assert check_call(ex, ["I4 nothing_reaches_model_unread"]) == {}


def test_a_throwing_mapping_never_runs_on_the_stored_result_of_an_unchanged_remembered_message():
    # the caller's outcome an error (never mapped), the stored result beside it: no part of
    # the call's input is due a mapping (SPEC G11: caller messages and input messages a
    # processor changed), so the call is answered, and the G11 property does not ask otherwise
    ex = _agree(_carrier(mapping_throws=True, car_err=True))
    assert isinstance(ex.observation.outcome, Answered)
    assert check_call(ex, ["G11 mapping_error_fails_call"]) == {}
    # once p0 changes the message, its stored result is the call's input: the mapping runs
    # on it and throws, and the call fails (breakwater-client-tool-output)
    ex = _agree(_carrier(Op.EDIT, mapping_throws=True, car_err=True))
    assert ex.observation.outcome.processor_id == "breakwater-client-tool-output"
    assert check_call(ex, ["G11 mapping_error_fails_call"]) == {}


@pytest.mark.parametrize("mode", ["guarded", "raw"])
def test_encoding_agrees_on_carriers_with_a_stored_result(mode):
    """Random calls whose carrier (slot 1) holds a stored result, the mapping on in most."""
    rng = random.Random(f"carrier-history{mode}")
    checked = 0
    for _ in range(150):
        ch = random_choices(SCOPE, rng)
        on = rng.random() < 0.8
        ch = evolve(
            ch,
            **agreement.with_carrier_at_slot_1(ch),
            car_hist=True,
            hist_mark=rng.random() < 0.3,
            mapping_on=on,
            mapping_throws=on and rng.random() < 0.2,
        )
        assert all(assumptions(ch))
        if agreement.check(ch, mode, SCOPE) is None:
            continue
        checked += 1
    assert checked > 100


def test_i4_and_g11_are_proven_with_stored_results_beside_the_outcome():
    verdicts = prove(SCOPE, names=["I4", "G11", "I8"], timeout=600)
    assert [(v.name, v.status, v.premise) for v in verdicts] == [("I4", PROVEN, "sat"), ("G11", PROVEN, "sat"), ("I8", PROVEN, "sat")]


@pytest.mark.parametrize("mutant", ["stored_result_mapped", "mapped_history_not_reread"])
def test_the_mapping_mutants_are_refuted_by_i4_with_a_stored_result_beside_the_outcome(mutant):
    kill = refute_mutant(mutant, Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.name == "I4"
    assert kill.under_mutant and not kill.without
    # the mapped stored result, which the model receives and the policies never read
    assert kill.choices.car_hist and kill.choices.mapping_on
    assert any('mapped:"hst' in v for v in kill.under_mutant)
