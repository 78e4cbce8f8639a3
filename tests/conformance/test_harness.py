"""The conformance harness (docs/protocol.md): ``guardspec serve`` through the protocol agrees
with the model; the harness survives implementations that crash, hang, answer garbage, answer
out of order or with another id, reporting each case and keeping every result."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.campaign import run_campaign
from guardspec.conformance.impl import Impl
from guardspec.conformance.serve import answer, serve_command
from guardspec.conformance.settings import Config

SERVE = " ".join(serve_command())


def test_serve_answers_hello_run_stop_and_bad_requests() -> None:
    hello, _ = answer({"id": 1, "kind": "hello"})
    assert hello["protocol"] == 1 and hello["modes"] == ["raw", "guarded"] and "read" in hello["fields"]
    assert answer({"id": 2, "kind": "start"})[0]["implementation"] == "guardspec-reference"
    bad, _ = answer({"id": 3, "kind": "run", "mode": "guarded", "scenario": {"guardspec": 1, "agent": {"processors": 3}, "call": {}}})
    assert bad["status"] == "errored" and bad["detail"].startswith("$.scenario.agent.processors")
    assert answer({"id": 4, "kind": "run", "mode": "weird", "scenario": {}})[0]["detail"].startswith("$.mode")
    assert answer({"id": 5, "kind": "dance"})[0]["status"] == "skipped"
    assert answer({"id": 6, "kind": "stop"}) == ({"id": 6, "status": "ok"}, True)


def test_serve_through_a_pipe_in_both_modes() -> None:
    sc = json.loads(Path("examples/g6-throw-fails-with-one-processor-event.json").read_text())
    with Impl(SERVE) as im:
        im.start()
        a, b, c = im.exchange([{"kind": "run", "mode": m, "scenario": sc} for m in ("guarded", "raw")] + [{"kind": "run"}])
    assert a.reply["observation"]["outcome"]["reason"] == "input processor failed"
    assert b.reply["observation"]["outcome"] == {"kind": "failed", "error": "AGENT_GENERATE_FAILED"}
    assert c.reply["status"] == "errored" and c.reply["detail"].startswith("$.mode")


@pytest.mark.slow
def test_diff_against_serve_finds_no_disagreement_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "campaign"
    r = CliRunner().invoke(_main, ["diff", "--impl", SERVE, "--examples", "40", "--seed", "5", "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert "[diff] 0/80" in r.stderr and "[diff] 80/80 done" in r.stderr  # progress on stderr (not a terminal: plain lines)
    assert rep["counts"].get("disagree", 0) == 0 and not rep["found"] and rep["counts"]["agree"] >= 60 and not rep["problems"]
    lines = (out / "results.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "campaign" and len(lines) == 81
    # an interruption: the last 30 lines and half a line lost; the same seed resumes
    (out / "results.jsonl").write_text("\n".join(lines[:51]) + "\n" + lines[51][:20])
    r2 = CliRunner().invoke(_main, ["diff", "--impl", SERVE, "--examples", "40", "--seed", "5", "--out", str(out), "--json"])
    assert r2.exit_code == 0, r2.output
    rep2 = json.loads(r2.stdout)
    assert rep2["resumed"] == 50 and rep2["cases"] == 80
    # another seed in the same folder is refused
    r3 = CliRunner().invoke(_main, ["diff", "--impl", SERVE, "--examples", "40", "--seed", "6", "--out", str(out)])
    assert r3.exit_code == 2 and "another campaign" in r3.output


@pytest.mark.parametrize(
    "args",
    [
        ["--examples", "0"],
        ["--jobs", "0"],
        ["--timeout-per-case", "-1"],
        ["--compare", "outcome"],
        ["--compare", "outcome=sometimes"],
        ["--compare", "colour=full"],
    ],
)
def test_diff_bad_arguments_exit_2(args: list[str]) -> None:
    r = CliRunner().invoke(_main, ["diff", "--impl", SERVE, *args])
    assert r.exit_code == 2, r.output


def test_diff_unstartable_implementation_and_bad_known_file_exit_2(tmp_path: Path) -> None:
    r = CliRunner().invoke(_main, ["diff", "--impl", "/nonexistent/impl", "--examples", "2"])
    assert r.exit_code == 2 and "start" in r.output
    known = tmp_path / "known.json"
    known.write_text(json.dumps({"known": [{"signature": "raw:list"}]}))
    r = CliRunner().invoke(_main, ["diff", "--impl", SERVE, "--known", str(known)])
    assert r.exit_code == 2 and "$.known[0].reason" in r.output


# -- misbehaving implementations ----------------------------------------------------------------

FLAKY = textwrap.dedent(
    """
    import hashlib, json, sys, time
    from guardspec.conformance.serve import answer
    mode = sys.argv[1]
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("kind") != "run":
            rep, stop = answer(req)
            print(json.dumps(rep), flush=True)
            if stop: break
            continue
        h = int(hashlib.md5(json.dumps(req.get("scenario"), sort_keys=True).encode()).hexdigest(), 16) % 7
        rep, _ = answer(req)
        if h == 0 and mode in ("crash", "all"):
            print("dying", file=sys.stderr, flush=True); sys.exit(3)
        if h == 1 and mode in ("hang", "all"):
            time.sleep(60)
        if h == 2 and mode in ("garbage", "all"):
            print("this is not json {", flush=True); continue
        if h == 3 and mode in ("wrongid", "all"):
            rep["id"] = "someone-else"
        if h == 4 and mode in ("badobs", "all"):
            rep["observation"]["audit"] = [{"action": 7}]
        if h == 5 and mode in ("dup", "all"):
            print(json.dumps(rep), flush=True)
        print(json.dumps(rep), flush=True)
    """
)


def _flaky(tmp_path: Path, mode: str) -> str:
    p = tmp_path / "flaky.py"
    p.write_text(FLAKY)
    return f"{sys.executable} {p} {mode}"


@pytest.mark.slow
def test_misbehaving_implementation_is_reported_case_by_case(tmp_path: Path) -> None:
    out = tmp_path / "c"
    cfg = Config(impl=_flaky(tmp_path, "all"), examples=30, seed=2, timeout=1.0, out=out, modes=("guarded",), shrink=False)
    rep = run_campaign(cfg)
    lines = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]
    cases = [l for l in lines if l["type"] == "case"]
    assert len(cases) == rep.cases == 30  # every result kept
    kinds = {c["problem"]["kind"] for c in cases if c["status"] == "problem"}
    assert {"crashed", "timeout", "garbage", "wrong-id"} <= kinds, kinds
    for c in cases:
        if c["status"] == "problem":
            assert c["problem"]["path"].startswith("$"), c
    crashed = [c for c in cases if c["status"] == "problem" and c["problem"]["kind"] == "crashed"]
    assert all("dying" in c["problem"]["expected"] for c in crashed)  # stderr tail kept
    bad_obs = [c for c in cases if c["status"] == "problem" and c["problem"]["path"].startswith("$.observation.audit")]
    assert bad_obs, "a malformed observation is garbage with its JSON path, not a disagreement"
    assert not rep.ok and rep.counts.get("agree", 0) > 0


def test_a_reply_out_of_order_is_still_its_cases_answer(tmp_path: Path) -> None:
    swap = tmp_path / "swap.py"
    swap.write_text(
        textwrap.dedent(
            """
        import json, sys
        from guardspec.conformance.serve import answer
        held = None
        for line in sys.stdin:
            req = json.loads(line)
            rep, stop = answer(req)
            if req.get("kind") == "run" and held is None and req["scenario"].get("call", {}).get("reply") == "hold":
                held = rep; continue
            print(json.dumps(rep), flush=True)
            if held is not None and rep is not held:
                print(json.dumps(held), flush=True); held = None
            if stop: break
        """
        )
    )
    sc = json.loads(Path("examples/g6-throw-fails-with-one-processor-event.json").read_text())
    hold = {**sc, "call": {**sc["call"], "reply": "hold"}}
    with Impl([sys.executable, str(swap)], timeout=5) as im:
        im.start()
        a = im.exchange([{"kind": "run", "mode": "guarded", "scenario": s} for s in (sc, hold, sc, sc)])
    # replies come 0, 2, 1, 3: each is its own case's answer; the held one is noted out-of-order
    assert all(x.problem is None and x.reply["status"] == "ok" for x in a)
    assert [bool(x.notes) for x in a] == [False, True, False, False]
    assert a[1].notes[0].startswith("out-of-order") and [i.kind for i in im.incidents] == ["out-of-order"]


def test_harness_bench_runs() -> None:
    from guardspec.commands.conformance_cmds import bench_harness

    f = bench_harness(0.3)
    assert f["roundTrips"] >= 5000 and f["roundTripsPerSecond"] > 1000


def test_a_known_entry_may_name_the_values_of_the_first_difference(tmp_path: Path) -> None:
    """docs/protocol.md 'Known discrepancies': ``model``/``impl`` must equal the first
    difference's values, so one refusal reason for another is not taken for any other."""
    from guardspec.conformance.cases import Verdict
    from guardspec.conformance.compare import Difference
    from guardspec.conformance.known import known_reason, load_known

    f = tmp_path / "known.json"
    f.write_text(
        json.dumps(
            {
                "guardspec": 1,
                "known": [
                    {
                        "signature": "guarded:outcome",
                        "path": "$.outcome.reason",
                        "model": "input processor failed",
                        "impl": "input message content is not classified",
                        "reason": "BW-F2",
                    }
                ],
            }
        )
    )
    known = load_known(f)

    def verdict(model, impl):
        return Verdict("disagree", "guarded:outcome", (Difference("outcome", "$.outcome.reason", model, impl),))

    assert known_reason(known, verdict("input processor failed", "input message content is not classified"), "generate", "h") == "BW-F2"
    assert known_reason(known, verdict("input processor failed", "policy evaluation failed"), "generate", "h") is None
    assert known_reason(known, verdict("policy 'x' denied the input", "input message content is not classified"), "generate", "h") is None


def test_a_known_entry_may_require_members_of_the_models_outcome(tmp_path: Path) -> None:
    """docs/protocol.md 'Known discrepancies': ``outcome`` restricts an entry to calls the model
    refuses as stated (here: a durable stored-difference matched only on RBAC refusals)."""
    from guardspec.conformance.cases import Verdict
    from guardspec.conformance.compare import Difference
    from guardspec.conformance.known import known_reason, load_known

    f = tmp_path / "known.json"
    f.write_text(
        json.dumps(
            {
                "guardspec": 1,
                "known": [
                    {
                        "signature": "guarded:stored",
                        "loop": "durable",
                        "path": "$.stored*",
                        "outcome": {"processorId": "breakwater-rbac"},
                        "reason": "an RBAC-only entry",
                    }
                ],
            }
        )
    )
    known = load_known(f)
    v = Verdict("disagree", "guarded:stored", (Difference("stored", "$.stored[1].parts[0].type", "text", "tool-invocation"),))
    rbac = {"outcome": {"kind": "refused", "reason": "x", "processorId": "breakwater-rbac"}}
    policy = {"outcome": {"kind": "refused", "reason": "x", "processorId": "breakwater-policy-engine"}}
    assert known_reason(known, v, "durable", "h", rbac) == "an RBAC-only entry"
    assert known_reason(known, v, "durable", "h", policy) is None
    assert known_reason(known, v, "durable", "h") is None
    f.write_text(json.dumps({"guardspec": 1, "known": [{"signature": "*", "outcome": "rbac", "reason": "x"}]}))
    with pytest.raises(Exception, match=r"outcome: an object"):
        load_known(f)


def test_a_known_path_reads_brackets_literally(tmp_path: Path) -> None:
    """docs/schemas/known.schema.json: ``path`` is a glob over the first difference's path with
    indices written ``[]``; only ``*`` is a wildcard."""
    from guardspec.conformance.cases import Verdict
    from guardspec.conformance.compare import Difference
    from guardspec.conformance.known import known_reason, load_known

    f = tmp_path / "known.json"
    f.write_text(json.dumps({"guardspec": 1, "known": [{"signature": "*", "path": "$.stored[].parts[]*", "reason": "x"}]}))
    known = load_known(f)

    def at(path):
        return Verdict("disagree", "guarded:stored", (Difference("stored", path, 1, 2),))

    assert known_reason(known, at("$.stored[3].parts[0].createdAt"), "durable", "h") == "x"
    assert known_reason(known, at("$.stored[3].id"), "durable", "h") is None
    assert known_reason(known, at("$.stored.length"), "durable", "h") is None
