"""Known deviations (docs/protocol.md "Known discrepancies"): an entry of
adapters/breakwater/KNOWN.json holds a case only when the implementation's observation is, field
by field, the model's with the entry's recorded deviation applied; anything else is a
disagreement. ``vectors check --known`` / ``--only`` and the pytest plugin's
``--guardspec-known`` report such a case as an expected deviation naming its finding."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.cases import judge, model_observation, scenario_hash
from guardspec.conformance.compare import FIELDS, comparison_from_json
from guardspec.conformance.impl import Answer
from guardspec.conformance.known import deviated, finding_of, known_entry, load_known
from guardspec.conformance.serve import serve_command
from guardspec.conformance.settings import BadArguments
from guardspec.conformance.vectors import load_vector

KNOWN = Path("adapters/breakwater/KNOWN.json")
VECTORS = Path("vectors/conformance")
HELLO = {"modes": ["guarded"], "fields": {"guarded": list(FIELDS)}, "compare": {"normalise": "mastra"}}
MASTRA = comparison_from_json({"normalise": "mastra"})

# What each finding of docs/breakwater-findings.md says Breakwater does on its vector, written
# here from the finding's text and the seed's rules (G16.2: a not-classified refusal is one
# agent.input.policy error event without detail), not read from KNOWN.json.
NOT_CLASSIFIED = "input message content is not classified"


def _entries() -> list[dict]:
    return [k for k in load_known(KNOWN) if "vector" in k]


def _case(entry: dict) -> tuple[dict, dict, dict]:
    """The entry's vector: its scenario, the model's observation, the predicted observation."""
    v = load_vector(VECTORS / f"{entry['vector']}.json")
    model = v.expect["guarded"]
    predicted = deviated(entry["deviation"], model, v.scenario)
    assert predicted is not None
    return v.scenario, model, predicted


def _matched(known: list, sj: dict, model: dict, impl_obs: dict) -> dict | None:
    reply = {"status": "ok", "observation": impl_obs, "fields": list(FIELDS)}
    v = judge(sj, "guarded", model, Answer(reply=reply), MASTRA, HELLO, sj["call"].get("loop", "generate"))
    assert v.status in ("disagree", "problem"), v  # both are looked up in the known file
    return known_entry(known, v, sj["call"].get("loop", "generate"), scenario_hash(sj), model, sj, impl_obs, MASTRA)


def test_every_vector_entry_is_bound_to_its_vector_and_changes_the_models_observation() -> None:
    entries = _entries()
    # every finding the doc holds (a withdrawn one has no heading) has a vector entry, and no other
    held = set(re.findall(r"^## (BW-F\d+):", Path("docs/breakwater-findings.md").read_text(), re.M))
    assert held and {finding_of(k) for k in entries} == held
    for k in entries:
        sj, model, predicted = _case(k)
        assert k["scenario"] == scenario_hash(sj), k["vector"]
        assert predicted != model and model == model_observation(sj, "guarded"), k["vector"]


@pytest.mark.parametrize("name", ["g8-appended-input-message-with-function-fails", "g8-changed-caller-message-with-function-fails"])
def test_the_bw_f2_deviation_is_the_input_assets_gates_refusal_as_the_seed_words_it(name: str) -> None:
    """BW-F2 as its finding states it: refused by breakwater-input-assets as not classified, the
    processor event replaced by one agent.input.policy error event without detail; the rest the
    model's (the removal leaves the same list)."""
    entry = next(k for k in _entries() if k["vector"] == name)
    _sj, model, predicted = _case(entry)
    want = copy.deepcopy(model)
    want["outcome"] = {"kind": "refused", "reason": NOT_CLASSIFIED, "processorId": "breakwater-input-assets"}
    want["audit"][-1] = {
        "action": "agent.input.policy",
        "decision": "error",
        "reason": NOT_CLASSIFIED,
        "actor": model["audit"][0]["actor"],
        "resource": "agent:agent",
    }
    assert predicted == want


def _entry(name: str) -> dict:
    return next(k for k in _entries() if k["vector"] == name)


def test_the_bw_f3_deviation_keeps_the_carrier_as_the_thread_held_it() -> None:
    sj, model, predicted = _case(_entry("s3-durable-caller-outcome-saved"))
    held = next(m for m in sj["threads"][0]["messages"] if m["id"] == "a0")
    assert held["parts"][-1]["state"] == "call"
    assert predicted == {**model, "stored": [model["stored"][0], held, *model["stored"][2:]]}


def test_the_bw_f4_deviation_maps_and_caches_the_stored_result_as_raw_mastra_does() -> None:
    sj, model, predicted = _case(_entry("g11-stored-result-on-remembered-input-sent-as-stored"))
    raw = model_observation(sj, "raw")
    want = copy.deepcopy(model)
    want["prompts"][0][2]["parts"][1]["result"] = raw["prompts"][0][2]["parts"][1]["result"]
    want["stored"][1]["parts"][1] = raw["stored"][1]["parts"][1]
    assert want["prompts"][0][2]["parts"][1]["result"] == {"type": "text", "value": 'mapped:"Oslo"'}
    assert predicted == want


def test_the_bw_f5_deviation_is_the_call_its_policies_would_allow_reading_the_callers_text_alone() -> None:
    sj, model, predicted = _case(_entry("g10-durable-call-context-read"))
    unmatched = copy.deepcopy(sj)
    unmatched["agent"]["policies"][0]["patterns"] = ["NOT-IN-THIS-CALL"]
    allowed = model_observation(unmatched, "guarded")
    want = {**model, **{f: allowed[f] for f in ("outcome", "audit", "prompts")}, "read": "hello"}
    assert "FORBIDDEN-10" in json.dumps(want["prompts"]) and predicted == want


def _perturbed(obs: dict, field: str) -> dict:
    """``obs`` changed in one field only, in a way no normalisation erases."""
    out = copy.deepcopy(obs)
    v = out.get(field)
    if field == "outcome":
        v["reason"] = v.get("reason", "") + "!"
    elif isinstance(v, dict):
        v["perturbed"] = 1
    elif isinstance(v, list):
        v.append({"role": "user", "id": "zz", "parts": []} if field in ("stored", "prompts") else {"action": "x", "decision": "y"})
    elif isinstance(v, str):
        out[field] = v + "!"
    else:
        out[field] = "perturbed"
    return out


CASES = [(k["vector"], f) for k in load_known(KNOWN) if "vector" in k for f in FIELDS]


@pytest.mark.parametrize("vector, field", CASES, ids=[f"{v}-{f}" for v, f in CASES])
def test_a_known_entry_refuses_an_observation_that_differs_from_its_deviation_in_one_field(vector: str, field: str) -> None:
    known = load_known(KNOWN)
    entry = next(k for k in known if k.get("vector") == vector)
    sj, model, predicted = _case(entry)
    assert _matched(known, sj, model, predicted) is entry  # the exact deviation is the finding
    assert _matched(known, sj, model, _perturbed(predicted, field)) is None


def test_a_look_alike_of_a_finding_is_not_filed_under_it() -> None:
    """Same field, same first differing path and value as BW-F2 (what a signature entry asked),
    yet the refusal names the processor: a new behaviour, not the finding."""
    known = load_known(KNOWN)
    sj, model, predicted = _case(next(k for k in known if k.get("vector") == "g8-appended-input-message-with-function-fails"))
    look_alike = copy.deepcopy(predicted)
    look_alike["outcome"]["processorId"] = "p1"
    assert _matched(known, sj, model, look_alike) is None
    look_alike = copy.deepcopy(predicted)
    look_alike["audit"][-1]["detail"] = {"processor": "p1"}
    assert _matched(known, sj, model, look_alike) is None


def test_rewrites_predict_a_finding_on_scenarios_other_than_its_vector() -> None:
    """BW-F5's durable entry: the read without the context's texts and every other field the
    model's; BW-F3's: the carrier stored as the thread held it. Any other change is refused."""
    known = load_known(KNOWN)
    sj = copy.deepcopy(load_vector(VECTORS / "g10-durable-call-context-read.json").scenario)
    sj["call"]["context"][0]["parts"][0]["text"] = "a harmless note"
    model = model_observation(sj, "guarded")
    assert model["read"] == "hello\na harmless note"
    impl = copy.deepcopy(model)
    impl["read"] = "hello"
    assert finding_of(_matched(known, sj, model, impl) or {}) == "BW-F5"
    impl["prompts"][0].pop(1)  # the context not sent either: not what BW-F5 says
    assert _matched(known, sj, model, impl) is None

    sj = copy.deepcopy(load_vector(VECTORS / "s3-durable-caller-outcome-saved.json").scenario)
    sj["call"]["messages"][1]["parts"][0]["text"] = "thank you"
    model = model_observation(sj, "guarded")
    impl = copy.deepcopy(model)
    impl["stored"][1] = next(m for m in sj["threads"][0]["messages"] if m["id"] == "a0")
    assert finding_of(_matched(known, sj, model, impl) or {}) == "BW-F3"
    impl["stored"][2]["parts"][0]["text"] = "thanks"
    assert _matched(known, sj, model, impl) is None


@pytest.mark.parametrize(
    "entry, where",
    [
        ({"deviation": [], "reason": "x"}, "$.known[0].deviation"),
        ({"deviation": [{"path": "$.nowhere", "value": 1}], "reason": "x"}, "$.known[0].deviation[0].path"),
        ({"deviation": [{"path": "$.read"}], "reason": "x"}, "$.known[0].deviation[0]"),
        ({"deviation": [{"path": "$.read", "rewrite": "guess"}], "reason": "x"}, "$.known[0].deviation[0].rewrite"),
        ({"deviation": [{"path": "$.stored", "rewrite": "withoutCallContext"}], "reason": "x"}, "$.known[0].deviation[0].path"),
        ({"deviation": [{"path": "$.read", "value": "a", "why": 1}], "reason": "x"}, "$.known[0].deviation[0].why"),
        ({"reason": "x"}, "$.known[0].signature"),
    ],
)
def test_a_malformed_deviation_is_an_error_naming_its_json_path(tmp_path: Path, entry: dict, where: str) -> None:
    f = tmp_path / "known.json"
    f.write_text(json.dumps({"guardspec": 1, "known": [entry]}))
    with pytest.raises(BadArguments, match=re.escape(f"{where}:")):
        load_known(f)
    r = CliRunner().invoke(_main, ["vectors", "check", "--impl", "false", "--known", str(f)])
    assert r.exit_code == 2 and where in r.output, r.output


# -- vectors check --only / --known, and the pytest plugin, on a fake implementation -----------

FAKE = """
import json, sys
from guardspec.conformance.serve import answer
from guardspec.conformance.cases import scenario_hash
TARGET, SLIGHTLY = {target!r}, {slightly!r}
for line in sys.stdin:
    reply, stop = answer(json.loads(line))
    if reply.get("observation") and scenario_hash(json.loads(line)["scenario"]) == TARGET:
        o = reply["observation"]
        o["outcome"] = {{"kind": "refused", "reason": "{nc}", "processorId": "breakwater-input-assets"}}
        o["audit"][-1] = {{"action": "agent.input.policy", "decision": "error", "reason": "{nc}",
                           "actor": o["audit"][0]["actor"], "resource": "agent:agent"}}
        if SLIGHTLY:
            o["audit"][-1]["detail"] = {{"processor": "p1"}}
    print(json.dumps(reply), flush=True)
    if stop:
        break
"""
TARGET_VECTOR = "g8-appended-input-message-with-function-fails"


def _fake(tmp_path: Path, slightly: bool) -> str:
    """An implementation that is the reference except on BW-F2's vector, where it does what
    BW-F2 says Breakwater does (or, ``slightly``, also names the processor in the event)."""
    target = scenario_hash(load_vector(VECTORS / f"{TARGET_VECTOR}.json").scenario)
    f = tmp_path / ("slightly.py" if slightly else "exact.py")
    f.write_text(FAKE.format(target=target, slightly=slightly, nc=NOT_CLASSIFIED))
    return f"{sys.executable} {f}"


def test_vectors_check_only_runs_the_named_vectors_and_refuses_an_unknown_one() -> None:
    serve = " ".join(serve_command())
    r = CliRunner().invoke(_main, ["vectors", "check", "--impl", serve, "--only", TARGET_VECTOR, "--only", "s1-reply-saved.json"])
    assert r.exit_code == 2 and "--only 's1-reply-saved.json'" in r.output
    r = CliRunner().invoke(
        _main, ["vectors", "check", "--impl", serve, "--only", TARGET_VECTOR, "--only", "s3-durable-caller-outcome-saved.json"]
    )
    assert r.exit_code == 0, r.output
    assert "2/2 agree or skipped" in r.output


@pytest.mark.slow
def test_vectors_check_known_names_the_finding_of_an_exact_deviation_and_fails_a_slight_one(tmp_path: Path) -> None:
    args = ["vectors", "check", "--only", TARGET_VECTOR, "--only", "g6-throw-fails-with-one-processor-event"]
    r = CliRunner().invoke(_main, [*args, "--impl", _fake(tmp_path, False), "--known", str(KNOWN)])
    assert r.exit_code == 0, r.output
    assert "2/3 agree or skipped, 1 expected deviations (BW-F2)" in r.output
    r = CliRunner().invoke(_main, [*args, "--impl", _fake(tmp_path, False)])
    assert r.exit_code == 1 and "DISAGREE" in r.output
    r = CliRunner().invoke(_main, [*args, "--impl", _fake(tmp_path, True), "--known", str(KNOWN)])
    assert r.exit_code == 1 and "DISAGREE" in r.output and "expected deviation" not in r.output


def _plugin_args() -> list[str]:
    eps = metadata.entry_points(group="pytest11")
    return [] if any(e.value == "guardspec.pytest_plugin" for e in eps) else ["-p", "guardspec.pytest_plugin"]


@pytest.mark.slow
def test_the_pytest_plugin_passes_a_known_deviation_with_its_id_and_fails_a_new_one(tmp_path: Path) -> None:
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    for name in (TARGET_VECTOR, "g6-throw-fails-with-one-processor-event"):
        (vectors / f"{name}.json").write_text((VECTORS / f"{name}.json").read_text())
    (tmp_path / "test_nothing.py").write_text("def test_own():\n    pass\n")
    base = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *_plugin_args(), str(tmp_path / "test_nothing.py")]
    base += ["--guardspec-vectors", str(vectors), "--guardspec-examples", "0", "--guardspec-known", str(Path.cwd() / KNOWN)]
    base += ["--junitxml", str(tmp_path / "junit.xml"), "-rA"]
    ok = subprocess.run([*base, "--guardspec-impl", _fake(tmp_path, False)], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-2000:]
    assert "4 passed" in ok.stdout
    assert f"guardspec: expected deviation BW-F2: guardspec::vector::{TARGET_VECTOR}[guarded]" in ok.stdout
    assert 'name="guardspec_expected_deviation" value="BW-F2"' in (tmp_path / "junit.xml").read_text()
    bad = subprocess.run([*base, "--guardspec-impl", _fake(tmp_path, True)], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1, bad.stdout[-3000:]
    assert f"FAILED ::guardspec::vector::{TARGET_VECTOR}[guarded]" in bad.stdout and "$.outcome.reason" in bad.stdout


def test_the_known_file_is_valid_by_its_published_schema() -> None:
    import jsonschema

    schema = json.loads(Path("docs/schemas/known.schema.json").read_text())
    jsonschema.validate(json.loads(KNOWN.read_text()), schema)
    bad = {"guardspec": 1, "known": [{"deviation": [{"path": "$.read", "value": "a", "rewrite": "withoutCallContext"}], "reason": "x"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
