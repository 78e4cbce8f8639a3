"""G8 readable additions, G9 fingerprints and G12 the text a policy reads from an entry."""

from __future__ import annotations

from typing import Any, cast

from guardspec.model.messages import (
    FilePart,
    ImagePart,
    Message,
    Part,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolPart,
)
from guardspec.model.values import (
    UNDEFINED,
    Accessor,
    JsObject,
    clonable,
    strings_inside,
    to_json_text,
)
from guardspec.model.values import (
    fingerprint_value as fv,
)


def _part_key(p: Part) -> tuple:
    """G9.3 Key order in a merged tool part: a part's fingerprint lists its keys in their order,
    so a merged error holding an approval (``approval`` before ``errorText``, M4.3) differs
    from a literal part with the same values written the other way round."""
    if isinstance(p, TextPart):
        return ("text", fv(p.text), fv(p.provider_options), p.created_at)
    if isinstance(p, ToolPart):
        return (
            "tool",
            p.tool_call_id,
            p.tool_name,
            p.state.value,
            fv(p.args),
            fv(p.result),
            fv(p.error_text),
            fv(p.approval),
            fv(p.provider_metadata),
            p.created_at,
            p.approval_first and p.approval is not UNDEFINED and p.error_text is not UNDEFINED,
        )
    if isinstance(p, ReasoningPart):
        return ("reasoning", p.text, p.created_at)
    if isinstance(p, FilePart):
        return ("file", fv(p.data), p.media_type, p.created_at)
    if isinstance(p, ImagePart):
        return ("image", fv(p.data), p.media_type, p.created_at)
    raise TypeError(p)  # pragma: no cover


_PARTS = (TextPart, ToolPart, ReasoningPart, FilePart, ImagePart)


def fingerprint(entry: Message | SystemMessage) -> tuple:
    """G9 Fingerprint (see ``compute_fingerprint``), computed once per value: a message is an
    immutable value, so its fingerprint is kept on it."""
    fp = entry.fp_cache
    if fp is None:
        fp = compute_fingerprint(entry)
        object.__setattr__(entry, "fp_cache", fp)
    return cast(tuple, fp)


def compute_fingerprint(entry: Message | SystemMessage) -> tuple:
    """G9 Fingerprint: of a message its id, role and content (parts, part stamps, metadata and
    the legacy ``toolInvocations`` mirror a merge leaves
    included, and the key order of a tool invocation holding both an approval and an error
    text: Breakwater's fingerprint lists own keys in order, and Mastra's merge puts approval
    first, a literal errorText first, G9.3); of a system message its content, providerOptions and
    experimental_providerMetadata. Undefined properties count as missing; accessors and
    functions count by identity and are never called."""
    if isinstance(entry, SystemMessage):
        content = entry.content
        if isinstance(content, tuple):
            content = ("a",) + tuple(_part_key(p) if isinstance(p, _PARTS) else fv(p) for p in content)
        else:
            content = fv(content)
        return ("system", content, fv(entry.provider_options), fv(entry.experimental_provider_metadata))
    parts = None if entry.parts is None else tuple(_part_key(p) for p in entry.parts)
    mirror = None if entry.tool_invocations is None else tuple(_invocation_key(t) for t in entry.tool_invocations)
    return ("message", entry.id, entry.role.value, parts, fv(entry.metadata), mirror)


def _invocation_key(p: ToolPart) -> tuple:
    """G9.2 The mirror is part of the fingerprint: One entry of the legacy ``content.toolInvocations`` mirror: the tool invocation alone
    (no part stamp, no provider metadata)."""
    return (p.tool_call_id, p.tool_name, p.state.value, fv(p.args), fv(p.result), fv(p.error_text), fv(p.approval))


# -- G8 -------------------------------------------------------------------------------------------


def readable_system(s: SystemMessage) -> bool:
    """G8.1 Own properties only: a system message a processor adds or changes holds text alone
    (a string, or plain text parts) in own data properties: an accessor as its own content,
    providerOptions or experimental_providerMetadata, or as a part's own field, is none, and
    fails uncalled. Own properties only, as Breakwater's ``readSystemMessage`` checks them: a
    getter nested inside providerOptions is read through by structuredClone, not refused; one
    that throws fails the clone (``clonable_entry``)."""
    c = s.content
    if isinstance(c, str):
        text_ok = True
    elif isinstance(c, tuple):
        text_ok = all(
            (isinstance(p, TextPart) and isinstance(p.text, str) and not isinstance(p.provider_options, Accessor))
            or (
                isinstance(p, JsObject)
                and p.proto is None
                and p.get("type") == "text"
                and isinstance(p.get("text"), str)
                and set(p.keys()) <= {"type", "text", "providerOptions"}
                and not isinstance(p.get("providerOptions"), Accessor)
            )
            for p in c
        )
    else:
        text_ok = False
    return text_ok and not any(isinstance(v, Accessor) for v in (s.provider_options, s.experimental_provider_metadata))


def clonable_entry(e: Message | SystemMessage) -> bool:
    """M14.5 structuredClone: everything a processor adds or changes must survive structuredClone."""
    if isinstance(e, SystemMessage):
        parts_ok = all(
            clonable(p.provider_options) and clonable(p.text) if isinstance(p, TextPart) else clonable(p)
            for p in (e.content if isinstance(e.content, tuple) else (e.content,))
        )
        return parts_ok and clonable(e.provider_options) and clonable(e.experimental_provider_metadata)
    for p in e.parts or ():
        if isinstance(p, TextPart) and not (clonable(p.text) and clonable(p.provider_options)):
            return False
        if isinstance(p, ToolPart) and not all(clonable(v) for v in (p.args, p.result, p.error_text, p.approval, p.provider_metadata)):
            return False
        if isinstance(p, (FilePart, ImagePart)) and not clonable(p.data):
            return False
    return clonable(e.metadata)


# -- G12 ------------------------------------------------------------------------------------------


class NotClassified(Exception):
    """G12: content that cannot be read as text."""


def cached_output(p: ToolPart) -> Any:
    """M11: the cached model output at providerMetadata.mastra.modelOutput, or UNDEFINED."""
    md = p.provider_metadata
    if isinstance(md, JsObject):
        mastra = md.get("mastra")
        if isinstance(mastra, JsObject):
            out = mastra.get("modelOutput")
            if out is not None and out is not UNDEFINED:
                return out
    return UNDEFINED


def _json(v: Any) -> str | None:
    if v is UNDEFINED:
        return None
    if not clonable(v):
        raise NotClassified("uncloneable value")
    return to_json_text(v)


def part_texts(p: Part) -> list[str]:
    """G12: the text read from one part of a message."""
    if isinstance(p, (TextPart, ReasoningPart)):
        if not isinstance(p.text, str):
            raise NotClassified("non-string text")
        if isinstance(p, TextPart) and not clonable(p.provider_options):
            raise NotClassified("uncloneable value")
        return [p.text]
    if isinstance(p, ToolPart):
        out = []
        result = cached_output(p)
        if result is UNDEFINED:
            result = p.result
        reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
        for v in (p.args, result, p.error_text, reason):
            t = _json(v)
            if t is not None:
                out.append(t)
        if not clonable(p.provider_metadata):
            raise NotClassified("uncloneable value")
        return out
    if isinstance(p, (FilePart, ImagePart)):
        out = [p.media_type]
        if isinstance(p.data, str):
            out.append(p.data)
        elif not clonable(p.data):
            raise NotClassified("uncloneable value")
        return out
    raise TypeError(p)  # pragma: no cover


def message_texts(m: Message, only: Any = None) -> list[str]:
    """G12: the text read from a message; ``only`` filters its parts (G10 reads just the
    recorded client tool outcome parts of a memory+input message)."""
    if not clonable(m.metadata):
        raise NotClassified("uncloneable value")
    out: list[str] = []
    for p in m.parts or ():
        if only is None or only(p):
            out.extend(part_texts(p))
    return out


def system_texts(s: SystemMessage) -> list[str]:
    """G12: a system message's content and every string inside its providerOptions and
    experimental_providerMetadata (the message's and each part's)."""
    if not (clonable(s.provider_options) and clonable(s.experimental_provider_metadata)):
        raise NotClassified("uncloneable value")
    c = s.content
    out: list[str] = []
    if isinstance(c, str):
        out.append(c)
    elif isinstance(c, tuple):
        for p in c:
            if isinstance(p, TextPart) and isinstance(p.text, str) and clonable(p.provider_options):
                out.append(p.text)
                out.extend(strings_inside(p.provider_options))
            elif isinstance(p, JsObject) and isinstance(p.get("text"), str) and clonable(p):
                out.append(p.get("text"))
                out.extend(strings_inside(p.get("providerOptions")))
            else:
                raise NotClassified("system part that is not text")
        # M12: Mastra sends array content as its texts joined without separator
        #: that text is read too, as the model receives it
        out.append("".join(p.text if isinstance(p, TextPart) else p.get("text") for p in c))
    else:
        raise NotClassified("system content that is not text")
    out.extend(strings_inside(s.provider_options))
    out.extend(strings_inside(s.experimental_provider_metadata))
    return out


def entry_texts(e: Message | SystemMessage) -> list[str]:
    """G10 What the policies read: the texts of one entry."""
    return system_texts(e) if isinstance(e, SystemMessage) else message_texts(e)
