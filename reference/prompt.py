"""M12 Model step: the prompt, as Mastra's prompt conversion sends the list to the model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import falsy, join_texts, json_round_trip, nullish_read, read
from guardspec.model.messages import FilePart, ImagePart, Message, ReasoningPart, Role, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import PromptEntry
from guardspec.model.values import UNDEFINED, Accessor, JsObject, obj, to_json_text

from .messagelist import MessageList, StepStartPart
from .reading import cached_output

DENIED = "Tool call was not approved by the user"


def _denied_as_result(p: ToolPart) -> ToolPart:
    """An ``output-denied`` call reaches the model as a result whose output is the text of the
    approval's reason."""
    reason = p.approval.get("reason") if isinstance(p.approval, JsObject) else UNDEFINED
    text = reason if isinstance(reason, str) and reason else DENIED
    return evolve(p, state=ToolState.RESULT, result=obj(type="text", value=text), approval=UNDEFINED)


def stored_model_outputs(lst: MessageList) -> dict:
    """M12 Model step, ``llmPrompt``'s ``storedModelOutputs``: over every message on the list, in list
    order, each tool part in the ``result`` state with a cached model output
    (``providerMetadata.mastra.modelOutput``, not null; ``reading.cached_output``) sets the
    output of its toolCallId, a later one replacing an earlier one (a ``Map`` keyed by
    toolCallId). Measured."""
    out: dict = {}
    for m in lst.all():
        for p in m.parts or ():
            if isinstance(p, ToolPart) and p.state is ToolState.RESULT:
                cached = cached_output(p)
                if cached is not UNDEFINED:
                    out[p.tool_call_id] = cached
    return out


def sanitized_result(v: Any) -> Any:
    """M12 (Mastra's UI-message sanitizing before the AI SDK's conversion, measured): a
    result that is an object holding ``value`` (an
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
    """M12.7 Cached outputs by toolCallId: a sent message's tool results as the model receives them: an ``output-denied``
    call as a result holding the approval's reason; then every tool result of a
    toolCallId that has a stored model output (``stored_model_outputs``: the last cached output
    of that id on the list, whichever part held it), an ``output-error`` or a denied one too,
    is sent as a result with that output (measured: a
    result's own cached output is not used when a later result of the same id has another, an
    ``output-error`` part's cached output is not used at all). Any other result is sent as
    ``sanitized_result`` makes it."""
    if any(isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_DENIED for p in m.parts or ()):
        m = evolve(
            m,
            parts=tuple(
                _denied_as_result(p) if isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_DENIED else p for p in m.parts or ()
            ),
        )

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


def _user_parts(parts: Sequence[Any]) -> tuple:
    """M12.4 User messages: AI SDK ``convertToModelMessages`` sends only a user message's text
    and file parts (a reasoning or tool part is not sent), so a user message left with nothing
    else is not sent at all."""
    return tuple(p for p in parts if type(p) in (TextPart, FilePart))


def _sent_parts(m: Message) -> list:
    """M12.3 Which tool parts are sent: ``sanitizeV5UIMessages`` (prompt mode): tool calls that are not complete (``call``,
    ``partial-call``, approval states) are not sent; empty text parts are dropped from user
    messages, and from other messages that hold anything else; of a user message only what
    M12.4 sends."""
    parts = m.parts or ()
    if m.role is Role.USER:
        parts = _user_parts(parts)
    others = any(not _empty_text(p) for p in parts)
    out = []
    for p in parts:
        if _empty_text(p) and (m.role is Role.USER or others):
            continue
        if isinstance(p, ToolPart) and p.state not in _SENT_TOOL_STATES:
            continue
        out.append(p)
    return out


def model_message_blocks(parts: Sequence[Any]) -> list[list]:
    """M12 Model step: AI SDK ``convertToModelMessages`` splits an assistant message into a new
    model message at every step-start, and after a tool part followed by a part that is not a
    tool part (``addStartStepPartsForAIV5``); the policies split it the same way (G12.1)."""
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
    for every system entry (untagged, then tagged) before any text is read: a ``null`` or
    ``undefined`` element throws ``TypeError: Cannot read properties of null (reading
    'type')`` (``of undefined``), before the model is called; other elements that are no part
    (``3``, ``'x'``) are passed over. generate and stream reject with that TypeError as it is,
    the durable loop reports it and saves the turn with an error response (measured). The
    entry's content is read first, then its providerOptions and, when those are undefined or
    null, its experimental_providerMetadata, each through its getter (M14.1): a getter that
    throws fails the conversion there, with its own error."""
    c = read(s.content)
    if not s.stored and isinstance(c, tuple):
        for x in c:
            if x is None or x is UNDEFINED:
                raise nullish_read(x, "type")
    _options(s)


def _options(s: SystemMessage) -> Any:
    """M12.2 System entries as sent: the entry's own options as the conversion reads them,
    ``providerOptions`` and, when that is undefined or null, ``experimental_providerMetadata``
    (a getter read, M14.1); undefined when neither holds any."""
    for v in (s.provider_options, s.experimental_provider_metadata):
        v = read(v)
        if v is not UNDEFINED and v is not None:
            return v
    return UNDEFINED


def _system_text_part(x: Any) -> TextPart | None:
    """M12: an element of a system entry's array content that the conversion reads as a text
    part (``part.type === 'text'``): a text part, or a plain value with ``type: "text"`` that a
    processor wrote there (``editSystem``; measured: ``[{type: 'text', text: 'note-05',
    providerOptions: {openai: …}}, {type: 'text', text: 'note-06'}]`` is sent as
    ``note-05note-06`` with those providerOptions, a ``text: 5`` throws the
    TypeError of M12.9)."""
    if isinstance(x, TextPart):
        return x
    if isinstance(x, JsObject) and read(x.get("type")) == "text":
        return TextPart(x.get("text"), x.get("providerOptions"))
    return None


# the element types ``AIV4Adapter.fromCoreMessage`` converts to a message part
_CONVERTED_TYPES = frozenset({"text", "tool-call", "tool-result", "reasoning", "redacted-reasoning", "image", "file"})
_CONVERTED_PARTS = (TextPart, ReasoningPart, FilePart, ImagePart)


def _converted_part(x: Any) -> bool:
    """M12.2: an element of array content the conversion turns into a part (a ``type`` it
    knows); any such part keeps the entry in the prompt, with no text when none is a text part.
    The model's tool parts are ``tool-invocation``, which it passes over, as other values."""
    if isinstance(x, _CONVERTED_PARTS):
        return True
    return isinstance(x, JsObject) and read(x.get("type")) in _CONVERTED_TYPES


def system_prompt_entry(s: SystemMessage) -> SystemMessage | None:
    """M12.2 System entries as sent: a system entry as the model receives it
    (``aiV4CoreMessagesToAIV5ModelMessages``, measured). String content as it is. Array
    content becomes the concatenation (no separator) of its text parts (a getter's value;
    null and undefined as ``""``; any other value that is not a string throws ``TypeError:
    p.text?.trim is not a function``); other parts the conversion knows add no text, so an
    entry holding only those is sent with content ``""``, and one holding no part at all is
    not sent. Any other content (a kept stored-format message, no content, another value) is
    not sent. ``providerOptions`` are the message's own when not null, else its
    ``experimental_providerMetadata`` when not null, else the text parts' providerOptions
    spread one over the other (none when that is empty). Content and options held by an
    accessor are read through its getter (M14.1)."""
    c = read(s.content)
    if s.stored:
        return None
    if isinstance(c, str):
        text = c
        parts: tuple = ()
    elif isinstance(c, tuple):
        parts = tuple(p for p in (_system_text_part(x) for x in c) if p is not None)
        if not parts and not any(_converted_part(x) for x in c):
            return None
        texts = [read(p.text) for p in parts]
        if any(not isinstance(t, str) and t is not None and t is not UNDEFINED for t in texts):
            # ``sanitizeV5UIMessages``: ``p.text?.trim()`` on a value that is no string
            raise MastraError("TypeError", "p.text?.trim is not a function")
        text = join_texts(texts, "")
    else:
        return None
    options = _options(s)
    if options is UNDEFINED:
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
    conversion before the model is called (``MessageTextError``; measured)."""
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
    """M12.5 What never reaches the prompt: what of a part reaches the prompt: a stored-format text part's ``providerOptions``
    never do (only a part's ``providerMetadata`` is read, and the model's parts carry none;
    measured for null, an unknown namespace and ``openai``), nor a tool call's ``approval``
    (the prompt's tool-call/tool-result parts have no such field). A tool result is sent as the model output the AI SDK makes of it: a string as the
    text output ``{type: 'text', value}``, undefined as the JSON output ``null``; an error's
    text as ``sent_error_text`` makes it."""
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
    no metadata (measured: the message's ``content.metadata`` never
    reaches the prompt, whatever its role or value)."""
    if m.metadata is not UNDEFINED:
        m = evolve(m, metadata=UNDEFINED)
    parts = tuple(sent_part(p) for p in m.parts or ())
    if all(a is b for a, b in zip(parts, m.parts or ())):
        return m
    return evolve(m, parts=parts)


class MessageTextError(MastraError):
    """M12 Model step: The prompt conversion's error at a message's text part: ``generate``/``stream`` wrap
    it in their own error id (``AGENT_GENERATE_FAILED``/``AGENT_STREAM_FAILED``), the durable
    loop reports it as it is."""


def _check_texts(m: Message) -> None:
    """M12.9 Conversion errors before the model: ``sanitizeV5UIMessages`` reads every text part with ``p.text?.trim()``: a text that
    is neither a string nor null/undefined throws ``TypeError: p.text?.trim is not a function``
    before the model is called, whatever the message's role."""
    for p in m.parts or ():
        if type(p) is TextPart:
            t = read(p.text)
            if not isinstance(t, str) and t is not None and t is not UNDEFINED:
                raise MessageTextError("TypeError", "p.text?.trim is not a function")


def _spread_prompt_metadata(m: Message) -> None:
    """M12 the prompt conversion (``AIV5Adapter.toUIMessage``) first spreads every message's
    metadata, ``{...metadata || {}}``, whatever its role and parts: a getter that throws there
    fails the call before the model is called, with the getter's error (generate/stream wrap it
    as ``AGENT_*_FAILED``, the durable loop reports ``Error: getter <name> throws``; measured).
    Other metadata spreads without error."""
    md = m.metadata
    if isinstance(md, JsObject):
        for _, v in md.props:
            if isinstance(v, Accessor) and v.throws:
                raise MessageTextError("Error", f"getter {v.name} throws")


def prompt(lst: MessageList) -> tuple[PromptEntry, ...]:
    """M12.1 Prompt order and the leading user message: all system messages (M6 order, as ``system_prompt_entry`` sends them), then every
    non-system message in list (createdAt) order as Mastra's prompt conversion sends it:
    pending tool calls are not sent, a message left with
    nothing is not sent, an assistant message is split at step boundaries, part providerOptions
    and message metadata are not sent, and when the first non-system message is not a user message a user message
    "." comes first. A tool result whose toolCallId has a cached output on the list is sent
    with the last such output (M11, ``stored_model_outputs``)."""
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
            msgs.extend(_substituted(evolve(m, parts=tuple(b)), outputs) for b in model_message_blocks(parts))
        else:
            msgs.append(_substituted(evolve(m, parts=tuple(p for p in parts if not isinstance(p, StepStartPart))), outputs))
    if msgs and msgs[0].role is not Role.USER:
        msgs.insert(0, Message(id="", role=Role.USER, parts=(TextPart("."),), created_at=0))
    return tuple(out) + tuple(_sent_message(m) for m in msgs)
