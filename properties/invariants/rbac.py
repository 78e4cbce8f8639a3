"""G3: who may call, as Breakwater decides it (G3.1, G3.2; Evidence: G3.1, G3.2)."""

from __future__ import annotations

from guardspec.model.observation import Observation, Refused
from guardspec.model.scenario import Scenario

from .scenario import request_actor

RBAC = "breakwater-rbac"


def rbac_decides_as_measured(scenario: Scenario, obs: Observation) -> list[str]:
    """Extra (G3): when RBAC decided (an authorize event), it denies exactly when Breakwater
    reads no actor from the request context, the actor's principal kind is not allowed, or the
    actor is a human whose role is not allowed (the role is checked for human principals only);
    a denial refuses the call by ``breakwater-rbac``, an allowed actor is not refused by it."""
    events = [e for e in obs.audit if e.action == "agent.input.authorize"]
    if not events:
        return []
    agent, actor = scenario.agent, request_actor(scenario.call.actor)
    deny = (
        actor is None
        or actor.kind not in agent.allowed_principal_kinds
        or (actor.kind == "human" and actor.role not in agent.allowed_roles)
    )
    out = []
    decided = events[0].decision
    if decided != ("denied" if deny else "allowed"):
        out.append(
            f"G3: actor {scenario.call.actor!r} is {'denied' if deny else 'allowed'} as measured; the authorize event says {decided!r}"
        )
    by_rbac = isinstance(obs.outcome, Refused) and obs.outcome.processor_id == RBAC
    if by_rbac != deny:
        out.append(f"G3: actor {scenario.call.actor!r} is {'denied' if deny else 'allowed'} as measured; outcome {obs.outcome!r}")
    return out
