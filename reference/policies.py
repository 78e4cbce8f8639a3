"""G3 RBAC decisions and G12 policy evaluation, as pure functions of their inputs."""

from __future__ import annotations

from attrs import frozen

from guardspec.model.agent import Actor, Agent, Allow, DenyPatterns, NoDecision, Policy, ThrowingEvaluator


def rbac_denial(agent: Agent, actor: Actor | None) -> str | None:
    """G3 RBAC: the denial reason, or None when the actor is allowed."""
    if actor is None:
        return "no actor in request context (key 'breakwater.actor')"
    if actor.kind is None:
        return "principal kind is not declared"
    if actor.kind not in agent.allowed_principal_kinds:
        kinds = ", ".join(agent.allowed_principal_kinds)
        return f"principal kind '{actor.kind}' is not in allowed principal kinds [{kinds}]"
    if actor.role not in agent.allowed_roles:
        return f"role '{actor.role}' is not in allowed roles [{', '.join(agent.allowed_roles)}]"
    return None


@frozen
class PolicyAllowed:
    pass


@frozen
class PolicyDenied:
    policy: str


@frozen
class PolicyFailed:
    """The evaluator threw or gave no decision; later policies are skipped."""

    policy: str


PolicyVerdict = PolicyAllowed | PolicyDenied | PolicyFailed


def decide(policy: Policy, text: str) -> str:
    """One policy's decision on the text read: ``allow``, ``deny`` or ``error``."""
    if isinstance(policy, DenyPatterns):
        return "deny" if any(p in text for p in policy.patterns) else "allow"
    if isinstance(policy, (ThrowingEvaluator, NoDecision)):
        return "error"
    assert isinstance(policy, Allow)
    return "allow"


def evaluate(policies: tuple[Policy, ...], text: str) -> PolicyVerdict:
    """G12 Policies: the input policies run in order over the text read; the first deny or
    evaluation failure decides."""
    for p in policies:
        d = decide(p, text)
        if d == "deny":
            return PolicyDenied(p.name)
        if d == "error":
            return PolicyFailed(p.name)
    return PolicyAllowed()
