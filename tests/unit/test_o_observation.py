"""O Observation of one call: what each field holds, and when it is absent (expected values
written from the field's clause, on small scenarios whose outcome the M and G clauses fix)."""

from conftest import ALICE, list_sources, scenario, stored, tool

from guardspec.model.agent import Actor, Allow, DenyPatterns, Memory
from guardspec.model.messages import Source, assistant, user
from guardspec.model.observation import Answered, Failed, Refused
from guardspec.model.processors import Abort, AddMessages, AddSystem, Processor, Throw
from guardspec.model.scenario import Loop, Mode
from guardspec.reference import run

GUEST = Actor("bob", "viewer")


def test_o1_an_outcome_is_answered_refused_with_its_processor_or_failed_with_its_error():
    """O1: answered; refused with reason, processor id and, for RBAC on generate, the thrown text; or failed."""
    assert run(scenario(user("u1", "hi", 10)), Mode.GUARDED).outcome == Answered()
    reason = "role 'viewer' is not in allowed roles [operator]"
    thrown = run(scenario(user("u1", "hi", 10), actor=GUEST), Mode.GUARDED).outcome
    assert thrown == Refused(reason, "breakwater-rbac", f"GuardedAgent authorization denied: {reason}")
    aborted = run(scenario(user("u1", "hi", 10), processors=(Processor("p", end=Abort("no")),)), Mode.GUARDED).outcome
    assert aborted == Refused("no", "p") and aborted.thrown is None
    failed = run(scenario(user("u1", "hi", 10), processors=(Processor("p", end=Throw("boom")),)), Mode.RAW).outcome
    assert failed == Failed("AGENT_GENERATE_FAILED")


def test_o2_the_audit_holds_the_events_in_order_with_their_fields():
    """O2: the events in order, each with action, decision, reason (none when allowed), actor, resource and detail."""
    obs = run(scenario(user("u1", "hi", 10), policies=(Allow("a"),), id="bot"), Mode.GUARDED)
    assert [(e.action, e.decision, e.reason) for e in obs.audit] == [
        ("agent.input.authorize", "allowed", None),
        ("agent.input.policy", "allowed", None),
    ]
    assert all(e.actor == ALICE and e.resource == "agent:bot" for e in obs.audit)
    assert obs.audit[0].detail is None and dict(obs.audit[1].detail) == {"evaluated": ("a",)}
    denied = run(scenario(user("u1", "leak", 10), policies=(DenyPatterns("d", ("leak",)),)), Mode.GUARDED)
    assert [(e.action, e.decision, e.reason) for e in denied.audit][-1] == ("agent.input.policy", "denied", "policy denied")


def test_o3_one_prompt_per_model_step_and_none_when_the_model_was_not_called():
    """O3: what the model received, one list per model step, with cached outputs substituted; none when it was not called."""
    from guardspec.model.values import obj

    cached = obj(mastra=obj(modelOutput=obj(type="text", value="CACHED")))
    threads = stored(user("h0", "q", 5), assistant("a1", tool("tc1", "result", result="raw", provider_metadata=cached), created_at=10))
    obs = run(scenario(user("u1", "hi", 30), threads=threads), Mode.RAW)
    assert len(obs.prompts) == 1
    (a1,) = [e for e in obs.prompts[0] if getattr(e, "id", None) == "a1"]
    assert a1.parts[0].result == obj(type="text", value="CACHED")
    refused = run(scenario(user("u1", "hi", 10), processors=(Processor("p", end=Abort("no")),)), Mode.GUARDED)
    assert refused.prompts == ()


def test_o4_stored_is_the_bound_threads_messages_after_the_call_and_none_unbound():
    """O4: the bound thread's messages after the call, durable finalisation included; none without a binding."""
    assert run(scenario(user("u1", "hi", 10)), Mode.RAW).stored is None
    obs = run(scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10))), Mode.RAW)
    assert [m.id for m in obs.stored] == ["h1", "u1", "reply-1"]
    # a tripwire on durable is still finalised (M10): the input is saved
    sc = scenario(
        user("u1", "hi", 30), threads=stored(user("h1", "old", 10)), processors=(Processor("p", end=Abort("no")),), loop=Loop.DURABLE
    )
    assert [m.id for m in run(sc, Mode.RAW).stored] == ["h1", "u1"]


def test_o5_title_is_the_bound_threads_title_after_the_call():
    """O5: the bound thread's title after the call: "" when none was made, none without a binding."""
    assert run(scenario(user("u1", "hi", 10)), Mode.RAW).title is None
    assert run(scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10))), Mode.RAW).title == ""
    kept = run(scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10), title="Kept"), memory=Memory(True)), Mode.RAW)
    assert kept.title == "Kept"


def test_o6_result_on_generate_and_stream_and_none_on_durable_or_a_failed_call():
    """O6: text, finishReason and the ids of messages and rememberedMessages; none on durable and when the call failed or threw."""
    threads = stored(user("h1", "old", 10))
    for loop in (Loop.GENERATE, Loop.STREAM):
        r = run(scenario(user("u1", "hi", 30), threads=threads, loop=loop, reply="the answer"), Mode.RAW).result
        assert (r.text, r.messages, r.remembered) == ("the answer", ("h1", "u1", "reply-1"), ("h1",))
        assert r.finish_reason
    assert run(scenario(user("u1", "hi", 30), threads=threads, loop=Loop.DURABLE), Mode.RAW).result is None
    assert run(scenario(user("u1", "hi", 10), processors=(Processor("p", end=Throw("boom")),)), Mode.RAW).result is None
    assert run(scenario(user("u1", "hi", 10), actor=GUEST), Mode.GUARDED).result is None


def test_o7_the_list_holds_each_message_with_its_sources_and_the_system_buckets():
    """O7: the final list, each message with its sources, and the system buckets; no step-start part is shown."""
    steps = (AddSystem("tagged", "tagA"), AddMessages((user("c1", "ctx", 20),), Source.CONTEXT))
    caller = assistant("a1", "let me check", tool("tc1", "call"), created_at=35)  # the reply merges into it (M12.12)
    obs = run(scenario(user("u1", "hi", 30), caller, processors=(Processor("p", steps=steps),), reply="more"), Mode.RAW)
    assert list_sources(obs) == {"c1": {"context"}, "u1": {"input"}, "a1": {"response"}}
    assert [s.content for s in obs.list.untagged] == ["You are a guarded agent."]
    assert [(t, [s.content for s in b]) for t, b in obs.list.tagged] == [("tagA", ["tagged"])]
    # the reply's text follows a trailing tool part, so the list holds a step-start there (M4.2)
    (a1,) = [lm.message for lm in obs.list.messages if lm.message.id == "a1"]
    assert [type(p).__name__ for p in a1.parts] == ["TextPart", "ToolPart", "TextPart"]
    assert not any(type(p).__name__ == "StepStartPart" for lm in obs.list.messages for p in lm.message.parts or ())


def test_o8_read_is_the_text_the_policies_read_and_none_when_they_did_not_run():
    """O8: in guarded mode the text the input policies read; none when they did not run, and none in raw mode."""
    sc = scenario(user("u1", "hi there", 10), policies=(Allow("a"),))
    assert run(sc, Mode.GUARDED).read == "hi there"
    assert run(sc, Mode.RAW).read is None
    aborted = scenario(user("u1", "hi", 10), processors=(Processor("p", end=Abort("no")),), policies=(Allow("a"),))
    assert run(aborted, Mode.GUARDED).read is None
