"""G7 Application of a processor's return value (S2, S3)."""

from __future__ import annotations

from typing import Any

from guardspec.model.fast import evolve
from guardspec.model.jsvalues import falsy, join_texts, read
from guardspec.model.messages import SOURCE_ORDER, Message, Role, Source, SystemMessage, TextPart
from guardspec.model.values import UNDEFINED

from .. import messagelist as ml
from ..invocation import LiveSystem, RetArray, RetObject, RetOtherList, RetPrimitive, RetSameList
from ..messagelist import MastraError, MessageList


class CannotApply(Exception):
    """G7: the value cannot be applied (a G6 failure); ``partial``: the list as the failed
    application left it (None: untouched)."""

    def __init__(self, why: str, partial: MessageList | None = None):
        super().__init__(why)
        self.partial = partial


def _check_entry(lst: MessageList, e: Any, source: Source) -> None:
    """G7.6 The thread check follows the re-add's source: messages Mastra cannot add (no content, another thread's message) cannot be applied.
    Mastra checks the thread only of a message added under a source other than memory, so a
    returned message re-added as memory may belong to another thread."""
    if e.parts is None:
        raise CannotApply("a message with no content")
    if source is not Source.MEMORY and (
        (e.thread_id is not None and lst.thread_id is not None and e.thread_id != lst.thread_id)
        or (e.resource_id is not None and lst.resource_id is not None and e.resource_id != lst.resource_id)
    ):
        raise CannotApply("another thread's message")


def system_entry_text(e: Any) -> str:
    """G7.2 A system entry's text: the text Breakwater adds for a system-role
    entry of a returned array, ``content.content ?? content.parts?.map(text or '').join('\n')
    ?? ''``, as Mastra's runner does (M8). An AI SDK entry (``{role, content: string |
    parts}``) has neither property, so it gives "" and adds nothing; a DB-shaped one gives its
    parts' texts joined by newlines, "" for a part that is not text; an entry without content
    cannot be applied. ``content`` is read through its getter (M14.1): one that throws makes
    the entry one that cannot be applied."""
    if isinstance(e, Message):
        parts = e.parts
        if parts is None:
            raise CannotApply("system entry without content")
        return join_texts((p.text if isinstance(p, TextPart) else "" for p in ml.visible_parts(parts) or ()), "\n")
    content = read(e.content)
    if content is UNDEFINED or content is None:
        raise CannotApply("system entry without content")
    return ""


def _readd(lst: MessageList, m: Message, sources: frozenset[Source]) -> MessageList:
    """G7.3 Every other entry is re-added under its earlier source: Re-add ``m`` under ``sources``: memory first (no part stamps), then the others, merge
    off, so that a memory+input message stays both (S3)."""
    ordered = [s for s in SOURCE_ORDER if s in sources] or [Source.INPUT]
    lst = ml.add_one(lst, m, ordered[0], merge=False)
    for s in ordered[1:]:
        lst = ml.push_source(lst, m.id, s)
    return lst


def _is_system(e: Any) -> bool:
    return isinstance(e, SystemMessage) or (isinstance(e, Message) and e.role is Role.SYSTEM)


def _add_non_message(lst: MessageList, e: Any) -> MessageList:
    """G7.4 Entries that are not messages: a string entry is added as Mastra adds a string, a
    new user message of the call's input; any other value is one Mastra's ``add`` throws on."""
    return ml.add_one(lst, e, Source.INPUT, merge=False)


def _replace_untagged(lst: MessageList, entries: tuple) -> MessageList:
    """G7.5 Replacing the untagged bucket: ``replaceAllSystemMessages`` empties the bucket, then
    reads ``role`` of each entry: a null or undefined entry cannot be applied, with the entries
    before it already in."""
    replaced, at = ml.replace_reading_roles(lst, entries)
    if at is not None:
        raise CannotApply("a systemMessages entry that is null or undefined", replaced)
    return replaced


def apply_messages(
    lst: MessageList, result: tuple[Any, ...], received: tuple[Message, ...], before: dict[str, frozenset[Source]]
) -> MessageList:
    """G7.1 The order of application, in Breakwater's order (``applyInputMessages``):
    received ids missing from the result are removed;
    then each system-role entry adds its text as a system message (``system_entry_text``:
    nothing for an AI SDK entry) and the message sharing its id is not removed; then every
    other entry replaces the message with its id and is re-added under the sources the source
    checker named for its id before the processor ran (G7.3: on the list or off it, M1.2;
    ``input`` if none), merge off. A string entry is added as
    Mastra adds one (a new user message of the call's input); null or undefined cannot be
    applied (reading its ``id`` throws), nor can any other value Mastra cannot add. Not
    atomic: a value that cannot be applied keeps what was done before it
    (``CannotApply.partial``)."""
    for e in result:
        if e is None or e is UNDEFINED:
            raise CannotApply("an entry that is null or undefined")
    present = {e.id for e in result if isinstance(e, Message)}
    lst = ml.remove_by_ids(lst, [m.id for m in received if m.id not in present])
    try:
        for e in result:
            if _is_system(e):
                lst = ml.add_system(lst, system_entry_text(e))
        for e in result:
            if _is_system(e):
                continue
            if not isinstance(e, Message):
                lst = _add_non_message(lst, e)
                continue
            prior = before.get(e.id, frozenset({Source.INPUT}))
            _check_entry(lst, e, next(x for x in SOURCE_ORDER if x in prior) if prior else Source.INPUT)
            # Unlike the workflow runner (M8), even the very object the list holds is
            # removed and re-added, as the durable runner's legacy path does; its prior
            # sources are restored, so memory+input stays both (S3).
            lst = ml.remove_by_ids(lst, [e.id])
            lst = _readd(lst, e, prior)
    except MastraError as err:
        raise CannotApply(str(err), lst) from err
    except CannotApply as err:
        raise CannotApply(str(err), lst) from err
    return lst


def apply_guarded(lst: MessageList, value: Any, received: tuple[Message, ...], before: dict[str, frozenset[Source]]) -> MessageList:
    """G7 Application: falsy or the very list → nothing; a different list or a truthy
    non-object → cannot be applied; an array → applied as messages; any other object (any
    prototype) must hold array ``messages`` and array ``systemMessages``: the untagged bucket
    is replaced first (an entry that is null or undefined cannot be applied; the received
    bucket, still the list's own, replaces nothing), then
    the messages are applied. A stored-format system message kept in the bucket is not text
    alone: G8 fails the processor (``changes.unreadable``)."""
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
    if isinstance(value.system_messages, LiveSystem) and isinstance(value.messages, tuple):
        # the list's own untagged array, what the processor added to it included: replacing
        # the bucket by it changes nothing
        return apply_messages(lst, value.messages, received, before)
    if not isinstance(value.messages, tuple) or not isinstance(value.system_messages, tuple):
        raise CannotApply("an object without array messages and array systemMessages")
    lst = _replace_untagged(lst, value.system_messages)
    try:
        return apply_messages(lst, value.messages, received, before)
    except CannotApply as err:  # not atomic: the bucket stays replaced
        raise CannotApply(str(err), lst if err.partial is None else err.partial) from err


def policy_engine_output_return(lst: MessageList) -> MessageList:
    """G12.11 The engine's output step on durable: the
    policy engine is also the guarded agent's output processor; its final-result step returns
    the response messages it was handed (those on the list that are or have been in the
    response set during the call, M1.3), and Mastra's runner re-adds each, in order, under the
    source the checker names (``response`` unless it is memory or input now), merge off, so
    each moves behind every message with an equal createdAt, before the finalisation saves them
    (M13). That add stamps every part of theirs without ``createdAt`` (M2), so a remembered
    message the reply merged into (M4) is saved with its parts stamped. The seed is silent on
    the engine's output step. On generate and stream the saved copy keeps its parts as they
    were (the stamps come after saving there, ``model_step.stamp_merged_reply``). The durable
    loop hands this step a list rebuilt from its workflow state, so a stale source reference (a
    message object a cleared source left in another set, M5) is gone: the checker names only
    the sources of the messages on the list (measured)."""
    check = ml.checker(evolve(lst, detached=()))
    # the response messages it is handed: those in the response set now or earlier in the call
    # (M1.3: the rebuilt list's persisted set, by id), in array order
    handed = [s.message for s in lst.slots if Source.RESPONSE in s.sources or s.message.id in lst.responded]
    for m in handed:
        lst = ml.remove_by_ids(lst, [m.id])
        lst = ml.add_one(lst, m, check.get(m.id, Source.RESPONSE), merge=False)
    return lst


def policy_engine_input_return(lst: MessageList) -> MessageList:
    """G12.10 The engine's input return on durable: once every
    policy allows, the policy engine returns the messages it was handed, on the durable loop
    the list's input view (``get.input.db()``, in array order), and Mastra's durable runner
    applies that array as it applies any returned one: each message is removed and re-added,
    merge off, even the very object the list holds. The re-add puts the message at the end of
    the array and the sort by createdAt (M2, stable) places it after every message with an
    equal stamp, so a caller message moves behind a message a processor added with its
    createdAt: the prompt's order changes, and with it the assistant message the reply merges
    into (M4). As for an application processor's return (G7, S3), a message that is both
    remembered and call input stays both (Breakwater re-adds it as memory only: finding BW-F3;
    the model keeps the seed). On generate and stream the engine is handed the list's own
    objects and the runner skips them (M8): nothing moves there. A re-add Mastra refuses ends
    the runner; the durable agent logs it and goes on with the list as it stands."""
    view = lst.view(Source.INPUT)
    try:
        return apply_messages(lst, view, view, ml.sources_by_id(lst))
    except CannotApply as err:
        return lst if err.partial is None else err.partial
