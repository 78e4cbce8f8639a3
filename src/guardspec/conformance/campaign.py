"""``guardspec diff``: a differential campaign of an implementation against the model.

Scenarios come from the Hypothesis strategies (``properties/strategies/``), drawn from a seed
so that a campaign is the same list of cases every time; each case (scenario × mode) runs on
both sides and is judged (``cases.judge``). Every verdict is appended to ``results.jsonl`` as it
comes, so an interrupted campaign loses nothing: started again with the same seed and size it
skips the cases already judged. Each distinct disagreement (mode and first differing field, or
kind of problem) is then shrunk (``shrink.py``) and written as a conformance vector with its
``explain`` rendering.
"""

from __future__ import annotations

import io
import json
import queue
import threading
import time
from pathlib import Path
from typing import Any, Callable

from attrs import define, field

from guardspec.model import codec

from .census import census_of
from .cases import loop_of, Verdict, judge, message_count, model_observation, processor_count, scenario_hash
from .compare import Comparison
from .impl import Answer, Impl, StartFailed
from .shrink import shrink, size
from .wire import Problem

RESULTS = "results.jsonl"
STRATEGY = "scenarios(campaign_swarms(max_calls=1)), odd outcomes, distinct"
NOT_SHRUNK = frozenset({"timeout", "start-failed"})


class BadArguments(ValueError):
    """Exit 2: what is wrong with the arguments or an input file (JSON path: expected)."""


# -- the cases ---------------------------------------------------------------------------------


def generate_scenarios(seed: int, n: int, tick: Callable[[int], None] | None = None) -> list[dict]:
    """``n`` distinct scenarios (JSON), the same for the same (seed, n); tool outcomes of
    other kinds mixed in after the draw (``with_odd_outcomes``, k58, k59)."""
    from guardspec.properties.strategies import campaign_swarms, scenarios
    from guardspec.properties.strategies.outcomes import with_odd_outcomes

    return draw_distinct(scenarios(campaign_swarms(max_calls=1)), seed, n, lambda s: with_odd_outcomes(codec.scenario_to_json(s)), tick)


ROUND = 25
"""Examples per Hypothesis run in ``draw_distinct``."""


def draw_distinct(strategy: Any, seed: int, n: int, to_json: Callable[[Any], Any], tick: Callable[[int], None] | None = None) -> list:
    """``n`` distinct JSON values drawn from a Hypothesis strategy, the same for the same
    (seed, n): the one way every campaign (diff, mastra-diff's op sequences) draws its cases.
    Hypothesis draws some values twice: each case is a new one. ``tick(drawn)`` now and then."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: list = []
    seen: set[str] = set()

    def round_(r: int, k: int) -> None:
        @hseed(seed if r == 0 else seed * 1000 + r)
        @settings(max_examples=k, database=None, deadline=None, derandomize=False, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck), print_blob=False)
        @given(strategy)
        def collect(x: Any) -> None:
            if len(out) >= n:
                return
            j = json.loads(json.dumps(to_json(x)))
            h = scenario_hash(j)
            if h not in seen:
                seen.add(h)
                out.append(j)
                if tick and len(out) % 50 == 0:
                    tick(len(out))

        collect()

    # Short rounds, each from its own seed: one long Hypothesis run mutates its earlier examples
    # and can leave a whole shape out of a campaign (seed 0 once drew no reasoning part and no
    # titling memory in 300 scenarios); short fresh runs keep the census full (issue 10 point 3).
    r = 0
    while len(out) < n and r < 8 + 4 * (n // ROUND + 1):
        missing = n - len(out)
        round_(r, min(ROUND, missing) + 2)
        r += 1
    return out


# -- known discrepancies -----------------------------------------------------------------------


def load_known(path: str | Path) -> list[dict]:
    """``{"guardspec": 1, "known": [{"signature": glob, "path"?: glob, "loop"?: str,
    "scenario"?: hash, "model"?: JSON, "impl"?: JSON, "outcome"?: object, "message"?: object,
    "reason": str}]}``; every entry must say why. ``model``/``impl``: the first difference's
    values, when the cause shows in them; ``outcome``: members the model's outcome must have
    (e.g. the refusing processor), when the cause shows in the model's outcome rather than in
    the difference; ``message``: what the message the first difference lies in must be
    (``message_facts``), when the cause is in the kind of message; ``read``:
    ``"withoutCallContext"`` when the cause is that the implementation did not read the call's
    context messages (``read_without_call_context``)."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise BadArguments(f"{path}: cannot read ({e.strerror})") from None
    except ValueError as e:
        raise BadArguments(f"{path}: $: valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("known"), list):
        raise BadArguments(f"{path}: $.known: an array of known discrepancies")
    for i, k in enumerate(data["known"]):
        where = f"{path}: $.known[{i}]"
        if not isinstance(k, dict):
            raise BadArguments(f"{where}: a JSON object")
        if not isinstance(k.get("signature"), str):
            raise BadArguments(f"{where}.signature: a string (a glob over '<mode>:<field or problem>')")
        if not isinstance(k.get("reason"), str) or not k["reason"].strip():
            raise BadArguments(f"{where}.reason: a non-empty string: why this discrepancy is accepted")
        for key in ("path", "loop", "scenario"):
            if key in k and not isinstance(k[key], str):
                raise BadArguments(f"{where}.{key}: a string")
        if "outcome" in k and not isinstance(k["outcome"], dict):
            raise BadArguments(f"{where}.outcome: an object (members of the model's outcome)")
        if "message" in k:
            m = k["message"]
            if not isinstance(m, dict) or not m or any(key not in MESSAGE_FACTS or not isinstance(val, bool) for key, val in m.items()):
                raise BadArguments(f"{where}.message: an object of booleans named {', '.join(MESSAGE_FACTS)}")
        if "read" in k and k["read"] not in READ_FACTS:
            raise BadArguments(f"{where}.read: one of {', '.join(repr(x) for x in READ_FACTS)}")
        extra = set(k) - {"signature", "path", "loop", "scenario", "model", "impl", "outcome", "message", "read", "reason"}
        if extra:
            raise BadArguments(f"{where}.{sorted(extra)[0]}: no unknown field")
    return data["known"]


def _path_glob(path: str, pattern: str) -> bool:
    """A known entry's ``path``: ``*`` matches any run of characters, everything else itself,
    so ``[]`` (an index, ``compare.coarse``) is literal (fnmatch would read it as a set)."""
    import re

    return re.fullmatch(".*".join(re.escape(p) for p in pattern.split("*")), path, re.S) is not None


MESSAGE_FACTS = ("remembered", "callerOutcome", "implUnsaved", "implRowUnsavedCarrier")
READ_FACTS = ("withoutCallContext",)


def read_without_call_context(model: Any, scenario: Any, impl: Any) -> bool:
    """A known entry's ``read: "withoutCallContext"``: the call has context messages and the
    implementation's ``read`` is the model's with the text of every context message taken out
    (each text part's text, as the lines the policies read it as: the last occurrence), and
    nothing else: the implementation did not read the call's context (BW-F5). False when either
    read is missing or a context text is not in the model's."""
    call = scenario.get("call") if isinstance(scenario, dict) else None
    mine = model.get("read") if isinstance(model, dict) else None
    theirs = impl.get("read") if isinstance(impl, dict) else None
    if not isinstance(call, dict) or not isinstance(mine, str) or not isinstance(theirs, str):
        return False
    texts = [
        p["text"]
        for m in call.get("context") or ()
        if isinstance(m, dict)
        for p in m.get("parts") or ()
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]
    if not texts:
        return False
    lines = mine.split("\n")
    for t in texts:
        want = t.split("\n")
        at = next((i for i in range(len(lines) - len(want), -1, -1) if lines[i : i + len(want)] == want), None)
        if at is None:
            return False
        del lines[at : at + len(want)]
    return "\n".join(lines) == theirs


def message_facts(v: Verdict, model: Any, scenario: Any, impl: Any = None) -> dict[str, bool] | None:
    """What a known entry's ``message`` asks of the message the first difference lies in: the
    element ``$.<field>[i]`` of the model's observation its path starts with (e.g.
    ``$.stored[1].parts[1].state``: the model's second stored message). ``remembered``: its id
    is a message of the thread the call is bound to, as stored before the call;
    ``callerOutcome``: the caller sends a message with its id holding a client tool part (a
    ``tool-invocation``: the caller's outcome for a stored call, SPEC M3); ``implUnsaved``: the
    implementation's observation ``impl`` stores a message with its id whose parts are those
    the thread held before the call (the call saved nothing of it; false without ``impl``);
    ``implRowUnsavedCarrier``: the implementation's own message at that index of that field is
    such an unsaved remembered message carrying the caller's outcome (the model saved something
    else there, e.g. the carrier moved later by a processor).
    None when the path names no message or the scenario binds no thread. A prompt path (``$.prompts[k][i]...``)
    names the model's ``i``-th entry of its ``k``-th prompt, by the id the model gives it."""
    import re

    path = v.differences[0].path if v.differences else ""
    p = re.match(r"\$\.prompts\[(\d+)\]\[(\d+)\]", path)
    m = re.match(r"\$\.(\w+)\[(\d+)\]", path)
    if m is None or not isinstance(model, dict) or not isinstance(scenario, dict):
        return None
    rows, i = model.get(m.group(1)), int(m.group(2))
    if p is not None:
        prompts = model.get("prompts")
        k = int(p.group(1))
        rows = prompts[k] if isinstance(prompts, list) and k < len(prompts) else None
        i = int(p.group(2))
    if not isinstance(rows, list) or i >= len(rows) or not isinstance(rows[i], dict) or not isinstance(rows[i].get("id"), str):
        return None
    mid, call = rows[i]["id"], scenario.get("call") or {}
    bound = (call.get("memory") or {}).get("thread")
    thread = next((t for t in scenario.get("threads") or () if isinstance(t, dict) and t.get("id") == bound), None)
    if thread is None:
        return None
    remembered = any(isinstance(x, dict) and x.get("id") == mid for x in thread.get("messages") or ())
    outcome = any(
        isinstance(x, dict) and x.get("id") == mid and any(isinstance(p, dict) and p.get("type") == "tool-invocation" for p in x.get("parts") or ())
        for x in call.get("messages") or ()
    )
    before = next((x.get("parts") for x in thread.get("messages") or () if isinstance(x, dict) and x.get("id") == mid), None)
    kept = impl.get("stored") if isinstance(impl, dict) else None
    unsaved = remembered and isinstance(kept, list) and any(isinstance(x, dict) and x.get("id") == mid and x.get("parts") == before for x in kept)
    impl_rows = impl.get(m.group(1)) if isinstance(impl, dict) and p is None else None
    row = impl_rows[i] if isinstance(impl_rows, list) and i < len(impl_rows) and isinstance(impl_rows[i], dict) else None
    row_id = row.get("id") if row is not None else None
    row_carrier = (
        row is not None
        and any(isinstance(x, dict) and x.get("id") == row_id and x.get("parts") == row.get("parts") for x in thread.get("messages") or ())
        and any(isinstance(x, dict) and x.get("id") == row_id and any(isinstance(q, dict) and q.get("type") == "tool-invocation" for q in x.get("parts") or ()) for x in call.get("messages") or ())
    )
    return {"remembered": remembered, "callerOutcome": outcome, "implUnsaved": unsaved, "implRowUnsavedCarrier": row_carrier}


def known_reason(known: list[dict], v: Verdict, loop: str, h: str, model: Any = None, scenario: Any = None, impl: Any = None) -> str | None:
    """The reason of the first entry of ``known`` the case matches (``load_known``), or None.
    ``model``: the model's observation (JSON), ``scenario``: the scenario (JSON), ``impl``: the
    implementation's observation (JSON); an entry that asks of them does not match without
    them."""
    from fnmatch import fnmatchcase

    from .compare import coarse

    for k in known:
        if not fnmatchcase(v.signature, k["signature"]):
            continue
        if "loop" in k and k["loop"] != loop:
            continue
        if "scenario" in k and k["scenario"] != h:
            continue
        if "path" in k:
            path = coarse(v.differences[0].path) if v.differences else (v.problem.path if v.problem else "")
            if not _path_glob(path, k["path"]):
                continue
        first = v.differences[0] if v.differences else None
        if any(side in k and (first is None or getattr(first, side) != k[side]) for side in ("model", "impl")):
            continue
        if "outcome" in k:
            outcome = model.get("outcome") if isinstance(model, dict) else None
            if not isinstance(outcome, dict) or any(outcome.get(key) != val for key, val in k["outcome"].items()):
                continue
        if "message" in k:
            facts = message_facts(v, model, scenario, impl)
            if facts is None or any(facts[key] != val for key, val in k["message"].items()):
                continue
        if k.get("read") == "withoutCallContext" and not read_without_call_context(model, scenario, impl):
            continue
        return k["reason"]
    return None


# -- the campaign ---------------------------------------------------------------------------------


@define
class Config:
    impl: str
    examples: int = 300
    seed: int = 0
    jobs: int = 1
    timeout: float = 10.0
    out: Path | None = None
    modes: tuple[str, ...] | None = None  # None: every mode the implementation declares
    comparison: Comparison = field(factory=Comparison)
    known: list = field(factory=list)
    shrink: bool = True
    shrink_seconds: float = 120.0
    window: int = 64
    chunk: int = 32


@define
class Found:
    """One distinct disagreement (or kind of problem): how often, and its shrunk vector."""

    signature: str
    count: int = 0
    first: dict | None = None  # the record of the smallest case
    first_size: int = 1 << 30
    vector: str | None = None
    explain: str | None = None
    messages: int | None = None
    processors: int | None = None
    tried: int = 0
    line: str = ""


@define
class Report:
    config: Config
    hello: dict | None = None
    counts: dict = field(factory=dict)
    by_loop: dict = field(factory=dict)  # loop -> {status: count}
    found: dict = field(factory=dict)  # signature -> Found
    problems: list = field(factory=list)  # records of problem cases
    model_errors: list = field(factory=list)  # cases the reference itself failed on: not judged
    cases: int = 0
    resumed: int = 0
    seconds: float = 0.0
    incidents: list = field(factory=list)
    first_disagreement_at: int | None = None  # 1-based example number
    census: Any = None  # census.Census of the campaign's scenarios

    @property
    def ok(self) -> bool:
        return not self.counts.get("disagree") and not self.counts.get("problem")


def _results_path(cfg: Config) -> Path | None:
    return cfg.out / RESULTS if cfg.out else None


def _header(cfg: Config, modes: tuple[str, ...]) -> dict:
    return {"type": "campaign", "guardspec": 1, "seed": cfg.seed, "examples": cfg.examples, "strategy": STRATEGY, "impl": cfg.impl, "modes": list(modes)}


def _read_results(path: Path, cfg: Config) -> tuple[dict | None, dict, dict]:
    """(header, case records by (case, mode), shrunk records by signature) of an earlier run."""
    header, cases, shrunk = None, {}, {}
    if not path.exists():
        return header, cases, shrunk
    for n, line in enumerate(path.read_text().splitlines()):
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut short by an interruption
        if not isinstance(rec, dict):
            continue
        if rec.get("type") == "campaign" and header is None:
            header = rec
        elif rec.get("type") == "case":
            cases[(rec.get("case"), rec.get("mode"))] = rec
        elif rec.get("type") == "shrunk":
            shrunk[rec.get("signature")] = rec
    if header is not None and (header.get("seed"), header.get("examples"), header.get("strategy")) != (cfg.seed, cfg.examples, STRATEGY):
        raise BadArguments(
            f"{path}: belongs to another campaign (seed {header.get('seed')}, {header.get('examples')} examples); "
            "use another --out, or the same --seed and --examples to resume it"
        )
    return header, cases, shrunk


class _Writer:
    """Appends records to the results file, one JSON line each, flushed at once."""

    def __init__(self, path: Path | None) -> None:
        self.lock = threading.Lock()
        self.f = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.f = open(path, "a", encoding="utf-8")

    def write(self, rec: dict) -> None:
        if self.f is None:
            return
        with self.lock:
            self.f.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.f.flush()

    def close(self) -> None:
        if self.f:
            self.f.close()


def _modes(cfg: Config, hello: dict) -> tuple[str, ...]:
    have = tuple(m for m in ("guarded", "raw") if m in hello.get("modes", ["raw", "guarded"]))
    if cfg.modes is None:
        return have
    missing = [m for m in cfg.modes if m not in have]
    if missing:
        raise BadArguments(f"--mode {missing[0]}: the implementation declares modes {list(have)}")
    return tuple(cfg.modes)


def run_campaign(cfg: Config, progress: Callable[[int, dict], None] | None = None, on_start: Callable[[int, int], None] | None = None,
                 on_shrink: Callable[[int, int, str], None] | None = None, on_generate: Callable[[int], None] | None = None) -> Report:
    """Run the campaign. ``on_generate(drawn)`` while the scenarios are drawn,
    ``on_start(total, already_done)``, then ``progress(done, counts)``;
    ``on_shrink(done, total, signature)`` before each shrink and once after the last."""
    t0 = time.perf_counter()
    report = Report(cfg)
    probe = Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window)
    try:
        hello = probe.start()
    except StartFailed as e:
        raise BadArguments(f"--impl {cfg.impl!r}: {e.problem.path}: {e.problem.expected}" + (f"\n{e.stderr}" if e.stderr else "")) from None
    report.hello = hello
    modes = _modes(cfg, hello)
    rpath = _results_path(cfg)
    header, done, shrunk_before = _read_results(rpath, cfg) if rpath else (None, {}, {})
    writer = _Writer(rpath)
    if header is None:
        writer.write(_header(cfg, modes))
    scenarios = generate_scenarios(cfg.seed, cfg.examples, on_generate)
    hashes = [scenario_hash(s) for s in scenarios]
    todo: list[tuple[int, str]] = []
    records: list[dict] = []
    for i, h in enumerate(hashes):
        for m in modes:
            rec = done.get((i, m))
            if rec is not None and rec.get("hash") == h:
                records.append(rec)
            else:
                todo.append((i, m))
    report.resumed = len(records)
    total = len(todo) + len(records)
    if on_start:
        on_start(total, len(records))
    counts: dict[str, int] = {}
    for rec in records:
        counts[rec["status"]] = counts.get(rec["status"], 0) + 1
    lock = threading.Lock()
    chunks: queue.Queue = queue.Queue()
    for k in range(0, len(todo), cfg.chunk):
        chunks.put(todo[k : k + cfg.chunk])

    def work(impl: Impl) -> None:
        while True:
            try:
                chunk = chunks.get_nowait()
            except queue.Empty:
                return
            reqs, models = [], []
            for i, m in chunk:
                try:
                    models.append(model_observation(scenarios[i], m))
                except Exception as e:  # the reference failed: the case is reported, not the run
                    models.append(Problem("model-error", "$", f"{type(e).__name__}: {e}"))
                reqs.append({"kind": "run", "mode": m, "scenario": scenarios[i]})
            answers = impl.exchange(reqs)
            for (i, m), mo, ans in zip(chunk, models, answers):
                loop = loop_of(scenarios[i])
                if isinstance(mo, Problem):
                    v = Verdict("model-error", f"{m}:model-error", problem=mo)
                else:
                    v = judge(scenarios[i], m, mo, ans, cfg.comparison, impl.hello or hello, loop)
                rec = {"type": "case", "case": i, "mode": m, "loop": loop, "hash": hashes[i], **v.to_json(), "seconds": round(ans.seconds, 4)}
                if v.status in ("disagree", "problem"):
                    observed = ans.reply.get("observation") if isinstance(ans.reply, dict) else None
                    why = known_reason(cfg.known, v, loop, hashes[i], mo, scenarios[i], observed)
                    if why is not None:
                        rec["status"], rec["known"] = "known", why
                    elif isinstance(ans.reply, dict) and v.status == "disagree":
                        rec["implObservation"] = ans.reply.get("observation")
                writer.write(rec)
                with lock:
                    records.append(rec)
                    counts[rec["status"]] = counts.get(rec["status"], 0) + 1
                    if progress:
                        progress(len(records), dict(counts))

    impls = [probe] + [Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window) for _ in range(max(0, cfg.jobs - 1))]
    try:
        threads = [threading.Thread(target=work, args=(im,), daemon=True) for im in impls]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for im in impls:
            report.incidents.extend(im.incidents)
    finally:
        for im in impls:
            im.close()
    report.counts = counts
    report.cases = len(records)
    report.census = census_of(scenarios)
    _collect(report, records, scenarios)
    if cfg.shrink:
        _shrink_all(report, scenarios, hello, writer, shrunk_before, on_shrink)
    writer.close()
    report.seconds = time.perf_counter() - t0
    return report


def _collect(report: Report, records: list[dict], scenarios: list[dict]) -> None:
    for rec in sorted(records, key=lambda r: (r["case"], r["mode"])):
        per = report.by_loop.setdefault(rec.get("loop", "generate"), {})
        per[rec["status"]] = per.get(rec["status"], 0) + 1
        if rec["status"] == "model-error":
            report.model_errors.append(rec)
        if rec["status"] not in ("disagree", "problem"):
            continue
        if rec["status"] == "problem":
            report.problems.append(rec)
        if rec["status"] == "disagree" and report.first_disagreement_at is None:
            report.first_disagreement_at = rec["case"] + 1
        f = report.found.setdefault(rec["signature"], Found(rec["signature"]))
        f.count += 1
        s = size(scenarios[rec["case"]])
        if s < f.first_size:
            f.first, f.first_size = rec, s
            d = rec.get("differences")
            f.line = (f"{d[0]['path']}: model {json.dumps(d[0].get('expected') or d[0]['model'])[:90]} | impl {json.dumps(d[0]['impl'])[:90]}" if d
                      else f"{rec['problem']['path']}: {rec['problem']['expected']}"[:200])


def _shrink_all(report: Report, scenarios: list[dict], hello: dict, writer: _Writer, before: dict,
                on_shrink: Callable[[int, int, str], None] | None = None) -> None:
    cfg = report.config
    for k, (sig, f) in enumerate(report.found.items()):
        if on_shrink:
            on_shrink(k, len(report.found), sig)
        if sig in before:
            b = before[sig]
            f.vector, f.explain, f.messages, f.processors, f.tried = b.get("vector"), b.get("explain"), b.get("messages"), b.get("processors"), b.get("tried", 0)
            continue
        rec = f.first
        assert rec is not None
        if rec["status"] == "problem" and rec["problem"]["kind"] in NOT_SHRUNK:
            continue
        mode = rec["mode"]
        with Impl(cfg.impl, timeout=cfg.timeout, window=cfg.window) as impl:
            try:
                impl.start()
            except StartFailed:
                continue
            small, tried = scenarios[rec["case"]], 0
            again = run_one(small, mode, impl, cfg)
            if again is not None and again[0].signature == sig:  # else not reproduced: kept whole
                small, tried = shrink_case(small, mode, again[0].cause(), impl, cfg)
            final = run_one(small, mode, impl, cfg)
        f.messages, f.processors, f.tried = message_count(small), processor_count(small), tried
        if cfg.out is not None and final is not None:
            v, mo, ans = final
            f.vector, f.explain = write_vector(cfg.out / "vectors", small, mode, sig, mo, ans, v, cfg, rec)
        writer.write({"type": "shrunk", "signature": sig, "case": rec["case"], "mode": mode, "vector": f.vector, "explain": f.explain,
                      "messages": f.messages, "processors": f.processors, "tried": tried})
    if on_shrink and report.found:
        on_shrink(len(report.found), len(report.found), "")


def run_one(sj: dict, mode: str, impl: Impl, cfg: Config) -> tuple[Verdict, dict, Answer] | None:
    try:
        mo = model_observation(sj, mode)
    except Exception:
        return None
    ans = impl.exchange([{"kind": "run", "mode": mode, "scenario": sj}])[0]
    return judge(sj, mode, mo, ans, cfg.comparison, impl.hello, loop_of(sj)), mo, ans


def shrink_case(sj: dict, mode: str, cause: tuple, impl: Impl, cfg: Config) -> tuple[dict, int]:
    """The smallest scenario found that still shows ``cause`` (``Verdict.cause``): the same
    first differing path and the same values there, not merely the same field."""

    def still_fails(batch: list[dict]) -> list[bool]:
        oks = [False] * len(batch)
        valid, models = [], []
        for k, c in enumerate(batch):
            try:
                models.append(model_observation(c, mode))
                valid.append(k)
            except Exception:
                continue
        if not valid:
            return oks
        answers = impl.exchange([{"kind": "run", "mode": mode, "scenario": batch[k]} for k in valid])
        for k, mo, ans in zip(valid, models, answers):
            v = judge(batch[k], mode, mo, ans, cfg.comparison, impl.hello, loop_of(batch[k]))
            oks[k] = v.cause() == cause
        return oks

    return shrink(sj, still_fails, seconds=cfg.shrink_seconds)


def _safe(s: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in s).strip("-")[:60]


def explain_text(sj: dict, mode: str, header: list[str]) -> str:
    from rich.console import Console

    from guardspec.explain import explain
    from guardspec.model.scenario import Mode

    con = Console(record=True, width=120, file=io.StringIO(), color_system=None)
    for h in header:
        con.print(h, markup=False, highlight=False)
    try:
        con.print(explain(codec.scenario_from_json(sj), Mode(mode)))
    except Exception as e:  # the campaign keeps its vector even when explain cannot render it
        con.print(f"(explain failed on this scenario: {type(e).__name__}: {e})", markup=False, highlight=False)
    return con.export_text()


def write_vector(out: Path, sj: dict, mode: str, sig: str, model_obs: dict, ans: Answer, v: Verdict, cfg: Config, rec: dict) -> tuple[str, str]:
    """The shrunk case as a conformance vector (vectors.py format) plus its explain text."""
    from .vectors import infer_clauses

    out.mkdir(parents=True, exist_ok=True)
    h = scenario_hash(sj)
    stem = f"{_safe(sig)}-{h}"
    name = f"diff-{stem}"
    vec = {
        "guardspec": 1,
        "kind": "conformance-vector",
        "name": name,
        "clauses": infer_clauses(sj, model_obs),
        "note": f"Found by `guardspec diff --seed {cfg.seed}` (case {rec['case']}), shrunk: {v.line()}",
        "scenario": {k: x for k, x in sj.items() if k not in ("name", "note", "clauses")},
        "expect": {mode: model_obs},
        "found": {
            "impl": cfg.impl,
            "signature": sig,
            "case": rec["case"],
            "seed": cfg.seed,
            "verdict": v.to_json(),
            "implReply": ans.reply,
        },
    }
    vpath = out / f"{stem}.json"
    vpath.write_text(json.dumps(vec, indent=2, ensure_ascii=False) + "\n")
    opts = f" --mode {mode}" + (f" --normalise {cfg.comparison.normalise}" if cfg.comparison.normalise != "ids" else "")
    header = [f"disagreement {sig} — {cfg.impl}", f"replay: guardspec vectors check --impl {json.dumps(cfg.impl)}{opts} {vpath}"]
    header += ["  " + d.line() for d in v.differences] or ["  " + v.line()]
    header.append("")
    header.append("model's trace:")
    tpath = out / f"{stem}.txt"
    tpath.write_text(explain_text(sj, mode, header))
    return str(vpath), str(tpath)


__all__ = ["Config", "Report", "Found", "BadArguments", "run_campaign", "generate_scenarios", "draw_distinct", "load_known", "RESULTS"]
