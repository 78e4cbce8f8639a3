"""Running a scenario and checking every invariant on it.

``execute`` runs one call through the reference with a stage trace and gathers what the
invariants need; ``check_call`` returns the violations of each per-call property by name, and
``check_sequence`` those of the sequence property I9. The same checks serve the tests, the
state machines, the mutant killer and ``guardspec explore``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

from attrs import evolve, frozen

from guardspec.model.agent import ThreadStore
from guardspec.model.observation import Observation, Refused
from guardspec.model.processors import PROCESS_INPUT, ArrayOf, Primitive, Return, SameList
from guardspec.model.scenario import Loop, Mode, Scenario
from guardspec.reference.raw_runner import raw_policy_text
from guardspec.reference.trace import Trace

from . import invariants as inv

# ``guardspec.reference.run`` the module (the package re-exports a function of that name).
reference_run = importlib.import_module("guardspec.reference.run")


@frozen
class Execution:
    """One call and everything the invariants look at."""

    scenario: Scenario
    mode: Mode
    observation: Observation
    before: ThreadStore
    after: ThreadStore
    read: str | None
    stages: tuple[tuple[str, Any], ...]  # (name, ListView): the baseline, then each processor
    stage_names: tuple[str, ...]


def _stages(trace: Trace) -> tuple[tuple[str, Any], ...]:
    """The list before any application processor ran (after preparation and the memory
    processors), then the list after each processor that returned."""
    base = [s for s in trace.stages if s.name in ("preparation", "memory processors")]
    if not base:
        return ()
    picked = [base[-1]] + [s for s in trace.stages if s.name.startswith("processor ")]
    return tuple((s.name, reference_run.list_view(s.list)) for s in picked)


def _raw_read(scenario: Scenario, trace: Trace) -> str | None:
    """What raw mode's naive policy engine read: the input messages' text when the raw chain
    ran to the end with policies configured (reference/raw_runner.py)."""
    stage = next((s for s in trace.stages if s.name == "application processors (raw)"), None)
    if stage is None or stage.note or not scenario.agent.policies:
        return ""
    return raw_policy_text(stage.list)


def execute(scenario: Scenario, mode: Mode | str = Mode.GUARDED) -> Execution:
    mode = Mode(mode)
    trace = Trace()
    r = reference_run.run_call(scenario, mode, trace)
    read = r.observation.read if mode is Mode.GUARDED else _raw_read(scenario, trace)
    return Execution(
        scenario,
        mode,
        r.observation,
        scenario.threads,
        r.threads,
        read,
        _stages(trace) if mode is Mode.GUARDED else (),
        tuple(s.name for s in trace.stages),
    )


def _identity_only(scenario: Scenario) -> bool:
    ps = scenario.agent.processors
    # an identity processor declares processInput alone: another hook is refused at
    # construction (G0), which is no identity
    return bool(ps) and all(
        not p.steps
        and tuple(p.hooks) == (PROCESS_INPUT,)
        and isinstance(p.end, Return)
        and (
            isinstance(p.end.value, SameList)
            or (isinstance(p.end.value, Primitive) and inv._falsy(p.end.value.value))
            or p.end.value == ArrayOf()
        )
        for p in ps
    )


def _i11(ex: Execution) -> list[str]:
    return inv.same_scenario_same_observation(ex.observation, reference_run.run(ex.scenario, ex.mode))


def _identity(ex: Execution) -> list[str]:
    if not _identity_only(ex.scenario):
        return []
    plain = evolve(ex.scenario, agent=evolve(ex.scenario.agent, processors=()))
    return inv.identity_processors_change_nothing(reference_run.run(plain, ex.mode), ex.observation)


Check = Callable[[Execution], list]

# Per-call properties, by the name reports use. Order: the ones most specific to a clause first.
CALL_PROPERTIES: dict[str, Check] = {
    "I1 refused_call_leaves_threads_intact": lambda ex: inv.refused_call_leaves_threads_intact(
        ex.scenario, ex.observation, ex.before, ex.after
    ),
    "I2 refused_call_generates_no_title": lambda ex: inv.refused_call_generates_no_title(ex.scenario, ex.observation, ex.before, ex.after),
    "I3 refused_result_omits_call_messages": lambda ex: inv.refused_result_omits_call_messages(ex.scenario, ex.observation),
    "G13 refused_list_holds_only_history": lambda ex: inv.refused_list_holds_only_history(ex.scenario, ex.observation),
    "I4 nothing_reaches_model_unread": lambda ex: inv.nothing_reaches_model_unread(ex.scenario, ex.observation, ex.read, ex.stages),
    "I5 processor_failure_gives_one_error_event": lambda ex: inv.processor_failure_gives_one_error_event(ex.scenario, ex.observation),
    "I6 own_abort_refuses_with_own_reason": lambda ex: inv.own_abort_refuses_with_own_reason(ex.scenario, ex.observation),
    "I7 processors_run_once_before_model": lambda ex: inv.processors_run_once_before_model(ex.scenario, ex.observation, ex.stage_names),
    "I8 returned_memory_input_stays_both": lambda ex: inv.returned_memory_input_stays_both(
        ex.scenario, ex.observation, ex.read, ex.stages, ex.after
    ),
    "I10 moved_outcome_not_remapped": lambda ex: inv.moved_outcome_not_remapped(ex.scenario, ex.observation, ex.stages),
    "G11 mapping_error_fails_call": lambda ex: inv.mapping_error_fails_call(ex.scenario, ex.observation, ex.stages),
    "I11 same_scenario_same_observation": _i11,
    "G2 refused_call_never_reaches_model": lambda ex: inv.refused_call_never_reaches_model(ex.scenario, ex.observation),
    "G14 guarded_agent_generates_no_title": lambda ex: inv.guarded_agent_generates_no_title(
        ex.scenario, ex.observation, ex.before, ex.after
    ),
    "M9 failed_call_leaves_threads_intact": lambda ex: inv.failed_call_leaves_threads_intact(
        ex.scenario, ex.observation, ex.before, ex.after
    ),
    "G12 policy_verdict_matches_read": lambda ex: inv.policy_verdict_matches_read(ex.scenario, ex.observation),
    "G15 audit_is_hygienic": lambda ex: inv.audit_is_hygienic(ex.scenario, ex.observation),
    "G3 rbac_decides_as_measured": lambda ex: inv.rbac_decides_as_measured(ex.scenario, ex.observation),
    "G1 context_option_fails_as_measured": lambda ex: inv.context_option_fails_as_measured(ex.scenario, ex.observation),
    "G2 denied_asset_urls_never_reach_model": lambda ex: inv.denied_asset_urls_never_reach_model(ex.scenario, ex.observation),
    "G2 denied_asset_urls_never_fetched_or_saved": lambda ex: inv.denied_asset_urls_never_fetched_or_saved(
        ex.scenario, ex.observation, ex.before, ex.after
    ),
    "G7 null_system_entries_fail_as_measured": lambda ex: inv.null_system_entries_fail_as_measured(ex.scenario, ex.observation),
    "G7 ai_sdk_system_entries_add_nothing": lambda ex: inv.ai_sdk_system_entries_add_nothing(ex.scenario, ex.observation),
    "G7 identity_processors_change_nothing": _identity,
}

# In raw mode the guard's own bookkeeping (stages, audit, titles) does not exist.
RAW_PROPERTIES = (
    "I1 refused_call_leaves_threads_intact",
    "I2 refused_call_generates_no_title",
    "I3 refused_result_omits_call_messages",
    "I4 nothing_reaches_model_unread",
    "I11 same_scenario_same_observation",
    "G2 refused_call_never_reaches_model",
)

SEQUENCE_PROPERTY = "I9 refused_text_never_sent_later"


def check_call(ex: Execution, only: Sequence[str] | None = None) -> dict[str, list[str]]:
    """Violations by property name (only the properties that were violated)."""
    names = only or (CALL_PROPERTIES if ex.mode is Mode.GUARDED else RAW_PROPERTIES)
    out = {}
    for name in names:
        v = CALL_PROPERTIES[name](ex)
        if v:
            out[name] = v
    return out


def check_sequence(history: Sequence[tuple[Scenario, Observation]]) -> dict[str, list[str]]:
    v = inv.refused_text_never_sent_later(history)
    return {SEQUENCE_PROPERTY: v} if v else {}


def run_sequence(scenarios: Sequence[Scenario], mode: Mode | str = Mode.GUARDED) -> tuple[list[Execution], dict[str, list[str]]]:
    """Run calls over shared threads (each starts from the threads the previous left) and check
    every property: per call, then I9 over the sequence. Violations are keyed
    ``<property>`` and prefixed with the call index."""
    mode = Mode(mode)
    threads: ThreadStore | None = None
    execs: list[Execution] = []
    found: dict[str, list[str]] = {}
    for i, sc in enumerate(scenarios):
        if threads is not None:
            sc = evolve(sc, threads=threads)
        ex = execute(sc, mode)
        threads = ex.after
        execs.append(ex)
        for k, v in check_call(ex).items():
            found.setdefault(k, []).extend(f"call {i}: {x}" for x in v)
    for k, v in check_sequence([(e.scenario, e.observation) for e in execs]).items():
        found.setdefault(k, []).extend(v)
    return execs, found


def raw_tally(ex: Execution, violations: dict[str, list[str]], moved: bool) -> dict[str, int]:
    """I12 bookkeeping: which predicted raw violations this execution shows."""
    out: dict[str, int] = {}
    durable = ex.scenario.call.loop is Loop.DURABLE
    if durable and "I1 refused_call_leaves_threads_intact" in violations:
        out["I1@durable"] = 1
    if durable and "I2 refused_call_generates_no_title" in violations:
        out["I2@durable"] = 1
    if moved and "I4 nothing_reaches_model_unread" in violations:
        out["I4@moved"] = 1
    return out


__all__ = [
    "CALL_PROPERTIES",
    "RAW_PROPERTIES",
    "Execution",
    "Refused",
    "check_call",
    "check_sequence",
    "execute",
    "raw_tally",
    "run_sequence",
]
