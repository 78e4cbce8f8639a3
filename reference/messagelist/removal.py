"""M5 Removal: by id, by source set, and the durable loop's draining of the unsaved sets (M10.2)."""

from __future__ import annotations

from collections.abc import Iterable

from guardspec.model.fast import evolve
from guardspec.model.messages import SOURCE_ORDER, Source

from .value import MessageList, Slot


def remove_by_ids(lst: MessageList, ids: Iterable[str]) -> MessageList:
    """M5.1 removeByIds: the named messages leave the list and every source set; ids the list
    does not hold are ignored, and the list gets a new message array.

    Evidence: M5.1
    """
    drop = set(ids)
    if not drop:
        return lst
    return evolve(lst, slots=tuple(s for s in lst.slots if s.message.id not in drop))


def clear_source(lst: MessageList, source: Source) -> MessageList:
    """M5 Removal: ``clear.input.db()`` / ``clear.response.db()``, every message of that set
    leaves the list, memory+input ones included, and stays in its other sets (M5.2)."""
    gone = [s for s in lst.slots if source in s.sources]
    if not gone and (not lst.detached or not any(d[1] is source for d in lst.detached)):
        return lst
    return evolve(
        lst,
        slots=tuple(s for s in lst.slots if source not in s.sources),
        detached=tuple(d for d in lst.detached if d[1] is not source) + _stale_members(gone, source),
    )


def _stale_members(gone: list[Slot], source: Source) -> tuple[tuple[str, Source], ...]:
    """M5.2 Clearing leaves stale members: a clear empties only its own set, so each cleared
    message stays in its other sets (memory, context, response) off the list, where only the
    id-based checker sees it (M1.2).

    Evidence: M5.2
    """
    return tuple((s.message.id, x) for s in gone for x in SOURCE_ORDER if x in s.sources and x is not source)


def drain_unsaved(lst: MessageList) -> MessageList:
    """M10.2 Finalisation drains the sets: ``drainUnsavedMessages()``, after the durable
    finalisation's save, empties the input and response sets; the messages stay on the list."""
    gone = {Source.INPUT, Source.RESPONSE}
    return evolve(lst, slots=tuple(Slot(s.message, s.sources - gone) for s in lst.slots))
