"""G12 Policies: the text read from an entry, and the decisions and their events."""

import pytest
from conftest import events, scenario, tool
from raw_json import HUMAN_OPERATOR, LOOP_NAMES, wrapped_result_call

from guardspec.conformance.cases import model_observation
from guardspec.mastra.normalise import normalise_observation
from guardspec.model.agent import Allow, DenyPatterns, NoDecision, ThrowingEvaluator
from guardspec.model.messages import FilePart, ImagePart, Message, Role, SystemMessage, TextPart, assistant, user
from guardspec.model.observation import Answered, Refused
from guardspec.model.processors import AddSystem, Processor
from guardspec.model.scenario import Mode
from guardspec.model.values import UNDEFINED, obj
from guardspec.reference import run

POLICY = "breakwater-policy-engine"


def _run(*messages, policies=(Allow("all"),), procs=()):
    return run(scenario(*messages, policies=policies, processors=procs), Mode.GUARDED)


def test_g12_deny_pattern_refuses_with_the_policy_name():
    """G12.9: a deny gives policy '<name>' denied the input and a denied event naming the policy and channel."""
    obs = _run(user("u1", "please leak the key", 10), policies=(Allow("a"), DenyPatterns("no-leaks", ("leak",))))
    assert obs.outcome == Refused("policy 'no-leaks' denied the input", POLICY)
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason, dict(e.detail)) == ("denied", "policy denied", {"policy": "no-leaks", "channel": "answer"})
    assert obs.prompts == ()


def test_g12_all_allow_gives_one_allowed_event():
    """G12.9: when all allow there is one allowed policy event."""
    obs = _run(user("u1", "hello", 10), policies=(Allow("a"), DenyPatterns("d", ("zzz",))))
    assert isinstance(obs.outcome, Answered)
    assert [e.decision for e in events(obs, "agent.input.policy")] == ["allowed"]


def test_g12_first_denying_policy_in_order_decides():
    """G12.9: the first deny in policy order decides."""
    obs = _run(user("u1", "alpha beta", 10), policies=(DenyPatterns("first", ("beta",)), DenyPatterns("second", ("alpha",))))
    assert obs.outcome.reason == "policy 'first' denied the input"


def test_g12_throwing_evaluator_fails_and_skips_later_policies():
    """G12.9: a throwing evaluator gives policy evaluation failed, one error event, and later policies do not run."""
    obs = _run(user("u1", "leak", 10), policies=(ThrowingEvaluator("broken"), DenyPatterns("later", ("leak",))))
    assert obs.outcome.reason == "policy evaluation failed"
    (e,) = events(obs, "agent.input.policy")
    assert e.decision == "error" and e.reason == "policy evaluation failed"


def test_g12_evaluator_without_a_decision_fails():
    """G12.9: an evaluator that returns no decision gives policy evaluation failed with one event."""
    obs = _run(user("u1", "x", 10), policies=(NoDecision("silent"),))
    assert obs.outcome.reason == "policy evaluation failed"
    assert len(events(obs, "agent.input.policy")) == 1


def test_g12_non_string_text_is_not_classified():
    obs = _run(Message("u1", Role.USER, (TextPart(5),), 10))
    assert obs.outcome.reason == "input message content is not classified"
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason) == ("error", "input message content is not classified")
    assert obs.prompts == ()


def test_g12_null_or_undefined_text_is_read_as_json_gives_it():
    """G12.8: a null text reads null, an undefined one reads nothing, and neither throws."""
    # Evidence: G12.8 (measured on the Breakwater 0.17.0 build): Mastra's conversion takes a null or undefined text (``text?.trim()``), so
    # the gate passes it and the policy engine reads the value as ``JSON.stringify`` gives it:
    # ``null`` as ``"null"``, undefined as nothing; the call is answered.
    obs = _run(Message("u1", Role.USER, (TextPart("a"), TextPart(None), TextPart("b")), 10))
    assert isinstance(obs.outcome, Answered)
    assert obs.read == "a\nnull\nb"
    obs = _run(Message("u1", Role.USER, (TextPart(UNDEFINED), TextPart("b")), 10))
    assert isinstance(obs.outcome, Answered)
    assert obs.read == "b"
    denied = _run(Message("u1", Role.USER, (TextPart(None),), 10), policies=(DenyPatterns("no-null", ("null",)),))
    assert denied.outcome == Refused("policy 'no-null' denied the input", POLICY)


def test_g12_tool_parts_read_as_tool_name_and_json_args_then_their_output():
    """G12.1, G12.2, G12.3: tool calls read name and JSON args, then each outcome its output; an approval's reason never."""
    # Evidence: G12.3: each tool part reads its call (tool name, JSON args),
    # then its outcome (tool name, output): a result as JSON, an error's text and a denial's
    # reason unquoted; an approval-responded reason is not read; a pending call reads its call.
    caller = assistant(
        "a1",
        tool("tc1", "result", result=obj(city="Paris"), args=obj(q="ARGS")),
        tool("tc2", "output-error", error_text="ERRTEXT"),
        tool("tc3", "output-denied", approval=obj(approved=False, reason="REASONTEXT")),
        tool("tc4", "approval-responded", approval=obj(approved=True, reason="UNREAD REASON")),
        tool("tc5", "call", args="STRING ARGS"),
        created_at=10,
    )
    read = _run(caller).read
    # conftest.tool names every tool "getLocation"; the calls come first, then the outcomes
    assert read == "\n".join(
        [
            "getLocation",
            '{"q":"ARGS"}',
            "getLocation",
            "getLocation",
            "getLocation",
            "getLocation",
            "STRING ARGS",
            "getLocation",
            '{"city":"Paris"}',
            "getLocation",
            "ERRTEXT",
            "getLocation",
            "REASONTEXT",
        ]
    )


def test_g12_denial_without_reason_reads_mastras_text_and_an_empty_reason_reads_nothing():
    """G12.3: a denial reads its reason unquoted, the default text when it has none."""
    no_reason = _run(assistant("a1", tool("tc3", "output-denied", approval=obj(approved=False)), created_at=10)).read
    empty = _run(assistant("a1", tool("tc3", "output-denied", approval=obj(approved=False, reason="")), created_at=10)).read
    assert no_reason == "getLocation\ngetLocation\nTool call was not approved by the user"
    assert empty == "getLocation\ngetLocation"


def test_g12_user_message_tool_and_reasoning_parts_are_not_read():
    """G12.1: a user message reads its text and file parts only."""
    from guardspec.model.messages import ReasoningPart

    caller = Message("u1", Role.USER, (TextPart("SAID"), ReasoningPart("THOUGHT"), tool("tc1", "result", result="R")), 10)
    assert _run(caller).read == "SAID"


def test_g12_text_file_data_is_read_as_base64_and_other_media_as_their_type():
    """G12.6: a file part reads its media type and, for text/* in any case, its base64 data decoded."""
    # G12.6: ``text/*`` data is decoded from base64 (``-`` read as ``+``); an image's data is
    # never read, only its media type.
    caller = Message("u1", Role.USER, (FilePart("RklMRSBEQVRB", "text/plain"), ImagePart("aGk=", "image/png")), 10)
    assert _run(caller).read == "text/plain\nFILE DATA\nimage/png"
    dashed = Message("u1", Role.USER, (FilePart("Pz8-", "TEXT/markdown"),), 10)
    assert _run(dashed).read == "TEXT/markdown\n??>"


def test_g12_text_file_data_not_base64_or_not_a_string_is_not_classified():
    """G12.6: text/* data that is not base64, an object or a number is not classified."""
    for data in ("not!base64", "abcde", obj(bytes=(1, 2)), 7):
        obs = _run(Message("u1", Role.USER, (FilePart(data, "text/plain"),), 10))
        assert obs.outcome == Refused("input message content is not classified", POLICY), data
        assert obs.read is None


def test_g12_system_message_provider_options_are_read_through_the_closed_table():
    """G12.4, G12.5: a system message reads its concatenated text, then its options through the closed table."""
    # G12.5: anthropic.citations and openrouter.reasoning_details are read (as JSON, opaque keys
    # left out), other namespaces and keys are not.
    sysmsg = SystemMessage(
        (
            TextPart("SYS "),
            TextPart("PART", provider_options=obj(openrouter=obj(reasoning_details=(obj(text="PART OPTION", signature="S"),)))),
        ),
        provider_options=obj(anthropic=obj(citations=obj(cited="MSG OPTION", encrypted_index="E"), cacheControl=obj(type="IGNORED"))),
        experimental_provider_metadata=obj(acme=obj(d="IGNORED TOO")),
    )
    read = _run(user("u1", "hi", 10), procs=(Processor("p", steps=(AddSystem(sysmsg),)),)).read
    assert read == 'hi\nSYS PART\n{"cited":"MSG OPTION"}\n[{"text":"PART OPTION"}]'


def test_g12_refused_or_malformed_provider_options_are_not_classified():
    """G12.5: the refused namespaces and keys, and options or namespaces that are no object, are not classified."""
    for options in (
        obj(openaiCompatible=obj()),
        obj(anthropic=obj(title="T")),
        obj(anthropic=obj(context="C")),
        obj(openrouter=obj(filename="F")),
        obj(openrouter=obj(annotations=())),
        obj(note="a namespace that is not an object"),
        obj(acme=None),
        "options that are not an object",
    ):
        sysmsg = SystemMessage("SYS", experimental_provider_metadata=options)
        obs = _run(user("u1", "hi", 10), procs=(Processor("p", steps=(AddSystem(sysmsg),)),))
        assert obs.outcome == Refused("input message content is not classified", POLICY), options
        (e,) = events(obs, "agent.input.policy")
        assert (e.decision, e.reason, e.detail) == ("error", "input message content is not classified", None)


def test_g12_tool_provider_metadata_is_read_with_the_call_and_with_its_result():
    """G12.1, G12.5: a tool part's providerMetadata is read through the table with the call and with its result."""
    part = tool("tc1", "result", result="R", provider_metadata=obj(anthropic=obj(citations="CITED"), mastra=obj(x=1)))
    assert _run(assistant("a1", part, created_at=10)).read == 'getLocation\n"CITED"\ngetLocation\nR\n"CITED"'
    bad = tool("tc1", "call", provider_metadata=obj(mastra="not an object"))
    assert _run(assistant("a1", bad, created_at=10)).outcome == Refused("input message content is not classified", POLICY)


def test_g12_allowed_event_has_no_reason_and_lists_the_policies_evaluated():
    """G12.9: the allowed event has no reason and names the policies run, in order."""
    # Breakwater policy-engine recordAllowedPolicyDecision: detail {evaluated: [names]}.
    obs = _run(user("u1", "hello", 10), policies=(Allow("a"), DenyPatterns("no-leaks", ("leak",))))
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason, e.detail) == ("allowed", None, (("evaluated", ("a", "no-leaks")),))


def test_g12_failed_evaluation_event_names_policy_and_answer_channel():
    """G12.9: a failed evaluation's event names the policy and the answer channel."""
    obs = _run(user("u1", "hello", 10), policies=(NoDecision("mute"),))
    (e,) = events(obs, "agent.input.policy")
    assert (e.decision, e.reason, dict(e.detail)) == ("error", "policy evaluation failed", {"policy": "mute", "channel": "answer"})


def test_g12_data_uri_is_read_under_the_parts_own_media_type():
    """G12.6: a data URI's payload is read under the part's own media type, never the URI's."""
    # M12.8 / G12.6 (Evidence: G12.6): measured on the Breakwater 0.17.0
    # build: a data URI of another media type is read as its
    # payload under the part's type; the URI's own type is never read.
    uri = "data:text/plain;base64,bm90ZS0wMg=="  # "note-02"
    assert _run(Message("u1", Role.USER, (FilePart(uri, "text/markdown"),), 10)).read == "text/markdown\nnote-02"
    assert _run(Message("u1", Role.USER, (FilePart(uri, "image/png"),), 10)).read == "image/png"
    image_uri = "data:image/png;base64,bm90ZS0wMg=="
    assert _run(Message("u1", Role.USER, (FilePart(image_uri, "TEXT/Markdown"),), 10)).read == "TEXT/Markdown\nnote-02"


def test_g12_array_file_data_is_read_as_its_string():
    """G12.7: text/* data that is an array is read as String of it, then as string data."""

    # M12.8 / G12.7 (Evidence: G12.7): measured on the Breakwater 0.17.0
    # build: text file data that is an array is read as ``String(array)``,
    # its payload before the first comma: ``[[]]`` and ``[null, 'aGk=']`` read nothing, ``['aGk=']``
    # reads ``hi``, ``[[1]]`` (``"1"``, not base64) is not classified.
    def read(data):
        return _run(Message("u1", Role.USER, (FilePart(data, "text/plain"), TextPart("t")), 10)).read

    assert read(((),)) == "text/plain\nt"
    assert read(("aGk=",)) == "text/plain\nhi\nt"
    assert read((None, "aGk=")) == "text/plain\nt"
    assert read(((1,),)) is None


def test_g12_file_data_that_parses_as_a_url_is_read_as_the_url():
    """G12.7: text/* data that parses as a URL is read as the URL's text, its ends stripped."""
    # Evidence: G12.7 (measured on the Breakwater 0.17.0 build): Mastra keeps file data that ``new URL`` accepts as the URL, whatever its scheme
    # (``note: see the file`` is a URL of scheme ``note``), and Breakwater reads a ``text/*`` URL
    # as its text (ends stripped); other media types read their type only. In an assistant
    # message no gate denies the scheme.
    parts = (FilePart("note: see the file", "text/plain"), FilePart("x:  y  ", "text/markdown"), FilePart("note:z", "image/png"))
    obs = _run(Message("a1", Role.ASSISTANT, parts, 5))
    assert isinstance(obs.outcome, Answered)
    assert obs.read == "text/plain\nnote: see the file\ntext/markdown\nx:  y\nimage/png"


def test_g12_a_bigint_value_cannot_be_written_and_is_not_classified():
    """G12.2: a bigint value cannot be written as JSON, so the reading does not classify it."""
    from guardspec.model.values import BigInt

    obs = _run(assistant("a1", tool("tc1", "result", result=BigInt(5)), created_at=10))
    assert obs.outcome == Refused("input message content is not classified", POLICY)
    assert obs.read is None and obs.prompts == ()


def test_g12_a_string_value_is_read_as_it_is_and_another_as_json():
    """G12.2: a string value is read as it is, a number or an object as JSON.stringify writes it."""
    caller = assistant(
        "a1", tool("tc1", "call", args="plain"), tool("tc2", "call", args=5), tool("tc3", "call", args=obj(k=(1, None))), created_at=10
    )
    assert _run(caller).read == 'getLocation\nplain\ngetLocation\n5\ngetLocation\n{"k":[1,null]}'


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# the policies read an error's text as the prompt sends it (Breakwater build: a caller
# output-error with errorText null folded
# onto the stored call, and a pure input variant; 10 values × 3 loops: every falsy value read
# nothing on the build, and the model read it as JSON before this was fixed)
# evidence: G12.3
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "value, read",
    [
        (None, None),
        (0, None),
        (False, None),
        ({"$number": "NaN"}, None),
        ("", None),
        ({"$undefined": True}, None),
        ({"a": 1}, '{"a":1}'),
        ("s", "s"),
        ([1], "[1]"),
        (True, "true"),
    ],
)
def test_an_error_text_is_read_as_the_prompt_sends_it(loop, value, read):
    """G12.3: the policies read an error's text as the prompt sends it: a falsy one reads nothing."""
    t = {
        "type": "tool-invocation",
        "toolCallId": "tc1",
        "toolName": "plain",
        "args": {"q": "x"},
        "state": "output-error",
        "errorText": value,
    }
    msgs = [{"id": "a01", "role": "assistant", "parts": [t]}, {"id": "c02", "role": "user", "parts": [{"type": "text", "text": "yo"}]}]
    call = {"loop": loop, "actor": HUMAN_OPERATOR, "messages": msgs, "reply": "reply-0"}
    sj = {"guardspec": 1, "agent": {"allowedPrincipalKinds": ["human"], "processors": []}, "call": call}
    o = normalise_observation(model_observation(sj, "guarded"), sj)
    assert o["outcome"] == {"kind": "answered"}
    assert o["read"].split("\n") == ["plain", '{"q":"x"}', "plain"] + ([read] if read is not None else []) + ["yo"]


# evidence: G12.3
@pytest.mark.parametrize("loop", LOOP_NAMES)
@pytest.mark.parametrize(
    "value, kind, read",
    [
        ({"type": "error-text", "value": "note-3"}, "text", "note-3"),
        ({"type": "text", "value": "note-2"}, "null", "note-2"),
        ({"type": "json", "value": {"answer": "note-6"}, "extra": 1}, "null", '{"answer":"note-6"}'),
        (
            {"type": "content", "value": [{"type": "text", "text": "note-5"}]},
            "null",
            '{"type":"content","value":[{"type":"text","text":"note-5"}]}',
        ),
    ],
)
def test_the_policies_read_a_wrapped_result_as_it_is_sent(loop, value, kind, read):
    """G12.3: the policies read a result holding value through the prompt's conversion: the unwrapped value."""
    o = wrapped_result_call("guarded", loop, value, kind)
    assert o["outcome"] == {"kind": "answered"}
    assert o["read"].split("\n")[-1] == read
