"""The campaigns' tool outcomes of other kinds (M12.6, M11.3): mixed in after the draw, so
nothing else a strategy draws changes, and a stored thread keeps to JSON (M13.3)."""

from __future__ import annotations

import copy
import json

from guardspec.properties.strategies.outcomes import with_odd_outcomes


def _part(state: str, i: int) -> dict:
    part = {"type": "tool-invocation", "toolCallId": f"tc{i}", "toolName": "lookup", "state": state, "args": {}}
    if state == "result":
        part["result"] = {"answer": f"note-{i:02d} FORBIDDEN"}
    if state == "output-error":
        part["errorText"] = f"note-{i:02d}"
    return part


def _scenario(i: int) -> dict:
    parts = [_part("result", i), _part("output-error", i), _part("call", i)]
    return {
        "guardspec": 1,
        "agent": {"processors": []},
        "call": {"loop": "generate", "messages": [{"id": "a1", "role": "assistant", "parts": copy.deepcopy(parts)}]},
        "threads": [{"id": "t1", "resource": "r1", "messages": [{"id": "a0", "role": "assistant", "parts": copy.deepcopy(parts)}]}],
    }


def test_the_same_scenario_gets_the_same_outcomes_and_the_input_is_kept() -> None:
    sj = _scenario(1)
    before = json.dumps(sj, sort_keys=True)
    assert with_odd_outcomes(sj) == with_odd_outcomes(json.loads(before))
    assert json.dumps(sj, sort_keys=True) == before


def test_about_one_outcome_in_three_changes_kind_and_only_outcomes_change() -> None:
    changed = {"result": 0, "errorText": 0}
    total = {"result": 0, "errorText": 0}
    kinds = set()
    for i in range(300):
        sj = _scenario(i)
        out = with_odd_outcomes(sj)
        for where in (("call", "messages", 0), ("threads", 0, "messages", 0)):
            a, b = sj, out
            for k in where:
                a, b = a[k], b[k]
            for pa, pb in zip(a["parts"], b["parts"]):
                key = {"result": "result", "output-error": "errorText"}.get(pa["state"])
                if key is None:
                    assert pa == pb  # a part with no outcome is left alone
                    continue
                assert {k: v for k, v in pa.items() if k != key} == {k: v for k, v in pb.items() if k != key}
                total[key] += 1
                if pa[key] != pb[key]:
                    changed[key] += 1
                    v = pb[key]
                    plain = isinstance(v, dict) and "$undefined" not in v
                    kinds.add(
                        (
                            key,
                            "string"
                            if isinstance(v, str)
                            else "holding value"
                            if plain and "value" in v
                            else "object"
                            if plain
                            else "other",
                        )
                    )
                    if where[0] == "threads":  # a stored thread holds what JSON writes (M13.3)
                        assert v != {"$undefined": True}
    # a result in three (a string, another value, an object holding value), an errorText in 4.5
    assert 0.27 < changed["result"] / total["result"] < 0.40, (changed, total)
    assert 0.16 < changed["errorText"] / total["errorText"] < 0.29, (changed, total)
    assert kinds == {
        ("result", "string"),
        ("result", "other"),
        ("result", "holding value"),
        ("errorText", "object"),
        ("errorText", "other"),
    }
