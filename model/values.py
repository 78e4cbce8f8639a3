"""JavaScript-like values that a processor can put into messages (the vocabulary's "Value").

The encoding keeps the common cases as plain Python values so the interpreter stays fast:

=================  ==============================================
JavaScript         guardspec.model.values
=================  ==============================================
undefined          ``UNDEFINED`` (the only instance of ``Undefined``)
null               ``None``
boolean            ``bool``
number             ``int`` or ``float``
bigint             ``BigInt(value)``
string             ``str``
array              ``tuple`` of values
plain object       ``JsObject(props)`` with ``proto=None``
class instance     ``JsObject(props, proto="ClassName")``
function           ``JsFunction(name)``; equal by name = by identity
symbol             ``JsSymbol(name)``; equal by name = by identity
=================  ==============================================

An object property is a data property (its value) or an ``Accessor`` (a getter by identity
that yields a value or throws).
"""

from __future__ import annotations

import json
from typing import Any, Union

from attrs import frozen


@frozen
class Undefined:
    """The JavaScript ``undefined``."""

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = Undefined()


@frozen
class BigInt:
    """A JavaScript bigint."""

    value: int


@frozen
class JsFunction:
    """A function, compared by identity (its name stands for the identity)."""

    name: str


@frozen
class JsSymbol:
    """A symbol, compared by identity (its name stands for the identity)."""

    name: str


@frozen
class Accessor:
    """An accessor property: a getter by identity that yields ``value`` or throws."""

    name: str
    value: Any = UNDEFINED
    throws: bool = False


@frozen
class JsObject:
    """An object: own properties in insertion order; ``proto`` names a class, None = plain."""

    props: tuple[tuple[str, Any], ...] = ()
    proto: str | None = None

    def get(self, key: str, default: Any = UNDEFINED) -> Any:
        for k, v in self.props:
            if k == key:
                return v
        return default

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self.props)

    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.props)

    def set(self, key: str, value: Any) -> JsObject:
        """A copy with ``key`` set (kept in place if present, appended otherwise)."""
        if self.has(key):
            return JsObject(tuple((k, value if k == key else v) for k, v in self.props), self.proto)
        return JsObject(self.props + ((key, value),), self.proto)


Value = Union[Undefined, None, bool, int, float, BigInt, str, tuple, JsObject, JsFunction, JsSymbol]  # noqa: UP007  (a typing.Union alias kept as it is: ``X | Y`` is another runtime object)


def obj(_proto: str | None = None, **props: Any) -> JsObject:
    """Shorthand for a plain object (or a class instance when ``_proto`` is given)."""
    return JsObject(tuple(props.items()), _proto)


class CloneError(Exception):
    """M14.5: structuredClone refused a value (DataCloneError, or a getter that threw)."""

    def __init__(self, path: str, why: str):
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def structured_clone(value: Any, path: str = "$") -> Any:
    """M14.5: what ``structuredClone`` makes of a value.

    Class instances come back plain, accessors are read through their getter, functions and
    symbols anywhere reachable raise ``CloneError`` (DataCloneError), and so does a throwing
    getter.
    """
    if value is None or value is UNDEFINED or isinstance(value, (bool, int, float, str, BigInt)):
        return value
    if isinstance(value, tuple):
        return tuple(structured_clone(v, f"{path}[{i}]") for i, v in enumerate(value))
    if isinstance(value, JsObject):
        out = []
        for k, v in value.props:
            if isinstance(v, Accessor):
                if v.throws:
                    raise CloneError(f"{path}.{k}", "getter throws")
                v = v.value
            out.append((k, structured_clone(v, f"{path}.{k}")))
        return JsObject(tuple(out))
    if isinstance(value, JsFunction):
        raise CloneError(path, "a function cannot be cloned")
    if isinstance(value, JsSymbol):
        raise CloneError(path, "a symbol cannot be cloned")
    if isinstance(value, Accessor):  # a bare accessor only occurs as a property slot
        raise CloneError(path, "an accessor outside an object")
    raise TypeError(f"not a guardspec value: {value!r}")


def clonable(value: Any) -> bool:
    """M14.5: whether ``structuredClone`` copies the value (G8 requires it of what a processor adds)."""
    try:
        structured_clone(value)
    except CloneError:
        return False
    return True


_UNDEFINED_KEY = ("undefined",)


def fingerprint_value(value: Any) -> Any:
    """G9: a hashable key for a value inside a fingerprint.

    An own property holding undefined counts as missing; array elements keep their index;
    accessors and functions count by identity and are never called; booleans and numbers are
    kept apart (``True`` is not ``1``). The prototype is not part of the key: the fingerprint
    compares own properties.
    """
    if value is None:
        return None
    if value is UNDEFINED:
        return _UNDEFINED_KEY
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return ("a",) + tuple(fingerprint_value(v) for v in value)
    if isinstance(value, JsObject):
        return ("o",) + tuple((k, fingerprint_value(v)) for k, v in value.props if v is not UNDEFINED)
    if isinstance(value, Accessor):
        return ("get", value.name)
    if isinstance(value, JsFunction):
        return ("fn", value.name)
    if isinstance(value, JsSymbol):
        return ("sym", value.name)
    if isinstance(value, BigInt):
        return ("big", value.value)
    raise TypeError(f"not a guardspec value: {value!r}")


def strings_inside(value: Any) -> list[str]:
    """Every string reachable through data properties, in order (G12 provider options)."""
    out: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, tuple):
            for x in v:
                walk(x)
        elif isinstance(v, JsObject):
            for _, x in v.props:
                walk(x.value if isinstance(x, Accessor) and not x.throws else x)

    walk(value)
    return out


def to_json_text(value: Any) -> str:
    """JSON.stringify of a clonable value, as the policies read tool args and results (G12).

    Callers check ``clonable`` first; undefined inside objects is skipped as JSON.stringify does.
    """

    def plain(v: Any) -> Any:
        if v is UNDEFINED:
            return None
        if isinstance(v, BigInt):
            return str(v.value)
        if isinstance(v, tuple):
            return [None if x is UNDEFINED else plain(x) for x in v]
        if isinstance(v, JsObject):
            return {k: plain(x) for k, x in v.props if x is not UNDEFINED}
        return v

    if value is UNDEFINED:
        return ""
    return json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False)
