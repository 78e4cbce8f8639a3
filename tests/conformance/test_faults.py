"""Every fault costs only its own case (docs/protocol.md, "The harness"): an implementation
(``faulty_impl.py``, ``guardspec serve``'s answers otherwise) skips, duplicates, garbles,
crashes, hangs and holds replies back at chosen scenarios; each fault is charged to its case
alone, every other case is compared, and duplicate, late and out-of-order replies are counted."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from rich.console import Console

from guardspec.commands.conformance_cmds import print_report, report_json
from guardspec.conformance.campaign import run_campaign
from guardspec.conformance.cases import model_observation, scenario_hash
from guardspec.conformance.drawing import generate_scenarios
from guardspec.conformance.impl import Impl
from guardspec.conformance.settings import Config

FAKE = Path(__file__).with_name("faulty_impl.py")


def _fake(tmp_path: Path, faults: dict) -> list[str]:
    f = tmp_path / "faults.json"
    f.write_text(json.dumps(faults))
    return [sys.executable, str(FAKE), str(f)]


def test_each_fault_in_one_exchange_costs_its_own_request(tmp_path: Path) -> None:
    sc = json.loads(Path("examples/g6-throw-fails-with-one-processor-event.json").read_text())
    scenarios = [{**sc, "call": {**sc["call"], "reply": f"r{k}"}} for k in range(12)]
    h = [scenario_hash(s) for s in scenarios]
    cmd = _fake(tmp_path, {"skip": [h[1]], "dup": [h[3]], "garble": [h[5]], "hold": {h[6]: h[8]}, "crash": [h[9]]})
    with Impl(cmd, timeout=2.0) as im:
        im.start()
        a = im.exchange([{"kind": "run", "mode": "guarded", "scenario": s} for s in scenarios])
        kinds = {k: a[k].problem.kind for k in range(12) if a[k].problem is not None}
        assert kinds == {1: "timeout", 5: "garbage", 9: "crashed"}
        expected = model_observation(scenarios[0], "guarded")
        for k in set(range(12)) - set(kinds):
            assert a[k].reply["observation"]["outcome"] == expected["outcome"], k
        assert a[6].notes[0].startswith("out-of-order")
        assert "dying at" in a[9].problem.expected  # the crash's stderr kept
        # after the crash, 1 (skipped) and 10, 11 were sent again to the fresh process
        assert all(a[k].notes and a[k].notes[0].startswith("re-run on a fresh process") for k in (1, 10, 11))
        assert sorted(i.kind for i in im.incidents) == ["crashed", "duplicate", "out-of-order", "timeout"]
        assert {i.kind: i.case for i in im.incidents} == {"crashed": 9, "duplicate": 3, "out-of-order": 6, "timeout": 1}
    # a reply held past its timeout, sent once a later exchange's request is read: late
    with Impl(_fake(tmp_path, {"hold": {h[0]: h[2]}}), timeout=1.0) as im:
        im.start()
        a = im.exchange([{"kind": "run", "mode": "guarded", "scenario": s} for s in scenarios[:2]])
        assert [x.problem.kind if x.problem else None for x in a] == ["timeout", None]
        b = im.exchange([{"kind": "run", "mode": "guarded", "scenario": s} for s in scenarios[2:4]])
        assert [x.problem for x in b] == [None, None] and im.restarts == 0
        assert [(i.kind, i.case) for i in im.incidents] == [("timeout", 0), ("late", 0)]
    # a hang: charged to the request it hangs on, the ones behind it run on a fresh process
    with Impl(_fake(tmp_path, {"hang": [h[2]]}), timeout=2.0) as im:
        im.start()
        a = im.exchange([{"kind": "run", "mode": "guarded", "scenario": s} for s in scenarios[:6]])
        assert [x.problem.kind if x.problem else None for x in a] == [None, None, "timeout", None, None, None]
        assert im.restarts == 1 and all(x.notes for x in a[3:])


@pytest.mark.slow
def test_k_faults_in_200_cases_cost_at_most_k_cases(tmp_path: Path) -> None:
    seed, n = 7, 200
    h = [scenario_hash(s) for s in generate_scenarios(seed, n)]
    faults = {
        "skip": [h[5]],
        "garble": [h[9]],
        "crash": [h[20]],  # in flight with the skip and the garble (16 at a time)
        "hang": [h[70]],
        "dup": [h[80]],  # behind the hang: answered (twice) by the fresh process
        # held until a later case is read: out of order, the window being kept full (16)
        "hold": {h[130]: h[140], h[165]: h[195]},
    }
    injected = 7
    out = tmp_path / "c"
    cfg = Config(
        impl=" ".join(_fake(tmp_path, faults)), examples=n, seed=seed, timeout=2.0, out=out, modes=("guarded",), shrink=False, window=16
    )
    rep = run_campaign(cfg)
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    cases = {c["case"]: c for c in lines if c["type"] == "case"}
    assert len(cases) == n
    problems = {i: c["problem"]["kind"] for i, c in cases.items() if c["status"] == "problem"}
    assert len(problems) <= injected
    assert problems == {5: "timeout", 9: "garbage", 20: "crashed", 70: "timeout"}
    assert all(c["status"] == "agree" for i, c in cases.items() if i not in problems)
    assert cases[130]["notes"][0].startswith("out-of-order") and cases[165]["notes"][0].startswith("out-of-order")
    incidents = sorted((r["kind"], r["case"]) for r in lines if r["type"] == "incident")
    assert incidents == [
        ("crashed", 20),
        ("duplicate", 80),
        ("out-of-order", 130),
        ("out-of-order", 165),
        ("timeout", 5),
        ("timeout", 70),
    ]
    assert rep.incident_counts == {"crashed": 1, "duplicate": 1, "out-of-order": 2, "timeout": 2}
    assert report_json(rep)["incidentCounts"] == rep.incident_counts
    text = io.StringIO()
    print_report(rep, Console(file=text, width=200), census=False)
    assert "incidents: crashed 1, duplicate 1, out-of-order 2, timeout 2" in text.getvalue()
    # resumed, the campaign keeps the incidents of the cases it does not run again
    assert run_campaign(cfg).incident_counts == rep.incident_counts


@pytest.mark.node
def test_the_mastra_adapters_hang_and_crash_cost_only_their_requests() -> None:
    """The adapter's test hooks (docs/protocol.md): ``hang`` never answers and blocks the
    requests chained behind it, ``crash`` exits; each costs its own request."""
    from guardspec.mastra.client import adapter_available, default_command

    if not adapter_available():
        pytest.skip("node / adapters/mastra node_modules missing")
    sc = json.loads(Path("examples/g6-throw-fails-with-one-processor-event.json").read_text())
    run = {"kind": "run", "mode": "raw", "scenario": sc}
    with Impl(default_command(), timeout=5.0) as im:
        im.start()
        a = im.exchange([run, {"kind": "hang"}, run, {"kind": "crash"}, run])
    assert [x.problem.kind if x.problem else x.reply["status"] for x in a] == ["ok", "timeout", "ok", "crashed", "ok"]
    assert im.restarts == 2 and sorted(i.kind for i in im.incidents) == ["crashed", "timeout"]
    assert a[0].reply["observation"]["outcome"] == a[2].reply["observation"]["outcome"] == a[4].reply["observation"]["outcome"]
