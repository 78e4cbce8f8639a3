"""M13 Finish, the thread title: the transcript it is made from and when none is made. Expected
values are real Mastra 1.71.0's answers to the same scenarios (docs/evidence/mastra.md)."""

import pytest
from raw_json import BIGINT_5, FUNCTION, NOTE_PART, OPERATOR, UNDEFINED_JSON, message, observe_with_memory

from guardspec.conformance.cases import model_observation

A9 = {
    "id": "a9",
    "role": "assistant",
    "createdAt": 3,
    "threadId": "t1",
    "resourceId": "r1",
    "parts": [
        {
            "type": "tool-invocation",
            "toolCallId": "tc9",
            "toolName": "nullmap",
            "state": "result",
            "args": {"q": "note-04"},
            "result": {"answer": "note-03"},
        }
    ],
}


TITLE = 'User: note-26\nAssistant: note-31\nTool Result nullmap: {"answer":"note-03"}\nAssistant: reply-0'


def _title_scenario(loop):
    """A processor adds a0 as a response message; the thread has
    no title yet."""
    a0 = {
        "id": "a0",
        "role": "assistant",
        "createdAt": 2,
        "threadId": "t1",
        "resourceId": "r1",
        "parts": [{"type": "text", "text": "note-31"}],
    }
    u0 = {"id": "u0", "role": "user", "createdAt": 1, "threadId": "t1", "resourceId": "r1", "parts": [{"type": "text", "text": "note-26"}]}
    p = {"id": "p2", "steps": [{"op": "add", "entries": [a0], "source": "response", "merge": False}], "end": {"return": {"primitive": ""}}}
    return {
        "guardspec": 1,
        "agent": {"processors": [p], "memory": {"generateTitle": True}},
        "call": {"actor": OPERATOR, "loop": loop, "messages": [], "memory": {"thread": "t1", "resource": "r1"}, "reply": "reply-0"},
        "threads": [{"id": "t1", "resource": "r1", "messages": [u0, A9], "title": ""}],
    }


# evidence: M13.9
@pytest.mark.parametrize("loop, tail", [("generate", "\nAssistant: note-31"), ("stream", "\nAssistant: note-31"), ("durable", "")])
def test_the_title_is_made_after_the_earlier_responses_are_added_again(loop, tail):
    """M13.9: generate and stream make the title from the list after re-adding the earlier responses; durable re-adds none."""
    # measured titles (adapter runs of a shrunk scenario on each loop): generate and stream end
    # with the re-added a0's text merged into the reply message, durable does not re-add
    assert model_observation(_title_scenario(loop), "raw")["title"] == TITLE + tail


# evidence: M13.8
def test_title_lines_of_file_only_messages_and_the_trimmed_title():
    """M13.8: a message of file parts only gives an empty transcript line, and the title is trimmed."""
    # adapter runs: [file, file] → "User: \nAssistant: reply-0"; [file, text] → "User: hello\n…";
    # durable download failure of a user message with an image only → "User:" (the error part
    # gives no line; the title is trimmed)
    f = {"type": "file", "data": "aGk=", "mediaType": "text/plain"}
    assert observe_with_memory("generate", [message("c00", "user", 10, [f, f])], title=True)["title"] == "User: \nAssistant: reply-0"
    assert (
        observe_with_memory("generate", [message("c00", "user", 10, [f, {"type": "text", "text": "hello"}])], title=True)["title"]
        == "User: hello\nAssistant: reply-0"
    )
    img = {"type": "image", "data": "note-25", "mediaType": "image/png"}
    o = observe_with_memory("durable", [message("c00", "user", 10, [img])], title=True)
    assert o["outcome"]["kind"] == "failed" and o["title"] == "User:"


# evidence: M13.9
@pytest.mark.parametrize("end, outcome", [({"abort": "reason-9"}, "refused"), ({"return": "sameList"}, "failed")])
def test_no_durable_title_when_the_read_back_throws(end, outcome):
    """M13.9: the durable loop saves but gives no title when the result text read-back throws."""
    # a processor adds a0 [text, approval-responded call] as a
    # response message; durable, titles on: real Mastra saves but gives no title (refused, and
    # failed with `Error: ToolInvocation must have a result`)
    a0 = message(
        "a0",
        "assistant",
        2,
        [
            NOTE_PART,
            {
                "type": "tool-invocation",
                "toolCallId": "tc1",
                "toolName": "broken",
                "state": "approval-responded",
                "args": {"q": "note-29"},
                "approval": {"approved": False, "reason": "FORBIDDEN-08"},
            },
        ],
        True,
    )
    p = {"id": "p1", "steps": [{"op": "add", "entries": [a0], "source": "response", "merge": False}], "end": end}
    o = observe_with_memory(
        "durable",
        [message("c00", "user", 10, [{"type": "text", "text": "note-11"}])],
        [message("u0", "user", 1, [{"type": "text", "text": "note-27"}], True)],
        processors=[p],
        title=True,
    )
    assert o["outcome"]["kind"] == outcome and o["title"] == ""


# adapter runs (durable, titles on, caller ["hi", c01 [text <value>]] with c01
# dated before "hi"), user and assistant alike
# evidence: M13.8
@pytest.mark.parametrize(
    "text, line",
    [
        ({}, "[object Object]"),
        ({"a": 1}, "[object Object]"),
        (["a", None, 2], "a,,2"),
        (1, "1"),
        (True, "true"),
        ({"$number": "NaN"}, "NaN"),
        (BIGINT_5, "5"),
        (FUNCTION, "function () { return undefined; }"),
        ({"$class": "K"}, "[object Object]"),
        ({"a": {"$getter": "get-a", "value": "x"}}, "[object Object]"),
        (None, "null"),
        (UNDEFINED_JSON, "undefined"),
    ],
)
def test_a_title_line_shows_a_text_as_javascript_string_does(text, line):
    """M13.8: a transcript line shows a text that is no string as JavaScript's String() does."""
    msgs = ["hi", message("c01", "assistant", 5, [{"type": "text", "text": text}])]
    o = observe_with_memory("durable", msgs, title=True)
    assert o["title"].split("\n")[:2] == [f"Assistant: {line}", "User: hi"]


# evidence: M13.9
def test_a_symbol_text_leaves_the_thread_without_title():
    """M13.9: a symbol text fails the call, and the thread gets no title."""
    # the same run with text Symbol(s): the call fails (M12.9) and the thread gets no title
    o = observe_with_memory("durable", ["hi", message("c01", "user", 5, [{"type": "text", "text": {"$symbol": "s"}}])], title=True)
    assert o["outcome"]["kind"] == "failed" and o["title"] == ""


def _tool_part(state, **values):
    return {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "plain", "state": state, **values}


# adapter runs (durable, titles on, caller ["hi", c01 [text, <tool part>]]): a line whose value
# JSON.stringify writes as undefined, or cannot write, leaves the thread without a title
# evidence: M13.8
@pytest.mark.parametrize(
    "part",
    [
        _tool_part("result"),
        _tool_part("result", result=FUNCTION),
        _tool_part("result", result={"$symbol": "s"}),
        _tool_part("result", result=BIGINT_5),
        _tool_part("output-error", errorText=UNDEFINED_JSON),
        _tool_part("approval-requested", approval={"id": "ap1"}),
        _tool_part("approval-requested", args=FUNCTION, approval={"id": "ap1"}),
    ],
)
def test_a_line_value_json_cannot_write_leaves_the_thread_without_title(part):
    """M13.8: a result or args value JSON writes as undefined, or cannot write, fails the title generation."""
    msgs = ["hi", message("c01", "assistant", 5, [NOTE_PART, part])]
    o = observe_with_memory("durable", msgs, processors=[{"id": "p1", "steps": [], "end": {"tripwire": "reason-4"}}], title=True)
    assert o["outcome"]["kind"] == "refused" and o["title"] == ""


# evidence: M13.8
@pytest.mark.parametrize(
    "part, line",
    [
        (_tool_part("result", result=None), "Tool Result plain: null"),
        (_tool_part("result", result={"a": UNDEFINED_JSON}), "Tool Result plain: {}"),
        (_tool_part("approval-requested", args={"q": "x"}, approval={"id": "ap1"}), 'Tool Call plain: {"q":"x"}'),
    ],
)
def test_a_line_value_json_writes_is_shown(part, line):
    """M13.8: null, and an object whose undefined property JSON leaves out, give their JSON."""
    msgs = ["hi", message("c01", "assistant", 5, [NOTE_PART, part])]
    o = observe_with_memory("durable", msgs, processors=[{"id": "p1", "steps": [], "end": {"tripwire": "reason-4"}}], title=True)
    assert o["title"].split("\n")[:3] == ["Assistant: note-09", line, "User: hi"]


# adapter runs: durable, thread t1 with an empty resource, titles on
# evidence: M7.1
def test_a_durable_call_bound_without_a_resource_saves_and_titles_nothing():
    """M7.1: on durable a binding without a resource still saves the turn, and makes no title."""
    o = observe_with_memory("durable", ["note-30"], title=True, binding=("t1", ""))
    assert o["outcome"]["kind"] == "answered"
    assert [p["text"] for m in o["stored"] for p in m["parts"]] == ["note-30", "reply-0"]
    assert o["title"] == ""
    with_resource = observe_with_memory("durable", ["note-30"], title=True)
    assert with_resource["title"] == "User: note-30\nAssistant: reply-0"
