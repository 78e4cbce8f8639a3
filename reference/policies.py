"""G3 RBAC decisions and G12 policy evaluation, as pure functions of their inputs."""

from __future__ import annotations

from attrs import frozen

from guardspec.model.agent import Actor, Agent, Allow, DenyPatterns, NoDecision, Policy, ThrowingEvaluator

ROLES = ("admin", "builder", "operator", "reviewer", "viewer")
PRINCIPAL_KINDS = ("human", "service", "agent", "system")


def request_actor(actor: Actor | None) -> Actor | None:
    """G3.1 Reading the actor: the actor Breakwater reads from the request context (``breakwater.actor``), or
    None. An actor with an empty id, a role outside Breakwater's closed role set, or a declared
    principal kind outside its known kinds (null included) is no actor at all."""
    if actor is None or not actor.id.strip():
        return None
    if actor.kind not in PRINCIPAL_KINDS or actor.role not in ROLES:
        return None
    return actor


def rbac_denial(agent: Agent, actor: Actor | None) -> str | None:
    """G3 RBAC: the denial reason, or None when the actor is allowed. The principal kind is
    checked first, then the role for human principals only (G3.2)."""
    actor = request_actor(actor)
    if actor is None:
        return "no actor in request context (key 'breakwater.actor')"
    return _kind_then_role(agent, actor)


def _kind_then_role(agent: Agent, actor: Actor) -> str | None:
    """G3.2 Kind first, role for humans: the principal kind is checked before the role, and the
    role only for a human principal, as Breakwater's authorizeActor does."""
    if actor.kind not in agent.allowed_principal_kinds:
        kinds = ", ".join(agent.allowed_principal_kinds)
        return f"principal kind '{actor.kind}' is not in allowed kinds [{kinds}]"
    if actor.kind == "human" and actor.role not in agent.allowed_roles:
        return f"role '{actor.role}' is not in allowed roles [{', '.join(agent.allowed_roles)}]"
    return None


@frozen
class PolicyAllowed:
    """G12 Policies: Every input policy allowed; ``evaluated`` names them in order (the allowed event's
    detail)."""

    evaluated: tuple[str, ...] = ()


@frozen
class PolicyDenied:
    """G12 Policies: a policy denied the input."""

    policy: str


@frozen
class PolicyFailed:
    """G12 Policies: The evaluator threw or gave no decision; later policies are skipped."""

    policy: str


PolicyVerdict = PolicyAllowed | PolicyDenied | PolicyFailed


def decide(policy: Policy, text: str) -> str:
    """G12 Policies: One policy's decision on the text read: ``allow``, ``deny`` or ``error``."""
    if isinstance(policy, DenyPatterns):
        return "deny" if any(p in text for p in policy.patterns) else "allow"
    if isinstance(policy, (ThrowingEvaluator, NoDecision)):
        return "error"
    assert isinstance(policy, Allow)
    return "allow"


def evaluate(policies: tuple[Policy, ...], text: str) -> PolicyVerdict:
    """G12.9 The evaluation and its events: the input policies run in order over the text read; the first deny or
    evaluation failure decides."""
    for p in policies:
        d = decide(p, text)
        if d == "deny":
            return PolicyDenied(p.name)
        if d == "error":
            return PolicyFailed(p.name)
    return PolicyAllowed(tuple(p.name for p in policies))
