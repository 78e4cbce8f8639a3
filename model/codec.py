"""Scenario and observation as versioned JSON (``"guardspec": 1``), converted with cattrs.

Input is first validated against the published JSON Schemas (``model/schemas/``,
``model/validation.py``), so that a malformed file is reported by JSON path and what was
expected (``FormatError``); the cattrs converter then builds the attrs values, one hook per type
(``codec_encode``, ``codec_decode``). Keys are camelCase, as the JavaScript side spells them.

JavaScript values that JSON lacks are tagged objects with one ``$`` key: ``{"$undefined":
true}``, ``{"$bigint": "12"}``, ``{"$number": "NaN"}``, ``{"$function": "f"}``, ``{"$symbol":
"s"}``, ``{"$class": "Name", "props": {...}}``, ``{"$getter": "g", "value": v}`` or
``{"$getter": "g", "throws": true}`` (as a property value: an accessor), and ``{"$object":
{...}}`` for a plain object whose own keys start with ``$``. A system message's own
``content``, ``providerOptions`` or ``experimental_providerMetadata`` may be such a
``{"$getter": ...}`` too: that own property is an accessor (G8), a content getter's value
read as content; so may the value an ``editSystem`` step sets.
"""

from __future__ import annotations

import json
from typing import Any

from attrs import has

from . import agent as A
from . import codec_decode, codec_encode
from .codec_decode import caller_from_json, entry_from_json, message_from_json, part_from_json, system_from_json, value_from_json
from .codec_encode import caller_to_json, entry_to_json, message_to_json, part_to_json, system_to_json, value_to_json
from .converter import camel, converter, override, register_record
from .observation import Observation, Result
from .scenario import Call, Scenario
from .validation import FormatError, loads, schema, validate

FORMAT_VERSION = 1


def _register() -> None:
    # the hooks of the leaf types first: cattrs reads them when it generates a record's hooks
    codec_encode.register()
    codec_decode.register()
    for cls in (A.Mapping, A.ClientTool, A.Memory, A.Actor, A.MemoryBinding, A.Agent, A.Thread):
        register_record(cls)
    # the call: caller messages can be strings, messages and nested lists
    register_record(
        Call,
        messages=override(
            rename="messages",
            unstruct_hook=lambda ms: [caller_to_json(m) for m in ms],
            struct_hook=lambda j, _: tuple(caller_from_json(m) for m in j),
        ),
    )
    register_record(Scenario)
    register_record(Result, remembered=override(rename="rememberedMessages"))
    register_record(Observation)


_register()


def scenario_from_json(data: Any) -> Scenario:
    """A scenario from its JSON, validated first (``FormatError`` names the JSON path)."""
    validate(data, "scenario")
    d = {k: v for k, v in data.items() if k not in ("guardspec", "expect")}
    return converter.structure(d, Scenario)


def scenario_to_json(s: Scenario) -> dict:
    return {"guardspec": FORMAT_VERSION, **converter.unstructure(s)}


def observation_to_json(o: Observation) -> dict:
    return {"guardspec": FORMAT_VERSION, **converter.unstructure(o)}


def observation_from_json(data: Any) -> Observation:
    """An observation from its JSON, validated first (``FormatError`` names the JSON path)."""
    validate(data, "observation")
    d = {k: v for k, v in data.items() if k != "guardspec"}
    return converter.structure(d, Observation)


def load_scenario(text: str) -> Scenario:
    return scenario_from_json(loads(text))


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


__all__ = [
    "FORMAT_VERSION",
    "FormatError",
    "caller_from_json",
    "caller_to_json",
    "camel",
    "converter",
    "dumps",
    "entry_from_json",
    "entry_to_json",
    "has",
    "load_scenario",
    "loads",
    "message_from_json",
    "message_to_json",
    "observation_from_json",
    "observation_to_json",
    "part_from_json",
    "part_to_json",
    "scenario_from_json",
    "scenario_to_json",
    "schema",
    "system_from_json",
    "system_to_json",
    "validate",
    "value_from_json",
    "value_to_json",
]
