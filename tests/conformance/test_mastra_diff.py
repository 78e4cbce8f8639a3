"""The model against real Mastra through the one differential harness: ≥2,000
MessageList op sequences and ≥300 raw scenarios (the ``guardspec diff`` generators, three loops)
on the Mastra adapter, with no tolerance: ``vectors/mastra/KNOWN.json`` is empty and any
disagreement fails.

Every disagreement is a model-vs-Mastra finding: the model is fixed in reference/, not papered
over here (docs/evidence/mastra.md holds the evidence, one entry per clause).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.conformance.impl import Answer
from guardspec.conformance.known import load_known
from guardspec.mastra import diff as md
from guardspec.mastra.client import adapter_available
from guardspec.mastra.ops import ops_to_wire, wire_to_ops
from guardspec.mastra.ops_judge import judge_ops, model_ops_observation

# the campaign (ci_run) runs once per worker that runs a test needing it: keep them on one worker
pytestmark = pytest.mark.xdist_group("mastra-diff")
needs_mastra = pytest.mark.skipif(not adapter_available(), reason="node / adapters/mastra node_modules missing")

ADD_M1 = [
    {
        "op": "add",
        "messages": [{"id": "m1", "role": "user", "createdAt": 1000, "content": {"format": 2, "parts": [{"type": "text", "text": "one"}]}}],
        "source": "input",
    },
    {"op": "view", "name": "input"},
]


def test_known_list_is_empty() -> None:
    assert load_known(md.known_file()) == [], "every known disagreement must be fixed in the model, not tolerated"


@pytest.fixture(scope="module")
def ci_run():
    """The CI share of real Mastra: one run, the op sequences and the raw scenarios."""
    return md.run_diff(ops=2000, scenarios=300, seed=0, jobs=2, shrink_seconds=10)


@pytest.mark.slow
@pytest.mark.node
@needs_mastra
def test_op_sequences_agree(ci_run) -> None:
    ops = ci_run.ops
    assert ops.cases >= 2000
    assert not ops.incidents, ops.incidents
    assert ops.counts == {"agree": ops.cases}, {s: f.line for s, f in ops.found.items()}


@pytest.mark.slow
@pytest.mark.node
@needs_mastra
def test_the_op_sequences_census_has_no_zero(ci_run) -> None:
    """Issue 10 point 3: every op kind, source and message shape of the ops protocol is made."""
    assert ci_run.ops.census.scenarios == ci_run.ops.cases and ci_run.ops.census.zeros() == []


@pytest.mark.slow
@pytest.mark.node
@needs_mastra
def test_raw_scenarios_agree(ci_run) -> None:
    raw = ci_run.raw
    assert raw.cases >= 300
    assert raw.counts == {"agree": raw.cases}, {s: f.line for s, f in raw.found.items()}


@pytest.mark.slow
@pytest.mark.node
@needs_mastra
def test_raw_scenarios_cover_the_three_loops(ci_run) -> None:
    raw = ci_run.raw
    assert raw.cases >= 300 and not raw.model_errors
    assert raw.config.comparison.normalise == "mastra" and raw.config.modes == ("raw",)
    assert not raw.counts.get("problem"), [r.get("problem") for r in raw.problems[:5]]
    assert set(raw.by_loop) == {"generate", "stream", "durable"}
    # the default draw, every case of it counted (every shape drawn is checked on 2000 cases:
    # tests/unit/test_census.py)
    from guardspec.conformance.census import census_of
    from guardspec.conformance.drawing import generate_scenarios

    assert raw.census.scenarios == 300 and raw.census.counts == census_of(generate_scenarios(0, 300)).counts
    assert all(sum(c.values()) >= 30 for c in raw.by_loop.values()), raw.by_loop


# -- the op-sequence judge, without Mastra -----------------------------------------------------------


def test_wire_round_trip_of_generated_sequences() -> None:
    for wire in md.generate_op_sequences(seed=4, n=60):
        assert ops_to_wire(wire_to_ops(wire)) == wire


def _reply_like_the_model(wire: list[dict]) -> dict:
    """What an adapter agreeing with the model would answer (the model's own view, un-normalised)."""
    from guardspec.mastra.ops_judge import run_ops_model

    m = run_ops_model(wire_to_ops(wire))
    return {"status": "ok", "results": [r if r["ok"] else {"ok": False, "error": r["error"]} for r in m["results"]], "state": m["state"]}


def test_judge_ops_agrees_and_names_the_first_difference() -> None:
    model = model_ops_observation(ADD_M1)
    good = _reply_like_the_model(ADD_M1)
    assert judge_ops(ADD_M1, model, Answer(reply=good)).status == "agree"
    bad = json.loads(json.dumps(good))
    bad["results"][1]["value"] = []  # the input view lost m1
    v = judge_ops(ADD_M1, model, Answer(reply=bad))
    assert v.status == "disagree" and v.signature == "ops:results"
    d = v.differences[0]
    assert (d.path, d.model, d.impl) == ("$.results[1].value.length", 1, 0)


def test_judge_ops_reports_an_error_reply_as_a_problem() -> None:
    v = judge_ops(ADD_M1, model_ops_observation(ADD_M1), Answer(reply={"status": "errored", "detail": "boom"}))
    assert v.status == "problem" and v.signature == "ops:errored" and "boom" in v.problem.expected


def test_a_candidate_that_is_not_an_op_sequence_is_rejected() -> None:
    with pytest.raises(ValueError):
        model_ops_observation([{"op": ""}])


# -- the command ------------------------------------------------------------------------------------


@pytest.mark.node
@needs_mastra
def test_replay_of_a_saved_op_vector(tmp_path: Path) -> None:
    vec = tmp_path / "v.json"
    vec.write_text(json.dumps({"guardspec": 1, "kind": "mastra-ops-vector", "ops": ADD_M1}))
    assert md.replay(vec).status == "agree"
    assert md.main([str(vec)]) == 0
    (tmp_path / "bad.json").write_text(json.dumps({"kind": "conformance-vector"}))
    assert md.main([str(tmp_path / "bad.json")]) == 2


@pytest.mark.node
@needs_mastra
def test_cli_shows_progress_and_ends_with_its_summary(tmp_path: Path) -> None:
    from guardspec.commands.mastra_cmds import mastra_diff_cmd, mastra_replay_cmd

    runner = CliRunner()
    r = runner.invoke(mastra_diff_cmd, ["--ops", "40", "--scenarios", "6", "--seed", "3", "--out", str(tmp_path), "--shrink-seconds", "2"])
    assert r.exit_code in (0, 1), r.output
    assert "[mastra-diff ops] 0/40" in r.stderr and "[mastra-diff ops] 40/40 done" in r.stderr
    assert "[mastra-diff raw] 6/6 done" in r.stderr
    assert "op sequences: 40 cases" in r.stdout and "raw scenarios: mastra" in r.stdout
    assert r.stdout.strip().splitlines()[-1].startswith("mastra-diff: ")
    recs = [json.loads(x) for x in (tmp_path / "ops" / "results.jsonl").read_text().splitlines()]
    assert recs[0]["type"] == "campaign" and sum(x["type"] == "case" for x in recs) == 40
    assert sum(json.loads(x)["type"] == "case" for x in (tmp_path / "raw" / "results.jsonl").read_text().splitlines()) == 6
    assert runner.invoke(mastra_diff_cmd, ["--ops", "-1"]).exit_code == 2
    assert runner.invoke(mastra_diff_cmd, ["--bogus"]).exit_code == 2
    assert runner.invoke(mastra_replay_cmd, ["/nonexistent/vector.json"]).exit_code == 2


def test_generated_ids_are_numbered_over_the_compared_fields_only():
    # the model reports a durable list, the adapter does not; the
    # list's generated ids must not shift the numbering of the stored reply
    from guardspec.conformance.compare import differences
    from guardspec.mastra.diff import MASTRA_COMPARISON

    sj = {"call": {"messages": []}}
    reply = {"id": "reply-1", "role": "assistant", "createdAt": 5, "parts": []}
    model = {
        "outcome": {"kind": "answered"},
        "stored": [reply],
        "list": {"messages": [{"message": {**reply, "id": "msg-2"}, "sources": []}], "untagged": [], "tagged": []},
    }
    impl = {"outcome": {"kind": "answered"}, "stored": [{**reply, "id": "9f1c-uuid"}]}
    assert differences(model, impl, sj, "raw", MASTRA_COMPARISON, reported=["outcome", "stored"]) == []
