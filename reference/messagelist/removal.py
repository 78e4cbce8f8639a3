"""M5 Removal: by id, by source set, and the durable loop's draining of the unsaved sets."""

from __future__ import annotations

from collections.abc import Iterable

from guardspec.model.fast import evolve
from guardspec.model.messages import SOURCE_ORDER, Source

from .value import MessageList, Slot


def remove_by_ids(lst: MessageList, ids: Iterable[str]) -> MessageList:
    """M5 ``removeByIds``: out of the list and every source; missing ids ignored."""
    drop = set(ids)
    if not drop:
        return lst
    return evolve(lst, slots=tuple(s for s in lst.slots if s.message.id not in drop))


def clear_source(lst: MessageList, source: Source) -> MessageList:
    """M5 ``clear.input.db()`` / ``clear.response.db()``: every message of that set leaves the
    list, memory+input ones included."""
    gone = [s for s in lst.slots if source in s.sources]
    if not gone and (not lst.detached or not any(d[1] is source for d in lst.detached)):
        return lst
    # the cleared objects stay in their other source sets, as stale references the id-based
    # checker still sees (docs/mastra-measurements.md §j)
    stale = tuple((s.message.id, x) for s in gone for x in SOURCE_ORDER if x in s.sources and x is not source)
    return evolve(
        lst,
        slots=tuple(s for s in lst.slots if source not in s.sources),
        detached=tuple(d for d in lst.detached if d[1] is not source) + stale,
    )


def drain_unsaved(lst: MessageList) -> MessageList:
    """``drainUnsavedMessages()`` (durable finalisation): input and response sets emptied; the
    messages stay on the list."""
    gone = {Source.INPUT, Source.RESPONSE}
    return evolve(lst, slots=tuple(Slot(s.message, s.sources - gone) for s in lst.slots))
