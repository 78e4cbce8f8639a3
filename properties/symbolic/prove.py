"""Proving I1-I10 on a bounded scope with z3, and keeping the encoding honest.

For each claim: z3 looks for choices within the scope (``scope.assumptions`` and the
encoding's own in-scope flag) under which the claim fails. ``unsat`` = proven at that bound;
``sat`` = a counterexample, which is shrunk, decoded into a ``Scenario`` and replayed through the
interpreter, where the matching invariant of properties/invariants/ must fail too; anything
else (timeout) = unknown, never proven. The claim's premise is checked satisfiable, so that no
proof holds only because its premise cannot happen.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import z3
from attrs import evolve, frozen

from guardspec.model.scenario import Scenario

from . import logic as L
from .claims import CLAIMS, Claim, placeholder_line
from .decode import follow_up, scenario
from .encoded import Encoded
from .guarded import encode_guarded
from .raw import encode_raw
from .scope import Choices, End, Kind, Op, Scope, assumptions, context_on_durable_only, fixed, symbolic
from .switches import Switches

PROVEN, COUNTEREXAMPLE, UNKNOWN, NOT_APPLICABLE = "proven", "counterexample", "unknown", "n/a"
DEFAULT_SCOPE = Scope(4, 2, 3)
INVARIANTS = tuple(CLAIMS)


def encode(ch: Choices, mode: str, sw: Switches | None = None) -> Encoded:
    return encode_guarded(ch, sw) if mode == "guarded" else encode_raw(ch, sw)


@frozen
class Verdict:
    """One claim at one bound: its status, the time z3 took, the clauses it relies on (the
    claim's and the encoding's), whether its premise can happen, and for a counterexample the
    decoded scenario and what the interpreter showed when it replayed it."""

    name: str
    mode: str
    status: str
    seconds: float
    clauses: tuple[str, ...] = ()
    premise: str = ""
    choices: Any = None
    scenario: Scenario | None = None
    replay: tuple[str, ...] = ()
    mutant: str | None = None

    @property
    def replayed(self) -> bool:
        return self.status == COUNTEREXAMPLE and bool(self.replay)


def holds_concretely(claim: Claim, ch: Choices, mode: str, sw: Switches | None) -> bool:
    """The claim on fixed choices (the encoding evaluated in Python); True outside the scope."""
    if not all(assumptions(ch)):
        return True
    e = encode(ch, mode, sw)
    return (not e.in_scope) or bool(claim.holds(e))


def shrink(claim: Claim, ch: Choices, mode: str, sw: Switches | None) -> Choices:
    """Greedily simplify a counterexample while the claim still fails: drop steps, turn
    endings into ``return undefined``, empty slots, clear flags."""
    return _shrink_while(ch, lambda c: not holds_concretely(claim, c, mode, sw))


def _shrink_while(ch: Choices, fails: Any) -> Choices:
    sc = ch.scope

    def grid_set(g: tuple, k: int, j: int, v: Any) -> tuple:
        return tuple(tuple(v if (a, b) == (k, j) else x for b, x in enumerate(row)) for a, row in enumerate(g))

    def tup_set(t: tuple, i: int, v: Any) -> tuple:
        return t[:i] + (v,) + t[i + 1 :]

    changed = True
    while changed:
        changed = False
        candidates = []
        for k in range(sc.processors):
            for j in range(sc.ops):
                if ch.op[k][j] != Op.NOP:
                    oext = grid_set(ch.oext, k, j, False) if ch.oext else ch.oext
                    ofile = grid_set(ch.ofile, k, j, False) if ch.ofile else ch.ofile
                    ourl = grid_set(ch.ourl, k, j, False) if ch.ourl else ch.ourl
                    ouri = grid_set(ch.ouri, k, j, False) if ch.ouri else ch.ouri
                    candidates.append(
                        evolve(
                            ch,
                            op=grid_set(ch.op, k, j, int(Op.NOP)),
                            tgt=grid_set(ch.tgt, k, j, 0),
                            src=grid_set(ch.src, k, j, 0),
                            omark=grid_set(ch.omark, k, j, False),
                            orole=grid_set(ch.orole, k, j, False),
                            oext=oext,
                            ofile=ofile,
                            ourl=ourl,
                            ouri=ouri,
                        )
                    )
                if ch.ext(k, j):
                    candidates.append(evolve(ch, oext=grid_set(ch.oext, k, j, False)))
                if ch.url(k, j):
                    candidates.append(evolve(ch, ourl=grid_set(ch.ourl, k, j, False)))
                if ch.uri(k, j):
                    candidates.append(evolve(ch, ouri=grid_set(ch.ouri, k, j, False)))
                if ch.file(k, j) and not ch.url(k, j) and not ch.uri(k, j):
                    candidates.append(evolve(ch, ofile=grid_set(ch.ofile, k, j, False)))
            if ch.end[k] != End.UNDEFINED:
                candidates.append(
                    evolve(ch, end=tup_set(ch.end, k, int(End.UNDEFINED)), etgt=tup_set(ch.etgt, k, 0), emark=tup_set(ch.emark, k, False))
                )
        for s in range(sc.messages):
            if ch.kind[s] != Kind.ABSENT:
                candidates.append(
                    evolve(
                        ch,
                        kind=tup_set(ch.kind, s, int(Kind.ABSENT)),
                        assistant=tup_set(ch.assistant, s, False),
                        mark=tup_set(ch.mark, s, False),
                    )
                )
            if ch.mark[s]:
                candidates.append(evolve(ch, mark=tup_set(ch.mark, s, False)))
        for f, v in (
            ("title_on", False),
            ("mapping_on", False),
            ("res_mark", False),
            ("car_err", False),
            ("car_hist", False),
            ("hist_mark", False),
            ("actor_unreadable", False),
            ("actor_service", False),
            ("rbac_ok", True),
        ):
            if getattr(ch, f) != v:
                candidates.append(evolve(ch, **{f: v}))
        for c in candidates:
            if fails(c):
                ch, changed = c, True
                break
    return ch


def replay(claim: Claim, sc_: Scenario, mode: str, mutant: str | None = None) -> tuple[str, ...]:
    """Run the decoded scenario through the interpreter (under the mutant, if any) and return
    the violations the matching invariant of properties/invariants/ reports."""
    import contextlib

    from ..harness import check_call, execute, run_sequence

    ctx: Any = contextlib.nullcontext()
    if mutant is not None:
        from ..mutants import MUTANTS

        ctx = MUTANTS[mutant].activate()
    with ctx:
        if claim.name == "I9":
            _, found = run_sequence([sc_, follow_up(sc_)], mode)
            return tuple(found.get(claim.checks, ()))
        ex = execute(sc_, mode)
        return tuple(x for x in check_call(ex, [claim.checks]).get(claim.checks, ()) if not placeholder_line(x))


def _check(solver: z3.Solver, extra: Any, timeout: float) -> tuple[z3.CheckSatResult, float, z3.ModelRef | None]:
    solver.push()
    solver.add(extra)
    solver.set("timeout", max(1, int(timeout * 1000)))
    start = time.perf_counter()
    r = solver.check()
    took = time.perf_counter() - start
    model = solver.model() if r == z3.sat else None
    solver.pop()
    return r, took, model


def base_solver(scope: Scope, mode: str, sw: Switches | None = None) -> tuple[z3.Solver, Choices, Encoded]:
    ch = symbolic(scope)
    e = encode(ch, mode, sw)
    s = z3.Solver()
    s.add(*[a for a in assumptions(ch) if L.sym(a)])
    s.add(e.in_scope)
    return s, ch, e


def assumptions_satisfiable(scope: Scope = DEFAULT_SCOPE, mode: str = "guarded", timeout: float = 10.0) -> str:
    """Honesty (c): the scope's assumptions alone have a model (no proof is vacuous)."""
    s, _, _ = base_solver(scope, mode)
    r, _, _ = _check(s, True, timeout)
    return str(r)


def narrowing(ch: Choices, mode: str, claim: str | None, switches: Switches | None = None) -> Any:
    """The guarded proofs leave generate/stream calls given context to the claim G1
    (``scope.context_on_durable_only``); the mutant that accepts context is refuted over the
    whole scope. Raw mode keeps the whole scope (raw Mastra runs such a call)."""
    if mode != "guarded" or claim == "G1" or (switches is not None and switches.g1_context_accepted):
        return True
    return context_on_durable_only(ch)


def prove(
    scope: Scope = DEFAULT_SCOPE,
    mode: str = "guarded",
    names: Iterable[str] | None = None,
    timeout: float = 60.0,
    switches: Switches | None = None,
    mutant: str | None = None,
    replay_counterexamples: bool = True,
) -> list[Verdict]:
    """Each claim asked for, at ``scope`` in ``mode``: proven, counterexample (shrunk,
    decoded, replayed) or unknown; ``n/a`` where the claim speaks of the guard's own
    bookkeeping and the mode is raw (properties/harness.py ``RAW_PROPERTIES``)."""
    names = list(names or INVARIANTS)
    solver, ch, e = base_solver(scope, mode, switches)
    out = []
    for name in names:
        claim = CLAIMS[name]
        clauses = tuple(dict.fromkeys(claim.clauses + e.clauses))
        if mode not in claim.modes:
            out.append(Verdict(name, mode, NOT_APPLICABLE, 0.0, clauses, mutant=mutant))
            continue
        narrow = narrowing(ch, mode, name)
        r, took, model = _check(solver, L.and_(narrow, L.not_(claim.holds(e))), timeout)
        pr, _, _ = _check(solver, L.and_(narrow, claim.premise(e)), timeout)
        if r == z3.unsat:
            out.append(Verdict(name, mode, PROVEN, took, clauses, str(pr), mutant=mutant))
        elif r == z3.sat:
            cex = shrink(claim, fixed(ch, model), mode, switches)
            sc_ = scenario(cex, name=f"z3 counterexample to {name} ({mode}{', ' + mutant if mutant else ''})")
            shown = replay(claim, sc_, mode, mutant) if replay_counterexamples else ()
            out.append(Verdict(name, mode, COUNTEREXAMPLE, took, clauses, str(pr), cex, sc_, shown, mutant))
        else:
            out.append(Verdict(name, mode, UNKNOWN, took, clauses, str(pr), mutant=mutant))
    return out


@frozen
class Kill:
    """A semantic mutant refuted: the claim it breaks, the counterexample (choices and
    scenario), what the interpreter shows under the mutant, and what it shows without it (a
    kill is differential: the unmutated reference must not violate the claim there)."""

    mutant: str
    name: str
    seconds: float
    choices: Any
    scenario: Scenario
    under_mutant: tuple[str, ...]
    without: tuple[str, ...]

    @property
    def replayed(self) -> bool:
        return bool(self.under_mutant) and not self.without


def claims_for(mutant: str) -> list[str]:
    """Every claim: first the one named after a clause of the mutant (properties/mutants.py), then
    those sharing more of its clauses, so that a mutant is refuted where it can be by the claim
    of the rule it bends."""
    from ..mutants import MUTANTS

    own = set(MUTANTS[mutant].clause.split()) if mutant in MUTANTS else set()
    return sorted(INVARIANTS, key=lambda n: (mutant not in CLAIMS[n].mutants, n not in own, -len(own & set(CLAIMS[n].clauses))))


def refute_mutant(mutant: str, scope: Scope = DEFAULT_SCOPE, timeout: float = 60.0, names: Iterable[str] | None = None) -> Kill | None:
    """Look, claim by claim (``claims_for``), for a call where the encoding with the mutant's rule switched on
    breaks the claim while the plain encoding keeps it; decode it and replay it through the
    interpreter with the mutant active and without it. None: the mutant survives the scope."""
    from .switches import for_mutant

    sw = for_mutant(mutant)
    ch = symbolic(scope)
    plain, bent = encode(ch, "guarded"), encode(ch, "guarded", sw)
    solver = z3.Solver()
    solver.add(*[a for a in assumptions(ch) if L.sym(a)])
    solver.add(plain.in_scope, bent.in_scope)
    narrow = narrowing(ch, "guarded", None, sw)
    if L.sym(narrow):
        solver.add(narrow)
    found = None
    for name in names or claims_for(mutant):
        claim = CLAIMS[name]
        r, took, model = _check(solver, L.and_(claim.holds(plain), L.not_(claim.holds(bent))), timeout)
        if r != z3.sat:
            continue
        cex = fixed(ch, model)

        def differential(c: Choices) -> bool:
            # used within this iteration only, so the loop's current claim is the one meant
            return holds_concretely(claim, c, "guarded", None) and not holds_concretely(claim, c, "guarded", sw)  # noqa: B023

        cex = _shrink_while(cex, differential)
        sc_ = scenario(cex, name=f"z3 counterexample to {name} under mutant {mutant}")
        kill = Kill(mutant, name, took, cex, sc_, replay(claim, sc_, "guarded", mutant), replay(claim, sc_, "guarded"))
        if kill.replayed:
            return kill
        found = found or kill
    return found


__all__ = [
    "DEFAULT_SCOPE",
    "INVARIANTS",
    "Kill",
    "Verdict",
    "assumptions_satisfiable",
    "encode",
    "prove",
    "refute_mutant",
    "replay",
    "shrink",
]
