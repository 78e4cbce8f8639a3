"""The command line: observations as JSON, readable traces, and bad input (exit 2, JSON path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.cli import main

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = {
    "guardspec": 1,
    "agent": {
        "memory": {"generateTitle": False},
        "policies": [{"kind": "denyPatterns", "name": "marker", "patterns": ["FORBIDDEN"]}],
        "processors": [{"id": "p1", "steps": [{"op": "addSystem", "message": "sys FORBIDDEN"}], "end": {"return": "sameList"}}],
    },
    "threads": [
        {
            "id": "t1",
            "resource": "r1",
            "messages": [{"id": "h1", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "hello"}]}],
        }
    ],
    "call": {
        "loop": "generate",
        "actor": {"id": "a", "role": "operator"},
        "memory": {"thread": "t1", "resource": "r1"},
        "messages": [{"id": "u1", "role": "user", "createdAt": 5, "parts": [{"type": "text", "text": "hi"}]}],
    },
}


def _write(tmp_path: Path, data: object, name: str = "s.json") -> str:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(p)


def test_run_prints_an_observation_that_shows_the_refusal(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["run", _write(tmp_path, SCENARIO)])
    assert r.exit_code == 0, r.output
    obs = json.loads(r.output)
    # G10: the added system message is read; G12: the policy denies it; G13/G14: nothing saved.
    assert obs["outcome"] == {"kind": "refused", "reason": "policy 'marker' denied the input", "processorId": "breakwater-policy-engine"}
    assert [m["id"] for m in obs["stored"]] == ["h1"]
    assert obs["result"]["finishReason"] == "other"


def test_raw_mode_lets_the_added_system_text_reach_the_model(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["run", _write(tmp_path, SCENARIO), "--mode", "raw"])
    obs = json.loads(r.output)
    assert obs["outcome"] == {"kind": "answered"}
    assert {"role": "system", "content": "sys FORBIDDEN"} in obs["prompts"][0]


def test_loop_override(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["run", _write(tmp_path, SCENARIO), "--loop", "durable"])
    assert json.loads(r.output)["result"] is None  # §O: no generate/stream result on durable


def test_explain_shows_stages_additions_read_text_and_outcome(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["explain", _write(tmp_path, SCENARIO)])
    assert r.exit_code == 0, r.output
    for needle in (
        "preparation",
        "processor p1",
        "additions recorded",
        "sys FORBIDDEN",
        "what the policies read",
        "refused by breakwater-policy-engine",
    ):
        assert needle in r.output


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda d: d["call"].__setitem__("loop", "fast"), "$.call.loop"),
        (lambda d: d["call"].__setitem__("bogus", 1), "$.call"),
        (lambda d: d["agent"]["processors"][0]["steps"][0].pop("message"), "$.agent.processors[0].steps[0]"),
        (lambda d: d["agent"]["processors"][0].__setitem__("id", 7), "$.agent.processors[0].id"),
        (lambda d: d.__setitem__("guardspec", 2), "$.guardspec"),
        (
            lambda d: d["agent"]["processors"][0]["steps"][0].__setitem__(
                "message", {"role": "system", "content": {"$getter": "g", "vlue": 1}}
            ),
            "$.agent.processors[0].steps[0].message.content",
        ),
    ],
)
def test_malformed_scenario_exits_2_naming_the_json_path(tmp_path: Path, mutate, path: str) -> None:
    data = json.loads(json.dumps(SCENARIO))
    mutate(data)
    r = CliRunner().invoke(main, ["run", _write(tmp_path, data)])
    assert r.exit_code == 2
    assert f": {path}: " in r.output
    assert "Traceback" not in r.output


def test_bad_json_exits_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["run", _write(tmp_path, "{nope")])
    assert r.exit_code == 2
    assert "$: valid JSON" in r.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["run", str(tmp_path / "absent.json")])
    assert r.exit_code == 2
