"""``guardspec findings``: each finding of docs/breakwater-findings.md as an issue-ready text,
checked against the vectors it names (they exist, its command runs exactly that vector, the
model's observation shown is the one the vector records from the reference)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.findings import findings, markdown
from guardspec.conformance.serve import serve_command
from guardspec.conformance.vectors import load_vector

ROOT = Path(".")
FOUND = findings(ROOT)
IDS = re.findall(r"^## (BW-F\d+):", Path("docs/breakwater-findings.md").read_text(), re.M)


def test_every_finding_of_the_doc_is_printed_once_in_order() -> None:
    assert [f["id"] for f in FOUND] == IDS and IDS


@pytest.mark.parametrize("f", FOUND, ids=[f["id"] for f in FOUND])
def test_a_finding_names_existing_vectors_and_shows_the_references_observation_beside_breakwaters(f: dict) -> None:
    spec = Path("spec/SPEC.md").read_text()
    assert f["seed"], f["id"]
    for s, sentence in f["seed"].items():
        assert f"**{s} " in spec and sentence.split(". ", 1)[1][:60] in " ".join(spec.split())
    assert re.search(r"`\w+(\.\w+)?`", f["breakwater"]), "names the function responsible"
    sources = Path("docs/evidence/breakwater-sources.md").read_text()
    for commit in re.findall(r"\bat ([0-9a-f]{7,40})\b", f["measuredOn"]) or [None]:
        assert commit is not None and commit in sources, "names the versions it was measured on, as the build lists them"
    assert "**Measured on**" in markdown(f)
    assert f["vectors"]
    for v in f["vectors"]:
        recorded = load_vector(Path("vectors/conformance") / f"{v['name']}.json")
        assert v["scenario"] == recorded.scenario
        assert v["model"] == recorded.expect["guarded"]  # the reference's, as the vector records it
        assert v["sideBySide"], "a deviation is recorded for the finding's vector"
        for row in v["sideBySide"]:
            assert row["model"] != row["impl"], row["path"]
        words = shlex.split(v["command"])
        assert words[:3] == ["guardspec", "vectors", "check"] and words[-2:] == ["--only", v["name"]]
        text = markdown(f)
        assert v["command"] in text and f"vectors/conformance/{v['name']}.json" in text
        assert json.dumps(v["scenario"], ensure_ascii=False) in text


@pytest.mark.slow
def test_each_findings_command_runs_exactly_its_vector() -> None:
    """The printed command, with the reference standing in for the build, runs one vector."""
    serve = " ".join(serve_command())
    for f in FOUND:
        for v in f["vectors"]:
            words = shlex.split(v["command"])
            args = words[1:]
            args[args.index("--impl") + 1] = serve
            r = CliRunner().invoke(_main, args)
            assert r.exit_code == 0 and "1/1 agree or skipped" in r.output, (v["name"], r.output[-800:])


def test_the_command_prints_markdown_and_json_and_the_report_carries_the_same_text() -> None:
    from guardspec.report.collect import findings as report_findings

    md = CliRunner().invoke(_main, ["findings"])
    assert md.exit_code == 0 and md.output.count("\n### BW-F") + md.output.startswith("### BW-F") == len(IDS)
    js = CliRunner().invoke(_main, ["findings", "--format", "json"])
    assert js.exit_code == 0 and [f["id"] for f in json.loads(js.output)] == IDS
    items = {i["id"]: i["text"] for i in report_findings(ROOT.resolve())["items"] if "id" in i}
    assert items == {f["id"]: markdown(f) for f in FOUND}


def test_side_by_side_lists_every_innermost_place_the_observations_differ() -> None:
    from guardspec.conformance.findings import ABSENT, leaf_differences

    a = {"outcome": {"kind": "refused", "reason": "r"}, "prompts": [], "stored": [{"id": "a0", "parts": [1, 2]}]}
    b = {"outcome": {"kind": "answered"}, "prompts": [["x"]], "stored": [{"id": "a0", "parts": [1, 3]}]}
    assert leaf_differences(a, b) == [
        ("$.outcome.kind", "refused", "answered"),
        ("$.outcome.reason", "r", ABSENT),
        ("$.prompts", [], [["x"]]),
        ("$.stored[0].parts[1]", 2, 3),
    ]
    assert leaf_differences(a, a) == []
