"""M12 Model step: the prompt, and the scripted reply added as a response message."""

from guardspec.model.messages import Message, assistant, user
from guardspec.model.processors import AddSystem, Processor
from guardspec.model.scenario import Mode
from guardspec.reference import run

from conftest import list_message, list_sources, prompt_lines, scenario, stored, tool, tool_parts


def test_m12_prompt_is_system_messages_then_messages_by_created_at():
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
    """mastra-facts §3: after a client tool result, the reply is appended to a1, which moves
    from {memory, input} to response and drops out of rememberedMessages."""
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
    """Measured (docs/mastra-measurements.md §k, probe k-part-provider-options): a stored-format text part's
    providerOptions never reach the prompt, whatever the namespace (null, ``note``, ``openai``)."""
    from guardspec.model.messages import Role, TextPart
    from guardspec.model.values import UNDEFINED, obj

    m = Message("u1", Role.USER, parts=(TextPart("hi", obj(openai=obj(x=1))),), created_at=10)
    obs = run(scenario(m), Mode.RAW)
    sent = obs.prompts[0][-1]
    assert [(p.text, p.provider_options) for p in sent.parts] == [("hi", UNDEFINED)]


def test_m12_generate_re_adds_earlier_response_messages_too():
    """Measured (docs/mastra-measurements.md §k): on generate as on stream, a response
    assistant message a processor added merges into the reply: parts [reply, added]."""
    from guardspec.model.messages import Source
    from guardspec.model.processors import AddMessages

    added = assistant("n2", "added", created_at=20)
    p = Processor("p1", steps=(AddMessages((added,), Source.RESPONSE, False), AddMessages((user("u5", "q", 21),), Source.INPUT, False)))
    obs = run(scenario(user("c00", "hi", 10), processors=(p,), reply="reply-0"), Mode.RAW)
    reply = obs.list.messages[-1].message
    assert [pt.text for pt in reply.parts] == ["reply-0", "added"]


def test_m12_result_text_concatenates_a_null_or_undefined_text_as_javascript_does():
    """docs/breakwater-measurements.md §17 (measured on Mastra 1.71.0 raw with memory, and on
    Breakwater, which reads the text back on every loop): the reply merged into the caller's
    trailing assistant message whose text is null reads ``"nullreply"``, undefined
    ``"undefinedreply"``; a string as itself."""
    from guardspec.model.messages import Role, TextPart
    from guardspec.model.values import UNDEFINED

    threads = stored(user("u0", "hi", 1))
    for text, expected in ((None, "nullreply"), (UNDEFINED, "undefinedreply"), ("abc", "abcreply")):
        caller = Message("c0", Role.ASSISTANT, (TextPart(text),), 10)
        assert run(scenario(caller, threads=threads, reply="reply"), Mode.RAW).result.text == expected
        assert run(scenario(caller, reply="reply"), Mode.GUARDED).result.text == expected
