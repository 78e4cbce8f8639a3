"""Regressions the properties found: caller context reaching the model unread (I4, now read
beyond G10), a fingerprint crash on a system entry holding a non-text part (G9), and an
invariant that took a carrier moved by a processor's own merging add for a returned one (I8)."""

from guardspec.model.agent import Actor, Agent, ClientTool, DenyPatterns, Mapping, Memory, MemoryBinding, Thread, ThreadStore
from guardspec.model.jsvalues import JsObject
from guardspec.model.messages import ImagePart, Message, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.processors import AddMessages, Processor, ReplaceAllSystem, Return, SameList
from guardspec.model.scenario import Call, Loop, Scenario
from guardspec.properties.harness import check_call, execute

U0 = Message("u0", Role.USER, (TextPart("note-00"),), created_at=1, thread_id="t1", resource_id="r1")
AGENT = Agent(policies=(DenyPatterns("no-marker", ("FORBIDDEN",)),), memory=Memory())


def test_caller_context_is_read():
    sc = Scenario(
        AGENT,
        # durable: a guarded generate/stream call takes no context (G1)
        Call(
            Loop.DURABLE,
            (Message("c1", Role.USER, (TextPart("note-01"),), created_at=10),),
            Actor("a", "operator"),
            MemoryBinding("t1", "r1"),
            context=(Message("x1", Role.USER, (TextPart("FORBIDDEN-02"),), created_at=4),),
        ),
        ThreadStore((Thread("t1", "r1", (U0,)),)),
    )
    ex = execute(sc)
    assert not check_call(ex)
    assert ex.observation.outcome.reason == "policy 'no-marker' denied the input"


def test_replace_all_system_with_an_image_part_does_not_crash():
    db = Message("s1", Role.SYSTEM, (ImagePart("note-02", "image/png"),))
    p = Processor("p1", (ReplaceAllSystem((db,)),), Return())
    sc = Scenario(
        Agent(policies=AGENT.policies, processors=(p,), memory=Memory()),
        Call(Loop.GENERATE, ("note-03",), Actor("a", "operator"), MemoryBinding("t1", "r1")),
        ThreadStore((Thread("t1", "r1", (U0,)),)),
    )
    ex = execute(sc)
    assert not check_call(ex)


def _carrier_scenario(source: Source, merge: bool | None) -> Scenario:
    """A remembered assistant call ``a0`` whose client outcome the caller sends (a memory+input
    carrier, S3), and a processor that adds an assistant note under ``source`` and returns the
    list itself."""
    call = ToolPart("tc1", "lookup", ToolState.CALL, args=JsObject((("q", "note-00"),)))
    outcome = ToolPart("tc1", "lookup", ToolState.RESULT, args=JsObject((("q", "note-00"),)), result=JsObject((("answer", "note-00"),)))
    stored = Message("a0", Role.ASSISTANT, (TextPart("note-00"), call), created_at=2, thread_id="t1", resource_id="r1")
    note = Message("n1", Role.ASSISTANT, (TextPart("note-01"),), created_at=0)
    p = Processor("p1", (AddMessages((note,), source, merge),), Return(SameList()))
    agent = Agent(
        policies=AGENT.policies,
        processors=(p,),
        client_tools=(ClientTool("lookup", Mapping("text", "mapped:")),),
        memory=Memory(),
        max_steps=1,
    )
    caller = Message("a0", Role.ASSISTANT, (outcome,), created_at=2)
    return Scenario(
        agent,
        Call(Loop.GENERATE, (caller,), Actor("alice", "operator"), MemoryBinding("t1", "r1")),
        ThreadStore((Thread("t1", "r1", (U0, stored)),)),
    )


def _sources_after_processor(ex, mid: str) -> set[str]:
    _, view = ex.stages[-1]
    return {s.value for s in next(x for x in view.messages if x.message.id == mid).sources}


def test_a_merging_response_add_moves_the_carrier_and_is_not_a_return():
    # M4.1: the note merges into the latest message, the carrier; M1.1: a response add drops
    # memory and input. The processor moved the carrier itself, so S3 does not apply to it.
    ex = execute(_carrier_scenario(Source.RESPONSE, None))
    assert _sources_after_processor(ex, "a0") == {"response"}
    assert not check_call(ex)


def test_an_input_add_that_merges_keeps_the_carrier_both():
    # M1.1: an input add keeps memory, so the carrier is still returned as memory and input
    # and I8's checks apply to it (its outcome is sent mapped and saved).
    ex = execute(_carrier_scenario(Source.INPUT, None))
    assert _sources_after_processor(ex, "a0") == {"memory", "input"}
    assert not check_call(ex)
