"""M13 result text: the read-back of the result's text from the response messages, and the
errors its conversion throws."""

from __future__ import annotations

from guardspec.model.errors import MastraError
from guardspec.model.messages import FilePart, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, to_json_text

from .downloads import _forgiving_base64, file_data_string
from .messagelist import MessageList
from .urls import SCHEME


def response_text(lst: MessageList) -> str:
    """The result's ``text``: the text of the last model message of the last response
    message (``get.response.aiV4.core()``), i.e. its text parts after its last tool invocation
    that is not a pending call. The texts are concatenated as JavaScript does: a null or
    undefined text gives ``"null"``/``"undefined"`` (measured on Mastra 1.71.0 raw with memory and
    on Breakwater: ``[null] + "reply-0"`` reads ``"nullreply-0"``; docs/breakwater-measurements.md
    §17)."""
    resp = lst.view(Source.RESPONSE)
    if not resp:
        return ""
    parts = resp[-1].parts or ()
    start = 0
    for i, p in enumerate(parts):
        # AI SDK v4 ``convertToCoreMessages``: a text part after a tool invocation starts a new
        # model message (step-start parts do not); pending calls are not converted
        if isinstance(p, ToolPart) and p.state not in (ToolState.CALL, ToolState.PARTIAL_CALL):
            start = i + 1
    texts = (p.text for p in parts[start:] if isinstance(p, TextPart))
    return "".join(
        t if isinstance(t, str) else "null" if t is None else "undefined"
        for t in texts
        if isinstance(t, str) or t is None or t is UNDEFINED
    )


_NO_RESULT_STATES = frozenset({ToolState.APPROVAL_REQUESTED, ToolState.APPROVAL_RESPONDED})


def _tool_invocation_json(p: ToolPart) -> str:
    """``JSON.stringify`` of Mastra's ``toolInvocation`` object (keys in the order the stored
    format builds them; undefined values left out)."""
    fields = [
        ("state", p.state.value),
        ("toolCallId", p.tool_call_id),
        ("toolName", p.tool_name),
        ("args", p.args),
        ("result", p.result),
        ("errorText", p.error_text),
        ("approval", p.approval),
    ]
    return "{" + ",".join(f"{to_json_text(k)}:{to_json_text(v)}" for k, v in fields if v is not UNDEFINED) + "}"


class ConversionError(str):
    """M13: the message of the error the result-text read-back throws, with the name of its
    class (``name``), which generate puts before it (measured, docs/mastra-measurements.md §k
    k56)."""

    name: str

    def __new__(cls, message: str, name: str = "AI_MessageConversionError") -> ConversionError:
        self = super().__new__(cls, message)
        self.name = name
        return self


def response_conversion_error(lst: MessageList) -> ConversionError | None:
    """M13 result text: the read-back converts every response message, in order, with AI SDK
    v4 ``convertToCoreMessages`` (``get.response.aiV4.core()``). It throws:

    - at an assistant message's tool invocation that awaits or answers an approval
      (``approval-requested``, ``approval-responded``; pending calls are filtered out before,
      ``output-error`` and ``output-denied`` are converted): ``AI_MessageConversionError:
      ToolInvocation must have a result: <JSON>`` (measured: docs/mastra-measurements.md §k);
    - at a user message's file part whose attachment the AI SDK cannot convert
      (``attachment_error``, k56).

    None when the conversion succeeds."""
    for m in lst.view(Source.RESPONSE):
        if m.role is Role.USER:
            # a user message's tool parts are not converted (measured: a user response message
            # holding an ``approval-requested`` call answers, k29); its files are attachments
            for p in m.parts or ():
                if isinstance(p, FilePart):
                    err = attachment_error(p)
                    if err is not None:
                        return err
            continue
        if m.role is not Role.ASSISTANT:
            continue
        for p in m.parts or ():
            if isinstance(p, ToolPart) and p.state in _NO_RESULT_STATES:
                return ConversionError("ToolInvocation must have a result: " + _tool_invocation_json(p))
    return None


def attachment_error(p: FilePart) -> ConversionError | None:
    """M13 result text (k56): a user response message's file part as the read-back converts
    it. Mastra's AI SDK v4 UI message makes it an attachment of URL ``data`` when that is a
    string Mastra reads as a data URI, a provider file id or a URL, ``data:<mediaType>;base64,<data>``
    for any other string, and ``String(data)`` for any other value (``file_data_string``).
    ``attachmentsToParts`` then throws (plain ``Error`` unless named):

    - ``Invalid URL: <url>`` when the URL does not parse (``[object Object]``, ``a,,2``,
      ``undefined``);
    - ``Unsupported URL protocol: <scheme>:`` for a scheme other than http(s) and data;
    - ``Invalid data URL format: <url>`` for a data URL without a comma;
    - ``AI_InvalidDataContentError: Invalid data content. Content string is not a
      base64-encoded media.`` when the media type is ``image/*`` or ``text/*`` and the text
      between the data URL's first and second comma, with ``-`` read as ``+`` and ``_`` as
      ``/``, is not forgiving-base64 (``atob``): ``not!base64`` and ``aGk%3D`` fail, ``note-02``
      and ``""`` pass.

    A provider file id is taken out before the conversion (none generated); an array holding a
    symbol (``String`` throws) is not modelled. Measured on @mastra/core 1.71.0 through the
    adapter: docs/mastra-measurements.md §k k56."""
    data = p.data
    try:
        text = file_data_string(data)
    except MastraError:
        return None
    if isinstance(data, str):
        if data.startswith("file-") and not data.startswith("data:"):
            return None
        url = data if data.startswith("data:") or SCHEME.match(data) else f"data:{p.media_type};base64,{data}"
    else:
        url = text
    if not SCHEME.match(url):
        return ConversionError(f"Invalid URL: {url}", "Error")
    scheme = url.split(":", 1)[0].lower()
    if scheme in ("http", "https"):
        return None
    if scheme != "data":
        return ConversionError(f"Unsupported URL protocol: {scheme}:", "Error")
    pieces = url.split(",")
    if len(pieces) < 2:
        return ConversionError(f"Invalid data URL format: {url}", "Error")
    media = p.media_type if isinstance(p.media_type, str) else ""
    if media.startswith(("image/", "text/")) and not _forgiving_base64(pieces[1].replace("-", "+").replace("_", "/")):
        return ConversionError("Invalid data content. Content string is not a base64-encoded media.", "AI_InvalidDataContentError")
    return None
