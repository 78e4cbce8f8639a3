"""Progress of long commands: every command that can run for more than a few
seconds shows progress while it runs (a rich bar on a terminal, occasional plain lines on
stderr elsewhere) and ends with its summary. diff and mastra-diff are checked in
tests/test_conformance_harness.py and tests/test_mastra_diff.py."""

from __future__ import annotations

import io

from click.testing import CliRunner

from guardspec.progress import Progress


def test_plain_lines_when_not_a_terminal() -> None:
    out = io.StringIO()
    with Progress(stream=out, interval=3600) as p:
        t = p.task("work", total=5)
        for _ in range(5):
            t.advance(info="going")
        t.done("5 things")
    lines = out.getvalue().splitlines()
    # one line at the start and one at the end; the interval keeps the rest quiet
    assert len(lines) == 2
    assert lines[0].startswith("[work] 0/5 …") and lines[1].startswith("[work] 5/5 done 5 things")


def test_plain_lines_every_interval() -> None:
    out = io.StringIO()
    with Progress(stream=out, interval=0) as p:
        t = p.task("work", total=3)
        t.advance()
        t.advance()
    assert [x.split(" (")[0] for x in out.getvalue().splitlines()] == ["[work] 0/3 …", "[work] 1/3 …", "[work] 2/3 …"]


def test_a_bar_on_a_terminal() -> None:
    out = io.StringIO()
    with Progress(stream=out, tty=True) as p:
        t = p.task("work", total=4)
        t.advance(2, info="half way")
        t.done()
    text = out.getvalue()
    assert "work" in text and "4/4" in text and "[work]" not in text  # the bar, not the plain lines


def test_silent_when_disabled() -> None:
    out = io.StringIO()
    with Progress(enabled=False, stream=out) as p:
        p.task("work", total=2).done()
    assert out.getvalue() == ""


def test_mutants_show_progress_then_the_table() -> None:
    from guardspec.commands.properties_cmds import mutants

    r = CliRunner().invoke(mutants, ["--only", "refusal_keeps_input"])
    assert r.exit_code == 0, r.output
    assert "[mutants] 0/1" in r.stderr and "[mutants] 1/1 done 1 killed" in r.stderr
    assert r.stdout.strip().splitlines()[-1] == "1/1 killed"


def test_explore_shows_progress_and_ends_with_the_census(tmp_path) -> None:
    from guardspec.commands.properties_cmds import explore

    r = CliRunner().invoke(explore, ["--examples", "5", "--seed", "3", "--profile", "ci", "--save", str(tmp_path)])
    assert r.exit_code in (0, 1), r.output  # 1: a property failed (tests/test_properties_* judge that); the display is checked here
    assert "[explore (ci, guarded)] 0/" in r.stderr and " done " in r.stderr
    assert "shape census of the calls' scenarios" in r.stdout and "tool state" in r.stdout


def test_prove_shows_progress_per_claim() -> None:
    from guardspec.commands.prove_cmds import prove

    r = CliRunner().invoke(prove, ["--messages", "2", "--processors", "1", "--ops", "1", "--invariant", "I1", "--invariant", "I2"])
    assert "[prove (guarded)] 0/2" in r.stderr and "[prove (guarded)] 2/2 done" in r.stderr
    assert "z3 time" in r.stdout


def test_bench_shows_progress_and_its_figures(monkeypatch) -> None:
    from guardspec import cli

    monkeypatch.setattr(cli, "_sections", lambda hook: [])  # the other sections are measured elsewhere
    r = CliRunner().invoke(cli.main, ["bench", "--seconds", "0.05"])
    assert r.exit_code == 0, r.output
    assert "[bench] 0/2" in r.stderr and "[bench] 2/2 done" in r.stderr
    assert "calls/s" in r.stdout and "memory: median peak" in r.stdout
    assert "s of a 110 s budget" in r.stdout.splitlines()[-1]
