"""The harness survives its adapter: a crashing and a hanging adapter (docs/protocol.md)."""

from __future__ import annotations

import json

import pytest

from guardspec.mastra.client import AdapterCrashed, AdapterTimeout, MastraClient, adapter_available, repo_root

pytestmark = [pytest.mark.node, pytest.mark.skipif(not adapter_available(), reason="node / adapters/mastra node_modules missing")]


def _schemas():
    import jsonschema
    from referencing import Registry, Resource

    from guardspec.model import codec

    reg = Registry()
    for name in ("scenario", "observation"):
        s = codec.schema(name)
        reg = reg.with_resource(s["$id"], Resource.from_contents(s))
    out = {}
    for name in ("request", "reply"):
        s = json.loads((repo_root() / "docs" / "schemas" / f"{name}.schema.json").read_text())
        out[name] = jsonschema.Draft202012Validator(s, registry=reg)
    return out


def test_crash_is_recorded_and_the_adapter_restarted() -> None:
    with MastraClient(timeout=20) as c:
        c.start()
        first = c.pid
        with pytest.raises(AdapterCrashed):
            c.request({"kind": "crash"})
        assert [i.kind for i in c.incidents] == ["crashed"]
        assert c.pid != first and c.restarts == 1
        assert c.request({"kind": "hello"})["protocol"] == 1


def test_hang_times_out_and_the_next_request_is_answered() -> None:
    with MastraClient(timeout=20) as c:
        with pytest.raises(AdapterTimeout):
            c.request({"kind": "hang"}, timeout=1.0)
        assert c.incidents[-1].kind == "timeout"
        r = c.ops([{"op": "view", "name": "all"}])
        assert r["status"] == "ok" and r["results"] == [{"ok": True, "value": []}]


def test_dead_command_is_reported() -> None:
    c = MastraClient(command=["node", "-e", "process.exit(3)"], start_timeout=5)
    with pytest.raises(AdapterCrashed):
        c.request({"kind": "hello"})
    c.close()


def test_requests_and_replies_follow_the_published_schemas() -> None:
    v = _schemas()
    scenario = {
        "guardspec": 1,
        "agent": {"id": "agent"},
        "call": {"loop": "generate", "messages": ["hi"], "actor": {"id": "a", "role": "operator", "kind": "human"}},
    }
    reqs = [
        {"id": 1, "kind": "hello"},
        {"id": 2, "kind": "run", "mode": "raw", "scenario": scenario},
        {"id": 3, "kind": "run", "mode": "guarded", "scenario": scenario},
    ]
    with MastraClient() as c:
        for r in reqs:
            v["request"].validate(r)
            reply = c.request({k: x for k, x in r.items() if k != "id"})
            v["reply"].validate(reply)
        bad = c.request({"kind": "run", "mode": "sideways", "scenario": scenario})
        assert bad["status"] == "errored" and bad["detail"].startswith("$.mode")


@pytest.mark.parametrize(
    "metadata, reported",
    [
        ({"$class": "Klass"}, {"$class": "Klass", "props": {}}),
        ({"$class": "Klass", "props": {"a": 1}}, {"$class": "Klass", "props": {"a": 1}}),
        ({}, None),
    ],
)
def test_the_adapter_reports_only_a_plain_empty_metadata_as_none(metadata, reported) -> None:
    # docs/protocol.md: the adapter reports a message's `content.metadata` `{}` as none, and the
    # normaliser folds `{}` alike; an empty class instance is a value of its own (diff --seed
    # 20261211 stream cases 163-165 had it reported as absent)
    n1 = {"id": "n1", "role": "user", "parts": [{"type": "text", "text": "hi"}], "metadata": metadata}
    p1 = {"id": "p1", "steps": [{"op": "add", "entries": [n1]}]}
    scenario = {"guardspec": 1, "agent": {"processors": [p1]}, "call": {"loop": "generate", "actor": {"id": "a", "role": "operator"}}}
    with MastraClient() as c:
        reply = c.run(scenario)
    listed = [e["message"] for e in reply["observation"]["list"]["messages"] if e["message"]["id"] == "n1"]
    assert len(listed) == 1
    assert listed[0].get("metadata") == reported
