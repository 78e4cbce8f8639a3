"""``guardspec bench``: speed of the interpreter, as rates and ratios measured in one run, and
the time budget the whole bench keeps to (``Budget``, ``BenchRun``).

Generated scenarios come from a seeded ``random.Random`` (the reference must stay free of
hypothesis): about 8 messages (stored history and caller input) and 2 processors drawn from
the processor language, with a deny-patterns policy so that refusals are common.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from attrs import field, frozen

from guardspec.model.agent import Actor, Agent, ClientTool, DenyPatterns, Mapping, Memory, MemoryBinding, Thread, ThreadStore
from guardspec.model.fast import evolve
from guardspec.model.messages import Role, Source, SystemMessage, ToolPart, ToolState, assistant, user
from guardspec.model.processors import (
    Abort,
    AddMessages,
    AddSystem,
    ArrayOf,
    EditMessage,
    EditText,
    ObjectOf,
    Primitive,
    Processor,
    RemoveByIds,
    Return,
    SameList,
    Throw,
)
from guardspec.model.scenario import Call, Loop, Mode, Scenario
from guardspec.model.values import obj
from guardspec.reference import run

MARK = "FORBIDDEN"


@frozen
class Budget:
    """The wall time the whole bench may take, from its start."""

    seconds: float
    start: float = field(factory=time.perf_counter)

    def spent(self) -> float:
        return time.perf_counter() - self.start

    def left(self) -> float:
        return max(0.0, self.seconds - self.spent())


@frozen
class BenchRun:
    """What every ``bench_section`` hook is given: the time per measurement, the budget, and
    whether the proof-growth table is asked for (each bound stopped after ``proof_timeout``)."""

    seconds: float = 1.0
    budget: Budget = field(factory=lambda: Budget(110.0))
    proofs: bool = False
    proof_timeout: float = 30.0

    def fits(self, needs: float) -> bool:
        """Whether a measurement of about ``needs`` seconds fits in what is left."""
        return self.budget.left() >= needs


def generated_scenario(rng: random.Random) -> Scenario:
    """A scenario of about 8 messages and 2 processors."""
    n_hist = rng.randint(3, 6)
    hist = []
    for i in range(n_hist):
        if i % 2 == 0:
            hist.append(user(f"h{i}", rng.choice(["hello", "where am I?", "tell me"]), created_at=10 + i))
        else:
            hist.append(assistant(f"h{i}", "sure", created_at=10 + i))
    pending = rng.random() < 0.4
    if pending:
        hist.append(assistant("a-tool", "let me check", ToolPart("tc1", "loc", ToolState.CALL, args=obj(q=1)), created_at=40))
    caller = [user("u1", rng.choice(["hi", f"a {MARK} text", "question"]), created_at=50)]
    if pending:
        caller.insert(
            0, assistant("a-tool", ToolPart("tc1", "loc", ToolState.RESULT, args=obj(q=1), result=obj(city="Paris")), created_at=40)
        )
    if rng.random() < 0.5:
        caller.append(user("u2", "more", created_at=51))

    def proc(k: int) -> Processor:
        steps = []
        if rng.random() < 0.5:
            steps.append(AddSystem(SystemMessage(rng.choice(["be brief", f"sys {MARK}"]))))
        if rng.random() < 0.3:
            steps.append(AddMessages((user(f"x{k}", rng.choice(["extra", MARK]), created_at=60 + k),), rng.choice(list(Source))))
        if rng.random() < 0.2:
            steps.append(EditMessage("h0", rng.choice(["edited", MARK])))
        if rng.random() < 0.2:
            steps.append(RemoveByIds(("h1",)))
        end = rng.choice(
            [
                Return(),
                Return(SameList()),
                Return(ArrayOf()),
                Return(ArrayOf(copy="deep")),
                Return(ArrayOf(edits=(EditText("u1", rng.choice(["clean", MARK])),))),
                Return(ObjectOf()),
                Return(Primitive(None)),
                Abort("stop"),
                Throw("boom"),
            ]
        )
        return Processor(f"p{k}", tuple(steps), end)

    agent = Agent(
        processors=(proc(1), proc(2)),
        policies=(DenyPatterns("marker", (MARK,)),),
        client_tools=(ClientTool("loc", Mapping()),),
        memory=Memory(),
    )
    call = Call(
        loop=rng.choice(list(Loop)),
        messages=tuple(caller),
        actor=Actor("alice", rng.choice(["operator", "operator", "operator", "viewer"])),
        memory=MemoryBinding("t1", "r1"),
        reply="ok",
        now=1000,
    )
    return Scenario(agent, call, ThreadStore((Thread("t1", "r1", tuple(hist)),)), name="generated")


def rate(fn: Callable[[], object], seconds: float = 1.0) -> float:
    """Calls of ``fn`` per second, measured for about ``seconds``."""
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            fn()
        n += 20
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def scenarios_rate(scenarios: list[Scenario], mode: Mode, seconds: float) -> float:
    i = 0

    def one() -> None:
        nonlocal i
        run(scenarios[i % len(scenarios)], mode)
        i += 1

    return rate(one, seconds)


def interpreter_rows(examples: Iterable[Scenario], seconds: float = 1.0, seed: int = 0) -> list[tuple[str, str, float]]:
    """(input set, mode, calls per second) for the examples and for generated scenarios."""
    rng = random.Random(seed)
    generated = [generated_scenario(rng) for _ in range(200)]
    ex = list(examples)
    rows = []
    for name, scs in (("examples", ex), ("generated (~8 messages, 2 processors)", generated)):
        if not scs:
            continue
        for mode in (Mode.GUARDED, Mode.RAW):
            rows.append((name, mode.value, scenarios_rate(scs, mode, seconds)))
    return rows


def peak_memory(scenarios: list[Scenario], mode: Mode) -> float:
    """The median over ``scenarios`` of the peak bytes one call allocates (tracemalloc),
    after a warm-up pass (first calls compile per-class helpers once)."""
    import statistics
    import tracemalloc

    for sc in scenarios:
        run(sc, mode)
    peaks = []
    for sc in scenarios:
        tracemalloc.start()
        run(sc, mode)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return float(statistics.median(peaks))


def memory_rows(seed: int = 0, n: int = 100) -> list[tuple[str, float]]:
    """(mode, median peak KiB of one call) on generated scenarios."""
    rng = random.Random(seed)
    generated = [generated_scenario(rng) for _ in range(n)]
    return [(mode.value, peak_memory(generated, mode) / 1024) for mode in (Mode.GUARDED, Mode.RAW)]


def example_scenarios(root: Path) -> list[Scenario]:
    from .examples import example_paths, load_example

    return [load_example(p).scenario for p in example_paths(root)]


__all__ = [
    "BenchRun",
    "Budget",
    "Role",
    "evolve",
    "example_scenarios",
    "generated_scenario",
    "interpreter_rows",
    "memory_rows",
    "peak_memory",
    "rate",
]
