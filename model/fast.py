"""A faster ``attrs.evolve`` for the interpreter's hot paths.

``attrs.evolve`` looks the fields up and validates on every call; the interpreter evolves
small frozen values tens of thousands of times a second, so for each class it compiles once a
function with one keyword per field that calls the generated ``__init__`` positionally.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

T = TypeVar("T")
_EVOLVERS: dict[type, Callable[..., Any]] = {}
_MISSING = object()


def _compile(cls: type) -> Callable[..., Any]:
    names = [a.name for a in attrs.fields(cls) if a.init]
    params = ", ".join(f"{n}=_M" for n in names)
    args = ", ".join(f"inst.{n} if {n} is _M else {n}" for n in names)
    src = f"def evolve(inst, *, {params}):\n    return cls({args})\n"
    ns: dict[str, Any] = {"_M": _MISSING, "cls": cls}
    exec(src, ns)
    fn: Callable[..., Any] = ns["evolve"]
    return fn


def evolve(inst: T, **changes: Any) -> T:
    """``attrs.evolve(inst, **changes)`` for classes whose init arguments are their fields."""
    fn = _EVOLVERS.get(inst.__class__)
    if fn is None:
        fn = _EVOLVERS[inst.__class__] = _compile(inst.__class__)
    out: T = fn(inst, **changes)
    return out
