"""``guardspec mastra-bench`` and the Mastra part of ``guardspec bench``: the model against real
Mastra on the same inputs in the same run, as rates (ratios, never timed assertions)."""

from __future__ import annotations

import time

from guardspec.conformance.cases import model_observation
from guardspec.conformance.drawing import generate_scenarios
from guardspec.conformance.impl import Impl
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
