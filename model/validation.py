"""Input validation against the published JSON Schemas (``model/schemas/``): every failure is a
``FormatError`` naming the JSON path of what is wrong and what was expected.

The codec, the conformance vectors and the protocol's reply checks all read their errors through
this module, so a malformed input reads the same wherever it is found.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any


class FormatError(ValueError):
    """Bad input: ``path`` is the JSON path of what is wrong, ``expected`` what was expected."""

    def __init__(self, path: str, expected: str):
        super().__init__(f"{path}: {expected}")
        self.path = path
        self.expected = expected


SCHEMA_NAMES = ("scenario", "observation")


@cache
def schema(name: str) -> dict:
    """A published JSON Schema (``scenario`` or ``observation``)."""
    text = resources.files("guardspec.model").joinpath("schemas", f"{name}.schema.json").read_text()
    out: dict = json.loads(text)
    return out


@cache
def schema_registry() -> Any:
    """The published schemas by ``$id``, so that another schema can ``$ref`` them."""
    # referencing comes with jsonschema, whose import costs more than the rest of the model
    # together; it is deferred so that loading the model (and `guardspec --help`) stays fast.
    from referencing import Registry, Resource

    reg = Registry()
    for n in SCHEMA_NAMES:
        s = schema(n)
        reg = reg.with_resource(s["$id"], Resource.from_contents(s))
    return reg


def validator_for(root: dict, *extra: dict) -> Any:
    """A Draft 2020-12 validator of ``root`` that resolves the published schemas and ``extra``."""
    import jsonschema  # deferred: see schema_registry
    from referencing import Resource

    reg = schema_registry()
    for s in (root, *extra):
        reg = reg.with_resource(s["$id"], Resource.from_contents(s))
    return jsonschema.Draft202012Validator(root, registry=reg)


@cache
def validator(name: str) -> Any:
    """The validator of a published schema, by the dialect the schema declares."""
    import jsonschema  # deferred: see schema_registry

    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    return cls(s, registry=schema_registry())


def json_path(parts: Iterable[Any]) -> str:
    """``$`` followed by ``.key`` and ``[index]`` steps."""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def expected(err: Any) -> str:
    """What a schema error says was expected, in the words the error messages use."""
    v = err.validator
    if v == "additionalProperties":
        return f"no unknown field ({err.message.split('(')[-1].rstrip(')')})"
    if v == "required":
        return f"required field missing: {err.message}"
    if v == "type":
        return f"expected {err.validator_value}, got {type(err.instance).__name__} {json.dumps(err.instance)[:60]}"
    if v == "enum":
        return f"expected one of {err.validator_value}, got {json.dumps(err.instance)[:60]}"
    if v == "const":
        return f"expected {json.dumps(err.validator_value)}, got {json.dumps(err.instance)[:60]}"
    message: str = err.message
    return message


def best_error(errors: Sequence[Any]) -> Any:
    """jsonschema's best match, followed into ``oneOf``/``anyOf`` to the most specific cause."""
    import jsonschema.exceptions  # deferred: see schema_registry

    best = jsonschema.exceptions.best_match(errors)
    while best.context:
        best = jsonschema.exceptions.best_match(best.context)
    return best


def deepest_error(errors: Sequence[Any]) -> Any:
    """The error at the deepest JSON path, past the schema's ``unevaluatedProperties`` catch-all
    and down through ``oneOf``/``anyOf``: in a reply, the field that is actually wrong."""
    specific = [e for e in errors if e.validator != "unevaluatedProperties"] or list(errors)
    best = max(specific, key=lambda e: len(list(e.absolute_path)))
    while best.context:
        best = max(best.context, key=lambda e: len(list(e.absolute_path)))
    return best


def check(v: Any, data: Any) -> None:
    """Raise ``FormatError`` for the best error of ``data`` against the validator ``v``."""
    errors = sorted(v.iter_errors(data), key=lambda e: (len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    if errors:
        best = best_error(errors)
        raise FormatError(json_path(best.absolute_path), expected(best))


def validate(data: Any, name: str) -> None:
    """Raise ``FormatError`` naming the JSON path and what was expected."""
    check(validator(name), data)


def loads(text: str) -> Any:
    """JSON text, or ``FormatError`` at ``$`` saying where the text stops being JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError("$", f"valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None


__all__ = [
    "FormatError",
    "best_error",
    "check",
    "deepest_error",
    "expected",
    "json_path",
    "loads",
    "schema",
    "schema_registry",
    "validate",
    "validator",
    "validator_for",
]
