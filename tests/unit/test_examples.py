"""The example scenarios under ``examples/``: each one's expected observations hold in every
mode it states, and together they cover the guard's clauses and the seed's sentences.

Coverage is read from the files themselves: an example covers a clause in a mode when the
clause is in its ``clauses`` list and its ``expect`` has that mode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guardspec.examples import check, example_paths, load_example

ROOT = Path(__file__).resolve().parents[2] / "examples"
PATHS = example_paths(ROOT)

GUARDED_REQUIRED = {f"G{i}" for i in range(16)} | {f"S{i}" for i in range(1, 10)}
RAW_REQUIRED = {"M9", "M10"}

# Examples whose reasoned expectation the reference interpreter does not meet yet, with why.
# strict: once the reference is fixed the example passes and the entry must go.
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def _raw(path: Path) -> dict:
    return json.loads(path.read_text())


def test_there_are_examples() -> None:
    assert len(PATHS) >= 32


def test_known_disagreements_name_existing_examples() -> None:
    assert set(KNOWN_DISAGREEMENTS) <= {p.stem for p in PATHS}


def _holds_params() -> list:
    out = []
    for p in PATHS:
        why = KNOWN_DISAGREEMENTS.get(p.stem)
        marks = [pytest.mark.xfail(reason=why, strict=True)] if why else []
        out.append(pytest.param(p, id=p.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _holds_params())
def test_example_holds(path: Path) -> None:
    example = load_example(path)
    assert example.expect, f"{path.name}: no expectation"
    mismatches = check(example)
    assert not any(mismatches.values()), "\n".join(f"{mode}: {m}" for mode, ms in mismatches.items() for m in ms)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_example_is_well_formed(path: Path) -> None:
    data = _raw(path)
    assert data["guardspec"] == 1
    assert data["name"] == path.stem, "the name is the file name"
    assert data["note"].strip(), "every example explains itself"
    assert data["clauses"], "every example names its clauses"
    assert set(data["expect"]) <= {"guarded", "raw"} and data["expect"]


def _covered(mode: str) -> set[str]:
    out: set[str] = set()
    for p in PATHS:
        data = _raw(p)
        if mode in data.get("expect", {}):
            out.update(data.get("clauses", ()))
    return out


def test_guarded_examples_cover_every_g_clause_and_seed_sentence() -> None:
    missing = GUARDED_REQUIRED - _covered("guarded")
    assert not missing, f"no guarded example for {sorted(missing, key=lambda c: (c[0], int(c[1:])))}"


def test_raw_examples_cover_m9_and_m10() -> None:
    missing = RAW_REQUIRED - _covered("raw")
    assert not missing, f"no raw example for {sorted(missing)}"
