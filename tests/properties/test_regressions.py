"""Regressions for two reference problems the properties found: caller context reaching the
model unread (I4, now read beyond G10), and a fingerprint crash on a system entry holding a
non-text part (G9)."""

from guardspec.model.agent import Actor, Agent, DenyPatterns, Memory, MemoryBinding, Thread, ThreadStore
from guardspec.model.messages import ImagePart, Message, Role, TextPart
from guardspec.model.processors import Processor, ReplaceAllSystem, Return
from guardspec.model.scenario import Call, Loop, Scenario
from guardspec.properties.harness import check_call, execute

U0 = Message("u0", Role.USER, (TextPart("note-00"),), created_at=1, thread_id="t1", resource_id="r1")
AGENT = Agent(policies=(DenyPatterns("no-marker", ("FORBIDDEN",)),), memory=Memory())


def test_caller_context_is_read():
    sc = Scenario(
        AGENT,
        # durable: a guarded generate/stream call takes no context (G1, docs/breakwater-measurements.md §6)
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
