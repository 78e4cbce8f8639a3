"""M12 Model step: the prompt, and the scripted reply added as a response message."""

import pytest
from conftest import list_message, list_sources, prompt_lines, scenario, stored, tool, tool_parts
from raw_json import LOOP_NAMES, NOTE_PARTS, adds, run_normalised

from guardspec.model.messages import Message, assistant, user
from guardspec.model.processors import AddSystem, Processor
from guardspec.model.scenario import Mode
from guardspec.reference import run


def test_m12_prompt_is_system_messages_then_messages_by_created_at():
    """M12.1: system messages first, then the non-system messages in createdAt order."""
    sc = scenario(
        user("u2", "second", 20),
        user("u1", "first", 10),
        threads=stored(user("h1", "history", 15)),
        processors=(Processor("p", steps=(AddSystem("tagged", "tagA"), AddSystem("untagged"))),),
    )
    obs = run(sc, Mode.RAW)
    assert prompt_lines(obs) == [
        "system: You are a guarded agent.",
        "system: untagged",
        "system: tagged",
        "user: first",
        "user: history",
        "user: second",
    ]


def test_m12_one_prompt_per_call():
    obs = run(scenario(user("u1", "hi", 10)), Mode.RAW)
    assert len(obs.prompts) == 1


def test_m12_reply_is_added_as_an_assistant_response_message():
    obs = run(scenario(user("u1", "hi", 10), reply="the answer"), Mode.RAW)
    (reply_id,) = [i for i, s in list_sources(obs).items() if s == {"response"}]
    m = list_message(obs, reply_id)
    assert m.role.value == "assistant" and m.text() == "the answer"
    assert obs.result.text == "the answer"
    assert obs.result.messages[-1] == reply_id


def test_m12_reply_is_not_in_the_prompt_it_answers():
    obs = run(scenario(user("u1", "hi", 10), reply="the answer"), Mode.RAW)
    assert "assistant: the answer" not in prompt_lines(obs)


def test_m12_reply_merges_into_a_trailing_assistant_which_moves_to_response():
    """M12.12: the reply merges into a trailing assistant message, which moves to response."""
    # M12.12: after a client tool result, the reply is appended to a1, which moves
    # from {memory, input} to response and drops out of rememberedMessages.
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = run(scenario(caller, threads=threads, reply="normal answer"), Mode.RAW)
    assert list_sources(obs)["a1"] == {"response"}
    a1 = list_message(obs, "a1")
    assert a1.text().endswith("normal answer")
    assert tool_parts(a1)[0].state.value == "result"
    assert "a1" not in obs.result.remembered
    assert obs.result.messages == ("u1", "a1")


def test_m12_prompt_messages_are_non_system_list_messages():
    obs = run(scenario(user("u1", "hi", 10), context=(user("c1", "ctx", 5),)), Mode.RAW)
    ids = [e.id for e in obs.prompts[0] if isinstance(e, Message)]
    assert ids == ["c1", "u1"]


def test_m12_part_provider_options_are_not_sent():
    """M12.5: a text part's providerOptions are never sent."""
    # Measured (Evidence: M12.5): a stored-format text part's
    # providerOptions never reach the prompt, whatever the namespace (null, ``note``, ``openai``).
    from guardspec.model.messages import Role, TextPart
    from guardspec.model.values import UNDEFINED, obj

    m = Message("u1", Role.USER, parts=(TextPart("hi", obj(openai=obj(x=1))),), created_at=10)
    obs = run(scenario(m), Mode.RAW)
    sent = obs.prompts[0][-1]
    assert [(p.text, p.provider_options) for p in sent.parts] == [("hi", UNDEFINED)]


def test_m12_generate_re_adds_earlier_response_messages_too():
    """M12.13: on generate an earlier response message is added again and merges into the reply."""
    # Measured (Evidence: M12.13): on generate as on stream, a response
    # assistant message a processor added merges into the reply: parts [reply, added].
    from guardspec.model.messages import Source
    from guardspec.model.processors import AddMessages

    added = assistant("n2", "added", created_at=20)
    p = Processor("p1", steps=(AddMessages((added,), Source.RESPONSE, False), AddMessages((user("u5", "q", 21),), Source.INPUT, False)))
    obs = run(scenario(user("c00", "hi", 10), processors=(p,), reply="reply-0"), Mode.RAW)
    reply = obs.list.messages[-1].message
    assert [pt.text for pt in reply.parts] == ["reply-0", "added"]


def test_m12_result_text_concatenates_a_null_or_undefined_text_as_javascript_does():
    """M13.5, G12.12: the read-back result text spells null and undefined out, raw with memory and guarded."""
    # Evidence: M13.5, G12.8 (measured on Mastra 1.71.0 raw with memory, and on
    # Breakwater, which reads the text back on every loop): the reply merged into the caller's
    # trailing assistant message whose text is null reads ``"nullreply"``, undefined
    # ``"undefinedreply"``; a string as itself.
    from guardspec.model.messages import Role, TextPart
    from guardspec.model.values import UNDEFINED

    threads = stored(user("u0", "hi", 1))
    for text, expected in ((None, "nullreply"), (UNDEFINED, "undefinedreply"), ("abc", "abcreply")):
        caller = Message("c0", Role.ASSISTANT, (TextPart(text),), 10)
        assert run(scenario(caller, threads=threads, reply="reply"), Mode.RAW).result.text == expected
        assert run(scenario(caller, reply="reply"), Mode.GUARDED).result.text == expected


def test_m12_a_leading_dot_user_message_is_sent_when_the_first_message_is_no_user_message():
    """M12.1: when the first non-system message is not a user message, a user message "." is sent before it."""
    obs = run(scenario(assistant("a0", "earlier answer", created_at=5), user("u1", "hi", 10)), Mode.RAW)
    assert prompt_lines(obs)[1:] == ["user: .", "assistant: earlier answer", "user: hi"]
    obs = run(scenario(user("u1", "hi", 10), assistant("a0", "later", created_at=20)), Mode.RAW)
    assert prompt_lines(obs)[1:] == ["user: hi", "assistant: later"]


def _sent_tool_states(obs):
    return [p.state.value for e in obs.prompts[0] if isinstance(e, Message) for p in tool_parts(e)]


def test_m12_only_complete_calls_are_sent():
    """M12.3: results and errors are sent; pending calls and calls awaiting or answering an approval are not."""
    parts = [tool(f"tc{i}", s) for i, s in enumerate(("partial-call", "call", "approval-requested", "approval-responded"))]
    parts += [tool("tc8", "result", result="r"), tool("tc9", "output-error", error_text="e")]
    obs = run(scenario(user("u1", "hi", 10), assistant("a1", "text", *parts, created_at=20), user("u2", "go", 30)), Mode.RAW)
    assert sorted(_sent_tool_states(obs)) == ["output-error", "result"]


def test_m12_a_denied_call_is_sent_as_a_result_holding_the_reason():
    """M12.3: an output-denied call is sent as a result whose output is the approval's reason, else the default text."""
    from guardspec.model.values import obj

    for approval, text in (
        (obj(approved=False, reason="not now"), "not now"),
        (obj(approved=False), "Tool call was not approved by the user"),
    ):
        caller = assistant("a1", tool("tc1", "output-denied", approval=approval), created_at=20)
        obs = run(scenario(user("u1", "hi", 10), caller, user("u2", "go", 30)), Mode.RAW)
        (p,) = [p for e in obs.prompts[0] if isinstance(e, Message) for p in tool_parts(e)]
        assert p.state.value == "result"
        assert p.result == obj(type="text", value=text)


def test_m12_a_message_left_without_sendable_parts_is_not_sent():
    """M12.3: empty text parts are dropped, and an assistant message left empty is not sent."""
    empty = assistant("a1", "", tool("tc1", "call"), created_at=20)
    obs = run(scenario(user("u1", "hi", 10), empty, user("u2", "go", 30)), Mode.RAW)
    assert [e.id for e in obs.prompts[0] if isinstance(e, Message)] == ["u1", "u2"]


def test_m12_an_assistant_message_is_split_after_a_tool_part_followed_by_text():
    """M12.3: an assistant message is sent as several model messages after a tool part followed by another kind."""
    a1 = assistant("a1", "before", tool("tc1", "result", result="r"), "after", created_at=20)
    obs = run(scenario(user("u1", "hi", 10), a1, user("u2", "go", 30)), Mode.RAW)
    sent = [e for e in obs.prompts[0] if isinstance(e, Message) and e.role.value == "assistant"]
    assert [[type(p).__name__ for p in m.parts] for m in sent] == [["TextPart", "ToolPart"], ["TextPart"]]
    assert sent[1].text() == "after"


def test_m12_of_a_user_message_only_text_and_file_parts_are_sent():
    """M12.4: a user message sends its text and file parts only; one left with nothing is not sent."""
    from guardspec.model.messages import FilePart, ReasoningPart, Role, TextPart

    u1 = Message(
        "u1", Role.USER, (TextPart("hi"), ReasoningPart("thinking"), tool("tc1", "result", result="r"), FilePart("aGk=", "text/plain")), 10
    )
    only = Message("u0", Role.USER, (ReasoningPart("alone"),), 5)
    obs = run(scenario(only, u1), Mode.RAW)
    (sent,) = [e for e in obs.prompts[0] if isinstance(e, Message)]
    assert sent.id == "u1"
    assert [type(p).__name__ for p in sent.parts] == ["TextPart", "FilePart"]


def test_m12_a_merged_reply_is_stamped_on_the_list_after_the_thread_was_saved():
    """M12.14: when the reply merged into a trailing assistant, its parts are stamped after saving: the stored copy is not."""
    threads = stored(user("u1", "where am I?", 1000), assistant("a1", "let me check", tool("tc1", "call"), created_at=2000))
    caller = assistant("a1", tool("tc1", "result", result="Paris"), created_at=2000)
    obs = run(scenario(caller, threads=threads, reply="normal answer"), Mode.RAW)
    listed = list_message(obs, "a1")
    saved = next(m for m in obs.stored if m.id == "a1")
    assert all(p.created_at is not None for p in listed.parts)
    assert any(p.created_at is None for p in saved.parts)


# -- the same clause on scenarios written as the protocol's JSON; expected values are real Mastra
# 1.71.0's answers to them (docs/evidence/mastra.md) -------------------------------------------


# adapter runs (a processor adds a0 [text] as response with this metadata, no caller
# message, so the reply merges into a0; each loop, memory on): the merged message's metadata, list
# and stored alike, once the normalisation dropped Mastra's modelId/provider (None: none left)
# evidence: M12.12
@pytest.mark.parametrize(
    "metadata, merged",
    [
        ("ab", {"0": "a", "1": "b"}),
        (["x", "y"], {"0": "x", "1": "y"}),
        ([], None),
        (3, None),
        (True, None),
        (None, None),
        ("", None),
        ({"k": "v"}, {"k": "v"}),
        ({"$class": "K", "props": {"a": 1}}, {"a": 1}),
        ({"$class": "K"}, None),
        ({"a": {"$getter": "get-a", "value": "x"}}, {"a": "x"}),
        ({"$bigint": "5"}, None),
        ({"$function": "fn-a"}, None),
    ],
)
@pytest.mark.parametrize("loop", LOOP_NAMES)
def test_the_reply_merging_into_a_message_spreads_its_metadata(loop, metadata, merged):
    """M12.12: the reply merging into a message spreads that message's metadata, listed and stored alike."""
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": metadata}
    o = run_normalised(loop, [adds([a0], "response")])
    assert o["outcome"] == {"kind": "answered"}
    stored = o["stored"][0]
    assert stored["id"] == "a0" and len(stored["parts"]) == 2
    assert stored.get("metadata") == merged
    if loop != "durable":  # the durable loop reports no list
        assert o["list"]["messages"][0]["message"].get("metadata") == merged


# evidence: M12.12
@pytest.mark.parametrize("metadata, merged", [("ab", {"0": "a", "1": "b"}), (3, None), ({"$class": "K", "props": {"a": 1}}, {"a": 1})])
@pytest.mark.parametrize("loop", ["generate", "stream"])
def test_without_memory_the_merged_reply_spreads_the_listed_metadata_alike(loop, metadata, merged):
    """M12.12: without memory the listed message's metadata is spread alike."""
    a0 = {"id": "a0", "role": "assistant", "createdAt": 2, "parts": NOTE_PARTS, "metadata": metadata}
    o = run_normalised(loop, [adds([a0], "response")], memory=False)
    assert o["outcome"] == {"kind": "answered"}
    assert o["list"]["messages"][0]["message"].get("metadata") == merged
