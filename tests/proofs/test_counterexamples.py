"""Honesty (a): every counterexample z3 finds is decoded into a Scenario and replayed through
the interpreter, which must show the same violation; each semantic mutant of
properties/mutants.py is refuted by a replayed, differential counterexample."""

from __future__ import annotations

import pytest

from guardspec.properties.symbolic.prove import COUNTEREXAMPLE, PROVEN, prove, refute_mutant
from guardspec.properties.symbolic.scope import Scope
from guardspec.properties.symbolic.switches import MUTANT_SWITCHES, OUT_OF_SCOPE, SURVIVORS

SMALL = Scope(4, 2, 3)


def test_raw_mode_counterexamples_replay() -> None:
    """I12: raw Mastra violates I1, I2 and I4; z3 finds each and the interpreter replays it."""
    vs = {v.name: v for v in prove(SMALL, "raw", timeout=600)}
    for name in ("I1", "I2", "I4"):
        assert vs[name].status == COUNTEREXAMPLE
        assert vs[name].replayed, vs[name]
        assert vs[name].replay[0].startswith(name)
    for v in vs.values():
        assert v.status != COUNTEREXAMPLE or v.replayed, v


@pytest.mark.slow
def test_guarded_mode_counterexamples_replay() -> None:
    """Whatever z3 refutes in guarded mode, the interpreter shows too (no spurious findings).
    The timeout only keeps a hang from stalling the suite (I4 needs some 20 s at this bound on
    a loaded machine); how long proofs take is measured by ``guardspec bench``."""
    for v in prove(SMALL, "guarded", timeout=600):
        assert v.status in (PROVEN, COUNTEREXAMPLE)
        assert v.status != COUNTEREXAMPLE or v.replayed, v


@pytest.mark.slow
def test_guarded_mode_without_call_context_is_proven() -> None:
    vs = prove(Scope(4, 2, 3, call_context=False), "guarded", timeout=600)  # no hang; time not asserted
    assert {v.name: v.status for v in vs} == dict.fromkeys(
        [f"I{i}" for i in range(1, 11)] + ["G7", "G11", "G12", "G15", "G1", "G3", "G7n", "G7s", "G2"], PROVEN
    )


def _mutants() -> list[str]:
    try:
        from guardspec.properties.mutants import MUTANTS
    except ImportError:  # pragma: no cover - written by another issue
        return []
    return list(MUTANTS)


def test_only_the_documented_mutants_are_outside_the_encoded_scope() -> None:
    """A mutant the encoding cannot express is named in OUT_OF_SCOPE with its reason, one no
    claim tells from the guard in SURVIVORS. None is left out: the scope has the audit's shapes
    and an unreadable actor (the G15 claim: allowed_events_give_a_reason,
    unreadable_actor_audited), stored results re-added under input and mapped
    (history_input_read_unmapped), a throwing mapping (G11) and a
    throwing evaluator (G12), split system content (system_parts_read_apart), MOVE reaches
    context messages (refusal_keeps_responses) and the G7 identity claim sees what a processor
    receives (processors_receive_input_only), an ADD may carry a text/plain file part
    (text_file_data_read_raw), or one naming a URL the input-assets gate denies (the claim G2:
    input_assets_gate_skipped), the carrier may hold a stored result beside the caller's
    outcome (stored_result_mapped, mapped_history_not_reread). None is outside it. Processors may return system entries (an
    object whose systemMessages holds null: null_system_entries_skipped; an array holding an AI
    SDK system entry: ai_sdk_system_entry_applied, the claims G7n and G7s). An ADD may carry content the model never
    receives (a citation in its text part's providerOptions, a user message's reasoning part),
    so the issue-10 substrate mutants that send it (user_message_sends_every_part,
    part_provider_options_sent, message_metadata_sent) have switches. Every other mutant has a switch."""
    assert OUT_OF_SCOPE == {}
    assert all(OUT_OF_SCOPE.values())
    assert SURVIVORS == {}
    assert set(_mutants()) - set(OUT_OF_SCOPE) <= set(MUTANT_SWITCHES)


@pytest.mark.parametrize("name", [n for n in _mutants() if n not in OUT_OF_SCOPE])
def test_each_semantic_mutant_is_refuted_with_a_replayed_counterexample(name: str) -> None:
    assert name in MUTANT_SWITCHES, f"mutant {name} has no switch in properties/symbolic/switches.py"
    kill = refute_mutant(name, Scope(3, 2, 2), timeout=600)
    if kill is None:
        assert name in SURVIVORS, f"{name} survives the scope but is not listed in SURVIVORS"
        return
    assert kill.under_mutant, f"{name}: z3 counterexample to {kill.name} not replayed under the mutant"
    assert not kill.without, f"{name}: the unmutated reference violates {kill.name} there too: {kill.without}"
