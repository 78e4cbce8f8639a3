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
    """M13.5 The result text read back: the texts of the last model message of the last response
    message (``get.response.aiV4.core()``), i.e. its text parts after its last tool invocation
    that is not a pending call, concatenated as JavaScript does (``null`` and ``undefined``
    spelled out).

    Evidence: M13.5"""
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
    """M13.6 Read-back errors: the message of the error the read-back throws, with the name of its
    class (``name``), which generate puts before it."""

    name: str

    def __new__(cls, message: str, name: str = "AI_MessageConversionError") -> ConversionError:
        self = super().__new__(cls, message)
        self.name = name
        return self


def response_conversion_error(lst: MessageList) -> ConversionError | None:
    """M13.6 Read-back errors: the read-back converts every response message in order (AI SDK v4
    ``convertToCoreMessages``) and throws at an assistant message's approval-requested or
    approval-responded part (``AI_MessageConversionError: ToolInvocation must have a result``)
    and at a user message's file part whose attachment it cannot convert (``attachment_error``).
    None when the conversion succeeds.

    Evidence: M13.6"""
    for m in lst.view(Source.RESPONSE):
        if m.role is Role.USER:
            # a user message's tool parts are not converted (measured: a user response message
            # holding an ``approval-requested`` call answers); its files are attachments
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
    """M13.6 Read-back errors: a user response message's file part as the read-back converts it.
    Its attachment URL is ``data`` when Mastra reads it as a data URI, a file id or a URL, else
    ``data:<type>;base64,<data>`` (``String(data)`` for a non-string); it throws for a URL that
    does not parse, another scheme than http(s) or data, a data URL without a comma, and for
    image and text media a payload that is not base64 (``AI_InvalidDataContentError``)."""
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
