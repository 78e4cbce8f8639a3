"""``guardspec report``: the review page as a person sees it, and the clause coverage it shows.

The report is made once, by the command itself, into a temporary folder; a headless Chromium
(Debian's ``chromium``; see tests/report/headless.py) opens the page. The coverage mapping is checked on
a small module whose lines and branches are counted by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import headless
from guardspec import traceability as tr
from guardspec.report.coverage import measuring, per_clause

# one refuted by z3 at the report's bound, one killed by a prompt property, one added by the
# Breakwater work (its z3 status may change as the scope grows; the test does not assume it)
# the report is made once per worker that runs a test needing it: keep them on one worker
pytestmark = pytest.mark.xdist_group("report")

CHOSEN = ("refusal_keeps_input", "system_parts_read_apart", "null_system_entries_skipped")
SECTIONS = ("chain", "coverage", "checks", "proofs", "mutants", "differential", "findings", "timelines")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    t0 = time.perf_counter()
    # Three mutants, not all: each mutant's kill and z3 refutation are tested one by one in
    # test_properties_mutants.py and test_prove_counterexamples.py; here the report's handling of
    # them is what counts, and the whole battery took 800 s of CI's 18 min.
    # The timeout is a guard against a hang, not a speed check.
    r = subprocess.run([sys.executable, "-m", "guardspec.cli", "report", "--out", str(out), "--mutants", ",".join(CHOSEN)],
                       capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "report written in" in r.stdout, r.stdout
    print(f"report made in {time.perf_counter() - t0:.1f} s")
    return out


# -- coverage per clause, on a module counted by hand ------------------------------------------

MODULE = '''\
def refusal_removal(x):
    """G13 Refusal removal: a branch, one side taken."""
    if x:
        return 1
    return 2


def remove_by_ids():
    """M5 Removal: never called."""
    return 3


def helper():
    return 4
'''


def test_lines_and_branches_are_counted_per_clause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "fake_reference"
    src.mkdir()
    (src / "fake_clauses.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(src))
    data = tmp_path / "cov"
    with measuring(data, src):
        import fake_clauses

        fake_clauses.refusal_removal(True)
        fake_clauses.helper()
    rows = {r.clause: r for r in per_clause(data, ["G13", "M5", "I1", "I2"], {"I1": ["G13"], "I2": []}, src)}
    # G13's body: the if, the two returns; run: the if and the first return. One branching line,
    # two ways out, one taken. (The def line runs at import and counts for nothing.)
    g13 = rows["G13"]
    assert (g13.lines, g13.lines_run, g13.branches, g13.branches_run) == (3, 2, 2, 1)
    assert g13.functions == ("fake_clauses.refusal_removal",)
    # M5 was imported, never called: it has a line, none exercised, and says so.
    m5 = rows["M5"]
    assert (m5.lines, m5.lines_run, m5.exercised, m5.unrun) == (1, 0, False, ("fake_clauses.remove_by_ids",))
    # An invariant counts the code of the clauses it cites; one that cites none has none.
    assert (rows["I1"].via, rows["I1"].lines, rows["I1"].lines_run) == (("G13",), 3, 2)
    assert (rows["I2"].lines, rows["I2"].exercised) == (0, False)


# -- the report itself --------------------------------------------------------------------------


@pytest.mark.node
@pytest.mark.slow
def test_every_clause_has_a_coverage_row(report: Path) -> None:
    data = json.loads((report / "report.json").read_text())
    assert [c["clause"] for c in data["coverage"]] == tr.CLAUSES
    page = headless.anchors((report / "report.html").read_text())
    assert {f"clause-{c}" for c in tr.CLAUSES} <= page.ids
    md = (report / "report.md").read_text()
    for c in tr.CLAUSES:
        assert f"\n| {c} " in md, c
    # G13 Refusal removal is implemented by reference/guard/removal.py and every refused example
    # runs it: its row must show code, exercised.
    g13 = next(c for c in data["coverage"] if c["clause"] == "G13")
    assert "removal.refusal_removal" in g13["functions"] and g13["linesRun"] > 0
    # a clause with no exercised line is marked in both twins
    for c in data["coverage"]:
        if c["linesRun"] == 0:
            assert "no line exercised" in md.split(f"\n| {c['clause']} ", 1)[1].split("\n", 1)[0]


@pytest.mark.node
@pytest.mark.slow
def test_report_holds_measured_results(report: Path) -> None:
    data = json.loads((report / "report.json").read_text())
    # the raw counterexamples I12 predicts are found and replayed, and drawn
    raw = {p["claim"]: p for p in data["z3"]["proofs"] if p["mode"] == "raw"}
    assert set(raw) == {"I1", "I2", "I4"} and all(p["status"] == "counterexample" and p["replayed"] for p in raw.values())
    titles = [t["title"] for t in data["timelines"]]
    assert any(t.startswith("I1 in raw mode (durable)") for t in titles) and any(t.startswith("I2 in raw mode (durable)") for t in titles)
    i1 = next(t for t in data["timelines"] if t["title"].startswith("I1"))
    assert i1["refused"] and "memory" in i1["highlight"] and any(s["new"] for s in i1["stored"])
    # the guard's own implementation agrees with the model on every case
    serve = next(d for d in data["differential"] if d["label"] == "guardspec serve")
    assert serve["status"] == "run" and serve["counts"] == {"agree": serve["cases"]}
    assert {k.split("/")[1] for k in serve["cells"]} == {"generate", "stream", "durable"}
    bw = next(d for d in data["differential"] if d["label"] == "Breakwater")
    assert bw["status"].startswith("not run")
    # only the chosen mutants ran, on both sides, and both twins say so
    assert [m["mutant"] for m in data["mutants"]] == list(CHOSEN) and set(data["z3"]["refuted"]) == set(CHOSEN)
    assert all(m["killedBy"] for m in data["mutants"])
    assert data["z3"]["refuted"]["refusal_keeps_input"]["status"] == "refuted"
    from guardspec.properties.mutants import MUTANTS

    said = f"3 of the {len(MUTANTS)} mutants were run"
    assert said in (report / "report.md").read_text() and said in (report / "report.html").read_text()


@pytest.mark.node
@pytest.mark.slow
def test_page_is_one_static_file(report: Path) -> None:
    html = (report / "report.html").read_text()
    page = headless.anchors(html)
    assert "script" not in page.tags and not page.external, page.external[:5]
    assert [s for s in page.sections] == list(SECTIONS)
    md = (report / "report.md").read_text()
    for name in ("The contract drawn", "Clause coverage", "Proofs", "Mutants", "Differential results", "Findings", "Counterexample timelines"):
        assert f". {name}" in md, name


# -- in the browser -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium() -> str:
    exe, why = headless.browser()
    if exe is None:
        pytest.skip(why)
    return exe


@pytest.mark.browser
def test_console_check_sees_an_error(chromium: str, tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text('<html><body><p>x</p><script>console.error("guardspec-console-probe")</script></body></html>')
    r = headless.run(chromium, page.as_uri(), "--dump-dom")
    assert any("guardspec-console-probe" in m for m in headless.console_messages(r.stderr)), r.stderr[-2000:]


@pytest.mark.browser
def test_blank_check_sees_a_blank_page(chromium: str, tmp_path: Path) -> None:
    page, shot = tmp_path / "blank.html", tmp_path / "blank.png"
    page.write_text("<html><body style='background:#fff'></body></html>")
    headless.run(chromium, page.as_uri(), f"--screenshot={shot}", "--window-size=400,300")
    var, share = headless.ink(shot)
    assert var < 1 and share == 0


@pytest.mark.node
@pytest.mark.slow
@pytest.mark.browser
def test_page_renders_in_chromium(report: Path, chromium: str, tmp_path: Path) -> None:
    url = (report / "report.html").as_uri()
    r = headless.run(chromium, url, "--dump-dom")
    assert r.returncode == 0, r.stderr[-2000:]
    assert headless.console_messages(r.stderr) == []
    dom = headless.anchors(r.stdout)
    assert dom.sections == list(SECTIONS)
    # every in-page link resolves: stages to their rows, clauses to theirs, the nav to sections
    missing = sorted({x for x in dom.links if x not in dom.ids})
    assert not missing, missing
    assert {f"stage-{k}" for k in ("rbac", "recorder", "memory", "processors", "mapping", "policies", "model", "finish")} <= dom.ids
    assert any(x.startswith("clause-") for x in dom.links) and any(x.startswith("stage-") for x in dom.links)
    assert dom.tags.get("svg", 0) >= 3 and "timeline-1-svg" in dom.ids
    # the chain and the first timeline, cut out of the page as the browser parsed it, draw something
    html = r.stdout
    for cls, size in (('class="chain"', "1300,450"), ('class="timeline"', "1300,400")):
        start = html.rindex("<svg", 0, html.index(cls) + 1)
        end = html.index("</svg>", start) + len("</svg>")
        piece, shot = tmp_path / f"{cls[7:-1]}.html", tmp_path / f"{cls[7:-1]}.png"
        piece.write_text(f"<!DOCTYPE html><html><body style='margin:0;background:#fff'>{html[start:end]}</body></html>")
        s = headless.run(chromium, piece.as_uri(), f"--screenshot={shot}", f"--window-size={size}")
        assert s.returncode == 0 and shot.is_file(), s.stderr[-2000:]
        var, share = headless.ink(shot)
        assert var > 100 and share > 0.03, (cls, var, share)
    shot = tmp_path / "page.png"
    headless.run(chromium, url, f"--screenshot={shot}", "--window-size=1400,1800")
    var, share = headless.ink(shot)
    assert var > 100 and share > 0.05


def test_breakwater_section_says_why_it_did_not_run(tmp_path: Path) -> None:
    from guardspec.report.collect import differential, implementations

    (tmp_path / "adapters" / "mastra").mkdir(parents=True)
    none = {i["label"]: i for i in implementations(tmp_path, None)}
    assert differential(none["Breakwater"], 5)["status"] == "not run: no build named (--breakwater or BREAKWATER_MODULE)"
    named = {i["label"]: i for i in implementations(tmp_path, "/somewhere/breakwater.mjs")}
    assert differential(named["Breakwater"], 5)["status"] == (
        "not run: a build is named but adapters/breakwater/server.mjs is not in this checkout")
    assert named["Breakwater"]["env"] == {"BREAKWATER_MODULE": "/somewhere/breakwater.mjs"}


def test_verify_writes_the_report_after_its_sections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from guardspec import cli
    from guardspec.commands import report_cmds

    calls = []
    monkeypatch.setattr(cli, "_sections", lambda hook: [("stub", lambda console: True)])
    monkeypatch.setattr(report_cmds, "write_report", lambda out, echo=None, extra=None: calls.append((out, extra)))
    root = Path(__file__).resolve().parents[2]
    r = CliRunner().invoke(cli.main, ["verify", "--examples", str(root / "examples"), "--report", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    assert calls == [(str(tmp_path / "rep"), {"verify": {"examples": "pass", "stub": "pass"}})]


def test_a_finding_with_a_vector_gets_a_timeline(tmp_path: Path) -> None:
    import shutil

    from guardspec.report.collect import findings
    from guardspec.report.timeline import counterexamples

    root = Path(__file__).resolve().parents[2]
    name = "vectors/conformance/g13-refusing-processor-own-additions-removed.json"
    (tmp_path / "vectors" / "conformance").mkdir(parents=True)
    shutil.copy(root / name, tmp_path / name)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "breakwater-findings.md").write_text(
        f"# Findings\n\n## F1 additions survive a refusal (G13)\n\nReplay: `{name}`.\n\n## F2 no vector (G10)\n\nText only.\n")
    found = findings(tmp_path)
    assert [(i["title"], i["clauses"], i["vectors"]) for i in found["items"]] == [
        ("F1 additions survive a refusal (G13)", ["G13"], [name]), ("F2 no vector (G10)", ["G10"], [])]
    [t] = counterexamples({"proofs": []}, {}, found, tmp_path)
    # the vector's processor refuses (G13): the guarded run is refused and saves nothing new
    assert t["title"] == "finding: F1 additions survive a refusal (G13)" and t["mode"] == "guarded"
    assert t["refused"] and not any(s["new"] for s in t["stored"]) and t["highlight"] == []
    assert t["columns"] and t["columns"][-1]["stage"].startswith("refusal removal")


def test_a_report_written_by_verify_shows_its_sections() -> None:
    from guardspec.report import html

    line = html._verify({"verify": {"examples": "pass", "proofs": "FAIL"}})
    assert "examples <span class=ok>pass</span>" in line and "proofs <span class=bad>FAIL</span>" in line
    assert html._verify({}) == ""


def test_an_unknown_mutant_name_is_a_usage_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from guardspec import cli

    r = CliRunner().invoke(cli.main, ["report", "--out", str(tmp_path / "rep"), "--mutants", "refusal_keeps_input,no_such_mutant"])
    assert r.exit_code == 2
    assert "--mutants" in r.output and "no_such_mutant" in r.output and "refusal_keeps_input" not in r.output.split("unknown:")[1]
    assert not (tmp_path / "rep").exists()
