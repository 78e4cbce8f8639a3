"""M13 Finish: saving to the bound thread, the thread title, the result."""

from __future__ import annotations

from typing import Any

from guardspec.model.agent import Thread, ThreadStore
from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import json_round_trip, read, to_string
from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.observation import Result
from guardspec.model.values import UNDEFINED, Accessor, JsObject, to_json_text

from .messagelist import ErrorPart, MessageList, StepStartPart, as_db_message


def _durable_text(v: Any) -> Any:
    """M13.3 Stored as JSON holds it: on the durable loop a text part's text is saved as JSON holds
    it (getters read, functions and undefined left out, NaN null), and a text JSON cannot write
    is saved as ""."""
    try:
        return json_round_trip(v)
    except MastraError:
        return ""


def _no_string(p: Any) -> bool:
    """M13.2 What is saved: a text part whose text is no string (a getter is read when written)."""
    return type(p) is TextPart and not isinstance(p.text, (str, Accessor))


def _savable(m: Message, durable: bool = False) -> Message | None:
    """M13.2 What is saved: generate and stream drop partial-call parts and leave out a message
    left with no parts; the durable finalisation keeps partial-call parts of every role."""
    keep_partial = durable
    parts = tuple(
        p
        for p in m.parts or ()
        if not (isinstance(p, ToolPart) and p.state is ToolState.PARTIAL_CALL and not keep_partial) and not isinstance(p, StepStartPart)
    )
    if not durable and any(_no_string(p) for p in parts):
        # generate/stream save a null or undefined text as "" (measured; the durable loop keeps
        # null and leaves undefined out): ``filterMessagesForPersistence`` writes any
        # text that is no string as "" (the durable loop's first save)
        parts = tuple(evolve(p, text="") if _no_string(p) else p for p in parts)
    if durable and any(type(p) is TextPart and not isinstance(p.text, str) for p in parts):
        parts = tuple(evolve(p, text=_durable_text(p.text)) if type(p) is TextPart and not isinstance(p.text, str) else p for p in parts)
    if not parts:
        return None
    return evolve(m, parts=parts, ref=0)


def unwritable(m: Message) -> bool:
    """M13.4 A save JSON cannot write: ``JSON.stringify(message.content)`` throws for ``m``, a
    bigint or a throwing getter anywhere in its parts or metadata.

    Evidence: M13.4"""
    return _unwritable(m.parts) or _unwritable(m.metadata)


def _unwritable(v: Any) -> bool:
    if isinstance(v, tuple):
        return any(_unwritable(x) for x in v)
    if hasattr(type(v), "__attrs_attrs__") and type(v).__module__ != JsObject.__module__:
        # a part (or an approval, a tool state): its fields; a JavaScript value is checked whole
        return any(_unwritable(getattr(v, f.name)) for f in type(v).__attrs_attrs__ if f.eq)
    try:
        json_round_trip(v)
    except MastraError:
        return True
    return False


def save(store: ThreadStore, thread_id: str, resource: str | None, lst: MessageList, durable: bool = False) -> ThreadStore:
    """M13.1 Saving and storage order: the input then the response messages are saved to the bound
    thread, an upsert by id; storage keeps one map of messages by id over all threads and lists
    a thread's messages by a stable sort on createdAt, so an id stored earlier in another thread
    keeps its earlier place.

    Evidence: M13.1"""
    thread, rows, place = _rows(store, thread_id, resource)
    _write(rows, place, [_savable(m, durable) for m in lst.view(Source.INPUT) + lst.view(Source.RESPONSE)], thread_id, resource, stop=False)
    return _put(store, thread, rows, place)


def save_raw(store: ThreadStore, thread_id: str, resource: str | None, lst: MessageList, durable: bool = False) -> tuple[ThreadStore, bool]:
    """M13.4 A save JSON cannot write: raw mode saves as Mastra's history processor does, the input
    then the response messages filtered as M13.2 says, written one at a time; a message whose
    content JSON cannot write stops the save, those before it stay saved. Returns the threads
    and whether the save failed."""
    thread, rows, place = _rows(store, thread_id, resource)
    first = [_savable(m, False) for m in lst.view(Source.INPUT) + lst.view(Source.RESPONSE)]
    ok = _write(rows, place, first, thread_id, resource)
    if durable:
        unsaved = [sl.message for sl in lst.slots if sl.sources & {Source.INPUT, Source.RESPONSE}]
        _write(
            rows,
            place,
            [_STOP if unwritable(m) else _savable(m, True) if m.parts else evolve(m, ref=0) for m in unsaved],
            thread_id,
            resource,
        )
    return _put(store, thread, rows, place), not ok


_STOP = object()
"""A message whose content JSON cannot write: the storage throws there."""


def _rows(store: ThreadStore, thread_id: str, resource: str | None) -> tuple[Thread, dict, dict]:
    thread = store.get(thread_id) or Thread(thread_id, resource)
    rows = {m.id: m for m in thread.messages}
    place: dict[str, int] = {}
    for t in store.threads:
        for m in t.messages:
            place.setdefault(m.id, len(place))
    return thread, rows, place


def _write(rows: dict, place: dict, versions: list, thread_id: str, resource: str | None, stop: bool = True) -> bool:
    """Write each saved version in order (None: not saved); with ``stop``, a version JSON
    cannot write, or ``_STOP``, ends the save: False."""
    for s in versions:
        if s is None:
            continue
        if stop and (s is _STOP or unwritable(s)):
            return False
        s = evolve(stored_content(s), thread_id=thread_id, resource_id=resource)
        place.setdefault(s.id, len(place))
        rows[s.id] = s
    return True


def _as_json(v: Any) -> Any:
    """One slot of a message's content as the storage reads it back (``jsvalues.json_round_trip``);
    a value JSON cannot write is left as it is (the raw save stops before it, ``unwritable``;
    the guarded path does not model that failure)."""
    if v is UNDEFINED or isinstance(v, str):
        return v
    try:
        return json_round_trip(v)
    except MastraError:
        return v


# the slots of each part kind that hold a caller's or a processor's value (the others are
# strings, numbers or enums, which JSON keeps)
_JSON_SLOTS = {
    TextPart: ("text", "provider_options"),
    FilePart: ("data",),
    ImagePart: ("data",),
    ToolPart: ("args", "result", "error_text", "approval", "provider_metadata"),
}


def _stored_part(p: Any) -> Any:
    slots = _JSON_SLOTS.get(type(p)) or (_JSON_SLOTS[TextPart] if isinstance(p, TextPart) else ())
    changes = {}
    for f in slots:
        v = getattr(p, f)
        w = _as_json(v)
        if w is not v and not (type(w) is type(v) and w == v):
            changes[f] = w
    return evolve(p, **changes) if changes else p


def stored_content(m: Message) -> Message:
    """M13.3 Stored as JSON holds it: storage writes each message's content as JSON and lists it
    back parsed, so every saved slot is what JSON holds (metadata, a file part's data, a tool
    part's values); an empty metadata object counts as none.

    Evidence: M13.3"""
    if not m.parts and m.metadata is UNDEFINED:
        return m
    parts = m.parts
    if parts:
        new = tuple(_stored_part(p) for p in parts)
        if any(a is not b for a, b in zip(new, parts)):
            parts = new
    meta = _as_json(m.metadata)
    if parts is m.parts and meta is m.metadata:
        return m
    return evolve(m, parts=parts, metadata=meta)


def _put(store: ThreadStore, thread: Thread, rows: dict, place: dict) -> ThreadStore:
    msgs = tuple(sorted(rows.values(), key=lambda m: (m.created_at, place[m.id])))
    return store.put(evolve(thread, messages=msgs))


def _line_value(v: Any) -> str:
    """M13.8 The title transcript: a result or args value in a line, cut to 200 characters: a
    string as it is, anything else as ``JSON.stringify`` writes it. A bigint makes
    ``JSON.stringify`` throw, and undefined, a function or a symbol give no text to cut, which
    throws too: either way the title generation fails and no title is made (M13.9)."""
    if isinstance(v, str):
        return v[:200]
    if json_round_trip(v) is UNDEFINED:
        raise MastraError("TypeError", "Cannot read properties of undefined (reading 'slice')")
    return to_json_text(v)[:200]


def _title_lines(m: Message) -> list[str]:
    """M13.8 The title transcript: one line per part (``Role: text``, ``Tool Result <name>: ...``
    cut to 200 characters, ``Tool Call <name>: <args>`` for approval states, ``Reasoning: ...``);
    a pending call and an error part give none, a message without parts gives ``Role: ``."""
    role = m.role.value.capitalize()
    lines = []
    # the v4 UI message moves file parts to its attachments and skips pending calls; when no
    # other part is left, it holds one empty text part (measured: a user or assistant message
    # holding only files gives the line "User: " / "Assistant: ")
    kept = [
        p
        for p in m.parts or ()
        if not isinstance(p, (FilePart, ImagePart))
        and not (isinstance(p, ToolPart) and p.state in (ToolState.CALL, ToolState.PARTIAL_CALL))
    ]
    if not kept and any(isinstance(p, (FilePart, ImagePart)) for p in m.parts or ()):
        return [f"{role}: "]
    for p in m.parts or ():
        if isinstance(p, ErrorPart):
            continue
        if isinstance(p, TextPart):
            # a template literal: `${part.text}` is String(text)
            lines.append(f"{role}: {to_string(read(p.text))}")
        elif isinstance(p, ToolPart):
            if p.state in (ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED):
                # the v4 UI message shows an error as a result holding its text, a denial as
                # a result holding the approval's reason (measured)
                if p.state is ToolState.RESULT:
                    v = p.result
                elif p.state is ToolState.OUTPUT_ERROR:
                    v = p.error_text
                else:
                    reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
                    v = reason if isinstance(reason, str) and reason else "Tool call was not approved by the user"
                lines.append(f"Tool Result {p.tool_name}: {_line_value(v)}")
            elif p.state in (ToolState.APPROVAL_REQUESTED, ToolState.APPROVAL_RESPONDED):
                lines.append(f"Tool Call {p.tool_name}: {_line_value(p.args)}")
        elif isinstance(p, ReasoningPart) and not isinstance(p, StepStartPart) and p.text:
            lines.append(f"Reasoning: {p.text}")
    return lines


def transcript(lst: MessageList, thread_id: str) -> str | None:
    """M13.8 The title transcript: every message of the thread on the list, formatted part by
    part; None when there is no user message among them.

    Evidence: M13.8"""
    msgs = [m for m in lst.all() if m.thread_id in (None, thread_id)]
    if not any(m.role is Role.USER for m in msgs):
        return None
    lines: list[str] = []
    for m in msgs:
        lines.extend(_title_lines(m))
    return "\n".join(lines)


def entitle(store: ThreadStore, thread_id: str, resource: str | None, lst: MessageList) -> ThreadStore:
    """M13.9 Title generation: a title is made when the thread has none, from every message of the
    thread on the list, trimmed; the scripted title model answers with the transcript itself.
    Without a resource id no title is made (only the durable loop gets this far without one,
    M7.1).

    Evidence: M13.9"""
    thread = store.get(thread_id) or Thread(thread_id, resource)
    if thread.title or resource is None:
        return store
    try:
        text = transcript(lst, thread_id)
    except MastraError:
        # the transcript throws (a symbol text: String() throws): Mastra's title generation
        # fails on its own and the thread keeps no title
        return store
    if text is None:
        return store
    # the title is trimmed (measured: transcript "User: " gives the title "User:")
    return store.put(evolve(thread, title=text.strip()))


def result(lst: MessageList, text: str, finish_reason: str) -> Result:
    """O6 result: ``messages`` is every non-system message on the list, ``rememberedMessages`` the
    live memory set, with the text and finishReason given (M13)."""
    return Result(
        text=text,
        finish_reason=finish_reason,
        messages=tuple(m.id for m in lst.all()),
        remembered=tuple(m.id for m in lst.view(Source.MEMORY)),
    )


def as_stored(store: ThreadStore) -> ThreadStore:
    """M13.10 The scenario's threads as storage holds them: in the stored format (an image part is
    a file part, M2.2), each slot as JSON holds it (M13.3), as seeding them through storage does."""
    changed = False
    threads = []
    for t in store.threads:
        msgs = tuple(stored_content(as_db_message(m)) for m in t.messages)
        if any(a is not b for a, b in zip(msgs, t.messages)):
            changed = True
            t = evolve(t, messages=msgs)
        threads.append(t)
    return ThreadStore(tuple(threads)) if changed else store


def ensure_thread(store: ThreadStore, thread_id: str, resource: str | None) -> ThreadStore:
    """M7.3 The thread exists before the processors: with memory and a thread id, the thread is
    fetched, or created and saved, during preparation."""
    if store.get(thread_id) is not None:
        return store
    return store.put(Thread(thread_id, resource))
