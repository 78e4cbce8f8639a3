"""G7 Application of a processor's return value (S2, S3)."""

from __future__ import annotations

import math
from typing import Any

from guardspec.model.messages import SOURCE_ORDER, Message, Role, Source, SystemMessage
from guardspec.model.values import UNDEFINED

from .. import messagelist as ml
from ..invocation import RetArray, RetObject, RetOtherList, RetPrimitive, RetSameList
from ..messagelist import MastraError, MessageList


class CannotApply(Exception):
    """G7: the value cannot be applied (a G6 failure)."""


def falsy(v: Any) -> bool:
    if v is UNDEFINED or v is None or v is False or v == "":
        return True
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == 0 or (isinstance(v, float) and math.isnan(v))
    return False


def _check_entry(lst: MessageList, e: Any) -> None:
    """G7: entries Mastra cannot add (null, no content, another thread's message, undefined
    system content) cannot be applied."""
    if isinstance(e, SystemMessage):
        if not isinstance(ml.system_text(e.content), str):
            raise CannotApply("system entry without text content")
        return
    if not isinstance(e, Message):
        raise CannotApply("an entry that is not a message")
    if e.parts is None:
        raise CannotApply("a message with no content")
    if e.role is Role.SYSTEM:
        if not isinstance(ml.system_text(e.parts), str):
            raise CannotApply("system entry without text content")
        return
    if (e.thread_id is not None and lst.thread_id is not None and e.thread_id != lst.thread_id) or (
        e.resource_id is not None and lst.resource_id is not None and e.resource_id != lst.resource_id
    ):
        raise CannotApply("another thread's message")


def _readd(lst: MessageList, m: Message, sources: frozenset[Source]) -> MessageList:
    """Re-add ``m`` under ``sources``: memory first (no part stamps), then the others, merge
    off, so that a memory+input message stays both (S3)."""
    ordered = [s for s in SOURCE_ORDER if s in sources] or [Source.INPUT]
    lst = ml.add_one(lst, m, ordered[0], merge=False)
    for s in ordered[1:]:
        lst = ml.push_source(lst, m.id, s)
    return lst


def apply_messages(lst: MessageList, result: tuple[Any, ...], received: tuple[Message, ...], before: dict[str, frozenset[Source]]) -> MessageList:
    """G7 Applying messages: received ids missing from the result are removed; a system-role
    entry is added as a system message and the message sharing its id is not removed; every
    other entry replaces the message with its id and is re-added under the source it had before
    the processor ran (``input`` if none), merge off."""
    for e in result:
        _check_entry(lst, e)
    present = {e.id for e in result if isinstance(e, Message)}
    lst = ml.remove_by_ids(lst, [m.id for m in received if m.id not in present])
    try:
        for e in result:
            if isinstance(e, SystemMessage):
                lst = ml.add_system(lst, SystemMessage(ml.system_text(e.content), ref=e.ref))
            elif e.role is Role.SYSTEM:
                lst = ml.add_system(lst, SystemMessage(ml.system_text(e.parts), ref=e.ref))
            else:
                # Unlike the workflow runner (M8), even the very object the list holds is
                # removed and re-added, as the durable runner's legacy path does; its prior
                # sources are restored, so memory+input stays both (S3).
                lst = ml.remove_by_ids(lst, [e.id])
                lst = _readd(lst, e, before.get(e.id, frozenset({Source.INPUT})))
    except MastraError as err:
        raise CannotApply(str(err)) from err
    return lst


def apply_guarded(lst: MessageList, value: Any, received: tuple[Message, ...], before: dict[str, frozenset[Source]]) -> MessageList:
    """G7 Application: falsy or the very list → nothing; a different list or a truthy
    non-object → cannot be applied; an array → applied as messages; any other object (any
    prototype) must hold array ``messages`` and array ``systemMessages``: the untagged bucket
    is replaced first, then the messages are applied."""
    if isinstance(value, RetSameList):
        return lst
    if isinstance(value, RetOtherList):
        raise CannotApply("a different message list")
    if isinstance(value, RetPrimitive):
        if falsy(value.value):
            return lst
        raise CannotApply("a truthy value that is not an object")
    if isinstance(value, RetArray):
        return apply_messages(lst, value.items, received, before)
    assert isinstance(value, RetObject)
    if not isinstance(value.messages, tuple) or not isinstance(value.system_messages, tuple):
        raise CannotApply("an object without array messages and array systemMessages")
    for e in value.system_messages:
        if isinstance(e, SystemMessage):
            _check_entry(lst, e)
    lst = ml.replace_all_system(lst, value.system_messages)
    return apply_messages(lst, value.messages, received, before)
