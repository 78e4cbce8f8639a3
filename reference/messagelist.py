"""M1-M6: Mastra's MessageList as a pure value.

Each operation takes a ``MessageList`` and returns a new one (or raises ``MastraError`` where
Mastra throws). A message's membership in the source sets lives beside it in its ``Slot``;
membership is by object (``Message.ref``), as in Mastra, while the source checker works by id
(mastra-facts §1.1, §1.7).
"""

from __future__ import annotations

from typing import Any, Iterable

from attrs import field, frozen
from guardspec.model.fast import evolve

from guardspec.model.messages import (
    SOURCE_ORDER,
    TOOL_RANK,
    ToolState,
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

from .errors import MastraError
from .jsvalues import falsy, join_texts, read, to_string


@frozen
class StepStartPart(ReasoningPart):
    """Mastra's ``step-start`` part (a step boundary). ``MessageMerger`` inserts one before a
    text part merged after a trailing tool part (docs/mastra-measurements.md §j). It lives in a
    message's parts inside the substrate only: it has no text, no observation shows it (the
    adapter drops step-start parts), and it splits an assistant message in the prompt (M12).
    A subclass of ``ReasoningPart`` with empty text so that code reading parts sees no text."""


STEP_START = StepStartPart("")


@frozen
class ErrorPart(TextPart):
    """Mastra's ``error`` part: the response a failed model step leaves (M12, k13). The
    protocol has no word for it and reports it as the text ``<mastra part error>``
    (docs/protocol.md "Representation"); it gives no line in a title transcript (k26)."""


ERROR_PART = ErrorPart("<mastra part error>")


def visible_parts(parts: tuple | None) -> tuple | None:
    """The parts an observation shows: step-start parts dropped."""
    if parts is None:
        return parts
    for p in parts:
        if type(p) is StepStartPart:
            return tuple(q for q in parts if type(q) is not StepStartPart)
    return parts


def without_steps(m: Message) -> Message:
    vp = visible_parts(m.parts)
    return m if vp is m.parts else evolve(m, parts=vp)


@frozen
class Slot:
    message: Message
    sources: frozenset[Source]


EMPTY: frozenset[Source] = frozenset()


class Refs:
    """Object identities for one run: a counter every list value of the run shares.

    Identities only tell objects apart (``Message.ref``); they never reach an observation,
    so drawing them from one counter keeps a run a function of its scenario while sparing
    the interpreter a new list value per allocation."""

    __slots__ = ("n",)

    def __init__(self, start: int = 1) -> None:
        self.n = start

    def take(self) -> int:
        n = self.n
        self.n = n + 1
        return n


@frozen
class MessageList:
    """The list: slots in array order, system buckets, and what a run threads through it.

    ``clock`` is the scenario's ``now`` (M2 stamps); ``watermark`` is Mastra's createdAt
    watermark; ``refs`` hands out object identities. ``detached`` holds (id, source) of
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
    detached: tuple[tuple[str, Source], ...] = ()
    refs: Refs = field(factory=Refs, eq=False, repr=False)

    @property
    def next_ref(self) -> int:
        return self.refs.n

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

    def fresh(self, message: Message, share: str | None = None) -> tuple[MessageList, Message]:
        """M1, G5: a new object identity for ``message``: with a new content and new part objects
        (``share`` None); sharing the content, and so its parts, of the message it was spread
        from (``"content"``, ``{...m}``); or with a new content that keeps the part objects it
        carries over (``"parts"``, a part given no identity yet gets one) (k57)."""
        take = self.refs.take
        if share == "content" and message.content_ref:
            return self, evolve(message, ref=take())
        keep = share == "parts"
        parts = message.parts
        if parts:
            parts = tuple(p if keep and p.ref else evolve(p, ref=take()) for p in parts)
        return self, evolve(message, ref=take(), content_ref=take(), parts=parts)

    def fresh_system(self, message: SystemMessage) -> tuple[MessageList, SystemMessage]:
        return self, evolve(message, ref=self.refs.take())


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
    return frozenset(
        [s.message.id for s in lst.slots if source in s.sources] + [i for i, src in lst.detached if src is source]
    )


def sources_by_id(lst: MessageList) -> dict[str, frozenset[Source]]:
    return {s.message.id: s.sources for s in lst.slots}


# -- helpers -----------------------------------------------------------------------------------


_SINGLE = {src: frozenset({src}) for src in Source}


def _push(sources: frozenset[Source], source: Source) -> frozenset[Source]:
    """M1 source transitions (mastra-facts §1.2)."""
    if not sources:
        return _SINGLE[source]
    if source is Source.RESPONSE:
        return frozenset({Source.RESPONSE} | (sources - {Source.MEMORY, Source.INPUT}))
    return sources | {source}


def _sorted(slots: Iterable[Slot]) -> tuple[Slot, ...]:
    """After every non-system add the array is re-sorted by createdAt (stable)."""
    return tuple(sorted(slots, key=lambda s: s.message.created_at))


def part_key(p: Part) -> tuple:
    """``CacheKeyGenerator.fromDBParts([part])``: type + text; toolCallId + state for tool
    parts; reasoning text; file data + media type; the bare type for step-start."""
    if isinstance(p, TextPart):
        # ``cacheKey += part.text``: a symbol text throws (TypeError), any other value is
        # converted as ``String`` converts it (docs/breakwater-measurements.md §19)
        return ("text", to_string(p.text))
    if isinstance(p, ToolPart):
        return ("tool", p.tool_call_id, p.state.value)
    if isinstance(p, StepStartPart):
        return ("step-start",)
    if isinstance(p, ReasoningPart):
        return ("reasoning", p.text)
    if isinstance(p, (FilePart, ImagePart)):
        return ("file", repr(p.data), p.media_type)
    return (type(p).__name__,)


def cache_key(message: Message) -> tuple:
    """``messagesAreEqual``'s key: the id and the parts' keys."""
    return (message.id,) + tuple(part_key(p) for p in message.parts or ())


def as_db_message(message: Message) -> Message:
    """M2 conversion to the stored format (MastraDBMessage, ``format: 2``): its parts have no
    ``image`` kind, so an image part is held, stored, listed and sent as a ``file`` part with
    the same data, media type and stamp (docs/mastra-measurements.md §k, measured: an appended
    ``{type:'image', data:'note-22', mediaType:'image/png'}`` is listed and stored as
    ``{type:'file', ...}``). The same object (``ref``) when nothing changes."""
    parts = message.parts
    if not parts or not any(isinstance(p, ImagePart) for p in parts):
        return message
    return evolve(message, parts=tuple(FilePart(p.data, p.media_type, p.created_at) if isinstance(p, ImagePart) else p for p in parts))


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


# -- M6 system messages --------------------------------------------------------------------------


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


# -- M2-M4 add -----------------------------------------------------------------------------------


def _advances(stored: ToolState, incoming: ToolState) -> bool:
    """``advancesToolInvocationState``: a non-terminal stored state moved to a higher rank."""
    return TOOL_RANK[stored] < 4 and TOOL_RANK[incoming] > TOOL_RANK[stored]


def _spread(*sources: Any) -> JsObject:
    """``{...a, ...b}`` of JS values: own properties of objects; anything else adds nothing."""
    out = JsObject()
    for src in sources:
        if isinstance(src, JsObject):
            for k, v in src.props:
                out = out.set(k, v)
    return out


def _present(v: Any) -> bool:
    return v is not UNDEFINED and v is not None and v is not False and v != 0 and v != ""


def _merged_metadata(base: Any, extra: Any) -> Any:
    if not isinstance(base, JsObject) and not isinstance(extra, JsObject):
        return base
    return _spread(base, extra)


_APPROVAL_OR_ERROR = frozenset(
    {ToolState.APPROVAL_REQUESTED, ToolState.APPROVAL_RESPONDED, ToolState.OUTPUT_DENIED, ToolState.OUTPUT_ERROR}
)


def _push_new_part(parts: list, role: Role, incoming: list, i: int, part: Part, insert_at: int | None) -> int:
    """``MessageMerger.pushNewPart``: the part goes in only while the target holds fewer parts
    with its cache key than the incoming message; a text part after a trailing tool part gets
    a ``step-start`` before it."""
    key = part_key(part)
    if sum(1 for q in parts if part_key(q) == key) >= sum(1 for q in incoming if part_key(q) == key):
        return 0
    has_step_before = i > 0 and isinstance(incoming[i - 1], StepStartPart)
    needs = (
        role is Role.ASSISTANT
        and isinstance(part, TextPart)
        and not has_step_before
        and bool(parts)
        and isinstance(parts[-1], ToolPart)
    )
    if insert_at is not None:
        parts[insert_at:insert_at] = [STEP_START, part] if needs else [part]
    else:
        if needs:
            parts.append(STEP_START)
        parts.append(part)
    return 2 if needs else 1


def merge_parts(latest: Message, incoming: Message) -> Message:
    """M4 ``MessageMerger.merge`` (docs/mastra-measurements.md §j): an incoming tool part whose
    toolCallId the target holds updates that part (``result``: result and args, no rank check;
    approval/denied/error states: state, approval, errorText and args, the approval key placed
    before errorText where the stored part had no errorText (``ToolPart.approval_first``); ``call`` and
    ``partial-call``: nothing; a result also enters the legacy ``toolInvocations`` mirror,
    ``Message.tool_invocations``) and anchors the other parts; every other part is inserted at its
    anchored position (appended without anchors) by ``pushNewPart``."""
    parts = list(latest.parts or ())
    inc = list(incoming.parts or ())
    anchors: dict[int, int] = {}
    to_add: set[int] = set()
    mirror = None if latest.tool_invocations is None else list(latest.tool_invocations)
    for i, p in enumerate(inc):
        if isinstance(p, ToolPart):
            at = next(
                (j for j in range(len(parts) - 1, -1, -1) if isinstance(parts[j], ToolPart) and parts[j].tool_call_id == p.tool_call_id),
                None,
            )
            if at is None:
                to_add.add(i)
                continue
            q = parts[at]
            md = _spread(q.provider_metadata, p.provider_metadata) if _present(p.provider_metadata) else q.provider_metadata
            if p.state is ToolState.RESULT:
                parts[at] = evolve(q, state=ToolState.RESULT, result=p.result, args=_spread(q.args, p.args), provider_metadata=md)
                # the legacy ``content.toolInvocations`` mirror: created, then the entry for this
                # call replaced or appended (only a result writes it)
                mirror = [] if mirror is None else mirror
                k = next((j for j, t in enumerate(mirror) if t.tool_call_id == p.tool_call_id), None)
                if k is None:
                    mirror.append(parts[at])
                else:
                    mirror[k] = parts[at]
            elif p.state in _APPROVAL_OR_ERROR:
                # ``{...existing, state, approval, errorText, rawInput, args}``: a key the stored
                # part lacked is appended, approval before errorText; one it had keeps its place
                # (the key order a fingerprint sees, docs/breakwater-measurements.md §18)
                had_both = q.approval is not UNDEFINED and q.error_text is not UNDEFINED
                first = q.approval_first if had_both else q.error_text is UNDEFINED
                parts[at] = evolve(
                    q, state=p.state, approval=p.approval, error_text=p.error_text, args=_spread(q.args, p.args), provider_metadata=md,
                    approval_first=first,
                )
            anchors[i] = at
        else:
            to_add.add(i)
    prev_left, drift = -1, 0
    for i, p in enumerate(inc):
        if i not in to_add:
            continue
        if not anchors:
            _push_new_part(parts, latest.role, inc, i, p, None)
            continue
        left = max((k for k in anchors if k < i), default=-1)
        right = next((k for k in anchors if k > i), -1)
        left_latest = anchors[left] if left != -1 else 0
        offset = i if left == -1 else i - left
        if left != prev_left:
            drift, prev_left = 0, left
        insert_at = left_latest + offset + drift
        right_latest = anchors[right] if right != -1 else len(parts)
        key = part_key(p)
        if 0 <= insert_at <= right_latest and not any(part_key(q) == key for q in parts[insert_at:right_latest]):
            n = _push_new_part(parts, latest.role, inc, i, p, insert_at)
            if n == 0:
                continue
            drift += n - 1
            for k, v in list(anchors.items()):
                if v >= insert_at:
                    anchors[k] = v + n
    metadata = _merged_metadata(latest.metadata, incoming.metadata) if isinstance(incoming.metadata, JsObject) else latest.metadata
    return evolve(latest, parts=tuple(parts), metadata=metadata, tool_invocations=None if mirror is None else tuple(mirror))


def _client_tool_outcomes(stored: Message, live: Message) -> Message:
    """``clientToolOutcomes``: the live copy's client tool outcomes that advance a stored call,
    built on the stored call (args stay as stored; no stamp, no provider metadata)."""
    calls: dict[str, ToolPart] = {}
    for p in stored.parts or ():
        if isinstance(p, ToolPart):
            calls[p.tool_call_id] = p
    out = []
    for p in live.parts or ():
        if not isinstance(p, ToolPart):
            continue
        c = calls.get(p.tool_call_id)
        if c is None or not p.is_client_outcome or not _advances(c.state, p.state):
            continue
        approval = p.approval if p.approval is not UNDEFINED and p.approval is not None else c.approval
        out.append(ToolPart(c.tool_call_id, c.tool_name, p.state, args=c.args, result=p.result, error_text=p.error_text, approval=approval))
    return evolve(live, parts=tuple(out), metadata=UNDEFINED)


def _without_stale_tool_states(stored: Message, live: Message) -> Message:
    """``withoutStaleToolStates``: live tool parts that do not advance their stored call become
    bare calls (they only anchor the merge)."""
    states = {p.tool_call_id: p.state for p in stored.parts or () if isinstance(p, ToolPart)}
    if not states:
        return live
    parts = []
    changed = False
    for p in live.parts or ():
        if isinstance(p, ToolPart):
            s = states.get(p.tool_call_id)
            if s is not None and not _advances(s, p.state):
                p = ToolPart(p.tool_call_id, p.tool_name, ToolState.CALL, args=p.args)
                changed = True
        parts.append(p)
    return evolve(live, parts=tuple(parts)) if changed else live


def _reconcile_text(stored: Message, live: Message) -> Message:
    """The fold's whitespace reconciliation: a stored text part equal to a live one up to
    surrounding whitespace takes the live text."""
    parts = list(stored.parts or ())
    for lp in live.parts or ():
        if not isinstance(lp, TextPart):
            continue
        if not isinstance(lp.text, str):
            raise MastraError("TypeError", "text.trim is not a function")
        for j, sp in enumerate(parts):
            if isinstance(sp, TextPart):
                if not isinstance(sp.text, str):
                    raise MastraError("TypeError", "text.trim is not a function")
                if sp.text.strip() == lp.text.strip():
                    parts[j] = evolve(sp, text=lp.text)
                    break
    return evolve(stored, parts=tuple(parts))


def _mergeable(latest: Message, incoming: Message, source: Source) -> bool:
    """``MessageMerger.shouldMerge``: both assistant, same thread, not from memory."""
    return (
        latest.role is Role.ASSISTANT
        and incoming.role is Role.ASSISTANT
        and source is not Source.MEMORY
        and latest.thread_id == incoming.thread_id
    )


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
        live_src = next((x for x in (Source.INPUT, Source.RESPONSE, Source.CONTEXT) if x in existing.sources), None)
        if live_src is not None:
            live = existing.message
            if live_src is Source.INPUT:
                folded = merge_parts(entry, _client_tool_outcomes(entry, live))
            elif entry.role is Role.USER and live.role is Role.USER:
                # Mastra writes ``metadata: {...(stored.metadata ?? {}), ...(live.metadata ?? {})}``:
                # always an object, ``{}`` when neither copy has one (seed 8462 case 79)
                folded = evolve(entry, parts=live.parts, metadata=_spread(entry.metadata, live.metadata))
            else:
                folded = merge_parts(_reconcile_text(entry, live), _without_stale_tool_states(entry, live))
            slots[at] = Slot(folded, _push(_push(EMPTY, Source.MEMORY), live_src))
            return _placed(lst, slots, folded.created_at)

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


def push_source(lst: MessageList, message_id: str, source: Source) -> MessageList:
    """``pushMessageToSource`` for the message with that id (M1)."""
    return evolve(
        lst,
        slots=tuple(Slot(s.message, _push(s.sources, source)) if s.message.id == message_id else s for s in lst.slots),
    )


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
                slots[i] = Slot(evolve(m, parts=message.parts, metadata=message.metadata, tool_invocations=message.tool_invocations), s.sources)
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


def part_text(p: Part) -> str | None:
    if isinstance(p, (TextPart, ReasoningPart)) and isinstance(p.text, str):
        return p.text
    return None


__all__ = [
    "MastraError",
    "MessageList",
    "STEP_START",
    "StepStartPart",
    "visible_parts",
    "without_steps",
    "Slot",
    "add",
    "add_one",
    "as_db_message",
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
