"""The encoded fields, read off an interpreter run and off the encoding, side by side.

``of_run`` abstracts what the interpreter shows (O1-O8, plus the policies' read text) to the
encoding's vocabulary; ``of_encoding`` evaluates the encoding (choices fixed, or in a z3 model);
``disagreements`` compares the two field by field. The fields: outcome (kind, who, reason),
audit counts (guarded), the final list (slots with their sources and content, system entries),
the prompt, thread t1 after the call, the title, the result's ids, and what the policies read.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import z3

from guardspec.model.messages import FilePart, Message, ReasoningPart, Role, Source, SystemMessage, TextPart, ToolPart, ToolState
from guardspec.model.observation import Answered, Failed, Refused
from guardspec.model.values import UNDEFINED, JsObject
from guardspec.reference.reading import cached_output

from ..invariants.scenario import request_actor
from . import logic as L
from .encoded import (
    ANSWERED,
    BY_ASSETS,
    BY_MAPPER,
    BY_NO_ID,
    BY_NONE,
    BY_POLICY,
    BY_RBAC,
    BY_RUNNER,
    FAILED,
    R_ABORT,
    R_ASSET,
    R_FETCH,
    R_POLICY,
    R_POLICY_FAILED,
    R_PROC_FAILED,
    R_RAW_FAILED,
    R_RBAC,
    R_TYPEERROR,
    REFUSED,
    Encoded,
)
from .scope import MARKER, NO_LABEL, Scope, Tool

TXT = re.compile(r"^txt(\d{3})")
EXT = re.compile(r"(cit|rsn|met)\d{3}")
FIL = re.compile(r"^fil(\d{3})$")


URL = re.compile(r"^https://evil\.example/fil(\d{3})$")


URI = "data:image/png;base64,"


def _file_uri(m: Message) -> bool:
    """The message's first file part's data is a data URI naming another type (``ouri``)."""
    f = next((p for p in m.parts or () if isinstance(p, FilePart)), None)
    return f is not None and isinstance(f.data, str) and f.data.startswith(URI)


def _file_url(m: Message) -> bool:
    """The message's first file part names a URL (``scope.asset_url``)."""
    f = next((p for p in m.parts or () if isinstance(p, FilePart)), None)
    return f is not None and isinstance(f.data, str) and URL.match(f.data) is not None


def _file_label(m: Message) -> int:
    """The label of the message's first file part: its base64 data decoded (``fil<label>``),
    or the label its URL names."""
    f = next((p for p in m.parts or () if isinstance(p, FilePart)), None)
    if f is None:
        return NO_LABEL
    u = URL.match(f.data) if isinstance(f.data, str) else None
    if u:
        return int(u.group(1))
    data = f.data[len(URI) :] if isinstance(f.data, str) and f.data.startswith(URI) else f.data
    try:
        g = FIL.match(base64.b64decode(data).decode()) if isinstance(data, str) else None
    except (binascii.Error, UnicodeDecodeError):
        g = None
    return int(g.group(1)) if g else -99


def content_of(m: Message) -> tuple:
    text = next((p for p in m.parts or () if isinstance(p, TextPart)), None)
    if text is None:
        label, marked, stamped = NO_LABEL, False, False
    else:
        g = TXT.match(text.text) if isinstance(text.text, str) else None
        label = int(g.group(1)) if g else -99
        marked = MARKER in text.text
        stamped = text.created_at is not None
    # the first tool part that is not the stored result beside the carrier's outcome (``hst``)
    t = _tool_state(next((p for p in m.parts or () if isinstance(p, ToolPart) and not p.tool_call_id.startswith("hst")), None))
    h = _tool_state(next((p for p in m.parts or () if isinstance(p, ToolPart) and p.tool_call_id.startswith("hst")), None))
    # an ADD's extra content: the first text part's providerOptions, a reasoning part
    opts = text is not None and text.provider_options is not UNDEFINED
    reasoning = any(isinstance(p, ReasoningPart) for p in m.parts or ())
    return (
        label,
        marked,
        m.role is Role.ASSISTANT,
        int(t),
        stamped,
        opts,
        reasoning,
        m.metadata is not UNDEFINED,
        _file_label(m),
        int(h),
        _file_url(m),
        _file_uri(m),
    )


def _tool_state(tool: ToolPart | None) -> Tool:
    if tool is None:
        return Tool.NONE
    if tool.state is ToolState.CALL:
        return Tool.CALL
    if tool.state is ToolState.OUTPUT_ERROR:
        return Tool.ERROR
    return Tool.CACHED if cached_output(tool) is not UNDEFINED else Tool.RESULT


def _slot_index(mid: str) -> int | None:
    return int(mid[1:]) if mid.startswith("m") and mid[1:].isdigit() else None


def _system_index(sc: Scope, s: SystemMessage) -> int:
    c = s.content
    if isinstance(c, tuple) and all(isinstance(p, TextPart) and isinstance(p.text, str) for p in c):
        c = "".join(p.text for p in c)  # a split ADD_SYSTEM, as the model receives it
    if not isinstance(c, str) or not c.startswith("txt"):
        return 0
    label = int(c[3:6])
    return 1 + (label - sc.messages)


def _options(systems: Any) -> Any:
    """The label of the instructions' providerOptions citation (EDIT_SYSTEM), or None."""
    for s in systems:
        po = s.provider_options
        ns = po.get("anthropic") if isinstance(po, JsObject) else None
        note = ns.get("citations") if isinstance(ns, JsObject) else None
        if isinstance(note, str):
            g = TXT.match(note)
            return (int(g.group(1)) if g else -99, MARKER in note)
    return None


def _raw_result_read(read: str, guarded: bool, prefix: str = "res") -> bool:
    """The raw (unmapped) tool result text is in the read (``hst``: the stored result beside
    the carrier's outcome)."""
    raw = (f"{prefix}-clean", f"{prefix} {MARKER}")
    if guarded:
        return any(line in raw for line in read.split("\n"))
    return any(f'"{r}"' in read for r in raw)


def of_run(sc: Scope, ex: Any) -> dict:
    """The encoded fields of an interpreter run (a properties.harness ``Execution``)."""
    obs = ex.observation
    o = obs.outcome
    out: dict[str, Any] = {}
    if isinstance(o, Answered):
        out["outcome"] = (ANSWERED, BY_NONE, 0)
    elif isinstance(o, Refused):
        names = {
            "breakwater-rbac": BY_RBAC,
            "breakwater-policy-engine": BY_POLICY,
            "breakwater-client-tool-output": BY_MAPPER,
            "breakwater-input-assets": BY_ASSETS,
        }
        names.update({f"{ex.scenario.agent.id}-input-processor": BY_RUNNER, "": BY_NO_ID})
        by = names.get(o.processor_id)
        if by is None:
            by = int(o.processor_id[1:]) if o.processor_id.startswith("p") else -99
        if o.reason == "input processor failed":
            reason = R_PROC_FAILED
        elif o.reason.startswith("stop-p"):
            reason = R_ABORT
        elif o.reason == "policy evaluation failed":
            reason = R_POLICY_FAILED
        elif o.reason.startswith("policy"):
            reason = R_POLICY
        elif o.reason.startswith("input asset URL"):
            reason = R_ASSET
        else:
            reason = R_RBAC
        out["outcome"] = (REFUSED, by, reason)
    else:
        assert isinstance(o, Failed)
        fetch = o.error == "DOWNLOAD_ASSETS_FAILED" or o.error.startswith("Error: Failed to download asset: ")
        out["outcome"] = (FAILED, BY_NONE, R_TYPEERROR if o.error.startswith("TypeError") else R_FETCH if fetch else R_RAW_FAILED)
    if ex.mode.value == "guarded":
        out["audit"] = tuple(
            sum(e.action == a for e in obs.audit)
            for a in ("agent.input.authorize", "agent.input.processor", "agent.input.policy", "agent.input.asset")
        )
        actor = request_actor(ex.scenario.call.actor)
        allowed = [e for e in obs.audit if e.decision == "allowed"]
        out["audit_shape"] = (len(allowed), sum(bool(e.reason) for e in allowed), sum(e.actor != actor for e in obs.audit))
    if obs.list is not None:
        slots = {}
        reply = None
        for lm in obs.list.messages:
            srcs = tuple(s in lm.sources for s in (Source.MEMORY, Source.INPUT, Source.RESPONSE, Source.CONTEXT))
            i = _slot_index(lm.message.id)
            if i is None:
                reply = srcs
            else:
                slots[i] = (srcs, content_of(lm.message))
        systems = tuple(sorted(_system_index(sc, s) for s in obs.list.untagged))
        out["list"] = (tuple(sorted(slots.items())), reply, systems, _options(obs.list.untagged))
    else:
        out["list"] = None
    if obs.prompts:
        p = obs.prompts[0]
        out["prompt"] = (
            tuple(sorted((_slot_index(e.id), content_of(e)) for e in p if isinstance(e, Message) and _slot_index(e.id) is not None)),
            tuple(sorted(_system_index(sc, e) for e in p if isinstance(e, SystemMessage))),
            any(isinstance(e, Message) and e.id == "" for e in p),
            _options([e for e in p if isinstance(e, SystemMessage)]),
        )
    else:
        out["prompt"] = None
    t = ex.after.get("t1")
    rows = {}
    reply_row = False
    for m in t.messages if t else ():
        i = _slot_index(m.id)
        if i is None:
            reply_row = True
        else:
            merged = sum(isinstance(p, TextPart) for p in m.parts or ()) > 1
            rows[i] = (content_of(m), merged)
    out["thread"] = (tuple(sorted(rows.items())), reply_row)
    out["title"] = bool(t and t.title)
    if obs.result is not None:
        out["result"] = (
            tuple(sorted(i for i in map(_slot_index, obs.result.messages) if i is not None)),
            "reply-1" in obs.result.messages,
            tuple(sorted(i for i in map(_slot_index, obs.result.remembered) if i is not None)),
        )
    else:
        out["result"] = None
    read = ex.read
    if ex.mode.value == "guarded" and read is None:
        out["read"] = None
    else:
        read = read or ""
        out["read"] = (
            tuple(l for l in sc.labels if f"txt{l:03d}" in read),
            # a string result: JSON text in raw mode's naive reading, unquoted on its own line
            # under the guard (G12.3)
            _raw_result_read(read, ex.mode.value == "guarded"),
            'mapped:"res' in read,
            # the text of a file part, decoded (G12; raw mode's naive reading keeps the base64)
            tuple(l for l in sc.labels if f"fil{l:03d}" in read),
            # the stored result beside the carrier's outcome, as stored and mapped
            _raw_result_read(read, ex.mode.value == "guarded", "hst"),
            'mapped:"hst' in read,
        )
        if ex.mode.value == "guarded":
            # an ADD's citation or a user message's reasoning: the guard reads neither
            out["read"] += (bool(EXT.search(read)),)
    return out


def of_encoding(e: Encoded, model: z3.ModelRef | None = None) -> dict:
    """The same fields, computed by the encoding."""
    sc = e.choices.scope

    def v(x: Any) -> Any:
        return L.value(model, x)

    def opt(lst: Any) -> Any:
        label = v(lst.opt_label)
        return None if label == NO_LABEL else (label, v(lst.opt_marked))

    def content(c: Any, opts: Any = None, reasoning: Any = None, meta: Any = None, uri: Any = None) -> tuple:
        ext = v(c.ext)
        opts = ext if opts is None else v(opts)
        reasoning = (ext and not v(c.assistant)) if reasoning is None else v(reasoning)
        meta = v(c.meta) if meta is None else v(meta)
        return (
            v(c.label),
            v(c.marked),
            v(c.assistant),
            v(c.tool),
            v(c.stamped),
            opts,
            reasoning,
            meta,
            v(c.flabel),
            v(c.hist),
            v(c.url),
            v(c.uri) if uri is None else uri,
        )

    def sent(i: int, sl: Any) -> tuple:
        """A prompt message as sent (M12: no part options; a user message's text parts only;
        no metadata; a data URI under the part's media type)."""
        po, pr, pm = e.prompt_opts, e.prompt_reasoning, e.prompt_meta
        # M12.10: a data URI is sent rewritten under the part's own media type
        return content(sl.c, po[i] if po else False, pr[i] if pr else False, pm[i] if pm else False, False)

    out: dict[str, Any] = {}
    kind, by, reason = v(e.outcome), v(e.by), v(e.reason)
    out["outcome"] = (kind, by if kind == REFUSED else BY_NONE, reason if kind != ANSWERED else 0)
    if e.mode == "guarded":
        out["audit"] = (v(e.authorize_events), v(e.processor_events), v(e.policy_events), v(e.asset_events))
        out["audit_shape"] = (v(e.allowed_events), v(e.reasoned_allowed), v(e.misnamed_events))
    if v(e.has_list):
        slots = tuple(
            (s, (tuple(v(x) for x in (sl.mem, sl.inp, sl.resp, sl.ctx)), content(sl.c)))
            for s, sl in enumerate(e.final.slots)
            if v(sl.present)
        )
        r = e.final_reply
        reply = (False, False, v(r.resp), False) if v(r.present) else None
        systems = tuple(i for i, p in enumerate(e.final.systems) if v(p))
        out["list"] = (slots, reply, systems, opt(e.final))
    else:
        out["list"] = None
    if v(e.prompted):
        out["prompt"] = (
            tuple((s, sent(s, sl)) for s, sl in enumerate(e.prompt.slots) if v(sl.present)),
            tuple(i for i, p in enumerate(e.prompt.systems) if v(p)),
            v(e.placeholder),
            opt(e.prompt),
        )
    else:
        out["prompt"] = None
    out["thread"] = (tuple((s, (content(r.c), v(r.merged))) for s, r in enumerate(e.rows) if v(r.present)), v(e.reply_row))
    out["title"] = v(e.title)
    if v(e.has_result):
        out["result"] = (
            tuple(s for s, x in enumerate(e.result_msgs) if v(x)),
            v(e.result_reply),
            tuple(s for s, x in enumerate(e.result_mem) if v(x)),
        )
    else:
        out["result"] = None
    if e.mode == "guarded" and not v(e.read_on):
        out["read"] = None
    else:
        files = tuple(l for l, f in zip(sc.labels, e.read_files) if v(f)) if e.read_files else ()
        out["read"] = (
            tuple(l for l, f in zip(sc.labels, e.read_labels) if v(f)),
            v(e.read_tool_raw),
            v(e.read_tool_mapped),
            files,
            v(e.read_hist_raw),
            v(e.read_hist_mapped),
        )
        if e.mode == "guarded":
            out["read"] += (False,)  # the guard reads no ADD's citation nor a user reasoning part
    return out


def disagreements(run: dict, enc: dict) -> list[str]:
    return [f"{k}: interpreter {run.get(k)!r} / encoding {enc.get(k)!r}" for k in run if run.get(k) != enc.get(k)]
