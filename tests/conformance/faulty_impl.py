"""An implementation for the harness's fault tests: ``guardspec serve``'s answers, except at the
scenarios a JSON file (argv[1]) names by hash, where it misbehaves once per process:

- ``skip``: never answers; ``dup``: answers twice; ``garble``: an unparsable line instead;
- ``crash``: exits (code 3) on reading the request; ``hang``: stops answering anything;
- ``hold`` {hash: release hash}: keeps the reply back until it has answered the release scenario
  (out of order if the harness still waits for it, late if it has given up on it).
"""

from __future__ import annotations

import json
import sys
import time

from guardspec.conformance.cases import scenario_hash
from guardspec.conformance.serve import answer


def main() -> None:
    faults = json.loads(open(sys.argv[1], encoding="utf-8").read())  # noqa: SIM115 (read once)
    held: dict[str, dict] = {}  # release hash -> the reply kept back
    for line in sys.stdin:
        req = json.loads(line)
        rep, stop = answer(req)
        h = scenario_hash(req.get("scenario")) if req.get("kind") == "run" else ""
        if h in faults.get("crash", []):
            print(f"dying at {h}", file=sys.stderr, flush=True)
            sys.exit(3)
        if h in faults.get("hang", []):
            time.sleep(3600)
        if h in faults.get("hold", {}):
            held[faults["hold"][h]] = rep
            continue
        if h in faults.get("skip", []):
            continue
        out = "this is not json {" if h in faults.get("garble", []) else json.dumps(rep)
        print(out, flush=True)
        if h in faults.get("dup", []):
            print(out, flush=True)
        if h in held:
            print(json.dumps(held.pop(h)), flush=True)
        if stop:
            break


if __name__ == "__main__":
    main()
