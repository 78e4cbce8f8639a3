"""I12: raw Mastra shows the violations the guard removes (I1/I2 on durable, I4 on moved text)."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from guardspec.properties import invariants as inv
from guardspec.properties.harness import check_call, execute, raw_tally
from guardspec.properties.machines import RawThreadMachine, moves_text_out_of_input
from guardspec.properties.strategies import RAW_I12, scenarios


def test_raw_strategy_finds_the_predicted_violations_and_guarded_none():
    raw: Counter = Counter()
    guarded: Counter = Counter()

    @settings(max_examples=200, derandomize=True, database=None, deadline=None)
    @given(scenarios(st.just(RAW_I12)))
    def hunt(sc):
        moved = moves_text_out_of_input(sc.agent)
        r = execute(sc, "raw")
        raw.update(raw_tally(r, check_call(r), moved))
        # guarded: the same scenario without title generation (G0 refuses it outright)
        from attrs import evolve

        from guardspec.model.agent import Memory

        g_sc = evolve(sc, agent=evolve(sc.agent, memory=Memory()))
        g = execute(g_sc, "guarded")
        guarded.update(raw_tally(g, check_call(g), moved))

    hunt()
    assert inv.raw_mode_shows_predicted_violations(raw) == [], raw
    assert raw["I1@durable"] and raw["I2@durable"] and raw["I4@moved"], raw
    assert inv.guarded_mode_shows_none(guarded) == [], guarded


def test_raw_state_machine_finds_them_across_calls():
    RawThreadMachine.found.clear()
    run_state_machine_as_test(
        RawThreadMachine, settings=settings(max_examples=60, stateful_step_count=6, deadline=None, derandomize=True, database=None)
    )
    assert inv.raw_mode_shows_predicted_violations(RawThreadMachine.found) == [], RawThreadMachine.found


def test_i12_reports_what_is_missing():
    assert len(inv.raw_mode_shows_predicted_violations({})) == 2
    assert inv.raw_mode_shows_predicted_violations({"I2@durable": 1, "I4@moved": 3}) == []
    assert inv.guarded_mode_shows_none({"I1@durable": 1}) != []
