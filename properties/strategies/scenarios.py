"""Agents, calls, whole scenarios and call sequences on one agent's threads."""

from __future__ import annotations

from typing import Any

from attrs import evolve
from hypothesis import strategies as st

from guardspec.model.agent import (
    Actor,
    Agent,
    Allow,
    Memory,
    MemoryBinding,
    NoDecision,
    Thread,
    ThreadStore,
    ThrowingEvaluator,
)
from guardspec.model.messages import Message
from guardspec.model.scenario import Call, Scenario

from .processors import processors
from .swarms import ACTOR, ASSET_ORIGIN, DEFAULT, FRESH_THREAD, NOW, POLICY, RESOURCE, THREAD, TOOLS, Swarm, swarms, well_behaved
from .threads import Fixture, caller_inputs, fixtures, user
from .values import texts


@st.composite
def agents(draw, swarm: Swarm = DEFAULT, fixture: Fixture | None = None, memory: bool = True) -> Agent:
    policies: list = [POLICY]
    if swarm.policy_errors:
        extra = draw(st.sampled_from([None, None, ThrowingEvaluator("throws"), NoDecision("silent"), Allow("all")]))
        if extra is not None:
            policies.insert(draw(st.integers(0, 1)), extra)
    n = draw(st.integers(swarm.min_processors, swarm.max_processors))
    if swarm.reaching:  # the processors before the last one hand the list on (``Swarm.reaching``)
        # the last one returns too in five calls in six; otherwise it ends as the swarm draws,
        # returning three times as often as it would
        others = evolve(swarm, endings=swarm.endings | {"return"}, return_weight=3 * swarm.return_weight)
        last = well_behaved(swarm, steps_too=False) if draw(st.integers(0, 5)) else others
        procs = tuple(draw(processors(well_behaved(swarm) if i < n - 1 else last, fixture, f"p{i + 1}")) for i in range(n))
    else:
        procs = tuple(draw(processors(swarm, fixture, f"p{i + 1}")) for i in range(n))
    mem = Memory(generate_title=swarm.titles and not swarm.reaching) if memory else None
    origins = draw(st.sampled_from([(), (ASSET_ORIGIN,), ("http://localhost:3000", ASSET_ORIGIN + "/")])) if swarm.asset_urls else ()
    # G3: the principal kinds an agent allows (human only, unless the swarm asks for services
    # too, or its calls are drawn reaching, where a service of another role may call)
    kinds = draw(st.sampled_from([("human",), ("human", "service")])) if swarm.service_actors or swarm.reaching else ("human",)
    return Agent(
        policies=tuple(policies),
        processors=procs,
        client_tools=TOOLS,
        memory=mem,
        allowed_input_asset_origins=origins,
        allowed_principal_kinds=kinds,
    )


def actors(swarm: Swarm) -> st.SearchStrategy:
    if swarm.reaching and swarm.rbac_denials:
        # the allowed actor nine times in ten; otherwise any actor, each as often as the others
        # (RBAC reads them first, so they cost no other shape its reach), or a service of a role
        # the agent does not allow, which passes where services are allowed: roles are checked
        # for humans only (G3.2)
        return st.integers(0, 19).flatmap(
            lambda k: _any_actor(swarm) if k == 0 else st.sampled_from(_OTHER_ROLE_SERVICES) if k == 1 else st.just(ACTOR)
        )
    if swarm.rare_actors:  # half the time any actor, each as often as the others
        return st.booleans().flatmap(lambda b: _any_actor(swarm) if b else actors(evolve(swarm, rare_actors=False)))
    if not swarm.rbac_denials:
        return st.just(ACTOR)
    others = _others(swarm)
    if swarm.option_refusals > 1:  # Breakwater's other roles, its other kinds and a kind it does not know (G3.1, G3.2), first
        bw = _breakwater_actors()
        # the kinds Breakwater does not allow or know a third of the time, Breakwater's roles two thirds
        return st.one_of(st.sampled_from(bw[:3]), st.sampled_from(bw), st.sampled_from(bw + others))
    return st.one_of(st.just(ACTOR), st.sampled_from(others))


def _any_actor(swarm: Swarm) -> st.SearchStrategy:
    """Any actor the swarms draw (none, other roles and kinds, Breakwater's), each as often."""
    return st.sampled_from(_others(swarm) + _breakwater_actors())


_OTHER_ROLE_SERVICES = (Actor("svc", "viewer", "service"), Actor("svc", "builder", "service"))


def _others(swarm: Swarm) -> list:
    return [None, Actor("bob", "admin"), Actor("svc", "operator", "service"), Actor("anon", "operator", None)] + (
        [Actor("svc", "viewer", "service")] if swarm.service_actors else []
    )


def _breakwater_actors() -> list:
    return [
        Actor("bot", "viewer", "robot"),
        Actor("ag", "builder", "agent"),
        Actor("sys", "admin", "system"),
        ACTOR,
        Actor("rev", "reviewer", "human"),
        Actor("svc", "builder", "service"),
    ]


@st.composite
def calls(draw, swarm: Swarm, fixture: Fixture, memory: bool, call_no: int = 0) -> Call:
    binding = None
    if swarm.carrier and call_no == 0:
        binding = MemoryBinding(THREAD, RESOURCE)
    elif memory:
        binding = draw(st.sampled_from([MemoryBinding(THREAD, RESOURCE)] * 3 + [MemoryBinding(FRESH_THREAD, RESOURCE), None]))
    elif draw(st.booleans()):
        binding = MemoryBinding(THREAD, RESOURCE)
    fx = fixture if binding is not None and binding.thread == THREAD else Fixture(fixture.stored, fixture.pending, None)
    context = ()
    if swarm.context and not swarm.reaching and draw(st.booleans()):  # Breakwater refuses the option (G1)
        context = (user("x1", draw(texts(swarm)), created_at=4),)
    return Call(
        loop=draw(st.sampled_from(swarm.loops)),
        messages=draw(caller_inputs(swarm, fx, call_no)),
        actor=draw(actors(swarm)),
        memory=binding,
        reply=f"reply-{call_no}",
        context=context,
        now=NOW + 100 * call_no,
    )


def _swarm(draw, swarm: Any) -> Swarm:
    """A given swarm, a strategy of swarms drawn from, or (None) a random one."""
    if swarm is None:
        return draw(swarms())
    if isinstance(swarm, st.SearchStrategy):
        return draw(swarm)
    return swarm


@st.composite
def scenarios(draw, swarm: Swarm | None = None) -> Scenario:
    """A whole scenario; a swarm is drawn from ``swarms()`` unless one is given."""
    sw = _swarm(draw, swarm)
    memory = sw.carrier or (sw.memory if sw.memory is not None else draw(st.booleans()))
    fx = draw(fixtures(sw))
    threads = ThreadStore((Thread(THREAD, RESOURCE, fx.stored),)) if fx.stored else ThreadStore()
    if sw.reaching:  # the call first, so that the processors edit messages the list holds
        call = draw(calls(sw, fx, memory))
        loaded = memory and call.memory is not None and call.memory.thread == THREAD
        ids = [m.id for m in call.messages if isinstance(m, Message)] + ([m.id for m in fx.stored] if loaded else [])
        return Scenario(draw(agents(sw, evolve(fx, present=tuple(dict.fromkeys(ids))), memory)), call, threads)
    agent = draw(agents(sw, fx, memory))
    return Scenario(agent, draw(calls(sw, fx, memory)), threads)


@st.composite
def call_sequences(draw, swarm: Swarm | None = None) -> list[Scenario]:
    """One agent and 1..``max_calls`` calls on its threads (the reference threads the stored
    threads from call to call; later scenarios' own ``threads`` are ignored)."""
    sw = _swarm(draw, swarm)
    memory = sw.carrier or (sw.memory if sw.memory is not None else draw(st.booleans()))
    fx = draw(fixtures(sw))
    agent = draw(agents(sw, fx, memory))
    threads = ThreadStore((Thread(THREAD, RESOURCE, fx.stored),)) if fx.stored else ThreadStore()
    n = draw(st.integers(1, sw.max_calls))
    return [Scenario(agent, draw(calls(sw, fx if i == 0 else Fixture(fx.stored, fx.pending, None), memory, i)), threads) for i in range(n)]
