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
from guardspec.conformance.settings import BadArguments, Config

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


def test_a_known_entry_may_ask_what_the_differing_message_is(tmp_path: Path) -> None:
    """docs/protocol.md 'Known discrepancies': ``message`` restricts an entry to a first
    difference inside a message of a given kind (BW-F3: a remembered message with the caller's
    client tool outcome, whose stored call keeps its state on durable)."""
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
                        "path": "$.stored[].parts[].state",
                        "message": {"remembered": True, "callerOutcome": True},
                        "reason": "BW-F3",
                    }
                ],
            }
        )
    )
    known = load_known(f)
    call = {"id": "tc1", "toolName": "lookup", "args": {}}
    stored_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "call", **call}]}
    caller_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "result", "result": 1, **call}]}
    h0 = {"id": "h0", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
    u1 = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "go"}]}

    def scenario(caller, thread, bound="t1"):
        return {"call": {"messages": caller, "memory": {"thread": bound, "resource": "r1"}}, "threads": [{"id": "t1", "messages": thread}]}

    model = {"stored": [h0, caller_a0, u1]}
    at_a0 = Verdict("disagree", "guarded:stored", (Difference("stored", "$.stored[1].parts[0].state", "result", "call"),))
    at_u1 = Verdict("disagree", "guarded:stored", (Difference("stored", "$.stored[2].parts[0].state", "result", "call"),))
    # a0 is in the thread and the caller sends its outcome: BW-F3
    assert known_reason(known, at_a0, "durable", "h", model, scenario([caller_a0, u1], [h0, stored_a0])) == "BW-F3"
    # the same difference on another loop, or in the caller's new message u1: not BW-F3
    assert known_reason(known, at_a0, "generate", "h", model, scenario([caller_a0, u1], [h0, stored_a0])) is None
    assert known_reason(known, at_u1, "durable", "h", model, scenario([caller_a0, u1], [h0, stored_a0])) is None
    # a0 not remembered (the thread lacks it), or the caller does not send it: not BW-F3
    assert known_reason(known, at_a0, "durable", "h", model, scenario([caller_a0, u1], [h0])) is None
    assert known_reason(known, at_a0, "durable", "h", model, scenario([u1], [h0, stored_a0])) is None
    # the caller sends a0 as text only: no outcome
    text_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "text", "text": "x"}]}
    assert known_reason(known, at_a0, "durable", "h", model, scenario([text_a0, u1], [h0, stored_a0])) is None
    # no scenario, or no thread bound: the entry cannot match
    assert known_reason(known, at_a0, "durable", "h", model) is None
    assert known_reason(known, at_a0, "durable", "h", model, scenario([caller_a0, u1], [h0, stored_a0], bound=None)) is None
    for bad in ({}, {"remembered": "yes"}, {"pending": True}, []):
        f.write_text(json.dumps({"guardspec": 1, "known": [{"signature": "*", "message": bad, "reason": "x"}]}))
        with pytest.raises(Exception, match=r"message: an object of booleans"):
            load_known(f)


def test_a_known_entry_may_ask_that_the_implementation_left_the_message_unsaved(tmp_path: Path) -> None:
    """docs/protocol.md 'Known discrepancies': ``implUnsaved`` (BW-F3 on durable: Breakwater
    stores the remembered carrier exactly as the thread held it, so a processor's edit of its
    text differs first, seeds 8432 case 438, 8433 case 1836, 8443 case 1272, 8451 case 1417)."""
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
                        "path": "$.stored[].parts*",
                        "message": {"remembered": True, "callerOutcome": True, "implUnsaved": True},
                        "reason": "BW-F3",
                    }
                ],
            }
        )
    )
    known = load_known(f)
    call = {"id": "tc1", "toolName": "lookup", "args": {}}
    stored_a0 = {
        "id": "a0",
        "role": "assistant",
        "parts": [{"type": "text", "text": "old"}, {"type": "tool-invocation", "state": "call", **call}],
    }
    caller_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "result", "result": 1, **call}]}
    edited_a0 = {
        "id": "a0",
        "role": "assistant",
        "parts": [{"type": "text", "text": "new"}, {"type": "tool-invocation", "state": "result", "result": 1, **call}],
    }
    scenario = {
        "call": {"messages": [caller_a0], "memory": {"thread": "t1", "resource": "r1"}},
        "threads": [{"id": "t1", "messages": [stored_a0]}],
    }
    model = {"stored": [edited_a0]}
    at_text = Verdict("disagree", "guarded:stored", (Difference("stored", "$.stored[0].parts[0].text", "new", "old"),))
    # Breakwater stored a0 as the thread held it: BW-F3
    assert known_reason(known, at_text, "durable", "h", model, scenario, {"stored": [stored_a0]}) == "BW-F3"
    # it saved something of it (here the caller's result, the text kept): not this entry
    half = {
        "id": "a0",
        "role": "assistant",
        "parts": [{"type": "text", "text": "old"}, {"type": "tool-invocation", "state": "result", "result": 1, **call}],
    }
    assert known_reason(known, at_text, "durable", "h", model, scenario, {"stored": [half]}) is None
    # without the implementation's observation, or on another loop: no match
    assert known_reason(known, at_text, "durable", "h", model, scenario) is None
    assert known_reason(known, at_text, "stream", "h", model, scenario, {"stored": [stored_a0]}) is None


def test_a_known_entry_may_ask_that_the_implementations_row_is_the_unsaved_carrier(tmp_path: Path) -> None:
    """``implRowUnsavedCarrier``: the implementation's message at the differing index is the
    remembered caller-outcome message as the thread held it (BW-F3 when the model saved the
    carrier's replacement later: seeds 8443 #1077, 8454 #1046-1051, ``$.stored[1].id``)."""
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
                        "path": "$.stored[].id",
                        "message": {"implRowUnsavedCarrier": True},
                        "reason": "BW-F3",
                    }
                ],
            }
        )
    )
    known = load_known(f)
    call = {"id": "tc1", "toolName": "lookup", "args": {}}
    h0 = {"id": "h0", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
    stored_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "call", **call}]}
    a9 = {"id": "a9", "role": "assistant", "parts": [{"type": "text", "text": "later"}]}
    caller_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "result", "result": 1, **call}]}
    moved_a0 = {"id": "a0", "role": "user", "parts": [{"type": "text", "text": "moved"}]}
    scenario = {
        "call": {"messages": [caller_a0], "memory": {"thread": "t1", "resource": "r1"}},
        "threads": [{"id": "t1", "messages": [h0, stored_a0, a9]}],
    }
    model = {"stored": [h0, a9, moved_a0]}
    at_1 = Verdict("disagree", "guarded:stored", (Difference("stored", "$.stored[1].id", "a9", "a0"),))
    assert known_reason(known, at_1, "durable", "h", model, scenario, {"stored": [h0, stored_a0, a9]}) == "BW-F3"
    # Breakwater saved the caller's result on a0: not unsaved
    saved = {"id": "a0", "role": "assistant", "parts": caller_a0["parts"]}
    assert known_reason(known, at_1, "durable", "h", model, scenario, {"stored": [h0, saved, a9]}) is None
    # the row is an unsaved remembered message the caller sent no outcome for
    other = {
        "call": {
            "messages": [{"id": "c1", "role": "user", "parts": [{"type": "text", "text": "x"}]}],
            "memory": {"thread": "t1", "resource": "r1"},
        },
        "threads": scenario["threads"],
    }
    assert known_reason(known, at_1, "durable", "h", model, other, {"stored": [h0, stored_a0, a9]}) is None


def test_a_known_entry_may_ask_what_the_differing_prompt_entry_is(tmp_path: Path) -> None:
    """``message`` on a prompt path: ``$.prompts[k][i]`` names the model's i-th entry of its
    k-th prompt by the id the model gives it (BW-F3 on durable: the stored result on the
    remembered carrier is sent unmapped)."""
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
                        "signature": "guarded:prompts",
                        "loop": "durable",
                        "path": "$.prompts[][].parts[].result*",
                        "message": {"remembered": True, "callerOutcome": True},
                        "reason": "BW-F3",
                    }
                ],
            }
        )
    )
    known = load_known(f)
    call = {"id": "tc1", "toolName": "lookup", "args": {}}
    stored_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "call", **call}]}
    caller_a0 = {"id": "a0", "role": "assistant", "parts": [{"type": "tool-invocation", "state": "result", "result": 1, **call}]}
    h0 = {"id": "h0", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
    scenario = {
        "call": {"messages": [caller_a0], "memory": {"thread": "t1", "resource": "r1"}},
        "threads": [{"id": "t1", "messages": [h0, stored_a0]}],
    }
    model = {"prompts": [[{"role": "system", "content": "s"}, h0, caller_a0]]}
    at_a0 = Verdict("disagree", "guarded:prompts", (Difference("prompts", "$.prompts[0][2].parts[0].result.value", "m", "r"),))
    at_h0 = Verdict("disagree", "guarded:prompts", (Difference("prompts", "$.prompts[0][1].parts[0].result.value", "m", "r"),))
    at_system = Verdict("disagree", "guarded:prompts", (Difference("prompts", "$.prompts[0][0].content", "m", "r"),))
    assert known_reason(known, at_a0, "durable", "h", model, scenario) == "BW-F3"
    assert known_reason(known, at_a0, "generate", "h", model, scenario) is None
    assert known_reason(known, at_h0, "durable", "h", model, scenario) is None
    assert known_reason(known, at_system, "durable", "h", model, scenario) is None


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


def test_a_known_entry_may_ask_that_the_implementation_did_not_read_the_call_context(tmp_path: Path) -> None:
    """``read: "withoutCallContext"`` (BW-F5: on durable Breakwater's policies do not read the
    call's context; seeds 8464 case 783, 8471 case 1440, ``$.read``): the implementation's read
    is the model's with the context's texts taken out, and nothing else."""
    from guardspec.conformance.cases import Verdict
    from guardspec.conformance.compare import Difference
    from guardspec.conformance.known import known_reason, load_known

    f = tmp_path / "known.json"
    f.write_text(
        json.dumps(
            {"guardspec": 1, "known": [{"signature": "guarded:*", "loop": "durable", "read": "withoutCallContext", "reason": "BW-F5"}]}
        )
    )
    known = load_known(f)
    ctx = {"id": "x1", "role": "user", "parts": [{"type": "text", "text": "FORBIDDEN-07"}]}
    scenario = {"call": {"messages": [], "context": [ctx]}}
    model = {"read": "hello\nFORBIDDEN-07", "outcome": {"kind": "refused"}}
    at_read = Verdict("disagree", "guarded:read", (Difference("read", "$.read", "hello\nFORBIDDEN-07", "hello"),))
    assert known_reason(known, at_read, "durable", "h", model, scenario, {"read": "hello"}) == "BW-F5"
    # the implementation read something else besides leaving the context out: not this entry
    assert known_reason(known, at_read, "durable", "h", model, scenario, {"read": "hullo"}) is None
    # it read the context (the difference lies elsewhere), or the call has no context: no match
    assert known_reason(known, at_read, "durable", "h", model, scenario, {"read": "hello\nFORBIDDEN-07"}) is None
    assert known_reason(known, at_read, "durable", "h", model, {"call": {"messages": []}}, {"read": "hello"}) is None
    # another loop, or without the observations: no match
    assert known_reason(known, at_read, "generate", "h", model, scenario, {"read": "hello"}) is None
    assert known_reason(known, at_read, "durable", "h") is None
    # a context text over two lines is taken out whole
    two = {"call": {"context": [{"id": "x1", "role": "user", "parts": [{"type": "text", "text": "a\nb"}]}]}}
    assert known_reason(known, at_read, "durable", "h", {"read": "hello\na\nb"}, two, {"read": "hello"}) == "BW-F5"
    assert known_reason(known, at_read, "durable", "h", {"read": "hello\na\nc\nb"}, two, {"read": "hello\nc"}) is None


def test_a_known_entrys_read_fact_must_be_one_the_harness_knows(tmp_path: Path) -> None:
    from guardspec.conformance.known import load_known

    f = tmp_path / "known.json"
    f.write_text(json.dumps({"guardspec": 1, "known": [{"signature": "guarded:*", "read": "unread", "reason": "x"}]}))
    with pytest.raises(BadArguments, match=r"\$\.known\[0\]\.read: one of 'withoutCallContext'"):
        load_known(f)
