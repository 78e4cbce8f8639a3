"""G12 What the input policies read from provider options: a closed table of the options that
carry content to a provider."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import frozen

from guardspec.model.values import UNDEFINED, JsObject


class OptionsNotClassified(Exception):
    """G12 Policies: Provider options the policies cannot classify: the input is not classified."""


@frozen
class AsJson:
    """G12 Policies: A value the policies read as its JSON text, a string included (quoted)."""

    value: Any


def _without(*keys: str) -> Callable[[Any], Any]:
    """The value read as JSON text with ``keys`` left out at every depth (opaque provider
    tokens: encrypted indexes, signatures, ids)."""

    def strip(v: Any) -> Any:
        if isinstance(v, JsObject):
            return JsObject(tuple((k, strip(x)) for k, x in v.props if k not in keys), v.proto)
        if isinstance(v, tuple):
            return tuple(strip(x) for x in v)
        return v

    return strip


REFUSE = "refuse"

# Breakwater 0.17.0 ``PROVIDER_CONTENT_OPTIONS`` (policy-engine/provider-options.ts), restated:
# a namespace refused whole, or its keys each refused or read through a projection.
CONTENT_OPTIONS: dict[str, Any] = {
    "openaiCompatible": REFUSE,
    "anthropic": {"title": REFUSE, "context": REFUSE, "citations": _without("encrypted_index")},
    "openrouter": {"filename": REFUSE, "annotations": REFUSE, "reasoning_details": _without("data", "signature", "id")},
}


def _is_record(v: Any) -> bool:
    """An object that is not an array (a class instance counts: ``isPlainRecord``)."""
    return isinstance(v, JsObject)


def option_values(options: Any) -> list[AsJson]:
    """G12.5 Provider options: a closed table, read:
    ``undefined`` reads nothing; options that are not an object (``null`` included), a
    namespace whose value is not an object, a refused namespace (``openaiCompatible``) or a
    refused key (``anthropic.title``/``context``, ``openrouter.filename``/``annotations``)
    raise ``OptionsNotClassified``; ``anthropic.citations`` and
    ``openrouter.reasoning_details`` are read as their JSON text (``AsJson``; a string is
    quoted), their opaque keys left out; every other namespace and key is ignored. An undefined namespace
    or key value counts as absent."""
    if options is UNDEFINED:
        return []
    if not _is_record(options):
        raise OptionsNotClassified("provider options are not an object")
    values: list[Any] = []
    for namespace, entries in options.props:
        if entries is UNDEFINED:
            continue
        rules = CONTENT_OPTIONS.get(namespace)
        if rules == REFUSE or not _is_record(entries):
            raise OptionsNotClassified(f"provider options namespace {namespace!r}")
        if rules is None:
            continue
        for key, value in entries.props:
            if value is UNDEFINED or key not in rules:
                continue
            rule = rules[key]
            if rule == REFUSE:
                raise OptionsNotClassified(f"provider option {namespace}.{key}")
            values.append(AsJson(rule(value)))
    return values
