"""``guardspec diff --shard I/N`` and ``guardspec merge``: the shards of a campaign, run apart
(a CI matrix) and merged, give the verdict per case, the counts and the shrunk cases of the
unsharded run of the same seed; a malformed shard, or a merge of folders that are not the
complete shards of one campaign, is a usage error (exit 2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardspec.commands.conformance_cmds import _main
from guardspec.conformance.serve import serve_command
from guardspec.conformance.shards import shard_cases

MUTANT = " ".join(serve_command("refusal_keeps_input"))
ECHO = f"{sys.executable} -m guardspec.conformance.echo"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(_main, list(args))
    return r.exit_code, r.stdout, r.stderr


def cases(out: Path) -> dict:
    got = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["type"] == "case":
            got[(r["case"], r["mode"])] = (r["status"], r.get("signature"))
    return got


def shrunk(out: Path) -> dict:
    recs = [json.loads(l) for l in (out / "results.jsonl").read_text().splitlines()]
    return {r["signature"]: (r["case"], r["mode"], r["vector"]) for r in recs if r["type"] == "shrunk"}


@pytest.mark.parametrize("shard", ["3/2", "2/2", "x", "1/0", "-1/2", "1/2/3", ""])
def test_a_malformed_shard_is_a_usage_error(shard: str) -> None:
    code, _, err = run("diff", "--impl", ECHO, "--shard", shard)
    assert code == 2 and "--shard" in err and "0 <= I < N" in err


def test_the_shards_partition_the_cases() -> None:
    for n, k in ((0, 1), (7, 1), (7, 3), (10, 4), (3, 5)):
        got = [shard_cases(n, (i, k)) for i in range(k)]
        assert sorted(c for s in got for c in s) == list(range(n))
        assert all(all(c % k == i for c in s) for i, s in enumerate(got))


@pytest.mark.slow
def test_merged_shards_equal_the_unsharded_run(tmp_path: Path) -> None:
    common = ["--impl", MUTANT, "--seed", "3", "--examples", "40", "--mode", "guarded", "--shrink-seconds", "3", "--json"]
    code, out, _ = run("diff", *common, "--jobs", "2", "--out", str(tmp_path / "whole"))
    whole = json.loads(out)
    assert code == 1 and whole["counts"]["agree"] and whole["counts"]["disagree"]  # both kinds of verdict
    for i in range(2):
        code, out, _ = run("diff", *common, "--shard", f"{i}/2", "--out", str(tmp_path / f"s{i}"))
        part = json.loads(out)
        assert part["shard"] == [i, 2] and part["cases"] == 20
    code, out, _ = run("merge", str(tmp_path / "m"), str(tmp_path / "s0"), str(tmp_path / "s1"), "--json")
    merged = json.loads(out)
    assert code == 1
    assert cases(tmp_path / "m") == cases(tmp_path / "whole")
    assert (merged["counts"], merged["byLoop"], merged["cases"]) == (whole["counts"], whole["byLoop"], whole["cases"])
    # each distinct disagreement shrunk from the same smallest case (shrinking itself is bounded
    # in time, so what it reaches may differ), its vector copied into the merged folder
    m, w = shrunk(tmp_path / "m"), shrunk(tmp_path / "whole")
    assert {s: c[:2] for s, c in m.items()} == {s: c[:2] for s, c in w.items()} and m
    assert all(Path(v).parent == tmp_path / "m" / "vectors" and Path(v).is_file() for _, _, v in m.values())
    # the merged folder is the whole campaign's: `diff` resumes it with nothing left to run
    code, out, _ = run("diff", *common, "--out", str(tmp_path / "m"))
    assert json.loads(out)["resumed"] == 40


@pytest.mark.slow
def test_a_merge_of_folders_not_the_shards_of_one_campaign_is_refused(tmp_path: Path) -> None:
    def shard(name: str, *args: str) -> Path:
        out = tmp_path / name
        code, _, err = run("diff", "--impl", ECHO, "--examples", "4", "--no-shrink", "--out", str(out), *args)
        assert code in (0, 1), err  # the campaign ran (the echo agrees where the model answers)
        assert (out / "results.jsonl").exists()
        return out

    a0, a1 = shard("a0", "--shard", "0/2"), shard("a1", "--shard", "1/2")
    other_seed = shard("b1", "--shard", "1/2", "--seed", "9")
    other_modes = shard("c1", "--shard", "1/2", "--mode", "raw")
    three = shard("d1", "--shard", "1/3")
    whole = shard("w")
    refused = {
        "seed 9, unlike": [a0, other_seed],
        'modes ["raw"], unlike': [a0, other_modes],
        "shard 1/3, unlike": [a0, three],
        "shards 1/2 missing": [a0],
        "again": [a0, a0],
        "holds a whole campaign": [a0, whole],
        "no results.jsonl": [a0, tmp_path / "nothing"],
    }
    for why, folders in refused.items():
        code, _, err = run("merge", str(tmp_path / "m"), *map(str, folders))
        assert code == 2 and why in err, (why, err)
    # an implementation of another command line
    other_impl = tmp_path / "e1"
    code, _, _ = run(
        "diff",
        "--impl",
        f"{sys.executable} -X utf8 -m guardspec.conformance.echo",
        "--examples",
        "4",
        "--no-shrink",
        "--out",
        str(other_impl),
        "--shard",
        "1/2",
    )
    code, _, err = run("merge", str(tmp_path / "m"), str(a0), str(other_impl))
    assert code == 2 and "impl" in err
    # a shard interrupted before its end
    lines = (a1 / "results.jsonl").read_text().splitlines()
    (a1 / "results.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    code, _, err = run("merge", str(tmp_path / "m"), str(a0), str(a1))
    assert code == 2 and "3 of its 4 cases judged" in err
    assert not (tmp_path / "m" / "results.jsonl").exists()
    # complete again: merged; a second merge into the same folder is refused
    (a1 / "results.jsonl").write_text("\n".join(lines) + "\n")
    assert run("merge", str(tmp_path / "m"), str(a0), str(a1))[0] == 1
    code, _, err = run("merge", str(tmp_path / "m"), str(a0), str(a1))
    assert code == 2 and "already holds results" in err
