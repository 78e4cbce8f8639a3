"""M1-M6: the part kinds the substrate adds to the model's messages (step boundaries, error
parts), and what the list reads of a part: its cache key and its stored format."""

from __future__ import annotations

from attrs import frozen

from guardspec.model.fast import evolve
from guardspec.model.jsvalues import to_string
from guardspec.model.messages import FilePart, ImagePart, Message, Part, ReasoningPart, TextPart, ToolPart


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


def part_text(p: Part) -> str | None:
    if isinstance(p, (TextPart, ReasoningPart)) and isinstance(p.text, str):
        return p.text
    return None
