"""The campaign figure of ``guardspec bench``: a short campaign on the Mastra adapter, every
reply's ``busyMs`` summed beside the campaign's wall time (docs/protocol.md "Busy time")."""

from __future__ import annotations

import pytest

from guardspec.mastra.bench import campaign_busy
from guardspec.mastra.client import adapter_available
from guardspec.mastra.diff import mastra_command

pytestmark = pytest.mark.node


def test_a_short_campaign_sums_every_replys_busy_time() -> None:
    if not adapter_available():
        pytest.skip("needs node and `npm ci` in adapters/mastra")
    f = campaign_busy(mastra_command(), "raw", seconds=0.5, draw=20)
    assert f["cases"] >= 4 and f["counts"] == {"agree": f["cases"]}
    assert f["busy_replies"] == f["cases"]  # every run reply carries busyMs
    # requests overlap inside the adapter, but busy spans never do: the sum lies within the wall
    assert 0 < f["busy_seconds"] <= f["seconds"] + 0.01
    assert f["normalise"] == "mastra"  # as the adapter declares
