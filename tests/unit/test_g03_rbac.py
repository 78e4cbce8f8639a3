"""G3 RBAC: the decision and its reason, one authorize event per decision.

Expected texts and shapes are Breakwater 0.17.0's (rbac/authorize.ts authorizeActor,
rbac/index.ts actorFromRequestContext, rbac/roles.ts; Evidence: G3.1, G3.2, G15)."""

import pytest
from conftest import events, scenario

from guardspec.model.agent import Actor, Agent
from guardspec.model.messages import user
from guardspec.model.observation import Answered, Failed, Refused
from guardspec.model.scenario import Mode
from guardspec.reference import run

NO_ACTOR = "no actor in request context (key 'breakwater.actor')"


def _run(actor, **kw):
    return run(scenario(user("u1", "hi", 10), actor=actor, **kw), Mode.GUARDED)


def test_g3_missing_actor_is_denied():
    """G3.1: with nothing under the request context key the actor is missing and the call is denied."""
    obs = _run(None)
    assert isinstance(obs.outcome, Refused)
    assert obs.outcome.reason == NO_ACTOR


@pytest.mark.parametrize(
    "actor",
    [
        Actor("alice", "operator", kind=None),  # kind null: not a known principal kind
        Actor("alice", "operator", kind="robot"),  # an unknown principal kind
        Actor("alice", "user"),  # a role outside admin/builder/operator/reviewer/viewer
        Actor("  ", "operator"),  # a blank id
    ],
)
def test_g3_an_actor_breakwater_cannot_read_is_no_actor_and_the_event_has_no_actor(actor):
    """G3.1: a blank id, an unknown role, or a kind outside Breakwater's (null included) is no actor at all."""
    obs = _run(actor)
    assert obs.outcome.reason == NO_ACTOR
    (e,) = events(obs, "agent.input.authorize")
    assert (e.decision, e.reason, e.actor, e.detail) == ("denied", NO_ACTOR, None, None)


def test_g3_principal_kind_defaults_to_human_only():
    obs = _run(Actor("svc", "operator", kind="service"))
    assert obs.outcome.reason == "principal kind 'service' is not in allowed kinds [human]"
    (e,) = events(obs, "agent.input.authorize")
    assert e.actor == Actor("svc", "operator", kind="service")


def test_g3_declared_principal_kind_is_allowed():
    obs = _run(Actor("svc", "operator", kind="service"), allowed_principal_kinds=("human", "service"))
    assert isinstance(obs.outcome, Answered)


def test_g3_role_is_checked_for_human_principals_only():
    """G3.2: the role of a non-human principal is not checked."""
    obs = _run(Actor("svc", "viewer", kind="service"), allowed_principal_kinds=("service",))
    assert isinstance(obs.outcome, Answered)


def test_g3_role_not_allowed_names_the_role_and_the_allowed_roles():
    obs = _run(Actor("bob", "viewer"), allowed_roles=("operator", "admin"))
    assert obs.outcome.reason == "role 'viewer' is not in allowed roles [operator, admin]"


def test_g3_one_authorize_event_per_allowed_decision_without_reason_or_detail():
    obs = _run(Actor("alice", "operator"))
    (e,) = events(obs, "agent.input.authorize")
    assert (e.decision, e.reason, e.detail) == ("allowed", None, None)


def test_g3_one_authorize_event_per_denied_decision():
    obs = _run(Actor("bob", "viewer"))
    (e,) = events(obs, "agent.input.authorize")
    assert e.decision == "denied"


@pytest.mark.parametrize(
    "agent",
    [
        Agent(allowed_roles=("user",)),
        Agent(allowed_roles=()),
        Agent(allowed_roles=("operator", "operator")),
        Agent(allowed_principal_kinds=()),
        Agent(allowed_principal_kinds=("robot",)),
    ],
)
def test_g0_allowed_roles_and_kinds_are_checked_at_construction(agent):
    """G0.2: unknown, repeated or no allowed roles or principal kinds are a construction TypeError without audit."""
    from conftest import ALICE

    from guardspec.model.scenario import Call, Loop, Scenario

    obs = run(Scenario(agent, Call(Loop.GENERATE, (user("u1", "hi", 10),), ALICE)), Mode.GUARDED)
    assert isinstance(obs.outcome, Failed) and obs.outcome.error.startswith("TypeError")
    assert obs.audit == ()


def test_g3_the_principal_kind_is_checked_before_the_role():
    """G3.2: a principal whose kind and role are both not allowed is denied for its kind."""
    obs = _run(Actor("svc", "viewer", kind="service"), allowed_roles=("operator",))
    assert obs.outcome.reason == "principal kind 'service' is not in allowed kinds [human]"
