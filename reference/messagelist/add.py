"""M2 Add: ``add`` and ``addOne``, which convert, stamp, replace, fold (M3) and merge (M4) the
messages they are given; and the in-place writes every object sharing a content sees."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import falsy
from guardspec.model.messages import Message, Role, Source, SystemMessage, TextPart

from .fold import memory_fold
from .merge import _mergeable, merge_parts
from .parts import as_db_message, cache_key
from .sources import _push
from .system import add_system
from .value import EMPTY, MessageList, Slot


def _sorted(slots: Iterable[Slot]) -> tuple[Slot, ...]:
    """After every non-system add the array is re-sorted by createdAt (stable)."""
    return tuple(sorted(slots, key=lambda s: s.message.created_at))


def _stamp(message: Message, now: int) -> Message:
    """M2: every part without ``createdAt`` gets the scenario clock's stamp."""
    parts = message.parts or ()
    if all(p.created_at is not None for p in parts):
        return message
    return evolve(message, parts=tuple(p if p.created_at is not None else evolve(p, created_at=now) for p in parts))


def add(lst: MessageList, entries: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2 ``add``: strings become user messages, one level of nesting is flattened, each
    element is added by ``add_one``. Not atomic: when an element throws, the elements before
    it stay added (the error's ``partial``; docs/mastra-measurements.md §j)."""
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
    """The list with ``slots`` (re-sorted unless a message was appended in order) and the
    watermark moved to ``at``, the createdAt of the message just placed on the list."""
    wm = lst.watermark
    if wm is None or at > wm:
        wm = at
    if appended and (len(slots) < 2 or slots[-2].message.created_at <= at):
        return evolve(lst, slots=tuple(slots), watermark=wm)
    return evolve(lst, slots=_sorted(slots), watermark=wm)


def add_one(lst: MessageList, entry: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2-M4 ``addOne``, the rules of mastra-facts §1.3 in order, as measured
    (docs/mastra-measurements.md §j)."""
    if isinstance(entry, str):
        at = lst.clock if lst.watermark is None or lst.clock > lst.watermark else lst.watermark + 1
        lst, entry = lst.fresh(Message(id=f"msg-{lst.next_ref}", role=Role.USER, parts=(TextPart(entry),), created_at=at))
        lst = evolve(lst, watermark=at)
    if isinstance(entry, SystemMessage):
        # addOne's gate: content falsy and not a string (k19)
        if falsy(entry.content) and not isinstance(entry.content, str):
            raise MastraError("INVALID_MESSAGE_CONTENT")
        return lst if source is Source.MEMORY else add_system(lst, entry)
    if not isinstance(entry, Message):
        raise MastraError("INVALID_MESSAGE_CONTENT", "not a message")
    # 1. content check
    if entry.parts is None:
        raise MastraError("INVALID_MESSAGE_CONTENT")
    # 2. system role
    if entry.role is Role.SYSTEM:
        return lst if source is Source.MEMORY else add_system(lst, entry)
    # 3. conversion: stored-format parts, thread check, thread/resource filled in, part stamps
    entry = as_db_message(entry)
    if source is not Source.MEMORY and (
        (entry.thread_id is not None and lst.thread_id is not None and entry.thread_id != lst.thread_id)
        or (entry.resource_id is not None and lst.resource_id is not None and entry.resource_id != lst.resource_id)
    ):
        raise MastraError("MESSAGE_THREAD_MISMATCH")
    if (entry.thread_id is None and lst.thread_id is not None) or (entry.resource_id is None and lst.resource_id is not None):
        entry = evolve(entry, thread_id=entry.thread_id or lst.thread_id, resource_id=entry.resource_id or lst.resource_id)
    if entry.ref == 0:
        lst, entry = lst.fresh(entry)
    # A message carrying createdAt is never bumped (docs/mastra-measurements.md §c).
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
    if restamped and existing is not None and existing.message.ref == entry.ref:
        # the stamps are written into the part objects: the same object on the list shows them
        existing = slots[at] = Slot(entry, existing.sources)
        lst = evolve(lst, slots=tuple(slots))
    if restamped and slots:
        # and so does every object sharing the content or a part (k57)
        shared(slots, entry)
        existing = slots[at] if at is not None else None
        lst = evolve(lst, slots=tuple(slots))

    # ``shouldReplaceMessage`` compares a same-id message's cache keys before anything else
    # (``messagesAreEqual``), so a key that throws stops the add here, fold or not
    equal = existing is not None and cache_key(existing.message) == cache_key(entry)

    # 5. memory-over-live fold (M3): whenever the same-id message is live in input, response
    # or context, even when it is in memory too; memory is pushed first, then the live
    # copy's source (so a response copy ends as {response}).
    if source is Source.MEMORY and existing is not None:
        folded = memory_fold(entry, existing)
        if folded is not None:
            slots[at] = folded
            return _placed(lst, slots, folded.message.created_at)

    # 6. memory dedupe: a no-op, the watermark included
    if source is Source.MEMORY and equal:
        return lst

    # 7. merge into the latest message (M4), whatever message the id names
    if merge is not False and slots and _mergeable(slots[-1].message, entry, source):
        latest = slots[-1]
        merged = entry if latest.message.ref == entry.ref else merge_parts(latest.message, entry)
        slots[-1] = Slot(merged, _push(latest.sources, source))
        shared(slots, merged)
        return evolve(lst, slots=_sorted(slots))

    if existing is not None:
        if equal:
            if existing.message.ref == entry.ref:
                # the same object: its parts were stamped in place (§b)
                slots[at] = Slot(entry, _push(existing.sources, source))
                return evolve(lst, slots=tuple(slots))
            # an equal copy joins the source set without entering the array (§a): only the
            # id-based checker sees it
            return evolve(lst, detached=lst.detached + ((entry.id, source),))
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


def shared(slots: list[Slot], message: Message) -> None:
    """M2, M4, M11, G5: an in-place write to ``message``'s content or parts (a stamp, a merge,
    the cached mapping, a processor's edit) as every other object on the list sees it (k57):
    a message sharing its content takes its parts, metadata and tool-invocation mirror; a
    message holding one of its part objects takes that part. ``slots`` is changed in place;
    the slot of ``message`` itself is left to the caller."""
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
    """Put ``message`` in the slot of the object with its ref (an in-place edit of it), and
    show the edit in every object sharing its content or parts (k57)."""
    slots = [Slot(message, s.sources) if s.message.ref == message.ref else s for s in lst.slots]
    if len(slots) > 1:
        shared(slots, message)
    return evolve(lst, slots=tuple(slots))
