"""File URLs and the input-assets gate in the z3 scope (G16, Evidence: G16.3):
a user message a processor adds may carry a file part naming a URL of an origin the agent does
not allow (it allows none, G0), which the gate between the processors and the mapping denies
(``breakwater-input-assets``, an ``agent.input.asset`` event, G13 removal). Checked against the
interpreter by hand and on random calls with such parts, the claim G2 proven, and the mutant
without the gate refuted by it with a replayed counterexample."""

from __future__ import annotations

import random

import agreement
import pytest
from attrs import evolve

from guardspec.model.observation import Answered, Refused
from guardspec.properties.harness import check_call
from guardspec.properties.symbolic.prove import PROVEN, prove, refute_mutant
from guardspec.properties.symbolic.sample import random_choices
from guardspec.properties.symbolic.scope import Choices, End, Kind, LoopC, Op, Scope, Src, assumptions

SCOPE = Scope(2, 2, 1, call_context=False)
TRUE_FIRST = ((True,), (False,))
FALSE2 = ((False,), (False,))
GATE = "G2 denied_asset_urls_never_fetched_or_saved"


def _url_added(src: Src, then_removed: bool, loop: LoopC = LoopC.GENERATE) -> Choices:
    """m0 the caller's input; p0 adds the user message m1 (txt002) with a file part naming
    https://evil.example/fil002 under ``src``; p1 removes m1, or does nothing."""
    return Choices(
        SCOPE,
        int(loop),
        True,
        False,
        False,
        False,
        (int(Kind.INPUT), int(Kind.ABSENT)),
        (False, False),
        (False, False),
        ((int(Op.ADD),), (int(Op.REMOVE) if then_removed else int(Op.NOP),)),
        ((1,), (1 if then_removed else 0,)),
        ((int(src),), (0,)),
        FALSE2,
        FALSE2,
        (int(End.UNDEFINED), int(End.UNDEFINED)),
        (0, 0),
        (False, False),
        oext=FALSE2,
        ofile=TRUE_FIRST,
        ourl=TRUE_FIRST,
    )


def _agree(ch: Choices, mode: str = "guarded"):
    assert all(assumptions(ch))
    return agreement.check(ch, mode, SCOPE, in_scope=True)


@pytest.mark.parametrize("loop", list(LoopC))
@pytest.mark.parametrize("src", list(Src))
def test_a_user_file_url_on_the_list_after_the_processors_is_denied(loop, src):
    # the gate judges every user message on the list, whatever its source (G16.3): refused by
    # breakwater-input-assets with one agent.input.asset event, before the mapping and the
    # policies (no policy event, no read), and the call saves nothing of it
    ex = _agree(_url_added(src, False, loop))
    o = ex.observation.outcome
    assert isinstance(o, Refused) and o.processor_id == "breakwater-input-assets" and o.reason == "input asset URL origin is not allowed"
    assert [e.action for e in ex.observation.audit] == ["agent.input.authorize", "agent.input.asset"]
    assert ex.read is None and not ex.observation.prompts
    assert all("evil" not in repr(m) for m in ex.after.get("t1").messages) if ex.after.get("t1") else True
    assert check_call(ex, [GATE, "I1 refused_call_leaves_threads_intact"]) == {}


def test_a_file_url_a_later_processor_removed_passes_and_is_read_as_an_addition():
    # added under memory (a prompt entry: recorded, G9) and removed by p1: the gate sees no
    # URL; the policies read the addition, its file part as the URL it names (I4), and the
    # call is answered
    ex = _agree(_url_added(Src.MEMORY, True))
    assert isinstance(ex.observation.outcome, Answered)
    assert "https://evil.example/fil002" in ex.read
    assert check_call(ex, ["I4 nothing_reaches_model_unread", GATE]) == {}


def test_the_raw_encoding_leaves_file_urls_out():
    ch = _url_added(Src.INPUT, False)
    assert agreement.check(ch, "raw", SCOPE) is None


def test_encoding_agrees_on_user_file_urls():
    """Random calls in which every user ADD carries a file part naming a URL."""
    sc = Scope(3, 2, 2, call_context=False)
    rng = random.Random("asset-urls")
    checked = gated = 0
    for _ in range(200):
        ch = random_choices(sc, rng)
        urls = tuple(tuple(o == Op.ADD and not r for o, r in zip(orow, rrow)) for orow, rrow in zip(ch.op, ch.orole))
        ch = evolve(ch, ofile=tuple(tuple(f or u for f, u in zip(frow, urow)) for frow, urow in zip(ch.ofile, urls)), ourl=urls)
        ch = evolve(ch, ouri=tuple(tuple(i and not u for i, u in zip(irow, urow)) for irow, urow in zip(ch.ouri, urls)))
        assert all(assumptions(ch))
        ex = agreement.check(ch, "guarded", sc)
        if ex is None:
            continue
        checked += 1
        gated += getattr(ex.observation.outcome, "processor_id", "") == "breakwater-input-assets"
    assert checked > 150 and gated >= 5


def test_g2_is_proven_with_file_urls_in_scope():
    vs = prove(Scope(3, 2, 2), names=["G2", "I4", "G11"], timeout=600)
    assert [(v.name, v.status, v.premise) for v in vs] == [("G2", PROVEN, "sat"), ("I4", PROVEN, "sat"), ("G11", PROVEN, "sat")]


def test_input_assets_gate_skipped_is_refuted_by_g2():
    kill = refute_mutant("input_assets_gate_skipped", Scope(3, 2, 2), timeout=600)
    assert kill is not None and kill.name == "G2"
    assert kill.under_mutant and not kill.without
    assert any("evil.example" in v for v in kill.under_mutant)
