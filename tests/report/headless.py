"""Headless Chromium driven directly (no browser downloads, no framework): the rendered DOM,
console messages, screenshots, and a small PNG reader to tell a blank screenshot from a drawing.

``make browser`` installs Debian's ``chromium`` with apt-get when it is missing and setup runs
as root; where no browser can be had, ``browser()`` names the reason to skip with.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from html.parser import HTMLParser
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars")
CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]? ?(.*)")


def browser() -> tuple[str | None, str]:
    """(the browser's path, or None with the reason)."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path, ""
    return None, "no headless browser: `chromium` is not installed (`make browser` installs it with apt-get when run as root)"


def run(exe: str, url: str, *extra: str, timeout: float = 90) -> subprocess.CompletedProcess:
    """One headless run on a fresh, empty profile, logging console messages to stderr."""
    with tempfile.TemporaryDirectory(prefix="guardspec-chromium-") as profile:
        return subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *extra, url],
                              capture_output=True, text=True, timeout=timeout)


def console_messages(stderr: str) -> list[str]:
    """Every message the page wrote to the console (Chromium logs them as ``CONSOLE`` lines)."""
    return [m.group(1) for m in map(CONSOLE.search, stderr.splitlines()) if m]


class Anchors(HTMLParser):
    """Every element id, every in-page link target, section ids, and counts of what must not be
    there in a static page (scripts, external sources)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sections: list[str] = []
        self.tags: dict[str, int] = {}
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if a.get("id"):
            self.ids.add(a["id"])
            if tag == "section":
                self.sections.append(a["id"])
        for key in ("href", "xlink:href"):
            v = a.get(key) or ""
            if v.startswith("#"):
                self.links.append(v[1:])
            elif v:
                self.external.append(v)
        if a.get("src"):
            self.external.append(a["src"])

    handle_startendtag = handle_starttag


def anchors(html: str) -> Anchors:
    p = Anchors()
    p.feed(html)
    return p


def png_pixels(path: Path) -> tuple[int, int, int, bytes]:
    """(width, height, channels, raw pixel bytes) of an 8-bit RGB or RGBA PNG, filters undone."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"{path}: PNG colour type {colour}, depth {depth}"
            ch = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * ch
    out = bytearray()
    prev = bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return width, height, ch, bytes(out)


def ink(path: Path) -> tuple[float, float]:
    """(variance of the grey level, share of pixels that are not near-white) of a screenshot."""
    w, h, ch, px = png_pixels(path)
    greys = [(px[i] + px[i + 1] + px[i + 2]) / 3 for i in range(0, len(px), ch * 7)]  # every 7th pixel
    mean = sum(greys) / len(greys)
    var = sum((g - mean) ** 2 for g in greys) / len(greys)
    return var, sum(g < 235 for g in greys) / len(greys)
