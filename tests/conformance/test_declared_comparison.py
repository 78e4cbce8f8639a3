"""The implementation declares how to compare it (docs/protocol.md, the start message's
``compare``): ``diff``, ``vectors check``, ``mastra-diff`` and the pytest plugin use what it
declares unless the user says otherwise, and print which normalisation they used."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.settings import BadArguments, chosen_comparison, declared_comparison

HELLO = {"implementation": "fake", "version": "1"}

# The reference through the protocol, with two changes: its hello declares COMPARE (JSON, or
# nothing), and the reply id it chooses (M12) is "my-reply", not the model's "reply-1". Under
# `ids` normalisation the two agree; under `none` every answered case with a reply disagrees.
FAKE = textwrap.dedent(
    """
    import json, sys
    from guardspec.conformance.serve import answer
    COMPARE = json.loads(sys.argv[1])
    for line in sys.stdin:
        reply, stop = answer(json.loads(line))
        if reply.get("protocol") == 1 and COMPARE is not None:
            reply["compare"] = COMPARE
        text = json.dumps(reply).replace('"reply-1"', '"my-reply"')
        sys.stdout.write(text + "\\n")
        sys.stdout.flush()
        if stop:
            break
    """
)


def fake_impl(tmp_path: Path, compare: Any) -> str:
    script = tmp_path / "fake_impl.py"
    script.write_text(FAKE)
    return " ".join([sys.executable, str(script), "'" + json.dumps(compare) + "'"])


# -- the layers ----------------------------------------------------------------------------------


def test_the_declared_normalisation_is_used_and_named() -> None:
    chosen = chosen_comparison({**HELLO, "compare": {"normalise": "mastra"}})
    assert chosen.comparison.normalise == "mastra"
    assert chosen.line() == "comparison: normalise mastra (declared by fake 1)"


def test_without_a_declaration_the_default_is_ids() -> None:
    chosen = chosen_comparison(HELLO)
    assert (chosen.comparison.normalise, chosen.source) == ("ids", "default")


def test_an_explicit_normalise_wins_over_the_declaration() -> None:
    chosen = chosen_comparison({**HELLO, "compare": {"normalise": "mastra"}}, normalise="none")
    assert (chosen.comparison.normalise, chosen.source) == ("none", "--normalise")


def test_a_comparison_file_wins_over_the_declaration_only_where_it_speaks() -> None:
    hello = {**HELLO, "compare": {"normalise": "mastra", "fields": {"read": "ignore"}}}
    named = chosen_comparison(hello, {"normalise": "none"})
    assert (named.comparison.normalise, named.source) == ("none", "the comparison file")
    silent = chosen_comparison(hello, {"fields": {"title": "ids"}})
    assert silent.comparison.normalise == "mastra" and silent.source.startswith("declared by")
    assert silent.comparison.mode("read") == "ignore" and silent.comparison.mode("title") == "ids"


@pytest.mark.parametrize(
    "compare, path",
    [
        ({"normalise": "fancy"}, "$.compare.normalise"),
        ("mastra", "$.compare"),
        ({"fields": {"colour": "full"}}, "$.compare.fields.colour"),
        ({"normalize": "mastra"}, "$.compare.normalize"),
    ],
)
def test_a_malformed_declaration_names_its_path(compare: Any, path: str) -> None:
    with pytest.raises(BadArguments) as e:
        declared_comparison({**HELLO, "compare": compare})
    assert str(e.value).startswith(f"the hello reply's {path}: ")


# -- the commands ----------------------------------------------------------------------------------


def test_diff_uses_the_declared_normalisation_and_prints_it(tmp_path: Path) -> None:
    impl = fake_impl(tmp_path, {"normalise": "none"})
    r = CliRunner().invoke(_main, ["diff", "--impl", impl, "--examples", "10", "--mode", "raw", "--no-shrink"])
    assert "comparison: normalise none (declared by guardspec-reference" in r.stdout
    assert r.exit_code == 1, r.output  # the reply id is compared as it is: the fake's differs
    assert "raw:" in r.stdout


def test_diff_with_an_explicit_normalise_overrides_the_declaration(tmp_path: Path) -> None:
    impl = fake_impl(tmp_path, {"normalise": "none"})
    r = CliRunner().invoke(_main, ["diff", "--impl", impl, "--examples", "10", "--mode", "raw", "--normalise", "ids", "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["comparison"] == {"normalise": "ids", "from": "--normalise"} and rep["counts"].get("disagree", 0) == 0


def test_diff_refuses_an_unknown_declared_normalisation(tmp_path: Path) -> None:
    impl = fake_impl(tmp_path, {"normalise": "fancy"})
    r = CliRunner().invoke(_main, ["diff", "--impl", impl, "--examples", "5"])
    assert r.exit_code == 2
    assert "$.compare.normalise: one of ['ids', 'mastra', 'none'], got \"fancy\"" in r.stderr


def test_vectors_check_uses_the_declaration_and_refuses_a_bad_one(tmp_path: Path) -> None:
    vectors = sorted(Path("vectors/conformance").glob("*.json"))[:3]
    args = ["vectors", "check", *map(str, vectors), "--impl"]
    ok = CliRunner().invoke(_main, [*args, fake_impl(tmp_path, {"normalise": "ids"})])
    assert "comparison: normalise ids (declared by guardspec-reference" in ok.stdout
    bad = CliRunner().invoke(_main, [*args, fake_impl(tmp_path, {"normalise": "fancy"})])
    assert bad.exit_code == 2 and "$.compare.normalise" in bad.stderr


def test_the_pytest_plugin_uses_the_declaration_unless_told_otherwise() -> None:
    from guardspec.pytest_plugin import _Shared

    class Config:
        def __init__(self, **options: Any) -> None:
            self.options = {"guardspec_compare": [], "guardspec_normalise": None, **options}

        def getoption(self, name: str) -> Any:
            return self.options[name]

    declared = _Shared(Config())
    assert declared.comparison({**HELLO, "compare": {"normalise": "mastra"}}).normalise == "mastra"
    assert declared.chosen.line() == "comparison: normalise mastra (declared by fake 1)"
    told = _Shared(Config(guardspec_normalise="none"))
    assert told.comparison({**HELLO, "compare": {"normalise": "mastra"}}).normalise == "none"
    assert told.chosen.source == "--guardspec-normalise"


# -- the adapters ----------------------------------------------------------------------------------


@pytest.mark.node
def test_the_mastra_adapter_declares_the_mastra_normalisation() -> None:
    from guardspec.conformance.settings import implementation_hello
    from guardspec.mastra.client import adapter_available, default_command

    if not adapter_available():
        pytest.skip("needs node and `npm ci` in adapters/mastra")
    hello = implementation_hello(default_command())
    assert hello["compare"] == {"normalise": "mastra"}
    assert chosen_comparison(hello).line() == f"comparison: normalise mastra (declared by mastra {hello['version']})"


@pytest.mark.node
def test_the_breakwater_adapter_declares_the_mastra_normalisation(tmp_path: Path) -> None:
    import os

    from guardspec.conformance.settings import implementation_hello
    from guardspec.mastra.client import adapter_available, default_command, repo_root

    if not adapter_available():
        pytest.skip("needs node and `npm ci` in adapters/mastra")
    # the start message needs only a module with Breakwater's two exports, not a build
    stub = tmp_path / "breakwater-stub.mjs"
    stub.write_text("export function createGuardedAgent() {}\nexport class AuditLogger {}\n")
    cmd = [default_command()[0], str(repo_root() / "adapters" / "breakwater" / "server.mjs")]
    hello = implementation_hello(cmd, env={**os.environ, "BREAKWATER_MODULE": str(stub)})
    assert hello["implementation"] == "breakwater" and hello["compare"] == {"normalise": "mastra"}
