"""G12 What the input policies read: the caller's messages and a processor's additions rendered
as the prompt Breakwater converts them to.

Breakwater reads a message through Mastra's prompt conversion (the AI SDK v5 model messages)
and takes values from each prompt part; the values are joined by newlines, a string as it is,
any other value as its JSON text, empty texts left out. Everything here raises
``NotClassified`` where Breakwater's policy engine answers "input message content is not
classified".
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterable
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.jsvalues import to_string
from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, Role, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, BigInt, CloneError, JsObject, structured_clone

from .prompt import model_message_blocks, sanitized_result, sent_error_text
from .provider_options import AsJson, OptionsNotClassified, option_values
from .reading import NotClassified
from .urls import parse_url

# M12 (Mastra's conversion): the text an ``output-denied`` call without a reason gives.
DENIED = "Tool call was not approved by the user"

_RESULT_STATES = (ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED)
_OUTPUT_TYPES = ("text", "json", "error-text", "error-json")
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _options(v: Any) -> list[Any]:
    try:
        return option_values(v)
    except OptionsNotClassified as e:
        raise NotClassified(str(e)) from None


def value_text(v: Any) -> str | None:
    """G12.2 Values: a value as the policies read it: a string as it is, anything else as
    ``JSON.stringify`` gives it (None where that gives nothing: undefined, a bare function).
    A bigint cannot be written as JSON: not classified. ``AsJson`` is read as JSON text even
    when it is a string."""
    quoted = isinstance(v, AsJson)
    v = v.value if quoted else v
    if isinstance(v, str) and not quoted:
        return v
    if v is UNDEFINED:
        return None

    def plain(x: Any) -> Any:
        if isinstance(x, BigInt):
            raise NotClassified("a bigint cannot be read as JSON")
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, tuple):
            return [None if y is UNDEFINED else plain(y) for y in x]
        if isinstance(x, JsObject):
            return {k: plain(y) for k, y in x.props if y is not UNDEFINED}
        return x

    return json.dumps(plain(v), separators=(",", ":"), ensure_ascii=False)


def joined(values: Iterable[Any]) -> str:
    """G12: values joined by newlines, empty texts left out."""
    return "\n".join(t for t in (value_text(v) for v in values) if t)


# -- G12 file data --------------------------------------------


def base64_text(payload: str) -> str:
    """G12 ``text/*`` file data: read as base64 the way Breakwater does (``-`` → ``+`` and
    ``_`` → ``/``, then ``atob``'s forgiving base64, then UTF-8 decoding with U+FFFD for bad
    bytes and a leading BOM dropped). Data that is not base64 is not classified."""
    s = "".join(ch for ch in payload.replace("-", "+").replace("_", "/") if ch not in " \t\n\f\r")
    if len(s) % 4 == 0 and s.endswith("="):
        s = s[:-2] if s.endswith("==") else s[:-1]
    if len(s) % 4 == 1 or any(ch not in _B64 for ch in s):
        raise NotClassified("file data is not base64")
    try:
        raw = base64.b64decode(s + "=" * (-len(s) % 4))
    except (binascii.Error, ValueError):  # pragma: no cover - validated above
        raise NotClassified("file data is not base64") from None
    text = raw.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


def _string_data(data: Any) -> Any:
    """G12.7 Array and URL data: ``text/*`` data that is an array is read as ``String`` of it
    (its elements joined by commas, as the model receives it), then as string data; an array
    ``String`` throws on is not classified."""
    if not isinstance(data, tuple):
        return data
    try:
        return to_string(data)
    except (MastraError, TypeError):
        raise NotClassified("file data is not a string or URL") from None


def _url_text(data: str, scheme: str) -> str:
    """G12.7 Array and URL data: data that parses as a URL (a data URI apart) is read as the
    URL's text, ``url.toString()``: C0 controls and spaces stripped from its ends, tabs and
    newlines removed, the scheme lower-cased. A special scheme's host and path are not
    normalised here: the scenarios' URLs already are."""
    text = data.strip("".join(chr(c) for c in range(0x21))).replace("\t", "").replace("\n", "").replace("\r", "")
    return scheme + text[len(scheme) :]


def media_values(p: FilePart | ImagePart) -> list[Any]:
    """G12.6 File parts: a file (or image) part: its media type, and for a ``text/*`` media type
    (any case) its data: a URL (any string ``new URL`` accepts, a data URL apart) as the
    string, anything else as the base64 Mastra's conversion
    wraps it in (``data:<type>;base64,<data>``), decoded (``base64_text``); a data URI is read
    as its payload (the text after the first comma) under the part's own media type, its own
    type never read (Mastra's rewrite). An array and a URL are read as G12.7 says. Other
    data that is not a string (an object, a number) is not classified. Other media types read their type only."""
    data, media = _string_data(p.data), p.media_type
    if not isinstance(data, str) or not isinstance(media, str):
        raise NotClassified("file data is not a string or URL")
    values: list[Any] = [media]
    # Mastra keeps a string ``new URL`` accepts as the URL, and Breakwater reads a URL that is
    # not a data URL as the URL (``note: see the file`` included), so both read the URL itself
    url = parse_url(data)
    if url is not None and url.scheme != "data":
        if media.lower().startswith("text/"):
            values.append(_url_text(data, url.scheme))
        return values
    # Mastra rewrites a data URI as ``data:<the part's media type>;base64,<payload>`` before
    # the policies read it, so the URI's own media type is never read (M12.8)
    payload = (data.partition(",")[2] if data.lower().startswith("data:") else data).split(",")[0]
    url_media = media.split(";")[0]
    if url_media != media:
        values.append(url_media)
    if url_media.lower().startswith("text/"):
        values.append(base64_text(payload))
    return values


# -- G12 messages ---------------------------------------------


def cloned(m: Message) -> Message:
    """G12.8 Texts that are null or undefined: the message as ``structuredClone`` copies it before the conversion (accessors
    read, class instances made plain); a value it cannot copy, or a text that is neither a
    string nor null/undefined, makes the conversion throw: not classified. A null or undefined
    text is converted as it is (Mastra's ``text?.trim()`` does not throw on it) and read as
    JSON gives it: ``null`` reads ``"null"``, undefined reads nothing."""
    try:
        parts = []
        for p in m.parts or ():
            if isinstance(p, (TextPart, ReasoningPart)) and not (isinstance(p.text, str) or p.text is None or p.text is UNDEFINED):
                raise NotClassified("text that is not a string")
            if isinstance(p, TextPart):
                p = TextPart(p.text, structured_clone(p.provider_options), p.created_at)
            elif isinstance(p, ToolPart):
                p = ToolPart(
                    p.tool_call_id,
                    p.tool_name,
                    p.state,
                    args=structured_clone(p.args),
                    result=structured_clone(p.result),
                    error_text=structured_clone(p.error_text),
                    approval=structured_clone(p.approval),
                    provider_metadata=structured_clone(p.provider_metadata),
                    created_at=p.created_at,
                )
            elif isinstance(p, (FilePart, ImagePart)):
                p = type(p)(structured_clone(p.data), p.media_type, p.created_at)
            parts.append(p)
        structured_clone(m.metadata)
    except CloneError as e:
        raise NotClassified(f"cannot be cloned: {e}") from None
    return Message(m.id, m.role, tuple(parts), m.created_at, metadata=UNDEFINED)


def stored_output(p: ToolPart) -> Any:
    """M11: the output cached at ``providerMetadata.mastra.modelOutput`` (not null), or
    UNDEFINED."""
    md = p.provider_metadata
    mastra = md.get("mastra") if isinstance(md, JsObject) else UNDEFINED
    out = mastra.get("modelOutput") if isinstance(mastra, JsObject) else UNDEFINED
    return UNDEFINED if out is None else out


def output_values(out: Any) -> list[Any]:
    """G12.3 Tool outputs are read as they are sent: a tool output ``{type, value}``: its value (a denial its reason), then its provider
    options; an output of another shape is not classified."""
    kind = out.get("type") if isinstance(out, JsObject) else UNDEFINED
    if kind in _OUTPUT_TYPES:
        v = [out.get("value")]
    elif kind == "execution-denied":
        v = [out.get("reason")]
    else:
        raise NotClassified("tool output of an unknown shape")
    return v + _options(out.get("providerOptions"))


def _converted_output(p: ToolPart) -> Any:
    """M12.6 Tool outcomes as model outputs: Mastra's conversion of a sent tool part's outcome into a model output."""
    if p.state is ToolState.OUTPUT_ERROR:
        # ``errorText || ""``, then the AI SDK's error message (a falsy value reads nothing)
        return JsObject((("type", "error-text"), ("value", sent_error_text(p.error_text))))
    if p.state is ToolState.OUTPUT_DENIED:
        reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
        return JsObject((("type", "text"), ("value", DENIED if reason is None or reason is UNDEFINED else reason)))
    r = sanitized_result(p.result)  # a stored output replaces this one later, unsanitized
    if isinstance(r, str):
        return JsObject((("type", "text"), ("value", r)))
    return JsObject((("type", "json"), ("value", None if r is UNDEFINED else r)))


def _tool_options(p: ToolPart) -> list[Any]:
    return [] if p.provider_metadata is None else _options(p.provider_metadata)


def _plain_values(p: Any) -> list[Any]:
    if isinstance(p, (TextPart, ReasoningPart)):
        return [p.text]
    if isinstance(p, (FilePart, ImagePart)):
        return media_values(p)
    return []


def prompt_text(messages: Iterable[Message]) -> str:
    """G12.1 The caller text is a rendered prompt (Breakwater's ``inputPromptText``): each message as its prompt, in
    order. A user message reads its text and file parts (reasoning and tool parts are not
    sent); an assistant message reads, block by block, its text, reasoning and file parts,
    then each tool call as its tool name and JSON args (every state, an approval's reason
    never), then each result, error or denial as its tool name and output: a result's cached
    mapped output (M11) when there is one, else the result (a string as it is, anything else
    as JSON, none as ``null``), an error's text, a denial's reason (``reason ?? "Tool call was
    not approved by the user"``). A tool part's providerMetadata is read with the call and
    again with its result, through the closed table. A cached output no result received is
    read after every message. A system-role message is not classified."""
    msgs = [cloned(m) for m in messages]
    stored: list[tuple[str, ToolState, Any]] = []
    for m in msgs:
        for p in m.parts or ():
            if isinstance(p, ToolPart) and stored_output(p) is not UNDEFINED:
                stored.append((p.tool_call_id, p.state, stored_output(p)))
    by_call = {cid: i for i, (cid, state, _) in enumerate(stored) if state is ToolState.RESULT}
    placed: set[int] = set()
    values: list[Any] = []
    for m in msgs:
        if m.role is Role.USER:
            values.extend(v for p in m.parts or () if isinstance(p, (TextPart, FilePart, ImagePart)) for v in _plain_values(p))
            continue
        if m.role is not Role.ASSISTANT:
            raise NotClassified("a message whose role is not an input role")
        for block in model_message_blocks(m.parts or ()):
            tools = [p for p in block if isinstance(p, ToolPart)]
            for p in block:
                if not isinstance(p, ToolPart):
                    values.extend(_plain_values(p))
            for p in tools:
                values.extend([p.tool_name, p.args] + _tool_options(p))
            for p in tools:
                if p.state not in _RESULT_STATES:
                    continue
                out = _converted_output(p)
                if p.state is ToolState.RESULT and p.tool_call_id in by_call:
                    placed.add(by_call[p.tool_call_id])
                    out = stored[by_call[p.tool_call_id]][2]
                values.extend([p.tool_name] + output_values(out) + _tool_options(p))
    for i, (_, _, out) in enumerate(stored):
        if i not in placed:
            values.extend(output_values(out))
    return joined(values)


def system_text(s: SystemMessage) -> str:
    """G12.4 An added or changed system message (Breakwater's ``recordedSystemText``): its
    content as one text (text parts concatenated with nothing between them, as the model
    receives them), then its providerOptions, its experimental_providerMetadata and each
    part's providerOptions, read through the closed table."""
    c = s.content
    if s.stored or not isinstance(c, (str, tuple)):
        raise NotClassified("system content that is not text")
    parts = () if isinstance(c, str) else c
    texts, part_options = [], []
    for p in parts:
        text = p.text if isinstance(p, TextPart) else p.get("text") if isinstance(p, JsObject) else None
        if not isinstance(text, str):
            raise NotClassified("system part that is not text")
        texts.append(text)
        part_options.append(p.provider_options if isinstance(p, TextPart) else p.get("providerOptions"))
    values: list[Any] = [c if isinstance(c, str) else "".join(texts)]
    for options in (s.provider_options, s.experimental_provider_metadata, *part_options):
        try:
            options = structured_clone(options)
        except CloneError:
            raise NotClassified("provider options that cannot be cloned") from None
        values.extend(_options(options))
    return joined(values)


def entry_text(e: Message | SystemMessage) -> str:
    """G12 One addition: a system message as ``system_text``, a message as the prompt of it
    alone."""
    return system_text(e) if isinstance(e, SystemMessage) else prompt_text([e])
