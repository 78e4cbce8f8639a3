"""The invariants hold on the reference in guarded mode, on every loop (SPEC §P)."""

from hypothesis import given, settings

from guardspec.model.scenario import Loop
from guardspec.properties import settings as profiles
from guardspec.properties.harness import run_sequence
from guardspec.properties.machines import GuardedThreadMachine
from guardspec.properties.strategies import battery, call_sequences, mixed_swarms

profiles.load()


@given(call_sequences(mixed_swarms()))
def test_every_property_holds_in_guarded_mode(seq):
    _, found = run_sequence(seq, "guarded")
    assert not found, found


def test_aimed_swarms_hold_too():
    for label, strat in battery()[1:]:

        @settings(max_examples=max(20, settings.default.max_examples // 5))
        @given(call_sequences(strat))
        def check(seq):
            _, found = run_sequence(seq, "guarded")
            assert not found, (label, found)  # noqa: B023 (check runs within this iteration)

        check()


def test_generation_reaches_every_loop_and_outcome():
    seen = set()

    @settings(max_examples=150, derandomize=True, database=None)
    @given(call_sequences(mixed_swarms()))
    def collect(seq):
        execs, _ = run_sequence(seq, "guarded")
        for e in execs:
            seen.add(e.scenario.call.loop)
            seen.add(type(e.observation.outcome).__name__)

    collect()
    assert {Loop.GENERATE, Loop.STREAM, Loop.DURABLE, "Answered", "Refused", "Failed"} <= seen


TestGuardedThread = GuardedThreadMachine.TestCase
TestGuardedThread.settings = settings(
    max_examples=profiles.budget("machine_examples"), stateful_step_count=profiles.budget("steps"), deadline=None
)


def test_machine_makes_calls():
    before = GuardedThreadMachine.total_calls
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(
        GuardedThreadMachine, settings=settings(max_examples=15, stateful_step_count=5, deadline=None, derandomize=True, database=None)
    )
    assert GuardedThreadMachine.total_calls - before >= 15
