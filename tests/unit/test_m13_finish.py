"""M13 Finish: what is saved, the thread title, and the result."""

import pytest
from conftest import scenario, stored, stored_ids, stored_message, tool, tool_parts

from guardspec.model.agent import Memory
from guardspec.model.messages import assistant, user
from guardspec.model.scenario import Mode
from guardspec.reference import run


def test_m13_input_then_response_messages_are_saved_to_the_thread():
    obs = run(scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10))), Mode.RAW)
    assert stored_ids(obs) == ["h1", "u1", "reply-1"]
    assert stored_message(obs, "reply-1").text() == "ok"


def test_m13_context_and_memory_only_messages_are_not_saved_again():
    obs = run(
        scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10)), context=(user("c1", "ctx", 20),)),
        Mode.RAW,
    )
    assert stored_ids(obs) == ["h1", "u1", "reply-1"]


def test_m13_title_is_generated_from_every_thread_message_on_the_list():
    """M13.8: the title transcript has a line for the thread's history and input texts."""
    obs = run(scenario(user("u1", "hello there", 30), threads=stored(user("h1", "old question", 10)), memory=Memory(True)), Mode.RAW)
    assert obs.title
    assert "old question" in obs.title and "hello there" in obs.title


def test_m13_existing_title_is_kept():
    obs = run(scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10), title="Existing"), memory=Memory(True)), Mode.RAW)
    assert obs.title == "Existing"


def test_m13_no_title_when_generation_is_off():
    obs = run(scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10))), Mode.RAW)
    assert obs.title == ""


def test_m13_result_messages_are_every_non_system_message_and_remembered_the_memory_set():
    obs = run(
        scenario(user("u1", "hi", 30), threads=stored(user("h1", "old", 10)), context=(user("c1", "ctx", 20),)),
        Mode.RAW,
    )
    assert obs.result.messages == ("h1", "c1", "u1", "reply-1")
    assert obs.result.remembered == ("h1",)


def test_m13_partial_call_parts_are_not_saved():
    """M13.2: generate drops partial-call parts and leaves out a message left with no parts."""
    caller = assistant("a0", "thinking", tool("tc9", "partial-call"), created_at=20)
    only_partial = assistant("a1", tool("tc8", "partial-call"), created_at=25)
    obs = run(scenario(caller, user("u2", "go", 26), only_partial, memory=True), Mode.RAW)
    assert tool_parts(stored_message(obs, "a0")) == []
    assert "a1" not in stored_ids(obs)


def test_m13_a_stored_image_part_is_a_file_part():
    """M2.2, M13.10: storage holds image parts of seeded and saved messages as file parts."""
    # Measured (Evidence: M2.2, M13.10): Mastra's storage holds the stored format, where
    # an image part is a file part; the caller's image part is saved as a file part too.
    from conftest import scenario as _scenario
    from conftest import stored as _stored

    from guardspec.model.messages import FilePart, ImagePart, Message, Role
    from guardspec.model.scenario import Mode as _Mode
    from guardspec.reference import run as _run

    h = Message("h1", Role.USER, parts=(ImagePart("aGk=", "image/png", created_at=3),), created_at=1)
    c = Message("c1", Role.USER, parts=(ImagePart("aGk=", "image/png"),), created_at=30)
    obs = _run(_scenario(c, threads=_stored(h)), _Mode.RAW)
    kinds = {m.id: [type(p) for p in m.parts] for m in obs.stored}
    assert kinds["h1"] == [FilePart] and kinds["c1"] == [FilePart]
    assert obs.stored[0].parts[0] == FilePart("aGk=", "image/png", created_at=3)


@pytest.mark.parametrize(
    "loop, outcome, finish",
    [
        (
            "generate",
            'AI_MessageConversionError: ToolInvocation must have a result: {"state":"approval-requested","toolCallId":"tc1","toolName":"nullmap","args":{"q":"note-17"}}',
            None,
        ),
        (
            "durable",
            'Error: ToolInvocation must have a result: {"state":"approval-requested","toolCallId":"tc1","toolName":"nullmap","args":{"q":"note-17"}}',
            None,
        ),
        ("stream", None, "error"),
    ],
)
def test_m13_read_back_throws_at_a_response_tool_call_awaiting_approval(loop, outcome, finish):
    """M13.6: the read-back throws at an assistant's approval-requested part; stream resolves with error."""
    # Measured (Evidence: M13.6): with memory, the result text read-back converts
    # the response messages with AI SDK v4, which throws at an ``approval-requested`` part.
    from guardspec.model.messages import Source
    from guardspec.model.observation import Answered, Failed
    from guardspec.model.processors import AddMessages, Processor
    from guardspec.model.scenario import Loop
    from guardspec.model.values import obj

    n2 = assistant("n2", tool("tc1", "approval-requested", name="nullmap", args=obj(q="note-17")), created_at=20)
    p = Processor("p1", steps=(AddMessages((n2,), Source.RESPONSE, False), AddMessages((user("u5", "q", 21),), Source.INPUT, False)))
    obs = run(scenario(user("c00", "hi", 10), processors=(p,), memory=Memory(), loop=Loop(loop), reply="reply-0"), Mode.RAW)
    if outcome:
        assert obs.outcome == Failed(outcome)
    else:
        assert obs.outcome == Answered() and obs.result.finish_reason == finish and obs.result.text == "reply-0"


@pytest.mark.parametrize(
    "loop, error",
    [
        ("generate", "DOWNLOAD_ASSETS_FAILED"),
        ("stream", "DOWNLOAD_ASSETS_FAILED"),
        ("durable", "Error: Failed to download asset: nullimage/png;base64,note-00"),
    ],
)
def test_m12_file_data_that_is_not_base64_fails_before_the_model(loop, error):
    """M12.10: wrapped data that is not base64 fails the download: no model call, an error response saved."""
    # Measured (Evidence: M12.10): the user message's file data is fetched as
    # ``data:image/png;base64,note-00``, which is not base64: no model call, an error part is added
    # as the response and the turn is saved.
    from guardspec.model.messages import FilePart, Message, Role, TextPart
    from guardspec.model.observation import Failed
    from guardspec.model.scenario import Loop

    c = Message("c00", Role.USER, parts=(TextPart("hi"), FilePart("note-00", "image/png")), created_at=10)
    obs = run(scenario(c, memory=Memory(), loop=Loop(loop)), Mode.RAW)
    assert obs.outcome == Failed(error)
    assert obs.prompts == ()
    assert [[getattr(p, "text", None) for p in m.parts] for m in obs.stored] == [["hi", None], ["<mastra part error>"]]


@pytest.mark.parametrize("data", ["aGk", "aGk=", "aG k=", "aGk%3D", ""])
def test_m12_file_data_that_is_base64_is_sent(data):
    """M12.10: wrapped data whose payload, percent-decoded, is forgiving base64 downloads, and the model is called."""
    from guardspec.model.messages import FilePart, Message, Role, TextPart
    from guardspec.model.observation import Answered

    c = Message("c00", Role.USER, parts=(TextPart("hi"), FilePart(data, "image/png")), created_at=10)
    obs = run(scenario(c), Mode.RAW)
    assert obs.outcome == Answered() and len(obs.prompts) == 1


def test_m13_durable_keeps_a_user_messages_partial_call_parts():
    """M13.2: durable keeps a user message's partial-call part, generate drops it."""
    # Measured (Evidence: M13.2): caller ``c00 [text, tool(partial-call)]``
    # is stored with both parts on durable, with the text only on generate.
    from guardspec.model.messages import Message, Role, TextPart
    from guardspec.model.scenario import Loop

    c = Message("c00", Role.USER, parts=(TextPart("hi"), tool("tc1", "partial-call")), created_at=10)
    kinds = {}
    for loop in (Loop.DURABLE, Loop.GENERATE):
        obs = run(scenario(c, memory=Memory(), loop=loop), Mode.RAW)
        kinds[loop] = [type(p).__name__ for p in next(m for m in obs.stored if m.id == "c00").parts]
    assert kinds == {Loop.DURABLE: ["TextPart", "ToolPart"], Loop.GENERATE: ["TextPart"]}
