"""G9 Change detection: additions by fingerprint count, recorded when made."""

from conftest import scenario, stored, tool

from guardspec.model.agent import Allow, DenyPatterns
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import AddMessages, AddSystem, ArrayOf, EditMessage, EditSystem, Processor, RemoveByIds, Return
from guardspec.model.scenario import Mode
from guardspec.model.values import UNDEFINED, Accessor, JsFunction, obj
from guardspec.reference import run
from guardspec.reference.reading import fingerprint

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
    # converts the whole list for the prompt and refuses it (G16.2)
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


# -- the legacy toolInvocations mirror (G9.2, Evidence: G9.2) -------------------------------------

MIRROR_HISTORY = stored(user("u0", "where am I?", 1), assistant("a0", "let me check", tool("tc1", "call", args=obj(q=1)), created_at=2))


def _readd_remembered_outcome(caller_part, readded_part):
    """The caller's outcome for the stored call folds onto a0 (M3, memory+input). p1 removes a0,
    adds a literal a0 equal to the folded one part by part under memory, and returns a copy of
    the list: a0 is re-added memory+input (S3), so it is not moved; only the fingerprint decides
    whether it changed."""
    readded = assistant("a0", "let me check", readded_part, created_at=2)
    p1 = Processor(
        "p1",
        steps=(RemoveByIds(("a0",)), AddMessages((readded,), Source.MEMORY, merge=False)),
        end=Return(ArrayOf(base="list", copy="shallow")),
    )
    caller = assistant("a0", caller_part, created_at=2)
    return run(scenario(caller, user("c1", "thanks", 10), threads=MIRROR_HISTORY, processors=(p1,), policies=(Allow("all"),)), Mode.GUARDED)


def test_g9_a_result_merged_onto_a_stored_call_leaves_a_mirror_a_literal_copy_lacks():
    # MessageMerger.merge writes the result into content.toolInvocations too; the literal a0 has
    # no such mirror, so its fingerprint differs: recorded, and read whole after the caller's
    # input (its text "let me check" appears only there: the caller's a0 is read as its
    # outcome part alone).
    """G9.2: a literal copy of a carrier lacks the mirror a result merge wrote, so it is a change, read whole."""
    result = tool("tc1", "result", result=obj(city="Paris"), args=obj(q=1))
    obs = _readd_remembered_outcome(result, result)
    assert isinstance(obs.outcome, Answered)
    assert obs.read.count("let me check") == 1
    assert obs.read.index("thanks") < obs.read.index("let me check")


def test_g9_an_error_merged_onto_a_stored_call_leaves_no_mirror():
    # Only a result enters the mirror: the folded a0 with an output-error is matched by the
    # literal copy, nothing is recorded, and a0's stored text is not read.
    """G9.2: an error merge writes no mirror, so a literal copy matches and nothing is recorded."""
    error = tool("tc1", "output-error", error_text="boom", args=obj(q=1))
    obs = _readd_remembered_outcome(error, error)
    assert isinstance(obs.outcome, Answered)
    assert "let me check" not in obs.read


def test_g9_an_error_with_an_approval_merged_onto_a_stored_call_has_its_keys_in_another_order():
    """G9.3: a merged error lists approval before errorText, a literal the other way round: a change."""
    # Evidence: G9.3 (measured on the Breakwater 0.17.0 build): Mastra's merge writes ``approval`` before ``errorText`` into the
    # stored call, a literal lists ``errorText`` first, and Breakwater's fingerprint lists own
    # keys in order: the literal copy is a change, recorded and read whole.
    approval = obj(approved=False, reason="no")
    error = tool("tc1", "output-error", error_text="boom", args=obj(q=1), approval=approval)
    obs = _readd_remembered_outcome(error, error)
    assert isinstance(obs.outcome, Answered)
    assert obs.read.count("let me check") == 1
    assert obs.read.index("thanks") < obs.read.index("let me check")


def test_g9_a_merged_error_with_an_approval_keeps_its_values():
    """G9.3, M4.3: the merged part equals the literal by value; only its key order differs."""
    # G9.3: the key order is seen by the fingerprint alone; the merged part equals the literal.
    from guardspec.reference import messagelist as ml

    stored_a0 = assistant("a0", "let me check", tool("tc1", "call", args=obj(q=1)), created_at=2)
    error = tool("tc1", "output-error", error_text="boom", args=obj(q=1), approval=obj(approved=False, reason="no"))
    merged = ml.merge_parts(stored_a0, assistant("a0", error, created_at=2))
    literal = assistant("a0", "let me check", error, created_at=2)
    assert merged.parts == literal.parts
    assert merged.parts[1].approval_first and not literal.parts[1].approval_first


def test_g9_memory_fold_over_a_context_user_message_is_a_change():
    """M3's user/user fold writes ``content.metadata: {}`` (measured on @mastra/core, M3.3):
    the live text stays, but the message gained a key, so p2's memory add is recorded as a
    change too and both recordings are read (Breakwater seed 8462 case 79)."""
    obs = _run(
        Processor("p1", steps=(AddMessages((user("n1", "CONTEXT TEXT", 40),), Source.CONTEXT),)),
        Processor("p2", steps=(AddMessages((user("n1", "memory text", 40),), Source.MEMORY),)),
    )
    assert obs.read == "hi\nCONTEXT TEXT\nCONTEXT TEXT"


def test_g9_a_system_messages_own_accessor_is_fingerprinted_by_identity_uncalled():
    """G9: a system message's own accessor counts by its getter's identity and is never called."""
    throwing = SystemMessage(Accessor("g", throws=True), Accessor("po", throws=True), Accessor("pm", throws=True))
    assert fingerprint(throwing) == fingerprint(
        SystemMessage(Accessor("g", throws=True), Accessor("po", throws=True), Accessor("pm", throws=True))
    )
    assert fingerprint(SystemMessage(Accessor("g", "x"))) != fingerprint(SystemMessage(Accessor("h", "x")))
    assert fingerprint(SystemMessage(Accessor("g", "x"))) != fingerprint(SystemMessage("x"))
    assert fingerprint(SystemMessage("x", Accessor("po", obj()))) != fingerprint(SystemMessage("x", obj()))
