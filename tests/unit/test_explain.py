"""``guardspec explain`` works on every scenario ``guardspec run`` accepts:
system messages whose content is a list of parts, stored-format system messages, content of
any value; every example, every vector and generated scenarios of the odd shapes."""

import io
from pathlib import Path

import pytest
from conftest import scenario
from hypothesis import given, settings
from rich.console import Console

from guardspec.conformance.vectors import load_vector, vector_paths
from guardspec.examples import example_paths, load_example
from guardspec.explain import entry_line, explain
from guardspec.model import codec
from guardspec.model.messages import Message, Role, SystemMessage, TextPart, user
from guardspec.model.processors import AddSystem, Processor, ReplaceAllSystem
from guardspec.model.scenario import Mode
from guardspec.model.values import Accessor, obj
from guardspec.properties.strategies import scenarios
from guardspec.properties.strategies.swarms import ODD

ROOT = Path(__file__).resolve().parents[2]


def _text(sc, mode=Mode.GUARDED) -> str:
    out = io.StringIO()
    Console(file=out, width=160, color_system=None).print(explain(sc, mode))
    return out.getvalue()


@pytest.mark.parametrize(
    "entry, line",
    [
        (
            SystemMessage((TextPart("FORB"), TextPart("IDDEN")), experimental_provider_metadata=None),
            'system: [{"type":"text","text":"FORB"},{"type":"text","text":"IDDEN"}]',
        ),
        (SystemMessage((TextPart("rule"),), stored=True), 'system: {"format":2,"parts":[{"type":"text","text":"rule"}]}'),
        (SystemMessage(3), "system: 3"),
        (SystemMessage("plain"), "system: plain"),
    ],
    ids=["text-parts", "stored-format", "number", "string"],
)
def test_a_system_entry_is_one_line(entry, line):
    assert entry_line(entry) == line


@pytest.mark.parametrize(
    "step",
    [
        AddSystem(SystemMessage((TextPart("FORB"), TextPart("IDDEN")), experimental_provider_metadata=None)),
        ReplaceAllSystem((Message("s9", Role.SYSTEM, (TextPart("rule"),)),)),
        AddSystem(SystemMessage((TextPart("a"), obj(type="text", text=Accessor("g", "b"))), experimental_provider_metadata=None)),
    ],
    ids=["text-parts", "stored-format", "mixed-parts"],
)
def test_explain_shows_a_list_of_parts_system_message(step):
    text = _text(scenario(user("u1", "hi", 10), processors=(Processor("p", steps=(step,)),)))
    assert "system:" in text and "outcome" in text.lower()


@pytest.mark.slow
def test_explain_runs_on_every_example_and_vector():
    for ex in (load_example(p) for p in example_paths(ROOT / "examples")):
        for mode in ex.expect:
            assert "outcome" in _text(ex.scenario, Mode(mode)).lower(), ex.path.name
    for p in vector_paths([ROOT / "vectors" / "conformance"]):
        v = load_vector(p)
        for mode in v.expect:
            assert "outcome" in _text(codec.scenario_from_json(v.scenario), Mode(mode)).lower(), p.name


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@given(scenarios(ODD))
def test_explain_runs_on_generated_odd_scenarios(sc):
    for mode in (Mode.GUARDED, Mode.RAW):
        assert "outcome" in _text(sc, mode).lower()
