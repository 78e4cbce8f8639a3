"""The cattrs Converter of the JSON codec, shared by the encoding hooks (``codec_encode``) and
the decoding hooks (``codec_decode``); ``model/codec.py`` registers both and the records."""

from __future__ import annotations

from typing import Any

import cattrs
from attrs import fields
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override


def _no_hook(cls: Any) -> Any:
    def refuse(v: Any) -> Any:
        raise TypeError(f"not a guardspec value: {v!r}")

    return refuse


converter = cattrs.Converter(forbid_extra_keys=True, unstructure_fallback_factory=_no_hook)


def camel(name: str) -> str:
    """A Python field name as the JavaScript side spells it (``tool_call_id`` → ``toolCallId``)."""
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def register_record(cls: type, **special: Any) -> None:
    """Both hooks of a plain record: its fields under camelCase keys, ``special`` overrides.

    The hooks of the fields' types must be registered first: cattrs reads them when it
    generates the record's functions."""
    ov: dict[str, Any] = {f.name: override(rename=camel(f.name)) for f in fields(cls)}
    ov.update(special)
    converter.register_unstructure_hook(cls, make_dict_unstructure_fn(cls, converter, **ov))
    converter.register_structure_hook(cls, make_dict_structure_fn(cls, converter, **ov))


__all__ = ["camel", "converter", "override", "register_record"]
