"""I4 judges what the model receives with its own reading (properties/invariants/rendering.py),
written from SPEC M11/M12 and the measurements, not with the reference's: the two holes that
reading shared with the reference are found on hand-built observations, and the
invariants import nothing from ``guardspec.reference``."""

import ast
import subprocess
import sys
from pathlib import Path

from attrs import evolve

from guardspec.model.agent import Agent, ClientTool, DenyPatterns, Mapping, Memory, MemoryBinding, Thread, ThreadStore
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import Answered, ListMessage, ListView, Observation, Refused
from guardspec.model.processors import AddMessages, AddSystem, Processor, RemoveByIds, ReplaceAllSystem, Return, SameList
from guardspec.model.scenario import Call, Loop, Mode, Scenario
from guardspec.model.values import UNDEFINED, obj
from guardspec.properties import invariants as inv
from guardspec.properties.harness import check_call, execute
from guardspec.properties.invariants import rendering as R
from guardspec.properties.strategies import ACTOR

POLICY = DenyPatterns("no-marker", ("FORBIDDEN",))
INSTRUCTIONS = SystemMessage("You are a guarded agent.")
C0 = Message("c00", Role.USER, (TextPart("hi"),), created_at=10)
LOOKUP = ClientTool("lookup", Mapping("text", "mapped:"))


def _call(memory=None, loop=Loop.GENERATE):
    return Call(loop=loop, messages=(C0,), actor=ACTOR, memory=memory, reply="r", context=(), now=1000)


# -- the rendering, from the measurements ------------------------------------------------------


def test_i4_system_content_of_text_parts_reaches_the_model_as_one_text():
    # measured on @mastra/core 1.71.0: content [FORB, IDDEN] reaches the model as "FORBIDDEN"
    assert R.system_text(SystemMessage((TextPart("FORB"), TextPart("IDDEN")))) == "FORBIDDEN"
    assert R.system_text(SystemMessage((obj(type="text", text="a "), obj(type="text", text="b")))) == "a b"
    assert R.system_text(SystemMessage("FORB\nIDDEN")) == "FORB\nIDDEN"


def test_i4_tool_parts_render_as_sent():
    mapped = obj(type="text", value='mapped:{"answer":"note-03"}')
    cached = ToolPart(
        "tc9",
        "lookup",
        ToolState.RESULT,
        args=obj(q="note-02"),
        result=obj(answer="note-03"),
        provider_metadata=obj(mastra=obj(modelOutput=mapped)),
    )
    assert [t.value for t in R.part_texts(cached)] == [obj(q="note-02"), 'mapped:{"answer":"note-03"}']
    denied = ToolPart("tc1", "lookup", ToolState.OUTPUT_DENIED, args=obj(q="x"), approval=obj(approved=False))
    assert [t.value for t in R.part_texts(denied)][1] == "Tool call was not approved by the user"
    pending = ToolPart("tc1", "lookup", ToolState.CALL, args=obj(q="x"))
    assert [t.value for t in R.part_texts(pending)] == [obj(q="x")]


def test_i4_a_text_counts_as_read_raw_or_inside_json():
    assert R.is_read('{"type":"text","value":"mapped:{\\"a\\":1}"}', R.Text('mapped:{"a":1}'))
    assert R.is_read('{"q":"x"}', R.Text(obj(q="x")))
    assert not R.is_read('{"q":"y"}', R.Text(obj(q="x")))
    assert R.is_read("hello", R.Text("aGVsbG8=", data=True))  # a text file's base64 data, read decoded
    assert not R.is_read(None, R.Text("x"))


# -- hole (a): a system message split over two text parts -------------------------------------


# an object (not null) experimental_providerMetadata keeps the parts; null is not classified (G12.5)
SPLIT = SystemMessage((TextPart("FORB"), TextPart("IDDEN")), UNDEFINED, obj())


def _split_scenario(step=AddSystem(SPLIT, None)):
    agent = Agent(policies=(POLICY,), processors=(Processor("p1", (step,), Return(SameList())),), client_tools=(LOOKUP,))
    return Scenario(agent, _call(), ThreadStore())


def test_i4_finds_a_split_system_text_the_policies_read_apart():
    sc = _split_scenario()
    obs = Observation(Answered(), prompts=((INSTRUCTIONS, SPLIT, C0),), read="hi\nFORB\nIDDEN")
    v = inv.prompt_entries_are_known_or_read(sc, obs, obs.read)
    assert len(v) == 1 and "FORBIDDEN'" in v[0]
    stages = (
        ("memory processors", ListView((ListMessage(C0, (Source.INPUT,)),), (INSTRUCTIONS,))),
        ("processor p1", ListView((ListMessage(C0, (Source.INPUT,)),), (INSTRUCTIONS, SPLIT))),
    )
    assert any("'FORBIDDEN'" in x for x in inv.additions_are_read(sc, obs.read, stages))
    # read as the model receives it: nothing to report
    assert not inv.nothing_reaches_model_unread(sc, obs, "hi\nFORBIDDEN", stages)


def test_i4_on_the_split_system_scenario_agrees_with_what_was_read():
    """On the reference: either the policies read the text as the model receives it (and deny
    it), or I4 reports the split text (the reference's G12.4 reading decides which)."""
    for step in (AddSystem(SPLIT, None), ReplaceAllSystem((SystemMessage((TextPart("FORB"), TextPart("IDDEN"))),))):
        ex = execute(_split_scenario(step), Mode.GUARDED)
        found = check_call(ex).get("I4 nothing_reaches_model_unread")
        if "FORBIDDEN" in (ex.read or ""):
            assert isinstance(ex.observation.outcome, Refused) and not found
        else:
            assert ex.observation.prompts and found and "'FORBIDDEN'" in found[0]


# -- hole (b): a tool result re-added under a history id with source input --------------------


T = dict(thread_id="t1", resource_id="r1")
RAW = ToolPart("tc9", "lookup", ToolState.RESULT, args=obj(q="note-02"), result=obj(answer="note-03"))
A9 = Message("a9", Role.ASSISTANT, (RAW,), created_at=3, **T)
MAPPED = obj(type="text", value='mapped:{"answer":"note-03"}')
A9_SENT = Message(
    "a9",
    Role.ASSISTANT,
    (
        ToolPart(
            "tc9",
            "lookup",
            ToolState.RESULT,
            args=obj(q="note-02"),
            result=MAPPED,
            provider_metadata=obj(mastra=obj(modelOutputComputed=True, modelOutput=MAPPED)),
        ),
    ),
    created_at=3,
    **T,
)


def _history_scenario():
    moved = Processor("p1", (RemoveByIds(("a9",)), AddMessages((A9,), Source.INPUT, False)), Return(SameList()))
    agent = Agent(policies=(POLICY,), processors=(moved,), client_tools=(LOOKUP,), memory=Memory())
    return Scenario(agent, _call(MemoryBinding("t1", "r1")), ThreadStore((Thread("t1", "r1", (A9,)),)))


def test_i4_finds_a_mapped_history_output_the_policies_read_raw():
    sc = _history_scenario()
    raw_read = 'hi\n{"q":"note-02"}\n{"answer":"note-03"}'
    obs = Observation(Answered(), prompts=((INSTRUCTIONS, A9_SENT, C0),), read=raw_read)
    v = inv.prompt_entries_are_known_or_read(sc, obs, raw_read)
    assert len(v) == 1 and "mapped:" in v[0] and "'a9'" in v[0]
    # the stored copy, sent back as stored, is known history; the mapped one must be read
    assert not inv.prompt_entries_are_known_or_read(sc, Observation(Answered(), prompts=((INSTRUCTIONS, A9, C0),)), "hi")
    mapped_read = 'hi\n{"q":"note-02"}\n{"type":"text","value":"mapped:{\\"answer\\":\\"note-03\\"}"}'
    assert not inv.prompt_entries_are_known_or_read(sc, obs, mapped_read)


def test_i4_finds_a_prompt_message_metadata_the_policies_never_read():
    """A prompt message is {role, content} (M12.5); metadata that did reach the model would have
    to be read, unless the stored message sends it back as it was."""
    sc = _history_scenario()
    c0_meta = Message("c00", Role.USER, (TextPart("hi"),), created_at=10, metadata=obj(note="note-07"))
    obs = Observation(Answered(), prompts=((INSTRUCTIONS, A9, c0_meta),))
    v = inv.prompt_entries_are_known_or_read(sc, obs, "hi")
    assert v == ["I4: prompt[0] message 'c00' metadata: texts ['note-07'] not in the policies' read"]
    assert not inv.prompt_entries_are_known_or_read(sc, obs, "hi\nnote-07")
    stored = evolve(A9, metadata=obj(tag="note-08"))
    sc2 = evolve(sc, threads=ThreadStore((Thread("t1", "r1", (stored,)),)))
    assert not inv.prompt_entries_are_known_or_read(sc2, Observation(Answered(), prompts=((INSTRUCTIONS, stored, C0),)), "hi")


def test_i4_on_the_history_input_scenario_agrees_with_what_was_read():
    ex = execute(_history_scenario(), Mode.GUARDED)
    found = check_call(ex).get("I4 nothing_reaches_model_unread")
    sent = [p for e in ex.observation.prompts[0] if isinstance(e, Message) and e.id == "a9" for p in e.parts]
    assert [R.sent_output(p) for p in sent] == [MAPPED]  # M11: an input message's result is mapped
    assert bool(found) == ("mapped:" not in (ex.read or ""))


# -- layering ----------------------------------------------------------------------------------


INVARIANTS = Path(inv.__file__).parent


def test_layering_invariants_import_nothing_from_the_reference():
    offenders = {}
    for path in INVARIANTS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            bad = [n for n in names if n.startswith("guardspec.reference") or (isinstance(node, ast.ImportFrom) and node.level > 1)]
            if bad:
                offenders.setdefault(path.name, []).extend(bad)
    assert len(list(INVARIANTS.glob("*.py"))) >= 8
    assert offenders == {}


def test_layering_importing_the_invariants_loads_no_reference_module():
    code = "import sys, guardspec.properties.invariants\nprint(sorted(m for m in sys.modules if m.startswith('guardspec.reference')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
