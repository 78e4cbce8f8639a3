"""G2 Chain: RBAC → recorder → memory → application processors → mapping → policies."""

import pytest
from conftest import events, list_sources, scenario, stored, tool

from guardspec.model.agent import Actor, ClientTool, DenyPatterns, Mapping, ThrowingEvaluator
from guardspec.model.messages import assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import Abort, AddMessages, AddSystem, ArrayOf, Processor, RemoveByIds, Return, Throw
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run

GUEST = Actor("bob", "viewer")


@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.STREAM])
def test_g2_rbac_denial_on_generate_and_stream_throws(loop):
    """G2.1: on generate and stream an RBAC denial throws GuardedAgent authorization denied, with its event alone."""
    obs = run(scenario(user("u1", "hi", 10), actor=GUEST, loop=loop, processors=(Processor("p", end=Abort("ran")),)), Mode.GUARDED)
    reason = "role 'viewer' is not in allowed roles [operator]"
    assert obs.outcome == Refused(reason, "breakwater-rbac", f"GuardedAgent authorization denied: {reason}")
    assert [(e.action, e.decision) for e in obs.audit] == [("agent.input.authorize", "denied")]
    assert obs.prompts == ()


def test_g2_rbac_denial_on_durable_is_a_tripwire_from_breakwater_rbac():
    """G2.1: on durable an RBAC denial is a tripwire from the breakwater-rbac processor, not a throw."""
    obs = run(scenario(user("u1", "hi", 10), actor=GUEST, loop=Loop.DURABLE), Mode.GUARDED)
    assert isinstance(obs.outcome, Refused)
    assert obs.outcome.processor_id == "breakwater-rbac"
    assert obs.outcome.thrown is None
    assert obs.prompts == ()


def test_g2_first_refusal_stops_the_chain():
    obs = run(
        scenario(
            user("u1", "hi", 10),
            processors=(Processor("p1", end=Abort("stop here")), Processor("p2", end=Throw("never"))),
            policies=(ThrowingEvaluator("never"),),
        ),
        Mode.GUARDED,
    )
    assert obs.outcome == Refused("stop here", "p1")
    assert events(obs, "agent.input.processor") == []
    assert events(obs, "agent.input.policy") == []
    assert obs.prompts == ()


def test_g2_policies_run_after_the_application_processors():
    obs = run(
        scenario(
            user("u1", "hi", 10),
            processors=(Processor("p", steps=(AddSystem("SMUGGLED"),)),),
            policies=(DenyPatterns("no-smuggling", ("SMUGGLED",)),),
        ),
        Mode.GUARDED,
    )
    assert obs.outcome.reason == "policy 'no-smuggling' denied the input"


def test_g2_application_processors_run_in_order_each_seeing_predecessors_work():
    obs = run(
        scenario(
            user("u1", "hi", 10),
            processors=(
                Processor("p1", steps=(AddMessages((user("n1", "from p1", 20),)),)),
                Processor("p2", end=Return(ArrayOf(drop=("n1",)))),
            ),
        ),
        Mode.GUARDED,
    )
    assert isinstance(obs.outcome, Answered)
    assert "n1" not in list_sources(obs)


def test_g2_processors_run_after_memory_so_they_see_history():
    obs = run(
        scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10)), processors=(Processor("p", steps=(RemoveByIds(("h1",)),)),)),
        Mode.GUARDED,
    )
    assert "h1" not in list_sources(obs)


def test_g2_mapping_runs_after_processors_and_before_policies():
    mapped = (ClientTool("getLocation", Mapping("throws")),)
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=10)
    refused_by_processor = run(scenario(caller, client_tools=mapped, processors=(Processor("p", end=Abort("first")),)), Mode.GUARDED)
    assert refused_by_processor.outcome == Refused("first", "p")
    failed_mapping = run(scenario(caller, client_tools=mapped, policies=(ThrowingEvaluator("later"),)), Mode.GUARDED)
    assert failed_mapping.outcome.processor_id == "breakwater-client-tool-output"
    assert events(failed_mapping, "agent.input.policy") == []
