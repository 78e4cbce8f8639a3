"""The shape census of a campaign: how many of its scenarios had each shape.

Every campaign (``diff``, ``mastra-diff``, ``explore``) ends with this table. The shapes a
category can take are listed once, here, and derived from the scenario schema
(model/schemas/scenario.schema.json) wherever the schema names them (part kinds, tool states,
loops, processor steps and endings, mapping and policy kinds, memory), so a shape the model
gains shows up at once, as a zero until the generators make it. The two categories the schema
leaves open (system entry shapes and provider-option namespaces: any value is allowed there)
are listed by hand below, from the clauses that treat them differently (M6, M8, M12, G10, G12).

A scenario counts once per shape it has, wherever in the scenario the shape appears (caller
messages, stored threads, context, processor steps and returns). A campaign's census also runs
each scenario on the model and counts how far it got (``stages``): the stage each case stopped at,
per loop, and per shape the cases that survived to the stage reading it.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from typing import Any

from attrs import define, field
from rich.table import Table

from guardspec.model.processors import FORBIDDEN_HOOKS, PROCESS_INPUT

from .stages import DEEP, STAGES, reaches, read_at, stop_of

# -- the shapes ---------------------------------------------------------------------------------

SYSTEM_SHAPES = (
    "string",  # M6: a plain string given to addSystem
    "content: string",  # the AI SDK system message
    "content: text parts",  # M6/G10: content as a list of text parts
    "content: other value",  # M6: whatever else a processor may put there
    "content: a getter",  # G8: the message's own content an accessor
    "options: a getter",  # G8: its own providerOptions or experimental_providerMetadata an accessor
    "stored message with parts",  # M8: a DB-shaped message with role system
    "stored message without content",  # M2/M8: role system, neither content nor parts
    "undefined",  # M8.6, G7.5: undefined among a returned systemMessages
)
"""System entry shapes (M6, M8, G10): how a system entry is written, wherever it is written. A
shape the model comes to treat apart (e.g. content in the stored format ``{format: 2, parts}``,
M6.6) is added here with its model support."""

PROVIDER_SHAPES = ("absent", "null", "not an object", "an object")
"""providerOptions on parts and system messages (G10, G12): absent, null, a non-object value, an object."""

NAMESPACES_READ: tuple[str, ...] = ("anthropic", "openrouter", "openaiCompatible")
"""Provider-option namespaces the model reads by name: the namespaces of Breakwater's closed
table (G12.5: ``anthropic.citations`` and
``openrouter.reasoning_details`` read, ``openaiCompatible`` and some keys of the other two
refused). Namespaces the generators make besides these are listed in the census all the same,
as seen but not named here."""

FILE_DATA_SHAPES = ("base64", "not base64", "a URL", "a URL in a remembered message", "a data URI", "not a string")
"""The data of a file or image part as the prompt's asset download reads it (M12.8,
M12.10; Breakwater's ``text/*`` reading and input-assets gate,
G12.6, G16): a URL is fetched, a data URI is read as it is, any other string is taken
as base64 (valid or not), and a value that is no string is converted to one."""

ACTOR_SHAPES = ("none", "human", "service", "another kind Breakwater knows", "no kind", "a kind Breakwater does not know")
"""The call's actor (G3.1, G0.2): none, a principal kind Breakwater
knows (``human``, ``service``, or ``agent``/``system``, which no agent of the generators
allows), no kind, a kind it does not know (no actor at all)."""

ROLE_SHAPES = ("admin", "operator", "another of Breakwater's roles")
"""The actor's role among Breakwater's closed set (admin, builder, operator, reviewer, viewer;
G0.2): the generators' agents allow ``operator`` only, so the other roles of the
set are treated alike."""

OUTCOME_SHAPES = (
    "result: an object",
    "result: an object holding value",
    "result: a string",
    "result: another value",
    "errorText: a string",
    "errorText: an object",
    "errorText: another value",
)
"""What a tool part's outcome holds (M12.6, M11.3): a string result
is sent as a text output, any other as JSON, an object holding ``value`` as that value (M11.2:
an output wrapper, which the mapping is given the value of); an errorText that is no string is sent as the AI
SDK's error message of it (falsy values as ``""``, others as JSON text)."""

APPROVAL_SHAPES = ("approved with a reason", "denied with a reason")
"""A tool part's approval (G12.1, G12.3: an approval-responded reason is not
read, a denied reason is read unquoted)."""


@lru_cache(maxsize=1)
def _schema() -> dict:
    text = resources.files("guardspec.model").joinpath("schemas/scenario.schema.json").read_text()
    return json.loads(text)["$defs"]


def _required_keys(one_of: list) -> list[str]:
    return [k for alt in one_of for k in alt.get("required", [])]


@lru_cache(maxsize=1)
def supported() -> dict[str, tuple[str, ...]]:
    """Every category and the shapes the model supports in it, in table order."""
    d = _schema()
    ret = d["returnValue"]["oneOf"]
    returns = tuple(ret[0]["enum"]) + tuple(_required_keys(ret[1:]))
    endings = tuple(
        f"return {r}" if k == "return" else k for k in _required_keys(d["end"]["oneOf"]) for r in (returns if k == "return" else ("",))
    )
    mapping = d["agent"]["properties"]["clientTools"]["items"]["properties"]["mapping"]["oneOf"][1]["properties"]["kind"]["enum"]
    return {
        "loop": tuple(d["call"]["properties"]["loop"]["enum"]),
        "memory": ("off", "on", "on, generating titles"),
        "memory binding": ("unbound", "bound"),
        "caller message": ("string", "message", "nested array"),
        "part kind": tuple(d["part"]["properties"]["type"]["enum"]),
        "tool state": tuple(d["toolState"]["enum"]),
        "provider options": PROVIDER_SHAPES,
        "provider-option namespace": NAMESPACES_READ,
        "system entry": SYSTEM_SHAPES,
        "file data": FILE_DATA_SHAPES,
        "tool outcome": OUTCOME_SHAPES,
        "tool approval": APPROVAL_SHAPES,
        "message added under": tuple(d["source"]["enum"]) + ("input, with a stored message's id",),
        "actor": ACTOR_SHAPES,
        "actor role": ROLE_SHAPES,
        "asset origins": ("none allowed", "some allowed"),
        "processor step": tuple(d["step"]["properties"]["op"]["enum"]),
        "processor ending": endings,
        "processor hooks": ("processInput", "a forbidden hook too", "no processInput"),
        "policy kind": tuple(d["policy"]["properties"]["kind"]["enum"]),
        "mapping kind": ("none",) + tuple(mapping),
    }


# -- reading one scenario ----------------------------------------------------------------------------


def _system_shape(e: Any) -> str | None:
    if isinstance(e, str):
        return "string"
    if not isinstance(e, dict) or e.get("role") != "system":
        return None
    if "parts" in e:
        return "stored message with parts" if isinstance(e["parts"], list) else "stored message without content"
    if any(isinstance(e.get(k), dict) and "$getter" in e[k] for k in ("providerOptions", "experimental_providerMetadata")):
        return "options: a getter"
    c = e.get("content")
    if isinstance(c, dict) and "$getter" in c:
        return "content: a getter"
    if isinstance(c, str):
        return "content: string"
    if isinstance(c, list):
        return "content: text parts"
    return "content: other value"


def _outcome_shape(v: Any) -> str:
    if isinstance(v, str):
        return "a string"
    if isinstance(v, dict) and not set(v) & {"$undefined", "$bigint", "$number", "$function", "$symbol", "$getter"}:
        return "an object holding value" if "value" in v else "an object"
    return "another value"


def _provider_shapes(v: Any) -> list[tuple[str, str]]:
    if v is None:
        return [("provider options", "null")]
    if isinstance(v, dict) and v.get("$undefined"):
        return [("provider options", "absent")]
    if not isinstance(v, dict) or set(v) & {"$function", "$symbol", "$bigint", "$number", "$getter", "$class"}:
        return [("provider options", "not an object")]
    props = v.get("$object", v)
    return [("provider options", "an object")] + [("provider-option namespace", k) for k in props]


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _file_data_shape(v: Any) -> str:
    if not isinstance(v, str):
        return "not a string"
    if v.startswith("data:"):
        return "a data URI"
    if _SCHEME.match(v):
        return "a URL"
    try:
        base64.b64decode(v, validate=True)
    except ValueError:
        return "not base64"
    return "base64"


def _actor_shape(a: Any) -> str:
    if not isinstance(a, dict):
        return "none"
    k = a.get("kind")
    return (
        "no kind"
        if k is None
        else k
        if k in ("human", "service")
        else "another kind Breakwater knows"
        if k in ("agent", "system")
        else "a kind Breakwater does not know"
    )


def _hooks_shape(hooks: Any) -> str:
    hooks = hooks if isinstance(hooks, list) else []
    if PROCESS_INPUT not in hooks:
        return "no processInput"
    return "a forbidden hook too" if set(hooks) & set(FORBIDDEN_HOOKS) else "processInput"


def _role_shape(r: str) -> str:
    return r if r in ("admin", "operator") else "another of Breakwater's roles" if r in ("builder", "reviewer", "viewer") else r


def _walk(v: Any, path: tuple = ()) -> Iterable[tuple[tuple, Any]]:
    yield path, v
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _walk(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _walk(x, path + (i,))


_SYSTEM_SLOTS = ("message", "messages", "append", "entries", "context")


def shapes_of(sj: dict) -> set[tuple[str, str]]:
    """The (category, shape) pairs one scenario (JSON) has."""
    out: set[tuple[str, str]] = set()
    agent = sj.get("agent") or {}
    call = sj.get("call") or {}
    out.add(("loop", call.get("loop", "generate")))
    mem = agent.get("memory")
    out.add(("memory", "off" if mem is None else "on, generating titles" if mem.get("generateTitle") else "on"))
    out.add(("memory binding", "bound" if call.get("memory") else "unbound"))
    for m in call.get("messages", []):
        out.add(("caller message", "string" if isinstance(m, str) else "nested array" if isinstance(m, list) else "message"))
        if isinstance(m, dict) and (s := _system_shape(m)):
            out.add(("system entry", s))
    actor = call.get("actor")
    out.add(("actor", _actor_shape(actor)))
    if isinstance(actor, dict) and isinstance(actor.get("role"), str):
        out.add(("actor role", _role_shape(actor["role"])))
    out.add(("asset origins", "some allowed" if agent.get("allowedInputAssetOrigins") else "none allowed"))
    stored = {m.get("id") for t in sj.get("threads") or [] if isinstance(t, dict) for m in t.get("messages") or [] if isinstance(m, dict)}
    for _, v in _walk(sj.get("threads") or []):  # G16: the gate reads remembered messages too
        if isinstance(v, dict) and v.get("type") in ("file", "image") and _file_data_shape(v.get("data")) == "a URL":
            out.add(("file data", "a URL in a remembered message"))
    for p in agent.get("policies", []):
        out.add(("policy kind", p.get("kind", "?")))
    tools = {}
    for t in agent.get("clientTools", []):
        tools[t.get("name")] = "none" if t.get("mapping") is None else t["mapping"].get("kind", "text")
    for pr in agent.get("processors", []):
        out.add(("processor hooks", _hooks_shape(pr.get("hooks", [PROCESS_INPUT]))))
        for st in pr.get("steps", []):
            out.add(("processor step", st.get("op", "?")))
            if st.get("op") == "add":
                src = st.get("source") or "input"
                out.add(("message added under", src))
                if src == "input" and any(isinstance(e, dict) and e.get("id") in stored for e in st.get("entries", [])):
                    out.add(("message added under", "input, with a stored message's id"))
        end = pr.get("end") or {"return": {"primitive": {"$undefined": True}}}
        for k, r in end.items():
            if k != "return":
                out.add(("processor ending", k))
            elif isinstance(r, str):
                out.add(("processor ending", f"return {r}"))
            elif isinstance(r, dict):
                out.add(("processor ending", "return " + next(iter(r), "?")))
    for path, v in _walk(sj):
        if not isinstance(v, dict):
            continue
        t = v.get("type")
        if path and isinstance(path[-1], int) and len(path) > 1 and path[-2] == "parts" and isinstance(t, str):
            out.add(("part kind", t))
            if t == "tool-invocation":
                out.add(("tool state", v.get("state", "?")))
                for key in ("result", "errorText"):
                    if key in v:
                        out.add(("tool outcome", f"{key}: {_outcome_shape(v[key])}"))
                if v.get("toolName") in tools:
                    out.add(("mapping kind", tools[v["toolName"]]))
                a = v.get("approval")
                if isinstance(a, dict) and isinstance(a.get("reason"), str):
                    out.add(("tool approval", "approved with a reason" if a.get("approved") is True else "denied with a reason"))
            if t in ("file", "image") and "data" in v:
                out.add(("file data", _file_data_shape(v["data"])))
        if "providerOptions" in v:
            out.update(_provider_shapes(v["providerOptions"]))
        if path and (path[-1] in _SYSTEM_SLOTS or (isinstance(path[-1], int) and len(path) > 1 and path[-2] in _SYSTEM_SLOTS)):
            s = _system_shape(v)
            if s:
                out.add(("system entry", s))
    for path, v in _walk(agent.get("processors", [])):
        if isinstance(v, str) and len(path) > 1 and path[-1] == "message":  # addSystem given a string
            out.add(("system entry", "string"))
        # a returned systemMessages entry that is no entry is given as {"value": ...}
        if (
            len(path) > 3
            and path[-4:-2] == ("systemMessages", "entries")
            and path[-1] == "value"
            and isinstance(v, dict)
            and v.get("$undefined")
        ):
            out.add(("system entry", "undefined"))
    if not any(c == "provider options" for c, _ in out):
        out.add(("provider options", "absent"))
    return out


def _processor_shapes(sj: dict, pid: str) -> set[tuple[str, str]]:
    """The shapes processor ``pid`` of scenario ``sj`` holds itself (its steps, what it adds and
    returns, its ending): those of a scenario holding only it, less an empty scenario's."""
    procs = [p for p in (sj.get("agent") or {}).get("processors", []) if isinstance(p, dict) and p.get("id") == pid]
    return shapes_of({"agent": {"processors": procs}, "call": {}}) - _EMPTY_SHAPES


_EMPTY_SHAPES = shapes_of({"agent": {}, "call": {}})


# -- the census ---------------------------------------------------------------------------------------


@define
class Census:
    """Scenario counts per (category, shape); ``scenarios`` in all. With ``mode`` set, each
    scenario is also run on the model in that mode (``stages``): the census then counts per
    loop the stage each case stopped at, and per shape the cases holding it that survived to
    the stage reading it (``reached``)."""

    scenarios: int = 0
    counts: dict = field(factory=dict)
    shapes: Any = None  # the supported shapes (default ``supported()``)
    reader: Any = None  # the shapes of one case (default ``shapes_of``)
    mode: str | None = None  # "guarded" or "raw": the mode whose stages are counted
    reached: dict = field(factory=dict)  # (category, shape) -> cases that survived to its reading stage
    stops: dict = field(factory=dict)  # loop -> {stage: cases that stopped there}

    def add(self, sj: Any) -> None:
        self.scenarios += 1
        keys = (self.reader or shapes_of)(sj)
        for key in keys:
            self.counts[key] = self.counts.get(key, 0) + 1
        if self.mode is None:
            return
        stop = stop_of(sj, self.mode)
        if stop is None:
            return
        stage, pid = stop
        per = self.stops.setdefault((sj.get("call") or {}).get("loop", "generate"), {})
        per[stage] = per.get(stage, 0) + 1
        own = _processor_shapes(sj, pid) if pid else set()
        for c, s in keys:
            if reaches(stage, read_at(c)) or (c, s) in own:
                self.reached[(c, s)] = self.reached.get((c, s), 0) + 1

    def rows(self) -> list[tuple[str, str, int, bool]]:
        """(category, shape, scenarios, supported): every supported shape (zeros included), then
        any shape seen that the list does not name."""
        sup = self.shapes if self.shapes is not None else supported()
        out = [(c, s, self.counts.get((c, s), 0), True) for c, shapes in sup.items() for s in shapes]
        out += [(c, s, n, False) for (c, s), n in sorted(self.counts.items()) if s not in sup.get(c, ())]
        return out

    def zeros(self) -> list[tuple[str, str]]:
        return [(c, s) for c, s, n, ok in self.rows() if ok and n == 0]

    def unreached(self) -> list[tuple[str, str]]:
        """Supported shapes drawn, yet in no case that survived to the stage reading them (with
        ``mode`` set; otherwise none)."""
        if self.mode is None:
            return []
        return [(c, s) for c, s, n, ok in self.rows() if ok and n > 0 and not self.reached.get((c, s))]

    def deep_share(self, loop: str) -> float:
        """The share of ``loop``'s counted cases that reached the policies or the model."""
        per = self.stops.get(loop, {})
        total = sum(per.values())
        return sum(per.get(s, 0) for s in DEEP) / total if total else 0.0

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "scenarios": self.scenarios,
            "shapes": [
                {"category": c, "shape": s, "scenarios": n, "supported": ok}
                | ({"reached": self.reached.get((c, s), 0), "readAt": read_at(c)} if self.mode else {})
                for c, s, n, ok in self.rows()
            ],
            "zeros": [f"{c}: {s}" for c, s in self.zeros()],
        }
        if self.mode:
            out["mode"] = self.mode
            out["stages"] = {loop: {s: per.get(s, 0) for s in STAGES} for loop, per in sorted(self.stops.items())}
            out["unreached"] = [f"{c}: {s}" for c, s in self.unreached()]
        return out

    def table(self, title: str = "shape census") -> Any:
        t = Table(title=f"{title} ({self.scenarios} scenarios)")
        for col in ("category", "shape", "scenarios"):
            t.add_column(col, justify="right" if col == "scenarios" else "left")
        if self.mode:
            t.add_column("reached", justify="right")
        last = None
        for c, s, n, ok in self.rows():
            shown = f"[red]{n}[/red]" if ok and n == 0 else str(n) if ok else f"{n} [yellow](not in the model's list)[/yellow]"
            row = [c if c != last else "", s, shown]
            if self.mode:
                r = self.reached.get((c, s), 0)
                row.append(f"[red]{r}[/red]" if ok and n and not r else str(r))
            t.add_row(*row)
            last = c
        return t

    def stage_table(self) -> Any:
        """Per loop, the cases that stopped at each stage, and the share that reached the
        policies or the model."""
        t = Table(title=f"where the model's {self.mode} runs stopped, per loop")
        t.add_column("loop")
        for s in STAGES:
            t.add_column(s, justify="right")
        t.add_column("policies or model", justify="right")
        for loop, per in sorted(self.stops.items()):
            t.add_row(loop, *(str(per.get(s, 0)) for s in STAGES), f"{self.deep_share(loop):.0%}")
        return t


def census_of(scenarios: Iterable[Any], shapes: dict | None = None, reader: Any = None, mode: str | None = None) -> Census:
    """The census of ``scenarios``; with ``mode``, with the stages their model runs reached."""
    c = Census(shapes=shapes, reader=reader, mode=mode)
    for sj in scenarios:
        c.add(sj)
    return c


__all__ = [
    "ACTOR_SHAPES",
    "APPROVAL_SHAPES",
    "FILE_DATA_SHAPES",
    "NAMESPACES_READ",
    "PROVIDER_SHAPES",
    "ROLE_SHAPES",
    "SYSTEM_SHAPES",
    "Census",
    "census_of",
    "shapes_of",
    "supported",
]
