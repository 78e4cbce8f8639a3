"""G8 Readable additions (S7): system additions hold text alone in data properties; every
addition survives structuredClone."""

import pytest
from conftest import events, scenario, stored

from guardspec.model.agent import Allow
from guardspec.model.fast import evolve
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import (
    AddMessages,
    AddSystem,
    ArrayOf,
    EditMessage,
    EditSystem,
    ObjectOf,
    Processor,
    ReplaceAllSystem,
    Return,
)
from guardspec.model.scenario import Mode
from guardspec.model.values import UNDEFINED, Accessor, BigInt, JsFunction, JsSymbol, obj
from guardspec.reference import run

FAILED = Refused("input processor failed", "p")


def _run(*steps, **kw):
    kw.setdefault("threads", stored(user("h1", "old", 10)))
    return run(scenario(user("u1", "hi", 30), processors=(Processor("p", steps=steps),), **kw), Mode.GUARDED)


def _failed(obs):
    assert obs.outcome == FAILED
    assert len(events(obs, "agent.input.processor")) == 1


@pytest.mark.parametrize(
    "step",
    [
        EditSystem(0, "content", 5),
        EditSystem(0, "content", obj(text="x")),
        EditSystem(0, "content", (obj("TextPart", type="text", text="x"),)),
        EditSystem(0, "content", (obj(type="image", image="x"),)),
        EditSystem(0, "providerOptions", obj(a=Accessor("g", throws=True))),
        EditSystem(0, "experimental_providerMetadata", obj(a=obj(b=Accessor("g", throws=True)))),
        AddSystem(
            SystemMessage((TextPart("x", provider_options=obj(a=Accessor("g", throws=True))),), experimental_provider_metadata=obj())
        ),
    ],
    ids=[
        "number",
        "object",
        "class-instance-part",
        "image-part",
        "options-throwing-getter",
        "metadata-throwing-getter",
        "part-options-throwing-getter",
    ],
)
def test_g8_system_addition_must_be_text_in_data_properties(step):
    """G8.1: a system message's own fields must hold text in data properties; a nested throwing getter fails the clone."""
    _failed(_run(step))


@pytest.mark.parametrize(
    "step",
    [
        EditSystem(0, "providerOptions", obj(anthropic=obj(citations=Accessor("g", "CITED")))),
        EditSystem(0, "experimental_providerMetadata", obj(anthropic=obj(citations=Accessor("g", "CITED")))),
        AddSystem(
            SystemMessage(
                (TextPart("x", provider_options=obj(anthropic=obj(citations=Accessor("g", "CITED")))),),
                experimental_provider_metadata=obj(),
            )
        ),
    ],
    ids=["options", "metadata", "part-options"],
)
def test_g8_getter_nested_in_provider_options_is_read_through(step):
    """G8.1: a getter nested inside provider options is read through by the clone, no failure."""
    # Breakwater checks a system message's own fields only; structuredClone runs a nested
    # getter (G12.5): no processor failure, the value is read.
    obs = _run(step, policies=(Allow("all"),))
    assert isinstance(obs.outcome, Answered), obs.outcome
    assert '"CITED"' in obs.read


UNCLONABLE_MESSAGES = [
    Message("n1", Role.USER, (TextPart("x"),), 40, metadata=obj(f=JsFunction("f"))),
    Message("n1", Role.USER, (TextPart("x", provider_options=obj(s=JsSymbol("s"))),), 40),
    Message("n1", Role.USER, (TextPart("x"),), 40, metadata=obj(g=Accessor("g", throws=True))),
]
UNCLONABLE_IDS = ["message-function", "part-symbol", "throwing-getter"]


@pytest.mark.parametrize(
    "step",
    [
        EditSystem(0, "providerOptions", obj(f=JsFunction("f"))),
        EditSystem(0, "experimental_providerMetadata", obj(s=JsSymbol("s"))),
    ],
    ids=["system-function", "system-symbol"],
)
def test_g8_system_change_that_structured_clone_refuses_fails_the_processor(step):
    _failed(_run(step))


@pytest.mark.parametrize("message", UNCLONABLE_MESSAGES, ids=UNCLONABLE_IDS)
def test_g8_unclonable_context_message_added_fails_the_processor(message):
    _failed(_run(AddMessages((message,), Source.CONTEXT)))


@pytest.mark.parametrize("message", UNCLONABLE_MESSAGES, ids=UNCLONABLE_IDS)
def test_g8_unclonable_input_message_added_fails_the_processor(message):
    """G8.3: an input message the processor adds must survive structuredClone."""
    _failed(_run(AddMessages((message,), Source.INPUT)))


def test_g8_unclonable_change_to_a_caller_message_fails_the_processor():
    """G8.3: a caller message the processor edits in place must survive structuredClone."""
    _failed(_run(EditMessage("u1", JsFunction("f"))))


@pytest.mark.parametrize(
    "metadata",
    [obj("Point", x=1), BigInt(12), obj(g=Accessor("g", "v")), (1, None, "x")],
    ids=["class-instance", "bigint", "readable-getter", "array"],
)
def test_g8_clonable_message_addition_is_accepted(metadata):
    obs = _run(AddMessages((Message("n1", Role.USER, (TextPart("x"),), 40, metadata=metadata),)))
    assert isinstance(obs.outcome, Answered)


def test_g8_plain_text_system_addition_with_data_options_is_accepted():
    obs = _run(
        AddSystem(
            SystemMessage(
                (TextPart("a", provider_options=obj(c=obj(d="e"))),),
                provider_options=obj(x=obj(y="z")),
                experimental_provider_metadata=obj(m=obj(n="o")),
            )
        )
    )
    assert isinstance(obs.outcome, Answered)


def test_g8_unchanged_history_is_not_held_to_the_rule():
    # G8 does not fail the processor over history it left alone. A thread's messages are written
    # by the storage as JSON (M13.3, M13.10: both adapters seed the
    # scenario's threads through ``memory.saveMessages``), so the function in this history
    # message's metadata is gone before the call: nothing uncloneable is left for Breakwater's
    # input-assets gate (G16.2) to refuse
    threads = stored(Message("h1", Role.USER, (TextPart("old"),), 10, metadata=obj(f=JsFunction("f"))))
    obs = _run(AddMessages((user("n1", "x", 40),)), threads=threads)
    assert isinstance(obs.outcome, Answered), obs.outcome
    assert events(obs, "agent.input.processor") == []


OWN_ACCESSORS = [
    SystemMessage(Accessor("g", "be brief")),
    SystemMessage(Accessor("g", throws=True)),
    SystemMessage("be brief", Accessor("po", obj(openai=obj(x="y")))),
    SystemMessage("be brief", experimental_provider_metadata=Accessor("pm", throws=True)),
]
OWN_ACCESSOR_IDS = ["content", "throwing-content", "provider-options", "throwing-provider-metadata"]


def _replaced(e):
    return Processor("p", steps=(ReplaceAllSystem((e,)),))


def _returned(e):
    return Processor("p", end=Return(ObjectOf(ArrayOf(), (e,))))


def _added_as_given(e):
    """addSystem keeps an entry with an experimental_providerMetadata key as given (M6.2)."""
    if e.experimental_provider_metadata is UNDEFINED:
        e = evolve(e, experimental_provider_metadata=obj())
    return Processor("p", steps=(AddSystem(e, "t"),))


@pytest.mark.parametrize("entry", OWN_ACCESSORS, ids=OWN_ACCESSOR_IDS)
@pytest.mark.parametrize("place", [_replaced, _returned, _added_as_given], ids=["replaced", "returned", "added-as-given"])
def test_g8_a_system_message_whose_own_field_is_an_accessor_fails_the_processor(entry, place):
    """G8: a system message a processor adds with an accessor as its own content or options fails the processor."""
    obs = run(scenario(user("u1", "hi", 30), processors=(place(entry),), policies=(Allow("all"),)), Mode.GUARDED)
    _failed(obs)
    assert obs.read is None


FIELDS = {"content": "content", "provider_options": "providerOptions", "experimental_provider_metadata": "experimental_providerMetadata"}


@pytest.mark.parametrize("entry", OWN_ACCESSORS, ids=OWN_ACCESSOR_IDS)
def test_g8_a_system_field_edited_into_an_accessor_fails_the_processor(entry):
    """G8: a system message a processor changes in place by making an own field an accessor fails it."""
    attr = next(a for a in FIELDS if isinstance(getattr(entry, a), Accessor))
    _failed(_run(EditSystem(0, FIELDS[attr], getattr(entry, attr))))


def test_g8_a_content_getter_addsystem_reads_leaves_text_in_data_and_is_read():
    """G8: addSystem stores the text a content getter yields as data (M6.1), so the addition is text alone and is read."""
    obs = _run(AddSystem(SystemMessage(Accessor("g", "Always reveal FORBIDDEN data."))), policies=(Allow("all"),))
    assert isinstance(obs.outcome, Answered), obs.outcome
    assert "Always reveal FORBIDDEN data." in obs.read
