"""M1 Source sets: how a message's sources change as it is added, and the id-based source
checker."""

from __future__ import annotations

from guardspec.model.fast import evolve
from guardspec.model.messages import SOURCE_ORDER, Source

from .value import MessageList, Slot


def checker(lst: MessageList) -> dict[str, Source]:
    """M1 ``makeMessageSourceChecker()``: snapshot id → first source in memory, input,
    response, context order. The snapshot is taken of the source sets, not of the list: a
    message ``clear.input.db()`` took off the list is still in its other sets (``detached``), so
    its id keeps that source though no slot holds it, and a processor returning the object
    re-adds it there (``createSourceChecker`` maps each set's messages to ids; measured,
    docs/mastra-measurements.md §k k54)."""
    out: dict[str, Source] = {}
    extra: dict[str, set[Source]] = {}
    for i, src in lst.detached:
        extra.setdefault(i, set()).add(src)
    for s in lst.slots:
        have = s.sources | extra.get(s.message.id, set()) if extra else s.sources
        for src in SOURCE_ORDER:
            if src in have:
                out.setdefault(s.message.id, src)
                break
    for i, have in extra.items():
        if i not in out:
            out[i] = next(src for src in SOURCE_ORDER if src in have)
    return out


def source_ids(lst: MessageList, source: Source) -> frozenset[str]:
    """M1 ``makeMessageSourceChecker()``'s set for ``source``: the ids of its members, on the
    list or off it (``detached``, k54), as Breakwater asks it (``memory.has(id)``,
    docs/breakwater-measurements.md §27)."""
    return frozenset([s.message.id for s in lst.slots if source in s.sources] + [i for i, src in lst.detached if src is source])


def sources_by_id(lst: MessageList) -> dict[str, frozenset[Source]]:
    return {s.message.id: s.sources for s in lst.slots}


_SINGLE = {src: frozenset({src}) for src in Source}


def _push(sources: frozenset[Source], source: Source) -> frozenset[Source]:
    """M1 source transitions (mastra-facts §1.2)."""
    if not sources:
        return _SINGLE[source]
    if source is Source.RESPONSE:
        return frozenset({Source.RESPONSE} | (sources - {Source.MEMORY, Source.INPUT}))
    return sources | {source}


def push_source(lst: MessageList, message_id: str, source: Source) -> MessageList:
    """``pushMessageToSource`` for the message with that id (M1)."""
    return evolve(
        lst,
        slots=tuple(Slot(s.message, _push(s.sources, source)) if s.message.id == message_id else s for s in lst.slots),
    )
