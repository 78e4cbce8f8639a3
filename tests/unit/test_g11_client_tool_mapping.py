"""G11 Client tool mapping (S6)."""

import pytest
from conftest import events, list_sources, scenario, stored, stored_message, tool, tool_parts
from raw_json import LOOP_NAMES, OUTPUT_WRAPPERS, mapped_lookup_call, wrapped_result_call

from guardspec.model.agent import Allow, ClientTool, DenyPatterns, Mapping
from guardspec.model.messages import Message, Source, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import AddMessages, ArrayOf, EditText, Processor, RemoveByIds, Return
from guardspec.model.scenario import Mode
from guardspec.model.values import UNDEFINED, obj
from guardspec.reference import run

MAPPED = (ClientTool("getLocation", Mapping("text", "mapped:")),)
WANT = obj(type="text", value='mapped:"Paris"')


def sent_as(text):
    """A string result as the model receives it, unmapped: the text output (M12.6)."""
    return obj(type="text", value=text)


def _sent(obs, message_id):
    (m,) = [e for e in obs.prompts[0] if isinstance(e, Message) and e.id == message_id]
    return {p.tool_call_id: p.result for p in tool_parts(m)}


def _run(*messages, procs=(), policies=(Allow("all"),), **kw):
    return run(scenario(*messages, processors=procs, policies=policies, client_tools=MAPPED, **kw), Mode.GUARDED)


CALLER = assistant("a1", "done", tool("tc1", "result", result="Paris"), created_at=20)


def test_g11_caller_result_is_mapped_and_sent():
    """G11.1: a result of an input message whose id memory does not hold is mapped and sent."""
    obs = _run(CALLER)
    assert _sent(obs, "a1") == {"tc1": WANT}


def test_g11_policies_read_the_mapped_output():
    obs = _run(CALLER, policies=(DenyPatterns("m", ("mapped:",)),))
    assert obs.outcome.reason == "policy 'm' denied the input"


def test_g11_input_message_a_processor_changed_is_still_mapped():
    """G11.1: every result of an input message a processor changed is mapped."""
    obs = _run(CALLER, procs=(Processor("p", end=Return(ArrayOf(edits=(EditText("a1", "edited"),)))),))
    assert _sent(obs, "a1") == {"tc1": WANT}


def test_g11_mapping_error_fails_the_call():
    """G11.5: a mapping that throws fails the call from breakwater-client-tool-output."""
    tools = (ClientTool("getLocation", Mapping("throws")),)
    obs = run(scenario(CALLER, client_tools=tools), Mode.GUARDED)
    assert obs.outcome == Refused("input processor failed", "breakwater-client-tool-output")
    (e,) = events(obs, "agent.input.processor")
    assert dict(e.detail) == {"processor": "breakwater-client-tool-output"}
    assert obs.prompts == ()


def test_g11_history_result_is_not_mapped():
    threads = stored(user("u0", "q", 5), assistant("a0", tool("tc0", "result", result="Old"), created_at=10))
    obs = _run(user("u1", "hi", 30), threads=threads)
    assert _sent(obs, "a0") == {"tc0": sent_as("Old")}


def _moved_scenario():
    cached = obj(mastra=obj(modelOutput=obj(type="text", value="CACHED")))
    stored_a1 = assistant(
        "a1", "let me check", tool("tc0", "result", result="Old", provider_metadata=cached), tool("tc1", "call"), created_at=2000
    )
    threads = stored(user("u0", "where am I?", 1000), stored_a1)
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    kept = assistant(
        "a1",
        "let me check",
        tool("tc0", "result", result="Old", provider_metadata=cached),
        tool("tc1", "result", result="Paris"),
        created_at=2000,
    )
    proc = Processor("p", steps=(RemoveByIds(("a1",)), AddMessages((kept,), Source.MEMORY)))
    return caller, threads, proc


def test_g11_moved_remembered_outcome_gets_no_new_mapping_and_its_cache_is_sent():
    caller, threads, proc = _moved_scenario()
    obs = _run(caller, user("u2", "thanks", 3000), threads=threads, procs=(proc,))
    assert isinstance(obs.outcome, Answered)
    assert _sent(obs, "a1") == {"tc0": obj(type="text", value="CACHED"), "tc1": sent_as("Paris")}
    assert "CACHED" in obs.read


def test_g11_memory_plus_input_copy_is_still_mapped_and_saved():
    """G11.1, I8, S3: of a carrier returned as a copy, the caller's outcome part is mapped, cached and saved."""
    # I8 / S3: a returned memory+input copy stays both, so it is mapped and saved.
    threads = stored(user("u0", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = _run(caller, user("u2", "thanks", 3000), threads=threads, procs=(Processor("p", end=Return(ArrayOf(copy="deep"))),))
    assert list_sources(obs)["a1"] == {"memory", "input"}
    assert _sent(obs, "a1") == {"tc1": WANT}
    (part,) = tool_parts(stored_message(obs, "a1"))
    assert part.state.value == "result"
    assert part.provider_metadata.get("mastra").get("modelOutput") == WANT


# -- G11.1: which results are mapped (Evidence: G11.1) --------------------------------------------

BROKEN = (ClientTool("getLocation", Mapping("text", "mapped:")), ClientTool("broken", Mapping("throws", "x")))


def _history_with_stored_result():
    """a1 remembered with the caller's pending call tc1 and a historical result tc9 of a tool
    whose mapping throws."""
    a1 = assistant("a1", tool("tc1", "call"), tool("tc9", "result", result="OLD", name="broken"), created_at=20)
    return stored(user("u0", "where?", 10), a1)


def test_g11_stored_result_on_a_remembered_input_message_is_not_mapped():
    """G11.1: of a carrier only the caller's outcome parts are mapped; a stored result's throwing mapping never runs."""
    # The caller completes tc1 on remembered a1: only the caller's outcome part is mapped; the
    # stored result tc9 is not (its throwing mapping never runs) and is sent as stored.
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=20)
    obs = run(
        scenario(caller, user("u2", "thanks", 30), threads=_history_with_stored_result(), client_tools=BROKEN, policies=(Allow("all"),)),
        Mode.GUARDED,
    )
    assert isinstance(obs.outcome, Answered), obs.outcome
    assert _sent(obs, "a1") == {"tc1": WANT, "tc9": sent_as("OLD")}
    # the stored call takes the caller's result; the caller's part alone is read (G10)
    assert obs.read.startswith("getLocation\n") and obs.read.endswith('\ngetLocation\nmapped:"Paris"\nthanks')
    assert "OLD" not in obs.read and "broken" not in obs.read


@pytest.mark.parametrize(
    "outcome", [tool("tc1", "result", result="Paris"), tool("tc1", "output-denied", approval=obj(approved=False, reason="no"))]
)
def test_g11_stored_result_on_a_remembered_input_message_is_sent_as_stored_even_with_a_mapping(outcome):
    """G11.2: a historical result on a carrier is not mapped and reaches the model as stored."""
    # Point 13 with a mapping that does not throw: the guard maps only the caller's outcome
    # part of remembered a1, and nothing maps the stored result tc9 after the policies, so what
    # reaches the model of it is what was stored and read as history (I4, G10). Breakwater lets
    # Mastra's own pass map it after the policies and sends the mapped text unread: finding
    # BW-F4 (docs/breakwater-findings.md).
    a1 = assistant("a1", tool("tc1", "call"), tool("tc9", "result", result="Oslo"), created_at=20)
    caller = assistant("a1", outcome, created_at=20)
    obs = _run(caller, user("u2", "thanks", 30), threads=stored(user("u0", "where?", 10), a1))
    assert isinstance(obs.outcome, Answered), obs.outcome
    assert _sent(obs, "a1")["tc9"] == sent_as("Oslo")
    (saved,) = [p for p in tool_parts(stored_message(obs, "a1")) if p.tool_call_id == "tc9"]
    assert saved.provider_metadata is UNDEFINED


def test_g11_changed_remembered_message_is_mapped_whole_and_read_as_mapped():
    """G11.1, G11.3: a changed remembered message is mapped whole, recorded again, and read as mapped."""
    # A processor changes remembered a1 (an addition): every result on it is mapped, and the
    # mapped message is recorded again, so the policies read the mapped text the model is sent.
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=20)
    a1 = assistant("a1", tool("tc1", "call"), tool("tc9", "result", result="Oslo"), created_at=20)
    edit = Processor("p", end=Return(ArrayOf(edits=(EditText("a1", "EDITED"),))))
    obs = run(
        scenario(caller, threads=stored(a1), client_tools=MAPPED, processors=(edit,), policies=(DenyPatterns("m", ('mapped:"Oslo"',)),)),
        Mode.GUARDED,
    )
    assert obs.outcome == Refused("policy 'm' denied the input", "breakwater-policy-engine")
    assert 'mapped:"Oslo"' in obs.read and "\nOslo\n" in obs.read


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# evidence: G11.5
@pytest.mark.parametrize("value", [{"$bigint": "5"}, {"a": {"$getter": "get-a", "throws": True}}])
def test_a_mapping_that_throws_is_logged_raw_and_fails_the_guarded_call(value):
    """G11.5: a mapping that throws is logged by raw Mastra, which sends the raw result; under the guard it fails the call."""
    # raw Mastra logs it and sends the raw result, whose save then fails (M13.4): generate rejects
    assert mapped_lookup_call("raw", "generate", value)["outcome"] == {"kind": "failed", "error": "PROCESSOR_WORKFLOW_FAILED"}
    assert mapped_lookup_call("raw", "stream", value)["outcome"] == {"kind": "answered"}
    assert mapped_lookup_call("raw", "durable", value)["outcome"] == {"kind": "answered"}
    # under the guard a bigint passes the input-assets gate and the mapping fails the call (G11);
    # a throwing getter is stopped earlier, by the gate's structuredClone
    gate = "breakwater-client-tool-output" if "$bigint" in value else "breakwater-input-assets"
    reason = "input processor failed" if "$bigint" in value else "input message content is not classified"
    for loop in LOOP_NAMES:
        assert mapped_lookup_call("guarded", loop, value)["outcome"] == {"kind": "refused", "reason": reason, "processorId": gate}


# evidence: G11.4 (the wrapper table and its expected prompts are M11.2's, measured on real Mastra)
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize("value, text_mapped, null_mapped", OUTPUT_WRAPPERS)
def test_the_guard_unwraps_and_maps_a_wrapped_result_as_mastra_does(loop, value, text_mapped, null_mapped):
    """G11.4: under the guard a {type, value} wrapper is mapped by its value, an error wrapper not at all, a third key makes it a plain object."""
    for kind, sent in (("text", text_mapped), ("null", null_mapped)):
        o = wrapped_result_call("guarded", loop, value, kind)
        assert o["outcome"] == {"kind": "answered"}
        assert [p["result"] for m in o["prompts"][0] for p in m.get("parts", []) if p.get("toolCallId") == "tc1"] == [sent], kind
