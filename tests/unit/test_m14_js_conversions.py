"""M14 JavaScript conversions: property reads, truthiness, String and join, the JSON round trip
and structuredClone, as the clause states them (expected values written from JavaScript's own
rules, not read off the interpreter)."""

import math

import pytest

from guardspec.model.jsvalues import falsy, join_texts, json_round_trip, read, to_string
from guardspec.model.values import UNDEFINED, Accessor, BigInt, CloneError, JsFunction, JsObject, JsSymbol, obj, structured_clone
from guardspec.reference.messagelist import MastraError


def test_m14_one_conversion_serves_string_join_and_json_alike():
    """M14: String, join and the JSON round trip agree on one value: an object, an array, a getter."""
    value = obj(a=Accessor("get-a", 1), b=(1, None))
    assert to_string(value) == "[object Object]"
    assert join_texts((value, "x"), "-") == "[object Object]-x"
    assert json_round_trip(value) == obj(a=1, b=(1, None))


def test_m14_a_getter_read_yields_its_value_or_throws_its_error():
    """M14.1: reading an accessor calls its getter, which yields its value or throws Error: getter <name> throws."""
    assert read(Accessor("get-t", "note-00")) == "note-00"
    assert read("plain") == "plain"
    with pytest.raises(MastraError) as e:
        read(Accessor("get-t", throws=True))
    assert "getter get-t throws" in str(e.value)


@pytest.mark.parametrize("value", [UNDEFINED, None, False, 0, 0.0, -0.0, math.nan, BigInt(0), ""])
def test_m14_the_seven_falsy_values(value):
    """M14.2: undefined, null, false, 0, NaN, 0n and "" are falsy."""
    assert falsy(value)


@pytest.mark.parametrize("value", [True, 1, -1, 0.5, math.inf, BigInt(3), " ", "0", "false", (), obj(), JsFunction("f"), JsSymbol("s")])
def test_m14_every_other_value_is_truthy(value):
    """M14.2: any value but the seven falsy ones is truthy, an empty array and object included."""
    assert not falsy(value)


@pytest.mark.parametrize(
    "value, text",
    [
        (None, "null"),
        (UNDEFINED, "undefined"),
        (obj(a=1), "[object Object]"),
        (obj("Point", x=1), "[object Object]"),
        (("a", None, 2), "a,,2"),
        ((UNDEFINED, "b"), ",b"),
        ((), ""),
        (("a", ("b", "c")), "a,b,c"),
        (True, "true"),
        (1, "1"),
        (BigInt(5), "5"),
    ],
)
def test_m14_string_of_a_value(value, text):
    """M14.3: String spells null and undefined by name, an object [object Object], an array joined by commas."""
    assert to_string(value) == text


def test_m14_join_writes_null_and_undefined_elements_as_empty_text():
    """M14.3: join gives "" for null and undefined elements and String of every other element."""
    assert join_texts(("a", None, UNDEFINED, 1, obj()), "\n") == "a\n\n\n1\n[object Object]"


def test_m14_string_of_a_symbol_throws():
    """M14.3: String of a symbol throws Cannot convert a Symbol value to a string."""
    with pytest.raises(MastraError) as e:
        to_string(JsSymbol("s"))
    assert "Cannot convert a Symbol value to a string" in str(e.value)


def test_m14_json_round_trip_reads_getters_and_drops_what_json_cannot_hold():
    """M14.4: the round trip reads getters, leaves out undefined, function and symbol properties, null in an array."""
    value = obj(g=Accessor("get-g", "v"), u=UNDEFINED, f=JsFunction("f"), s=JsSymbol("s"), keep=1)
    assert json_round_trip(value) == obj(g="v", keep=1)
    assert json_round_trip((UNDEFINED, JsFunction("f"), JsSymbol("s"), 2)) == (None, None, None, 2)


def test_m14_json_round_trip_turns_nan_and_infinities_into_null_and_instances_plain():
    """M14.4: NaN and the infinities become null, a class instance a plain object of its own properties."""
    assert json_round_trip((math.nan, math.inf, -math.inf)) == (None, None, None)
    got = json_round_trip(obj("Point", x=1, y=2))
    assert got == obj(x=1, y=2) and got.proto is None


@pytest.mark.parametrize("value", [BigInt(1), obj(deep=(obj(n=BigInt(2)),)), obj(g=Accessor("get-g", throws=True))])
def test_m14_json_round_trip_throws_on_a_bigint_or_a_throwing_getter(value):
    """M14.4: a bigint or a throwing getter anywhere makes the round trip throw."""
    with pytest.raises(MastraError):
        json_round_trip(value)


def test_m14_structured_clone_copies_plain_values_and_makes_instances_plain():
    """M14.5: structuredClone copies primitives, bigints, arrays and objects, reads getters, makes instances plain."""
    for v in (UNDEFINED, None, True, 1.5, BigInt(7), "s", (1, (2,)), obj(a=obj(b=None))):
        assert structured_clone(v) == v
    got = structured_clone(obj("Point", x=Accessor("get-x", 3)))
    assert got == JsObject((("x", 3),)) and got.proto is None


@pytest.mark.parametrize(
    "value",
    [JsFunction("f"), JsSymbol("s"), obj(a=(1, obj(f=JsFunction("f")))), (JsSymbol("s"),), obj(g=Accessor("get-g", throws=True))],
)
def test_m14_structured_clone_throws_on_a_function_a_symbol_or_a_throwing_getter(value):
    """M14.5: a function or a symbol anywhere reachable, or a throwing getter, makes structuredClone throw."""
    with pytest.raises(CloneError):
        structured_clone(value)
