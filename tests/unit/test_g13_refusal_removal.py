"""G13 Refusal removal (S8): what leaves the list before an input refusal stops the call."""

import pytest
from conftest import list_sources, scenario, stored, tool

from guardspec.model.agent import Actor, DenyPatterns
from guardspec.model.messages import Source, assistant, user
from guardspec.model.observation import Refused
from guardspec.model.processors import (
    Abort,
    AddMessages,
    AddSystem,
    ArrayOf,
    EditMessage,
    EditText,
    Processor,
    RemoveByIds,
    Return,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run

DENY = (DenyPatterns("deny", ("forbidden",)),)


def _run(*procs, policies=(), messages=(user("u1", "forbidden", 30),), **kw):
    kw.setdefault("threads", stored(user("h1", "old", 10)))
    obs = run(scenario(*messages, processors=procs, policies=policies, **kw), Mode.GUARDED)
    assert isinstance(obs.outcome, Refused), obs.outcome
    return obs


def test_g13_input_messages_are_removed():
    obs = _run(policies=DENY)
    assert set(list_sources(obs)) == {"h1"}


def test_g13_unchanged_history_stays():
    obs = _run(policies=DENY)
    assert list_sources(obs)["h1"] == {"memory"}


def test_g13_messages_of_the_additions_record_are_removed():
    obs = _run(Processor("p", steps=(AddMessages((user("c9", "ctx", 40),), Source.CONTEXT),)), policies=DENY)
    assert "c9" not in list_sources(obs)


def test_g13_history_changed_by_an_earlier_processor_is_removed():
    obs = _run(Processor("p1", end=Return(ArrayOf(edits=(EditText("h1", "old, changed"),)))), Processor("p2", end=Abort("no")))
    assert "h1" not in list_sources(obs)


@pytest.mark.parametrize("end", [Abort("no"), ThrowTripWire("no"), Throw("boom")], ids=["abort", "tripwire", "throw"])
def test_g13_refusing_processors_own_changes_are_removed(end):
    steps = (EditMessage("h1", "edited in place"), AddMessages((user("c9", "ctx", 40),), Source.CONTEXT))
    obs = _run(Processor("p", steps=steps, end=end))
    assert set(list_sources(obs)) == set()


def _carrier_scenario(*procs):
    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    return _run(*procs, messages=(caller, user("u2", "thanks", 3000)), threads=threads)


def test_g13_remembered_caller_outcome_message_is_removed():
    obs = _carrier_scenario(Processor("p", end=Abort("no")))
    assert set(list_sources(obs)) == {"u0"}


def test_g13_moved_remembered_caller_outcome_message_is_removed():
    kept = assistant("a1", "let me check", tool("tc1", "result", result="Paris"), created_at=2000)
    mover = Processor("p1", steps=(RemoveByIds(("a1",)), AddMessages((kept,), Source.MEMORY)))
    obs = _carrier_scenario(mover, Processor("p2", end=Abort("no")))
    assert set(list_sources(obs)) == {"u0"}


def test_g13_moved_carrier_is_removed_even_when_the_mover_itself_aborts():
    kept = assistant("a1", "let me check", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = _carrier_scenario(Processor("p1", steps=(RemoveByIds(("a1",)), AddMessages((kept,), Source.MEMORY)), end=Abort("no")))
    assert set(list_sources(obs)) == {"u0"}


def test_g13_system_messages_stay():
    obs = _run(Processor("p", steps=(AddSystem("ADDED SYSTEM"),), end=Abort("no")))
    assert [s.content for s in obs.list.untagged] == ["You are a guarded agent.", "ADDED SYSTEM"]


def test_g13_durable_rbac_refusal_removes_the_input():
    """G13.1: an RBAC denial on durable removes the input before finalisation, so nothing of the call is saved."""
    obs = _run(actor=Actor("bob", "viewer"), loop=Loop.DURABLE)
    # RBAC runs before the memory processors (G2), so history was never loaded either
    assert "u1" not in list_sources(obs)
    assert [m.id for m in obs.stored] == ["h1"]


def test_g13_a_policy_refusal_removes_the_carrier_no_processor_touched():
    """G13.2: a refusal by the policies removes every carrier the memory processors left, with the input."""
    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = _run(policies=DENY, messages=(caller, user("u2", "forbidden", 3000)), threads=threads)
    assert obs.outcome.processor_id == "breakwater-policy-engine"
    assert set(list_sources(obs)) == {"u0"}
    assert [m.id for m in obs.stored] == ["u0", "a1"]  # the stored call is left as it was
    assert [p.state.value for m in obs.stored if m.id == "a1" for p in m.parts if hasattr(p, "state")] == ["call"]


def test_g13_an_input_assets_refusal_removes_the_carrier_too():
    """G13.2: a refusal by the input-assets gate removes the carriers the memory processors left."""
    from guardspec.model.messages import FilePart, Message, Role

    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    url = Message("u2", Role.USER, (FilePart("https://example.com/a.png", "image/png"),), 3000)
    obs = _run(messages=(caller, url), threads=threads)
    assert obs.outcome.processor_id == "breakwater-input-assets"
    assert set(list_sources(obs)) == {"u0"}


def test_g13_a_policy_refusal_removes_a_carrier_a_processor_moved_out_of_the_input():
    """G13.2: after the processors, a policy refusal removes the carrier even when a processor kept it as memory alone."""
    kept = assistant("a1", "let me check", tool("tc1", "result", result="Paris"), created_at=2000)
    mover = Processor("p1", steps=(RemoveByIds(("a1",)), AddMessages((kept,), Source.MEMORY)))
    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = _run(mover, policies=DENY, messages=(caller, user("u2", "forbidden", 3000)), threads=threads)
    assert obs.outcome.processor_id == "breakwater-policy-engine"
    assert set(list_sources(obs)) == {"u0"}
