"""Processors of the language: in-place steps (moves included), returned values, endings."""

from __future__ import annotations

from itertools import pairwise

from attrs import evolve
from hypothesis import strategies as st

from guardspec.model.messages import Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.processors import (
    MISSING,
    PROCESS_INPUT,
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    AddMessages,
    AddSystem,
    ArrayOf,
    ClearInput,
    EditMessage,
    EditSystem,
    EditText,
    ObjectOf,
    OtherList,
    Primitive,
    Processor,
    RemoveByIds,
    ReplaceAllSystem,
    Return,
    SameList,
    SetId,
    SetRole,
    Throw,
    ThrowTripWire,
)
from guardspec.model.values import UNDEFINED, JsFunction, obj

from .messages import entries, messages, system_messages
from .swarms import DEFAULT, END_KINDS, Swarm
from .threads import Fixture, folded, user
from .values import js_values, notes, provider_options, texts


@st.composite
def steps(draw, swarm: Swarm, fixture: Fixture) -> tuple:
    """One in-place step (sometimes two, for a move: remove then re-add)."""
    kinds = sorted(swarm.steps - ({"move_carrier"} if fixture.outcome is None else set()))
    if not kinds:
        return ()
    kind = draw(st.sampled_from(kinds))
    ids = st.sampled_from(["u0", "a0", "c00", "c01", "n1", "a9"])
    if kind == "add":
        es = tuple(draw(st.lists(entries(swarm), min_size=1, max_size=2)))
        return (AddMessages(es, draw(st.sampled_from(list(Source))), draw(st.sampled_from([None, False, True]))),)
    if kind == "remove":
        return (RemoveByIds(tuple(draw(st.lists(ids, min_size=1, max_size=2)))),)
    if kind == "add_system":
        msg = draw(system_messages(swarm) if swarm.odd_system else st.one_of(texts(swarm), system_messages(swarm)))
        return (AddSystem(msg, draw(st.sampled_from([None, None, "tag-a"]))),)
    if kind == "replace_system":
        db = messages(swarm, roles=(Role.SYSTEM,))
        return (ReplaceAllSystem(tuple(draw(st.lists(st.one_of(system_messages(swarm), db), max_size=2)))),)
    if kind == "clear_input":
        return (ClearInput(),)
    if kind == "edit_system":
        f = draw(st.sampled_from(["content", "providerOptions", "providerOptions", "experimental_providerMetadata"]))
        options = provider_options(swarm) if swarm.breakwater_shapes else st.builds(lambda t: obj(note=t), texts(swarm))
        value = draw(texts(swarm)) if f == "content" else draw(options)
        # a quarter of the content edits of reaching calls (which G8 refuses), half otherwise
        if f == "content" and swarm.system_non_text_parts and draw(st.integers(0, 3 if swarm.reaching else 1)) == 0:
            value = (obj(type="text", text=value), obj(type="image", image="aGk="))  # not text alone (G8)
        if f != "content" and swarm.unclonable_system_options and draw(st.integers(0, 5)) == 0:
            value = obj(note=draw(notes), hook=JsFunction("fn-a"))  # not clonable (G8)
        if swarm.weird_values and draw(st.integers(0, 3)) == 0:
            value = draw(js_values)
        index = 0 if swarm.reaching else draw(st.sampled_from([0, 0, 0, 1]))  # the instructions are there
        return (EditSystem(index, f, value),)
    if kind == "edit_message":
        known = [i for i in fixture.present if i in ("u0", "a0", "c00")] if swarm.reaching else []
        return (EditMessage(draw(st.sampled_from(known or ["u0", "a0", "c00", "n1"])), draw(texts(swarm))),)
    if kind == "move_carrier":
        a0 = next(m for m in fixture.stored if m.id == "a0")
        exact = folded(a0, fixture.outcome)
        copy = exact if draw(st.booleans()) else evolve(exact, parts=exact.parts + (TextPart(draw(texts(swarm))),))
        src = draw(st.sampled_from([Source.MEMORY, Source.MEMORY, Source.CONTEXT, Source.RESPONSE]))
        return (RemoveByIds(("a0",)), AddMessages((copy,), src, False))
    if kind == "move_history":
        # remove a stored message and re-add it unchanged under another source: its fingerprint
        # is unchanged, only G13's source-based removals can take it away on a refusal
        if not fixture.stored:
            return ()
        m = draw(st.sampled_from(fixture.stored))
        src = draw(st.sampled_from([Source.RESPONSE, Source.RESPONSE, Source.CONTEXT, Source.INPUT, Source.MEMORY]))
        return (RemoveByIds((m.id,)), AddMessages((m,), src, False))
    if kind == "readd_result":
        # a stored tool result re-added under its history id with source input: M11 maps it, so
        # the model receives the mapped output, which the policies must read (G11.3, I4)
        done = [m for m in fixture.stored if any(isinstance(p, ToolPart) and p.state is ToolState.RESULT for p in m.parts or ())]
        if not done:
            return ()
        m = draw(st.sampled_from(done))
        return (RemoveByIds((m.id,)), AddMessages((m,), Source.INPUT, False))
    assert kind == "move_text"
    text = draw(texts(swarm))
    where = draw(st.sampled_from(["memory", "context", "system", "response"]))
    drop = ClearInput() if draw(st.booleans()) else RemoveByIds(("c00",))
    if where == "system":
        return (drop, AddSystem(text))
    src = {"memory": Source.MEMORY, "context": Source.CONTEXT, "response": Source.RESPONSE}[where]
    return (drop, AddMessages((user("n1", text, created_at=11),), src, False))


@st.composite
def array_values(draw, swarm: Swarm) -> ArrayOf:
    ids = st.sampled_from(["u0", "a0", "c00", "c01", "a9"])
    edits = draw(
        st.lists(
            st.one_of(
                st.builds(EditText, ids, texts(swarm)),
                st.builds(SetRole, ids, st.sampled_from(list(Role))),
                st.builds(SetId, ids, st.sampled_from(["n2", "x9"])),
            ),
            max_size=1,
        )
    )
    return ArrayOf(
        base=draw(st.sampled_from(["received", "received", "list", "empty"])),
        copy=draw(st.sampled_from(["none", "none", "shallow", "deep"])),
        drop=tuple(draw(st.lists(ids, max_size=1))),
        edits=tuple(edits),
        append=tuple(draw(st.lists(entries(swarm), max_size=1))),
    )


@st.composite
def return_values(draw, swarm: Swarm):
    if swarm.returned_system_entries:  # battery only (G7.2, G7.5)
        shape = draw(st.integers(0, 5))
        if shape == 0:  # G7.5: the received array, and systemMessages ending in null/undefined
            sysm = tuple(draw(st.lists(notes.map(SystemMessage), max_size=1))) + (draw(st.sampled_from([None, UNDEFINED])),)
            return ObjectOf(ArrayOf(), sysm)
        if shape == 1:  # G7.2: the received array and an AI SDK system entry
            return ArrayOf(append=(SystemMessage(draw(notes)),))
    kind = draw(st.sampled_from(sorted(swarm.returns)))
    if kind == "array":
        return draw(array_values(swarm))
    if kind == "object":
        # reaching calls: an object that can be applied, so its systemMessages meet G7's and
        # G8's checks; the malformed ones (no array, G7) stay with the other swarms
        msgs = draw(array_values(swarm) if swarm.reaching else st.one_of(array_values(swarm), st.just(MISSING), st.just(3)))
        entry = system_messages(swarm)
        dense = swarm.option_refusals > 1  # the campaigns' Breakwater swarms
        if dense:  # undefined or a stored-format system message among them (G7.5, G8.2)
            entry = st.sampled_from([entry, st.just(UNDEFINED), st.just(UNDEFINED), messages(swarm, roles=(Role.SYSTEM,))]).flatmap(
                lambda s: s
            )
        given = st.lists(entry, max_size=2).map(tuple)
        if dense:  # mostly entries of their own
            given = st.one_of(given, st.lists(entry, min_size=1, max_size=2).map(tuple), st.lists(entry, min_size=1, max_size=2).map(tuple))
        others = [st.just("received"), given] + ([given] if swarm.reaching else [st.just(MISSING), st.just(None)])
        sysm = draw(st.sampled_from([given] * 3 * dense + others).flatmap(lambda s: s))  # dense: entries of their own half the time
        return ObjectOf(msgs, sysm, draw(st.sampled_from([None, "Result"])))
    if kind == "same":
        return SameList()
    if kind == "other":
        return OtherList()
    return Primitive(draw(st.sampled_from([UNDEFINED, None, 0, "", False, True, 1, "note-34"])))


@st.composite
def endings(draw, swarm: Swarm):
    kind = draw(st.sampled_from(sorted(swarm.endings) + (["return"] * swarm.return_weight if "return" in swarm.endings else [])))
    reason = f"reason-{draw(st.integers(0, 9))}"
    message = f"boom-{draw(st.integers(0, 9))}"
    if kind == "return":
        return Return(draw(return_values(swarm)))
    if kind == "abort":
        return Abort(reason)
    if kind == "tripwire":
        return ThrowTripWire(reason)
    if kind == "throw":
        return Throw(message)
    if kind == "abort_then_throw":
        return AbortThenThrow(reason, message)
    return AbortFinallyThrow(reason, message)


@st.composite
def processors(draw, swarm: Swarm = DEFAULT, fixture: Fixture | None = None, pid: str = "p1") -> Processor:
    """A processor of the language: up to two steps (a move counts as one), then an ending."""
    fixture = fixture or Fixture((), None, None)
    if not swarm.min_steps and draw(st.integers(1, swarm.identity_rate)) == 1:  # an identity processor (G7: nothing changes)
        proc = Processor(pid, (), Return(draw(st.sampled_from([SameList(), Primitive(UNDEFINED), ArrayOf(), ArrayOf()]))))
    else:
        ss: tuple = ()
        for _ in range(draw(st.integers(swarm.min_steps, 2))):
            ss += draw(steps(swarm, fixture))
        end = draw(endings(swarm))
        moved = fixture.outcome is not None and any(
            isinstance(x, RemoveByIds) and x.ids == ("a0",) and isinstance(y, AddMessages) and y.entries[0].id == "a0"
            for x, y in pairwise(ss)
        )
        if swarm.refusing_movers and moved and draw(st.integers(0, 7)) == 0:
            # the carrier moved out of the input, then a refusal: G13 removes it all the same (S8)
            end = draw(endings(evolve(swarm, endings=END_KINDS - {"return"})))
        proc = Processor(pid, ss, end)
        if swarm.refusing_movers and fixture.outcome is not None and draw(st.integers(0, 7)) == 0:
            # the carrier moved to memory as the very message the list held, then a refusal: an
            # outcome merged without a mirror leaves a copy equal to the processor's snapshot, so
            # only the moved-carrier rule of G13 takes it away (S8)
            exact = folded(next(m for m in fixture.stored if m.id == "a0"), fixture.outcome)
            if exact.tool_invocations is None:
                moves = (RemoveByIds(("a0",)), AddMessages((exact,), Source.MEMORY, False))
                proc = Processor(pid, moves, draw(endings(evolve(swarm, endings=END_KINDS - {"return"}))))
    # one processor in six of reaching calls (the copy is a change, G9), one in three otherwise
    if swarm.literal_carrier_copies and fixture.outcome is not None and draw(st.integers(0, 5 if swarm.reaching else 2)) == 0:
        a0 = next(m for m in fixture.stored if m.id == "a0")
        copy = evolve(folded(a0, fixture.outcome), tool_invocations=None)  # written out: no mirror
        proc = evolve(proc, end=Return(ArrayOf(base="received", drop=("a0",), append=(copy,))))
    if swarm.weird_values and not swarm.reaching and draw(st.integers(0, 4)) == 0:
        # other hooks: a per-step, output, error or tool-result hook beside processInput, or
        # one without it, refused at construction (G0)
        proc = evolve(proc, hooks=draw(st.sampled_from(ODD_HOOKS)))
    return proc


ODD_HOOKS = (
    (PROCESS_INPUT, "processInputStep"),
    (PROCESS_INPUT, "processInputStep"),
    ("processInputStep",),
    (),
    (PROCESS_INPUT, "processOutputResult"),
    (PROCESS_INPUT, "processAPIError"),
    (PROCESS_INPUT, "processToolResult"),
    (PROCESS_INPUT, "processToolResult"),
)
"""The hook sets a processor of the weird swarms may declare besides ``processInput`` alone."""
