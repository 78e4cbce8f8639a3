"""G10 What the policies read (S5)."""

import pytest
from conftest import scenario, stored, tool

from guardspec.model.agent import Allow
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, assistant, user
from guardspec.model.processors import AddMessages, AddSystem, ArrayOf, EditText, Processor, RemoveByIds, Return
from guardspec.model.scenario import Mode
from guardspec.model.values import obj
from guardspec.reference import run

INSTR = "INSTRUCTION TEXT"


def _read(*procs, messages=None, **kw):
    kw.setdefault("threads", stored(Message("h1", Role.USER, (TextPart("HISTORY ONE"), TextPart("HISTORY TWO")), 10)))
    msgs = messages or (user("u1", "CALLER TEXT", 30),)
    obs = run(scenario(*msgs, processors=procs, policies=(Allow("all"),), instructions=INSTR, **kw), Mode.GUARDED)
    assert obs.read is not None, obs.outcome
    return obs.read


def test_g10_caller_messages_are_read_whole():
    """G10.1: a caller message whose id memory does not hold is read whole."""
    read = _read(messages=(Message("u1", Role.USER, (TextPart("PART A"), TextPart("PART B")), 30),))
    assert "PART A" in read and "PART B" in read


def test_g10_unchanged_history_and_instructions_are_not_read():
    read = _read(Processor("p"))
    assert read == "CALLER TEXT"


def test_g10_added_system_message_is_read_with_its_provider_options():
    """G12.4, G12.5: an added system message reads its content, then its options through the closed table."""
    # Through Breakwater's closed table (G12.5): an Anthropic
    # citation is read as JSON, an unknown namespace is not.
    options = obj(anthropic=obj(citations="OPTION STRING"), x=obj(y="NOT READ"))
    read = _read(Processor("p", steps=(AddSystem(SystemMessage("ADDED SYSTEM", provider_options=options)),)))
    assert read == 'CALLER TEXT\nADDED SYSTEM\n"OPTION STRING"'


def test_g10_added_context_message_is_read():
    read = _read(Processor("p", steps=(AddMessages((user("c9", "CONTEXT ADDED", 40),), Source.CONTEXT),)))
    assert "CONTEXT ADDED" in read


def test_g10_rewritten_history_message_is_read_whole():
    read = _read(Processor("p", end=Return(ArrayOf(edits=(EditText("h1", "HISTORY EDITED"),)))))
    assert "HISTORY EDITED" in read and "HISTORY TWO" in read


def test_g10_caller_text_comes_first_and_additions_after():
    read = _read(Processor("p", steps=(AddSystem("ADDED SYSTEM"),)))
    assert read == "CALLER TEXT\nADDED SYSTEM"


def test_g10_removed_addition_is_still_read():
    read = _read(
        Processor("p1", steps=(AddMessages((user("c9", "GONE LATER", 40),), Source.CONTEXT),)),
        Processor("p2", steps=(RemoveByIds(("c9",)),)),
    )
    assert "GONE LATER" in read


def test_g10_of_a_memory_plus_input_message_only_the_recorded_outcome_is_read():
    """G10.1: of a memory+input message only the outcome parts the recorder saw are read."""
    threads = stored(
        user("u0", "where am I?", 1000),
        assistant("a1", "STORED TEXT", tool("tc0", "result", result="STORED RESULT"), tool("tc1", "call"), created_at=2000),
    )
    caller = assistant("a1", tool("tc1", "result", result="CALLER RESULT"), created_at=2000)
    read = _read(Processor("p"), messages=(caller, user("u2", "thanks", 3000)), threads=threads)
    assert "CALLER RESULT" in read
    assert "STORED TEXT" not in read and "STORED RESULT" not in read


def test_g10_moved_remembered_outcome_message_is_read_whole_stored_history_included():
    threads = stored(
        user("u0", "where am I?", 1000),
        assistant("a1", "STORED TEXT", tool("tc0", "result", result="STORED RESULT"), tool("tc1", "call"), created_at=2000),
    )
    caller = assistant("a1", tool("tc1", "result", result="CALLER RESULT"), created_at=2000)
    kept = assistant(
        "a1", "STORED TEXT", tool("tc0", "result", result="STORED RESULT"), tool("tc1", "result", result="CALLER RESULT"), created_at=2000
    )
    proc = Processor("p", steps=(RemoveByIds(("a1",)), AddMessages((kept,), Source.MEMORY)))
    read = _read(proc, messages=(caller, user("u2", "thanks", 3000)), threads=threads)
    assert "STORED TEXT" in read and "STORED RESULT" in read and "CALLER RESULT" in read


def test_g10_text_already_read_as_caller_input_is_not_read_again():
    """G10.4: an addition equal to a caller message already read is not read again."""
    read = _read(Processor("p", steps=(AddMessages((user("n1", "EXTRA INPUT", 40),)),)))
    assert read.count("EXTRA INPUT") == 1


def test_g10_a_message_whose_id_memory_holds_off_the_list_is_no_caller_message():
    """G10.1, G9.1: a message whose id memory holds off the list is no caller message, and is read as an addition."""
    # Breakwater asks the source checker by id (Evidence: G10.1): the
    # caller's a0 folds onto the stored a0 (memory+input), p1 clears the input (a0 leaves the list
    # and stays in the memory set, M5.2) and adds a system message, p2 adds a new a0 under
    # ``response``. That a0 is remembered by id, so it is read as p2's addition, after p1's:
    # measured on the Breakwater build (each loop).
    import json

    from guardspec.conformance.cases import model_observation

    a0 = {
        "id": "a0",
        "role": "assistant",
        "createdAt": 2,
        "parts": [
            {"type": "text", "text": "note-20"},
            {
                "type": "tool-invocation",
                "toolCallId": "tc1",
                "toolName": "nullmap",
                "state": "output-denied",
                "args": {"q": "note-30"},
                "approval": {"approved": True, "reason": "note-33"},
            },
        ],
    }
    caller = {**a0, "parts": a0["parts"][1:]}
    stored_a0 = {
        **a0,
        "threadId": "t1",
        "resourceId": "r1",
        "parts": [
            a0["parts"][0],
            {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "nullmap", "state": "call", "args": {"q": "note-30"}},
        ],
    }
    empty = {"return": {"array": {"base": "empty", "copy": "deep", "drop": [], "edits": [], "append": []}}}
    sj = {
        "guardspec": 1,
        "agent": {
            "allowedPrincipalKinds": ["human"],
            "memory": {"generateTitle": False},
            "policies": [{"kind": "denyPatterns", "name": "no-marker", "patterns": ["FORBIDDEN"]}],
            "clientTools": [{"name": "nullmap", "mapping": {"kind": "null", "prefix": "mapped:"}}],
            "processors": [
                {
                    "id": "p1",
                    "hooks": ["processInput"],
                    "steps": [{"op": "clearInput"}, {"op": "addSystem", "message": "note-16", "tag": None}],
                    "end": empty,
                },
                {
                    "id": "p2",
                    "hooks": ["processInput"],
                    "steps": [
                        {"op": "removeByIds", "ids": ["a0"]},
                        {"op": "add", "entries": [{**a0, "threadId": "t1", "resourceId": "r1"}], "source": "response", "merge": False},
                    ],
                    "end": empty,
                },
            ],
        },
        "call": {
            "loop": "generate",
            "messages": [caller],
            "actor": {"id": "alice", "role": "operator", "kind": "human"},
            "memory": {"thread": "t1", "resource": "r1"},
            "reply": "reply-0",
        },
        "threads": [
            {
                "id": "t1",
                "resource": "r1",
                "messages": [
                    {
                        "id": "u0",
                        "role": "user",
                        "createdAt": 1,
                        "threadId": "t1",
                        "resourceId": "r1",
                        "parts": [{"type": "text", "text": "note-16"}],
                    },
                    stored_a0,
                ],
            }
        ],
    }
    for loop in ("generate", "stream", "durable"):
        sj["call"]["loop"] = loop
        o = model_observation(json.loads(json.dumps(sj)), "guarded")
        assert o["outcome"] == {"kind": "answered"}, loop
        assert o["read"] == 'note-16\nnote-20\nnullmap\n{"q":"note-30"}\nnullmap\nnote-33', loop


def g9_by_id_scenario(loop: str, source: str) -> dict:
    """The caller's outcome for ``tc1`` folds onto the stored ``m0`` (memory+input); p1 clears the
    input (``m0`` leaves the list and stays in the memory set, M5.2); p2 adds a user message
    ``m0`` with the marker under ``source``."""
    stored = {
        "id": "m0",
        "role": "assistant",
        "createdAt": 10,
        "threadId": "t1",
        "resourceId": "r1",
        "parts": [
            {"type": "text", "text": "note-1"},
            {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "loc", "state": "call", "args": {"q": 1}},
        ],
    }
    caller = {
        "id": "m0",
        "role": "assistant",
        "createdAt": 10,
        "parts": [
            {"type": "tool-invocation", "toolCallId": "tc1", "toolName": "loc", "state": "result", "args": {"q": 1}, "result": "note-2"}
        ],
    }
    added = {"id": "m0", "role": "user", "createdAt": 12, "parts": [{"type": "text", "text": "note-3 FORBIDDEN"}]}
    same = {"return": "sameList"}
    return {
        "guardspec": 1,
        "agent": {
            "allowedPrincipalKinds": ["human"],
            "memory": {"generateTitle": False},
            "policies": [{"kind": "denyPatterns", "name": "no-marker", "patterns": ["FORBIDDEN"]}],
            "clientTools": [{"name": "loc", "mapping": {"kind": "text", "prefix": "mapped:"}}],
            "processors": [
                {"id": "p1", "hooks": ["processInput"], "steps": [{"op": "clearInput"}], "end": same},
                {
                    "id": "p2",
                    "hooks": ["processInput"],
                    "steps": [{"op": "add", "entries": [added], "source": source, "merge": False}],
                    "end": same,
                },
            ],
        },
        "call": {
            "loop": loop,
            "messages": [caller],
            "actor": {"id": "alice", "role": "operator", "kind": "human"},
            "memory": {"thread": "t1", "resource": "r1"},
            "reply": "reply-0",
        },
        "threads": [{"id": "t1", "resource": "r1", "messages": [stored]}],
    }


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
@pytest.mark.parametrize("source", ["input", "memory", "response", "context"])
def test_g9_a_message_under_an_id_memory_holds_off_the_list_is_an_addition(loop, source):
    """G9.1, G10.1: a message under an id memory holds, on the list or off it, is a prompt entry under any source."""
    # G9 and G10 ask the source checker alike (Evidence: G9.1): a message
    # whose id memory holds, on the list or off it, is no caller message (G10) and so is a prompt
    # entry, recorded when a processor adds it (G9), under any source, ``input`` included. Here
    # p2 adds ``m0`` with the marker after p1 cleared the remembered ``m0``: the policies read it
    # and refuse the call. Reading G9 by the slot's own sources left an input ``m0`` out of both,
    # and the marker reached the model unread (I4); measured on the Breakwater build, each loop
    # and source (scratch ``s21/g9hand.py``).
    import json

    from guardspec.conformance.cases import model_observation

    o = model_observation(json.loads(json.dumps(g9_by_id_scenario(loop, source))), "guarded")
    assert o["outcome"]["kind"] == "refused"
    assert "note-3 FORBIDDEN" in o["read"].split("\n")


@pytest.mark.parametrize("loop", ["generate", "stream", "durable"])
def test_g10_a_context_message_a_processor_adds_is_read_in_list_order_or_after_the_caller_on_durable(loop):
    """G10.2: generate and stream read an added context message among the caller messages in list order; durable after them."""
    from guardspec.model.scenario import Loop

    added = Processor("p", steps=(AddMessages((user("c9", "CONTEXT ADDED", 20),), Source.CONTEXT),))
    read = _read(added, loop=Loop(loop))
    assert read.count("CONTEXT ADDED") == 1
    before = read.index("CONTEXT ADDED") < read.index("CALLER TEXT")
    assert before is (loop != "durable"), read


def test_g10_the_calls_own_context_is_read_after_the_caller_messages():
    """G10.3: on durable an unchanged context message of the call is read whole, after the caller messages."""
    from guardspec.model.scenario import Loop

    read = _read(Processor("p"), context=(Message("x1", Role.USER, (TextPart("CTX ONE"), TextPart("CTX TWO")), 5),), loop=Loop.DURABLE)
    assert read == "CALLER TEXT\nCTX ONE\nCTX TWO"


def test_g10_a_context_message_a_processor_changed_is_read_as_an_addition():
    """G10.3: a context message of the call that a processor changed is read as that processor's addition."""
    from guardspec.model.scenario import Loop

    proc = Processor("p", end=Return(ArrayOf(edits=(EditText("x1", "CTX EDITED"),))))
    read = _read(proc, context=(user("x1", "CTX ORIGINAL", 5),), loop=Loop.DURABLE)
    assert "CTX EDITED" in read and "CTX ORIGINAL" not in read
    assert read.index("CALLER TEXT") < read.index("CTX EDITED")
