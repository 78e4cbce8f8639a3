"""G15: the audit events are hygienic."""

from __future__ import annotations

from typing import Any, cast

from guardspec.model.observation import Observation
from guardspec.model.processors import AbortFinallyThrow, AbortThenThrow, AbortWrapThrow, Throw
from guardspec.model.scenario import Scenario

from .scenario import caller_messages, request_actor


def audit_is_hygienic(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G15): every event carries the actor (as Breakwater reads it), resource
    ``agent:<id>``, a decision and, unless allowed, a reason, and no event carries message text or thrown-error text."""
    secrets: set[str] = set()
    for m in caller_messages(scenario):
        for p in cast("tuple[Any, ...]", m.parts or ()):  # any part kind: those with a text
            if isinstance(getattr(p, "text", None), str) and len(p.text) >= 6:
                secrets.add(p.text)
    for proc in scenario.agent.processors:
        if isinstance(proc.end, (Throw, AbortThenThrow, AbortWrapThrow, AbortFinallyThrow)) and len(proc.end.message) >= 6:
            secrets.add(proc.end.message)
    out = []
    for e in obs.audit:
        # the actor Breakwater reads from the request context; allowed events carry no reason
        actor = request_actor(scenario.call.actor)
        if e.actor != actor or e.resource != f"agent:{scenario.agent.id}" or not e.decision or (not e.reason) != (e.decision == "allowed"):
            out.append(f"G15: event {e!r} lacks actor/resource/decision/reason")
        blob = repr((e.reason, e.detail))
        for t in secrets:
            if t in blob:
                out.append(f"G15: event {e.action} carries text {t!r}")
    return out
