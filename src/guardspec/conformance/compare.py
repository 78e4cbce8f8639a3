"""Comparing an implementation's observation with the model's (docs/protocol.md "Comparison").

A *comparison* says, per observation field (SPEC §O), how it is compared:

``full``    the field's JSON, as is;
``ids``     a projection that keeps identities and shapes only (``IDS_PROJECTION`` below);
``ignore``  not compared.

and lists *allowed-outcome patterns*: places where SPEC leaves the implementation a choice
(``DEFAULT_ALLOW``). Ids the implementation makes up (the reply id, M12) are renamed by first
appearance on both sides before anything is compared (``normalise: "ids"``), or, for
implementations over real Mastra, everything ``mastra.normalise`` rewrites (``"mastra"``).

Only fields the implementation declares it reports are compared; the comparison says which
(``Difference.field``, ``compared``).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from attrs import field, frozen

from guardspec.mastra.normalise import IdMap, input_ids, normalise_observation

FIELDS = ("outcome", "audit", "prompts", "stored", "title", "result", "list", "read")
MODES = ("full", "ids", "ignore")
NORMALISE = ("ids", "mastra", "none")

DEFAULT_ALLOW: tuple[dict, ...] = (
    {
        "path": "$.outcome.error",
        "modelPattern": "^TypeError",
        "pattern": r"^TypeError\b",
        "why": "G0/G1: a TypeError is required; its message text is the implementation's",
    },
    {
        "path": "$.audit[*].reason",
        "where": {"action": "agent.input.authorize", "decision": "allowed"},
        "pattern": "",
        "why": "G3 fixes the reason of a denial only; an allow event's reason is free",
    },
    {
        "path": "$.outcome.error",
        "modes": ["raw"],
        "modelPattern": "^AGENT_(GENERATE|STREAM)_FAILED$",
        "pattern": ".",
        "why": "M9: raw generate/stream reject; the rejection's text is the implementation's",
    },
)


@frozen
class Comparison:
    """How two observations are compared. ``fields``: mode per field (missing = full)."""

    fields: dict = field(factory=dict)
    allow: tuple = DEFAULT_ALLOW
    normalise: str = "ids"

    def mode(self, f: str) -> str:
        return self.fields.get(f, "full")

    def to_json(self) -> dict:
        return {"fields": {f: self.mode(f) for f in FIELDS}, "allow": list(self.allow), "normalise": self.normalise}


class ComparisonError(ValueError):
    """A malformed comparison: ``path`` is its JSON path."""

    def __init__(self, path: str, expected: str):
        super().__init__(f"{path}: {expected}")
        self.path = path
        self.expected = expected


def comparison_from_json(data: Any, base: Comparison | None = None, path: str = "$") -> Comparison:
    """A comparison object (docs/schemas/comparison.schema.json) over ``base``; its ``allow``
    patterns are added to the base's, unless ``"replaceAllow": true``."""
    base = base or Comparison()
    if not isinstance(data, dict):
        raise ComparisonError(path, "a JSON object")
    unknown = set(data) - {"fields", "allow", "normalise", "replaceAllow"}
    if unknown:
        raise ComparisonError(f"{path}.{sorted(unknown)[0]}", "no unknown field")
    fields = dict(base.fields)
    f = data.get("fields", {})
    if not isinstance(f, dict):
        raise ComparisonError(f"{path}.fields", "a JSON object")
    for k, v in f.items():
        if k not in FIELDS:
            raise ComparisonError(f"{path}.fields.{k}", f"one of {list(FIELDS)}")
        if v not in MODES:
            raise ComparisonError(f"{path}.fields.{k}", f"one of {list(MODES)}, got {json.dumps(v)}")
        fields[k] = v
    allow = data.get("allow", [])
    if not isinstance(allow, list):
        raise ComparisonError(f"{path}.allow", "an array")
    for i, r in enumerate(allow):
        _check_rule(r, f"{path}.allow[{i}]")
    norm = data.get("normalise", base.normalise)
    if norm not in NORMALISE:
        raise ComparisonError(f"{path}.normalise", f"one of {list(NORMALISE)}")
    rules = tuple(allow) if data.get("replaceAllow") else tuple(base.allow) + tuple(allow)
    return Comparison(fields, rules, norm)


def _check_rule(r: Any, path: str) -> None:
    if not isinstance(r, dict):
        raise ComparisonError(path, "a JSON object")
    for key in ("path", "pattern", "modelPattern", "why"):
        if key in r and not isinstance(r[key], str):
            raise ComparisonError(f"{path}.{key}", "a string")
    if not isinstance(r.get("path"), str) or not r["path"].startswith("$."):
        raise ComparisonError(f"{path}.path", "a JSON path starting with '$.'")
    if "pattern" not in r:
        raise ComparisonError(path, "required field missing: 'pattern'")
    for key in ("pattern", "modelPattern"):
        if key in r:
            try:
                re.compile(r[key])
            except re.error as e:
                raise ComparisonError(f"{path}.{key}", f"a regular expression ({e})") from None
    if "where" in r and not isinstance(r["where"], dict):
        raise ComparisonError(f"{path}.where", "a JSON object")
    if "modes" in r and not (isinstance(r["modes"], list) and all(m in ("raw", "guarded") for m in r["modes"])):
        raise ComparisonError(f"{path}.modes", "an array of 'raw' / 'guarded'")


# -- projections -----------------------------------------------------------------------------------


def _entry_id(e: Any) -> str:
    if not isinstance(e, dict):
        return "?"
    if "role" in e and e.get("role") != "system" and "parts" in e:
        return f"{e.get('role')}:{e.get('id')}"
    return "system"


IDS_PROJECTION = {
    "outcome": lambda o: {k: o.get(k) for k in ("kind", "processorId") if k in o} if isinstance(o, dict) else o,
    "audit": lambda a: [f"{e.get('action')} {e.get('decision')}" if isinstance(e, dict) else e for e in a] if isinstance(a, list) else a,
    "prompts": lambda p: [[_entry_id(e) for e in step] if isinstance(step, list) else step for step in p] if isinstance(p, list) else p,
    "stored": lambda s: [m.get("id") if isinstance(m, dict) else m for m in s] if isinstance(s, list) else s,
    "title": lambda t: bool(t),
    "result": lambda r: {k: r.get(k) for k in ("messages", "rememberedMessages")} if isinstance(r, dict) else r,
    "list": lambda l: (
        {
            "messages": [
                [lm.get("message", {}).get("id"), lm.get("sources")] if isinstance(lm, dict) else lm for lm in l.get("messages", [])
            ],
            "untagged": len(l.get("untagged", [])),
            "tagged": [[b[0], len(b[1])] if isinstance(b, list) and len(b) == 2 else b for b in l.get("tagged", [])],
        }
        if isinstance(l, dict)
        else l
    ),
    "read": lambda r: r is not None,
}
"""``ids`` mode: what is kept of each field."""


# -- normalisation -----------------------------------------------------------------------------------


def rename_generated_ids(obs: dict, scenario_json: Any) -> dict:
    """Ids that appear nowhere in the scenario (the reply id, M12) become ``$id1``, ``$id2``,
    ... by first appearance in a fixed walk: result, list, stored, prompts."""
    obs = copy.deepcopy(obs)
    ids = IdMap(input_ids(scenario_json))

    def msg(m: Any) -> None:
        if isinstance(m, dict) and isinstance(m.get("id"), str) and m.get("id"):
            m["id"] = ids(m["id"])

    res = obs.get("result")
    if isinstance(res, dict):
        for k in ("messages", "rememberedMessages"):
            if isinstance(res.get(k), list):
                res[k] = [ids(i) if isinstance(i, str) else i for i in res[k]]
    lst = obs.get("list")
    if isinstance(lst, dict) and isinstance(lst.get("messages"), list):
        for lm in lst["messages"]:
            if isinstance(lm, dict):
                msg(lm.get("message"))
    if isinstance(obs.get("stored"), list):
        for m in obs["stored"]:
            msg(m)
    if isinstance(obs.get("prompts"), list):
        for step in obs["prompts"]:
            for e in step if isinstance(step, list) else ():
                msg(e)
    return obs


def normalised(obs: dict, scenario_json: Any, how: str) -> dict:
    if how == "ids":
        return rename_generated_ids(obs, scenario_json)
    if how == "mastra":
        return normalise_observation(obs, scenario_json)
    return obs


# -- the walk --------------------------------------------------------------------------------------


@frozen
class Difference:
    field: str
    path: str
    model: Any
    impl: Any
    expected: str = ""  # set when an allowed pattern was not met

    def to_json(self) -> dict:
        d = {"field": self.field, "path": self.path, "model": self.model, "impl": self.impl}
        if self.expected:
            d["expected"] = self.expected
        return d

    def line(self) -> str:
        want = self.expected or json.dumps(self.model, ensure_ascii=False)
        return f"{self.path}: model {want[:100]} | impl {json.dumps(self.impl, ensure_ascii=False)[:100]}"


_ABSENT = "<absent>"


def _rule_regex(path: str) -> re.Pattern:
    return re.compile("^" + re.escape(path).replace(r"\[\*\]", r"\[\d+\]") + "$")


class Rules:
    """A comparison's ``allow`` patterns that apply in one mode, each with its path as a regex."""

    def __init__(self, rules: tuple, mode: str) -> None:
        self.rules = [(r, _rule_regex(r["path"])) for r in rules if mode in r.get("modes", ("raw", "guarded"))]

    def applicable(self, path: str, a: Any, parent: Any) -> dict | None:
        for r, rx in self.rules:
            if not rx.match(path):
                continue
            if "where" in r and (not isinstance(parent, dict) or any(parent.get(k) != v for k, v in r["where"].items())):
                continue
            if "modelPattern" in r and not (isinstance(a, str) and re.search(r["modelPattern"], a)):
                continue
            return r
        return None


def _same_number(a: Any, b: Any) -> bool:
    num = (int, float)
    return isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool) and a == b


def first_difference(a: Any, b: Any, path: str, rules: Rules, parent: Any = None) -> tuple[str, Any, Any, str] | None:
    """The first path where model value ``a`` and implementation value ``b`` differ, honouring
    the allowed patterns; ``(path, a, b, expected)``."""
    r = rules.applicable(path, a, parent)
    if r is not None:
        if isinstance(b, str) and re.search(r["pattern"], b):
            return None
        return path, a, b, f"a string matching /{r['pattern']}/ ({r.get('why', 'allowed pattern')})"
    if type(a) is not type(b):
        return None if _same_number(a, b) else (path, a, b, "")
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}", a.get(k, _ABSENT), b.get(k, _ABSENT), ""
            d = first_difference(a[k], b[k], f"{path}.{k}", rules, a)
            if d:
                return d
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]", rules, a)
            if d:
                return d
        if len(a) != len(b):
            return f"{path}.length", len(a), len(b), ""
        return None
    return None if a == b else (path, a, b, "")


_ID_FIELDS = frozenset({"result", "list", "stored", "prompts"})


def compared_fields(comparison: Comparison, reported: Any) -> tuple[str, ...]:
    """The fields compared: those the implementation reports, minus ``ignore``."""
    rep = FIELDS if reported is None else tuple(f for f in FIELDS if f in reported)
    return tuple(f for f in rep if comparison.mode(f) != "ignore")


def differences(
    model_obs: dict,
    impl_obs: dict,
    scenario_json: Any,
    mode: str,
    comparison: Comparison,
    reported: Any = None,
    first_only: bool = False,
) -> list[Difference]:
    """Field by field, the first difference in each compared field (in ``FIELDS`` order)."""
    fields = compared_fields(comparison, reported)
    impl_obs = impl_obs if isinstance(impl_obs, dict) else {}
    if any(f in _ID_FIELDS for f in fields):  # only these hold ids the implementation makes up
        # only the compared fields are walked: generated ids are numbered in order of first
        # appearance, so a field one side does not report (the durable loop's list) must not
        # shift the numbering (mastra-diff seed 20261201 case 1753)
        a = normalised({k: v for k, v in model_obs.items() if k in fields}, scenario_json, comparison.normalise)
        b = normalised({k: v for k, v in impl_obs.items() if k in fields}, scenario_json, comparison.normalise)
    else:
        a, b = model_obs, impl_obs
    rules: Rules | None = None
    out: list[Difference] = []
    for f in fields:
        x, y = a.get(f), b.get(f)
        if comparison.mode(f) == "ids":
            x, y = IDS_PROJECTION[f](x), IDS_PROJECTION[f](y)
        if x == y and type(x) is type(y):
            continue
        rules = rules or Rules(comparison.allow, mode)
        d = first_difference(x, y, f"$.{f}", rules, a)
        if d:
            out.append(Difference(f, d[0], d[1], d[2], d[3]))
            if first_only:
                break
    return out


def coarse(path: str) -> str:
    return re.sub(r"\[\d+\]", "[]", path)


__all__ = [
    "DEFAULT_ALLOW",
    "FIELDS",
    "MODES",
    "Comparison",
    "ComparisonError",
    "Difference",
    "compared_fields",
    "comparison_from_json",
    "differences",
    "first_difference",
    "rename_generated_ids",
]
