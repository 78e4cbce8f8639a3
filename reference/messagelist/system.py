"""M6 System messages: ``addSystem`` (conversion, dedupe by content within a bucket),
``replaceAllSystemMessages``, and the text of system content."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import join_texts, read
from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, Role, SystemMessage, TextPart
from guardspec.model.values import UNDEFINED, JsObject

from .parts import as_db_message
from .value import MessageList


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


# the part types ``AIV5Adapter.fromModelMessage`` converts (any other part is left out)
_AIV5_KINDS = {TextPart: "text", ReasoningPart: "reasoning", FilePart: "file", ImagePart: "image"}


_AIV5_TYPES = frozenset({"text", "reasoning", "file", "image", "tool-call", "tool-result"})


def _aiv5_part(p: Any) -> tuple[str, Any] | None:
    """A content element as ``fromModelMessage`` converts it: ``(type, text)`` for a text
    part (its ``text`` read, getters included), ``(type, None)`` for another converted part,
    None for what it leaves out (non-objects, other types; the model's tool parts are
    ``tool-invocation``)."""
    if type(p) in _AIV5_KINDS:
        kind = _AIV5_KINDS[type(p)]
        return (kind, read(p.text)) if kind == "text" else (kind, None)
    if isinstance(p, JsObject):
        kind = read(p.get("type"))
        if kind == "text":
            return kind, read(p.get("text"))
        if kind in ("file", "image") and not (p.has("data") or p.has("image") or isinstance(read(p.get("url")), str)):
            raise MastraError("MASTRA_AIV5_DATA_PART_INVALID")
        return (kind, None) if kind in _AIV5_TYPES else None
    return None


def _aiv5_system_text(content: Any) -> str:
    """M6 ``addSystem`` of a system message without ``experimental_providerMetadata`` (AI SDK
    v5 path: ``AIV5Adapter.fromModelMessage`` then ``systemToV4Core``, measured:
    docs/mastra-measurements.md §k k16): string content is one text part, array content its
    non-null object elements, anything else nothing; empty text parts are dropped unless
    every converted part is one; the stored text is the text parts' texts joined by newlines
    with ``Array.join`` (a getter is read, null/undefined give ``""``, other values
    ``String(v)``: ``{}`` gives ``"[object Object]"``, a symbol throws). ``""`` means no
    content (``INVALID_SYSTEM_MESSAGE_FORMAT``)."""
    if isinstance(content, str):
        converted = [("text", content)]
    elif isinstance(content, tuple):
        converted = [c for c in (_aiv5_part(p) for p in content) if c is not None]
    else:
        return ""
    if any(not (kind == "text" and text == "") for kind, text in converted):
        converted = [(kind, text) for kind, text in converted if not (kind == "text" and text == "")]
    return join_texts((text for kind, text in converted if kind == "text"), "\n")


def _as_system(entry: Any) -> SystemMessage:
    """M6 / docs/mastra-measurements.md §e: what ``addSystem`` stores. A string is kept. A
        system message without an ``experimental_providerMetadata`` key is converted (AI SDK v5
        path): array content is flattened to one string joined by newlines, part providerOptions
        are dropped and the message's providerOptions move to experimental_providerMetadata. With
        that key (v4 path) it is stored as given. A DB-shaped system message is reduced to its
        text only when it carries a ``content.content`` string, which model messages never do: like
    anything else it throws ``INVALID_SYSTEM_MESSAGE_FORMAT``."""
    if isinstance(entry, str):
        return SystemMessage(entry)
    if isinstance(entry, SystemMessage):
        if entry.content is UNDEFINED and not entry.stored:
            # no ``content`` key: no format detector matches, the object is stored as given (§g)
            return entry
        if entry.experimental_provider_metadata is not UNDEFINED:
            if not isinstance(entry.content, (str, tuple)):
                raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
            return entry
        text = _aiv5_system_text(entry.content)
        if not text:
            raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
        # null providerOptions do not survive the conversion (measured through Breakwater, which
        # refuses null options it finds: docs/breakwater-measurements.md §7)
        moved = UNDEFINED if entry.provider_options is None else entry.provider_options
        return SystemMessage(text, UNDEFINED, moved, ref=entry.ref)
    # A DB-shaped system message is read through ``AIV4Adapter.systemToV4Core``, which needs
    # the ``content.content`` string mirror; the model's messages have none (parts only), so it
    # is refused (docs/mastra-measurements.md §j).
    raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")


def _system_key(m: SystemMessage) -> Any:
    """The dedupe key within a bucket (``CacheKeyGenerator.fromAIV4CoreMessageContent``): the
    content string; for array content, part types plus text lengths. Content that is neither
    (a kept stored-format message's ``{format: 2, parts}``, no content, any other value) is not
    iterable: the key throws ``TypeError: content is not iterable`` (§g; measured for a
    stored-format entry, docs/mastra-measurements.md §k). A text read through a getter is the
    getter's value (k16)."""
    if m.stored or not isinstance(m.content, (str, tuple)):
        raise MastraError("TypeError", "content is not iterable")
    if isinstance(m.content, str):
        return m.content
    if isinstance(m.content, tuple):
        return tuple(
            ("text", len(read(p.text))) if isinstance(p, TextPart) and isinstance(read(p.text), str) else (type(p).__name__,)
            for p in m.content
        )
    return ("other", repr(m.content))


def _duplicate(bucket: tuple[SystemMessage, ...], msg: SystemMessage) -> bool:
    """M6 ``isDuplicateSystem``: ``bucket.some(m => key(m.content) === key(msg.content))``:
    each entry's key, then the new one's, only while the bucket has entries (an empty bucket
    takes an entry without content: measured, docs/mastra-measurements.md §g, k19)."""
    return any(_system_key(m) == _system_key(msg) for m in bucket)


def add_system(lst: MessageList, entry: Any, tag: str | None = None) -> MessageList:
    """M6 ``addSystem``: converted, deduped by content within its bucket (the scan stops at
    the first equal key; an entry on the way whose content is not iterable throws, so a kept
    stored-format entry or an entry without content poisons its bucket, §g, §k). A falsy
    argument (null, undefined, "") adds nothing."""
    if entry is None or entry is UNDEFINED or (isinstance(entry, str) and entry == ""):
        return lst
    msg = _as_system(entry)
    if msg.ref == 0:
        lst, msg = lst.fresh_system(msg)
    if tag is None:
        if _duplicate(lst.untagged, msg):
            return lst
        return evolve(lst, untagged=lst.untagged + (msg,))
    buckets = dict(lst.tagged)
    bucket = buckets.get(tag, ())
    if _duplicate(bucket, msg):
        return lst
    if tag in buckets:
        return evolve(lst, tagged=tuple((t, b + (msg,) if t == tag else b) for t, b in lst.tagged))
    return evolve(lst, tagged=lst.tagged + ((tag, (msg,)),))


def replace_all_system(lst: MessageList, entries: Iterable[Any]) -> MessageList:
    """M6 ``replaceAllSystemMessages``: the untagged bucket only; system-role entries only; no
    dedupe. Entries are kept as they are (no conversion): a stored-format system message keeps
    its ``{format: 2, parts}`` content, its message's metadata included (measured,
    docs/mastra-measurements.md §k: probe ``k-db-system-entries``, k35)."""
    kept = []
    for e in entries:
        if isinstance(e, SystemMessage):
            kept.append(e)
        elif isinstance(e, Message) and e.role is Role.SYSTEM:
            if e.parts is None:
                kept.append(SystemMessage(UNDEFINED, ref=e.ref))
            else:
                kept.append(SystemMessage(as_db_message(e).parts, stored=True, metadata=e.metadata, ref=e.ref))
    return evolve(lst, untagged=tuple(kept))


def set_system(lst: MessageList, tag: str | None, index: int, msg: SystemMessage) -> MessageList:
    """Replace the ``index``-th entry of a bucket by ``msg`` (an in-place edit of that object)."""
    if tag is None:
        u = list(lst.untagged)
        u[index] = msg
        return evolve(lst, untagged=tuple(u))
    return evolve(
        lst,
        tagged=tuple((t, tuple(msg if i == index else m for i, m in enumerate(b)) if t == tag else b) for t, b in lst.tagged),
    )
