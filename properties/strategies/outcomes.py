"""Tool outcomes of other kinds in the differential campaigns (M12.6, M11.3, M11.2).

The strategies draw a result as an object and an ``errorText`` as a string. The substrate
converts the other kinds on their own paths: a string result is sent as a text output, any
other value as JSON (``undefined`` as ``null``), an ``errorText`` that is no string as the AI
SDK's error message of it (falsy values as ``""``), and a text mapping writes a result as
``JSON.stringify`` does; a result holding ``value`` is mapped and sent by that value (M11.2).
``with_odd_outcomes`` turns about one outcome in three or four of a campaign's scenario into
such a kind, after the scenario is drawn and chosen by a hash of it, so that it draws nothing: every other strategy, the property battery's included, draws the same examples
as without it (drawing these kinds inside ``tool_parts`` moved the battery's derandomized
examples off shapes that killed four mutants). The text of the outcome is kept inside the new
value wherever the kind can hold it, so that the marker the swarm drew still reaches the
model's side and the policies.

A stored thread holds what JSON writes (M13.3, M13.10): its outcomes become JSON values only.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

UNDEFINED_JSON = {"$undefined": True}


def _index(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) % n


def _text_of(v: Any) -> str:
    """The text a drawn outcome carries: an object result's ``answer``, a string errorText."""
    if isinstance(v, str):
        return v
    if isinstance(v, dict) and isinstance(v.get("answer"), str):
        return v["answer"]
    return "note-00"


def _others(text: str, stored: bool, key: str) -> list:
    """Values of another kind: truthy and falsy, one holding the text, ``undefined`` outside
    stored threads."""
    out = [[text], 7, None, True, 0, False] if key == "result" else [[text], 0, None, 12, False, {"v": [text]}]
    return out if stored else out + [UNDEFINED_JSON]


def _wrappers(text: str) -> list:
    """Results that hold ``value`` (M11.2): the AI SDK's output wrappers, which the mapping is
    given the value of (an error one is not mapped at all), and a third key, which the mapping
    takes whole; the prompt sends the value of each but a content output."""
    return [
        {"type": "text", "value": text},
        {"type": "json", "value": {"answer": text}},
        {"type": "error-text", "value": text},
        {"type": "error-json", "value": {"answer": text}},
        {"type": "content", "value": [{"type": "text", "text": text}]},
        {"type": "json", "value": {"answer": text}, "note": "extra"},
    ]


def with_odd_outcomes(sj: dict, share: int = 3) -> dict:
    """``sj`` (scenario JSON) with one ``result`` in ``share`` made another kind (M12.6,
    M11.3, M11.2), in thirds: a string, another value, an object holding ``value``; and one
    ``errorText`` in ``share * 3 / 2``: half an error object, half another value.
    Deterministic in ``sj``; the input is left as it was."""
    base = hashlib.sha256(json.dumps(sj, sort_keys=True).encode()).hexdigest()
    out = copy.deepcopy(sj)
    count = 0

    def visit(v: Any, stored: bool) -> None:
        nonlocal count
        if isinstance(v, list):
            for x in v:
                visit(x, stored)
            return
        if not isinstance(v, dict):
            return
        if v.get("type") == "tool-invocation":
            key = {"result": "result", "output-error": "errorText"}.get(v.get("state"))
            if key is not None and key in v:
                count += 1
                pick = _index(f"{base}:{count}", share * 3)
                text = _text_of(v[key])
                if pick == 0:  # a string result; an errorText that is an error object
                    v[key] = text if key == "result" else {"message": text}
                elif pick == 1:
                    others = _others(text, stored, key)
                    v[key] = others[_index(f"{base}:{count}:value", len(others))]
                elif pick == 2 and key == "result":  # an output wrapper (M11.2)
                    wrappers = _wrappers(text)
                    v[key] = wrappers[_index(f"{base}:{count}:value", len(wrappers))]
        for k, x in v.items():
            visit(x, stored or k == "threads")

    visit(out, False)
    return out


def with_wrapped_aborts(sj: dict) -> dict:
    """``sj`` with every other ``abortThenThrow`` processor ending made ``abortWrapThrow`` (G6:
    a throw whose cause is the processor's own abort is a failure, not that abort), chosen by a
    hash of the scenario as above, so that no strategy draws differently. The input is left as
    it was."""
    base = hashlib.sha256(json.dumps(sj, sort_keys=True).encode()).hexdigest()
    out = copy.deepcopy(sj)
    for i, p in enumerate((out.get("agent") or {}).get("processors") or ()):
        end = p.get("end") if isinstance(p, dict) else None
        if isinstance(end, dict) and "abortThenThrow" in end and _index(f"{base}:end:{i}", 2) == 0:
            p["end"] = {"abortWrapThrow": end["abortThenThrow"]}
    return out
