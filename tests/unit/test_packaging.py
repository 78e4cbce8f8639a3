"""Installed, guardspec is one namespace: guardspec.model, guardspec.reference,
guardspec.properties, and a ``guardspec`` command; no generic top-level ``model``."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _wheel(tmp: Path) -> Path:
    # setuptools refuses to build over a bdist tree an earlier build left in the source's build/
    for stale in (ROOT / "build").glob("bdist.*"):
        shutil.rmtree(stale, ignore_errors=True)
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(tmp), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = tmp.glob("guardspec-*.whl")
    return wheel


# Both wheel builds write setuptools' build/ in the source tree: one worker runs them, in turn.
@pytest.mark.xdist_group("wheel")
def test_wheel_installs_only_the_guardspec_namespace(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert tops == {"guardspec"}
    for pkg in ("model", "reference", "reference/guard", "properties", "commands"):
        assert f"guardspec/{pkg}/__init__.py" in names
    assert "guardspec/model/schemas/scenario.schema.json" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "guardspec = guardspec.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


@pytest.mark.slow
@pytest.mark.xdist_group("wheel")
def test_wheel_in_a_fresh_venv_gives_the_command_and_no_top_level_model(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "w")
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    py = env / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    assert (env / "bin" / "guardspec").exists()
    probe = (
        "import importlib.util as u;"
        "print(u.find_spec('guardspec.reference') is not None, u.find_spec('model') is None, u.find_spec('reference') is None)"
    )
    out = subprocess.run([str(py), "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path).stdout.split()
    assert out == ["True", "True", "True"]
