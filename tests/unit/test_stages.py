"""How far a case got (G2's stages) and which drawn shapes a case that survived to their reading
stage holds: the census's stage columns."""

from __future__ import annotations

import copy

import pytest

from guardspec.conformance import census as cz
from guardspec.conformance.stages import STAGES, reaches, read_at, stage_of

ALICE = {"id": "alice", "role": "operator", "kind": "human"}
POLICY = {"kind": "denyPatterns", "name": "no-forbidden", "patterns": ["FORBIDDEN"]}


def scenario(messages: list, processors: list, actor: dict | None = ALICE, loop: str = "generate") -> dict:
    return {
        "guardspec": 1,
        "agent": {"id": "agent", "instructions": "hi", "allowedRoles": ["operator"], "policies": [POLICY], "processors": processors},
        "threads": [],
        "call": {"loop": loop, "messages": messages, "actor": actor, "memory": None, "reply": "ok", "now": 5000},
    }


ABORT = {"id": "p1", "steps": [], "end": {"abort": "no"}}
# S7/G8: a system message a processor adds holds only text; content 3 fails the call at p1
ODD_SYSTEM = {"id": "p1", "steps": [{"op": "addSystem", "message": {"role": "system", "content": 3}}], "end": {"return": "sameList"}}


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_each_stop_is_named_by_the_gate_that_made_it(loop) -> None:
    assert stage_of(scenario([[["hi"]]], [], loop=loop)) == "construction"  # G1: nested too deep
    assert stage_of(scenario(["hi"], [], actor=None, loop=loop)) == "rbac"  # G3: no actor
    assert stage_of(scenario(["hi"], [ABORT], loop=loop)) == "processors"  # G6: an abort
    assert stage_of(scenario(["FORBIDDEN"], [], loop=loop)) == "policies"  # G12: a denial
    assert stage_of(scenario(["hi"], [], loop=loop)) == "model"


def test_raw_mode_names_the_plain_processors_stages() -> None:
    """M8: raw mode hands RBAC and the policies to Mastra as plain input processors around the
    application's; there is no assets gate or mapping stage."""
    assert stage_of(scenario(["hi"], [], actor=None), "raw") == "rbac"
    assert stage_of(scenario(["FORBIDDEN"], []), "raw") == "policies"
    assert stage_of(scenario(["hi"], [ABORT]), "raw") == "processors"
    assert stage_of(scenario(["hi"], []), "raw") == "model"


def test_reaching_is_the_chain_order() -> None:
    assert reaches("model", "policies") and reaches("policies", "policies") and not reaches("processors", "policies")
    assert read_at("actor") == "rbac" and read_at("system entry") == "policies" and read_at("loop") == "construction"
    assert STAGES[0] == "construction" and STAGES[-1] == "model"


def test_a_shape_counts_as_reached_only_past_the_stage_reading_it() -> None:
    with_part = scenario([{"id": "c1", "role": "user", "parts": [{"type": "reasoning", "text": "x"}]}], [])
    stopped = copy.deepcopy(with_part)
    stopped["call"]["actor"] = None  # the same reasoning part in a call RBAC stops
    c = cz.census_of([with_part, stopped], mode="guarded")
    assert c.counts[("part kind", "reasoning")] == 2 and c.reached[("part kind", "reasoning")] == 1
    c = cz.census_of([stopped], mode="guarded")
    assert ("part kind", "reasoning") in c.unreached()
    assert c.stops == {"generate": {"rbac": 1}} and c.deep_share("generate") == 0.0


def test_a_processor_that_its_own_value_stops_reads_that_value() -> None:
    """G8 refuses the odd system entry at the processor that adds it: the entry was read there,
    though the call never reached the policies."""
    c = cz.census_of([scenario(["hi"], [ODD_SYSTEM])], mode="guarded")
    assert c.stops == {"generate": {"processors": 1}}
    assert c.reached.get(("system entry", "content: other value")) == 1
    # the same entry behind an aborting processor is never read
    c = cz.census_of([scenario(["hi"], [ABORT, {**ODD_SYSTEM, "id": "p2"}])], mode="guarded")
    assert ("system entry", "content: other value") in c.unreached()


def test_the_census_json_and_tables_carry_the_stages() -> None:
    import io

    from rich.console import Console

    c = cz.census_of([scenario(["hi"], []), scenario(["hi"], [], actor=None, loop="durable")], mode="guarded")
    js = c.to_json()
    assert js["mode"] == "guarded" and js["stages"]["generate"]["model"] == 1 and js["stages"]["durable"]["rbac"] == 1
    row = next(r for r in js["shapes"] if r["category"] == "actor" and r["shape"] == "none")
    assert (row["scenarios"], row["reached"], row["readAt"]) == (1, 1, "rbac")
    buf = io.StringIO()
    Console(file=buf, width=200).print(c.stage_table())
    assert "policies or model" in buf.getvalue() and "100%" in buf.getvalue() and "0%" in buf.getvalue()
    assert "mode" not in cz.census_of([scenario(["hi"], [])]).to_json()
