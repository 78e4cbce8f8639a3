"""Counterexamples as a person wants to read them: the scenario, the list by source after each
stage, then the property that failed; and saving one as a JSON vector to replay."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guardspec.model.messages import Message, SystemMessage


def _entry(e: Any) -> str:
    if isinstance(e, SystemMessage):
        return f"system {e.content!r}" + ("" if repr(e.provider_options) == "UNDEFINED" else f" options={e.provider_options!r}")
    if isinstance(e, Message):
        return f"{e.role.value} {e.id}: {[type(p).__name__ + ':' + repr(getattr(p, 'text', getattr(p, 'state', '')))[:40] for p in e.parts or ()]}"
    return repr(e)


def describe_scenario(scenario: Any) -> str:
    a, c = scenario.agent, scenario.call
    lines = [
        f"agent: memory={a.memory!r} policies={[p.name for p in a.policies]}",
        *(f"  processor {p.id}: steps={list(p.steps)!r} end={p.end!r}" for p in a.processors),
        f"call: loop={c.loop.value} actor={c.actor!r} memory={c.memory!r}",
        *(f"  caller {_entry(m)}" for m in c.messages),
    ]
    for t in scenario.threads.threads:
        lines.append(f"thread {t.id} title={t.title!r}")
        lines.extend(f"  stored {_entry(m)}" for m in t.messages)
    return "\n".join(lines)


def describe(ex: Any, violations: dict[str, Sequence[str]]) -> str:
    """The scenario, the list after each stage, then each violated property."""
    out = [describe_scenario(ex.scenario), f"mode: {ex.mode.value}  outcome: {ex.observation.outcome!r}"]
    for name, view in ex.stages:
        out.append(f"after {name}:")
        out.extend(f"  [{','.join(s.value for s in lm.sources)}] {_entry(lm.message)}" for lm in view.messages)
        out.extend(f"  {_entry(s)}" for s in view.untagged)
    out.append(f"read: {ex.read!r}")
    for name, vs in violations.items():
        out.append(f"FAILED {name}")
        out.extend(f"  {v}" for v in vs)
    return "\n".join(out)


def save_vector(path: str | Path, scenarios: Sequence[Any], mode: str, violations: dict[str, Sequence[str]]) -> Path:
    """Save a failing call sequence as a JSON vector (``guardspec.model.codec``)."""
    from guardspec.model import codec

    data = {
        "kind": "guardspec-property-counterexample",
        "mode": mode,
        "violations": {k: list(v) for k, v in violations.items()},
        "scenarios": [codec.scenario_to_json(s) for s in scenarios],
    }
    p = Path(path)
    p.write_text(json.dumps(data, indent=2, ensure_ascii=False))
    return p


def load_vector(path: str | Path) -> tuple[list[Any], str]:
    from guardspec.model import codec

    data = json.loads(Path(path).read_text())
    return [codec.scenario_from_json(s) for s in data["scenarios"]], data["mode"]
