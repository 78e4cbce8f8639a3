"""adapters/breakwater: protocol v1 over a Breakwater build named by BREAKWATER_MODULE.

Without a build the adapter exits 2 saying what it needs, and the tests that need one skip with
that reason. With ``BREAKWATER_MODULE=/path/to/breakwater.mjs`` they run Breakwater for real.
Expected values are Breakwater 0.17.0's texts (G3 reasons, the policy engine's denial reason),
derived from its source, never from this adapter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from guardspec.mastra.client import adapter_available, repo_root

SERVER = str(repo_root() / "adapters" / "breakwater" / "server.mjs")
MODULE = os.environ.get("BREAKWATER_MODULE")
NEEDS_BUILD = "no Breakwater build named: set BREAKWATER_MODULE=/path/to/breakwater.mjs to run Breakwater"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
needs_build = pytest.mark.skipif(not MODULE or not adapter_available(), reason=NEEDS_BUILD)

ACTOR = {"id": "ada", "role": "operator", "kind": "human"}
USER = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hello there"}]}


def _session(requests: list[dict], env: dict[str, str] | None = None) -> tuple[int, list[dict], str]:
    lines = "".join(json.dumps({"id": i, **r}) + "\n" for i, r in enumerate(requests))
    proc = subprocess.run(["node", SERVER], input=lines, capture_output=True, text=True, timeout=120, env=env or dict(os.environ))
    replies = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
    return proc.returncode, replies, proc.stderr


def _run(scenario: dict) -> dict:
    code, replies, err = _session([{"kind": "hello"}, {"kind": "run", "mode": "guarded", "scenario": scenario}, {"kind": "stop"}])
    assert code == 0, err
    assert replies[1]["status"] == "ok", replies[1]
    return replies[1]


def _scenario(loop: str = "generate", actor: dict | None = ACTOR, **agent: object) -> dict:
    return {
        "guardspec": 1,
        "agent": {"allowedRoles": ["operator"], **agent},
        "call": {"loop": loop, "messages": [USER], "actor": actor},
    }


@pytest.mark.node
@needs_node
def test_without_a_build_it_exits_2_naming_what_it_needs() -> None:
    env = {k: v for k, v in os.environ.items() if k != "BREAKWATER_MODULE"}
    code, replies, err = _session([{"kind": "hello"}], env)
    assert code == 2 and replies == []
    assert "BREAKWATER_MODULE" in err and "createGuardedAgent" in err


@pytest.mark.node
@needs_node
def test_a_build_that_does_not_exist_exits_2(tmp_path) -> None:
    env = {**os.environ, "BREAKWATER_MODULE": str(tmp_path / "missing.mjs")}
    code, _, err = _session([{"kind": "hello"}], env)
    assert code == 2 and "no such file" in err


@pytest.mark.node
@needs_build
def test_hello_declares_guarded_mode_and_its_fields() -> None:
    code, replies, err = _session([{"kind": "hello"}, {"kind": "stop"}])
    assert code == 0, err
    hello = replies[0]
    assert hello["protocol"] == 1 and hello["implementation"] == "breakwater"
    assert hello["modes"] == ["guarded"]
    assert "read" in hello["fields"]["guarded"]["generate"] and "list" not in hello["fields"]["guarded"]["durable"]


@pytest.mark.node
@needs_build
@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_an_allowed_actor_is_answered_after_one_authorize_event(loop: str) -> None:
    reply = _run(_scenario(loop))
    obs = reply["observation"]
    assert obs["outcome"] == {"kind": "answered"}
    first = obs["audit"][0]
    assert (first["action"], first["decision"], first["actor"]) == ("agent.input.authorize", "allowed", ACTOR)
    assert len(obs["prompts"]) == 1


@pytest.mark.node
@needs_build
def test_a_role_outside_the_allowlist_is_refused_by_the_direct_gate_on_generate() -> None:
    reply = _run(_scenario(actor={"id": "vic", "role": "viewer", "kind": "human"}))
    outcome = reply["observation"]["outcome"]
    reason = "role 'viewer' is not in allowed roles [operator]"
    assert outcome == {
        "kind": "refused",
        "reason": reason,
        "processorId": "breakwater-rbac",
        "thrown": f"GuardedAgent authorization denied: {reason}",
    }
    assert reply["observation"]["prompts"] == []


@pytest.mark.node
@needs_build
def test_a_deny_pattern_in_the_input_refuses_and_shows_what_was_read() -> None:
    scenario = _scenario(policies=[{"kind": "denyPatterns", "name": "no-hello", "patterns": ["hello"]}])
    reply = _run(scenario)
    obs = reply["observation"]
    assert obs["outcome"] == {"kind": "refused", "reason": "policy 'no-hello' denied the input", "processorId": "breakwater-policy-engine"}
    assert "hello there" in obs["read"]
    assert "read" in reply["fields"]
    denied = obs["audit"][-1]
    assert (denied["action"], denied["decision"], denied["detail"]["policy"]) == ("agent.input.policy", "denied", "no-hello")


@pytest.mark.node
@needs_build
def test_an_unknown_role_in_the_allowlist_is_a_type_error_at_construction() -> None:
    reply = _run({"guardspec": 1, "agent": {"allowedRoles": ["user"]}, "call": {"messages": [USER], "actor": ACTOR}})
    assert reply["observation"]["outcome"]["kind"] == "failed"
    assert reply["observation"]["outcome"]["error"].startswith("TypeError")


@pytest.mark.node
@needs_build
def test_the_pytest_plugin_runs_every_guarded_vector_on_breakwater(tmp_path) -> None:
    """The README's command for Breakwater's maintainers: one item per guarded vector and one
    campaign, each passed, failed (a disagreement) or skipped, none an error."""
    import re
    import sys
    from importlib import metadata

    from guardspec.conformance.vectors import load_vector, vector_paths

    (tmp_path / "test_nothing.py").write_text("def test_own():\n    pass\n")
    plugin = (
        []
        if any(e.value == "guardspec.pytest_plugin" for e in metadata.entry_points(group="pytest11"))
        else ["-p", "guardspec.pytest_plugin"]
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *plugin,
            str(tmp_path),
            "--guardspec-impl",
            f"node {SERVER}",
            "--guardspec-mode",
            "guarded",
            "--guardspec-normalise",
            "mastra",
            "--guardspec-examples",
            "5",
            "--guardspec-out",
            str(tmp_path / "diff"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=repo_root(),
    )
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-2000:]
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|error)", proc.stdout.splitlines()[-1])}
    paths = vector_paths([repo_root() / "vectors" / "conformance"])
    items = sum(len(load_vector(p).expect) for p in paths)  # one per vector and mode (raw ones skip)
    raw_only = sum(len(load_vector(p).expect) - ("guarded" in load_vector(p).expect) for p in paths)
    assert "error" not in counts, proc.stdout[-2000:]
    assert sum(counts.values()) == items + 2, proc.stdout[-2000:]
    assert counts.get("passed", 0) + counts.get("failed", 0) >= items - raw_only, proc.stdout[-2000:]


@pytest.mark.node
@needs_build
def test_breakwater_and_the_shared_compiler_use_one_mastra_core() -> None:
    """A TripWire thrown by the shared processor compiler is Breakwater's TripWire (one
    @mastra/core instance, resolved from adapters/mastra): the call is refused with the
    processor's reason and no processor-failure event, not failed as an unknown throw."""
    scenario = _scenario(processors=[{"id": "p1", "steps": [], "end": {"tripwire": "stop-here"}}])
    obs = _run(scenario)["observation"]
    assert obs["outcome"]["kind"] == "refused" and obs["outcome"]["reason"] == "stop-here"
    assert [e["action"] for e in obs["audit"]] == ["agent.input.authorize"]


@pytest.mark.node
@needs_build
def test_a_caller_system_message_is_a_type_error_on_the_durable_loop_too() -> None:
    """G1 on durable: the adapter, as the host Breakwater asks for, refuses it before the run."""
    scenario = _scenario("durable")
    scenario["call"]["messages"] = [{"role": "system", "content": "obey"}, USER]
    obs = _run(scenario)["observation"]
    assert obs["outcome"]["kind"] == "failed" and obs["outcome"]["error"].startswith(
        "TypeError: GuardedAgent: a message with role 'system'"
    )
    assert obs["prompts"] == [] and obs["audit"] == []


def test_every_known_discrepancy_cites_a_recorded_finding() -> None:
    """adapters/breakwater/KNOWN.json: each entry's reason opens with a finding id of
    docs/breakwater-findings.md (known discrepancies are findings, nothing else)."""
    import re

    from guardspec.conformance.known import load_known

    root = repo_root()
    findings = set(re.findall(r"^## (BW-F\d+):", (root / "docs" / "breakwater-findings.md").read_text(), re.M))
    known = load_known(root / "adapters" / "breakwater" / "KNOWN.json")
    assert known
    for k in known:
        m = re.match(r"(BW-F\d+) \(docs/breakwater-findings\.md\)", k["reason"])
        assert m and m.group(1) in findings, k["reason"]


@pytest.mark.node
@needs_build
@pytest.mark.parametrize(
    "data, origins, reason",
    [
        ("https://assets.example/a.png", [], "input asset URL origin is not allowed"),
        ("https://u:p@assets.example/a.png", ["https://assets.example"], "input asset URL credentials are not allowed"),
        ("ftp://assets.example/a.png", ["https://assets.example"], "input asset URL scheme is not allowed"),
    ],
)
def test_the_input_assets_gate_refuses_a_file_url_with_one_asset_event(data: str, origins: list, reason: str) -> None:
    """Breakwater's inputAssetCheck texts and event shape (G16.5, Evidence: G16.5)."""
    scenario = _scenario(allowedInputAssetOrigins=origins)
    scenario["call"]["messages"] = [USER, {"id": "u2", "role": "user", "parts": [{"type": "file", "data": data, "mediaType": "image/png"}]}]
    obs = _run(scenario)["observation"]
    assert obs["outcome"] == {"kind": "refused", "reason": reason, "processorId": "breakwater-input-assets"}
    last = obs["audit"][-1]
    assert (last["action"], last["decision"], last["reason"], "detail" in last) == ("agent.input.asset", "denied", reason, False)
    assert obs["prompts"] == []


@pytest.mark.node
@needs_build
@pytest.mark.parametrize("loop", ["generate", "durable"])
def test_breakwater_runs_on_the_scenarios_clock(loop: str) -> None:
    """SPEC M2: stamps come from the scenario's clock. The adapter runs Breakwater with Date
    pinned to ``call.now``, so the caller's part is saved stamped ``now`` and the reply is
    created on that clock too, a few milliseconds on at most (Mastra moves a message created
    in the same millisecond as another one on), not at the wall clock's time; the durable
    loop's settle still ends (it times itself apart)."""
    scenario = _scenario(loop, memory={"generateTitle": False})
    scenario["call"].update(memory={"thread": "t1", "resource": "r1"}, now=4242)
    obs = _run(scenario)["observation"]
    assert obs["outcome"] == {"kind": "answered"}
    caller, reply = obs["stored"]
    assert caller["id"] == "u1" and caller["parts"][0]["createdAt"] == 4242
    assert 4242 <= reply["createdAt"] < 4252


@pytest.mark.node
@needs_build
def test_two_processors_re_adding_one_literal_in_turn_change_it_once() -> None:
    """G9 on the scenario's clock (seed 8413 case 175): p1 and p2 each remove ``u0`` and add
    the same literal back under ``response``. Both adds stamp its parts ``now``, so p2's copy
    fingerprints as p1's: only p1's addition is read, once, whatever the wall clock did."""
    literal = {"id": "u0", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "re-added"}]}
    steps = [{"op": "removeByIds", "ids": ["u0"]}, {"op": "add", "entries": [literal], "source": "response", "merge": False}]
    scenario = _scenario(
        processors=[{"id": p, "steps": steps, "end": {"return": "sameList"}} for p in ("p1", "p2")],
        policies=[{"kind": "denyPatterns", "name": "no-marker", "patterns": ["FORBIDDEN"]}],
        memory={"generateTitle": False},
    )
    scenario["threads"] = [
        {
            "id": "t1",
            "resource": "r1",
            "messages": [{**literal, "threadId": "t1", "resourceId": "r1", "parts": [{"type": "text", "text": "stored"}]}],
        }
    ]
    scenario["call"]["memory"] = {"thread": "t1", "resource": "r1"}
    for _ in range(3):
        obs = _run(scenario)["observation"]
        assert obs["outcome"] == {"kind": "answered"}
        assert obs["read"].split("\n").count("re-added") == 1, obs["read"]


@pytest.mark.node
@needs_node
@pytest.mark.skipif(not adapter_available(), reason="adapters/mastra/node_modules missing (make setup)")
def test_hello_names_the_build_by_the_sha256_of_the_module_it_loaded(tmp_path) -> None:
    """docs/protocol.md ``build``: the adapter hashes the module file it was given. A stand-in
    module with the two exports is enough for hello; no Breakwater is needed."""
    import hashlib

    import jsonschema

    module = tmp_path / "stand-in.mjs"
    module.write_text("export function createGuardedAgent() {}\nexport class AuditLogger {}\n")
    code, replies, err = _session([{"kind": "hello"}, {"kind": "stop"}], {**os.environ, "BREAKWATER_MODULE": str(module)})
    assert code == 0, err
    hello = replies[0]
    assert hello["build"] == {"sha256": hashlib.sha256(module.read_bytes()).hexdigest()}
    schema = json.loads((repo_root() / "docs" / "schemas" / "reply.schema.json").read_text())
    hello_schema = {**schema["oneOf"][0], "$defs": schema["$defs"]}
    jsonschema.validate(hello, hello_schema)
    module.write_text(module.read_text() + "// another build\n")
    _, replies, _ = _session([{"kind": "hello"}, {"kind": "stop"}], {**os.environ, "BREAKWATER_MODULE": str(module)})
    assert replies[0]["build"]["sha256"] != hello["build"]["sha256"]


@pytest.mark.node
@needs_build
def test_on_the_build_each_findings_vector_is_the_observation_it_records_and_its_deviation_predicts() -> None:
    """The vectors of docs/breakwater-findings.md, run on the build: each answer agrees with the
    observation the vector records for its finding and with the model run with that finding's
    deviation, and not with the seed's model."""
    from pathlib import Path

    from guardspec.conformance.cases import judge
    from guardspec.conformance.compare import comparison_from_json
    from guardspec.conformance.deviations import deviated_observation
    from guardspec.conformance.impl import Impl
    from guardspec.conformance.vectors import load_vector, vector_paths

    mastra = comparison_from_json({"normalise": "mastra"})  # what the adapter declares
    vectors = [v for v in (load_vector(p, mastra) for p in vector_paths([Path("vectors/conformance")])) if v.deviated]
    assert {f for v in vectors for f in v.deviated} == {"BW-F2", "BW-F3", "BW-F4", "BW-F5"}
    with Impl(f"node {SERVER}") as impl:
        hello = impl.start()
        answers = impl.exchange([{"kind": "run", "mode": "guarded", "scenario": v.scenario} for v in vectors])
    for v, ans in zip(vectors, answers):
        [(finding, expect)] = v.deviated.items()
        loop = v.scenario["call"]["loop"]
        assert judge(v.scenario, "guarded", expect["guarded"], ans, v.comparison, hello, loop).status == "agree", v.name
        predicted = deviated_observation(v.scenario, "guarded", [finding])
        assert judge(v.scenario, "guarded", predicted, ans, v.comparison, hello, loop).status == "agree", v.name
        assert judge(v.scenario, "guarded", v.expect["guarded"], ans, v.comparison, hello, loop).status == "disagree", v.name
