"""Known discrepancies: a file of accepted disagreements, each with its reason, and the named
predicates that decide whether a case is one of them.

An entry of the file (``load_known``) is a set of conditions, one per key; a case is known when
every condition its entry states holds (``known_reason``). Each key's condition is a predicate of
its own below (``PREDICATES``), so what an entry means is read off one function per key.

An entry with a ``deviation`` records what the implementation does instead of the model, field
by field: the model's observation with each step applied (a value at a JSON path, or a named
rewrite such as the read without the call's context) is the observation the entry predicts, and
the entry holds only when the implementation's observation has no difference from that
prediction under the case's comparison (``deviation_matches``). A behaviour that merely resembles
a finding (same field, same first differing path) but differs from it anywhere is a
disagreement, not the finding.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from attrs import frozen

from .cases import Verdict
from .compare import FIELDS, Comparison, coarse, differences
from .settings import BadArguments


def load_known(path: str | Path) -> list[dict]:
    """``{"guardspec": 1, "known": [{"signature": glob, "path"?: glob, "loop"?: str,
    "scenario"?: hash, "model"?: JSON, "impl"?: JSON, "outcome"?: object, "message"?: object,
    "reason": str, "finding"?: str, "vector"?: str, "deviation"?: [step]}]}``; every entry must
    say why, and state a ``signature`` or a ``deviation`` (a step: ``{"path": "$.<field>...",
    "value": JSON}`` or ``{"path": ..., "rewrite": name of REWRITES}``, ``deviated``). ``model``/``impl``: the first difference's
    values, when the cause shows in them; ``outcome``: members the model's outcome must have
    (e.g. the refusing processor), when the cause shows in the model's outcome rather than in
    the difference; ``message``: what the message the first difference lies in must be
    (``message_facts``), when the cause is in the kind of message; ``read``:
    ``"withoutCallContext"`` when the cause is that the implementation did not read the call's
    context messages (``read_without_call_context``)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise BadArguments(f"{path}: cannot read ({e.strerror})") from None
    except ValueError as e:
        raise BadArguments(f"{path}: $: valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("known"), list):
        raise BadArguments(f"{path}: $.known: an array of known discrepancies")
    for i, k in enumerate(data["known"]):
        where = f"{path}: $.known[{i}]"
        if not isinstance(k, dict):
            raise BadArguments(f"{where}: a JSON object")
        if "deviation" in k:
            _check_deviation(k["deviation"], f"{where}.deviation")
        elif not isinstance(k.get("signature"), str):
            raise BadArguments(f"{where}.signature: a string (a glob over '<mode>:<field or problem>'), or a deviation")
        if "signature" in k and not isinstance(k["signature"], str):
            raise BadArguments(f"{where}.signature: a string (a glob over '<mode>:<field or problem>')")
        if not isinstance(k.get("reason"), str) or not k["reason"].strip():
            raise BadArguments(f"{where}.reason: a non-empty string: why this discrepancy is accepted")
        for key in ("path", "loop", "scenario", "finding", "vector"):
            if key in k and not isinstance(k[key], str):
                raise BadArguments(f"{where}.{key}: a string")
        if "outcome" in k and not isinstance(k["outcome"], dict):
            raise BadArguments(f"{where}.outcome: an object (members of the model's outcome)")
        if "message" in k:
            m = k["message"]
            if not isinstance(m, dict) or not m or any(key not in MESSAGE_FACTS or not isinstance(val, bool) for key, val in m.items()):
                raise BadArguments(f"{where}.message: an object of booleans named {', '.join(MESSAGE_FACTS)}")
        if "read" in k and k["read"] not in READ_FACTS:
            raise BadArguments(f"{where}.read: one of {', '.join(repr(x) for x in READ_FACTS)}")
        extra = set(k) - {key for key, _ in PREDICATES} - {"reason", "finding", "vector"}
        if extra:
            raise BadArguments(f"{where}.{sorted(extra)[0]}: no unknown field")
    return data["known"]


_STEP_PATH = re.compile(r"^\$\.(" + "|".join(FIELDS) + r")((\.[A-Za-z_][\w-]*)|\[\d+\])*$")
_TOKEN = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]")


def _check_deviation(steps: Any, where: str) -> None:
    if not isinstance(steps, list) or not steps:
        raise BadArguments(f"{where}: a non-empty array of steps ({{path, value}} or {{path, rewrite}})")
    for j, st in enumerate(steps):
        at = f"{where}[{j}]"
        if not isinstance(st, dict):
            raise BadArguments(f"{at}: a JSON object ({{path, value}} or {{path, rewrite}})")
        if not isinstance(st.get("path"), str) or not _STEP_PATH.match(st["path"]):
            raise BadArguments(f"{at}.path: a JSON path into an observation field ({', '.join(FIELDS)}), e.g. '$.audit[1].reason'")
        if ("value" in st) == ("rewrite" in st):
            raise BadArguments(f"{at}: exactly one of 'value' (the implementation's value there) or 'rewrite'")
        if "rewrite" in st:
            if st["rewrite"] not in REWRITES:
                raise BadArguments(f"{at}.rewrite: one of {', '.join(repr(x) for x in REWRITES)}")
            if REWRITES[st["rewrite"]][0] != st["path"]:
                raise BadArguments(f"{at}.path: {REWRITES[st['rewrite']][0]!r} (where rewrite {st['rewrite']!r} applies)")
        extra = set(st) - {"path", "value", "rewrite"}
        if extra:
            raise BadArguments(f"{at}.{sorted(extra)[0]}: no unknown field")


def _path_glob(path: str, pattern: str) -> bool:
    """A known entry's ``path``: ``*`` matches any run of characters, everything else itself,
    so ``[]`` (an index, ``compare.coarse``) is literal (fnmatch would read it as a set)."""
    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), path, re.S) is not None


MESSAGE_FACTS = ("remembered", "callerOutcome", "implUnsaved", "implRowUnsavedCarrier")
READ_FACTS = ("withoutCallContext",)


def call_context_texts(scenario: Any) -> list[str]:
    """The text of every text part of the call's context messages, in order."""
    call = scenario.get("call") if isinstance(scenario, dict) else None
    if not isinstance(call, dict):
        return []
    return [
        p["text"]
        for m in call.get("context") or ()
        if isinstance(m, dict)
        for p in m.get("parts") or ()
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]


def read_less_call_context(model: Any, scenario: Any) -> str | None:
    """The model's ``read`` with the text of every context message taken out (each text part's
    text, as the lines the policies read it as: the last occurrence). None when the call has no
    context text, the model read nothing, or a context text is not in the model's read."""
    mine = model.get("read") if isinstance(model, dict) else None
    texts = call_context_texts(scenario)
    if not isinstance(mine, str) or not texts:
        return None
    lines = mine.split("\n")
    for t in texts:
        want = t.split("\n")
        at = next((i for i in range(len(lines) - len(want), -1, -1) if lines[i : i + len(want)] == want), None)
        if at is None:
            return None
        del lines[at : at + len(want)]
    return "\n".join(lines)


def stored_carriers_as_thread_held(model: Any, scenario: Any) -> list | None:
    """The model's ``stored`` with each remembered message that carries the caller's client tool
    outcome (its id is a message of the bound thread and the caller sends a message with that id
    holding a ``tool-invocation`` part) put back, at its place, as the thread held it before the
    call: saved nothing of it. None when no stored message is such a carrier."""
    stored = model.get("stored") if isinstance(model, dict) else None
    call = scenario.get("call") if isinstance(scenario, dict) else None
    if not isinstance(stored, list) or not isinstance(call, dict):
        return None
    bound = (call.get("memory") or {}).get("thread") if isinstance(call.get("memory"), dict) else None
    thread = next((t for t in scenario.get("threads") or () if isinstance(t, dict) and t.get("id") == bound), None)
    if thread is None:
        return None
    before = {m.get("id"): m for m in thread.get("messages") or () if isinstance(m, dict)}
    carriers = {
        m.get("id")
        for m in call.get("messages") or ()
        if isinstance(m, dict) and any(isinstance(p, dict) and p.get("type") == "tool-invocation" for p in m.get("parts") or ())
    }
    out, moved = [], False
    for m in stored:
        mid = m.get("id") if isinstance(m, dict) else None
        if mid in carriers and mid in before:
            out.append(before[mid])
            moved = True
        else:
            out.append(m)
    return out if moved else None


REWRITES: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "withoutCallContext": ("$.read", read_less_call_context),
    "callerOutcomeCarriersUnsaved": ("$.stored", stored_carriers_as_thread_held),
}
"""A deviation step's named rewrite: the path it sets and how its value follows from the model's
observation and the scenario (None: the rewrite does not apply to the case)."""


def deviated(steps: list[dict], model: Any, scenario: Any) -> dict | None:
    """The model's observation with each step of a deviation applied: ``value`` set at ``path``
    (a member may be added to an object; a list index must exist, or be its length: appended),
    or the ``rewrite``'s value there. None when a path's parent is missing from the model's
    observation or a rewrite does not apply."""
    if not isinstance(model, dict):
        return None
    out = json.loads(json.dumps(model))
    for st in steps:
        if "rewrite" in st:
            value = REWRITES[st["rewrite"]][1](model, scenario)
            if value is None:
                return None
        else:
            value = st["value"]
        tokens = [(m.group(1), m.group(2)) for m in _TOKEN.finditer(st["path"][1:])]
        node: Any = out
        for key, index in tokens[:-1]:
            if key is not None and isinstance(node, dict) and key in node:
                node = node[key]
            elif index is not None and isinstance(node, list) and int(index) < len(node):
                node = node[int(index)]
            else:
                return None
        key, index = tokens[-1]
        if key is not None and isinstance(node, dict):
            node[key] = json.loads(json.dumps(value))
        elif index is not None and isinstance(node, list) and int(index) <= len(node):
            node[int(index) : int(index) + 1] = [json.loads(json.dumps(value))]
        else:
            return None
    return out


def read_without_call_context(model: Any, scenario: Any, impl: Any) -> bool:
    """A known entry's ``read: "withoutCallContext"``: the call has context messages and the
    implementation's ``read`` is the model's with the text of every context message taken out
    (each text part's text, as the lines the policies read it as: the last occurrence), and
    nothing else: the implementation did not read the call's context (BW-F5). False when either
    read is missing or a context text is not in the model's."""
    theirs = impl.get("read") if isinstance(impl, dict) else None
    want = read_less_call_context(model, scenario)
    return want is not None and isinstance(theirs, str) and want == theirs


def message_facts(v: Verdict, model: Any, scenario: Any, impl: Any = None) -> dict[str, bool] | None:
    """What a known entry's ``message`` asks of the message the first difference lies in: the
    element ``$.<field>[i]`` of the model's observation its path starts with (e.g.
    ``$.stored[1].parts[1].state``: the model's second stored message). ``remembered``: its id
    is a message of the thread the call is bound to, as stored before the call;
    ``callerOutcome``: the caller sends a message with its id holding a client tool part (a
    ``tool-invocation``: the caller's outcome for a stored call, SPEC M3); ``implUnsaved``: the
    implementation's observation ``impl`` stores a message with its id whose parts are those
    the thread held before the call (the call saved nothing of it; false without ``impl``);
    ``implRowUnsavedCarrier``: the implementation's own message at that index of that field is
    such an unsaved remembered message carrying the caller's outcome (the model saved something
    else there, e.g. the carrier moved later by a processor).
    None when the path names no message or the scenario binds no thread. A prompt path (``$.prompts[k][i]...``)
    names the model's ``i``-th entry of its ``k``-th prompt, by the id the model gives it."""
    path = v.differences[0].path if v.differences else ""
    p = re.match(r"\$\.prompts\[(\d+)\]\[(\d+)\]", path)
    m = re.match(r"\$\.(\w+)\[(\d+)\]", path)
    if m is None or not isinstance(model, dict) or not isinstance(scenario, dict):
        return None
    rows, i = model.get(m.group(1)), int(m.group(2))
    if p is not None:
        prompts = model.get("prompts")
        k = int(p.group(1))
        rows = prompts[k] if isinstance(prompts, list) and k < len(prompts) else None
        i = int(p.group(2))
    if not isinstance(rows, list) or i >= len(rows) or not isinstance(rows[i], dict) or not isinstance(rows[i].get("id"), str):
        return None
    mid, call = rows[i]["id"], scenario.get("call") or {}
    bound = (call.get("memory") or {}).get("thread")
    thread = next((t for t in scenario.get("threads") or () if isinstance(t, dict) and t.get("id") == bound), None)
    if thread is None:
        return None
    remembered = any(isinstance(x, dict) and x.get("id") == mid for x in thread.get("messages") or ())
    outcome = any(
        isinstance(x, dict)
        and x.get("id") == mid
        and any(isinstance(p, dict) and p.get("type") == "tool-invocation" for p in x.get("parts") or ())
        for x in call.get("messages") or ()
    )
    before = next((x.get("parts") for x in thread.get("messages") or () if isinstance(x, dict) and x.get("id") == mid), None)
    kept = impl.get("stored") if isinstance(impl, dict) else None
    unsaved = (
        remembered and isinstance(kept, list) and any(isinstance(x, dict) and x.get("id") == mid and x.get("parts") == before for x in kept)
    )
    impl_rows = impl.get(m.group(1)) if isinstance(impl, dict) and p is None else None
    row = impl_rows[i] if isinstance(impl_rows, list) and i < len(impl_rows) and isinstance(impl_rows[i], dict) else None
    row_id = row.get("id") if row is not None else None
    row_carrier = (
        row is not None
        and any(isinstance(x, dict) and x.get("id") == row_id and x.get("parts") == row.get("parts") for x in thread.get("messages") or ())
        and any(
            isinstance(x, dict)
            and x.get("id") == row_id
            and any(isinstance(q, dict) and q.get("type") == "tool-invocation" for q in x.get("parts") or ())
            for x in call.get("messages") or ()
        )
    )
    return {"remembered": remembered, "callerOutcome": outcome, "implUnsaved": unsaved, "implRowUnsavedCarrier": row_carrier}


@frozen
class Case:
    """A judged case as the predicates see it: its verdict, loop and scenario hash, and as JSON
    the model's observation, the scenario and the implementation's observation (None when not
    at hand: a predicate that asks of them then does not hold), and the comparison it was judged
    under (a deviation is compared with the implementation's observation under it)."""

    verdict: Verdict
    loop: str
    hash: str
    model: Any = None
    scenario: Any = None
    impl: Any = None
    comparison: Comparison | None = None


def signature_matches(k: dict, c: Case) -> bool:
    """``signature``: a glob (fnmatch) over the case's ``<mode>:<field or problem>``."""
    return fnmatchcase(c.verdict.signature, k["signature"])


def loop_matches(k: dict, c: Case) -> bool:
    """``loop``: the loop the case runs in (``generate``, ``stream``, ``durable``)."""
    return k["loop"] == c.loop


def scenario_matches(k: dict, c: Case) -> bool:
    """``scenario``: the hash of the one scenario the entry is about."""
    return k["scenario"] == c.hash


def path_matches(k: dict, c: Case) -> bool:
    """``path``: a glob (``_path_glob``) over the first difference's path with its indices
    coarsened (``compare.coarse``), or over the problem's path."""
    v = c.verdict
    path = coarse(v.differences[0].path) if v.differences else (v.problem.path if v.problem else "")
    return _path_glob(path, k["path"])


def model_value_matches(k: dict, c: Case) -> bool:
    """``model``: the model's value at the first difference, when the cause shows in it."""
    first = c.verdict.differences[0] if c.verdict.differences else None
    return first is not None and first.model == k["model"]


def impl_value_matches(k: dict, c: Case) -> bool:
    """``impl``: the implementation's value at the first difference, when the cause shows in it."""
    first = c.verdict.differences[0] if c.verdict.differences else None
    return first is not None and first.impl == k["impl"]


def outcome_matches(k: dict, c: Case) -> bool:
    """``outcome``: members the model's outcome must have (e.g. the refusing processor)."""
    outcome = c.model.get("outcome") if isinstance(c.model, dict) else None
    return isinstance(outcome, dict) and all(outcome.get(key) == val for key, val in k["outcome"].items())


def message_matches(k: dict, c: Case) -> bool:
    """``message``: the facts (``message_facts``) of the message the first difference lies in."""
    facts = message_facts(c.verdict, c.model, c.scenario, c.impl)
    return facts is not None and all(facts[key] == val for key, val in k["message"].items())


def read_matches(k: dict, c: Case) -> bool:
    """``read``: ``"withoutCallContext"``: the implementation read the call without its context
    messages (``read_without_call_context``)."""
    return k["read"] != "withoutCallContext" or read_without_call_context(c.model, c.scenario, c.impl)


def deviation_matches(k: dict, c: Case) -> bool:
    """``deviation``: the implementation's observation has no difference, in any field it
    reports, from the model's observation with the deviation applied (``deviated``), and that
    prediction is not the model's own. False without the model's or the implementation's
    observation or the comparison."""
    if c.impl is None or c.comparison is None or not isinstance(c.impl, dict):
        return False
    predicted = deviated(k["deviation"], c.model, c.scenario)
    if predicted is None or predicted == c.model:
        return False
    mode = c.verdict.signature.partition(":")[0] or "guarded"
    return not differences(predicted, c.impl, c.scenario, mode, c.comparison, c.verdict.fields or None, first_only=True)


PREDICATES: tuple[tuple[str, Callable[[dict, Case], bool]], ...] = (
    ("signature", signature_matches),
    ("loop", loop_matches),
    ("scenario", scenario_matches),
    ("path", path_matches),
    ("model", model_value_matches),
    ("impl", impl_value_matches),
    ("outcome", outcome_matches),
    ("message", message_matches),
    ("read", read_matches),
    ("deviation", deviation_matches),
)
"""Each key an entry may state and the predicate it adds, in the order they are tried."""


def known_entry(
    known: list[dict],
    v: Verdict,
    loop: str,
    h: str,
    model: Any = None,
    scenario: Any = None,
    impl: Any = None,
    comparison: Comparison | None = None,
) -> dict | None:
    """The first entry of ``known`` the case matches (``load_known``), or None. ``model``: the
    model's observation (JSON), ``scenario``: the scenario (JSON), ``impl``: the implementation's
    observation (JSON), ``comparison``: the case's; an entry that asks of them does not match
    without them."""
    c = Case(v, loop, h, model, scenario, impl, comparison)
    for k in known:
        if all(holds(k, c) for key, holds in PREDICATES if key in k):
            return k
    return None


def known_reason(
    known: list[dict],
    v: Verdict,
    loop: str,
    h: str,
    model: Any = None,
    scenario: Any = None,
    impl: Any = None,
    comparison: Comparison | None = None,
) -> str | None:
    """The reason of the first entry of ``known`` the case matches (``known_entry``), or None."""
    k = known_entry(known, v, loop, h, model, scenario, impl, comparison)
    return None if k is None else k["reason"]


def finding_of(k: dict) -> str:
    """The finding an entry names: its ``finding``, else the id its reason opens with."""
    m = re.match(r"([A-Z]+-F\d+)\b", k.get("reason", ""))
    return k.get("finding") or (m.group(1) if m else "")


__all__ = [
    "MESSAGE_FACTS",
    "PREDICATES",
    "READ_FACTS",
    "REWRITES",
    "Case",
    "deviated",
    "deviation_matches",
    "finding_of",
    "known_entry",
    "known_reason",
    "load_known",
    "message_facts",
    "read_without_call_context",
]
