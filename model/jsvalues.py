"""M14 JavaScript conversions Mastra applies to the values a processor puts into messages: a
property read through a getter (M14.1), truthiness (M14.2), and ``String(v)`` /
``Array.prototype.join`` (M14.3), as real Mastra applies them (Evidence: M14.1, M14.2, M14.3).

The one place these notions live: the interpreter (``reference/``) and the invariants
(``properties/invariants/``) both import them from here."""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from guardspec.model.values import UNDEFINED, Accessor, BigInt, JsFunction, JsObject, JsSymbol

from .errors import MastraError

# The source text of a function the protocol's `$function` stands for (adapters/mastra/lib/convert.mjs
# makes each one as `function () { return undefined; }`, docs/protocol.md "Representation").
FUNCTION_SOURCE = "function () { return undefined; }"


def read(v: Any) -> Any:
    """M14.1: a property read: an accessor yields its getter's value, or throws the getter's error
    (``Error: getter <name> throws``)."""
    if isinstance(v, Accessor):
        if v.throws:
            raise MastraError("Error", f"getter {v.name} throws")
        return v.value
    return v


def nullish_read(v: Any, key: str) -> MastraError:
    """M14.1: the TypeError of reading property ``key`` of null or undefined ``v``."""
    return MastraError("TypeError", f"Cannot read properties of {'null' if v is None else 'undefined'} (reading '{key}')")


def falsy(v: Any) -> bool:
    """M14.2: JavaScript falsiness (``ToBoolean``): undefined, null, false, 0, -0, NaN, 0n and ``""``
    are falsy; every other value (objects, arrays, functions, symbols included) is truthy."""
    if v is UNDEFINED or v is None or v is False or v == "":
        return True
    if type(v) in (int, float):
        zero_or_nan: bool = v == 0 or v != v
        return zero_or_nan
    return isinstance(v, BigInt) and v.value == 0


def truthy(v: Any) -> bool:
    """M14.2: JavaScript truthiness: ``not falsy(v)``."""
    return not falsy(v)


def _number(x: float) -> str:
    """``Number.prototype.toString()`` for the numbers a scenario can hold."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    text = repr(x)
    if "e" in text and 1e-6 <= abs(x) < 1e-4:  # JS writes these positionally, Python does not
        return format(Decimal(text), "f")
    if "e" in text:
        mant, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        text = f"{mant}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    return text


def to_string(v: Any) -> str:
    """M14.3: ``String(v)``: null and undefined by name, objects as ``[object Object]``, arrays
    joined by commas; a symbol throws ``TypeError: Cannot convert a Symbol value to a string``."""
    if isinstance(v, str):
        return v
    if v is None:
        return "null"
    if v is UNDEFINED:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _number(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, BigInt):
        return str(v.value)
    if isinstance(v, tuple):
        return join_texts(v, ",")
    if isinstance(v, JsObject):
        return "[object Object]"
    if isinstance(v, JsFunction):
        return FUNCTION_SOURCE
    if isinstance(v, JsSymbol):
        raise MastraError("TypeError", "Cannot convert a Symbol value to a string")
    raise TypeError(f"not a guardspec value: {v!r}")


def join_texts(values: Iterable[Any], sep: str) -> str:
    """M14.3: ``Array.prototype.join(sep)``: null and undefined elements give ``""``, any other value
    its ``String(v)``."""
    return sep.join("" if v is None or v is UNDEFINED else to_string(v) for v in values)


_NO_JSON = (JsFunction, JsSymbol)


def json_round_trip(v: Any) -> Any:
    """M14.4: ``JSON.parse(JSON.stringify(v))``: getters are read, a property whose value is undefined,
    a function or a symbol is left out (an array holds ``null`` in its place), NaN and the
    infinities become ``null``, a class instance a plain object of its own properties; a
    top-level undefined, function or symbol gives undefined. A bigint makes ``JSON.stringify``
    throw (``TypeError: Do not know how to serialize a BigInt``), as does a throwing getter
    (its own error): both raise ``MastraError`` here (as the durable loop's saving shows them,
    M13.3)."""
    v = read(v)
    if v is UNDEFINED or isinstance(v, _NO_JSON):
        return UNDEFINED
    if isinstance(v, BigInt):
        raise MastraError("TypeError", "Do not know how to serialize a BigInt")
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return None
        return 0 if v == 0 else v
    if isinstance(v, tuple):
        out = []
        for x in v:
            y = json_round_trip(x)
            out.append(None if y is UNDEFINED else y)
        return tuple(out)
    if isinstance(v, JsObject):
        props = []
        for k, x in v.props:
            y = json_round_trip(x)
            if y is not UNDEFINED:
                props.append((k, y))
        return JsObject(tuple(props))
    return v
