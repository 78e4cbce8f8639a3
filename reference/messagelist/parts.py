"""M2, M4: the part kinds the substrate adds to the model's messages (step boundaries, error
parts), and what the list reads of a part: its cache key (M2.5) and its stored format (M2.2)."""

from __future__ import annotations

from attrs import frozen

from guardspec.model.fast import evolve
from guardspec.model.jsvalues import to_string
from guardspec.model.messages import FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolPart


@frozen
class StepStartPart(ReasoningPart):
    """M4.2 How parts are merged: Mastra's ``step-start`` part, the step boundary the merge puts
    before a text part pushed right after a trailing tool part.

    It lives in a message's parts inside the substrate only: no observation shows it (the
    adapter drops step-start parts), and it splits an assistant message in the prompt (M12.3).
    A subclass of ``ReasoningPart`` with empty text, so that code reading parts sees no text.

    Evidence: M4.2
    """


STEP_START = StepStartPart("")


@frozen
class ErrorPart(TextPart):
    """M12.10 Asset downloads: Mastra's ``error`` part, the one part of the response message a
    failed download leaves.

    The protocol has no word for it and reports it as the text ``<mastra part error>``
    (docs/protocol.md "Representation"); it gives no line in a title transcript (M13.8).

    Evidence: M12.10
    """


ERROR_PART = ErrorPart("<mastra part error>")


def visible_parts(parts: tuple | None) -> tuple | None:
    """O7 list: the parts an observation or a reader of texts sees, step-start parts dropped
    (the same tuple when there are none)."""
    if parts is None:
        return parts
    for p in parts:
        if type(p) is StepStartPart:
            return tuple(q for q in parts if type(q) is not StepStartPart)
    return parts


def without_steps(m: Message) -> Message:
    """O7 list: a message as the observation shows it, its step-start parts dropped (the same
    object when it has none)."""
    vp = visible_parts(m.parts)
    return m if vp is m.parts else evolve(m, parts=vp)


def part_key(p: Part) -> tuple:
    """M2.5 A same-id add compares cache keys first: one part's key
    (``CacheKeyGenerator.fromDBParts([part])``): type and ``String(text)``; toolCallId and state
    for a tool part; reasoning text; file data and media type; the bare type for step-start.

    Evidence: M2.5
    """
    if isinstance(p, TextPart):
        # ``cacheKey += part.text``: a symbol text throws (TypeError), any other value is
        # converted as ``String`` converts it
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
    """M2.5 A same-id add compares cache keys first: a message's key (``messagesAreEqual``), its
    id and its parts' keys; two same-id messages with equal keys count as the same message."""
    return (message.id,) + tuple(part_key(p) for p in message.parts or ())


def as_db_message(message: Message) -> Message:
    """M2.2 Stored format: the conversion to MastraDBMessage (``format: 2``), whose parts have no
    ``image`` kind, so an image part is held, stored, listed and sent as a ``file`` part with
    the same data, media type and stamp. The same object (``ref``) when nothing changes.

    Evidence: M2.2
    """
    parts = message.parts
    if not parts or not any(isinstance(p, ImagePart) for p in parts):
        return message
    return evolve(message, parts=tuple(FilePart(p.data, p.media_type, p.created_at) if isinstance(p, ImagePart) else p for p in parts))
