"""How far each case of a campaign got: the stage of the guard's chain (G2) at which the model's
run of it stopped, and, for each shape of the census, whether a case holding it got as far as the
stage that reads it.

A campaign finds a regression only where a drawn shape meets the code that reads it. A call that
stops at RBAC never shows what a processor's system edit does; a call refused by its first
processor never reaches the policies that read the edit. The census therefore counts, beside
each shape, the cases holding it that *survived to* its reading stage.

The stages, in the chain's order (G2): ``construction`` (G0, G1 and the list's own preparation
errors), ``rbac`` (G3), ``processors`` (G5-G9: the application processors and the outcome
recorder), ``assets gate`` (G16), ``mapping`` (G11), ``policies`` (G12), ``model`` (the model
was called). In raw mode RBAC and the policies are plain Mastra input processors around the
application's (M8): ``construction``, ``rbac``, ``processors``, ``policies`` and ``model`` occur.
"""

from __future__ import annotations

from guardspec.model import codec
from guardspec.model.observation import Answered, Failed, Observation, Refused
from guardspec.model.scenario import Mode
from guardspec.reference import run
from guardspec.reference.guard.assets import INPUT_ASSETS
from guardspec.reference.guard.chain import MAPPER, POLICY_ENGINE

STAGES = ("construction", "rbac", "processors", "assets gate", "mapping", "policies", "model")
"""The chain's stages in order (G2); a case *reaches* every stage up to the one it stopped at."""

DEEP = ("policies", "model")
"""The stages the default campaign must bring at least half of each loop's cases to."""

READ_AT = {
    "actor": "rbac",
    "actor role": "rbac",
    "processor step": "assets gate",
    "processor ending": "processors",
    "message added under": "assets gate",
    "asset origins": "assets gate",
    "file data": "assets gate",
    "mapping kind": "mapping",
    "tool outcome": "mapping",
    "part kind": "policies",
    "tool state": "policies",
    "tool approval": "policies",
    "provider options": "policies",
    "provider-option namespace": "policies",
    "system entry": "policies",
    "policy kind": "policies",
}
"""The stage that reads each census category: a shape is *reached* when a case holding it
survives to that stage. What a processor did (its steps, what it added) is checked when it
returns (G7-G9), so those shapes count once every processor has run (``assets gate``); its
ending is read as it ends (G6). The policies read parts, tool states, system entries and
provider options (G10, G12); the mapping reads tool outcomes (G11). Categories not named here
(loop, memory, caller message shape) are read at construction, which every case reaches.

A processor's own values are read by the checks of its return (G6-G8): a shape a processor holds
is also reached by a case that this very processor stopped, which is how those checks refuse it."""

_BY_PROCESSOR = {"breakwater-rbac": "rbac", INPUT_ASSETS: "assets gate", MAPPER: "mapping", POLICY_ENGINE: "policies"}


def stage_of_observation(obs: Observation) -> str:
    """The stage at which a run with observation ``obs`` stopped (``STAGES``): ``model`` once a
    prompt was sent or the call was answered; a refusal's stage from the gate it names (another
    processor id is an application processor or the recorder); a failure with no audit event
    failed before RBAC, one after an allowed policy evaluation failed after the policies."""
    out = obs.outcome
    if obs.prompts or isinstance(out, Answered):
        return "model"
    if isinstance(out, Refused):
        return _BY_PROCESSOR.get(out.processor_id, "processors")
    assert isinstance(out, Failed)
    if any(e.action == "agent.input.policy" for e in obs.audit):
        return "policies"
    if any(e.action == "agent.input.processor" for e in obs.audit):
        return "processors"
    # no event, or RBAC's allowed one only: G0/G1, or the list's preparation (M7.2); in raw
    # mode a processor failure on generate and stream (M9) leaves no event either
    return "construction" if not obs.list else "processors"


def stop_of(sj: dict, mode: str = "guarded") -> tuple[str, str | None] | None:
    """Where the model's run of scenario ``sj`` (JSON) stopped: the stage, and at
    ``processors`` the id of the processor that refused or failed (None for the outcome
    recorder's own failure or in raw mode's failures); None when the scenario is not one the
    model can run (the campaign reports it, the census does not count it)."""
    try:
        obs = run(codec.scenario_from_json(sj), Mode(mode))
    except Exception:
        return None
    stage = stage_of_observation(obs)
    pid = obs.outcome.processor_id if stage == "processors" and isinstance(obs.outcome, Refused) else None
    return stage, pid


def stage_of(sj: dict, mode: str = "guarded") -> str | None:
    """The stage the model's run of scenario ``sj`` (JSON) stopped at (``stop_of``)."""
    stop = stop_of(sj, mode)
    return stop[0] if stop else None


def reaches(stage: str, needed: str) -> bool:
    """Whether a case that stopped at ``stage`` got as far as ``needed``."""
    return STAGES.index(stage) >= STAGES.index(needed)


def read_at(category: str) -> str:
    """The stage that reads shapes of ``category`` (``READ_AT``; construction otherwise)."""
    return READ_AT.get(category, "construction")


__all__ = ["DEEP", "READ_AT", "STAGES", "reaches", "read_at", "stage_of", "stage_of_observation", "stop_of"]
