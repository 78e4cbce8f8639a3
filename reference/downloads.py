"""M12 assets: the file data of a prompt's user messages as Mastra downloads it before the model
is called (data URLs, base64, the failing URL named redacted), and as the model receives it."""

from __future__ import annotations

import re
from typing import Any

from guardspec.model.errors import MastraError
from guardspec.model.fast import evolve
from guardspec.model.jsvalues import to_string
from guardspec.model.messages import FilePart, Message, Role
from guardspec.model.values import UNDEFINED, JsSymbol

from .urls import SCHEME, SPECIAL_PORTS, redacted_url, special_authority

_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def file_data_string(v: Any) -> str:
    """M12 ``resolveFilePartMediaTypeAndData`` + ``imageContentToString``: a stored file part's
    data as the prompt conversion reads it: ``data ?? url`` (null and undefined give
    ``"undefined"``), then ``String(data)`` (a symbol gives ``Symbol(name)``, a function its
    source; an array is joined, and throws on a symbol inside). Measured: probe
    ``k-prompt-file-data``."""
    if v is None or v is UNDEFINED:
        return "undefined"
    if isinstance(v, JsSymbol):
        return f"Symbol({v.name})"
    return to_string(v)


def received_data(data: Any) -> Any:
    """M12.8 File data as the model receives it: a file part's data in the prompt the language model receives (measured: probe
    ``k-prompt-file-data``): ``file_data_string``; data
    that is not a URL, a data URI or a provider file id is wrapped as
    ``data:<mediaType>;base64,<data>`` and the AI SDK reads it back with
    ``dataUrl.split(',')[1]``, so the model receives the text before its first comma
    (``{answer}`` → ``"[object Object]"``, ``['a', null, 2]`` → ``"a"``, ``null`` →
    ``"undefined"``). A URL, data URI or provider file id is left as it is (not generated)."""
    text = file_data_string(data)
    if text.startswith("data:"):
        # a data URI: the AI SDK reads its payload, the text after the first comma (measured:
        # ``data:text/plain;base64,aGk=`` → ``"aGk="``, ``data:text/plain,hello`` → ``"hello"``)
        return text.split(",", 1)[1] if "," in text else ""
    if text.startswith("file-") or SCHEME.match(text):
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
    (``file_data_string``: null data gives ``undefined``) and fetched, which fails when it is not base64 (WHATWG forgiving-base64 after
    percent-decoding: ``note-00``, ``aGk==``, ``[object Object]``, ``2`` fail; ``aGk``,
    ``aGk=``, ``aG k=``, ``aGk%3D``, ``""`` pass; an assistant message's file is not
    downloaded; measured). Returns the redacted URL Mastra
    names (``null<mediaType>;base64,<data>``), None when every download succeeds. A data URI
    is fetched as ``data:<mediaType>;base64,<its payload>``; any other URL fails
    (``redacted_url``); a provider file id (none generated), or an array holding a symbol
    (``String`` throws; not modelled), is left alone.

    The downloads run concurrently (``p-map``) and the call fails with the first to fail in
    time, so which failing asset is named is a race, measured as: the asset at the
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
            if isinstance(p.data, str) and not data.startswith("data:") and SCHEME.match(data):
                # (only string data is read as a URL: an array naming one is wrapped as base64
                # data, measured)
                # any other URL is fetched, and the fetch fails: an http(s) URL's host
                # does not resolve (the generators name hosts under the reserved ``.example``
                # TLD, RFC 6761, and the campaigns run offline), other schemes (``ftp:``,
                # ``note:``) are not fetchable; Mastra names the URL's origin and path
                failing.append((position + _download_delay(data), position, redacted_url(data)))
                continue
            if data.startswith("data:") and "," not in data:
                # a data URI without a comma is fetched as it is and fails; Mastra names it by
                # its path, the text after ``data:`` (measured: ``data:text/plain;base64``
                # → ``nulltext/plain;base64``; not generated)
                failing.append((position + 1.5, position, "null" + re.split(r"[?#]", data[5:])[0]))
                continue
            if data.startswith("data:"):
                # a data URI is fetched as ``data:<mediaType>;base64,<its payload>``
                data = data.split(",", 1)[1]
            if not _forgiving_base64(_percent_decoded(data)):
                failing.append((position + 1.5, position, f"null{p.media_type};base64,{data}"))
    return min(failing)[2] if failing else None


def _download_delay(url: str) -> float:
    """M12.11 Which failed download is named: how late a URL's failed download comes, in fetch starts: a URL with
    credentials (``user[:password]@``) at once (``new Request`` throws), an http(s) URL after
    its host lookup (later than any other), any other scheme as a data URI (1.5)."""
    scheme, rest = url.split(":", 1)
    scheme = scheme.lower()
    if scheme in SPECIAL_PORTS and "@" in special_authority(rest):
        return 0.0
    if scheme in ("http", "https"):
        return 1e9
    return 1.5
