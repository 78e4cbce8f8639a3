"""G15 Audit hygiene: what every event carries, and what none carries."""

import json

import pytest
from conftest import LOOPS, scenario

from guardspec.model import codec
from guardspec.model.agent import Actor, DenyPatterns, ThrowingEvaluator
from guardspec.model.messages import Message, Role, TextPart, user
from guardspec.model.processors import AbortThenThrow, Processor, Throw
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run


def _events_text(obs):
    return json.dumps([codec.converter.unstructure(e) for e in obs.audit])


SCENARIOS = {
    "thrown": dict(processors=(Processor("p", end=Throw("SECRET-ERROR-TEXT")),)),
    "abort-then-throw": dict(processors=(Processor("p", end=AbortThenThrow("r", "SECRET-ERROR-TEXT")),)),
    "denied": dict(policies=(DenyPatterns("deny", ("SECRET-MESSAGE",)),)),
    "evaluator-threw": dict(policies=(ThrowingEvaluator("broken"),)),
    "allowed": dict(),
}


@pytest.mark.parametrize("kind", sorted(SCENARIOS))
def test_g15_no_event_carries_error_text_or_message_text(kind):
    obs = run(scenario(user("u1", "SECRET-MESSAGE here", 10), **SCENARIOS[kind]), Mode.GUARDED)
    assert obs.audit
    text = _events_text(obs)
    assert "SECRET-ERROR-TEXT" not in text
    assert "SECRET-MESSAGE" not in text


def test_g15_unclassified_content_event_carries_no_message_text():
    obs = run(scenario(Message("u1", Role.USER, (TextPart("SECRET-MESSAGE"), TextPart(5)), 10)), Mode.GUARDED)
    assert "SECRET-MESSAGE" not in _events_text(obs)


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("kind", sorted(SCENARIOS))
def test_g15_every_event_carries_actor_resource_decision_and_a_reason_unless_allowed(kind, loop):
    """Breakwater records no reason on an allowed decision (audit AuditEvent.reason optional)."""
    actor = Actor("alice", "operator")
    obs = run(scenario(user("u1", "hi", 10), actor=actor, loop=loop, id="bot", **SCENARIOS[kind]), Mode.GUARDED)
    assert obs.audit
    for e in obs.audit:
        assert e.actor == actor
        assert e.resource == "agent:bot"
        assert e.decision in ("allowed", "denied", "error")
        assert (e.reason is None) == (e.decision == "allowed")


def test_g15_missing_actor_is_recorded_as_null():
    obs = run(scenario(user("u1", "hi", 10), actor=None, loop=Loop.DURABLE), Mode.GUARDED)
    (e,) = obs.audit
    assert e.actor is None and e.resource == "agent:agent"
