"""A trivial implementation for measuring the harness itself (``bench_section``): it answers
every ``run`` with a fixed observation (``answered``, nothing else), reading and writing in
chunks so that the harness, not this process, is what is measured.

``python -m guardspec.conformance.echo``
"""

from __future__ import annotations

import json
import os
import sys

OBSERVATION = {"guardspec": 1, "outcome": {"kind": "answered"}}


def main() -> int:
    fin = sys.stdin.buffer.fileno()
    loads, dumps = json.loads, json.dumps
    buf = b""
    while True:
        chunk = os.read(fin, 1 << 16)
        if not chunk:
            return 0
        buf += chunk
        *lines, buf = buf.split(b"\n")
        out = []
        stop = False
        for line in lines:
            if not line.strip():
                continue
            try:
                req = loads(line)
                rid, kind = req.get("id"), req.get("kind")
            except (ValueError, AttributeError):
                out.append(b'{"id":null,"status":"errored","detail":"$: expected a JSON object"}\n')
                continue
            if kind == "hello" or kind == "start":
                rep = {
                    "id": rid,
                    "status": "ok",
                    "protocol": 1,
                    "implementation": "echo",
                    "version": "1",
                    "modes": ["raw", "guarded"],
                    "fields": ["outcome"],
                }
            elif kind == "stop":
                rep, stop = {"id": rid, "status": "ok"}, True
            elif kind == "run":
                rep = {"id": rid, "status": "ok", "observation": OBSERVATION}
            else:
                rep = {"id": rid, "status": "skipped", "reason": "unknown kind"}
            out.append(dumps(rep, separators=(",", ":")).encode() + b"\n")
            if stop:
                break
        if out:
            sys.stdout.buffer.write(b"".join(out))
            sys.stdout.buffer.flush()
        if stop:
            return 0


if __name__ == "__main__":
    sys.exit(main())
