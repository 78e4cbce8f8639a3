"""Inline SVG drawings: the guarded chain per loop, and a counterexample's timeline.

Plain SVG text, no script: every stage box links to the stage's row (``#stage-<key>``) and each
clause label to the clause's coverage row (``#clause-<id>``).
"""

from __future__ import annotations

from html import escape

from .chain import LINKED, LOOP_NOTES, LOOPS, REFUSAL, STAGES

SOURCE_COLOURS = {
    "memory": "#4e79a7", "input": "#59a14f", "memory+input": "#2f8f8a", "response": "#f28e2b",
    "context": "#b07aa1", "system": "#8c8c8c", "none": "#cccccc",
}
RED = "#c62828"
MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"


def _colour(sources: str) -> str:
    return SOURCE_COLOURS.get(sources, "#6f6f6f")


def _text(x: float, y: float, s: str, size: int = 11, anchor: str = "start", weight: str = "normal", fill: str = "#222", mono: bool = False) -> str:
    family = f' font-family="{MONO}"' if mono else ""
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" fill="{fill}"{family}>{escape(s)}</text>'


def _wrap(s: str, width: int) -> list[str]:
    words, lines, cur = s.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}".strip()
    return lines + [cur] if cur else lines


def _clause_links(x: float, y: float, clauses: tuple[str, ...] | list[str], size: int = 10) -> str:
    """Clause ids side by side, each a link to its coverage row."""
    out, cx = [], x
    for c in clauses:
        out.append(f'<a href="#clause-{c.split(".")[0]}"><title>clause {c}</title>{_text(cx, y, c, size, mono=True, fill="#1a4fa0")}</a>')
        cx += (len(c) + 1) * size * 0.62
    return "".join(out)


def _arrow(ident: str) -> str:
    return (f'<defs><marker id="{ident}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>')


def chain_diagram(coverage: dict[str, float | None], per_loop: dict[str, list[str]] | None = None) -> str:
    """The guarded chain, one row per loop. Box shade: share of the stage's clause lines this run
    exercised (``coverage``: clause → line percent); under each loop's name, ``per_loop`` lines
    (what this run measured on that loop)."""
    bw, bh, gap, x0, top, row = 118, 70, 14, 96, 34, 108
    width = x0 + len(STAGES) * (bw + gap) + 10
    height = top + len(LOOPS) * row + 70
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chain" role="img" aria-label="the guarded chain per loop" '
           f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">',
           _arrow("arrow-chain"),
           _text(x0, 20, "each box: a stage of the chain and its clauses; shade: share of its clauses' lines this run exercised; "
                 "red corner: a gate that can refuse", 11, fill="#555")]
    for li, loop in enumerate(LOOPS):
        y = top + li * row
        out.append(_text(8, y + 16, loop, 13, weight="bold"))
        for k, line in enumerate((per_loop or {}).get(loop, [])[:6]):
            out.append(_text(8, y + 31 + 11 * k, line, 9, fill="#555"))
        for si, st in enumerate(STAGES):
            x = x0 + si * (bw + gap)
            pcts = [coverage.get(c) for c in st.clauses if coverage.get(c) is not None]
            pct = sum(pcts) / len(pcts) if pcts else None
            fill = "#f3f3f3" if pct is None else f"rgba(46,125,50,{0.12 + 0.5 * pct / 100:.2f})"
            dash = ' stroke-dasharray="5 4"' if not st.modelled else ""
            out.append(f'<a href="#stage-{st.key}"><title>{escape(st.name)}: {escape(" ".join(st.clauses) or st.note)}</title>'
                       f'<rect x="{x}" y="{y}" width="{bw}" height="{bh}" rx="6" fill="{fill}" stroke="#555"{dash}/>')
            for k, line in enumerate(_wrap(st.name, 15)[:2]):
                out.append(_text(x + 6, y + 15 + 13 * k, line, 11, weight="bold"))
            out.append("</a>")
            if st.gate:
                out.append(f'<path d="M{x + bw - 14},{y + bh} L{x + bw},{y + bh} L{x + bw},{y + bh - 14} z" fill="{RED}"/>')
            out.append(_clause_links(x + 6, y + 46, st.clauses) if st.clauses else _text(x + 6, y + 46, "no clause", 10, fill="#888"))
            label = "not modelled" if not st.modelled else ("—" if pct is None else f"lines {pct:.0f}%")
            out.append(_text(x + 6, y + 62, label, 10, fill="#333"))
            note = LOOP_NOTES.get((loop, st.key))
            if note:
                for k, line in enumerate(_wrap(note, 22)[:2]):
                    out.append(_text(x + 2, y + bh + 13 + 11 * k, line, 9.5, fill="#6a1b9a"))
            if si:
                out.append(f'<line x1="{x - gap}" y1="{y + bh / 2}" x2="{x - 1}" y2="{y + bh / 2}" stroke="#555" marker-end="url(#arrow-chain)"/>')
    y = top + len(LOOPS) * row + 8
    out.append(f'<rect x="{x0}" y="{y}" width="{width - x0 - 10}" height="34" rx="6" fill="#fdecea" stroke="{RED}"/>')
    out.append(_text(x0 + 8, y + 21, "a gate refuses → input, response, additions, moved carriers removed; nothing saved, no title, result omits them", 11, fill=RED))
    links_w = sum((len(c) + 1) * 11 * 0.62 for c in REFUSAL)
    out.append(_clause_links(width - 18 - links_w, y + 21, REFUSAL, 11))
    out.append("</svg>")
    return "".join(out)


def legend() -> str:
    items = list(SOURCE_COLOURS.items())
    w = 120 * len(items)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="legend" viewBox="0 0 {w} 22" width="{w}" height="22">']
    for i, (name, colour) in enumerate(items):
        out.append(f'<rect x="{i * 120}" y="4" width="14" height="14" rx="3" fill="{colour}"/>' + _text(i * 120 + 19, 16, name, 11))
    out.append("</svg>")
    return "".join(out)


def timeline(t: dict, anchor: str) -> str:
    """The list by source after each traced stage (one column each), then what reached memory,
    the title and what the model was sent; what the highlight names is drawn in red."""
    cols, rows = t["columns"], t["rows"]
    rh, x0, top = 24, 112, 66
    cw = max(176, min(280, (1180 - x0) // max(len(cols), 1)))
    fit = int((cw - 16) / 5.7)
    width = max(x0 + len(cols) * cw + 10, 900)
    grid_h = top + len(rows) * rh + 10
    panels = 3
    lines = max(len(t["stored"]), len(t["prompts"]), 2)
    height = grid_h + 40 + lines * 17 + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" id="{anchor}-svg" role="img" aria-label="{escape(t["title"])}" '
           f'viewBox="0 0 {width} {height}" width="{width}" height="{height}">']
    banner = RED if t["refused"] else "#2e7d32"
    out.append(f'<rect x="0" y="0" width="{width}" height="24" fill="{banner}" opacity="0.12"/>')
    out.append(_text(8, 16, f"{t['mode']} mode, {t['loop']} — outcome: {t['outcome']}"[:150], 12, weight="bold", fill=banner))
    for ci, col in enumerate(cols):
        x = x0 + ci * cw
        head = f'<title>{escape(col["stage"])}: {escape(col["note"])}</title>'
        head += "".join(_text(x + 4, 40 + 13 * k, line, 11, weight="bold") for k, line in enumerate(_wrap(col["stage"], int(cw / 7))[:2]))
        out.append(f'<a href="#stage-{col["chain"]}">{head}</a>' if col["chain"] in LINKED else f"<g>{head}</g>")
    for ri, key in enumerate(rows):
        y = top + ri * rh
        out.append(_text(6, y + 16, key[:15], 11, mono=True))
        for ci, col in enumerate(cols):
            x = x0 + ci * cw
            cell = col["cells"].get(key)
            if cell is None:
                prev = cols[ci - 1]["cells"].get(key) if ci else None
                if prev is not None:  # taken off the list at this stage
                    out.append(f'<rect x="{x + 2}" y="{y + 2}" width="{cw - 8}" height="{rh - 4}" rx="4" fill="none" stroke="#999" stroke-dasharray="3 3"/>')
                    out.append(_text(x + 8, y + 16, "removed", 10, fill="#777"))
                continue
            out.append(f'<rect x="{x + 2}" y="{y + 2}" width="{cw - 8}" height="{rh - 4}" rx="4" fill="{_colour(cell["sources"])}" opacity="0.85">'
                       f'<title>{escape(cell["sources"])}: {escape(cell["text"])}</title></rect>')
            label = cell["text"] if cell["sources"] == "system" else f"{cell['sources']}: {cell['text']}"
            out.append(_text(x + 7, y + 16, label[:fit], 10, fill="#fff"))
    y = grid_h + 6
    pw = (width - 20) / panels
    heads = (("reached memory" if t["refused"] else "stored", "memory"), ("thread title", "title"), ("sent to the model", "model"))
    for i, (head, key) in enumerate(heads):
        x = 8 + i * pw
        hot = key in t["highlight"]
        out.append(f'<rect x="{x}" y="{y}" width="{pw - 8}" height="{height - y - 6}" rx="6" fill="{"#fdecea" if hot else "#f7f7f7"}" '
                   f'stroke="{RED if hot else "#bbb"}" stroke-width="{2.5 if hot else 1}"/>')
        out.append(_text(x + 8, y + 17, head + (" — despite the refusal" if hot and key != "model" else (" — never read by the policies" if hot else "")), 11, weight="bold", fill=RED if hot else "#222"))
        items: list[tuple[str, bool]]
        if key == "memory":
            items = [(f"{s['id']} {s['text']}", s["new"] and t["refused"]) for s in t["stored"]] if t["bound"] else [("no memory binding", False)]
            items = items or [("(nothing)", False)]
        elif key == "title":
            items = [(t["titleAfter"].replace("\n", " ⏎ ") or "(none)", hot), (f"before: {t['titleBefore'] or '(none)'}", False)]
        else:
            items = [(p["text"], p["unread"]) for p in t["prompts"]] or [("no model call", False)]
        for k, (s, red) in enumerate(items[:lines]):
            out.append(_text(x + 10, y + 35 + 17 * k, s[: int(pw / 6.4)], 10.5, mono=True, fill=RED if red else "#333", weight="bold" if red else "normal"))
    out.append("</svg>")
    return "".join(out)
