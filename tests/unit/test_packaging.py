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
    # Built from a copy of the sources, so that no build/ tree left in the checkout (or written by
    # another build at the same time) can take part in it.
    src = tmp / "src-copy"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pyproject.toml", "README.md"):
        src.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    for name in ("src", "model", "reference", "properties"):
        shutil.copytree(ROOT / name, src / name, ignore=skip)
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(tmp), str(src)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = tmp.glob("guardspec-*.whl")
    return wheel


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
