"""The findings of docs/breakwater-findings.md as a maintainer would file them (``guardspec
findings``, and the report's findings section): per finding, the seed sentence it contradicts
(its S-clause of spec/SPEC.md), what Breakwater does (the finding's words, naming the function),
a minimal scenario (the finding's vector), the model's and Breakwater's observations side by
side, and the one command that reproduces it on a build.

The model's observation is the reference's on the vector; Breakwater's is the one the vector
records for the finding (its ``deviated`` key, measured on the build), which ``vectors check
--known`` accepts, and which the finding's deviation of the model predicts (``deviations.py``).
Side by side, in the model's format, is every place where the model's observation and the
model's with the finding's deviation differ, in the fields Breakwater reports.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .cases import model_observation
from .deviations import deviated_observation
from .vectors import load_vector

FINDINGS = Path("docs/breakwater-findings.md")
VECTORS = Path("vectors/conformance")
SPEC = Path("spec/SPEC.md")
IMPL = "node adapters/breakwater/server.mjs"


def seed_sentences(spec_text: str) -> dict[str, str]:
    """``S1``..``S9`` of spec/SPEC.md: each clause's title and statement, up to its ``Requires:``."""
    out: dict[str, str] = {}
    for m in re.finditer(r"(?ms)^- \*\*(S\d+) ([^*]+)\*\* (.*?)(?=^- \*\*|^## |\Z)", spec_text):
        body = " ".join(m.group(3).split())
        out[m.group(1)] = f"{m.group(2).strip()} {body.split(' Requires:')[0]}"
    return out


def _bullets(body: str) -> dict[str, str]:
    """A finding's ``- Label: text`` bullets (continuation lines joined), by label."""
    out: dict[str, str] = {}
    for m in re.finditer(r"(?ms)^- ([A-Z][\w ]*?): (.*?)(?=^- |\Z)", body):
        out[m.group(1)] = " ".join(m.group(2).split())
    return out


def command(vector: str) -> str:
    """The one command that reproduces a finding's vector on a build (``BREAKWATER_MODULE`` set)."""
    return f'guardspec vectors check --impl "{IMPL}" --mode guarded --only {vector}'


ABSENT = "<absent>"


def leaf_differences(a: Any, b: Any, path: str = "$") -> list[tuple[str, Any, Any]]:
    """Every innermost place two observations (JSON, one format) differ: (path, a's value, b's);
    objects member by member (``ABSENT`` for a missing one), lists of one length index by index,
    anything else (lists of different lengths included) whole."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        return [r for k in dict.fromkeys([*a, *b]) for r in leaf_differences(a.get(k, ABSENT), b.get(k, ABSENT), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [r for i, (x, y) in enumerate(zip(a, b)) for r in leaf_differences(x, y, f"{path}[{i}]")]
    return [(path, a, b)]


def findings(root: Path) -> list[dict]:
    """Every finding of ``root``'s docs/breakwater-findings.md, as data: ``id``, ``title``,
    ``clauses``, ``seed`` (``{S-clause: sentence}``), ``quote`` (the seed's words the finding
    quotes), ``breakwater``, ``measuredOn`` (the files and commits it was read in), and per vector of the finding that exists: its ``name``, ``note``,
    ``scenario``, ``command``, the ``model``'s observation and, when the vector records
    Breakwater's observation for the finding, ``impl`` (as recorded) and ``sideBySide``: each
    innermost path, in the fields Breakwater reports, where the model's observation and the
    model's with the finding's deviation differ (``leaf_differences``: path, model, Breakwater)."""
    text = (root / FINDINGS).read_text()
    seeds = seed_sentences((root / SPEC).read_text()) if (root / SPEC).is_file() else {}
    out = []
    for block in re.split(r"(?m)^## ", text)[1:]:
        head, _, body = block.partition("\n")
        m = re.match(r"(BW-F\d+): (.*)", head.strip())
        if m is None:
            continue
        b = _bullets(body)
        clause_line = b.get("Clause") or b.get("Clauses") or ""
        s_ids = re.findall(r"\bS\d+\b", clause_line)
        vec_line = b.get("Vector") or b.get("Vectors") or ""
        names = [n for n in dict.fromkeys(re.findall(r"`([\w-]+)`", vec_line)) if (root / VECTORS / f"{n}.json").is_file()]
        vectors = []
        for name in names:
            vec = load_vector(root / VECTORS / f"{name}.json")
            sj = vec.scenario
            model = model_observation(sj, "guarded")
            row: dict[str, Any] = {"name": name, "note": vec.note, "scenario": sj, "command": command(name), "model": model}
            impl = vec.deviated.get(m.group(1), {}).get("guarded")
            if impl is not None:
                row["impl"] = impl
                # side by side in the model's format: the seed's model and the deviated model, which
                # the finding's tests hold equal to Breakwater's observation under the comparison
                reported = [f for f in impl if f != "guardspec"]
                predicted = deviated_observation(sj, "guarded", [m.group(1)])
                row["sideBySide"] = [
                    {"path": p, "model": x, "impl": y}
                    for p, x, y in leaf_differences({f: model.get(f) for f in reported}, {f: predicted.get(f) for f in reported})
                ]
            vectors.append(row)
        out.append(
            {
                "id": m.group(1),
                "title": m.group(2).strip(),
                "clauses": clause_line,
                "seed": {s: seeds[s] for s in s_ids if s in seeds},
                "quote": b.get("Seed", ""),
                "breakwater": b.get("Breakwater", ""),
                "measuredOn": b.get("Measured on", ""),
                "vectors": vectors,
            }
        )
    return out


def _cell(v: Any) -> str:
    return "`" + json.dumps(v, ensure_ascii=False).replace("|", "\\|").replace("`", "'") + "`"


def markdown(f: dict) -> str:
    """One finding as an issue-ready markdown text."""
    lines = [f"### {f['id']}: {f['title']}", ""]
    for s, sentence in f["seed"].items():
        lines += [f"**Seed ({s}, spec/SPEC.md):** {sentence}", ""]
    if f["quote"]:
        lines += [f"**The seed's words:** {f['quote']}", ""]
    lines += [f"**Clauses:** {f['clauses']}", "", f"**What Breakwater does:** {f['breakwater']}", ""]
    if f["measuredOn"]:
        lines += [f"**Measured on** (`packages/breakwater/src`, docs/evidence/breakwater-sources.md): {f['measuredOn']}", ""]
    for v in f["vectors"]:
        lines += [f"**Minimal scenario** (`vectors/conformance/{v['name']}.json`, guarded mode): {v['note']}".rstrip(), ""]
        lines += ["```json", json.dumps(v["scenario"], ensure_ascii=False), "```", ""]
        if "sideBySide" in v:
            lines += ["| path | the model (the seed) | Breakwater |", "|---|---|---|"]
            lines += [f"| `{r['path']}` | {_cell(r['model'])} | {_cell(r['impl'])} |" for r in v["sideBySide"]]
            lines += ["", "Everything else Breakwater reports is the same on both sides.", ""]
        else:
            lines += ["(no Breakwater observation recorded for this finding in the vector)", ""]
        lines += ["**Reproduce** (with `BREAKWATER_MODULE` naming the build):", "", "```sh", v["command"], "```", ""]
    return "\n".join(lines)


__all__ = ["command", "findings", "markdown", "seed_sentences"]
