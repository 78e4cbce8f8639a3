"""Known deviations (docs/protocol.md "Known discrepancies"): an entry of
adapters/breakwater/KNOWN.json names a finding's deviation of the model (conformance/deviations.py)
and holds a case only when the implementation's observation is, field by field, the model's run
with that deviation; anything else is a disagreement. Each finding's vector records the
observation Breakwater gave on it (``deviated``, measured on the build), and the deviation must
predict it. ``vectors check --known`` / ``--only`` and the pytest plugin's ``--guardspec-known``
report such a case as an expected deviation naming its finding."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.cases import judge, model_observation, scenario_hash
from guardspec.conformance.compare import FIELDS, comparison_from_json, differences
from guardspec.conformance.deviations import DEVIATIONS, deviated_observation, deviating
from guardspec.conformance.impl import Answer
from guardspec.conformance.known import finding_of, known_entry, load_known
from guardspec.conformance.serve import serve_command
from guardspec.conformance.settings import BadArguments
from guardspec.conformance.vectors import load_vector

KNOWN = Path("adapters/breakwater/KNOWN.json")
VECTORS = Path("vectors/conformance")
HELLO = {"modes": ["guarded"], "fields": {"guarded": list(FIELDS)}, "compare": {"normalise": "mastra"}}
MASTRA = comparison_from_json({"normalise": "mastra"})
FINDINGS_DOC = Path("docs/breakwater-findings.md").read_text()

# What each finding of docs/breakwater-findings.md says Breakwater does, written here from the
# finding's text and the seed's rules (G16.2: a not-classified refusal is one agent.input.policy
# error event without detail), not read from the deviations.
NOT_CLASSIFIED = "input message content is not classified"


def _finding_vectors() -> list[tuple[str, str]]:
    """(finding, vector) for every vector a finding of the doc names on its Vector(s) line."""
    out = []
    for block in re.split(r"(?m)^## ", FINDINGS_DOC)[1:]:
        m = re.match(r"(BW-F\d+):", block)
        line = re.search(r"(?m)^- Vectors?: (.*(?:\n  .*)*)", block)
        if m and line:
            out += [(m.group(1), n) for n in dict.fromkeys(re.findall(r"`([\w-]+)`", line.group(1))) if (VECTORS / f"{n}.json").is_file()]
    return out


PAIRS = _finding_vectors()


def _recorded(finding: str, name: str) -> tuple[dict, dict, dict]:
    """The vector's scenario, the model's observation and Breakwater's, as the vector records it."""
    v = load_vector(VECTORS / f"{name}.json")
    return v.scenario, v.expect["guarded"], v.deviated[finding]["guarded"]


def _matched(known: list, sj: dict, model: dict, impl_obs: dict) -> dict | None:
    reply = {"status": "ok", "observation": impl_obs, "fields": [f for f in impl_obs if f in FIELDS]}
    loop = sj["call"].get("loop", "generate")
    v = judge(sj, "guarded", model, Answer(reply=reply), MASTRA, HELLO, loop)
    assert v.status in ("disagree", "problem"), v  # both are looked up in the known file
    return known_entry(known, v, loop, scenario_hash(sj), model, sj, impl_obs, MASTRA)


def test_every_finding_has_a_deviation_its_known_entry_names_and_a_vector_recording_breakwaters_observation() -> None:
    held = set(re.findall(r"^## (BW-F\d+):", FINDINGS_DOC, re.M))
    known = load_known(KNOWN)
    assert held and set(DEVIATIONS) == held
    assert {k["deviation"] for k in known if "deviation" in k} == held and all(finding_of(k) == k["deviation"] for k in known)
    assert {f for f, _ in PAIRS} == held
    for f, name in PAIRS:
        assert "guarded" in load_vector(VECTORS / f"{name}.json").deviated.get(f, {}), name
    for d in DEVIATIONS.values():
        assert d.clause in d.doc and "Breakwater" in d.doc, d.name


@pytest.mark.parametrize("finding, name", PAIRS, ids=[n for _, n in PAIRS])
def test_each_deviation_predicts_the_observation_breakwater_gave_on_its_vector(finding: str, name: str) -> None:
    """The recorded observation is the build's (vectors check on BREAKWATER_MODULE), not the
    deviation's: the model with the deviation has no difference from it, the seed's model has."""
    sj, model, breakwater = _recorded(finding, name)
    reported = [f for f in breakwater if f in FIELDS]
    assert differences(model, breakwater, sj, "guarded", MASTRA, reported)
    assert differences(deviated_observation(sj, "guarded", [finding]), breakwater, sj, "guarded", MASTRA, reported) == []
    # every other deviation leaves this vector as the seed's model has it
    for other in set(DEVIATIONS) - {finding}:
        assert deviated_observation(sj, "guarded", [other]) == model, other


@pytest.mark.parametrize("name", [n for f, n in PAIRS if f == "BW-F2"])
def test_the_bw_f2_deviation_is_the_input_assets_gates_refusal_as_the_seed_words_it(name: str) -> None:
    """BW-F2 as its finding states it: refused by breakwater-input-assets as not classified, the
    processor event replaced by one agent.input.policy error event without detail; the rest the
    model's (the removal leaves the same list)."""
    sj, model, _ = _recorded("BW-F2", name)
    want = copy.deepcopy(model)
    want["outcome"] = {"kind": "refused", "reason": NOT_CLASSIFIED, "processorId": "breakwater-input-assets"}
    want["audit"][-1] = {
        "action": "agent.input.policy",
        "decision": "error",
        "reason": NOT_CLASSIFIED,
        "actor": model["audit"][0]["actor"],
        "resource": "agent:agent",
    }
    assert deviated_observation(sj, "guarded", ["BW-F2"]) == want


def test_the_bw_f3_deviation_keeps_the_carrier_as_the_thread_held_it() -> None:
    sj, model, _ = _recorded("BW-F3", "s3-durable-caller-outcome-saved")
    held = next(m for m in sj["threads"][0]["messages"] if m["id"] == "a0")
    predicted = deviated_observation(sj, "guarded", ["BW-F3"])
    assert held["parts"][-1]["state"] == "call"
    assert predicted["stored"] == [model["stored"][0], held, *model["stored"][2:]]
    assert {f: predicted[f] for f in ("outcome", "audit", "read")} == {f: model[f] for f in ("outcome", "audit", "read")}


def test_the_bw_f4_deviation_maps_and_caches_the_stored_result_as_raw_mastra_does() -> None:
    sj, model, _ = _recorded("BW-F4", "g11-stored-result-on-remembered-input-sent-as-stored")
    raw = model_observation(sj, "raw")
    want = copy.deepcopy(model)
    want["prompts"][0][2]["parts"][1] = raw["prompts"][0][2]["parts"][1]
    want["stored"][1]["parts"][1] = raw["stored"][1]["parts"][1]
    [row] = [r for r in want["list"]["messages"] if r["message"]["id"] == "a1"]
    [raw_row] = [r for r in raw["list"]["messages"] if r["message"]["id"] == "a1"]
    row["message"]["parts"][1] = raw_row["message"]["parts"][1]
    assert want["prompts"][0][2]["parts"][1]["result"] == {"type": "text", "value": 'mapped:"Oslo"'}
    assert deviated_observation(sj, "guarded", ["BW-F4"]) == want


def test_the_bw_f4_deviation_changes_nothing_on_the_durable_loop() -> None:
    """BW-F4 is generate and stream's: on durable the carrier is memory only by the time Mastra's
    mapping pass runs (BW-F3), and Breakwater agrees with the seed there unless BW-F3 shows; a
    build mapping the carrier's stored result on durable is a regression, not BW-F4."""
    sj, _, _ = _recorded("BW-F4", "g11-stored-result-on-remembered-input-sent-as-stored")
    durable = copy.deepcopy(sj)
    durable["call"]["loop"] = "durable"
    assert deviated_observation(durable, "guarded", ["BW-F4"]) == model_observation(durable, "guarded")
    assert deviated_observation(sj, "guarded", ["BW-F4"]) != model_observation(sj, "guarded")


def test_the_bw_f5_deviation_is_the_call_its_policies_would_allow_reading_the_callers_text_alone() -> None:
    sj, model, _ = _recorded("BW-F5", "g10-durable-call-context-read")
    unmatched = copy.deepcopy(sj)
    unmatched["agent"]["policies"][0]["patterns"] = ["NOT-IN-THIS-CALL"]
    allowed = model_observation(unmatched, "guarded")
    want = {**model, **{f: allowed[f] for f in ("outcome", "audit", "prompts", "list")}, "read": "hello"}
    assert "FORBIDDEN-10" in json.dumps(want["prompts"]) and deviated_observation(sj, "guarded", ["BW-F5"]) == want


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


CASES = [(f, n, field) for f, n in PAIRS for field in FIELDS if field in _recorded(f, n)[2]]


@pytest.mark.parametrize("finding, name, field", CASES, ids=[f"{n}-{x}" for _, n, x in CASES])
def test_a_known_entry_refuses_an_observation_that_differs_from_its_deviation_in_one_field(finding: str, name: str, field: str) -> None:
    """Breakwater's own observation is filed under its finding; the same observation changed in
    any one field it reports is filed under no finding, alone or with others."""
    known = load_known(KNOWN)
    sj, model, breakwater = _recorded(finding, name)
    assert finding_of(_matched(known, sj, model, breakwater) or {}) == finding
    assert _matched(known, sj, model, _perturbed(breakwater, field)) is None


def test_a_look_alike_of_a_finding_is_not_filed_under_it() -> None:
    """Same field, same first differing path and value as BW-F2 (what a signature entry asked),
    yet the refusal names the processor: a new behaviour, not the finding."""
    known = load_known(KNOWN)
    sj, model, breakwater = _recorded("BW-F2", "g8-appended-input-message-with-function-fails")
    look_alike = copy.deepcopy(breakwater)
    look_alike["outcome"]["processorId"] = "p1"
    assert _matched(known, sj, model, look_alike) is None
    look_alike = copy.deepcopy(breakwater)
    look_alike["audit"][-1]["detail"] = {"processor": "p1"}
    assert _matched(known, sj, model, look_alike) is None


def test_a_deviation_predicts_its_finding_on_scenarios_other_than_its_vector() -> None:
    """BW-F5 on a harmless context: the read without the context's text and every other field
    the model's; BW-F2 on an appended assistant message; BW-F3 with a processor's addition. Any
    other change is refused."""
    known = load_known(KNOWN)
    sj = copy.deepcopy(load_vector(VECTORS / "g10-durable-call-context-read.json").scenario)
    sj["call"]["context"][0]["parts"][0]["text"] = "a harmless note"
    model = model_observation(sj, "guarded")
    assert model["read"] == "hello\na harmless note"
    impl = {**copy.deepcopy(model), "read": "hello"}
    assert finding_of(_matched(known, sj, model, impl) or {}) == "BW-F5"
    impl["prompts"][0].pop(1)  # the context not sent either: not what BW-F5 says
    assert _matched(known, sj, model, impl) is None

    sj = copy.deepcopy(load_vector(VECTORS / "g8-appended-input-message-with-function-fails.json").scenario)
    sj["agent"]["processors"][0]["end"]["return"]["array"]["append"][0]["role"] = "assistant"
    model = model_observation(sj, "guarded")
    assert model["outcome"] == {"kind": "refused", "reason": "input processor failed", "processorId": "p1"}
    impl = copy.deepcopy(model)
    impl["outcome"] = {"kind": "refused", "reason": NOT_CLASSIFIED, "processorId": "breakwater-input-assets"}
    impl["audit"][-1] = {"action": "agent.input.policy", "decision": "error", "reason": NOT_CLASSIFIED}
    impl["audit"][-1].update({"actor": model["audit"][0]["actor"], "resource": "agent:agent"})
    assert finding_of(_matched(known, sj, model, impl) or {}) == "BW-F2"

    sj = copy.deepcopy(load_vector(VECTORS / "s3-durable-caller-outcome-saved.json").scenario)
    sj["call"]["messages"][1]["parts"][0]["text"] = "thank you"
    model = model_observation(sj, "guarded")
    impl = copy.deepcopy(model)
    impl["stored"][1] = next(m for m in sj["threads"][0]["messages"] if m["id"] == "a0")
    assert finding_of(_matched(known, sj, model, impl) or {}) == "BW-F3"
    impl["stored"][2]["parts"][0]["text"] = "thanks"
    assert _matched(known, sj, model, impl) is None


def test_two_findings_in_one_call_are_filed_under_both_and_under_neither_alone() -> None:
    """A durable call with a context and a carrier: Breakwater neither reads the context
    (BW-F5) nor saves the carrier (BW-F3); neither deviation alone predicts that."""
    known = load_known(KNOWN)
    sj = copy.deepcopy(load_vector(VECTORS / "s3-durable-caller-outcome-saved.json").scenario)
    sj["call"]["context"] = [{"id": "x1", "role": "user", "createdAt": 1, "parts": [{"type": "text", "text": "a note"}]}]
    sj["agent"]["allowedPrincipalKinds"] = ["human"]
    model = model_observation(sj, "guarded")
    assert model["read"].endswith("a note")
    impl = {**copy.deepcopy(model), "read": model["read"].removesuffix("\na note")}
    impl["stored"][1] = next(m for m in sj["threads"][0]["messages"] if m["id"] == "a0")
    entry = _matched(known, sj, model, impl) or {}
    assert finding_of(entry) == "BW-F3+BW-F5" and "BW-F3" in entry["reason"] and "BW-F5" in entry["reason"]
    assert _matched([k for k in known if k["deviation"] != "BW-F5"], sj, model, impl) is None
    assert _matched([k for k in known if k["deviation"] != "BW-F3"], sj, model, impl) is None


def test_a_deviation_bends_only_the_model_run_in_its_own_context() -> None:
    """A campaign judges cases on several threads: while one runs the model with BW-F5,
    another thread's model is the seed's."""
    sj, model, _ = _recorded("BW-F5", "g10-durable-call-context-read")
    inside, done = threading.Event(), threading.Event()
    seen: dict = {}

    def deviated() -> None:
        with deviating(["BW-F5"]):
            inside.set()
            done.wait(10)
            seen["read"] = model_observation(sj, "guarded")["read"]

    t = threading.Thread(target=deviated)
    t.start()
    assert inside.wait(10)
    assert model_observation(sj, "guarded") == model
    done.set()
    t.join()
    assert seen["read"] == "hello"


@pytest.mark.parametrize(
    "entry, where",
    [
        ({"deviation": "BW-F9", "reason": "x"}, "$.known[0].deviation"),
        ({"deviation": [{"path": "$.read", "value": "a"}], "reason": "x"}, "$.known[0].deviation"),
        ({"deviation": "BW-F2", "vector": "v", "reason": "x"}, "$.known[0].vector"),
        ({"deviation": "BW-F2"}, "$.known[0].reason"),
        ({"reason": "x"}, "$.known[0].signature"),
    ],
)
def test_a_malformed_entry_is_an_error_naming_its_json_path(tmp_path: Path, entry: dict, where: str) -> None:
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
    assert schema["properties"]["known"]["items"]["properties"]["deviation"]["enum"] == list(DEVIATIONS)
    bad = {"guardspec": 1, "known": [{"deviation": "BW-F9", "reason": "x"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_vectors_check_accepts_the_observation_a_vector_records_for_a_finding_the_known_file_names() -> None:
    from guardspec.conformance.vectors import recorded_deviation

    known = load_known(KNOWN)
    v = load_vector(VECTORS / "g8-appended-input-message-with-function-fails.json")
    breakwater = v.deviated["BW-F2"]["guarded"]

    def answer(obs: dict) -> Answer:
        return Answer(reply={"status": "ok", "observation": obs, "fields": [f for f in obs if f in FIELDS]})

    assert finding_of(recorded_deviation(known, v, "guarded", "generate", answer(breakwater), HELLO) or {}) == "BW-F2"
    without = [k for k in known if k["deviation"] != "BW-F2"]
    assert recorded_deviation(without, v, "guarded", "generate", answer(breakwater), HELLO) is None
    assert recorded_deviation(known, v, "guarded", "generate", answer(_perturbed(breakwater, "audit")), HELLO) is None


def test_regenerating_the_vectors_keeps_the_observations_they_record_for_findings(tmp_path: Path) -> None:
    from guardspec.conformance.vectors import generate

    name = "g8-appended-input-message-with-function-fails.json"
    (tmp_path / name).write_text((VECTORS / name).read_text())
    generate(Path("examples"), tmp_path, generated=0)
    assert json.loads((tmp_path / name).read_text()) == json.loads((VECTORS / name).read_text())
