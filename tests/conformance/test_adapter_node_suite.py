"""The Mastra adapter's own Node tests (adapters/mastra/test: the server's smoke test, the
completion tracker, the JSON-lines loop, the scenario clock, overlapping runs), run as part of
the suite so that CI runs them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from guardspec.mastra.client import adapter_available

pytestmark = pytest.mark.node

ADAPTER = Path(__file__).resolve().parents[2] / "adapters" / "mastra"


def test_the_adapters_node_tests_pass() -> None:
    if not adapter_available():
        pytest.skip("needs node and `npm ci` in adapters/mastra")
    tests = sorted(str(p) for p in (ADAPTER / "test").glob("*.mjs"))
    done = subprocess.run(["node", "--test", *tests], cwd=ADAPTER, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    assert "# fail 0" in done.stdout
