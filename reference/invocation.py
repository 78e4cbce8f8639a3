"""Running one processor script against the list (the processor language, SPEC "What a
processor in a scenario must be able to do").

``invoke`` plays ``processInput({messages, systemMessages, messageList, abort})``: the steps
mutate the list in place, then the ending builds a return value or throws. The same function
serves the raw runner (M8) and the guard (G6): what differs is what they do with the outcome.
Objects are tracked by ``ref`` so that in-place edits show through every array holding them.
"""

from __future__ import annotations

from typing import Any, Union

from attrs import frozen
from guardspec.model.fast import evolve

from guardspec.model.messages import Message, Role, SystemMessage, TextPart
from guardspec.model.processors import (
    MISSING,
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
from guardspec.model.messages import Source

from . import messagelist as ml
from .messagelist import MastraError, MessageList

# -- what processInput gives back ------------------------------------------------------------


@frozen
class RetArray:
    items: tuple[Any, ...]


@frozen
class RetObject:
    messages: Any
    system_messages: Any
    proto: str | None


@frozen
class RetSameList:
    pass


@frozen
class RetOtherList:
    pass


@frozen
class RetPrimitive:
    value: Any


Returned = Union[RetArray, RetObject, RetSameList, RetOtherList, RetPrimitive]


@frozen
class Returns:
    """``processInput`` returned ``value``."""

    value: Returned


@frozen
class Aborts:
    """``abort(reason)`` threw its TripWire and it propagated."""

    reason: str


@frozen
class TripWires:
    """The processor threw a TripWire it built itself (no processorId on it)."""

    reason: str


@frozen
class Throws:
    """Any other throw: an Error, a MastraError from a list operation, a throw around abort."""

    message: str


Ending = Union[Returns, Aborts, TripWires, Throws]


@frozen
class Invocation:
    """The list after the processor ran, and how it ended."""

    list: MessageList
    ending: Ending


def _first_text(m: Message, text: Any) -> Message:
    parts = list(m.parts or ())
    for i, p in enumerate(parts):
        if isinstance(p, TextPart):
            parts[i] = evolve(p, text=text)
            return evolve(m, parts=tuple(parts))
    return evolve(m, parts=tuple(parts) + (TextPart(text),))


def _fresh_entry(lst: MessageList, e: Any) -> tuple[MessageList, Any]:
    if isinstance(e, Message):
        return lst.fresh(e)
    if isinstance(e, SystemMessage):
        return lst.fresh_system(e)
    return lst, e


def invoke(
    proc: Processor,
    lst: MessageList,
    received: tuple[Message, ...],
    received_system: tuple[SystemMessage, ...],
) -> Invocation:
    """Run ``proc``'s steps, then its ending (SPEC processor language; M8 and G6 read the
    result)."""
    heap: dict[int, Any] = {m.ref: m for m in received}
    heap.update({s.ref: s for s in received_system})

    def edit_in_place(new: Any) -> None:
        heap[new.ref] = new

    try:
        for step in proc.steps:
            if isinstance(step, AddMessages):
                entries = []
                for e in step.entries:
                    lst, e = _fresh_entry(lst, e)
                    entries.append(e)
                lst = ml.add(lst, tuple(entries), step.source, step.merge)
            elif isinstance(step, RemoveByIds):
                lst = ml.remove_by_ids(lst, step.ids)
            elif isinstance(step, AddSystem):
                msg = step.message
                if isinstance(msg, SystemMessage):
                    lst, msg = lst.fresh_system(msg)
                lst = ml.add_system(lst, msg, step.tag)
            elif isinstance(step, ReplaceAllSystem):
                entries = []
                for e in step.entries:
                    lst, e = _fresh_entry(lst, e)
                    entries.append(e)
                lst = ml.replace_all_system(lst, entries)
            elif isinstance(step, ClearInput):
                lst = ml.clear_source(lst, Source.INPUT)
            elif isinstance(step, EditSystem):
                bucket = lst.untagged if step.tag is None else dict(lst.tagged).get(step.tag, ())
                if not 0 <= step.index < len(bucket):
                    raise MastraError("TypeError", "no system message at that index")
                old = bucket[step.index]
                name = {
                    "content": "content",
                    "providerOptions": "provider_options",
                    "experimental_providerMetadata": "experimental_provider_metadata",
                }[step.field]
                new = evolve(old, **{name: step.value})
                lst = ml.set_system(lst, step.tag, step.index, new)
                edit_in_place(new)
            elif isinstance(step, EditMessage):
                slot = lst.slot_of(step.id)
                if slot is None:
                    raise MastraError("TypeError", f"no message {step.id!r} on the list")
                new = _first_text(slot.message, step.text)
                lst = ml.replace_message(lst, new)
                edit_in_place(new)
            else:  # pragma: no cover - the decoder admits no other step
                raise AssertionError(step)
    except MastraError as e:
        return Invocation(lst, Throws(str(e)))

    end = proc.end
    if isinstance(end, Abort):
        return Invocation(lst, Aborts(end.reason))
    if isinstance(end, ThrowTripWire):
        return Invocation(lst, TripWires(end.reason))
    if isinstance(end, Throw):
        return Invocation(lst, Throws(end.message))
    if isinstance(end, (AbortThenThrow, AbortFinallyThrow)):
        return Invocation(lst, Throws(end.message))
    assert isinstance(end, Return)
    lst, value = build(end.value, lst, [heap[m.ref] for m in received], [heap[s.ref] for s in received_system])
    return Invocation(lst, Returns(value))


def _array(spec: ArrayOf, lst: MessageList, received: list[Message]) -> tuple[MessageList, tuple[Any, ...]]:
    if spec.base == "received":
        items = list(received)
    elif spec.base == "list":
        items = list(lst.all())
    else:
        items = []
    if spec.copy != "none":
        copied = []
        for m in items:
            lst, m = lst.fresh(m)
            copied.append(m)
        items = copied
    if spec.drop:
        items = [m for m in items if m.id not in spec.drop]
    for edit in spec.edits:
        for i, m in enumerate(items):
            if m.id != edit.id:
                continue
            if isinstance(edit, EditText):
                m = _first_text(m, edit.text)
            elif isinstance(edit, SetRole):
                m = evolve(m, role=edit.role)
            elif isinstance(edit, SetId):
                m = evolve(m, id=edit.new_id)
            lst, items[i] = lst.fresh(m)
    for e in spec.append:
        lst, e = _fresh_entry(lst, e)
        items.append(e)
    return lst, tuple(items)


def build(value: Any, lst: MessageList, received: list[Message], received_system: list[SystemMessage]) -> tuple[MessageList, Returned]:
    """The value ``processInput`` returns, built from what it received."""
    if isinstance(value, SameList):
        return lst, RetSameList()
    if isinstance(value, OtherList):
        return lst, RetOtherList()
    if isinstance(value, Primitive):
        return lst, RetPrimitive(value.value)
    if isinstance(value, ArrayOf):
        lst, items = _array(value, lst, received)
        return lst, RetArray(items)
    if isinstance(value, ObjectOf):
        msgs = value.messages
        if isinstance(msgs, ArrayOf):
            lst, msgs = _array(msgs, lst, received)
        sysm = value.system_messages
        if isinstance(sysm, str) and sysm == "received":
            sysm = tuple(received_system)
        elif isinstance(sysm, tuple):
            out = []
            for e in sysm:
                lst, e = _fresh_entry(lst, e)
                out.append(e)
            sysm = tuple(out)
        return lst, RetObject(msgs, sysm, value.proto)
    raise AssertionError(value)  # pragma: no cover


def is_missing(v: Any) -> bool:
    return v is MISSING


__all__ = ["invoke", "Invocation", "Returns", "Aborts", "TripWires", "Throws", "RetArray", "RetObject", "RetSameList", "RetOtherList", "RetPrimitive", "Role"]
