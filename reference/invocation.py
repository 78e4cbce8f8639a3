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
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart
from guardspec.model.processors import (
    MISSING,
    Abort,
    AbortFinallyThrow,
    AbortThenThrow,
    AbortWrapThrow,
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
from guardspec.model.values import UNDEFINED, Accessor, JsObject

from . import messagelist as ml
from .messagelist import MastraError, MessageList

# -- what processInput gives back ------------------------------------------------------------


@frozen
class RetArray:
    """G6 Outcome classes: the processor returned an array."""

    items: tuple[Any, ...]


@frozen
class RetObject:
    """G6 Outcome classes: the processor returned an object with messages and systemMessages."""

    messages: Any
    system_messages: Any
    proto: str | None


@frozen
class RetSameList:
    """G6 Outcome classes: the processor returned the list itself."""


@frozen
class RetOtherList:
    """G6 Outcome classes: the processor returned a different list."""


@frozen
class RetPrimitive:
    """G6 Outcome classes: the processor returned a primitive."""

    value: Any


Returned = Union[RetArray, RetObject, RetSameList, RetOtherList, RetPrimitive]  # noqa: UP007 (a typing.Union alias, as the model's aliases are)


@frozen
class Returns:
    """G6 Outcome classes: ``processInput`` returned ``value``."""

    value: Returned


@frozen
class Aborts:
    """G6 Outcome classes: ``abort(reason)`` threw its TripWire and it propagated."""

    reason: str


@frozen
class TripWires:
    """G6 Outcome classes: The processor threw a TripWire it built itself (no processorId on it)."""

    reason: str


@frozen
class Throws:
    """G6 Outcome classes: Any other throw: an Error, a MastraError from a list operation, a throw around abort."""

    message: str


Ending = Union[Returns, Aborts, TripWires, Throws]  # noqa: UP007 (a typing.Union alias, as the model's aliases are)


@frozen
class Invocation:
    """G5 Invocation: The list after the processor ran, and how it ended.

    ``received`` / ``received_system``: the processor's ``messages`` / ``systemMessages``
    arrays as they stood when it returned, and whether each was still Mastra's live array
    (``messages_live`` / ``system_live``; see ``invoke``)."""

    list: MessageList
    ending: Ending
    received: tuple = ()
    received_system: tuple = ()
    messages_live: bool = False
    system_live: bool = False


@frozen
class LiveSystem:
    """M7.6 What later processors receive: A returned ``systemMessages`` that is the list's own untagged array
    (``getSystemMessages()``), so what was added to the bucket shows in it."""


_JS_FIELD = {"content": "content", "provider_options": "providerOptions", "experimental_provider_metadata": "experimental_providerMetadata"}


def _edited_system(old: SystemMessage, field: str, value: Any) -> SystemMessage:
    """M6.7 Editing a kept stored-format entry: setting one field of a system entry in place;
    new content on a kept ``{format: 2, parts}`` entry replaces that content and the metadata
    that lived in it, so the entry is an ordinary system message with the new content.
    M14.1: a field that is an accessor cannot be assigned (TypeError); a new accessor replaces it."""
    if isinstance(getattr(old, field), Accessor) and not isinstance(value, Accessor):
        raise MastraError("TypeError", f"Cannot set property {_JS_FIELD[field]} of #<Object> which has only a getter")
    new = evolve(old, **{field: value})
    if field == "content" and old.stored:
        new = evolve(new, stored=False, metadata=UNDEFINED)
    return new


def _first_text(m: Message, text: Any, copy: bool = False) -> Message:
    """``m`` with its first text part's text set (a text part appended when it has none): in
    place (the ``editMessage`` step), or, ``copy``, in a new part object (``{...part, text}``
    of the ``editText`` edit), so that only the other parts stay shared."""
    parts = list(m.parts or ())
    for i, p in enumerate(parts):
        if isinstance(p, TextPart):
            parts[i] = evolve(p, text=text, ref=0) if copy else evolve(p, text=text)
            return evolve(m, parts=tuple(parts))
    return evolve(m, parts=tuple(parts) + (TextPart(text),))


def _is_object(e: Any) -> bool:
    """A message or an AI SDK system message: an object the processor language tracks by
    ``ref``."""
    return isinstance(e, (Message, SystemMessage))


def _entry_id(e: Any) -> Any:
    """``m.id`` of an array element as the processor language reads it (``isObj(m) &&
    m.id``): a message's id; any other element has none."""
    if isinstance(e, Message):
        return e.id
    if isinstance(e, JsObject):
        return e.get("id")
    return UNDEFINED


def _spread(e: Any) -> Any:
    """``{...e}`` of an element that is not a message: a string or an array gives an
    object of its indexed elements, an object its own properties (getters read), any other
    primitive ``{}``. None of these is a message."""
    if isinstance(e, str):
        return JsObject(tuple((str(i), c) for i, c in enumerate(e)))
    if isinstance(e, tuple):
        return JsObject(tuple((str(i), v) for i, v in enumerate(e)))
    if isinstance(e, JsObject):
        return JsObject(tuple((k, v.value if isinstance(v, Accessor) else v) for k, v in e.props))
    return JsObject()


def _fresh_entry(lst: MessageList, e: Any) -> tuple[MessageList, Any]:
    if isinstance(e, Message):
        return lst.fresh(e)
    if isinstance(e, SystemMessage):
        return lst.fresh_system(e)
    return lst, e


def _list_operation_threw(lst: MessageList, e: MastraError) -> Invocation:
    """G6.2 A list operation that throws is a failure: the processor ends in a throw, and what
    the step changed before it threw stays (an add of several messages keeps the ones before
    the failing element), so the refusal removal starts from that list."""
    return Invocation(e.partial if e.partial is not None else lst, Throws(str(e)))


def invoke(
    proc: Processor,
    lst: MessageList,
    received: tuple[Message, ...],
    received_system: tuple[SystemMessage, ...],
    messages_live: bool = False,
    system_live: bool = False,
) -> Invocation:
    """G5 Invocation: Run ``proc``'s steps, then its ending (SPEC processor language; M8 and G6 read the
    result).

    ``messages_live`` / ``system_live`` (the raw runner; the guarded chain always, as
    Breakwater hands them): the arrays the processor received
    are Mastra's own ``messages`` array (``get.all.db()``) / untagged system array
    (``getSystemMessages()``), so what is added to the list shows in them, until an operation
    replaces that array (``removeByIds``, ``clear.input``; ``replaceAllSystemMessages``),
    after which they keep what they held then."""
    # ``received`` may hold values that are no objects (a string a predecessor returned among
    # its messages): they have no identity to track and pass through as they are
    heap: dict[int, Any] = {m.ref: m for m in received if _is_object(m)}
    heap.update({s.ref: s for s in received_system})
    frozen_msgs: tuple | None = None
    frozen_sys: tuple | None = None

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
                # the add writes into the objects it merges into or stamps (M4, M2.3): a
                # received object shows that wherever it is held, on the list or not later
                for sl in lst.slots:
                    if sl.message.ref in heap:
                        heap[sl.message.ref] = sl.message
            elif isinstance(step, RemoveByIds):
                if messages_live and frozen_msgs is None:
                    frozen_msgs = lst.all()
                lst = ml.remove_by_ids(lst, step.ids)
            elif isinstance(step, AddSystem):
                msg = step.message
                if isinstance(msg, SystemMessage):
                    lst, msg = lst.fresh_system(msg)
                lst = ml.add_system(lst, msg, step.tag)
            elif isinstance(step, ReplaceAllSystem):
                if system_live and frozen_sys is None:
                    frozen_sys = lst.untagged
                entries = []
                for e in step.entries:
                    lst, e = _fresh_entry(lst, e)
                    entries.append(e)
                lst = ml.replace_all_system(lst, entries)
            elif isinstance(step, ClearInput):
                if messages_live and frozen_msgs is None:
                    frozen_msgs = lst.all()
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
                new = _edited_system(old, name, step.value)
                lst = ml.set_system(lst, step.tag, step.index, new)
                edit_in_place(new)
            elif isinstance(step, EditMessage):
                slot = lst.slot_of(step.id)
                if slot is None:
                    raise MastraError("TypeError", f"no message {step.id!r} on the list")
                edited = _first_text(slot.message, step.text)
                lst = ml.replace_message(lst, edited)
                edit_in_place(edited)
            else:  # pragma: no cover - the decoder admits no other step
                raise AssertionError(step)
    except MastraError as e:
        return _list_operation_threw(lst, e)

    end = proc.end
    if isinstance(end, Abort):
        return Invocation(lst, Aborts(end.reason))
    if isinstance(end, ThrowTripWire):
        return Invocation(lst, TripWires(end.reason))
    if isinstance(end, Throw):
        return Invocation(lst, Throws(end.message))
    if isinstance(end, (AbortThenThrow, AbortWrapThrow, AbortFinallyThrow)):
        return Invocation(lst, Throws(end.message))
    assert isinstance(end, Return)
    # Mastra mutates objects in place (stamps, merges): a received object still on the list is
    # seen as it stands there
    on_list = {s.message.ref: s.message for s in lst.slots} if (received or messages_live) else {}
    if messages_live:
        now = lst.all() if frozen_msgs is None else frozen_msgs
        current = [on_list.get(m.ref, heap.get(m.ref, m)) for m in now]
    else:
        current = [on_list.get(m.ref, heap[m.ref]) if _is_object(m) else m for m in received]
    if system_live:
        sys_now = list(lst.untagged) if frozen_sys is None else [heap.get(x.ref, x) for x in frozen_sys]
    else:
        sys_now = [heap[s.ref] for s in received_system]
    lst, value = build(end.value, lst, current, sys_now)
    if (
        system_live
        and frozen_sys is None
        and isinstance(value, RetObject)
        and isinstance(end.value, ObjectOf)
        and isinstance(end.value.system_messages, str)
        and end.value.system_messages == "received"
    ):
        value = RetObject(value.messages, LiveSystem(), value.proto)
    return Invocation(
        lst,
        Returns(value),
        tuple(current),
        tuple(sys_now),
        messages_live and frozen_msgs is None,
        system_live and frozen_sys is None,
    )


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
            if isinstance(m, Message):
                # ``{...m}`` shares the content object with ``m``; a deep copy has its own
                lst, m = lst.fresh(m, "content" if spec.copy == "shallow" else None)
            elif isinstance(m, SystemMessage):
                lst, m = lst.fresh_system(m)
            elif spec.copy == "shallow":
                # ``{...m}`` of a string a predecessor returned; a deep copy of a
                # primitive is the primitive, of an array an equal array
                m = _spread(m)
            copied.append(m)
        items = copied
    if spec.drop:
        items = [m for m in items if _entry_id(m) not in spec.drop]
    for edit in spec.edits:
        for i, m in enumerate(items):
            if not isinstance(m, Message) or m.id != edit.id:
                continue
            # ``{...m, content: {...}}`` keeps the part objects it does not replace; ``{...m,
            # role}`` and ``{...m, id}`` keep the content object
            if isinstance(edit, EditText):
                lst, items[i] = lst.fresh(_first_text(m, edit.text, copy=True), "parts")
                continue
            if isinstance(edit, SetRole):
                m = evolve(m, role=edit.role)
            elif isinstance(edit, SetId):
                m = evolve(m, id=edit.new_id)
            lst, items[i] = lst.fresh(m, "content")
    for e in spec.append:
        lst, e = _fresh_entry(lst, e)
        items.append(e)
    return lst, tuple(items)


def build(value: Any, lst: MessageList, received: list[Message], received_system: list[SystemMessage]) -> tuple[MessageList, Returned]:
    """G7 Application: The value ``processInput`` returns, built from what it received."""
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
    """G7 Application: a key the returned object lacks."""
    return v is MISSING


__all__ = [
    "Aborts",
    "Invocation",
    "RetArray",
    "RetObject",
    "RetOtherList",
    "RetPrimitive",
    "RetSameList",
    "Returns",
    "Role",
    "Throws",
    "TripWires",
    "invoke",
]
