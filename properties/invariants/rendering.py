"""What the model receives, written from the spec's M11 and M12, for I4 and I9.

This module is the invariants' own reading of a prompt: it imports nothing from
``guardspec.reference`` (an oracle that shares the reference's reading shares its mistakes).
Each prompt entry is rendered as the model receives it, as a list of texts:

- a system message: its content as **one** text. A string is sent as it is; content of several
  text parts reaches the model as the parts' texts concatenated with nothing between them
  (measured on @mastra/core 1.71.0 through adapters/mastra: a system message stored with content
  ``[{text:'FORB'}, {text:'IDDEN'}]`` reaches the model as ``"FORBIDDEN"``). After it, every
  string its providerOptions and experimental_providerMetadata (the message's and each part's)
  carry to the provider as content: Anthropic citations and OpenRouter reasoning details (G10
  reads a system message "with its provider options"; other options configure the provider);
- a text or reasoning part: its text;
- a tool part (M12: only ``result``, ``output-error`` and ``output-denied`` are sent): its args
  as JSON text, and what it sends as output: the cached mapped output where there is one (M11),
  else its result; a text output ``{type: 'text', value}`` is the text ``value``; an
  ``output-denied`` call sends the approval's reason, or Mastra's fixed text; an ``output-error``
  call sends its error text;
- a file or image part of a ``text/*`` media type: its data, when that is a string (an image's
  bytes are not text).

A rendering is *read* when each of its texts occurs in the policies' read: a string either as it
is or as it stands inside JSON text (quotes and backslashes escaped), any other value as its
JSON text. A file's data that decodes as base64 counts as read only through its decoding: Mastra
sends string data as ``data:<type>;base64,<data>`` (M12.8) and
the model receives the text it decodes to (G12.6), not the
base64 string; data that does not decode counts as read as it is.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from attrs import frozen

from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, JsObject, clonable, to_json_text

# M12: what Mastra's prompt conversion sends for an ``output-denied`` call with no reason.
DENIAL_TEXT = "Tool call was not approved by the user"

# M12: the tool states Mastra sends to the model (pending calls and approval states are not sent).
SENT_STATES = (ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED)


@frozen
class Text:
    """One text the model receives: a string, or a value it receives as JSON text. ``data``
    marks a file's data (it also counts as read through its base64 decoding)."""

    value: Any
    data: bool = False


class Unrenderable(Exception):
    """Content the model cannot receive as text (a non-string text, system content that is not
    text): nothing can have read it."""


def cached_output(p: ToolPart) -> Any:
    """M11: the output cached on a part at ``providerMetadata.mastra.modelOutput`` (what the
    prompt sends in place of the result), or UNDEFINED."""
    md = p.provider_metadata
    mastra = md.get("mastra") if isinstance(md, JsObject) else UNDEFINED
    out = mastra.get("modelOutput") if isinstance(mastra, JsObject) else UNDEFINED
    return UNDEFINED if out is None else out


def sent_output(p: ToolPart) -> Any:
    """M11/M12: the output a sent tool part gives the model: for ``output-denied`` the text
    output of the approval's reason (or Mastra's fixed text), else the cached output, else the
    result."""
    if p.state is ToolState.OUTPUT_DENIED:
        reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
        return JsObject((("type", "text"), ("value", reason if isinstance(reason, str) and reason else DENIAL_TEXT)), None)
    out = cached_output(p)
    return p.result if out is UNDEFINED else out


def _output_texts(out: Any) -> list[Text]:
    """A text output is received as its text; any other output as JSON."""
    if isinstance(out, JsObject) and out.get("type") == "text" and isinstance(out.get("value"), str):
        return [Text(out.get("value"))]
    return [] if out is UNDEFINED else [Text(out)]


def part_texts(p: Any) -> list[Text]:
    """M12: the texts the model receives from one part of a prompt message."""
    if isinstance(p, (TextPart, ReasoningPart)):
        if not isinstance(p.text, str):
            raise Unrenderable(f"{type(p).__name__} text {p.text!r} is not a string")
        return [Text(p.text)]
    if isinstance(p, ToolPart):
        out = [] if p.args is UNDEFINED else [Text(p.args)]
        if p.state is ToolState.OUTPUT_ERROR:
            return out + ([Text(p.error_text)] if p.error_text is not UNDEFINED else [])
        return out + _output_texts(sent_output(p) if p.state in SENT_STATES else p.result)
    if isinstance(p, (FilePart, ImagePart)):
        # only text media reach the model as text; an image's bytes are not text to read
        # (Breakwater reads text/* data only, G12.6)
        text_media = isinstance(p.media_type, str) and p.media_type.lower().startswith("text/")
        if not (text_media and isinstance(p.data, str)):
            return []
        # M12.10: Mastra sends a data URI rewritten under the
        # part's own media type, ``data:<type>;base64,<payload>``: the model receives its
        # payload (the text after the first comma, up to the next) as the part's data
        if p.data.lower().startswith("data:") and "," in p.data:
            return [Text(p.data.partition(",")[2].split(",")[0], data=True)]
        return [Text(p.data, data=True)]
    raise Unrenderable(f"part {p!r}")


def system_text(s: SystemMessage) -> str:
    """M12 (measured): a system message reaches the model as one text: a string as it is, text
    parts concatenated with nothing between them."""
    c = s.content
    if isinstance(c, str):
        return c
    if isinstance(c, tuple):
        texts = []
        for p in c:
            t = p.text if isinstance(p, TextPart) else p.get("text") if isinstance(p, JsObject) else None
            if not isinstance(t, str):
                raise Unrenderable(f"system part {p!r} is not text")
            texts.append(t)
        return "".join(texts)
    raise Unrenderable(f"system content {c!r} is not text")


def system_texts(s: SystemMessage) -> list[Text]:
    """A system message as sent: its content as one text, then the strings of its provider
    options and metadata, the message's and each part's."""
    parts = s.content if isinstance(s.content, tuple) else ()
    extra = [x for v in (s.provider_options, s.experimental_provider_metadata) for x in content_option_strings(v)]
    for p in parts:
        extra += content_option_strings(
            p.provider_options if isinstance(p, TextPart) else p.get("providerOptions") if isinstance(p, JsObject) else UNDEFINED
        )
    return [Text(system_text(s))] + [Text(x) for x in extra]


# The provider options that carry content to a provider: Anthropic citations and OpenRouter
# reasoning details, less their opaque tokens (G12.5). Other
# namespaces and keys configure a provider and carry no prompt text.
CONTENT_OPTIONS = {"anthropic": ("citations", ("encrypted_index",)), "openrouter": ("reasoning_details", ("data", "signature", "id"))}


def content_option_strings(options: Any) -> list[str]:
    """The strings a system message's provider options carry to the provider as content."""
    out: list[str] = []

    def walk(v: Any, opaque: tuple) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, tuple):
            for x in v:
                walk(x, opaque)
        elif isinstance(v, JsObject):
            for k, x in v.props:
                if k not in opaque:
                    walk(x, opaque)

    if isinstance(options, JsObject):
        for namespace, (key, opaque) in CONTENT_OPTIONS.items():
            entries = options.get(namespace)
            if isinstance(entries, JsObject):
                walk(entries.get(key), opaque)
    return out


def entry_texts(e: Any) -> list[Text]:
    """Every text the model receives from a prompt entry."""
    if isinstance(e, SystemMessage):
        return system_texts(e)
    if isinstance(e, Message):
        return [t for p in e.parts or () for t in part_texts(p)]
    raise Unrenderable(f"entry {e!r}")


def _decoded(data: str) -> str | None:
    """Text data as it is decoded from base64 (``-``/``_`` read as ``+``/``/``, padding
    optional, bad UTF-8 replaced, a leading byte order mark dropped as a UTF-8 decoder drops
    it)."""
    s = "".join(data.replace("-", "+").replace("_", "/").split())
    try:
        text = base64.b64decode(s + "=" * (-len(s) % 4), validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return None
    return text[1:] if text.startswith("\ufeff") else text


def is_read(read: str | None, t: Text) -> bool:
    """One text the model receives occurs in the policies' read (see the module's docstring)."""
    if read is None:
        return False
    v = t.value
    if not isinstance(v, str):
        return clonable(v) and to_json_text(v) in read
    d = _decoded(v) if t.data else None
    if d is not None:
        return d in read
    return v in read or to_json_text(v)[1:-1] in read


def unread(read: str | None, texts: list[Text]) -> list[str]:
    """The texts (shown as the model receives them) that the read does not hold."""
    return [
        t.value if isinstance(t.value, str) else repr(t.value) for t in texts if t.value not in ("", DENIAL_TEXT) and not is_read(read, t)
    ]
