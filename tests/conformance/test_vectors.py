"""Conformance vectors, comparisons and the pytest plugin (docs/protocol.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.compare import Comparison, comparison_from_json, differences
from guardspec.conformance.serve import serve_command
from guardspec.conformance.vectors import COMPARISON_SCHEMA, VECTOR_SCHEMA, load_vector, vector_paths

SERVE = " ".join(serve_command())
ROOT = Path("vectors/conformance")


def test_published_schemas_are_the_ones_the_harness_uses() -> None:
    assert json.loads(Path("docs/schemas/vector.schema.json").read_text()) == VECTOR_SCHEMA
    assert json.loads(Path("docs/schemas/comparison.schema.json").read_text()) == COMPARISON_SCHEMA


def test_every_vector_is_valid_names_clauses_and_matches_the_model() -> None:
    from guardspec.conformance.cases import model_observation

    paths = vector_paths([ROOT])
    assert len(paths) >= 90
    for p in paths:
        v = load_vector(p)
        assert v.clauses, p
        for mode, obs in v.expect.items():
            assert model_observation(v.scenario, mode) == obs, p


@pytest.mark.slow
def test_vectors_check_against_serve_agrees(tmp_path: Path) -> None:
    r = CliRunner().invoke(_main, ["vectors", "check", "--impl", SERVE])
    assert r.exit_code == 0, r.output[-2000:]
    assert "agree or skipped" in r.output


@pytest.mark.slow
def test_vectors_check_reports_a_mutant_and_a_bad_vector(tmp_path: Path) -> None:
    r = CliRunner().invoke(_main, ["vectors", "check", "--impl", " ".join(serve_command("two_events_per_failure"))])
    assert r.exit_code == 1 and "DISAGREE" in r.output
    bad = tmp_path / "bad.json"
    data = json.loads((ROOT / "g6-throw-fails-with-one-processor-event.json").read_text())
    data["scenario"]["agent"]["processors"][0]["end"] = 5
    bad.write_text(json.dumps(data))
    r = CliRunner().invoke(_main, ["vectors", "check", "--impl", SERVE, str(bad)])
    assert r.exit_code == 2 and "$.scenario.agent.processors[0].end" in r.output.replace("\n", "")


def test_allowed_patterns_and_the_reply_id() -> None:
    sj = {"guardspec": 1, "agent": {}, "call": {"messages": [{"id": "u1", "role": "user", "parts": []}]}}
    model = {
        "guardspec": 1,
        "outcome": {"kind": "failed", "error": "TypeError: caller messages must not have role system"},
        "audit": [{"action": "agent.input.authorize", "decision": "allowed", "reason": "authorized", "actor": None, "resource": "agent:a"}],
        "result": {"text": "ok", "finishReason": "stop", "messages": ["u1", "reply-1"], "rememberedMessages": []},
    }
    impl = json.loads(json.dumps(model))
    impl["outcome"]["error"] = "TypeError: system messages are not accepted from callers"
    impl["audit"][0]["reason"] = "rbac ok"
    impl["result"]["messages"] = ["u1", "a7f3-uuid"]
    assert differences(model, impl, sj, "guarded", Comparison()) == []
    impl["outcome"]["error"] = "Error: nope"
    d = differences(model, impl, sj, "guarded", Comparison())
    assert [x.path for x in d] == ["$.outcome.error"] and "TypeError" in d[0].expected
    impl["outcome"]["error"] = "TypeError"
    impl["audit"][0]["decision"] = "denied"
    d = differences(model, impl, sj, "guarded", Comparison())
    assert [x.path for x in d] == ["$.audit[0].decision"]
    ids_only = comparison_from_json({"fields": {"audit": "ids", "result": "ignore"}})
    impl["audit"][0]["decision"] = "allowed"
    impl["result"]["messages"] = ["u1", "u1"]
    assert differences(model, impl, sj, "guarded", ids_only) == []


def _plugin_args() -> list[str]:
    eps = metadata.entry_points(group="pytest11")
    return [] if any(e.value == "guardspec.pytest_plugin" for e in eps) else ["-p", "guardspec.pytest_plugin"]


@pytest.mark.slow
def test_pytest_plugin_runs_vectors_and_a_campaign(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_own():\n    pass\n")
    base = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        *_plugin_args(),
        str(tmp_path),
        "--guardspec-vectors",
        str(Path.cwd() / ROOT),
        "--guardspec-examples",
        "15",
    ]
    ok = subprocess.run([*base, "--guardspec-impl", SERVE], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-2000:]
    n_vec = sum(len(load_vector(p).expect) for p in vector_paths([ROOT]))
    assert f"{n_vec + 2} passed" in ok.stdout, ok.stdout[-500:]
    bad = subprocess.run(
        [*base, "--guardspec-impl", " ".join(serve_command("own_abort_audited_as_failure"))], capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 1 and "guardspec::vector::" in bad.stdout and "$.audit" in bad.stdout, bad.stdout[-3000:]
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *_plugin_args(), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert plain.returncode == 0 and "1 passed" in plain.stdout
