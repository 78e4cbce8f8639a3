"""``guardspec diff`` finds a semantic mutant (properties/mutants.py) switched on in
``guardspec serve``, and shrinks what it finds to a small scenario (≤ 4 messages, ≤ 2
processors). The whole registry at 2,000 examples is a campaign, not a test (see the report)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardspec.conformance.campaign import run_campaign
from guardspec.conformance.serve import serve_command
from guardspec.conformance.settings import Config
from guardspec.conformance.vectors import load_vector


# examples: a third of the campaign draws Breakwater's shapes, so the guard's core
# mutants come later than in the mixed swarms alone (seed 0: at cases 70 and 134, from 60
# before); the demotion first at case 103 since the reaching share draws carrier copies
@pytest.mark.parametrize(
    "mutant, examples",
    [("refusal_keeps_input", 60), ("additions_recorded_only_after_last_processor", 150), ("memory_input_demoted_to_memory", 200)],
)
@pytest.mark.slow
def test_diff_finds_and_shrinks_the_mutant(mutant: str, examples: int, tmp_path: Path) -> None:
    cfg = Config(impl=" ".join(serve_command(mutant)), examples=examples, seed=0, out=tmp_path, modes=("guarded",), shrink_seconds=20)
    rep = run_campaign(cfg)
    assert not rep.ok and rep.counts.get("disagree")
    found = [f for f in rep.found.values() if not f.signature.endswith(":model-error")]
    assert found
    for f in found:
        assert f.messages is not None and f.messages <= 4 and f.processors <= 2, (f.signature, f.messages, f.processors)
        v = load_vector(Path(f.vector))  # the shrunk case is a replayable conformance vector
        assert v.expect and Path(f.explain).read_text().startswith("disagreement")
    shrunk = [json.loads(l) for l in (tmp_path / "results.jsonl").read_text().splitlines() if '"shrunk"' in l]
    assert {s["signature"] for s in shrunk} == {f.signature for f in found}
