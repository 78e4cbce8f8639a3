# Round-trip rate of the ops path over the pipe, measured from Python (run: python3 probes/bench-pipe.py).
import json, subprocess, time, os
here = os.path.dirname(os.path.abspath(__file__))
p = subprocess.Popen(["node", os.path.join(here, "..", "server.mjs")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
def db(i, role, at, parts): return {"id": i, "role": role, "createdAt": at, "content": {"format": 2, "parts": parts}}
t = lambda s: {"type": "text", "text": s}
tool = lambda st, **kw: {"type": "tool-invocation", "toolInvocation": {"state": st, "toolCallId": "tc1", "toolName": "getLocation", "args": {}, **kw}}
ops = [
    {"op": "addSystem", "message": "base", "tag": None},
    {"op": "add", "source": "input", "messages": db("a1", "assistant", 2000, [tool("result", result={"city": "Paris"})])},
    {"op": "add", "source": "input", "messages": db("n1", "user", 3000, [t("tell me")])},
    {"op": "add", "source": "memory", "messages": [db("u1", "user", 1000, [t("where")]), db("a1", "assistant", 2000, [t("let me check"), tool("call")])]},
    {"op": "checker"}, {"op": "getSource", "id": "a1"},
    {"op": "view", "name": "all"}, {"op": "view", "name": "remembered"}, {"op": "view", "name": "input"},
    {"op": "removeByIds", "ids": ["n1"]},
    {"op": "replaceAllSystemMessages", "messages": [{"role": "system", "content": "r1"}]},
    {"op": "clearInput"},
]
req = {"kind": "ops", "thread": {"threadId": "t1", "resourceId": "r1"}, "ops": ops}
def call(r):
    p.stdin.write(json.dumps(r) + "\n"); return json.loads(p.stdout.readline())
call({"id": 0, "kind": "hello"})
n = 3000
start = time.perf_counter()
for i in range(n):
    rep = call({**req, "id": i})
    assert rep["status"] == "ok", rep
elapsed = time.perf_counter() - start
print(f"pipe round trips (12-op sequence, full state reply): {n / elapsed:.0f}/s")
print("in-process bench-ops (no state):", call({"id": "b", "kind": "bench-ops", "count": 20000, **{k: v for k, v in req.items() if k != 'kind'}}))
print("in-process bench-ops (with state):", call({"id": "b2", "kind": "bench-ops", "count": 20000, "state": True, **{k: v for k, v in req.items() if k != 'kind'}}))
call({"id": "s", "kind": "stop"})
