"""Conformance vectors (``vectors/conformance/*.json``, docs/schemas/vector.schema.json):
language-neutral JSON, each a scenario, the clauses it covers, and the observation the model
gives in each mode; optionally a ``compare`` object (per-field modes, allowed patterns).

``generate`` writes them from the reference (the examples' scenarios, plus generated ones of
distinct outcome shapes); ``check`` runs them on an implementation.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from attrs import field, frozen

from guardspec.examples import example_paths
from guardspec.model import codec, validation
from guardspec.model.scenario import Scenario
from guardspec.model.validation import FormatError, loads

from .cases import Verdict, judge, loop_of, model_observation, scenario_hash
from .compare import Comparison, ComparisonError, comparison_from_json
from .drawing import generate_scenarios
from .impl import Answer, Impl
from .known import finding_of, known_entry

VECTOR_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://guardspec.invalid/schemas/vector.schema.json",
    "title": "guardspec conformance vector, format 1",
    "description": "docs/protocol.md 'Conformance vectors'. A scenario, the clauses it covers, the model's observation per mode.",
    "type": "object",
    "required": ["guardspec", "kind", "name", "clauses", "scenario", "expect"],
    "additionalProperties": False,
    "properties": {
        "guardspec": {"const": 1},
        "kind": {"const": "conformance-vector"},
        "name": {"type": "string", "minLength": 1},
        "clauses": {"type": "array", "items": {"type": "string", "pattern": "^[A-Z][0-9]+$"}},
        "note": {"type": "string"},
        "scenario": {"$ref": "https://guardspec.invalid/schemas/scenario.schema.json"},
        "expect": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": False,
            "properties": {
                "guarded": {"$ref": "https://guardspec.invalid/schemas/observation.schema.json"},
                "raw": {"$ref": "https://guardspec.invalid/schemas/observation.schema.json"},
            },
        },
        "compare": {"$ref": "https://guardspec.invalid/schemas/comparison.schema.json"},
        "found": {"type": "object", "description": "How a diff campaign found it (informative)."},
        "deviated": {
            "type": "object",
            "description": "A finding's vector: per finding (several joined by '+'), the observation Breakwater gives per mode, "
            "as its adapter reported it; `vectors check --known` accepts it when the known file names the finding.",
            "propertyNames": {"pattern": "^[A-Z]+-F[0-9]+(\\+[A-Z]+-F[0-9]+)*$"},
            "additionalProperties": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": False,
                "properties": {
                    "guarded": {"$ref": "https://guardspec.invalid/schemas/observation.schema.json"},
                    "raw": {"$ref": "https://guardspec.invalid/schemas/observation.schema.json"},
                },
            },
        },
    },
}

COMPARISON_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://guardspec.invalid/schemas/comparison.schema.json",
    "title": "guardspec comparison: how observations are compared",
    "description": "docs/protocol.md 'Comparison'. Per-field modes and allowed-outcome patterns where SPEC leaves a choice.",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "fields": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                f: {"enum": ["full", "ids", "ignore"]} for f in ("outcome", "audit", "prompts", "stored", "title", "result", "list", "read")
            },
        },
        "normalise": {"enum": ["ids", "mastra", "none"]},
        "replaceAllow": {"type": "boolean"},
        "allow": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "pattern"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string", "pattern": "^\\$\\."},
                    "pattern": {"type": "string"},
                    "modelPattern": {"type": "string"},
                    "where": {"type": "object"},
                    "modes": {"type": "array", "items": {"enum": ["raw", "guarded"]}},
                    "why": {"type": "string"},
                },
            },
        },
    },
}


@frozen
class Vector:
    path: Path
    name: str
    clauses: tuple[str, ...]
    scenario: dict
    expect: dict
    comparison: Comparison
    note: str = ""
    deviated: dict = field(factory=dict)  # finding -> {mode: the implementation's observation}: as measured


@cache
def _validator() -> Any:
    return validation.validator_for(VECTOR_SCHEMA, COMPARISON_SCHEMA)


def validate_vector(data: Any) -> None:
    """``FormatError`` with the JSON path of what is wrong and what was expected."""
    try:
        validation.check(_validator(), data)
    except RecursionError:
        raise FormatError("$", "a vector (nested too deeply)") from None


def vector_from_json(data: Any, path: Path = Path("<vector>"), base: Comparison | None = None) -> Vector:
    validate_vector(data)
    try:
        codec.converter.structure({k: v for k, v in data["scenario"].items() if k not in ("guardspec", "expect")}, Scenario)
    except FormatError as e:
        raise FormatError("$.scenario" + e.path[1:], e.expected) from None
    except Exception as e:  # valid by the schema, yet not a scenario the model can build
        raise FormatError("$.scenario", f"a scenario ({type(e).__name__}: {e})"[:200]) from None
    try:
        cmp = comparison_from_json(data.get("compare", {}), base, "$.compare")
    except ComparisonError as e:
        raise FormatError(e.path, e.expected) from None
    return Vector(
        path, data["name"], tuple(data["clauses"]), data["scenario"], data["expect"], cmp, data.get("note", ""), data.get("deviated", {})
    )


def load_vector(path: Path, base: Comparison | None = None) -> Vector:
    """Read and validate one vector file (``FormatError`` names the JSON path)."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError("$", f"a readable file ({e})") from None
    try:
        data = loads(text)
    except RecursionError:
        raise FormatError("$", "valid JSON (nested too deeply)") from None
    return vector_from_json(data, Path(path), base)


def vector_paths(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        out.extend(sorted(Path(p).glob("*.json")) if Path(p).is_dir() else [Path(p)])
    return out


# -- generating ------------------------------------------------------------------------------------


_CLAUSE = re.compile(r"^[A-Z][0-9]+$")


def infer_clauses(sj: dict, obs: dict) -> list[str]:
    """The clauses a generated scenario exercises, read off its observation (a reviewer's
    first guess, not a proof)."""
    out: list[str] = []
    o = obs.get("outcome", {})
    kind, reason = o.get("kind"), o.get("reason", "")
    audit = [f"{e.get('action')} {e.get('decision')}" for e in obs.get("audit", [])]
    procs = sj.get("agent", {}).get("processors", [])
    if kind == "failed" and str(o.get("error", "")).startswith("TypeError"):
        out += ["G0"] if "processor" in o.get("error", "") or "memory" in o.get("error", "") else ["G1"]
    if any(a.startswith("agent.input.authorize") for a in audit):
        out += ["G2", "G3"]
    if procs:
        out += ["G5", "G7"]
    if kind == "refused":
        if reason == "input processor failed":
            out += ["G6"]
            if o.get("processorId") == "breakwater-client-tool-output":
                out += ["G11"]
            if o.get("processorId") == "breakwater-client-tool-outcome-recorder":
                out += ["G4"]
        elif reason.startswith("policy") or reason == "input message content is not classified":
            out += ["G12"]
        elif o.get("processorId") in {p.get("id") for p in procs}:
            out += ["G6"]
        out += ["G13", "G14"]
    if obs.get("read") is not None:
        out += ["G10"]
    if any(a == "agent.input.policy allowed" for a in audit):
        out += ["G12"]
    if audit:
        out += ["G15"]
    seen: list[str] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return sorted(seen, key=lambda c: (c[0], int(c[1:])))


def _shape(sj: dict, mode: str, obs: dict) -> tuple:
    o = obs.get("outcome", {})
    return (
        mode,
        loop_of(sj),
        o.get("kind"),
        re.sub(r"'[^']*'", "'…'", o.get("reason", "") or o.get("error", "")),
        tuple(f"{e['action']} {e['decision']}" for e in obs.get("audit", [])),
        obs.get("stored") is not None,
        bool(obs.get("title")),
    )


def _recorded_deviations(target: Path) -> dict:
    """The ``deviated`` key of the vector already at ``target``: a finding's observation was
    measured on the implementation, not written from the reference, so regenerating keeps it."""
    try:
        old = json.loads(target.read_text())
    except (OSError, ValueError):
        return {}
    return {"deviated": old["deviated"]} if isinstance(old, dict) and "deviated" in old else {}


def generate(examples: Path, out: Path, generated: int = 40, seed: int = 0, pool: int = 600) -> list[Path]:
    """Vectors from the examples (their modes) and ``generated`` scenarios of distinct shapes."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for p in example_paths(examples):
        data = json.loads(p.read_text())
        sj = {k: v for k, v in data.items() if k not in ("expect", "name", "note", "clauses")}
        modes = [m for m in ("guarded", "raw") if m in data.get("expect", {})] or ["guarded"]
        vec = {
            "guardspec": 1,
            "kind": "conformance-vector",
            "name": data.get("name") or p.stem,
            "clauses": list(data.get("clauses", [])),
            "note": data.get("note", ""),
            "scenario": sj,
            "expect": {m: model_observation(sj, m) for m in modes},
        }
        target = out / f"{p.stem}.json"
        vec.update(_recorded_deviations(target))
        target.write_text(json.dumps(vec, indent=2, ensure_ascii=False) + "\n")
        written.append(target)
    if generated <= 0:
        return written
    seen: set = set()
    count = 0
    for sj in generate_scenarios(seed, pool):
        if count >= generated:
            break
        for mode in ("guarded", "raw"):
            try:
                obs = model_observation(sj, mode)
            except Exception:  # the reference fails on it (reported by `guardspec diff`): no vector
                continue
            shape = _shape(sj, mode, obs)
            if shape in seen:
                continue
            seen.add(shape)
            clauses = infer_clauses(sj, obs) if mode == "guarded" else ["M8", "M9" if loop_of(sj) != "durable" else "M10"]
            h = scenario_hash(sj)
            name = f"gen-{mode}-{sj['call']['loop']}-{obs['outcome']['kind']}-{h}"
            vec = {
                "guardspec": 1,
                "kind": "conformance-vector",
                "name": name,
                "clauses": clauses,
                "note": f"Generated (seed {seed}) for a distinct outcome shape: {' / '.join(str(x) for x in shape[2:5])}"[:300],
                "scenario": sj,
                "expect": {mode: obs},
            }
            target = out / f"{name}.json"
            target.write_text(json.dumps(vec, indent=2, ensure_ascii=False) + "\n")
            written.append(target)
            count += 1
            break
    return written


# -- checking ------------------------------------------------------------------------------------


@frozen
class Row:
    path: str
    name: str
    clauses: tuple[str, ...]
    mode: str
    loop: str
    verdict: Verdict | None
    bad: str = ""  # a malformed vector file: "<JSON path>: <expected>"
    stale: str = ""  # the vector no longer matches the model (regenerate it)
    known: str = ""  # the finding whose recorded deviation the implementation's observation is
    known_reason: str = ""

    @property
    def ok(self) -> bool:
        if self.bad or self.stale or self.verdict is None:
            return False
        return self.verdict.status in ("agree", "skipped") or bool(self.known)


def vector_ids(p: Path) -> set[str]:
    """What ``--only`` may name a vector file by: its file name, its stem, and its ``name``."""
    ids = {p.name, p.stem}
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        return ids
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        ids.add(data["name"])
    return ids


def select(paths: list[Path], only: tuple[str, ...]) -> tuple[list[Path], list[str]]:
    """The vector files among ``paths`` that ``only`` names (every one when ``only`` is empty),
    and the names in ``only`` that name none of them."""
    files = vector_paths(paths)
    if not only:
        return files, []
    ids = {p: vector_ids(p) for p in files}
    chosen = [p for p in files if ids[p] & set(only)]
    unknown = [o for o in only if not any(o in i for i in ids.values())]
    return chosen, unknown


def recorded_deviation(known: list[dict], v: Vector, mode: str, loop: str, ans: Answer, hello: dict) -> dict | None:
    """The known entry of a finding the vector records (``deviated``) whose recorded
    observation the implementation's answer agrees with, under the vector's comparison: every
    finding of a ``+``-joined key must have a deviation entry in ``known`` that holds on the
    vector's loop. None when no recorded finding is both named and matched."""
    for key, expect in v.deviated.items():
        if mode not in expect:
            continue
        entries = [
            next((k for k in known if "deviation" in k and finding_of(k) == f and k.get("loop", loop) == loop), None)
            for f in key.split("+")
        ]
        if any(k is None for k in entries):
            continue
        if judge(v.scenario, mode, expect[mode], ans, v.comparison, hello, loop).status == "agree":
            named = [k for k in entries if k is not None]
            return named[0] if len(named) == 1 else {"finding": key, "reason": " / ".join(k["reason"] for k in named)}
    return None


def check(
    impl: Impl,
    paths: list[Path],
    base: Comparison | None = None,
    modes: tuple[str, ...] | None = None,
    against_model: bool = True,
    known: list[dict] | None = None,
) -> list[Row]:
    """Run every vector in every mode it expects (and the implementation declares). With
    ``known`` (``known.load_known``), a vector the implementation disagrees with is marked with
    a finding when its observation is the one the vector records for a finding the known file
    names (``recorded_deviation``), else with the finding of the first entry its case matches
    (``known.known_entry``: the model run with a named deviation predicts it)."""
    hello = impl.hello or impl.start()
    have = hello.get("modes", ["raw", "guarded"])
    rows: list[Row] = []
    jobs: list[tuple[Vector, str]] = []
    for p in vector_paths(paths):
        try:
            v = load_vector(p, base)
        except FormatError as e:
            rows.append(Row(str(p), p.stem, (), "", "", None, bad=f"{e.path}: {e.expected}"))
            continue
        for m in ("guarded", "raw"):
            if m not in v.expect or (modes and m not in modes):
                continue
            if m not in have:
                rows.append(
                    Row(
                        str(p),
                        v.name,
                        v.clauses,
                        m,
                        loop_of(v.scenario),
                        Verdict("skipped", reason=f"the implementation declares modes {have}"),
                    )
                )
                continue
            jobs.append((v, m))
    answers = impl.exchange([{"kind": "run", "mode": m, "scenario": v.scenario} for v, m in jobs])
    for (v, m), ans in zip(jobs, answers):
        loop = loop_of(v.scenario)
        stale = ""
        if against_model:
            now = model_observation(v.scenario, m)
            if now != v.expect[m]:
                stale = "the model's observation changed since the vector was written"
        verdict = judge(v.scenario, m, v.expect[m], ans, v.comparison, hello, loop)
        entry = None
        if known and verdict.status in ("disagree", "problem"):
            observed = ans.reply.get("observation") if isinstance(ans.reply, dict) else None
            entry = recorded_deviation(known, v, m, loop, ans, hello) or known_entry(
                known, verdict, loop, scenario_hash(v.scenario), v.expect[m], v.scenario, observed, v.comparison
            )
        found, why = (finding_of(entry) or "known", entry["reason"]) if entry is not None else ("", "")
        rows.append(Row(str(v.path), v.name, v.clauses, m, loop, verdict, stale=stale, known=found, known_reason=why))
    return rows


__all__ = [
    "COMPARISON_SCHEMA",
    "VECTOR_SCHEMA",
    "Row",
    "Vector",
    "check",
    "generate",
    "infer_clauses",
    "load_vector",
    "recorded_deviation",
    "select",
    "validate_vector",
    "vector_from_json",
    "vector_paths",
]
