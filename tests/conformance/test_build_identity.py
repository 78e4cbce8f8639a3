"""docs/protocol.md, the start message's ``build``: an implementation that names the build it
runs (the SHA-256 of its bytes) has that identity carried by the campaign's results header, its
``--json`` summary and summary line; a campaign is not resumed on another build; a malformed
``build`` stops the run with its JSON path."""

from __future__ import annotations

import hashlib
import json
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main

# guardspec serve's answers, with a ``build`` in the start message taken from argv[1] (JSON).
BUILT = textwrap.dedent(
    """
    import json, sys
    from guardspec.conformance.serve import answer
    build = json.loads(sys.argv[1])
    for line in sys.stdin:
        rep, stop = answer(json.loads(line))
        if rep.get("implementation"):
            rep["build"] = build
        print(json.dumps(rep), flush=True)
        if stop:
            break
    """
)


def _impl(tmp_path: Path, build: object) -> str:
    p = tmp_path / "built.py"
    p.write_text(BUILT)
    return f"{sys.executable} {p} '{json.dumps(build)}'"


def _diff(impl: str, out: Path, *extra: str) -> object:
    return CliRunner().invoke(
        _main, ["diff", "--impl", impl, "--examples", "3", "--seed", "1", "--mode", "guarded", "--out", str(out), *extra]
    )


def test_the_build_an_implementation_names_is_in_the_results_and_the_summary(tmp_path: Path) -> None:
    digest = hashlib.sha256(b"a build of the implementation").hexdigest()
    out = tmp_path / "c"
    r = _diff(_impl(tmp_path, {"sha256": digest}), out, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["build"] == {"sha256": digest}
    header = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert header["type"] == "campaign" and header["build"] == {"sha256": digest}
    r2 = _diff(_impl(tmp_path, {"sha256": digest}), out)
    assert r2.exit_code == 0, r2.output
    assert f"build sha256 {digest[:12]}:" in r2.stdout and "3 resumed" in r2.stdout


def test_an_implementation_naming_no_build_leaves_it_out(tmp_path: Path) -> None:
    out = tmp_path / "c"
    from guardspec.conformance.serve import serve_command

    r = _diff(" ".join(serve_command()), out, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["build"] is None
    assert "build" not in json.loads((out / "results.jsonl").read_text().splitlines()[0])


def test_a_campaign_is_not_resumed_on_another_build(tmp_path: Path) -> None:
    out = tmp_path / "c"
    first, second = (hashlib.sha256(x).hexdigest() for x in (b"before", b"after"))
    assert _diff(_impl(tmp_path, {"sha256": first}), out).exit_code == 0
    r = _diff(_impl(tmp_path, {"sha256": second}), out)
    assert r.exit_code == 2
    assert f"begun on build sha256 {first}" in r.output and second in r.output


def test_a_malformed_build_stops_the_run_naming_its_path(tmp_path: Path) -> None:
    for build, path in (({"sha256": "ABC"}, "$.build.sha256: 64"), ({}, "$.build.sha256: 64"), ("x", "$.build: an object")):
        r = _diff(_impl(tmp_path, build), tmp_path / f"c{len(path)}")
        assert r.exit_code == 2, r.output
        assert path in r.output, r.output
