"""G3 RBAC: the decision and its reason, one authorize event per decision."""

from guardspec.model.agent import Actor
from guardspec.model.messages import user
from guardspec.model.observation import Answered, Refused
from guardspec.model.scenario import Mode
from guardspec.reference import run

from conftest import events, scenario


def _run(actor, **kw):
    return run(scenario(user("u1", "hi", 10), actor=actor, **kw), Mode.GUARDED)


def test_g3_missing_actor_is_denied():
    obs = _run(None)
    assert isinstance(obs.outcome, Refused)
    assert obs.outcome.reason == "no actor in request context (key 'breakwater.actor')"


def test_g3_undeclared_principal_kind_is_denied():
    obs = _run(Actor("alice", "user", kind=None))
    assert obs.outcome.reason.startswith("principal kind")


def test_g3_principal_kind_defaults_to_human_only():
    obs = _run(Actor("svc", "user", kind="service"))
    assert isinstance(obs.outcome, Refused)
    assert obs.outcome.reason.startswith("principal kind")


def test_g3_declared_principal_kind_is_allowed():
    obs = _run(Actor("svc", "user", kind="service"), allowed_principal_kinds=("human", "service"))
    assert isinstance(obs.outcome, Answered)


def test_g3_role_not_allowed_names_the_role_and_the_allowed_roles():
    obs = _run(Actor("bob", "guest"), allowed_roles=("user", "admin"))
    assert obs.outcome.reason == "role 'guest' is not in allowed roles [user, admin]"


def test_g3_one_authorize_event_per_allowed_decision():
    obs = _run(Actor("alice", "user"))
    (e,) = events(obs, "agent.input.authorize")
    assert e.decision == "allowed"


def test_g3_one_authorize_event_per_denied_decision():
    obs = _run(Actor("bob", "guest"))
    (e,) = events(obs, "agent.input.authorize")
    assert e.decision == "denied"
