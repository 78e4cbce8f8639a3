"""M6 System messages: ``addSystem`` (conversion, dedupe by content within a bucket),
``replaceAllSystemMessages``, and the text of system content."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import falsy, join_texts, nullish_read, read, to_string
from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, Role, SystemMessage, TextPart, ToolPart
from guardspec.model.values import UNDEFINED, JsFunction, JsObject

from .parts import as_db_message
from .value import MessageList


def system_text(content: Any) -> Any:
    """M6.1 addSystem on the v5 path: the text a system content stands for, a string as it is or
    its text parts' texts joined by newlines; ``undefined`` when a part is not a text part or a
    text is not a string, or the content is neither."""
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
    """M6.1 addSystem on the v5 path: a content element as ``fromModelMessage`` converts it,
    ``(type, text)`` for a text part (its ``text`` read, a getter included), ``(type, None)``
    for another converted part, None for what it leaves out (non-objects and other types; the
    model's tool parts are ``tool-invocation``); a file or image part without data throws."""
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
    """M6.1 addSystem on the v5 path: the stored text (``fromModelMessage``, then
    ``systemToV4Core``): string content is one text part, array content its non-null object
    elements; empty text parts are dropped unless all are; the texts joined by newlines with
    ``Array.join`` (M14.3: null and undefined give ``""``, a symbol throws). ``""`` means no
    content (``INVALID_SYSTEM_MESSAGE_FORMAT``).

    Evidence: M6.1
    """
    if isinstance(content, str):
        converted = [("text", content)]
    elif isinstance(content, tuple):
        converted = [c for c in (_aiv5_part(p) for p in content) if c is not None]
    else:
        return ""
    if any(not (kind == "text" and text == "") for kind, text in converted):
        converted = [(kind, text) for kind, text in converted if not (kind == "text" and text == "")]
    return join_texts((text for kind, text in converted if kind == "text"), "\n")


def _v5_system(entry: SystemMessage) -> SystemMessage:
    """M6.1 addSystem on the v5 path: a new object is stored, its content the converted text
    (refused when empty); part providerOptions are dropped, the message's providerOptions
    become ``experimental_providerMetadata``, and null providerOptions vanish. Content and
    providerOptions are read, an accessor through its getter (M14.1), so the stored object
    holds their values as data.

    Evidence: M6.1
    """
    text = _aiv5_system_text(read(entry.content))
    if not text:
        raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
    # null providerOptions do not survive the conversion (seen through Breakwater, which
    # refuses null options it finds, G12.5)
    options = read(entry.provider_options)
    moved = UNDEFINED if options is None else options
    return SystemMessage(text, UNDEFINED, moved, ref=entry.ref)


def _v4_system(entry: SystemMessage) -> SystemMessage:
    """M6.2 addSystem on the v4 path: a system message with an ``experimental_providerMetadata``
    key, whatever its value, is stored by reference as given, array content and every
    providerOptions kept, accessors included; content that is neither a string nor an array
    (read through a getter, M14.1) is refused (M6.5).

    Evidence: M6.2
    """
    if not isinstance(read(entry.content), (str, tuple)):
        raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")
    return entry


def _as_system(entry: Any) -> SystemMessage:
    """M6.5 What addSystem ignores or refuses: what ``addSystem`` stores of its argument, or
    ``INVALID_SYSTEM_MESSAGE_FORMAT``. A string is kept; a system message goes the v4 path
    (M6.2) with an ``experimental_providerMetadata`` key (an accessor is a key too) and the v5
    path (M6.1) without, its content read first (a throwing getter throws, M14.1); one with no
    ``content`` key is stored as given (M6.4); a stored-format system message, a message of
    another role and anything else are refused.

    Evidence: M6.5
    """
    if isinstance(entry, str):
        return SystemMessage(entry)
    if isinstance(entry, SystemMessage):
        if entry.content is UNDEFINED and not entry.stored:
            # no ``content`` key: no format detector matches, the object is stored as given
            return entry
        # the format detection reads ``content`` first (``isMastraDBMessage``): a getter that
        # throws throws here, whichever path follows
        read(entry.content)
        if entry.experimental_provider_metadata is not UNDEFINED:
            return _v4_system(entry)
        return _v5_system(entry)
    # A stored-format system message is read through ``AIV4Adapter.systemToV4Core``, which
    # needs the ``content.content`` string mirror; the model's messages have none (parts only),
    # so it is refused (M2.8).
    raise MastraError("INVALID_SYSTEM_MESSAGE_FORMAT")


def _utf16_length(s: str) -> int:
    """M6.3 A text's length as the key counts it (``String.prototype.length``): UTF-16 code
    units, so a character outside the BMP counts two."""
    return len(s.encode("utf-16-le")) // 2


# what an element of array content shows as a JS object: the model's parts by their JSON fields
_PART_FIELDS: dict[type, dict[str, str]] = {
    TextPart: {"text": "text", "providerOptions": "provider_options"},
    ReasoningPart: {"text": "text"},
    FilePart: {"data": "data", "mediaType": "media_type"},
    ImagePart: {"data": "data", "mediaType": "media_type"},
}


def _get(v: Any, key: str) -> Any:
    """M14.1 ``v[key]`` on any value the model holds: null and undefined throw, an accessor
    yields its getter's value (or throws), a primitive has no such property but a string's or
    an array's ``length`` (a function's is 0)."""
    if v is None or v is UNDEFINED:
        raise nullish_read(v, key)
    if isinstance(v, JsObject):
        return read(v.get(key))
    if type(v) in _PART_FIELDS:
        if key == "type":
            return _AIV5_KINDS[type(v)]
        name = _PART_FIELDS[type(v)].get(key)
        return UNDEFINED if name is None else getattr(v, name)
    if isinstance(v, ToolPart):
        return "tool-invocation" if key == "type" else UNDEFINED
    if key == "length":
        if isinstance(v, str):
            return _utf16_length(v)
        if isinstance(v, tuple):
            return len(v)
        if isinstance(v, JsFunction):
            return 0
    return UNDEFINED


_ITEM_ID_PROVIDERS = ("openai", "azure")


def _item_keys(metadata: Any) -> list[str]:
    """M6.3 A text or reasoning part's response item ids (``getResponseProviderItemIds``): the
    ``itemId`` strings under ``openai`` and ``azure``, one ``azure`` entry when both hold the
    same id."""
    if falsy(metadata):
        return []

    def item(provider: str) -> Any:
        space = _get(metadata, provider)
        return UNDEFINED if space is None or space is UNDEFINED else _get(space, "itemId")

    azure, openai = item("azure"), item("openai")
    if isinstance(azure, str) and azure == openai:
        return [f"azure:{azure}"]
    return [f"{p}:{i}" for p in _ITEM_ID_PROVIDERS for i in (item(p),) if isinstance(i, str)]


def _image_key(image: Any) -> Any:
    """M6.3 An image's part of the key (``getImageCacheKey``): a string by its length, anything
    else as it is (the model holds no URL object or byte array as an image)."""
    return _utf16_length(image) if isinstance(image, str) else image


def _system_key(m: SystemMessage) -> Any:
    """M6.3 The dedupe key (``CacheKeyGenerator.fromAIV4CoreMessageContent``): string content
    is its own key; array content is the concatenation, element by element, of its ``type``
    and per type a text's (or reasoning's) length and response item ids, a tool call's or
    result's id and name, a file's filename and mimeType, an image's key and mimeType, a
    redacted reasoning's data length. Every read is a JS property read (M14.1): a null or
    undefined element throws ``Cannot read properties of null (reading 'type')``, a symbol
    where a string is appended throws (M14.3). Content that is neither (a kept stored-format
    ``{format: 2, parts}``, no content) is not iterable: the key throws (M6.4).

    Evidence: M6.3
    """
    content = read(m.content)
    if m.stored or not isinstance(content, (str, tuple)):
        raise MastraError("TypeError", "content is not iterable")
    if isinstance(content, str):
        return content
    key = ""
    for p in content:
        kind = _get(p, "type")
        key += to_string(kind)
        if kind in ("text", "reasoning"):
            key += to_string(_get(_get(p, "text"), "length"))
            for k in dict.fromkeys(_item_keys(_get(p, "providerMetadata")) + _item_keys(_get(p, "providerOptions"))):
                key += f"|{k}"
        elif kind in ("tool-call", "tool-result"):
            key += to_string(_get(p, "toolCallId")) + to_string(_get(p, "toolName"))
        elif kind == "file":
            key += to_string(_get(p, "filename")) + to_string(_get(p, "mimeType"))
        elif kind == "image":
            key += to_string(_image_key(_get(p, "image"))) + to_string(_get(p, "mimeType"))
        elif kind == "redacted-reasoning":
            key += to_string(_get(_get(p, "data"), "length"))
    return key


def _duplicate(bucket: tuple[SystemMessage, ...], msg: SystemMessage) -> bool:
    """M6.4 A poisoned bucket: ``isDuplicateSystem``, ``bucket.some(m => key(m.content) ===
    key(msg.content))``, keys each entry, then the new one, only while the bucket has entries:
    an empty bucket takes an entry without content, and once it holds one (or a kept
    stored-format entry) every later add to it throws ``content is not iterable``.

    Evidence: M6.4
    """
    return any(_system_key(m) == _system_key(msg) for m in bucket)


def add_system(lst: MessageList, entry: Any, tag: str | None = None) -> MessageList:
    """M6 System messages: ``addSystem``, the entry converted (M6.5) and stored in its bucket,
    untagged or tagged (a new tag's bucket after the others), unless the bucket holds a
    duplicate (M6.3; the scan stops at the first equal key, M6.4). A null, undefined or
    empty-string argument adds nothing."""
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
    """M6.6 replaceAllSystemMessages keeps entries as given: the untagged bucket is emptied and
    refilled with the system-role entries in order, others skipped, without dedupe or
    conversion; a stored-format system message keeps its ``{format: 2, parts}`` content (parts
    in the stored format, M2.2) and its message's metadata.

    Evidence: M6.6
    """
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


def replace_reading_roles(lst: MessageList, entries: tuple) -> tuple[MessageList, int | None]:
    """M6.6 replaceAllSystemMessages keeps entries as given, reading ``role`` of each in turn: a
    null or undefined entry throws there, with the entries before it already in. Returns the
    list as the replacement left it and the index of the entry it threw at, if any."""
    for i, e in enumerate(entries):
        if e is None or e is UNDEFINED:
            return replace_all_system(lst, entries[:i]), i
    return replace_all_system(lst, entries), None


def set_system(lst: MessageList, tag: str | None, index: int, msg: SystemMessage) -> MessageList:
    """M6 System messages: an in-place edit of a stored entry, the ``index``-th entry of a bucket
    replaced by ``msg`` (the same object, edited), the bucket's order kept."""
    if tag is None:
        u = list(lst.untagged)
        u[index] = msg
        return evolve(lst, untagged=tuple(u))
    return evolve(
        lst,
        tagged=tuple((t, tuple(msg if i == index else m for i, m in enumerate(b)) if t == tag else b) for t, b in lst.tagged),
    )
