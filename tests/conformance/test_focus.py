"""``guardspec diff --focus CLAUSE``: a campaign weighted towards one clause draws its shapes
far more often than the default mix, records the focus in its results (a campaign is resumed
only with the same focus), and an unknown clause is a usage error (exit 2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.cases import scenario_hash
from guardspec.conformance.census import census_of
from guardspec.conformance.drawing import generate_scenarios
from guardspec.conformance.serve import serve_command
from guardspec.properties.strategies import FOCUS_CLAUSES, focus_clause

ECHO = f"{sys.executable} -m guardspec.conformance.echo"
REFERENCE = " ".join(serve_command())


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(_main, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("clause", ["X9", "", "I3", "G17", "S10"])
def test_a_clause_no_campaign_aims_at_is_a_usage_error(clause: str) -> None:
    code, _, err = run("diff", "--impl", ECHO, "--focus", clause)
    assert code == 2 and "--focus" in err and "S1, S2" in err


def test_a_sub_clause_aims_at_its_clause() -> None:
    assert focus_clause("g8.1") == "G8" and focus_clause(" S5 ") == "S5"
    assert {f"S{k}" for k in range(1, 10)} | {f"G{k}" for k in range(17)} == set(FOCUS_CLAUSES)


@pytest.mark.slow
@pytest.mark.parametrize(
    "clause, shape",
    [
        ("G16", ("asset origins", "some allowed")),
        ("S7", ("system entry", "content: other value")),
        ("S6", ("tool outcome", "result: a string")),
    ],
)
def test_a_focused_campaign_draws_the_clauses_shapes_far_more_often(clause: str, shape: tuple) -> None:
    plain = census_of(generate_scenarios(11, 300), mode="guarded")
    aimed = census_of(generate_scenarios(11, 300, focus=clause), mode="guarded")
    assert aimed.reached.get(shape, 0) >= 2 * max(1, plain.reached.get(shape, 0)), (plain.reached.get(shape), aimed.reached.get(shape))


@pytest.mark.slow
def test_the_focus_is_recorded_and_a_campaign_resumes_only_with_it(tmp_path: Path) -> None:
    out = tmp_path / "g16"
    common = ["--impl", REFERENCE, "--seed", "5", "--examples", "12", "--mode", "guarded", "--no-shrink", "--out", str(out)]
    code, stdout, _ = run("diff", *common, "--focus", "g16.2", "--json")
    assert code == 0 and json.loads(stdout)["focus"] == "G16"
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    header = next(r for r in recs if r["type"] == "campaign")
    assert header["focus"] == "G16" and "focused_swarms('G16'" in header["strategy"]
    drawn = [scenario_hash(s) for s in generate_scenarios(5, 12, focus="G16")]
    assert {r["case"]: r["hash"] for r in recs if r["type"] == "case"} == dict(enumerate(drawn))  # the focused draw
    code, _, err = run("diff", *common, "--focus", "S8")
    assert code == 2 and "another campaign" in err
    code, _, err = run("diff", *common)
    assert code == 2 and "another campaign" in err


@pytest.mark.slow
@pytest.mark.parametrize("clause", ["S3", "S5", "S7", "S8", "G0", "G16"])
def test_every_focused_scenario_is_one_the_model_reads(clause: str) -> None:
    """A focused draw writes scenarios of the format: each decodes (the model can run it)."""
    from guardspec.model import codec

    for sj in generate_scenarios(2, 60, focus=clause):
        codec.scenario_from_json(sj)
