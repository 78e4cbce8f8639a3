"""Bounded exhaustive enumeration: every call of a small scope through the interpreter.

Each call of the scope (``sample.every_choice``) is decoded and run through the interpreter,
and the invariants of properties/invariants/ are checked on the run; the encoding, with the
same choices fixed, states its verdict on each claim. The two must agree call by call, and so
z3's verdict at that bound must be what the enumeration finds: proven exactly when no call
violates the invariant. ``bench_proofs`` reports the time each way.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from attrs import frozen

from .claims import CLAIMS, placeholder_line
from .decode import follow_up, scenario
from .prove import COUNTEREXAMPLE, PROVEN, encode, prove
from .sample import count_choices, every_choice
from .scope import Choices, Scope


@frozen
class Enumeration:
    scope: Scope
    mode: str
    calls: int
    skipped: int  # choices outside the scope (the encoding's in-scope flag)
    seconds: float
    violations: dict  # claim -> number of calls the interpreter shows violating it
    disagreements: tuple  # (claim, choices, encoding holds, interpreter violations)


def interpreter_violations(ch: Choices, mode: str, names: Iterable[str]) -> dict[str, tuple[str, ...]]:
    from ..harness import check_call, execute, run_sequence

    sc_ = scenario(ch)
    ex = execute(sc_, mode)
    per_call = [CLAIMS[n].checks for n in names if n != "I9"]
    found = {k: tuple(x for x in v if not placeholder_line(x)) for k, v in check_call(ex, per_call).items()}
    if "I9" in names and type(ex.observation.outcome).__name__ == "Refused":
        _, seq = run_sequence([sc_, follow_up(sc_)], mode)
        key = CLAIMS["I9"].checks
        if key in seq:
            found[key] = tuple(seq[key])
    return found


def enumerate_scope(scope: Scope, mode: str = "guarded", names: Iterable[str] | None = None, limit: int | None = None) -> Enumeration:
    names = [n for n in (names or CLAIMS) if mode in CLAIMS[n].modes]
    start = time.perf_counter()
    calls = skipped = 0
    violations = dict.fromkeys(names, 0)
    disagreements = []
    for ch in every_choice(scope):
        if limit is not None and calls + skipped >= limit:
            break
        e = encode(ch, mode)
        if not e.in_scope:
            skipped += 1
            continue
        calls += 1
        found = interpreter_violations(ch, mode, names)
        for n in names:
            shown = found.get(CLAIMS[n].checks, ())
            if shown:
                violations[n] += 1
            holds = bool(CLAIMS[n].holds(e))
            if holds == bool(shown):
                disagreements.append((n, ch, holds, shown))
    return Enumeration(scope, mode, calls, skipped, time.perf_counter() - start, violations, tuple(disagreements))


def verdicts_agree(en: Enumeration, timeout: float = 60.0) -> list[str]:
    """z3 at the enumerated bound against the enumeration: proven ⇔ no call violates."""
    out = []
    for v in prove(en.scope, en.mode, list(en.violations), timeout, replay_counterexamples=False):
        seen = en.violations[v.name]
        if (v.status == PROVEN and seen) or (v.status == COUNTEREXAMPLE and not seen):
            out.append(f"{v.name}: z3 {v.status}, enumeration {seen} violating call(s)")
    return out


ENUMERABLE = (Scope(1, 1, 0, call_context=False), Scope(1, 1, 0), Scope(2, 1, 0, call_context=False))
PROVED = (Scope(4, 2, 3), Scope(5, 3, 3), Scope(6, 3, 4), Scope(8, 4, 4))


def bench_proofs(
    enumerate_bounds: Iterable[Scope] = ENUMERABLE, proof_bounds: Iterable[Scope] = PROVED, mode: str = "guarded"
) -> list[tuple[str, float, float | None]]:
    """Rows for ``guardspec bench``: (bound, z3 seconds for I1-I10, enumeration seconds or
    None where the bound is too large to enumerate)."""
    rows = []
    for sc in enumerate_bounds:
        t = sum(v.seconds for v in prove(sc, mode, replay_counterexamples=False))
        en = enumerate_scope(sc, mode)
        rows.append((f"{sc} ({en.calls} calls)", t, en.seconds))
    for sc in proof_bounds:
        t = sum(v.seconds for v in prove(sc, mode, replay_counterexamples=False))
        rows.append((f"{sc} (~{count_choices(sc):.1e} calls)", t, None))
    return rows


__all__ = ["Enumeration", "bench_proofs", "count_choices", "enumerate_scope", "verdicts_agree"]
