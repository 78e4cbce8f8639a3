"""``guardspec diff --cluster``: a campaign on a real Dask scheduler with two worker processes
on the loopback address gives the verdict per case of a local ``--jobs 2`` run of the same seed,
its records coming back from both workers into the one results.jsonl; an interrupted cluster
campaign resumes; an implementation's crash on a worker costs only its case; the disagreements
are shrunk and written as vectors."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.campaign import run_campaign
from guardspec.conformance.cases import scenario_hash
from guardspec.conformance.drawing import generate_scenarios
from guardspec.conformance.serve import serve_command
from guardspec.conformance.settings import Config
from guardspec.conformance.vectors import load_vector

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dask-cluster")]

# a mutant of the guard that keeps a refused input: some cases disagree, the others agree
MUTANT = " ".join(serve_command("refusal_keeps_input"))
SEED, EXAMPLES = 3, 40
FAKE = Path(__file__).with_name("faulty_impl.py")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The verdict per (case, mode) of a local run on two processes."""
    out = tmp_path_factory.mktemp("local")
    run_campaign(Config(impl=MUTANT, examples=EXAMPLES, seed=SEED, jobs=2, out=out, modes=("guarded",), shrink=False))
    return verdicts(out)


def records(out: Path, kind: str = "case") -> list[dict]:
    """The records of one type in a results file; a line an interruption cut short is none."""
    got = []
    for line in (out / "results.jsonl").read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec["type"] == kind:
            got.append(rec)
    return got


def verdicts(out: Path) -> dict:
    return {(r["case"], r["mode"]): (r["status"], r.get("signature")) for r in records(out)}


def diff(*args: str) -> tuple[int, dict]:
    r = CliRunner().invoke(_main, ["diff", "--seed", str(SEED), "--examples", str(EXAMPLES), "--mode", "guarded", "--json", *args])
    assert r.exit_code in (0, 1), r.output
    return r.exit_code, json.loads(r.stdout)


def test_cluster_gives_the_local_verdict_per_case_and_writes_vectors(cluster: str, local: dict, tmp_path: Path) -> None:
    statuses = {s for s, _ in local.values()}
    assert {"agree", "disagree"} <= statuses  # not trivially the same: both kinds of verdict
    code, rep = diff("--impl", MUTANT, "--cluster", cluster, "--out", str(tmp_path), "--shrink-seconds", "5")
    assert code == 1
    assert verdicts(tmp_path) == local
    workers = {r["worker"] for r in records(tmp_path)}
    assert len(workers) == 2  # both workers judged cases
    assert records(tmp_path, "campaign")[0]["seed"] == SEED
    # every distinct disagreement shrunk on the client and written as a replayable vector
    found = {f["signature"]: f for f in rep["found"]}
    assert set(found) == {sig for s, sig in local.values() if s == "disagree"}
    for f in found.values():
        v = load_vector(Path(f["vector"]))
        assert v.expect and Path(f["explain"]).read_text().startswith("disagreement")
    assert {s["signature"] for s in records(tmp_path, "shrunk")} == set(found)


def test_an_interrupted_cluster_campaign_resumes(cluster: str, local: dict, tmp_path: Path) -> None:
    diff("--impl", MUTANT, "--cluster", cluster, "--out", str(tmp_path), "--no-shrink")
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    # the interruption: a third of the cases and half a line lost
    kept = 1 + 2 * (len(lines) - 1) // 3
    (tmp_path / "results.jsonl").write_text("\n".join(lines[:kept]) + "\n" + lines[kept][:15])
    _, rep = diff("--impl", MUTANT, "--cluster", cluster, "--out", str(tmp_path), "--no-shrink")
    assert rep["resumed"] == kept - 1 and rep["cases"] == EXAMPLES
    assert verdicts(tmp_path) == local


def test_a_crash_on_a_worker_costs_only_its_case(cluster: str, tmp_path: Path) -> None:
    scenarios = generate_scenarios(SEED, EXAMPLES)
    victim = 7
    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps({"crash": [scenario_hash(scenarios[victim])]}))
    impl = f"{sys.executable} {FAKE} {faults}"
    _, rep = diff("--impl", impl, "--cluster", cluster, "--out", str(tmp_path / "c"), "--no-shrink")
    got = verdicts(tmp_path / "c")
    assert len(got) == EXAMPLES
    assert {c for c, (s, _) in got.items() if s != "agree"} == {(victim, "guarded")}
    assert got[(victim, "guarded")] == ("problem", "guarded:crashed")
    assert rep["incidentCounts"] == {"crashed": 1}
