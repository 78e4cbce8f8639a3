"""What ``new URL(text)`` makes of a string: the part of the WHATWG URL standard the input-assets
gate and the asset downloads (M12) need.

The gate asks four things of a string: does it parse as a URL at all, its scheme, whether it
carries credentials, and its origin. This module answers them for the strings guardspec's
scenarios hold (ASCII hosts); it is a port of the standard's basic URL parser restricted to
those answers, not a general URL library:

- leading and trailing C0 controls and spaces are stripped, tabs and newlines removed;
- a scheme is an ASCII letter followed by letters, digits, ``+``, ``-`` or ``.``, then ``:``;
  a string without one does not parse (there is no base URL);
- the special schemes ``http``, ``https``, ``ws``, ``wss`` and ``ftp`` need a host: slashes and
  backslashes after the scheme are skipped, the authority runs to the first ``/``, ``\\``,
  ``?`` or ``#``, credentials are what precedes its last ``@`` (user, then ``:`` password), the
  port is decimal (at most 65535; the scheme's default port is dropped), and the host is
  percent-decoded and lower-cased, must be non-empty and free of the forbidden domain code
  points; a host whose last label is numeric must be an IPv4 address in dotted decimal;
- ``file`` and every other scheme parse whatever follows (an authority after ``//`` must still
  have a decimal port and no forbidden host code point), and their origin is opaque (``null``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from attrs import frozen

SPECIAL_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+\-.]*:")
_FORBIDDEN_HOST = set("\x00\t\n\r #/:<>?@[\\]^|")
_FORBIDDEN_DOMAIN = _FORBIDDEN_HOST | {chr(c) for c in range(0x20)} | {"%", "\x7f"}


@frozen
class Url:
    """G16.6 URL parsing: A parsed URL: ``scheme`` lower-case without its colon; ``host`` None for a URL without an
    authority; ``port`` None when absent or the scheme's default."""

    scheme: str
    username: str = ""
    password: str = ""
    host: str | None = None
    port: int | None = None

    @property
    def origin(self) -> str:
        """G2 (input-assets gate): ``url.origin``: scheme, host and port for http(s), ws(s)
        and ftp; ``null`` otherwise."""
        if self.scheme not in SPECIAL_PORTS or self.host is None:
            return "null"
        port = "" if self.port is None else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}"


def _port(text: str, scheme: str) -> int | bool | None:
    """The port, None when absent or default, False when it does not parse."""
    if text == "":
        return None
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        return False
    n = int(text)
    return None if SPECIAL_PORTS.get(scheme) == n else n


def _ipv4(host: str) -> str | None:
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(labels) > 4 or not all(lab.isascii() and lab.isdigit() for lab in labels):
        return None
    nums = [int(lab) for lab in labels]
    if any(n > 255 for n in nums[:-1]) or nums[-1] >= 256 ** (5 - len(nums)):
        return None
    value = 0
    for n in nums[:-1]:
        value = value * 256 + n
    value = value * 256 ** (5 - len(nums)) + nums[-1]
    return ".".join(str((value >> s) & 255) for s in (24, 16, 8, 0))


def _domain(host: str) -> str | None:
    """The special-scheme host, lower-cased; None when it does not parse."""
    host = unquote(host)
    if host == "" or any(c in _FORBIDDEN_DOMAIN for c in host) or not host.isascii():
        return None
    host = host.lower()
    last = host.rstrip(".").rsplit(".", 1)[-1]
    if last.isdigit() or last.startswith("0x"):
        return _ipv4(host)
    return host


def special_authority(rest: str) -> str:
    """G16.6 URL parsing: The authority of a special-scheme URL, ``rest`` being what follows the scheme's colon:
    slashes and backslashes skipped, then up to the first ``/``, ``\\``, ``?`` or ``#``."""
    return re.split(r"[/\\?#]", rest.lstrip("/\\"), maxsplit=1)[0]


def parse_url(text: str) -> Url | None:
    """G16.6 URL parsing: ``new URL(text)`` without a base: the URL, or None where it
    throws."""
    text = text.strip("".join(chr(c) for c in range(0x21))).replace("\t", "").replace("\n", "").replace("\r", "")
    m = SCHEME.match(text)
    if m is None:
        return None
    scheme = m.group(0)[:-1].lower()
    rest = text[m.end() :]
    if scheme in SPECIAL_PORTS:
        authority = special_authority(rest)
    elif rest.startswith("//"):
        authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0]
    else:
        return Url(scheme)
    userinfo, _, hostport = authority.rpartition("@")
    username, _, password = userinfo.partition(":")
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return None
        host, tail = hostport[: end + 1].lower(), hostport[end + 1 :]
        if tail and not tail.startswith(":"):
            return None
        port = _port(tail[1:], scheme)
    else:
        host, _, port_text = hostport.partition(":")
        port = _port(port_text, scheme)
        if scheme in SPECIAL_PORTS:
            domain = _domain(host)
            if domain is None:
                return None
            host = domain
        elif any(c in _FORBIDDEN_HOST for c in host):
            return None
    if port is False:
        return None
    return Url(scheme, username, password, host, port)


def redacted_url(text: str) -> str:
    """M12 assets: the URL a failed download names, ``url.origin + url.pathname`` (Mastra's
    ``redactUrlForLog``: credentials, query and fragment left out; measured:
    ``https://u:p@assets.example/d.png?x=1#f`` → ``https://assets.example/d.png``,
    ``ftp://assets.example/e.txt`` as is, ``note: see the file`` → ``null see the file``).
    WHATWG origins: a special scheme's is ``scheme://host[:port]`` (default port left out),
    any other scheme's ``null``. Only the URL shapes the generators make are covered (no IPv6
    hosts, no percent-encoding of the path)."""
    scheme, rest = text.split(":", 1)
    scheme = scheme.lower()
    rest = re.split(r"[?#]", rest, maxsplit=1)[0]
    if scheme not in SPECIAL_PORTS:
        return "null" + rest
    rest = rest.lstrip("/\\")
    authority, _, path = rest.partition("/")
    host = authority.rsplit("@", 1)[-1].lower()
    if ":" in host:
        name, port = host.rsplit(":", 1)
        host = name if port in ("", str(SPECIAL_PORTS[scheme])) else host
    return f"{scheme}://{host}/{path}"
