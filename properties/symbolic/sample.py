"""Concrete choices inside the scope: drawn at random, or every one (small bounds)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from attrs import evolve

from .scope import Choices, End, Kind, Op, Scope, assumptions


def _op(rng: random.Random, sc: Scope, carrier: int | None, present: list[int] = ()) -> tuple:
    o = rng.choice(list(Op))
    if o is Op.MOVE and not present:
        o = Op.NOP
    if o is Op.MOVE:  # the carrier most often (moving a remembered outcome), else any message
        t = carrier if carrier is not None and rng.random() < 0.6 else rng.choice(present)
    else:
        t = rng.randrange(sc.messages) if o in (Op.ADD, Op.REMOVE, Op.EDIT) else 0
    src = rng.randrange(4) if o in (Op.ADD, Op.MOVE) else 0
    mark = rng.random() < 0.4 if o in (Op.ADD, Op.ADD_SYSTEM, Op.EDIT, Op.EDIT_SYSTEM) else False
    role = rng.random() < 0.5 if o in (Op.ADD, Op.ADD_SYSTEM) else False  # ADD_SYSTEM: split
    return int(o), t, src, mark, role


def _end(rng: random.Random, sc: Scope) -> tuple:
    e = rng.choice(list(End))
    t = rng.randrange(sc.messages) if e in (End.FILTER, End.EDIT_TEXT) else 0
    return int(e), t, (rng.random() < 0.4 if e in (End.EDIT_TEXT, End.AI_SDK) else False)


def _slot(rng: random.Random, carrier_taken: bool, context: bool) -> tuple:
    kinds = [k for k in Kind if not (carrier_taken and k is Kind.CARRIER) and (context or k is not Kind.CONTEXT)]
    k = rng.choice(kinds)
    if k is Kind.ABSENT:
        return int(k), False, False
    assistant = True if k in (Kind.CARRIER, Kind.RESULT) else (False if k in (Kind.INPUT, Kind.CONTEXT) else rng.random() < 0.5)
    return int(k), assistant, rng.random() < 0.3


def random_choices(sc: Scope, rng: random.Random) -> Choices:
    slots, taken = [], False
    for _ in range(sc.messages):
        s = _slot(rng, taken, sc.call_context)
        taken = taken or s[0] == Kind.CARRIER
        slots.append(s)
    carrier = next((i for i, s in enumerate(slots) if s[0] == Kind.CARRIER), None)
    present = [i for i, s in enumerate(slots) if s[0] != Kind.ABSENT]
    ops = [[_op(rng, sc, carrier, present) for _ in range(sc.ops)] for _ in range(sc.processors)]
    ends = [_end(rng, sc) for _ in range(sc.processors)]
    mapping_on = rng.random() < 0.5
    ch = Choices(
        sc,
        rng.randrange(3),
        rng.random() < 0.85,
        rng.random() < 0.2,
        mapping_on,
        any(s[0] in (Kind.CARRIER, Kind.RESULT) for s in slots) and rng.random() < 0.4,
        tuple(s[0] for s in slots),
        tuple(s[1] for s in slots),
        tuple(s[2] for s in slots),
        *(tuple(tuple(o[i] for o in row) for row in ops) for i in range(5)),
        tuple(e[0] for e in ends),
        tuple(e[1] for e in ends),
        tuple(e[2] for e in ends),
        mapping_on and rng.random() < 0.3,
        rng.random() < 0.2,
    )
    # call context on every loop: on generate/stream it is a TypeError under the guard (G1.1),
    # which the encoding says too
    ch = evolve(ch, actor_unreadable=not ch.rbac_ok and rng.random() < 0.5)
    ch = evolve(ch, actor_service=ch.rbac_ok and rng.random() < 0.2)
    # an ADD's extra content, and the carrier's outcome an error a third of the time, drawn from
    # the one sequence like every other choice (a sequence of their own once kept the tests'
    # later calls as they were, and hid a disagreement, docs/proofs.md)
    ch = evolve(ch, oext=tuple(tuple(o == Op.ADD and rng.random() < 0.4 for o in row) for row in ch.op))
    ch = evolve(ch, car_err=carrier is not None and rng.random() < 1 / 3)
    # an ADD's text/plain file part, a third of the time
    ch = evolve(ch, ofile=tuple(tuple(o == Op.ADD and rng.random() < 1 / 3 for o in row) for row in ch.op))
    # a stored result beside the carrier's outcome, half the time (drawn last, so that every
    # earlier choice is what it was)
    hist = carrier is not None and rng.random() < 0.5
    ch = evolve(ch, car_hist=hist, hist_mark=hist and rng.random() < 0.3)
    # a user ADD's file part names a URL (the gate denies it) a third of the time, drawn last
    ch = evolve(
        ch,
        ourl=tuple(tuple(bool(f) and not r and rng.random() < 1 / 3 for f, r in zip(frow, rrow)) for frow, rrow in zip(ch.ofile, ch.orole)),
    )
    # another file part's data a data URI naming another media type, a third of the time
    return evolve(
        ch,
        ouri=tuple(tuple(bool(f) and not u and rng.random() < 1 / 3 for f, u in zip(frow, urow)) for frow, urow in zip(ch.ofile, ch.ourl)),
    )


def _slot_values(sc: Scope) -> list[tuple]:
    out = [(int(Kind.ABSENT), False, False)]
    out += [(int(Kind.STORED), a, m) for a in (False, True) for m in (False, True)]
    out += [(int(k), False, m) for k in (Kind.INPUT, Kind.CONTEXT) for m in (False, True) if sc.call_context or k is not Kind.CONTEXT]
    out += [(int(k), True, m) for k in (Kind.CARRIER, Kind.RESULT) for m in (False, True)]
    return out


def _op_values(sc: Scope) -> list[tuple]:
    out = [(int(Op.NOP), 0, 0, False, False), (int(Op.CLEAR_INPUT), 0, 0, False, False)]
    out += [(int(Op.ADD_SYSTEM), 0, 0, m, split) for m in (False, True) for split in (False, True)]
    out += [(int(Op.EDIT_SYSTEM), 0, 0, m, False) for m in (False, True)]
    for t in range(sc.messages):
        out.append((int(Op.REMOVE), t, 0, False, False))
        out += [(int(Op.EDIT), t, 0, m, False) for m in (False, True)]
        out += [(int(Op.ADD), t, src, m, r) for src in range(4) for m in (False, True) for r in (False, True)]
        out += [(int(Op.MOVE), t, src, False, False) for src in range(4)]
    return out


def _end_values(sc: Scope) -> list[tuple]:
    out = [(int(e), 0, False) for e in End if e not in (End.FILTER, End.EDIT_TEXT)]
    out.append((int(End.AI_SDK), 0, True))  # its entry's text marked
    for t in range(sc.messages):
        out.append((int(End.FILTER), t, False))
        out += [(int(End.EDIT_TEXT), t, m) for m in (False, True)]
    return out


def every_choice(sc: Scope) -> Iterator[Choices]:
    """Every canonical choice of the scope (``scope.assumptions`` fixes unused parameters)."""
    slot_vals = _slot_values(sc)
    for slots in itertools.product(slot_vals, repeat=sc.messages):
        carriers = sum(s[0] == Kind.CARRIER for s in slots)
        if carriers > 1:
            continue
        results = carriers or any(s[0] == Kind.RESULT for s in slots)
        for res_mark, car_err in itertools.product((False, True) if results else (False,), (False, True) if carriers else (False,)):
            for ops in itertools.product(_op_values(sc), repeat=sc.processors * sc.ops):
                for ends in itertools.product(_end_values(sc), repeat=sc.processors):
                    for loop, (rbac, unreadable, service), title, (mapping, throws), evaluator in itertools.product(
                        range(3),
                        ((True, False, False), (True, False, True), (False, False, False), (False, True, False)),
                        (False, True),
                        ((False, False), (True, False), (True, True)),
                        (False, True),
                    ):
                        grid = [ops[k * sc.ops : (k + 1) * sc.ops] for k in range(sc.processors)]
                        ch = Choices(
                            sc,
                            loop,
                            rbac,
                            title,
                            mapping,
                            res_mark,
                            tuple(s[0] for s in slots),
                            tuple(s[1] for s in slots),
                            tuple(s[2] for s in slots),
                            *(tuple(tuple(o[i] for o in row) for row in grid) for i in range(5)),
                            tuple(e[0] for e in ends),
                            tuple(e[1] for e in ends),
                            tuple(e[2] for e in ends),
                            throws,
                            evaluator,
                            unreadable,
                            service,
                            tuple(tuple(False for _ in row) for row in grid),  # no ADD's extra content (random sampling draws it)
                            car_err,
                        )
                        if all(assumptions(ch)):  # MOVE targets a message the call starts with
                            yield ch


def count_choices(sc: Scope) -> int:
    n_slots = 0
    vals = _slot_values(sc)
    for slots in itertools.product(vals, repeat=sc.messages):
        c = sum(s[0] == Kind.CARRIER for s in slots)
        if c <= 1:
            n_slots += 4 if c else 2 if any(s[0] == Kind.RESULT for s in slots) else 1
    return n_slots * len(_op_values(sc)) ** (sc.processors * sc.ops) * len(_end_values(sc)) ** sc.processors * 144
