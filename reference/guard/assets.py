"""The input-assets gate ``breakwater-input-assets`` (G2, G12, G13, I4).

SPEC has no clause for this gate: the seed names "the mandatory input gates" without listing
them, and G2's chain stops at the input policies. Breakwater 0.17.0 puts one more gate between
the application input processors and client tool output mapping, and its asset check runs a
second time inside the mapping stage over the cached model outputs of tool results. This module
ports both, in our own words, from Breakwater's agent module (``inputAssetCheck``,
``inputAssetProcessor``, ``readAllowedInputAssetOrigins``) and prompt media module
(``inputAssetUrls``, ``classifyPromptMedia``, ``toolOutputAssetUrls``), over Mastra 1.71.0's
prompt conversion (``convertMessages(...).to('AIV5.Model')``, measured).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from attrs import frozen

from guardspec.model.agent import Agent
from guardspec.model.errors import MastraError
from guardspec.model.messages import FilePart, ImagePart, Message, Role, Source, TextPart, ToolPart, ToolState
from guardspec.model.values import UNDEFINED, Accessor, JsObject

from ..messagelist import MessageList
from ..prompt import sent_error_text
from ..reading import cached_output, clonable_entry
from ..urls import Url, parse_url

INPUT_ASSETS = "breakwater-input-assets"
NOT_CLASSIFIED = "input message content is not classified"
SCHEME_DENIED = "input asset URL scheme is not allowed"
CREDENTIALS_DENIED = "input asset URL credentials are not allowed"
ORIGIN_DENIED = "input asset URL origin is not allowed"
OPTION = "createGuardedAgent: allowedInputAssetOrigins"


@frozen
class AssetRefusal:
    """G16.5 The denial: Where the gate stops a call: ``decision`` ``denied`` (event action
    ``agent.input.asset``) for a URL, ``error`` (action ``agent.input.policy``) for content the
    prompt conversion cannot take."""

    decision: str
    reason: str

    @property
    def action(self) -> str:
        return "agent.input.policy" if self.decision == "error" else "agent.input.asset"


# -- G0: the option ------------------------------------------------------------------------------


def origins_error(origins: tuple[str, ...]) -> str | None:
    """G16.1 The allowed origins option: each entry of
    ``allowedInputAssetOrigins`` is an http or https origin written without wildcard,
    credentials, query, fragment, backslash or path (a trailing ``/`` is allowed). The first
    entry that is not gives a TypeError naming its index; an empty list (the default) allows no
    origin."""
    for i, entry in enumerate(origins):
        where = f"TypeError: {OPTION}[{i}]"
        if "*" in entry:
            return f"{where}: wildcards are not supported; list each origin"
        if any(c in entry for c in "@?#"):
            return f"{where} must not contain userinfo, query, or fragment"
        url = parse_url(entry)
        if url is None:
            return f"{where} must be a URL origin"
        if url.scheme not in ("http", "https"):
            return f"{where} must use http or https"
        if "\\" in entry or not re.fullmatch(r"https?://[^/]+/?", entry, re.IGNORECASE):
            return f"{where} must be an origin without a path"
    return None


def allowed_origins(agent: Agent) -> frozenset[str]:
    """G16.1 The allowed origins option: the option's entries as origins (lower-case host, default port dropped)."""
    return frozenset(u.origin for u in (parse_url(o) for o in agent.allowed_input_asset_origins) if u is not None)


# -- which URLs the gate checks ------------------------------------------------------------------


def media_url(data: Any, media_type: Any = None) -> Url | None:
    """G16.4 Reading a media string: the network URL a file or image part's data names, as the gate
    classifies the data Mastra puts in the prompt, or None (inline data, or data that is not a
    string).

    Mastra keeps a string that is a data URI, a provider file id (``file-...``) or a URL (also
    one that parses once ``https:`` is put before a leading ``//``) and turns any other string
    into ``data:<media type>;base64,<string>``; the gate reads that string
    (``prompt_media_url``)."""
    if not isinstance(data, str):
        return None
    kept = (
        data.startswith(("data:", "file-"))
        or parse_url(data) is not None
        or (data.startswith("//") and parse_url("https:" + data) is not None)
    )
    if not kept:
        media = media_type if isinstance(media_type, str) and media_type else "application/octet-stream"
        data = f"data:{media};base64,{data}"
    return prompt_media_url(data)


def prompt_media_url(text: str) -> Url | None:
    """G16.4 Reading a media string: the network URL the gate reads from a prompt's media string, or
    None: a string that does not parse is inline bytes; a ``data:`` URL is inline too, unless
    the text between its first and second comma contains ``://`` and itself parses (that URL
    is checked); any other URL is a network URL."""
    url = parse_url(text)
    if url is None or url.scheme != "data":
        return url
    pieces = text.strip().split(",")
    if len(pieces) < 2:
        return None
    return parse_url(pieces[1]) if "://" in pieces[1] else None


def _converts(m: Message) -> bool:
    """G16.2 Content the conversion cannot take: Mastra's prompt conversion takes the message: it survives
    structuredClone, no text part holds a value other than a string, null or undefined
    (the conversion calls ``trim`` on it; measured), and no assistant ``output-error`` part has
    an ``errorText`` that ``JSON.stringify`` throws on (a bigint: the conversion writes the
    error's message, M12; measured)."""
    if not clonable_entry(m):
        return False
    for p in m.parts or ():
        if isinstance(p, TextPart):
            text = p.text.value if isinstance(p.text, Accessor) else p.text
            if not (text is None or text is UNDEFINED or isinstance(text, str)):
                return False
        elif m.role is Role.ASSISTANT and isinstance(p, ToolPart) and p.state is ToolState.OUTPUT_ERROR:
            try:
                sent_error_text(p.error_text)
            except MastraError:
                return False
    return True


def prompt_asset_urls(messages: Iterable[Message]) -> list[Url]:
    """G16.3 Which data is checked: the network URLs of the file and image parts of every user
    message, in list order.
    Raises ``NotConvertible`` when the prompt conversion of the messages throws."""
    messages = list(messages)
    if not all(_converts(m) for m in messages):
        raise NotConvertible()
    out = []
    for m in messages:
        if m.role is not Role.USER:
            continue
        for p in m.parts or ():
            if isinstance(p, (FilePart, ImagePart)):
                url = media_url(p.data, p.media_type)
                if url is not None:
                    out.append(url)
    return out


class NotConvertible(Exception):
    """G16.2 Content the conversion cannot take: Mastra's prompt conversion throws on a message of the list."""


def url_denial(urls: Iterable[Url], allowed: frozenset[str]) -> str | None:
    """G16.5 The denial: the reason the first offending URL gives: a scheme other than
    http or https; then credentials (a user name or a password); then an origin not in the allowed list."""
    for url in urls:
        if url.scheme not in ("http", "https"):
            return SCHEME_DENIED
        if url.username or url.password:
            return CREDENTIALS_DENIED
        if url.origin not in allowed:
            return ORIGIN_DENIED
    return None


# -- the two checks ------------------------------------------------------------------------------


def input_assets_gate(agent: Agent, lst: MessageList) -> AssetRefusal | None:
    """G16 Input-assets gate: the gate after the application
    input processors. It converts every non-system message on the list (history, input,
    response and context alike) as Mastra's prompt conversion does; when that throws, the
    content is not classified (an ``agent.input.policy`` error). Otherwise each network URL a
    user message's file or image part names must be http or https, carry no credentials and
    have an allowed origin, or the call is denied (an ``agent.input.asset`` event). The refusal
    removes what G13 names, as the policies' refusal does. None: the call goes on."""
    try:
        urls = prompt_asset_urls(lst.all())
    except NotConvertible:
        return AssetRefusal("error", NOT_CLASSIFIED)
    reason = url_denial(urls, allowed_origins(agent))
    return None if reason is None else AssetRefusal("denied", reason)


def _output_urls(output: Any) -> list[Url]:
    """G16.7 Asset URLs in mapped outputs: the URLs of a cached ``content`` model output."""
    if not isinstance(output, JsObject) or output.get("type") != "content" or not isinstance(output.get("value"), tuple):
        return []
    out = []
    for item in output.get("value"):
        if not isinstance(item, JsObject):
            continue
        kind = item.get("type")
        data = (
            item.get("url")
            if kind in ("image-url", "file-url")
            else item.get("data")
            if kind in ("media", "image-data", "file-data")
            else None
        )
        url = prompt_media_url(data) if isinstance(data, str) else None
        if url is not None:
            out.append(url)
    return out


def tool_output_asset_denial(agent: Agent, lst: MessageList) -> AssetRefusal | None:
    """G16.7 Asset URLs in mapped outputs: after the mapping, the same URL check over
    the cached model outputs (``{type: 'content', value: [...]}``: the ``url`` of image-url and
    file-url items, the ``data`` of media, image-data and file-data items) of the tool parts of
    every input message memory does not hold. A denial refuses the call from
    ``breakwater-client-tool-output`` with an ``agent.input.asset`` event."""
    urls = []
    for s in lst.slots:
        if Source.INPUT in s.sources and Source.MEMORY not in s.sources:
            for p in s.message.parts or ():
                if isinstance(p, ToolPart):
                    urls.extend(_output_urls(cached_output(p)))
    reason = url_denial(urls, allowed_origins(agent))
    return None if reason is None else AssetRefusal("denied", reason)
