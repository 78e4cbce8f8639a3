"""I12: raw mode shows the violations the invariants predict, guarded mode none."""

from __future__ import annotations


def raw_mode_shows_predicted_violations(found: dict[str, int]) -> list[str]:
    """I12 (the two modes, S8, S9, S5): raw Mastra must show I1 or I2 violations on the durable loop and I4
    violations when a processor moves text out of the input. ``found`` counts the raw-mode
    violations seen, keyed ``I1@durable``, ``I2@durable``, ``I4@moved``; each missing one is a
    violation of I12 (the model failed to exhibit the counterexample)."""
    out = []
    if found.get("I1@durable", 0) + found.get("I2@durable", 0) == 0:
        out.append("I12: raw mode showed no I1/I2 violation on the durable loop")
    if found.get("I4@moved", 0) == 0:
        out.append("I12: raw mode showed no I4 violation for text moved out of the input")
    return out


def guarded_mode_shows_none(found: dict[str, int]) -> list[str]:
    """I12 (the two modes): guarded mode shows none of the violations raw mode shows."""
    return [f"I12: guarded mode violated {k} {n} time(s)" for k, n in found.items() if n]
