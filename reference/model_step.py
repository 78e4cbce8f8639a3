"""M12 Model step with a scripted model."""

from __future__ import annotations

import re

from guardspec.model.fast import evolve

from typing import Any

from guardspec.model.messages import FilePart, Message, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import PromptEntry

from . import messagelist as ml
from .messagelist import MessageList, StepStartPart
from .errors import MastraError
from .jsvalues import falsy, join_texts, json_round_trip, read, to_string
from .reading import cached_output
from guardspec.model.values import UNDEFINED, Accessor, JsObject, JsSymbol, obj, to_json_text

REPLY_ID = "reply-1"


DENIED = "Tool call was not approved by the user"


def _denied_as_result(p: ToolPart) -> ToolPart:
    """An ``output-denied`` call reaches the model as a result whose output is the text of the
    approval's reason (docs/mastra-measurements.md §j)."""
    reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
    text = reason if isinstance(reason, str) and reason else DENIED
    return evolve(p, state=ToolState.RESULT, result=obj(type="text", value=text), approval=UNDEFINED)


def stored_model_outputs(lst: MessageList) -> dict:
    """M11/M12 ``llmPrompt``'s ``storedModelOutputs``: over every message on the list, in list
    order, each tool part in the ``result`` state with a cached model output
    (``providerMetadata.mastra.modelOutput``, not null; ``reading.cached_output``) sets the
    output of its toolCallId, a later one replacing an earlier one (a ``Map`` keyed by
    toolCallId). Measured, docs/mastra-measurements.md §k k49."""
    out: dict = {}
    for m in lst.all():
        for p in m.parts or ():
            if isinstance(p, ToolPart) and p.state is ToolState.RESULT:
                cached = cached_output(p)
                if cached is not UNDEFINED:
                    out[p.tool_call_id] = cached
    return out


def sanitized_result(v: Any) -> Any:
    """M12 (Mastra's UI-message sanitizing before the AI SDK's conversion, measured in
    docs/mastra-measurements.md §k k60): a result that is an object holding ``value`` (an
    output wrapper ``{type, value}``, or any object with that key) is sent as that value,
    unless it is a content output (``type`` ``'content'`` and an array ``value``); anything
    else as it is. The AI SDK then sends a string as the text output and the rest as JSON
    (``sent_part``). A cached model output (M11) is not sanitized: it replaces the result
    after this step. A throwing getter fails the conversion (no generator makes one)."""
    if not isinstance(v, JsObject) or not v.has("value"):
        return v
    try:
        kind, value = read(v.get("type")), read(v.get("value"))
    except MastraError as e:
        raise MessageTextError(e.code, str(e).partition(": ")[2]) from None
    return v if kind == "content" and isinstance(value, tuple) else value


def _substituted(m: Message, outputs: dict) -> Message:
    """M11/M12: a sent message's tool results as the model receives them: an ``output-denied``
    call as a result holding the approval's reason (§j); then every tool result of a
    toolCallId that has a stored model output (``stored_model_outputs``: the last cached output
    of that id on the list, whichever part held it), an ``output-error`` or a denied one too,
    is sent as a result with that output (measured, docs/mastra-measurements.md §k k49: a
    result's own cached output is not used when a later result of the same id has another, an
    ``output-error`` part's cached output is not used at all). Any other result is sent as
    ``sanitized_result`` makes it (k60)."""
    if any(isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_DENIED for p in m.parts or ()):
        m = evolve(m, parts=tuple(_denied_as_result(p) if isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_DENIED else p for p in m.parts or ()))

    def sub(p: Any) -> Any:
        if isinstance(p, ToolPart) and p.state in (ToolState.RESULT, ToolState.OUTPUT_ERROR) and p.tool_call_id in outputs:
            return evolve(p, state=ToolState.RESULT, result=outputs[p.tool_call_id], error_text=UNDEFINED)
        if isinstance(p, ToolPart) and p.state is ToolState.RESULT:
            r = sanitized_result(p.result)
            return p if r is p.result else evolve(p, result=r)
        return p

    parts = tuple(sub(p) for p in m.parts or ())
    if all(a is b for a, b in zip(parts, m.parts or ())):
        return evolve(m, ref=0)
    return evolve(m, parts=parts, ref=0)


_SENT_TOOL_STATES = frozenset({ToolState.RESULT, ToolState.OUTPUT_ERROR, ToolState.OUTPUT_DENIED})


def _empty_text(p: Any) -> bool:
    return isinstance(p, TextPart) and isinstance(p.text, str) and p.text.strip() == ""


def _sent_parts(m: Message) -> list:
    """``sanitizeV5UIMessages`` (prompt mode): tool calls that are not complete (``call``,
    ``partial-call``, approval states) are not sent; empty text parts are dropped from user
    messages, and from other messages that hold anything else. AI SDK ``convertToModelMessages``
    sends only the text and file parts of a user message (measured: a user message's reasoning
    part is not sent, and a user message holding only reasoning is not sent at all,
    docs/mastra-measurements.md §k)."""
    parts = m.parts or ()
    if m.role is Role.USER:
        parts = tuple(p for p in parts if type(p) in (TextPart, FilePart))
    others = any(not _empty_text(p) for p in parts)
    out = []
    for p in parts:
        if _empty_text(p) and (m.role is Role.USER or others):
            continue
        if isinstance(p, ToolPart) and p.state not in _SENT_TOOL_STATES:
            continue
        out.append(p)
    return out


def _blocks(parts: list) -> list[list]:
    """AI SDK ``convertToModelMessages`` on an assistant message: a new model message at every
    step-start, and after a tool part followed by a part that is not a tool part
    (``addStartStepPartsForAIV5``)."""
    blocks: list[list] = [[]]
    for i, p in enumerate(parts):
        if isinstance(p, StepStartPart):
            blocks.append([])
            continue
        if i > 0 and isinstance(parts[i - 1], ToolPart) and not isinstance(p, ToolPart):
            blocks.append([])
        blocks[-1].append(p)
    return [b for b in blocks if b]


def _js_spread(acc: JsObject, v: Any) -> JsObject:
    """``{...acc, ...v}``: an object's own properties, a string's characters by index;
    anything else adds nothing."""
    if isinstance(v, JsObject):
        for k, x in v.props:
            acc = acc.set(k, x)
    elif isinstance(v, str):
        for i, ch in enumerate(v):
            acc = acc.set(str(i), ch)
    return acc


def _check_system_elements(s: SystemMessage) -> None:
    """M12 the system prompt's conversion (``aiV4CoreMessagesToAIV5ModelMessages`` →
    ``AIV4Adapter.fromCoreMessage``) reads ``part.type`` of each element of an array content,
    for every system entry (untagged, then tagged) before any text is read (k27): a ``null`` or
    ``undefined`` element throws ``TypeError: Cannot read properties of null (reading
    'type')`` (``of undefined``), before the model is called; other elements that are no part
    (``3``, ``'x'``) are passed over. generate and stream reject with that TypeError as it is,
    the durable loop reports it and saves the turn with an error response (measured,
    docs/mastra-measurements.md §k k48)."""
    c = s.content
    if s.stored or not isinstance(c, tuple):
        return
    for x in c:
        if x is None or x is UNDEFINED:
            raise MastraError("TypeError", f"Cannot read properties of {'null' if x is None else 'undefined'} (reading 'type')")


def _system_text_part(x: Any) -> TextPart | None:
    """M12: an element of a system entry's array content that the conversion reads as a text
    part (``part.type === 'text'``): a text part, or a plain value with ``type: "text"`` that a
    processor wrote there (``editSystem``; measured: ``[{type: 'text', text: 'note-05',
    providerOptions: {openai: …}}, {type: 'text', text: 'note-06'}]`` is sent as
    ``note-05note-06`` with those providerOptions, a ``text: 5`` throws k27's TypeError;
    docs/mastra-measurements.md §k k48)."""
    if isinstance(x, TextPart):
        return x
    if isinstance(x, JsObject) and read(x.get("type")) == "text":
        return TextPart(x.get("text"), x.get("providerOptions"))
    return None


def system_prompt_entry(s: SystemMessage) -> SystemMessage | None:
    """M12 a system entry as the model receives it (``aiV4CoreMessagesToAIV5ModelMessages``,
    measured: docs/mastra-measurements.md §k, probe ``k-system-prompt``): string
    content as it is; array content becomes the concatenation (no separator) of its text
    parts (a getter's value, k17; null and undefined as ``""``; any other value that is not a
    string throws ``TypeError: p.text?.trim is not a function``, k27), other part kinds ignored, and an entry without text parts is not sent; any other
    content (a kept stored-format message, no content, another value) is not sent.
    ``providerOptions`` are the message's own when not null, else its
    ``experimental_providerMetadata`` when not null, else the text parts' providerOptions
    spread one over the other (none when that is empty)."""
    c = s.content
    if s.stored:
        return None
    if isinstance(c, str):
        text = c
        parts: tuple = ()
    elif isinstance(c, tuple):
        parts = tuple(p for p in (_system_text_part(x) for x in c) if p is not None)
        if not parts:
            return None
        texts = [read(p.text) for p in parts]
        if any(not isinstance(t, str) and t is not None and t is not UNDEFINED for t in texts):
            # ``sanitizeV5UIMessages``: ``p.text?.trim()`` on a value that is no string (k27)
            raise MastraError("TypeError", "p.text?.trim is not a function")
        text = join_texts(texts, "")
    else:
        return None
    options: Any = UNDEFINED
    for v in (s.provider_options, s.experimental_provider_metadata):
        if v is not UNDEFINED and v is not None:
            options = v
            break
    else:
        merged = JsObject()
        for p in parts:
            merged = _js_spread(merged, p.provider_options)
        if merged.props:
            options = merged
    return SystemMessage(text, options)


def sent_error_text(v: Any) -> Any:
    """M12: the ``errorText`` of an ``output-error`` part as the model receives it: Mastra's
    ``errorText || ""``, then the AI SDK's ``getErrorMessage``: a string as it is, any other
    value as ``JSON.stringify`` writes it (undefined, so no text, for a function or a symbol).
    A value ``JSON.stringify`` throws on (a bigint, a throwing getter) fails the prompt's
    conversion before the model is called (``MessageTextError``; measured,
    docs/mastra-measurements.md §k k58)."""
    if falsy(v):
        return ""
    if isinstance(v, str):
        return v
    try:
        j = json_round_trip(v)
    except MastraError as e:
        raise MessageTextError(e.code, str(e).partition(": ")[2]) from None
    return UNDEFINED if j is UNDEFINED else to_json_text(j)


def sent_part(p: Any) -> Any:
    """M12: what of a part reaches the prompt: a stored-format text part's ``providerOptions``
    never do (only a part's ``providerMetadata`` is read, and the model's parts carry none;
    measured for null, an unknown namespace and ``openai``), nor a tool call's ``approval``
    (the prompt's tool-call/tool-result parts have no such field) (docs/mastra-measurements.md
    §k). A tool result is sent as the model output the AI SDK makes of it: a string as the
    text output ``{type: 'text', value}``, undefined as the JSON output ``null``; an error's
    text as ``sent_error_text`` makes it (k58)."""
    if isinstance(p, TextPart) and p.provider_options is not UNDEFINED:
        return evolve(p, provider_options=UNDEFINED)
    if isinstance(p, ToolPart):
        changes: dict[str, Any] = {}
        if p.approval is not UNDEFINED:
            changes["approval"] = UNDEFINED
        if p.state is ToolState.OUTPUT_ERROR:
            e = sent_error_text(p.error_text)
            if e is not p.error_text:
                changes["error_text"] = e
        elif p.state is ToolState.RESULT:
            if isinstance(p.result, str):
                changes["result"] = obj(type="text", value=p.result)
            elif p.result is UNDEFINED:
                changes["result"] = None
        return evolve(p, **changes) if changes else p
    return p


def _sent_message(m: Message) -> Message:
    """M12: a prompt message is ``{role, content}``: its parts as ``sent_part`` sends them and
    no metadata (probe ``k-message-metadata-prompt``: the message's ``content.metadata`` never
    reaches the prompt, whatever its role or value; docs/mastra-measurements.md §k k36)."""
    if m.metadata is not UNDEFINED:
        m = evolve(m, metadata=UNDEFINED)
    parts = tuple(sent_part(p) for p in m.parts or ())
    if all(a is b for a, b in zip(parts, m.parts or ())):
        return m
    return evolve(m, parts=parts)


class MessageTextError(MastraError):
    """The prompt conversion's error at a message's text part: ``generate``/``stream`` wrap
    it in their own error id (``AGENT_GENERATE_FAILED``/``AGENT_STREAM_FAILED``), the durable
    loop reports it as it is (measured, k31)."""


def _check_texts(m: Message) -> None:
    """M12 ``sanitizeV5UIMessages`` reads every text part with ``p.text?.trim()``: a text that
    is neither a string nor null/undefined throws ``TypeError: p.text?.trim is not a function``
    before the model is called, whatever the message's role (measured, k31)."""
    for p in m.parts or ():
        if type(p) is TextPart:
            t = read(p.text)
            if not isinstance(t, str) and t is not None and t is not UNDEFINED:
                raise MessageTextError("TypeError", "p.text?.trim is not a function")


def _spread_prompt_metadata(m: Message) -> None:
    """M12 the prompt conversion (``AIV5Adapter.toUIMessage``) first spreads every message's
    metadata, ``{...metadata || {}}``, whatever its role and parts: a getter that throws there
    fails the call before the model is called, with the getter's error (generate/stream wrap it
    as ``AGENT_*_FAILED``, the durable loop reports ``Error: getter <name> throws``; measured,
    docs/mastra-measurements.md §k k47). Other metadata spreads without error."""
    md = m.metadata
    if isinstance(md, JsObject):
        for _, v in md.props:
            if isinstance(v, Accessor) and v.throws:
                raise MessageTextError("Error", f"getter {v.name} throws")


def prompt(lst: MessageList) -> tuple[PromptEntry, ...]:
    """M12: all system messages (M6 order, as ``system_prompt_entry`` sends them), then every
    non-system message in list (createdAt) order as Mastra's prompt conversion sends it
    (docs/mastra-measurements.md §j, §k): pending tool calls are not sent, a message left with
    nothing is not sent, an assistant message is split at step boundaries, part providerOptions
    and message metadata are not sent, and when the first non-system message is not a user message a user message
    "." comes first. A tool result whose toolCallId has a cached output on the list is sent
    with the last such output (M11, ``stored_model_outputs``, k49)."""
    for s in lst.system_all():
        _check_system_elements(s)
    out: list[PromptEntry] = [e for e in (system_prompt_entry(s) for s in lst.system_all()) if e is not None]
    for m in lst.all():
        _spread_prompt_metadata(m)
    outputs = stored_model_outputs(lst)
    msgs: list[Message] = []
    for m in lst.all():
        if not m.parts:
            continue
        _check_texts(m)
        parts = _sent_parts(m)
        if not any(not isinstance(p, StepStartPart) for p in parts):
            continue
        if m.role is Role.ASSISTANT:
            msgs.extend(_substituted(evolve(m, parts=tuple(b)), outputs) for b in _blocks(parts))
        else:
            msgs.append(_substituted(evolve(m, parts=tuple(p for p in parts if not isinstance(p, StepStartPart))), outputs))
    if msgs and msgs[0].role is not Role.USER:
        msgs.insert(0, Message(id="", role=Role.USER, parts=(TextPart("."),), created_at=0))
    return tuple(out) + tuple(_sent_message(m) for m in msgs)


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
    return "".join(t if isinstance(t, str) else "null" if t is None else "undefined" for t in texts if isinstance(t, str) or t is None or t is UNDEFINED)


_NO_RESULT_STATES = frozenset({ToolState.APPROVAL_REQUESTED, ToolState.APPROVAL_RESPONDED})


def _tool_invocation_json(p: ToolPart) -> str:
    """``JSON.stringify`` of Mastra's ``toolInvocation`` object (keys in the order the stored
    format builds them; undefined values left out)."""
    from guardspec.model.values import to_json_text

    fields = [("state", p.state.value), ("toolCallId", p.tool_call_id), ("toolName", p.tool_name), ("args", p.args),
              ("result", p.result), ("errorText", p.error_text), ("approval", p.approval)]
    return "{" + ",".join(f"{to_json_text(k)}:{to_json_text(v)}" for k, v in fields if v is not UNDEFINED) + "}"


class ConversionError(str):
    """M13: the message of the error the result-text read-back throws, with the name of its
    class (``name``), which generate puts before it (measured, docs/mastra-measurements.md §k
    k56)."""

    name: str

    def __new__(cls, message: str, name: str = "AI_MessageConversionError") -> "ConversionError":
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
        url = data if data.startswith("data:") or _URL_SCHEME.match(data) else f"data:{p.media_type};base64,{data}"
    else:
        url = text
    if not _URL_SCHEME.match(url):
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


_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def file_data_string(v: Any) -> str:
    """M12 ``resolveFilePartMediaTypeAndData`` + ``imageContentToString``: a stored file part's
    data as the prompt conversion reads it: ``data ?? url`` (null and undefined give
    ``"undefined"``), then ``String(data)`` (a symbol gives ``Symbol(name)``, a function its
    source; an array is joined, and throws on a symbol inside). Measured: probe
    ``k-prompt-file-data`` (docs/mastra-measurements.md §k k18)."""
    if v is None or v is UNDEFINED:
        return "undefined"
    if isinstance(v, JsSymbol):
        return f"Symbol({v.name})"
    return to_string(v)


def received_data(data: Any) -> Any:
    """M12 a file part's data in the prompt the language model receives (measured: probe
    ``k-prompt-file-data``, docs/mastra-measurements.md §k k18): ``file_data_string``; data
    that is not a URL, a data URI or a provider file id is wrapped as
    ``data:<mediaType>;base64,<data>`` and the AI SDK reads it back with
    ``dataUrl.split(',')[1]``, so the model receives the text before its first comma
    (``{answer}`` → ``"[object Object]"``, ``['a', null, 2]`` → ``"a"``, ``null`` →
    ``"undefined"``). A URL, data URI or provider file id is left as it is (not generated)."""
    text = file_data_string(data)
    if text.startswith("data:"):
        # a data URI: the AI SDK reads its payload, the text after the first comma (measured:
        # ``data:text/plain;base64,aGk=`` → ``"aGk="``, ``data:text/plain,hello`` → ``"hello"``,
        # docs/mastra-measurements.md §k k44)
        return text.split(",", 1)[1] if "," in text else ""
    if text.startswith("file-") or _URL_SCHEME.match(text):
        return data
    return text.split(",")[0]


def received(e: Any) -> Any:
    """M12: a prompt message with its file parts' data as the model receives it
    (``received_data``)."""
    if not isinstance(e, Message) or not any(isinstance(p, FilePart) for p in e.parts or ()):
        return e
    return evolve(e, parts=tuple(evolve(p, data=received_data(p.data)) if isinstance(p, FilePart) else p for p in e.parts or ()))


def _percent_decoded(s: str) -> str:
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


def _forgiving_base64(s: str) -> bool:
    """WHATWG forgiving-base64 decode succeeds (what ``fetch`` of a ``data:…;base64,`` URL
    applies)."""
    s = "".join(ch for ch in s if ch not in " \t\n\f\r")
    if len(s) % 4 == 0:
        s = s[:-2] if s.endswith("==") else s[:-1] if s.endswith("=") else s
    if len(s) % 4 == 1:
        return False
    return all(ch in _B64 for ch in s)


def download_failure(sent: tuple) -> str | None:
    """M12 assets: before calling the model, Mastra downloads the file data of the prompt's
    user messages; data that is not a URL is sent as ``data:<mediaType>;base64,<data>``
    (``file_data_string``: null data gives ``undefined``, k18) and fetched, which fails when it is not base64 (WHATWG forgiving-base64 after
    percent-decoding: ``note-00``, ``aGk==``, ``[object Object]``, ``2`` fail; ``aGk``,
    ``aGk=``, ``aG k=``, ``aGk%3D``, ``""`` pass; an assistant message's file is not
    downloaded). Measured: docs/mastra-measurements.md §k. Returns the redacted URL Mastra
    names (``null<mediaType>;base64,<data>``), None when every download succeeds. A data URI
    is fetched as ``data:<mediaType>;base64,<its payload>``; any other URL fails (k44,
    ``redacted_url``); a provider file id (none generated), or an array holding a symbol
    (``String`` throws; not modelled), is left alone.

    The downloads run concurrently (``p-map``) and the call fails with the first to fail in
    time, so which failing asset is named is a race, measured (k50) as: the asset at the
    lowest ``position + delay``, where position counts every asset fetched, in prompt order
    (one that succeeds too), and the delay is 0 for a URL with credentials (``fetch`` refuses
    it at once), 1.5 for a data URI or a scheme ``fetch`` does not know (``ftp:``, ``note:``),
    and for an http(s) URL more than any position (its host is looked up first); equal
    scores: the first in order."""
    failing: list[tuple[float, int, str]] = []
    position = 0
    for e in sent:
        if not isinstance(e, Message) or e.role is not Role.USER:
            continue
        for p in e.parts or ():
            if not isinstance(p, FilePart):
                continue
            try:
                data = file_data_string(p.data)
            except MastraError:  # String() of an array holding a symbol: not modelled
                continue
            if data.startswith("file-") and not data.startswith("data:"):
                continue
            position += 1
            if isinstance(p.data, str) and not data.startswith("data:") and _URL_SCHEME.match(data):
                # (only string data is read as a URL: an array naming one is wrapped as base64
                # data, measured, k56)
                # k44: any other URL is fetched, and the fetch fails: an http(s) URL's host
                # does not resolve (the generators name hosts under the reserved ``.example``
                # TLD, RFC 6761, and the campaigns run offline), other schemes (``ftp:``,
                # ``note:``) are not fetchable; Mastra names the URL's origin and path
                failing.append((position + _download_delay(data), position, redacted_url(data)))
                continue
            if data.startswith("data:") and "," not in data:
                # a data URI without a comma is fetched as it is and fails; Mastra names it by
                # its path, the text after ``data:`` (measured, k56: ``data:text/plain;base64``
                # → ``nulltext/plain;base64``; not generated)
                failing.append((position + 1.5, position, "null" + re.split(r"[?#]", data[5:])[0]))
                continue
            if data.startswith("data:"):
                # k44: a data URI is fetched as ``data:<mediaType>;base64,<its payload>``
                data = data.split(",", 1)[1]
            if not _forgiving_base64(_percent_decoded(data)):
                failing.append((position + 1.5, position, f"null{p.media_type};base64,{data}"))
    return min(failing)[2] if failing else None


def _download_delay(url: str) -> float:
    """M12 assets (k50): how late a URL's failed download comes, in fetch starts: a URL with
    credentials (``user[:password]@``) at once (``new Request`` throws), an http(s) URL after
    its host lookup (later than any other), any other scheme as a data URI (1.5)."""
    scheme, rest = url.split(":", 1)
    scheme = scheme.lower()
    if scheme in _SPECIAL and "@" in re.split(r"[/\\?#]", rest.lstrip("/\\"), maxsplit=1)[0]:
        return 0.0
    if scheme in ("http", "https"):
        return 1e9
    return 1.5


_SPECIAL = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}


def redacted_url(text: str) -> str:
    """M12 assets: the URL a failed download names, ``url.origin + url.pathname`` (Mastra's
    ``redactUrlForLog``: credentials, query and fragment left out; measured, k44:
    ``https://u:p@assets.example/d.png?x=1#f`` → ``https://assets.example/d.png``,
    ``ftp://assets.example/e.txt`` as is, ``note: see the file`` → ``null see the file``).
    WHATWG origins: a special scheme's is ``scheme://host[:port]`` (default port left out),
    any other scheme's ``null``. Only the URL shapes the generators make are covered (no IPv6
    hosts, no percent-encoding of the path)."""
    scheme, rest = text.split(":", 1)
    scheme = scheme.lower()
    rest = re.split(r"[?#]", rest, maxsplit=1)[0]
    if scheme not in _SPECIAL:
        return "null" + rest
    rest = rest.lstrip("/\\")
    authority, _, path = rest.partition("/")
    host = authority.rsplit("@", 1)[-1].lower()
    if ":" in host:
        name, port = host.rsplit(":", 1)
        host = name if port in ("", _SPECIAL[scheme]) else host
    return f"{scheme}://{host}/{path}"


def error_message(lst: MessageList) -> Message:
    """M12: the response message Mastra adds when the model step fails: one ``error`` part,
    which the protocol reports as a part kind the model has no word for (the text
    ``<mastra part error>``, docs/protocol.md "Representation")."""
    return Message(id=REPLY_ID, role=Role.ASSISTANT, parts=(ml.ERROR_PART,), created_at=response_date(lst))


def response_date(lst: MessageList) -> int:
    """M12: a response message Mastra makes is dated by the list like a string input: the
    clock, or one past the createdAt watermark when that is not behind it (measured: two
    string inputs dated ``now`` and ``now + 1`` come before the reply,
    docs/mastra-measurements.md §k)."""
    return lst.clock if lst.watermark is None or lst.clock > lst.watermark else lst.watermark + 1


def model_step(lst: MessageList, reply: str) -> tuple[MessageList, tuple[PromptEntry, ...]]:
    """M12 Model step: the model receives the prompt and its reply is added as an assistant
    ``response`` message (M4 may merge it into a trailing assistant message, which then moves
    to response)."""
    sent = tuple(received(e) for e in prompt(lst))
    msg = Message(id=REPLY_ID, role=Role.ASSISTANT, parts=(TextPart(reply),), created_at=response_date(lst))
    out = ml.add_one(lst, msg, Source.RESPONSE)
    if lst.slots and out.slot_of(REPLY_ID) is None:  # merged into the trailing assistant message
        ref = lst.slots[-1].message.ref
        target = next((s.message for s in out.slots if s.message.ref == ref), None)
        if target is not None and target.metadata is not UNDEFINED:
            out = ml.replace_message(out, evolve(target, metadata=spread_metadata(target.metadata)))
    return out, sent


def spread_metadata(v: Any) -> Any:
    """M4/M12 the reply's merge (measured, docs/mastra-measurements.md §k k46): Mastra's reply
    carries the answering model in its ``metadata`` (an object, which the normalisation drops),
    so merging it into the trailing assistant message writes that message's metadata as
    ``{...metadata, ...reply's}``: an object's own properties (a getter read, a class instance
    made plain), a string's characters and an array's elements by index; ``null``, a number,
    a boolean, a bigint, a symbol or a function spread nothing, and metadata left empty is none
    (the adapter reports ``{}`` as none). A throwing getter never gets here: the prompt
    conversion throws at it first (k47, ``_spread_prompt_metadata``)."""
    if v is UNDEFINED:
        return v
    out = JsObject()
    if isinstance(v, JsObject):
        for k, x in v.props:
            out = out.set(k, x.value if isinstance(x, Accessor) and not x.throws else x)
    elif isinstance(v, (str, tuple)):
        for i, x in enumerate(v):
            out = out.set(str(i), x)
    return out if out.props else UNDEFINED


def stamp_merged_reply(before: MessageList, lst: MessageList) -> MessageList:
    """After saving: when the reply merged into the trailing assistant message, Mastra's
    response handling stamps every part of that message (the stored copy keeps the parts as
    they were saved; docs/mastra-measurements.md §j)."""
    if not before.slots or lst.slot_of(REPLY_ID) is not None:
        return lst
    ref = before.slots[-1].message.ref
    target = next((s.message for s in lst.slots if s.message.ref == ref), None)
    if target is None:
        return lst
    return ml.replace_message(lst, ml._stamp(target, lst.clock))


def readd_earlier_responses(before: MessageList, lst: MessageList) -> MessageList:
    """M12 ``generate()`` and ``stream()`` (measured, docs/mastra-measurements.md §j, and §k
    for generate): after the reply, the response messages that were on the list before the
    model step are added again as ``response`` (merge on), so an earlier response message's
    parts merge into the reply message when that is the latest assistant message (measured:
    reply parts ``["reply-0", "added"]`` on both loops, with and without memory)."""
    refs = [s.message.ref for s in before.slots if Source.RESPONSE in s.sources]
    for ref in refs:
        m = next((s.message for s in lst.slots if s.message.ref == ref), None)
        if m is not None:
            lst = ml.add_one(lst, m, Source.RESPONSE)
    return lst
