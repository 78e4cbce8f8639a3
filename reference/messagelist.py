"""M1-M6: Mastra's MessageList as a pure value.

Each operation takes a ``MessageList`` and returns a new one (or raises ``MastraError`` where
Mastra throws). A message's membership in the source sets lives beside it in its ``Slot``;
membership is by object (``Message.ref``), as in Mastra, while the source checker works by id
(mastra-facts §1.1, §1.7).
"""

from __future__ import annotations

from typing import Any, Iterable

from attrs import frozen
from guardspec.model.fast import evolve

from guardspec.model.messages import (
    SOURCE_ORDER,
    TOOL_RANK,
    Message,
    Part,
    ReasoningPart,
    Role,
    Source,
    SystemMessage,
    TextPart,
    ToolPart,
    FilePart,
    ImagePart,
)
from guardspec.model.values import UNDEFINED, JsObject


class MastraError(Exception):
    """An error Mastra throws (its MastraError id, or the JS error name)."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


@frozen
class Slot:
    message: Message
    sources: frozenset[Source]


EMPTY: frozenset[Source] = frozenset()


@frozen
class MessageList:
    """The list: slots in array order, system buckets, and the counters a pure run threads.

    ``clock`` is the scenario's ``now`` (M2 stamps); ``watermark`` is Mastra's createdAt
    watermark; ``next_ref`` hands out object identities. ``detached`` holds (id, source) of
    objects that sit in a source set without being on the list: an equal copy added under a
    non-memory source lands there (docs/mastra-measurements.md §a); only the id-based source
    checker sees them.
    """

    slots: tuple[Slot, ...] = ()
    untagged: tuple[SystemMessage, ...] = ()
    tagged: tuple[tuple[str, tuple[SystemMessage, ...]], ...] = ()
    thread_id: str | None = None
    resource_id: str | None = None
    clock: int = 0
    watermark: int | None = None
    next_ref: int = 1
    detached: tuple[tuple[str, Source], ...] = ()

    # -- views (mastra-facts §1.7) ---------------------------------------------------------

    def all(self) -> tuple[Message, ...]:
        """``get.all.db()``: every non-system message, in array order."""
        return tuple(s.message for s in self.slots)

    def view(self, source: Source) -> tuple[Message, ...]:
        """``get.remembered/input/response.db()``: the live set, in array order."""
        return tuple(s.message for s in self.slots if source in s.sources)

    def ids(self) -> tuple[str, ...]:
        return tuple(s.message.id for s in self.slots)

    def slot_of(self, message_id: str) -> Slot | None:
        for s in self.slots:
            if s.message.id == message_id:
                return s
        return None

    def holds_object(self, message: Message) -> bool:
        return any(s.message.ref == message.ref and s.message.id == message.id for s in self.slots)

    def system_all(self) -> tuple[SystemMessage, ...]:
        """M6 ``getAllSystemMessages()``: untagged, then each tag in insertion order."""
        out = list(self.untagged)
        for _, bucket in self.tagged:
            out.extend(bucket)
        return tuple(out)

    def fresh(self, message: Message) -> tuple[MessageList, Message]:
        """A new object identity for ``message``."""
        return evolve(self, next_ref=self.next_ref + 1), evolve(message, ref=self.next_ref)

    def fresh_system(self, message: SystemMessage) -> tuple[MessageList, SystemMessage]:
        return evolve(self, next_ref=self.next_ref + 1), evolve(message, ref=self.next_ref)


def checker(lst: MessageList) -> dict[str, Source]:
    """M1 ``makeMessageSourceChecker()``: snapshot id → first source in memory, input,
    response, context order."""
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
    return out


def sources_by_id(lst: MessageList) -> dict[str, frozenset[Source]]:
    return {s.message.id: s.sources for s in lst.slots}


# -- helpers -----------------------------------------------------------------------------------


def _push(sources: frozenset[Source], source: Source) -> frozenset[Source]:
    """M1 source transitions (mastra-facts §1.2)."""
    if source is Source.RESPONSE:
        return frozenset({Source.RESPONSE} | (sources - {Source.MEMORY, Source.INPUT}))
    return sources | {source}


def _sorted(slots: Iterable[Slot]) -> tuple[Slot, ...]:
    """After every non-system add the array is re-sorted by createdAt (stable)."""
    return tuple(sorted(slots, key=lambda s: s.message.created_at))


def cache_key(message: Message) -> tuple:
    """``messagesAreEqual``'s key: part type + text; toolCallId + state for tool parts."""
    key: list[Any] = [message.id]
    for p in message.parts or ():
        if isinstance(p, TextPart):
            key.append(("text", p.text if isinstance(p.text, str) else repr(p.text)))
        elif isinstance(p, ToolPart):
            key.append(("tool", p.tool_call_id, p.state.value))
        else:
            key.append((type(p).__name__,))
    return tuple(key)


def _stamp(message: Message, now: int) -> Message:
    """M2: every part without ``createdAt`` gets the scenario clock's stamp."""
    parts = message.parts or ()
    if all(p.created_at is not None for p in parts):
        return message
    return evolve(message, parts=tuple(p if p.created_at is not None else evolve(p, created_at=now) for p in parts))


def system_text(content: Any) -> Any:
    """The text of system content: a string, or text parts joined by newlines (M8, G7)."""
    if isinstance(content, str):
        return content
    if isinstance(content, tuple):
        texts = []
        for p in content:
            if isinstance(p, TextPart) and isinstance(p.text, str):
                texts.append(p.text)
            elif isinstance(p, JsObject) and isinstance(p.get("text"), str):
                texts.append(p.get("text"))
            else:
                return UNDEFINED
        return "\n".join(texts)
    return UNDEFINED


def _as_system(entry: Any) -> SystemMessage:
    """M6 / docs/mastra-measurements.md §e: what ``addSystem`` stores. A string is kept. A
    system message without an ``experimental_providerMetadata`` key is converted (AI SDK v5
    path): array content is flattened to one string joined by newlines, part providerOptions
    are dropped and the message's providerOptions move to experimental_providerMetadata. With
    that key (v4 path) it is stored as given. A DB-shaped system message is reduced to its
    text. Anything else throws ``INVALID_SYSTEM_MESSAGE_FORMAT``."""
    if isinstance(entry, str):
        return SystemMessage(entry)
    if isinstance(entry, SystemMessage):
        if entry.experimental_provider_metadata is not UNDEFINED:
            if not isinstance(entry.content, (str, tuple)):
                raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
            return entry
        text = system_text(entry.content)
        if text is UNDEFINED:
            raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
        return SystemMessage(text, UNDEFINED, entry.provider_options, ref=entry.ref)
    if isinstance(entry, Message) and entry.role is Role.SYSTEM:
        text = system_text(entry.parts) if entry.parts is not None else UNDEFINED
        if text is UNDEFINED:
            raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
        return SystemMessage(text, ref=entry.ref)
    raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")


def _system_key(m: SystemMessage) -> Any:
    """The dedupe key within a bucket: the content string; for array content, part types
    plus text lengths."""
    if isinstance(m.content, str):
        return m.content
    if isinstance(m.content, tuple):
        return tuple(
            ("text", len(p.text)) if isinstance(p, TextPart) and isinstance(p.text, str) else (type(p).__name__,)
            for p in m.content
        )
    return ("other", repr(m.content))


# -- M6 system messages --------------------------------------------------------------------------


def add_system(lst: MessageList, entry: Any, tag: str | None = None) -> MessageList:
    """M6 ``addSystem``: converted, deduped by content within its bucket."""
    if entry is None:
        return lst
    msg = _as_system(entry)
    if msg.ref == 0:
        lst, msg = lst.fresh_system(msg)
    key = _system_key(msg)
    if tag is None:
        if any(_system_key(m) == key for m in lst.untagged):
            return lst
        return evolve(lst, untagged=lst.untagged + (msg,))
    buckets = dict(lst.tagged)
    bucket = buckets.get(tag, ())
    if any(_system_key(m) == key for m in bucket):
        return lst
    if tag in buckets:
        return evolve(lst, tagged=tuple((t, b + (msg,) if t == tag else b) for t, b in lst.tagged))
    return evolve(lst, tagged=lst.tagged + ((tag, (msg,)),))


def replace_all_system(lst: MessageList, entries: Iterable[Any]) -> MessageList:
    """M6 ``replaceAllSystemMessages``: the untagged bucket only; system-role entries only; no
    dedupe. Entries are kept as they are (no conversion)."""
    kept = []
    for e in entries:
        if isinstance(e, SystemMessage):
            kept.append(e)
        elif isinstance(e, Message) and e.role is Role.SYSTEM:
            kept.append(SystemMessage(e.parts if e.parts is not None else UNDEFINED, ref=e.ref))
    return evolve(lst, untagged=tuple(kept))


def set_system(lst: MessageList, tag: str | None, index: int, msg: SystemMessage) -> MessageList:
    """Replace the ``index``-th entry of a bucket by ``msg`` (an in-place edit of that object)."""
    if tag is None:
        u = list(lst.untagged)
        u[index] = msg
        return evolve(lst, untagged=tuple(u))
    return evolve(
        lst,
        tagged=tuple(
            (t, tuple(msg if i == index else m for i, m in enumerate(b)) if t == tag else b)
            for t, b in lst.tagged
        ),
    )


# -- M5 removal ----------------------------------------------------------------------------------


def remove_by_ids(lst: MessageList, ids: Iterable[str]) -> MessageList:
    """M5 ``removeByIds``: out of the list and every source; missing ids ignored."""
    drop = set(ids)
    if not drop:
        return lst
    return evolve(lst, slots=tuple(s for s in lst.slots if s.message.id not in drop))


def clear_source(lst: MessageList, source: Source) -> MessageList:
    """M5 ``clear.input.db()`` / ``clear.response.db()``: every message of that set leaves the
    list, memory+input ones included."""
    return evolve(
        lst,
        slots=tuple(s for s in lst.slots if source not in s.sources),
        detached=tuple(d for d in lst.detached if d[1] is not source),
    )


def drain_unsaved(lst: MessageList) -> MessageList:
    """``drainUnsavedMessages()`` (durable finalisation): input and response sets emptied; the
    messages stay on the list."""
    gone = {Source.INPUT, Source.RESPONSE}
    return evolve(lst, slots=tuple(Slot(s.message, s.sources - gone) for s in lst.slots))


# -- M2-M4 add -----------------------------------------------------------------------------------


def _advancing_outcomes(stored: Message, live: Message) -> Message:
    """M3: the stored copy with the live copy's client tool outcomes that advance a stored
    call merged onto it (args and metadata stay as stored)."""
    outcomes = {
        p.tool_call_id: p for p in live.parts or () if isinstance(p, ToolPart) and p.is_client_outcome
    }
    if not outcomes:
        return stored
    parts = []
    for p in stored.parts or ():
        o = outcomes.get(p.tool_call_id) if isinstance(p, ToolPart) else None
        if o is not None and TOOL_RANK[o.state] > TOOL_RANK[p.state] and TOOL_RANK[p.state] < 4:
            p = evolve(
                p,
                state=o.state,
                result=o.result,
                error_text=o.error_text,
                approval=o.approval,
                provider_metadata=o.provider_metadata if o.provider_metadata is not UNDEFINED else p.provider_metadata,
                created_at=o.created_at if o.created_at is not None else p.created_at,
            )
        parts.append(p)
    return evolve(stored, parts=tuple(parts))


def merge_parts(latest: Message, incoming: Message) -> Message:
    """M4 ``MessageMerger.merge``: a tool part with a known toolCallId overwrites the matching
    part (no rank check); every other part is appended."""
    parts = list(latest.parts or ())
    for p in incoming.parts or ():
        if isinstance(p, ToolPart):
            at = next(
                (i for i, q in enumerate(parts) if isinstance(q, ToolPart) and q.tool_call_id == p.tool_call_id),
                None,
            )
            if at is not None:
                parts[at] = p
                continue
        parts.append(p)
    return evolve(latest, parts=tuple(parts))


def _mergeable(latest: Message, incoming: Message, source: Source) -> bool:
    return (
        latest.role is Role.ASSISTANT
        and incoming.role is Role.ASSISTANT
        and source is not Source.MEMORY
        and latest.thread_id == incoming.thread_id
    )


def add(lst: MessageList, entries: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2 ``add``: strings become user messages, one level of nesting is flattened, each
    element is added by ``add_one``."""
    if isinstance(entries, tuple):
        flat: list[Any] = []
        for e in entries:
            flat.extend(e if isinstance(e, tuple) else (e,))
    else:
        flat = [entries]
    for e in flat:
        lst = add_one(lst, e, source, merge)
    return lst


def add_one(lst: MessageList, entry: Any, source: Source, merge: bool | None = None) -> MessageList:
    """M2-M4 ``addOne``, the rules of mastra-facts §1.3 in order."""
    if isinstance(entry, str):
        at = lst.clock if lst.watermark is None or lst.clock > lst.watermark else lst.watermark + 1
        lst, entry = lst.fresh(Message(id=f"msg-{lst.next_ref}", role=Role.USER, parts=(TextPart(entry),), created_at=at))
    if isinstance(entry, SystemMessage):
        if entry.content is UNDEFINED or entry.content is None:
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
    # 3. conversion: thread check, thread/resource filled in, part stamps
    if source is not Source.MEMORY and (
        (entry.thread_id is not None and lst.thread_id is not None and entry.thread_id != lst.thread_id)
        or (entry.resource_id is not None and lst.resource_id is not None and entry.resource_id != lst.resource_id)
    ):
        raise MastraError("MESSAGE_THREAD_MISMATCH")
    if entry.thread_id is None and lst.thread_id is not None:
        entry = evolve(entry, thread_id=lst.thread_id, resource_id=entry.resource_id or lst.resource_id)
    if entry.ref == 0:
        lst, entry = lst.fresh(entry)
    # A message carrying createdAt is never bumped (docs/mastra-measurements.md §c); the
    # watermark is the largest createdAt seen and only dates strings.
    if source is not Source.MEMORY:
        entry = _stamp(entry, lst.clock)
    wm = entry.created_at if lst.watermark is None else max(lst.watermark, entry.created_at)
    if wm != lst.watermark:
        lst = evolve(lst, watermark=wm)

    # 4. replacement lookup
    at = next((i for i, s in enumerate(lst.slots) if s.message.id == entry.id), None)
    existing = lst.slots[at] if at is not None else None
    slots = list(lst.slots)

    # 5. memory-over-live fold (M3)
    if source is Source.MEMORY and existing is not None and Source.MEMORY not in existing.sources and existing.sources:
        live = existing.message
        if Source.INPUT in existing.sources:
            folded = _advancing_outcomes(entry, live)
            sources = frozenset({Source.MEMORY}) | existing.sources
        else:
            folded = evolve(entry, parts=live.parts) if live.role is Role.USER else merge_parts(entry, live)
            sources = frozenset({Source.MEMORY}) | existing.sources
        slots[at] = Slot(folded, sources)
        return evolve(lst, slots=_sorted(slots))

    equal = existing is not None and cache_key(existing.message) == cache_key(entry)
    # 6. memory dedupe
    if source is Source.MEMORY and existing is not None and equal:
        return lst

    # 7. merge into the latest message (M4)
    if merge is not False and slots:
        latest = slots[-1]
        if _mergeable(latest.message, entry, source) and (existing is None or existing is latest):
            slots[-1] = Slot(merge_parts(latest.message, entry), _push(latest.sources, source))
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
        else:
            slots[at] = Slot(entry, _push(EMPTY, source))
        return evolve(lst, slots=_sorted(slots))
    # 9. new id
    slots.append(Slot(entry, _push(EMPTY, source)))
    return evolve(lst, slots=_sorted(slots))


def push_source(lst: MessageList, message_id: str, source: Source) -> MessageList:
    """``pushMessageToSource`` for the message with that id (M1)."""
    return evolve(
        lst,
        slots=tuple(Slot(s.message, _push(s.sources, source)) if s.message.id == message_id else s for s in lst.slots),
    )


def replace_message(lst: MessageList, message: Message) -> MessageList:
    """Put ``message`` in the slot of the object with its ref (an in-place edit of it)."""
    return evolve(
        lst,
        slots=tuple(Slot(message, s.sources) if s.message.ref == message.ref else s for s in lst.slots),
    )


def part_text(p: Part) -> str | None:
    if isinstance(p, (TextPart, ReasoningPart)) and isinstance(p.text, str):
        return p.text
    return None


__all__ = [
    "MastraError",
    "MessageList",
    "Slot",
    "add",
    "add_one",
    "add_system",
    "checker",
    "clear_source",
    "drain_unsaved",
    "merge_parts",
    "push_source",
    "remove_by_ids",
    "replace_all_system",
    "replace_message",
    "set_system",
    "sources_by_id",
    "system_text",
    "FilePart",
    "ImagePart",
]
