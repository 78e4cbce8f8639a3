"""Fuzzing the harness with malformed replies and malformed scenario / vector files (10,000+
inputs): no uncaught exception, and every rejection names a JSON path and what was expected."""

from __future__ import annotations

import json
import random
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from guardspec.conformance.cases import judge, model_observation
from guardspec.conformance.compare import Comparison
from guardspec.conformance.impl import Answer, Impl
from guardspec.conformance.serve import answer
from guardspec.conformance.vectors import load_vector, vector_from_json
from guardspec.conformance.wire import parse_line
from guardspec.model import codec

EXAMPLE = Path("examples/g13-moved-remembered-outcome-read-whole-and-removed.json")
WEIRD: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"kind": 3}, "\u0000", 10**30, {"$undefined": True}]


def _paths(v: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(v, dict):
        for k, x in v.items():
            out += _paths(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += _paths(x, path + (i,))
    return out


def _mutate(rng: random.Random, v: Any) -> Any:
    v = json.loads(json.dumps(v))
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(v) if p]
        if not paths:
            return rng.choice(WEIRD)
        p = rng.choice(paths)
        parent = v
        for k in p[:-1]:
            parent = parent[k]
        r = rng.random()
        if (r < 0.3 and isinstance(parent, dict)) or (r < 0.4 and isinstance(parent, list)):
            del parent[p[-1]]
        elif r < 0.5 and isinstance(parent, dict):
            parent["extra" + str(rng.randint(0, 9))] = json.loads(json.dumps(rng.choice(WEIRD)))
        else:
            parent[p[-1]] = json.loads(json.dumps(rng.choice(WEIRD)))
    return v


def _line_garbage(rng: random.Random, line: str) -> bytes:
    r = rng.random()
    b = line.encode()
    if r < 0.3:
        return b[: rng.randint(0, len(b))]
    if r < 0.5:
        i = rng.randint(0, len(b))
        return b[:i] + bytes([rng.randint(0, 255)]) + b[i:]
    if r < 0.6:
        return b"[" * 5000 + b"]" * 5000
    if r < 0.7:
        return rng.choice([b"null", b"42", b'"ok"', b"[]", b"{}", b'{"id": [1]}', b"\xff\xfe", b""])
    return line.encode()


@pytest.mark.slow
def test_ten_thousand_malformed_inputs_are_each_reported_with_a_json_path(tmp_path: Path) -> None:
    rng = random.Random(1234)
    data = json.loads(EXAMPLE.read_text())
    sj = {k: v for k, v in data.items() if k != "expect"}
    model = model_observation(sj, "guarded")
    good, _ = answer({"id": 1, "kind": "run", "mode": "guarded", "scenario": sj})
    hello, _ = answer({"id": 0, "kind": "hello"})
    cmp = Comparison()
    counts = {"replies": 0, "lines": 0, "vectors": 0, "piped": 0}

    def check_verdict(v: Any) -> None:
        assert v.status in ("agree", "disagree", "skipped", "problem"), v
        if v.status == "problem":
            assert v.problem.path.startswith("$") and v.problem.expected, v

    # 1. reply objects mutated in structure (ids, statuses, observations)
    for _ in range(6000):
        bad = _mutate(rng, good)
        counts["replies"] += 1
        if not isinstance(bad, dict) or bad.get("id") != 1:
            continue
        check_verdict(judge(sj, "guarded", model, Answer(reply=bad), cmp, hello))
    # 2. reply lines mutated as bytes
    line = json.dumps(good)
    for _ in range(2500):
        counts["lines"] += 1
        obj, p = parse_line(_line_garbage(rng, line))
        if p is not None:
            assert p.path.startswith("$") and p.expected
            check_verdict(judge(sj, "guarded", model, Answer(problem=p), cmp, hello))
        else:
            check_verdict(judge(sj, "guarded", model, Answer(reply=obj), cmp, hello))
    # 3. scenario / vector files: mutated structure, and bytes cut short
    vec = json.loads(Path("vectors/conformance").joinpath(EXAMPLE.name).read_text())
    for k in range(400):
        counts["vectors"] += 1
        bad = _mutate(rng, vec)
        try:
            vector_from_json(bad)
        except codec.FormatError as e:
            assert e.path.startswith("$") and e.expected  # noqa: PT017 (a mutated vector may still be valid)
        if k % 4 == 0:
            f = tmp_path / f"v{k}.json"
            f.write_bytes(_line_garbage(rng, json.dumps(vec)))
            try:
                load_vector(f)
            except codec.FormatError as e:
                assert e.path.startswith("$") and e.expected  # noqa: PT017 (a mutated vector may still be valid)
    # 4. garbage through a real pipe, line after line
    lines = [_line_garbage(rng, line).replace(b"\n", b" ") for _ in range(1200)]
    src = tmp_path / "lines.bin"
    src.write_bytes(b"\n".join(lines) + b"\n")
    script = tmp_path / "garbage.py"
    script.write_text(
        textwrap.dedent(
            f"""
        import json, sys
        lines = open({str(src)!r}, "rb").read().split(b"\\n")
        k = 0
        for req in sys.stdin:
            r = json.loads(req)
            if r.get("kind") == "hello":
                print(json.dumps({{"id": r["id"], "status": "ok", "protocol": 1, "implementation": "garbage", "version": "0"}}), flush=True)
                continue
            sys.stdout.buffer.write(lines[k % len(lines)] + b"\\n"); sys.stdout.buffer.flush(); k += 1
        """
        )
    )
    with Impl([sys.executable, str(script)], timeout=5) as im:
        im.start()
        answers = im.exchange([{"kind": "run", "mode": "guarded", "scenario": sj}] * len(lines))
    assert len(answers) == len(lines)
    for a in answers:
        counts["piped"] += 1
        check_verdict(judge(sj, "guarded", model, a, cmp, im.hello))
    assert sum(counts.values()) >= 10_000, counts
