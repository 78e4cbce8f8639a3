"""``guardspec mastra-bench`` and the Mastra part of ``guardspec bench``: the model against real
Mastra on the same inputs in the same run, as rates (ratios, never timed assertions); and a
short campaign against an adapter beside the adapter's own busy time (``campaign_busy``)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from guardspec.conformance.cases import model_observation, scenario_hash
from guardspec.conformance.drawing import generate_scenarios
from guardspec.conformance.execution import case_record, model_of
from guardspec.conformance.impl import Answer, Impl
from guardspec.conformance.settings import Config, chosen_comparison
from guardspec.model import codec
from guardspec.model.scenario import Mode
from guardspec.reference.run import run

from .diff import generate_op_sequences, mastra_command
from .ops import ops_request, wire_to_ops
from .ops_judge import run_ops_model


def _one_by_one(impl: Impl, reqs: list[dict]) -> float:
    """Requests per second, each sent after the previous reply (no pipelining)."""
    t = time.perf_counter()
    for r in reqs:
        impl.exchange([r])
    return len(reqs) / (time.perf_counter() - t)


def bench_mastra(ops: int = 500, scenarios: int = 60, seed: int = 0) -> dict:
    """Op sequences/s on the Python substrate vs the real MessageList in Node (in-process
    ``bench-ops``, and round trips over the pipe), and raw scenarios/s for the interpreter vs
    the real Agent (generate loop), on the inputs the campaigns draw."""
    wires = generate_op_sequences(seed, ops)
    seqs = [wire_to_ops(w) for w in wires]
    sjs = []
    for sj in generate_scenarios(seed, scenarios):
        sj["call"]["loop"] = "generate"
        sjs.append(sj)
    t = time.perf_counter()
    for s in seqs:
        run_ops_model(s)
    py_ops = len(seqs) / (time.perf_counter() - t)
    with Impl(mastra_command(), timeout=60) as impl:
        impl.start()
        pipe_ops = _one_by_one(impl, [ops_request(w) for w in wires])
        node_total = 0.0
        answers = impl.exchange([{**ops_request(w), "kind": "bench-ops", "count": 20} for w in wires])
        for a in answers:
            node_total += (a.reply or {}).get("seconds", 0.0) / 20
        node_ops = len(wires) / node_total if node_total else float("nan")
        scs = [codec.scenario_from_json(sj) for sj in sjs]
        t = time.perf_counter()
        for sc in scs:
            run(sc, Mode.RAW)
        py_interp = len(scs) / (time.perf_counter() - t)
        t = time.perf_counter()
        for sj in sjs:
            model_observation(sj, "raw")
        py_raw = len(sjs) / (time.perf_counter() - t)
        node_raw = _one_by_one(impl, [{"kind": "run", "mode": "raw", "scenario": sj} for sj in sjs])
    return {
        "op_sequences": len(seqs),
        "ops_per_s_python": round(py_ops, 1),
        "ops_per_s_node_in_process": round(node_ops, 1),
        "ops_per_s_node_over_pipe": round(pipe_ops, 1),
        "raw_scenarios": len(sjs),
        "raw_per_s_interpreter": round(py_interp, 1),
        "raw_per_s_python": round(py_raw, 1),
        "raw_per_s_mastra_generate": round(node_raw, 1),
    }


def busy_of(answer: Answer) -> float | None:
    """The ``busyMs`` a reply carries (docs/protocol.md), if it carries a valid one."""
    b = (answer.reply or {}).get("busyMs")
    return float(b) if isinstance(b, (int, float)) and not isinstance(b, bool) and b >= 0 else None


def campaign_busy(command: str | Sequence[str], mode: str, seconds: float, seed: int = 0, env: dict | None = None, draw: int = 200) -> dict:
    """A short campaign on one implementation process, about ``seconds`` long, beside the busy
    time the adapter reports: cases per second, and the adapter's summed ``busyMs`` over the
    campaign's wall time. The cases go as a local campaign's do (``Impl.stream``: the window
    kept full, the model's observation and ``case_record``'s judging as each answer comes); the
    ``draw`` scenarios are run again in turn if time is left. Drawing the scenarios and starting
    the process are not counted."""
    scenarios = generate_scenarios(seed, draw)
    cfg = Config(impl="", examples=draw, seed=seed, modes=(mode,))
    records: list[dict] = []
    busy, replies = 0.0, 0
    with Impl(command, timeout=60.0, env=env) as impl:
        hello = impl.start()
        cfg.comparison = chosen_comparison(hello).comparison
        impl.exchange([{"kind": "run", "mode": mode, "scenario": sj} for sj in scenarios[-4:]])  # warm up
        sent = 0
        t = time.perf_counter()

        def source(block: bool) -> Any:
            nonlocal sent
            if time.perf_counter() - t >= seconds:
                return None
            k, sent = sent, sent + 1
            return {"kind": "run", "mode": mode, "scenario": scenarios[k % len(scenarios)]}, k

        def on_answer(k: int, ans: Answer) -> None:
            nonlocal busy, replies
            b = busy_of(ans)
            if b is not None:
                busy, replies = busy + b, replies + 1
            sj = scenarios[k % len(scenarios)]
            records.append(case_record(cfg, k, mode, sj, scenario_hash(sj), model_of(sj, mode), ans, hello))

        impl.stream(source, on_answer)
        wall = time.perf_counter() - t
        busy /= 1000
    counts: dict[str, int] = {}
    for r in records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return {
        "implementation": f"{hello.get('implementation')} {hello.get('version')}",
        "mode": mode,
        "cases": len(records),
        "counts": counts,
        "seconds": round(wall, 3),
        "cases_per_s": round(len(records) / wall, 2),
        "busy_seconds": round(busy, 3),
        "busy_replies": replies,
        "busy_over_wall": round(busy / wall, 3),
        "normalise": cfg.comparison.normalise,
    }
