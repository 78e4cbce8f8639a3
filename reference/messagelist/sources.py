"""M1 Source sets: how a message's sources change as it is added, and the id-based source
checker."""

from __future__ import annotations

from guardspec.model.fast import evolve
from guardspec.model.messages import SOURCE_ORDER, Source

from .value import MessageList, Slot


def checker(lst: MessageList) -> dict[str, Source]:
    """M1 Source sets: ``makeMessageSourceChecker()``, a snapshot of id → first source in the
    order memory, input, response, context, so a memory+input message is named memory.

    The snapshot is taken of the source sets, not of the list (M1.2): a message a clear took
    off the list is still in its other sets (``detached``), so its id keeps that source though
    no slot holds it, and a processor returning the object re-adds it there.
    """
    out: dict[str, Source] = {}
    for i, have in checked_sources(lst).items():
        first = next((src for src in SOURCE_ORDER if src in have), None)
        if first is not None:
            out[i] = first
    return out


def source_ids(lst: MessageList, source: Source) -> frozenset[str]:
    """M1.2 The checker works on ids, on the list or off it: the checker's set for ``source``,
    the ids of its members on the list and off it (``detached``: an equal copy, M2.6, or a
    message a clear left in its other sets, M5.2), as Breakwater asks it (``memory.has(id)``).

    Evidence: M1.2
    """
    return frozenset([s.message.id for s in lst.slots if source in s.sources] + [i for i, src in lst.detached if src is source])


def sources_by_id(lst: MessageList) -> dict[str, frozenset[Source]]:
    """M1 Source sets: every message on the list by id, with the source sets it is in."""
    return {s.message.id: s.sources for s in lst.slots}


def checked_sources(lst: MessageList) -> dict[str, frozenset[Source]]:
    """M1.2 The checker works on ids, on the list or off it: by id, the source sets the checker
    finds it in, the sets of a message off the list (``detached``) included, so an id a clear
    took off the list still names the sets it is left in."""
    out = sources_by_id(lst)
    for i, src in lst.detached:
        out[i] = out.get(i, frozenset()) | {src}
    return out


_SINGLE = {src: frozenset({src}) for src in Source}


def _push(sources: frozenset[Source], source: Source) -> frozenset[Source]:
    """M1.1 Transitions of the same object: the sources after an add under ``source``: a new
    message has that source alone; ``response`` drops memory and input and keeps context; any
    other source is added to those held (``input`` keeps memory).

    Evidence: M1.1
    """
    if not sources:
        return _SINGLE[source]
    if source is Source.RESPONSE:
        return frozenset({Source.RESPONSE} | (sources - {Source.MEMORY, Source.INPUT}))
    return sources | {source}


def push_source(lst: MessageList, message_id: str, source: Source) -> MessageList:
    """M1 Source sets: ``pushMessageToSource`` for the message with that id, its sets changed as
    an add under ``source`` changes them (M1.1)."""
    out = evolve(
        lst,
        slots=tuple(Slot(s.message, _push(s.sources, source)) if s.message.id == message_id else s for s in lst.slots),
    )
    return responded(out) if source is Source.RESPONSE else out


def responded(lst: MessageList) -> MessageList:
    """M1.3 Persisted sets: ``lst`` with the ids its response set holds now, on the list or off
    it, recorded among those that have been there during the call."""
    now = {s.message.id for s in lst.slots if Source.RESPONSE in s.sources}
    now |= {i for i, src in lst.detached if src is Source.RESPONSE}
    return lst if now <= lst.responded else evolve(lst, responded=lst.responded | now)
