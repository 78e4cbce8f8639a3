"""One logic for two evaluations: the encoding is written once over these connectives.

Given Python ``bool``/``int`` values they compute concretely (the encoding "with every choice
fixed", used by the agreement check and the exhaustive enumeration); given z3 expressions they
build the formula z3 proves. Constant folding keeps the formula small where a value is known.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import z3


def sym(x: Any) -> bool:
    return isinstance(x, z3.ExprRef)


def ite(c: Any, a: Any, b: Any) -> Any:
    if not sym(c):
        return a if c else b
    if not sym(a) and not sym(b) and a == b and type(a) is type(b):
        return a
    if sym(a) and sym(b) and a.eq(b):
        return a
    return z3.If(c, a, b)


def all_(xs: Iterable[Any]) -> Any:
    out = []
    for x in xs:
        if sym(x):
            out.append(x)
        elif not x:
            return False
    if not out:
        return True
    return out[0] if len(out) == 1 else z3.And(*out)


def any_(xs: Iterable[Any]) -> Any:
    out = []
    for x in xs:
        if sym(x):
            out.append(x)
        elif x:
            return True
    if not out:
        return False
    return out[0] if len(out) == 1 else z3.Or(*out)


def and_(*xs: Any) -> Any:
    return all_(xs)


def or_(*xs: Any) -> Any:
    return any_(xs)


def not_(x: Any) -> Any:
    return z3.Not(x) if sym(x) else not x


def implies(a: Any, b: Any) -> Any:
    return or_(not_(a), b)


def eq(a: Any, b: Any) -> Any:
    if not sym(a) and not sym(b):
        return a == b
    return a == b


def ne(a: Any, b: Any) -> Any:
    return not_(eq(a, b))


def one_of(x: Any, values: Iterable[Any]) -> Any:
    return any_(eq(x, v) for v in values)


def count(xs: Iterable[Any]) -> Any:
    """How many of the Booleans ``xs`` hold."""
    total: Any = 0
    for x in xs:
        if sym(x):
            total = total + z3.If(x, 1, 0)
        elif x:
            total = total + 1
    return total


def value(model: z3.ModelRef | None, x: Any) -> Any:
    """``x`` as a Python value, evaluated in ``model`` when it is symbolic."""
    if not sym(x):
        return x
    v = model.eval(x, model_completion=True)
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    return v.as_long()
