"""G4 Recorder: the caller's client tool outcomes, recorded before memory merges anything."""

from conftest import events, scenario, stored, tool

from guardspec.model.agent import DenyPatterns
from guardspec.model.messages import assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import Abort, Processor
from guardspec.model.scenario import Mode
from guardspec.reference import run

RECORDER = "breakwater-client-tool-outcome-recorder"


def test_g4_two_outcomes_for_one_tool_call_in_one_message_fail_the_call():
    caller = assistant("a1", tool("tc1", "result", result=1), tool("tc1", "output-error", error_text="x"), created_at=10)
    obs = run(scenario(caller, processors=(Processor("p", end=Abort("ran")),)), Mode.GUARDED)
    assert obs.outcome == Refused("input processor failed", RECORDER)
    (e,) = events(obs, "agent.input.processor")
    assert (e.decision, e.reason, dict(e.detail)) == ("error", "input processor failed", {"processor": RECORDER})
    assert obs.prompts == ()


def test_g4_the_same_tool_call_in_two_messages_is_not_a_duplicate():
    a1 = assistant("a1", tool("tc1", "result", result=1), created_at=10)
    a2 = assistant("a2", tool("tc1", "result", result=2), created_at=30)
    obs = run(scenario(a1, user("u1", "between", 20), a2), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)


def test_g4_an_outcome_and_a_call_for_one_tool_call_are_not_two_outcomes():
    caller = assistant("a1", tool("tc1", "call"), tool("tc1", "result", result=1), created_at=10)
    obs = run(scenario(caller), Mode.GUARDED)
    assert isinstance(obs.outcome, Answered)


def _folded(policies=()):
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="SECRET-RESULT"), created_at=2000)
    return scenario(caller, user("u2", "thanks", 3000), threads=threads, policies=policies)


def test_g4_outcome_folded_into_history_is_still_read_by_the_policies():
    obs = run(_folded((DenyPatterns("secret", ("SECRET-RESULT",)),)), Mode.GUARDED)
    assert obs.outcome.reason == "policy 'secret' denied the input"


def test_g4_recorded_outcome_is_read_but_the_rest_of_the_remembered_message_is_not():
    obs = run(_folded(), Mode.GUARDED)
    assert "SECRET-RESULT" in obs.read
    assert "let me check" not in obs.read
