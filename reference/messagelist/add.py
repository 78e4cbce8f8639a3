"""M2 add: ``add`` and ``addOne``, which convert, stamp, replace, fold (M3) and merge (M4) the
messages they are given; and the in-place writes every object sharing a content sees (M2.10)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import falsy, read
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart

from .fold import memory_fold
from .merge import _mergeable, merge_parts
from .parts import as_db_message, cache_key
from .sources import _push, responded
from .system import add_system
from .value import EMPTY, MessageList, Slot


def _sorted(slots: Iterable[Slot]) -> tuple[Slot, ...]:
    """M2.4 The createdAt watermark: after a non-system add the array is re-sorted by createdAt,
    a stable sort, so messages of equal createdAt keep their order."""
    return tuple(sorted(slots, key=lambda s: s.message.created_at))


def _stamp(message: Message, now: int) -> Message:
    """M2.3 Part stamps: every part without a ``createdAt`` gets the clock's stamp; a part that
    has one keeps it. The caller stamps only under input, response or context.

    Evidence: M2.3
    """
    parts = message.parts or ()
    if all(p.created_at is not None for p in parts):
        return message
    return evolve(message, parts=tuple(p if p.created_at is not None else evolve(p, created_at=now) for p in parts))


def add(lst: MessageList, entries: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2.1 add is not atomic: ``add`` flattens a list nested one level and hands each element to
    ``add_one`` (M2), which turns a string into a user message; when an element throws, the
    elements before it stay added, and the error carries the list as it was left (``partial``).

    Evidence: M2.1
    """
    if isinstance(entries, tuple):
        flat: list[Any] = []
        for e in entries:
            flat.extend(e if isinstance(e, tuple) else (e,))
    else:
        flat = [entries]
    for e in flat:
        try:
            lst = add_one(lst, e, source, merge)
        except MastraError as err:
            err.partial = lst
            raise
    return lst


def _placed(lst: MessageList, slots: list, at: int, appended: bool = False) -> MessageList:
    """M2.4 The createdAt watermark: the list with ``slots`` (re-sorted unless a message was
    appended in order) and the watermark moved to ``at``, the createdAt of the message just
    placed on the list, when it is greater.

    Evidence: M2.4
    """
    wm = lst.watermark
    if wm is None or at > wm:
        wm = at
    if appended and (len(slots) < 2 or slots[-2].message.created_at <= at):
        return evolve(lst, slots=tuple(slots), watermark=wm)
    return evolve(lst, slots=_sorted(slots), watermark=wm)


def _string_message(lst: MessageList, text: str) -> tuple[MessageList, Message]:
    """M2.4 The createdAt watermark: a string becomes a new user message dated by the clock, or
    one past the watermark when the clock is not ahead of it; dating it moves the watermark."""
    at = lst.clock if lst.watermark is None or lst.clock > lst.watermark else lst.watermark + 1
    lst, entry = lst.fresh(Message(id=f"msg-{lst.next_ref}", role=Role.USER, parts=(TextPart(text),), created_at=at))
    return evolve(lst, watermark=at), entry


def _content_gate(entry: SystemMessage) -> None:
    """M2.7 The content gate: a system message whose content is falsy and not a string is
    refused (``INVALID_MESSAGE_CONTENT``) before anything else looks at it; content is read
    through a getter, and a throwing getter throws here (M14.1).

    Evidence: M2.7
    """
    content = read(entry.content)
    if falsy(content) and not isinstance(content, str):
        raise MastraError("INVALID_MESSAGE_CONTENT")


def _system_role(lst: MessageList, entry: Message | SystemMessage, source: Source) -> MessageList:
    """M2.8 System-role messages through add: dropped under memory, otherwise handed to
    ``add_system`` for the untagged bucket, which refuses a stored-format one (M6.5).

    Evidence: M2.8
    """
    return lst if source is Source.MEMORY else add_system(lst, entry)


def _thread_checked(lst: MessageList, entry: Message, source: Source) -> Message:
    """M2.9 The thread check: a threadId or resourceId that differs from the list's is refused
    (``MESSAGE_THREAD_MISMATCH``) under any source but memory; a missing one is filled in from
    the list, each on its own."""
    if source is not Source.MEMORY and (
        (entry.thread_id is not None and lst.thread_id is not None and entry.thread_id != lst.thread_id)
        or (entry.resource_id is not None and lst.resource_id is not None and entry.resource_id != lst.resource_id)
    ):
        raise MastraError("MESSAGE_THREAD_MISMATCH")
    if (entry.thread_id is None and lst.thread_id is not None) or (entry.resource_id is None and lst.resource_id is not None):
        entry = evolve(entry, thread_id=entry.thread_id or lst.thread_id, resource_id=entry.resource_id or lst.resource_id)
    return entry


def _memory_over_held(lst: MessageList, slots: list[Slot], at: int, entry: Message, equal: bool) -> MessageList | None:
    """M3.5 A memory re-add of history is a no-op: a memory add of an id the list holds folds
    onto a live copy of it (M3); over a copy held only as memory, an equal cache key changes
    nothing, the watermark included. None when the add goes on (a different content replaces).

    Evidence: M3.5
    """
    folded = memory_fold(entry, slots[at])
    if folded is not None:
        slots[at] = folded
        return _placed(lst, slots, folded.message.created_at)
    if equal:
        return lst
    return None


def _equal_re_add(lst: MessageList, slots: list[Slot], at: int, entry: Message, source: Source) -> MessageList:
    """M2.6 An equal copy joins the set off the list: a same-id add with an equal cache key
    leaves the held object where it is; the very object joins ``source`` (M1.1), a fresh copy
    puts its id into that set without entering the array, where only the checker sees it.

    Evidence: M2.6
    """
    existing = slots[at]
    if existing.message.ref == entry.ref:
        # the same object: its parts were stamped in place (M2.3)
        slots[at] = Slot(entry, _push(existing.sources, source))
        return evolve(lst, slots=tuple(slots))
    return evolve(lst, detached=lst.detached + ((entry.id, source),))


def _add_one(lst: MessageList, entry: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2 add: ``addOne``, Mastra's rules in order: a string is dated (M2.4), a system message
    passes the content gate (M2.7) and goes to ``add_system`` (M2.8), a message without parts is
    refused; then the stored format (M2.2), the thread check (M2.9), part stamps (M2.3), the
    cache-key comparison (M2.5), the memory fold (M3), the assistant merge (M4), and a same-id
    message of different content replaced wholesale (it leaves every source)."""
    if isinstance(entry, str):
        lst, entry = _string_message(lst, entry)
    if isinstance(entry, SystemMessage):
        _content_gate(entry)
        return _system_role(lst, entry, source)
    if not isinstance(entry, Message):
        raise MastraError("INVALID_MESSAGE_CONTENT", "not a message")
    # 1. content check
    if entry.parts is None:
        raise MastraError("INVALID_MESSAGE_CONTENT")
    # 2. system role
    if entry.role is Role.SYSTEM:
        return _system_role(lst, entry, source)
    # 3. conversion: stored-format parts, thread check, thread/resource filled in, part stamps
    entry = _thread_checked(lst, as_db_message(entry), source)
    if entry.ref == 0:
        lst, entry = lst.fresh(entry)
    # A message that carries createdAt keeps it whatever its source (M2.4).
    restamped = False
    if source is not Source.MEMORY:
        stamped = _stamp(entry, lst.clock)
        if stamped is not entry:
            entry = stamped
            restamped = True

    # 4. replacement lookup
    slots = list(lst.slots)
    at = None
    for i, s in enumerate(slots):
        if s.message.id == entry.id:
            at = i
            break
    existing = slots[at] if at is not None else None
    if restamped and at is not None and existing is not None and existing.message.ref == entry.ref:
        # the stamps are written into the part objects: the same object on the list shows them
        existing = slots[at] = Slot(entry, existing.sources)
        lst = evolve(lst, slots=tuple(slots))
    if restamped and slots:
        # and so does every object sharing the content or a part (M2.10)
        shared(slots, entry)
        existing = slots[at] if at is not None else None
        lst = evolve(lst, slots=tuple(slots))

    # ``shouldReplaceMessage`` compares a same-id message's cache keys before anything else
    # (``messagesAreEqual``), so a key that throws stops the add here, fold or not
    equal = existing is not None and cache_key(existing.message) == cache_key(entry)

    # 5. memory-over-live fold (M3), whenever the same-id message is live in input, response
    # or context, even when it is in memory too; 6. otherwise the memory dedupe (M3.5)
    if source is Source.MEMORY and at is not None:
        done = _memory_over_held(lst, slots, at, entry, equal)
        if done is not None:
            return done

    # 7. merge into the latest message (M4), whatever message the id names
    if merge is not False and slots and _mergeable(slots[-1].message, entry, source):
        latest = slots[-1]
        merged = entry if latest.message.ref == entry.ref else merge_parts(latest.message, entry)
        slots[-1] = Slot(merged, _push(latest.sources, source))
        shared(slots, merged)
        return evolve(lst, slots=_sorted(slots))

    if existing is not None and at is not None:
        if equal:
            return _equal_re_add(lst, slots, at, entry, source)
        # 8. same id, different content
        if merge is not False and _mergeable(existing.message, entry, source):
            slots[at] = Slot(merge_parts(existing.message, entry), _push(existing.sources, source))
            shared(slots, slots[at].message)
            return evolve(lst, slots=_sorted(slots))
        slots[at] = Slot(entry, _push(EMPTY, source))
        return _placed(lst, slots, entry.created_at)
    # 9. new id
    at_ = entry.created_at
    wm = lst.watermark
    if wm is None or at_ > wm:
        wm = at_
    if not slots or slots[-1].message.created_at <= at_:
        slots.append(Slot(entry, _push(EMPTY, source)))
        return evolve(lst, slots=tuple(slots), watermark=wm)
    slots.append(Slot(entry, _push(EMPTY, source)))
    return evolve(lst, slots=_sorted(slots), watermark=wm)


def add_one(lst: MessageList, entry: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2 add: ``addOne`` (``_add_one``); an add under ``response`` also records, in the
    persisted response set (M1.3), the id of every message it leaves in the response set."""
    out = _add_one(lst, entry, source, merge)
    if source is not Source.RESPONSE:
        return out
    return responded(out)


def shared(slots: list[Slot], message: Message) -> None:
    """G5.2 Copies share content under the guard: an in-place write to ``message``'s content or
    parts (a stamp, a merge, a cached mapping, a processor's edit) as every other object on the
    list sees it (M2.10): one sharing its content takes its parts, metadata and tool-invocation
    mirror; one holding one of its part objects takes that part.

    Evidence: G5.2

    ``slots`` is changed in place; the slot of ``message`` itself is left to the caller.
    """
    cref = message.content_ref
    by_ref = {p.ref: p for p in message.parts or () if p.ref}
    for i, s in enumerate(slots):
        m = s.message
        if m.ref == message.ref:
            continue
        if cref and m.content_ref == cref:
            if m.parts is not message.parts or m.metadata is not message.metadata or m.tool_invocations is not message.tool_invocations:
                slots[i] = Slot(
                    evolve(m, parts=message.parts, metadata=message.metadata, tool_invocations=message.tool_invocations), s.sources
                )
        elif by_ref and m.parts:
            parts = tuple(by_ref.get(p.ref, p) if p.ref else p for p in m.parts)
            if any(a is not b for a, b in zip(parts, m.parts)):
                slots[i] = Slot(evolve(m, parts=parts), s.sources)


def replace_message(lst: MessageList, message: Message) -> MessageList:
    """M2.10 Shared content: an in-place edit of a held object, ``message`` put in the slot of
    the object with its ref, shown in every object sharing its content or parts.

    Evidence: M2.10
    """
    slots = [Slot(message, s.sources) if s.message.ref == message.ref else s for s in lst.slots]
    if len(slots) > 1:
        shared(slots, message)
    return evolve(lst, slots=tuple(slots))
