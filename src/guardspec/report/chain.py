"""The guarded chain as the report draws it: its stages in order, the clauses each stands for,
and what differs per loop (SPEC G2: RBAC throws before Mastra on generate/stream and is a
tripwire on durable; M9/M10: what finishing does after a refusal)."""

from __future__ import annotations

from attrs import frozen

LOOPS = ("generate", "stream", "durable")


@frozen
class Stage:
    key: str
    name: str
    clauses: tuple[str, ...]
    gate: bool  # can refuse the call (G13 removal, then G14)
    modelled: bool = True
    note: str = ""


STAGES = (
    Stage("rbac", "RBAC", ("G2", "G3", "G15"), True),
    Stage("recorder", "outcome recorder", ("G4",), True),
    Stage("memory", "memory processors", ("M7", "M3", "M1"), False),
    Stage("processors", "application processors", ("G5", "G6", "G7", "G8", "G9"), True),
    # the input-assets gate (G16), the refusal it ends in (G13) and what may reach the model (I4)
    Stage("assets", "input-assets gate", ("G16", "G13", "I4"), True, True, "Breakwater's gate (evidence G16)"),
    Stage("mapping", "client tool output mapping", ("G11", "M11"), True),
    Stage("policies", "input policies", ("G10", "G12"), True),
    Stage("model", "model step", ("M12",), False),
    Stage("finish", "finish", ("M13", "G14"), False),
)

# What each loop does differently at a stage (shown under the stage in that loop's row).
LOOP_NOTES = {
    ("generate", "rbac"): "throws before Mastra (G2)",
    ("stream", "rbac"): "throws before Mastra (G2)",
    ("durable", "rbac"): "tripwire from breakwater-rbac (G2)",
    ("generate", "finish"): "result messages, remembered (G14)",
    ("stream", "finish"): "earlier responses re-added (M12)",
    ("durable", "finish"): "finalisation saves; raw: even refused (M10)",
}

REFUSAL = ("G13", "G14", "I1", "I2", "I3")

# Stages of the reference's trace that are not boxes of the chain, listed beside it.
EXTRA = (
    Stage("prep", "preparation (instructions, caller input)", ("M7", "M2", "G1"), False),
    Stage("refusal", "refusal removal", ("G13",), False),
)
LINKED = {s.key for s in STAGES + EXTRA}


def stage_of_trace(name: str) -> str:
    """The chain stage a reference trace stage (``reference/trace.py``) belongs to."""
    n = name.lower()
    for prefix, key in (("preparation", "prep"), ("memory", "memory"), ("processor", "processors"), ("application", "processors"),
                        ("input-assets", "assets"), ("client tool", "mapping"), ("refusal", "refusal"), ("model", "model")):
        if n.startswith(prefix):
            return key
    return "other"


def stages_for(clause: str) -> list[Stage]:
    return [s for s in STAGES + EXTRA if clause in s.clauses]
