"""The shape census: how many of a campaign's scenarios had each shape; the
shapes come from the scenario schema where it names them, so a shape the model gains shows up
as a zero until the generators make it."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from guardspec.conformance import census as cz
from guardspec.model.messages import ToolState
from guardspec.model.scenario import Loop


def test_the_shapes_come_from_the_model() -> None:
    sup = cz.supported()
    assert sup["tool state"] == tuple(s.value for s in ToolState)
    assert sup["loop"] == tuple(x.value for x in Loop)
    assert set(sup["part kind"]) == {"text", "reasoning", "file", "image", "tool-invocation"}
    assert "return sameList" in sup["processor ending"] and "abortFinallyThrow" in sup["processor ending"]
    assert sup["mapping kind"] == ("none", "text", "null", "throws")


def test_a_shape_new_to_the_schema_is_a_zero(monkeypatch) -> None:
    import copy

    schema = copy.deepcopy(cz._schema())
    schema["toolState"]["enum"].append("approval-expired")
    monkeypatch.setattr(cz, "_schema", lambda: schema)
    cz.supported.cache_clear()
    try:
        c = cz.census_of([SCENARIO])
        assert ("tool state", "approval-expired") in c.zeros()
    finally:
        cz.supported.cache_clear()


SCENARIO = {
    "guardspec": 1,
    "agent": {
        "memory": {"generateTitle": True},
        "clientTools": [{"name": "lookup", "mapping": {"kind": "null"}}, {"name": "other", "mapping": None}],
        "policies": [{"kind": "throws", "name": "broken"}],
        "processors": [
            {
                "id": "p1",
                "steps": [
                    {"op": "addSystem", "message": "be nice"},
                    {"op": "add", "messages": [{"id": "s1", "role": "system", "parts": None}], "source": "input"},
                ],
                "end": {"return": "sameList"},
            },
            {"id": "p2", "steps": [], "end": {"tripwire": "no"}},
            {
                "id": "p3",
                "steps": [{"op": "replaceAllSystemMessages", "messages": [{"role": "system", "content": [{"type": "text", "text": "x"}]}]}],
            },
        ],
    },
    "call": {
        "loop": "durable",
        "messages": [
            "hi",
            [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "a", "providerOptions": None}]}],
            {
                "id": "a1",
                "role": "assistant",
                "parts": [
                    {"type": "tool-invocation", "toolCallId": "c1", "toolName": "lookup", "state": "result", "result": 1},
                    {"type": "text", "text": "b", "providerOptions": {"anthropic": {"cacheControl": 1}}},
                ],
            },
        ],
        "memory": {"thread": "t1", "resource": "r1"},
    },
}


def test_the_shapes_of_one_scenario() -> None:
    got = cz.shapes_of(SCENARIO)
    # read off the scenario above by hand
    expected = {
        ("loop", "durable"),
        ("memory", "on, generating titles"),
        ("processor hooks", "processInput"),
        ("memory binding", "bound"),
        ("caller message", "string"),
        ("caller message", "nested array"),
        ("caller message", "message"),
        ("part kind", "text"),
        ("part kind", "tool-invocation"),
        ("tool state", "result"),
        ("tool outcome", "result: another value"),
        ("mapping kind", "null"),
        ("provider options", "null"),
        ("provider options", "an object"),
        ("provider-option namespace", "anthropic"),
        ("policy kind", "throws"),
        ("processor step", "addSystem"),
        ("processor step", "add"),
        ("processor step", "replaceAllSystemMessages"),
        ("processor ending", "return sameList"),
        ("processor ending", "tripwire"),
        ("processor ending", "return primitive"),
        ("system entry", "string"),
        ("system entry", "stored message without content"),
        ("system entry", "content: text parts"),
        ("actor", "none"),
        ("asset origins", "none allowed"),
        ("message added under", "input"),
    }
    assert got == expected


BREAKWATER_SCENARIO = {
    "guardspec": 1,
    "agent": {
        "allowedInputAssetOrigins": ["https://assets.example"],
        "processors": [
            {
                "id": "p1",
                "steps": [
                    {"op": "add", "entries": [{"id": "u0", "role": "user", "parts": [{"type": "text", "text": "x"}]}], "source": "input"}
                ],
                "end": {"return": {"object": {"messages": "sameList", "systemMessages": {"entries": [{"value": {"$undefined": True}}]}}}},
            },
        ],
    },
    "threads": [{"id": "t1", "resourceId": "r1", "messages": [{"id": "u0", "role": "user", "parts": [{"type": "text", "text": "x"}]}]}],
    "call": {
        "actor": {"id": "bot", "role": "builder", "kind": "robot"},
        "messages": [
            {
                "id": "c1",
                "role": "user",
                "parts": [
                    {"type": "file", "data": "bm90ZS0wMQ==", "mediaType": "text/plain"},
                    {"type": "file", "data": "not!base64", "mediaType": "text/plain"},
                    {"type": "file", "data": "data:text/plain;base64,eA==", "mediaType": "text/plain"},
                    {"type": "image", "data": "https://assets.example/a.png", "mediaType": "image/png"},
                    {"type": "file", "data": 3, "mediaType": "text/plain"},
                    {"type": "text", "text": "y", "providerOptions": {"openaiCompatible": {"content": "z"}}},
                    {
                        "type": "tool-invocation",
                        "toolCallId": "c1",
                        "toolName": "t",
                        "state": "output-denied",
                        "approval": {"approved": False, "reason": "no"},
                    },
                ],
            }
        ],
    },
}


def test_the_shapes_of_breakwater_scenarios() -> None:
    """Issue 9 point 3's shapes, read off the scenario above by hand."""
    got = cz.shapes_of(BREAKWATER_SCENARIO)
    for shape in [
        ("file data", "base64"),
        ("file data", "not base64"),
        ("file data", "a data URI"),
        ("file data", "a URL"),
        ("file data", "not a string"),
        ("provider-option namespace", "openaiCompatible"),
        ("tool approval", "denied with a reason"),
        ("system entry", "undefined"),
        ("message added under", "input, with a stored message's id"),
        ("actor", "a kind Breakwater does not know"),
        ("actor role", "another of Breakwater's roles"),
        ("asset origins", "some allowed"),
    ]:
        assert shape in got, shape
    assert ("tool approval", "approved with a reason") not in got and ("actor", "none") not in got


def test_the_table_shows_every_supported_shape_and_marks_zeros() -> None:
    c = cz.census_of([SCENARIO, {"guardspec": 1, "agent": {}, "call": {"messages": ["x"]}}])
    rows = {(cat, s): n for cat, s, n, ok in c.rows()}
    assert rows[("loop", "durable")] == 1 and rows[("loop", "generate")] == 1 and rows[("loop", "stream")] == 0
    assert rows[("provider options", "absent")] == 1  # the second scenario has none
    assert ("loop", "stream") in c.zeros()
    out = io.StringIO()
    Console(file=out, width=150, color_system=None).print(c.table())
    text = out.getvalue()
    assert "shape census (2 scenarios)" in text and "approval-requested" in text and "anthropic" in text
    js = c.to_json()
    assert "loop: stream" in js["zeros"] and js["scenarios"] == 2


@pytest.mark.slow
def test_a_campaign_of_2000_makes_every_shape_and_reaches_deep() -> None:
    """A campaign of 2000 scenarios (the size a maintainer's nightly runs; seed 0) makes every
    shape the model supports, brings each one to the stage that reads it, and brings at least
    half of each loop's cases to the policies or the model (the guarded runs' stages)."""
    from guardspec.conformance.drawing import generate_scenarios

    c = cz.census_of(generate_scenarios(0, 2000), mode="guarded")
    assert c.zeros() == [], c.zeros()
    assert c.unreached() == [], c.unreached()
    shares = {loop: round(c.deep_share(loop), 2) for loop in ("generate", "stream", "durable")}
    assert min(shares.values()) >= 0.5, shares


@pytest.mark.parametrize(
    "hooks, shape",
    [
        (["processInput"], "processInput"),
        (["processInput", "processInputStep"], "a forbidden hook too"),
        (["processInput", "processToolResult"], "a forbidden hook too"),
        (["processOutputResult"], "no processInput"),
    ],
)
def test_a_processors_hooks_are_counted_by_what_construction_makes_of_them(hooks, shape) -> None:
    """G0: processInput alone, beside a hook the guard refuses, or missing."""
    sj = {"agent": {"processors": [{"id": "p1", "hooks": hooks}]}, "call": {}}
    assert {s for c, s in cz.shapes_of(sj) if c == "processor hooks"} == {shape}


def test_a_url_in_a_remembered_message_is_counted_apart() -> None:
    """G16: the input-assets gate reads remembered messages too."""
    part = {"type": "file", "data": "https://other.example/b.png", "mediaType": "text/plain"}
    sj = {
        "agent": {},
        "call": {},
        "threads": [{"id": "t1", "resourceId": "r1", "messages": [{"id": "u0", "role": "user", "parts": [part]}]}],
    }
    assert ("file data", "a URL in a remembered message") in cz.shapes_of(sj)
    assert ("file data", "a URL in a remembered message") not in cz.shapes_of(
        {"agent": {}, "call": {"messages": [{"id": "c", "role": "user", "parts": [part]}]}}
    )
