"""G9 Change detection: additions by fingerprint count, recorded when made."""

from guardspec.model.agent import Allow, DenyPatterns
from guardspec.model.messages import Message, Role, Source, TextPart, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import AddMessages, AddSystem, EditMessage, EditSystem, Processor, RemoveByIds
from guardspec.model.scenario import Mode
from guardspec.model.values import UNDEFINED, Accessor, JsFunction, obj
from guardspec.reference import run

from conftest import scenario, stored, tool

INSTR = "SECRET-INSTRUCTIONS"
DENY_INSTR = (DenyPatterns("instr", (INSTR,)),)


def _run(*procs, policies=(Allow("all"),), **kw):
    kw.setdefault("threads", stored(user("h1", "old", 10)))
    return run(scenario(user("u1", "hi", 30), processors=procs, policies=policies, instructions=INSTR, **kw), Mode.GUARDED)


def test_g9_unchanged_instructions_are_not_an_addition():
    obs = _run(Processor("p"), policies=DENY_INSTR)
    assert isinstance(obs.outcome, Answered)


def test_g9_second_copy_of_an_entry_is_an_addition():
    obs = _run(Processor("p", steps=(AddSystem(INSTR, "tagA"),)), policies=DENY_INSTR)
    assert obs.outcome.reason == "policy 'instr' denied the input"


def test_g9_property_set_to_undefined_counts_as_missing():
    obs = _run(Processor("p", steps=(EditSystem(0, "providerOptions", UNDEFINED),)), policies=DENY_INSTR)
    assert isinstance(obs.outcome, Answered)


def test_g9_rewriting_an_entry_with_an_equal_value_is_not_a_change():
    obs = _run(Processor("p", steps=(EditSystem(0, "content", INSTR),)), policies=DENY_INSTR)
    assert isinstance(obs.outcome, Answered)


def test_g9_changed_system_entry_is_an_addition():
    obs = _run(Processor("p", steps=(EditSystem(0, "providerOptions", obj(note="x")),)), policies=DENY_INSTR)
    assert isinstance(obs.outcome, Refused)


def test_g9_addition_stays_recorded_after_a_later_processor_removes_it():
    obs = _run(
        Processor("p1", steps=(AddMessages((user("c9", "SMUGGLED", 40),), Source.CONTEXT),)),
        Processor("p2", steps=(RemoveByIds(("c9",)),)),
        policies=(DenyPatterns("smuggle", ("SMUGGLED",)),),
    )
    assert obs.outcome.reason == "policy 'smuggle' denied the input"


def test_g9_addition_is_recorded_as_it_stood_after_its_processor():
    obs = _run(
        Processor("p1", steps=(AddMessages((user("c9", "FIRST VERSION", 40),), Source.CONTEXT),)),
        Processor("p2", steps=(EditMessage("c9", "second version"),)),
    )
    assert "FIRST VERSION" in obs.read and "second version" in obs.read


def test_g9_history_edited_in_place_is_an_addition():
    obs = _run(Processor("p", steps=(EditMessage("h1", "REWRITTEN"),)), policies=(DenyPatterns("rw", ("REWRITTEN",)),))
    assert isinstance(obs.outcome, Refused)


def test_g9_accessors_and_functions_in_unchanged_entries_are_never_called():
    meta = obj(g=Accessor("g", throws=True), f=JsFunction("f"))
    obs = _run(Processor("p"), threads=stored(Message("h1", Role.USER, (TextPart("old"),), 10, metadata=meta)))
    # no processor failure (nothing was called or cloned for G8); the input-assets gate then
    # converts the whole list for the prompt and refuses it (docs/breakwater-measurements.md §4)
    assert obs.outcome == Refused("input message content is not classified", "breakwater-input-assets")
    assert "agent.input.processor" not in [e.action for e in obs.audit]


def _moved(policies):
    """p moves the remembered caller-outcome message a1 out of the input, keeping it as memory."""
    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "STORED TEXT", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    kept = assistant("a1", "STORED TEXT", tool("tc1", "result", result="Paris", created_at=1000), created_at=2000)
    proc = Processor("p", steps=(RemoveByIds(("a1",)), AddMessages((kept,), Source.MEMORY)))
    return run(scenario(caller, user("u2", "thanks", 3000), threads=threads, processors=(proc,), policies=policies), Mode.GUARDED)


def test_g9_moved_remembered_outcome_message_is_recorded_even_when_unchanged():
    obs = _moved((DenyPatterns("stored", ("STORED TEXT",)),))
    assert obs.outcome.reason == "policy 'stored' denied the input"
