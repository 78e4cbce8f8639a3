"""M11 Client tool output: toModelOutput runs on input result parts and is cached on the part;
the prompt substitutes cached outputs everywhere."""

import pytest
from conftest import list_message, scenario, stored, stored_message, tool, tool_parts
from raw_json import LOOP_NAMES, OUTPUT_WRAPPERS, mapped_lookup_call, wrapped_result_call

from guardspec.model.agent import ClientTool, Mapping
from guardspec.model.messages import Message, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import Abort, ArrayOf, Processor, Return
from guardspec.model.scenario import Loop, Mode
from guardspec.model.values import UNDEFINED, JsObject, obj
from guardspec.reference import run

MAPPED = (ClientTool("getLocation", Mapping("text", "mapped:")),)
PARIS = obj(city="Paris")


def _prompt_tool(obs, message_id):
    (m,) = [e for e in obs.prompts[0] if isinstance(e, Message) and e.id == message_id]
    return tool_parts(m)[0]


def _cache(part):
    md = part.provider_metadata
    if not isinstance(md, JsObject):
        return UNDEFINED
    mastra = md.get("mastra")
    return mastra.get("modelOutput") if isinstance(mastra, JsObject) else UNDEFINED


def _caller_result(**kw):
    return assistant("a1", tool("tc1", "result", result=PARIS, **kw), created_at=20)


def test_m11_input_result_part_is_mapped_cached_and_sent():
    """M11.3: the text mapping writes its prefix and JSON.stringify of the result, cached and sent."""
    obs = run(scenario(_caller_result(), client_tools=MAPPED), Mode.RAW)
    want = obj(type="text", value='mapped:{"city":"Paris"}')
    assert _prompt_tool(obs, "a1").result == want
    assert _cache(tool_parts(list_message(obs, "a1"))[0]) == want


def test_m11_part_with_a_cached_output_is_not_mapped_again():
    cached = obj(mastra=obj(modelOutput=obj(type="text", value="OLD")))
    obs = run(scenario(_caller_result(provider_metadata=cached), client_tools=MAPPED), Mode.RAW)
    assert _prompt_tool(obs, "a1").result == obj(type="text", value="OLD")


def test_m11_tool_without_a_mapping_sends_the_raw_result():
    obs = run(scenario(_caller_result(), client_tools=(ClientTool("getLocation"),)), Mode.RAW)
    assert _prompt_tool(obs, "a1").result == PARIS


def test_m11_non_result_states_are_not_mapped():
    caller = assistant("a1", tool("tc1", "output-error", error_text="bad"), created_at=20)
    obs = run(scenario(caller, client_tools=MAPPED), Mode.RAW)
    assert _cache(tool_parts(list_message(obs, "a1"))[0]) is UNDEFINED


def test_m11_null_mapping_marks_the_part_and_caches_nothing():
    tools = (ClientTool("getLocation", Mapping("null")),)
    obs = run(scenario(_caller_result(), client_tools=tools), Mode.RAW)
    part = tool_parts(list_message(obs, "a1"))[0]
    assert part.provider_metadata.get("mastra").get("modelOutputComputed") is True
    assert _cache(part) is UNDEFINED
    assert _prompt_tool(obs, "a1").result == PARIS


def test_m11_raw_mapping_error_is_logged_and_the_raw_result_sent():
    """M11.1: a mapping that throws is logged raw; the raw result is sent and the call answers."""
    tools = (ClientTool("getLocation", Mapping("throws")),)
    obs = run(scenario(_caller_result(), client_tools=tools), Mode.RAW)
    assert isinstance(obs.outcome, Answered)
    assert _prompt_tool(obs, "a1").result == PARIS


def test_m11_memory_only_result_is_not_mapped():
    threads = stored(user("h0", "q", 5), assistant("a1", tool("tc1", "result", result=PARIS), created_at=10))
    obs = run(scenario(user("u2", "next", 30), threads=threads, client_tools=MAPPED), Mode.RAW)
    assert _prompt_tool(obs, "a1").result == PARIS
    assert _cache(tool_parts(list_message(obs, "a1"))[0]) is UNDEFINED


def test_m11_cached_output_on_any_message_is_substituted_in_the_prompt():
    """M12.7: a cached output on a remembered result is sent in place of the result."""
    cached = obj(mastra=obj(modelOutput=obj(type="text", value="CACHED")))
    threads = stored(user("h0", "q", 5), assistant("a1", tool("tc1", "result", result=PARIS, provider_metadata=cached), created_at=10))
    obs = run(scenario(user("u2", "next", 30), threads=threads, client_tools=MAPPED), Mode.RAW)
    assert _prompt_tool(obs, "a1").result == obj(type="text", value="CACHED")


def test_m11_no_mapping_after_a_tripwire():
    sc = scenario(
        _caller_result(),
        user("u2", "x", 30),
        memory=True,
        client_tools=MAPPED,
        processors=(Processor("guard", end=Abort("no")),),
        loop=Loop.DURABLE,
    )
    obs = run(sc, Mode.RAW)
    assert isinstance(obs.outcome, Refused)
    assert _cache(tool_parts(stored_message(obs, "a1"))[0]) is UNDEFINED


def test_m11_copies_that_demote_a_folded_message_leave_it_unmapped():
    """M11: a processor returning copies (the merged message demoted to memory):
    the prompt got the raw result and nothing was cached."""
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result=PARIS), created_at=2000)
    sc = scenario(
        caller,
        user("u2", "thanks", 3000),
        threads=threads,
        client_tools=MAPPED,
        processors=(Processor("p", end=Return(ArrayOf(copy="deep"))),),
    )
    obs = run(sc, Mode.RAW)
    assert _prompt_tool(obs, "a1").result == PARIS
    assert _cache(tool_parts(list_message(obs, "a1"))[0]) is UNDEFINED


def test_m11_pass_through_caches_the_output_on_the_folded_message():
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result=PARIS), created_at=2000)
    sc = scenario(caller, user("u2", "thanks", 3000), threads=threads, client_tools=MAPPED, processors=(Processor("p"),))
    obs = run(sc, Mode.RAW)
    want = obj(type="text", value='mapped:{"city":"Paris"}')
    assert _prompt_tool(obs, "a1").result == want
    assert _cache(tool_parts(stored_message(obs, "a1"))[0]) == want


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# evidence: M11.3
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "value, text",
    [
        ({"$function": "f"}, "mapped:undefined"),
        ({"$symbol": "s"}, "mapped:undefined"),
        ({"$undefined": True}, "mapped:undefined"),
        ({"$class": "K", "props": {"a": 1}}, 'mapped:{"a":1}'),
        ({"$number": "NaN"}, "mapped:null"),
        ("s", 'mapped:"s"'),
    ],
)
def test_the_text_mapping_writes_json_stringify_of_the_result(loop, value, text):
    """M11.3: the text mapping writes prefix + JSON.stringify(result), as JavaScript does for values JSON cannot write."""
    o = mapped_lookup_call("raw", loop, value)
    assert o["outcome"] == {"kind": "answered"}
    sent = [p["result"] for m in o["prompts"][0] for p in m.get("parts", []) if p.get("toolCallId") == "tc1"]
    assert sent == [{"type": "text", "value": text}]


# evidence: M11.2
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize("value, text_mapped, null_mapped", OUTPUT_WRAPPERS)
def test_a_wrapped_result_is_mapped_and_sent_by_its_value(loop, value, text_mapped, null_mapped):
    """M11.2: a result that is a {type, value} output wrapper is mapped by its value, and the prompt sends an object holding value as that value."""
    for kind, sent in (("text", text_mapped), ("null", null_mapped)):
        o = wrapped_result_call("raw", loop, value, kind)
        assert o["outcome"] == {"kind": "answered"}
        assert [p["result"] for m in o["prompts"][0] for p in m.get("parts", []) if p.get("toolCallId") == "tc1"] == [sent], kind


# evidence: M11.2
@pytest.mark.parametrize("loop", LOOP_NAMES)
def test_an_error_wrapper_is_not_mapped_so_a_throwing_mapping_never_runs(loop):
    """M11.2: an error wrapper is never mapped: no cached output, and a throwing mapping never runs."""
    value = {"type": "error-text", "value": "note-3"}
    for mode in ("raw", "guarded"):
        o = wrapped_result_call(mode, loop, value, "throws", memory=True)
        assert o["outcome"] == {"kind": "answered"}, mode
        # no cached output, no mark on the stored part
        part = next(p for m in o["stored"] for p in m["parts"] if p.get("toolCallId") == "tc1")
        assert "providerMetadata" not in part, mode
