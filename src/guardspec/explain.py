"""``guardspec explain``: a readable trace of one call.

The list by source and the system buckets after each stage, the additions recorded, what the
policies read, and the outcome, as a person reviewing a counterexample wants to read them.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from guardspec.model import codec
from guardspec.model.messages import SOURCE_ORDER, FilePart, ImagePart, Message, ReasoningPart, SystemMessage, TextPart, ToolPart
from guardspec.model.observation import Answered, Failed, Observation, Refused
from guardspec.model.scenario import Mode, Scenario
from guardspec.reference.messagelist import MessageList
from guardspec.reference.run import run_call
from guardspec.reference.trace import Trace

from .examples import render_entry

PART_TYPES = (TextPart, ToolPart, ReasoningPart, FilePart, ImagePart)


def _short(s: str, n: int = 90) -> str:
    s = s.replace("\n", "⏎")
    return s if len(s) <= n else s[: n - 1] + "…"


def entry_line(e: Any) -> str:
    """One list entry as a line, for every entry a scenario can put on the list: a system message whose content is not a string (text parts, parts of any other shape,
    a stored-format ``{format: 2, parts}`` message, any value) is shown as its JSON; anything
    else as the examples render it."""
    if isinstance(e, SystemMessage) and not isinstance(e.content, str):
        c = e.content
        if isinstance(c, tuple):
            items: Any = [codec.part_to_json(p) if isinstance(p, PART_TYPES) else codec.value_to_json(p) for p in c]
            body: Any = {"format": 2, "parts": items} if e.stored else items
        else:
            body = codec.value_to_json(c)
        return "system: " + json.dumps(body, separators=(",", ":"))
    return render_entry(e)


def list_table(lst: MessageList) -> Table:
    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    t.add_column("bucket/sources")
    t.add_column("id")
    t.add_column("entry")
    for s in lst.untagged:
        t.add_row("system", "", _short(entry_line(s)))
    for tag, bucket in lst.tagged:
        for s in bucket:
            t.add_row(f"system[{tag}]", "", _short(entry_line(s)))
    for slot in lst.slots:
        srcs = "+".join(x.value for x in SOURCE_ORDER if x in slot.sources) or "(none)"
        t.add_row(srcs, slot.message.id, _short(entry_line(slot.message)))
    return t


def outcome_text(o: Observation) -> str:
    out = o.outcome
    if isinstance(out, Answered):
        return "answered"
    if isinstance(out, Refused):
        s = f"refused by {out.processor_id}: {out.reason}"
        return s + (f" (thrown: {out.thrown})" if out.thrown else "")
    assert isinstance(out, Failed)
    return f"failed: {out.error}"


def explain(scenario: Scenario, mode: Mode) -> Group:
    """The trace of one run, as rich renderables."""
    trace = Trace()
    r = run_call(scenario, mode, trace)
    o = r.observation
    parts: list[Any] = [Text(f"scenario {scenario.name or '(unnamed)'} — mode {mode.value}, loop {scenario.call.loop.value}", style="bold")]
    if scenario.note:
        parts.append(Text(scenario.note, style="italic"))
    for st in trace.stages:
        title = st.name + (f" — {st.note}" if st.note else "")
        parts.append(Panel(list_table(st.list), title=title, title_align="left"))
    if trace.additions:
        t = Table("processor", "moved", "addition", box=None)
        for a in trace.additions:
            t.add_row(a.processor_id, "yes" if a.moved else "", _short(entry_line(a.entry)))
        parts.append(Panel(t, title="additions recorded (G9)", title_align="left"))
    if o.read is not None:
        parts.append(Panel(Text(o.read), title="what the policies read (G10, G12)", title_align="left"))
    if o.audit:
        t = Table("action", "decision", "reason", "detail", box=None)
        for e in o.audit:
            t.add_row(e.action, e.decision, e.reason, json.dumps(dict(e.detail)) if e.detail else "")
        parts.append(Panel(t, title="audit", title_align="left"))
    for i, p in enumerate(o.prompts):
        parts.append(Panel("\n".join(_short(entry_line(e), 120) for e in p), title=f"prompt {i + 1}", title_align="left"))
    if o.stored is not None:
        stored = "\n".join(_short(f"{m.id} " + render_entry(m), 120) for m in o.stored) or "(empty)"
        parts.append(Panel(stored, title=f"stored thread (title {o.title!r})", title_align="left"))
    if o.result is not None:
        parts.append(
            Text(
                f"result: messages={list(o.result.messages)} remembered={list(o.result.remembered)} finishReason={o.result.finish_reason} text={o.result.text!r}"
            )
        )
    parts.append(Text(f"outcome: {outcome_text(o)}", style="bold"))
    return Group(*parts)


def print_explain(scenario: Scenario, mode: Mode, console: Console | None = None) -> None:
    (console or Console()).print(explain(scenario, mode))


__all__ = ["Message", "SystemMessage", "codec", "explain", "list_table", "outcome_text", "print_explain"]
