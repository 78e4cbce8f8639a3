"""Scenario and observation JSON: round trips of every value kind, and malformed input."""

import json
import math

import pytest
from conftest import scenario, stored, tool

from guardspec.model import codec
from guardspec.model.agent import Allow, ClientTool, DenyPatterns, Mapping, Memory, NoDecision, ThrowingEvaluator
from guardspec.model.codec import FormatError
from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, Role, Source, SystemMessage, TextPart, assistant, user
from guardspec.model.processors import (
    MISSING,
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    AddMessages,
    AddSystem,
    ArrayOf,
    ClearInput,
    EditMessage,
    EditSystem,
    EditText,
    ObjectOf,
    OtherList,
    Primitive,
    Processor,
    RemoveByIds,
    ReplaceAllSystem,
    Return,
    SameList,
    SetId,
    SetRole,
    Throw,
    ThrowTripWire,
)
from guardspec.model.scenario import Loop, Mode
from guardspec.model.values import UNDEFINED, Accessor, BigInt, JsFunction, JsSymbol, obj
from guardspec.reference import run

VALUES = {
    "undefined": UNDEFINED,
    "null": None,
    "bool": True,
    "int": 7,
    "float": 1.5,
    "bigint": BigInt(123456789012345678901234567890),
    "negative-bigint": BigInt(-5),
    "infinity": float("inf"),
    "string": "s",
    "array": (1, UNDEFINED, "x"),
    "plain-object": obj(a=1, b=obj(c=None)),
    "class-instance": obj("Point", x=1, y=2),
    "function": JsFunction("f"),
    "symbol": JsSymbol("s"),
    "getter": obj(g=Accessor("g", "v")),
    "throwing-getter": obj(g=Accessor("g", throws=True)),
}
DOLLAR = obj(**{"$weird": 1, "plain": obj(**{"$inner": 2})})


def _scenario_round_trip(sc):
    text = codec.dumps(codec.scenario_to_json(sc))
    return codec.load_scenario(text)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_codec_value_round_trips(name):
    v = VALUES[name]
    assert codec.value_from_json(json.loads(json.dumps(codec.value_to_json(v)))) == v


def test_codec_nan_round_trips():
    back = codec.value_from_json(json.loads(json.dumps(codec.value_to_json(float("nan")))))
    assert isinstance(back, float) and math.isnan(back)


def test_codec_dollar_keyed_object_round_trips_as_a_value():
    assert codec.value_from_json(json.loads(json.dumps(codec.value_to_json(DOLLAR)))) == DOLLAR


@pytest.mark.parametrize("name", sorted(VALUES))
def test_codec_every_value_kind_round_trips_inside_a_scenario(name):
    v = VALUES[name]
    m = Message("u1", Role.USER, (TextPart("hi", provider_options=obj(v=v)),), 10, metadata=obj(v=v))
    sc = scenario(m)
    assert _scenario_round_trip(sc) == sc


def test_codec_nan_inside_a_scenario_round_trips():
    sc = scenario(Message("u1", Role.USER, (TextPart("hi"),), 10, metadata=obj(n=float("nan"))))
    back = _scenario_round_trip(sc).call.messages[0].metadata.get("n")
    assert math.isnan(back)


def test_codec_dollar_keyed_object_round_trips_inside_a_scenario():
    sc = scenario(Message("u1", Role.USER, (TextPart("hi"),), 10, metadata=DOLLAR))
    assert _scenario_round_trip(sc) == sc


FULL_AGENT_PROCESSORS = (
    Processor(
        "steps",
        steps=(
            AddMessages((user("n1", "x", 1), SystemMessage("s"), None, (1, 2)), Source.CONTEXT, False),
            RemoveByIds(("a", "b")),
            AddSystem("plain", "tagA"),
            AddSystem(SystemMessage((TextPart("p", provider_options=obj(a="b")),), obj(c=1), obj(d=JsSymbol("q")))),
            ReplaceAllSystem((SystemMessage("r"), user("u9", "not system", 2))),
            ClearInput(),
            EditSystem(0, "providerOptions", obj(x=JsFunction("f")), "tagA"),
            EditMessage("u1", 5),
        ),
        end=Return(ArrayOf("list", "deep", ("x",), (EditText("u1", "t"), SetRole("u1", Role.SYSTEM), SetId("u1", "u2")), (None, 3))),
    ),
    Processor("obj", end=Return(ObjectOf(ArrayOf(), MISSING, "Proto"))),
    Processor("obj2", end=Return(ObjectOf(MISSING, (SystemMessage("s"),)))),
    Processor("obj3", end=Return(ObjectOf(5, None))),
    Processor("same", end=Return(SameList())),
    Processor("other", end=Return(OtherList())),
    Processor("prim", end=Return(Primitive(BigInt(0)))),
    Processor("abort", end=Abort("r")),
    Processor("tw", end=ThrowTripWire("r")),
    Processor("throw", end=Throw("m")),
    Processor("att", end=AbortThenThrow("r", "m")),
    Processor("aft", end=AbortFinallyThrow("r", "m"), hooks=("processInput", "processAPIError")),
)


def test_codec_full_scenario_round_trips():
    caller = (
        assistant(
            "a1",
            "t",
            tool("tc1", "result", result=obj(c=1), args=obj(q=1), approval=obj(approved=True)),
            ReasoningPart("why", 3),
            created_at=20,
        ),
        Message("u2", Role.USER, (FilePart("d", "text/plain"), ImagePart(BigInt(1), "image/png", 9)), 30, "t1", "r1"),
        "a string",
        (user("n1", "nested", 40),),
        SystemMessage("caller system"),
    )
    sc = scenario(
        *caller,
        processors=FULL_AGENT_PROCESSORS,
        policies=(DenyPatterns("d", ("x", "y")), ThrowingEvaluator("t"), NoDecision("n"), Allow("a")),
        client_tools=(ClientTool("getLocation", Mapping("text", "p:")), ClientTool("other", Mapping("null")), ClientTool("bare")),
        threads=stored(user("h1", "old", 10), title="T"),
        memory=Memory(True),
        loop=Loop.STREAM,
        context=(user("c1", "ctx", 5),),
    )
    assert _scenario_round_trip(sc) == sc


@pytest.mark.parametrize("mode", [Mode.GUARDED, Mode.RAW])
@pytest.mark.parametrize("loop", [Loop.GENERATE, Loop.DURABLE])
def test_codec_observation_round_trips(mode, loop):
    caller = assistant("a1", tool("tc1", "result", result=obj(city="Paris")), created_at=20)
    sc = scenario(
        caller,
        user("u2", "hi", 30),
        threads=stored(user("h1", "old", 10)),
        client_tools=(ClientTool("getLocation", Mapping()),),
        processors=(Processor("p", steps=(AddSystem("extra", "tagA"),)),),
        loop=loop,
    )
    obs = run(sc, mode)
    back = codec.observation_from_json(json.loads(codec.dumps(codec.observation_to_json(obs))))
    assert back == obs


def test_codec_refused_observation_round_trips():
    obs = run(scenario(user("u1", "hi", 10), actor=None), Mode.GUARDED)
    back = codec.observation_from_json(json.loads(codec.dumps(codec.observation_to_json(obs))))
    assert back == obs and back.outcome.thrown


# -- system messages' own accessors ---------------------------------------------------------------

SYSTEM_ACCESSORS = {
    "content": SystemMessage(Accessor("g", "be brief")),
    "content-parts": SystemMessage(Accessor("g", (TextPart("be", obj(a=1)), TextPart(Accessor("t", "brief"))))),
    "content-throws": SystemMessage(Accessor("g", throws=True)),
    "provider-options": SystemMessage("note", Accessor("po", obj(openai=obj(x="y")))),
    "provider-metadata-throws": SystemMessage("note", experimental_provider_metadata=Accessor("po", throws=True)),
    "all-three": SystemMessage(Accessor("g", "x"), Accessor("po", obj()), Accessor("pm", UNDEFINED)),
}


@pytest.mark.parametrize("name", sorted(SYSTEM_ACCESSORS))
def test_codec_system_message_own_accessor_is_written_as_a_getter(name):
    s = SYSTEM_ACCESSORS[name]
    j = codec.system_to_json(s)
    field = {"content": "content", "provider-options": "providerOptions", "provider-metadata-throws": "experimental_providerMetadata"}
    key = next((v for k, v in field.items() if name.startswith(k)), "content")
    assert "$getter" in j[key]
    assert codec.system_from_json(json.loads(json.dumps(j))) == s


def test_codec_content_getter_value_is_read_as_content():
    s = codec.system_from_json({"role": "system", "content": {"$getter": "g", "value": [{"type": "text", "text": "hi"}]}})
    assert s.content == Accessor("g", (TextPart("hi"),))


@pytest.mark.parametrize("name", sorted(SYSTEM_ACCESSORS))
def test_codec_system_message_own_accessor_round_trips_wherever_system_messages_stand(name):
    s = SYSTEM_ACCESSORS[name]
    proc = Processor(
        "p",
        steps=(
            AddSystem(s),
            AddSystem(s, "t"),
            ReplaceAllSystem((s,)),
            AddMessages((s,)),
            EditSystem(0, "providerOptions", Accessor("e", 1)),
        ),
        end=Return(ObjectOf(ArrayOf(append=(s,)), (s,))),
    )
    sc = scenario(user("u1", "hi", 10), s, processors=(proc,))
    assert _scenario_round_trip(sc) == sc


def test_codec_observation_with_a_system_accessor_in_a_bucket_round_trips():
    proc = Processor("p", steps=(ReplaceAllSystem((SYSTEM_ACCESSORS["content-throws"],)),))
    obs = run(scenario(user("u1", "hi", 10), processors=(proc,)), Mode.RAW)
    assert obs.list is not None and obs.list.untagged == (SYSTEM_ACCESSORS["content-throws"],)
    back = codec.observation_from_json(json.loads(codec.dumps(codec.observation_to_json(obs))))
    assert back == obs


# -- malformed input ------------------------------------------------------------------------------

BASE = {
    "guardspec": 1,
    "agent": {"id": "a", "processors": [{"id": "p", "steps": [{"op": "clearInput"}, {"op": "removeByIds", "ids": []}]}]},
    "call": {},
}


def _bad(mutate):
    data = json.loads(json.dumps(BASE))
    mutate(data)
    with pytest.raises(FormatError) as e:
        codec.load_scenario(json.dumps(data))
    return e.value


def test_codec_base_document_is_valid():
    codec.load_scenario(json.dumps(BASE))


def test_codec_bad_json_is_a_format_error_at_the_root():
    with pytest.raises(FormatError) as e:
        codec.load_scenario('{"guardspec": 1, "agent": ')
    assert e.value.path == "$"
    assert "JSON" in str(e.value)


def test_codec_unknown_field_is_named():
    err = _bad(lambda d: d["agent"].update(colour="blue"))
    assert err.path == "$.agent"
    assert "colour" in str(err) and "unknown" in str(err)


def test_codec_wrong_type_names_path_and_expected_type():
    err = _bad(lambda d: d["agent"].update(maxSteps="many"))
    assert err.path == "$.agent.maxSteps"
    assert "integer" in str(err)


def test_codec_processor_step_missing_an_argument_names_the_step_and_the_argument():
    err = _bad(lambda d: d["agent"]["processors"][0]["steps"][1].pop("ids"))
    assert err.path == "$.agent.processors[0].steps[1]"
    assert "ids" in str(err)


def test_codec_unknown_enum_value_lists_the_expected_values():
    err = _bad(lambda d: d["call"].update(loop="forever"))
    assert err.path == "$.call.loop"
    assert "generate" in str(err) and "durable" in str(err)


def test_codec_wrong_format_version_is_refused():
    err = _bad(lambda d: d.update(guardspec=2))
    assert err.path == "$.guardspec"
    assert "1" in err.expected


def test_codec_missing_required_section_is_refused():
    err = _bad(lambda d: d.pop("call"))
    assert err.path == "$"
    assert "call" in str(err)


def test_codec_malformed_tagged_value_is_refused():
    err = _bad(lambda d: d["call"].update(messages=[{"id": "u", "role": "user", "parts": [], "metadata": {"$bigint": "12x"}}]))
    assert err.path.startswith("$.call.messages[0].metadata")


def _bad_system(field, value):
    def mutate(d):
        d["agent"]["processors"][0]["steps"].append({"op": "addSystem", "message": {"role": "system", "content": "x", field: value}})

    return _bad(mutate)


SYSTEM_STEP = "$.agent.processors[0].steps[2].message"


@pytest.mark.parametrize("field", ["content", "providerOptions", "experimental_providerMetadata"])
def test_codec_system_getter_without_a_name_string_is_refused_at_its_name(field):
    err = _bad_system(field, {"$getter": 3, "value": "v"})
    assert err.path == f"{SYSTEM_STEP}.{field}.$getter"
    assert "string" in err.expected


def test_codec_system_getter_with_an_unknown_key_is_refused_naming_the_key():
    err = _bad_system("content", {"$getter": "g", "value": "v", "colour": "blue"})
    assert err.path == f"{SYSTEM_STEP}.content"
    assert "unknown" in err.expected and "colour" in err.expected


def test_codec_system_getter_whose_throws_is_no_boolean_is_refused():
    err = _bad_system("providerOptions", {"$getter": "g", "throws": "yes"})
    assert err.path == f"{SYSTEM_STEP}.providerOptions.throws"
    assert "boolean" in err.expected


def test_codec_system_getter_value_that_is_no_value_is_refused_inside_it():
    err = _bad_system("experimental_providerMetadata", {"$getter": "g", "value": {"$nope": 1}})
    assert err.path == f"{SYSTEM_STEP}.experimental_providerMetadata.value"


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "text", "text": "ab", "providerMetadata": {"openai": {"itemId": "i1"}}}],  # a key a text part has not
        [{"type": "image", "image": "aGk="}],  # the AI SDK's image part, not the format's
        [{"type": {"$symbol": "s"}}],
        [{"type": "text"}],  # no text
    ],
)
def test_codec_system_content_that_is_no_text_part_list_is_kept_as_values(content):
    """A list that is not all text parts is JS values as given, every key kept."""
    s = codec.system_from_json({"role": "system", "content": content})
    assert s.content == codec.value_from_json(content)
    assert codec.system_to_json(s)["content"] == content
