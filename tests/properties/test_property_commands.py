from click.testing import CliRunner

from guardspec.commands.properties_cmds import explore, mutants
from guardspec.properties.mutants import MUTANTS


def test_mutants_list():
    r = CliRunner().invoke(mutants, ["--list"])
    assert r.exit_code == 0 and r.output.split() == list(MUTANTS)


def test_mutants_table_exit_zero_when_killed():
    r = CliRunner().invoke(mutants, ["--only", "refusal_keeps_input", "--only", "two_events_per_failure"])
    assert r.exit_code == 0, r.output
    assert "2/2 killed" in r.output


def test_mutants_exit_one_when_one_survives():
    r = CliRunner().invoke(mutants, ["--only", "policy_errors_ignored", "--budget", "6"])
    assert r.exit_code == 1 and "SURVIVED" in r.output


def test_explore_summary(tmp_path):
    r = CliRunner().invoke(explore, ["--examples", "10", "--seed", "3", "--profile", "ci", "--save", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "calls/s" in r.output


def test_explore_saves_a_failure_under_a_mutant(tmp_path):
    with MUTANTS["refused_durable_call_saved"].activate():
        r = CliRunner().invoke(explore, ["--examples", "40", "--seed", "1", "--profile", "ci", "--save", str(tmp_path)])
    assert r.exit_code == 1, r.output
    assert "FAILED" in r.output
    from guardspec.properties.report import load_vector

    seq, mode = load_vector(tmp_path / "counterexample.json")
    assert seq and mode == "guarded"
