"""Call-sequence state machines: one thread with stored history receiving calls.

The machine keeps the stored threads between calls exactly as ``run_call(...).threads`` leaves
them. Rules send caller messages, send the caller's client tool outcome for a call the thread
still holds pending, swap the agent's processors for others drawn from the language, switch the
actor (RBAC allows or denies) and the loop. After every call the per-call invariants are
checked; I9 is checked over the whole history.

``GuardedThreadMachine`` fails on any violation. ``RawThreadMachine`` runs the same calls in raw
mode and only *counts* the violations I12 predicts, in ``RawThreadMachine.found``; a test then
asserts they were found (``invariants.raw_mode_shows_predicted_violations``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar

from attrs import evolve
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from guardspec.model.agent import Agent, MemoryBinding, Thread, ThreadStore
from guardspec.model.messages import TOOL_RANK, Message, Role, Source, ToolPart
from guardspec.model.processors import AddMessages, AddSystem, ClearInput, RemoveByIds
from guardspec.model.scenario import Call, Loop, Mode, Scenario

from . import strategies as S
from .harness import check_call, check_sequence, execute, raw_tally


def moves_text_out_of_input(agent: Agent) -> bool:
    """A processor that takes caller text out of the input (clears it or removes a caller
    message) and puts text back elsewhere (another source, or a system message)."""
    for p in agent.processors:
        took = False
        for s in p.steps:
            if isinstance(s, ClearInput) or (isinstance(s, RemoveByIds) and any(i.startswith("c") or i == "a0" for i in s.ids)):
                took = True
            elif took and (isinstance(s, AddSystem) or (isinstance(s, AddMessages) and s.source is not Source.INPUT)):
                return True
    return False


class GuardedThreadMachine(RuleBasedStateMachine):
    mode = Mode.GUARDED
    base = S.Swarm(max_processors=2)
    total_calls = 0  # across runs, for reports and for tests that the machine did call

    def __init__(self) -> None:
        super().__init__()
        self.swarm: S.Swarm = self.base
        self.agent: Agent | None = None
        self.threads = ThreadStore()
        self.loop = Loop.GENERATE
        self.actor: Any = S.ACTOR
        self.history: list = []
        self.calls = 0

    # -- setup and configuration --------------------------------------------------------------

    @initialize(data=st.data())
    def setup(self, data: Any) -> None:
        self.swarm = data.draw(S.swarms(self.base), label="swarm")
        fx = data.draw(S.fixtures(evolve(self.swarm, client_outcomes=False, carrier=False)), label="history")
        self.agent = data.draw(S.agents(self.swarm, fx, True), label="agent")
        self.threads = ThreadStore((Thread(S.THREAD, S.RESOURCE, fx.stored),)) if fx.stored else ThreadStore()
        self.loop = data.draw(st.sampled_from(self.swarm.loops), label="loop")

    @rule(data=st.data())
    def swap_processors(self, data: Any) -> None:
        fx = self._fixture()
        n = data.draw(st.integers(0, self.swarm.max_processors), label="processors")
        procs = tuple(data.draw(S.processors(self.swarm, fx, f"p{i + 1}")) for i in range(n))
        self.agent = evolve(self.agent, processors=procs)

    @rule(actor=st.one_of(st.just(S.ACTOR), S.actors(S.Swarm())))
    def switch_actor(self, actor: Any) -> None:
        self.actor = actor

    @rule(loop=st.sampled_from(list(Loop)))
    def switch_loop(self, loop: Loop) -> None:
        if loop in self.swarm.loops:
            self.loop = loop

    # -- calls -----------------------------------------------------------------------------------

    def _stored(self) -> tuple[Message, ...]:
        t = self.threads.get(S.THREAD)
        return t.messages if t else ()

    def _pending(self) -> list[tuple[Message, ToolPart]]:
        return [
            (m, p)
            for m in self._stored()
            if m.role is Role.ASSISTANT
            for p in m.parts or ()
            if isinstance(p, ToolPart) and TOOL_RANK[p.state] < 4 and p.state.value != "partial-call"
        ]

    def _fixture(self) -> S.Fixture:
        pend = self._pending()
        return S.Fixture(self._stored(), pend[0][1] if pend else None, None)

    def _call(self, messages: tuple) -> None:
        call = Call(
            loop=self.loop,
            messages=messages,
            actor=self.actor,
            memory=MemoryBinding(S.THREAD, S.RESOURCE),
            reply=f"reply-{self.calls}",
            now=S.NOW + 100 * self.calls,
        )
        sc = Scenario(self.agent, call, self.threads)
        ex = execute(sc, self.mode)
        self.calls += 1
        type(self).total_calls += 1
        self.threads = ex.after
        self.history.append((ex.scenario, ex.observation))
        self.after_call(ex, check_call(ex))

    def after_call(self, ex: Any, violations: dict) -> None:
        assert not violations, _explain(ex, violations)

    @rule(data=st.data())
    def caller_messages(self, data: Any) -> None:
        fx = S.Fixture(self._stored(), None, None)
        msgs = data.draw(S.caller_inputs(evolve(self.swarm, weird_values=False), fx, self.calls), label="messages")
        self._call(msgs)

    @precondition(lambda self: bool(self._pending()))
    @rule(data=st.data())
    def client_outcome(self, data: Any) -> None:
        m, pending = data.draw(st.sampled_from(self._pending()), label="pending call")
        outcome = data.draw(S.outcome_for(pending, self.swarm), label="outcome")
        self._call((Message(m.id, Role.ASSISTANT, (outcome,), created_at=m.created_at),))

    @invariant()
    def refused_text_stays_out(self) -> None:
        if self.mode is Mode.GUARDED:
            v = check_sequence(self.history)
            assert not v, v


class RawThreadMachine(GuardedThreadMachine):
    """The same machine in raw mode; it records what I12 predicts instead of failing."""

    mode = Mode.RAW
    base = S.RAW_I12
    found: ClassVar[Counter] = Counter()  # shared by the runs of the class, read after them

    def after_call(self, ex: Any, violations: dict) -> None:
        for k, n in raw_tally(ex, violations, moves_text_out_of_input(self.agent)).items():
            RawThreadMachine.found[k] += n
        if check_sequence(self.history):
            RawThreadMachine.found["I9"] += 1


def _explain(ex: Any, violations: dict) -> str:
    from .report import describe

    return describe(ex, violations)


TestGuardedThread = GuardedThreadMachine.TestCase

__all__ = ["GuardedThreadMachine", "RawThreadMachine", "moves_text_out_of_input"]
