"""Examples: scenarios with the observations expected of them, checked field by field.

An example file is a scenario (``model/schemas/scenario.schema.json``) with an ``expect``
object: for ``guarded`` and/or ``raw`` mode, a partial observation. Only the fields it lists
are compared, so an expectation states exactly what the example's note claims. Besides every
observation field (compared whole, as JSON), it may use these shorthands:

``storedIds``     the ids of the bound thread's stored messages, in order (null: no binding)
``promptTexts``   the first prompt, one line per entry (``render_entry``)
``readContains``  substrings the policies' read text must contain
``readExcludes``  substrings it must not contain
``auditActions``  the audit events as ``"<action> <decision>"``
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attrs import frozen

from guardspec.model import codec
from guardspec.model.messages import Message, SystemMessage, TextPart, ToolPart
from guardspec.model.observation import Observation
from guardspec.model.scenario import Mode, Scenario
from guardspec.reference import run


@frozen
class Example:
    path: Path
    scenario: Scenario
    expect: dict[str, dict[str, Any]]


def load_example(path: Path) -> Example:
    """Read and validate one example file (``FormatError`` names the JSON path)."""
    data = codec.loads(path.read_text())
    scenario = codec.scenario_from_json(data)
    return Example(path, scenario, data.get("expect", {}))


def render_entry(e: Any) -> str:
    """One prompt entry as a line: ``system: <content>``, or ``<role>: <text>`` followed by
    each tool part as ``tool(<toolCallId>,<state>,<result as JSON>)``."""
    if isinstance(e, SystemMessage):
        c = e.content if isinstance(e.content, str) else json.dumps(codec.system_to_json(e).get("content", None))
        return f"system: {c}"
    assert isinstance(e, Message)
    bits = ["".join(p.text for p in e.parts or () if isinstance(p, TextPart) and isinstance(p.text, str))]
    for p in e.parts or ():
        if isinstance(p, ToolPart):
            result = json.dumps(codec.value_to_json(p.result), separators=(",", ":"))
            bits.append(f"tool({p.tool_call_id},{p.state.value},{result})")
    return f"{e.role.value}: " + " ".join(b for b in bits if b)


def _norm(v: Any) -> Any:
    return json.loads(json.dumps(v))


def compare(expect: dict[str, Any], obs: Observation) -> list[str]:
    """Each mismatch between a partial expected observation and an observation, as text."""
    got = codec.observation_to_json(obs)
    out: list[str] = []
    for key, want in expect.items():
        if key == "storedIds":
            have: Any = None if obs.stored is None else [m.id for m in obs.stored]
        elif key == "promptTexts":
            have = [render_entry(e) for e in obs.prompts[0]] if obs.prompts else []
        elif key == "readContains":
            missing = [s for s in want if obs.read is None or s not in obs.read]
            if missing:
                out.append(f"read lacks {missing!r}: {obs.read!r}")
            continue
        elif key == "readExcludes":
            present = [s for s in want if obs.read is not None and s in obs.read]
            if present:
                out.append(f"read contains {present!r}: {obs.read!r}")
            continue
        elif key == "auditActions":
            have = [f"{e.action} {e.decision}" for e in obs.audit]
        else:
            have = got.get(key)
        if _norm(have) != _norm(want):
            out.append(f"{key}: expected {json.dumps(want)}, got {json.dumps(have)}")
    return out


def check(example: Example) -> dict[str, list[str]]:
    """Run the example in each mode it expects something of; mismatches by mode."""
    return {mode: compare(want, run(example.scenario, Mode(mode))) for mode, want in example.expect.items()}


def example_paths(root: Path) -> list[Path]:
    return sorted(root.glob("*.json"))
