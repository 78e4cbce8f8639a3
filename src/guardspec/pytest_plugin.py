"""A pytest plugin: ``pytest --guardspec-impl "CMD"`` checks an implementation against the model
in another project's CI (docs/protocol.md "In CI").

It adds one test per conformance vector and mode (``guardspec::vector::<name>[<mode>]``) and
one bounded differential campaign (``guardspec::diff[seed=S,examples=N]``). Without
``--guardspec-impl`` it adds nothing, so having it installed costs other test runs nothing.

With ``--guardspec-known FILE`` a vector test whose case a known entry matches (its recorded
deviation, field by field: ``conformance/known.py``) passes as an expected deviation: the test
gets the user property ``guardspec_expected_deviation`` (the finding's id) and the terminal
summary lists each one; any other difference still fails.

Registered through the ``pytest11`` entry point ``guardspec``; or ``-p guardspec.pytest_plugin``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: Any) -> None:
    g = parser.getgroup("guardspec", "guardspec differential conformance")
    g.addoption("--guardspec-impl", default=None, metavar="CMD", help="The implementation's command line (protocol 1 on stdin/stdout).")
    g.addoption("--guardspec-vectors", default=None, metavar="DIR", help="Conformance vectors (default: guardspec's vectors/conformance).")
    g.addoption("--guardspec-examples", type=int, default=200, help="Generated scenarios in the differential campaign (0: none).")
    g.addoption("--guardspec-seed", type=int, default=0)
    g.addoption("--guardspec-timeout", type=float, default=10.0, help="Seconds per case.")
    g.addoption("--guardspec-mode", action="append", default=[], choices=["guarded", "raw"], help="Modes to check (default: all declared).")
    g.addoption("--guardspec-compare", action="append", default=[], metavar="FIELD=MODE", help="Per-field comparison: full, ids, ignore.")
    g.addoption(
        "--guardspec-normalise",
        default=None,
        choices=["ids", "mastra", "none"],
        help="Renaming of implementation-chosen values (default: what the implementation's hello declares, else ids).",
    )
    g.addoption("--guardspec-known", default=None, metavar="FILE", help="Known discrepancies (each with its reason).")
    g.addoption("--guardspec-out", default=None, metavar="DIR", help="Where the campaign's results.jsonl and shrunk vectors go.")


class _Shared:
    """One implementation process for all vector tests of the session."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.impl: Any = None
        self.rows: dict | None = None
        self.chosen: Any = None  # settings.ChosenComparison, once known
        self.expected: list[tuple[str, str]] = []  # (test name, finding) of each expected deviation

    def known(self) -> list:
        """``--guardspec-known``'s entries (``BadArguments`` names the JSON path of what is wrong)."""
        from guardspec.conformance.known import load_known

        f = self.config.getoption("guardspec_known")
        return load_known(f) if f else []

    def hello(self) -> dict:
        """The implementation's start message: the vector tests' process's, else a probe's."""
        from guardspec.conformance.settings import implementation_hello

        if self.impl is not None and self.impl.hello is not None:
            return self.impl.hello
        return implementation_hello(self.config.getoption("guardspec_impl"), self.config.getoption("guardspec_timeout"))

    def comparison(self, hello: dict) -> Any:
        """What the implementation declares, under ``--guardspec-compare`` / ``--guardspec-normalise``;
        ``BadArguments`` names the path of what is wrong."""
        from guardspec.conformance.settings import chosen_comparison

        fields = {}
        for c in self.config.getoption("guardspec_compare"):
            f, _, m = c.partition("=")
            fields[f.strip()] = m.strip()
        self.chosen = chosen_comparison(hello, None, fields, self.config.getoption("guardspec_normalise"), "--guardspec-normalise")
        return self.chosen.comparison

    def vector_rows(self, paths: list[Path], known: list) -> dict:
        """Every vector run once, in one pipelined batch; rows by (path, mode)."""
        if self.rows is None:
            from guardspec.conformance.impl import Impl
            from guardspec.conformance.vectors import check

            self.impl = Impl(self.config.getoption("guardspec_impl"), timeout=self.config.getoption("guardspec_timeout"))
            hello = self.impl.start()
            modes = tuple(self.config.getoption("guardspec_mode")) or None
            rows = check(self.impl, paths, self.comparison(hello), modes, against_model=False, known=known)
            self.rows = {(r.path, r.mode): r for r in rows}
        return self.rows

    def close(self) -> None:
        if self.impl is not None:
            self.impl.close()


def _vectors_dir(config: Any) -> Path | None:
    opt = config.getoption("guardspec_vectors")
    if opt:
        return Path(opt)
    from guardspec.mastra.client import repo_root

    p = repo_root() / "vectors" / "conformance"
    return p if p.is_dir() else None


class VectorItem(pytest.Item):
    def __init__(self, *, path_: Path, mode: str, shared: _Shared, **kw: Any) -> None:
        super().__init__(**kw)
        self.vector_path = path_
        self.mode = mode
        self.shared = shared

    def runtest(self) -> None:
        from guardspec.conformance.settings import BadArguments
        from guardspec.conformance.vectors import vector_paths

        root = _vectors_dir(self.config)
        try:
            known = self.shared.known()
        except BadArguments as e:
            raise VectorFailure(f"--guardspec-known: {e}") from None
        try:
            rows = self.shared.vector_rows(vector_paths([root]) if root else [], known)
        except BadArguments as e:
            raise VectorFailure(f"--guardspec-impl: {e}") from None
        r = rows.get((str(self.vector_path), self.mode)) or rows.get((str(self.vector_path), ""))
        if r is None:
            pytest.skip("not run (mode not selected)")
        if r.bad:
            raise VectorFailure(f"bad vector {self.vector_path}: {r.bad}")
        if r.verdict.status == "skipped":
            pytest.skip(f"the implementation skipped it: {r.verdict.reason}")
        if r.known:
            self.user_properties.append(("guardspec_expected_deviation", r.known))
            self.shared.expected.append((self.name, r.known))
            return
        if r.verdict.status != "agree":
            lines = [f"{self.vector_path} ({' '.join(r.clauses)}) in {self.mode} mode, loop {r.loop}: {r.verdict.status}"]
            lines += ["  " + d.line() for d in r.verdict.differences] or ["  " + r.verdict.line()]
            raise VectorFailure("\n".join(lines))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, VectorFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple:
        return self.vector_path, None, f"guardspec vector {self.name}"


class VectorFailure(Exception):
    pass


class CampaignItem(pytest.Item):
    def runtest(self) -> None:
        from guardspec.conformance.campaign import run_campaign
        from guardspec.conformance.known import load_known
        from guardspec.conformance.settings import BadArguments, Config

        c = self.config
        shared = c.stash[_SHARED_KEY]
        try:
            comparison = shared.comparison(shared.hello())
        except BadArguments as e:
            raise VectorFailure(f"--guardspec-impl: {e}") from None
        out = c.getoption("guardspec_out") or tempfile.mkdtemp(prefix="guardspec-diff-")
        known = load_known(c.getoption("guardspec_known")) if c.getoption("guardspec_known") else []
        cfg = Config(
            impl=c.getoption("guardspec_impl"),
            examples=c.getoption("guardspec_examples"),
            seed=c.getoption("guardspec_seed"),
            timeout=c.getoption("guardspec_timeout"),
            out=Path(out),
            modes=tuple(c.getoption("guardspec_mode")) or None,
            comparison=comparison,
            known=known,
            shrink_seconds=30.0,
        )
        try:
            report = run_campaign(cfg)
        except BadArguments as e:
            raise VectorFailure(str(e)) from None
        if not report.ok:
            lines = [f"{report.cases} cases: {json.dumps(report.counts)}; results in {Path(out) / 'results.jsonl'}"]
            for f in report.found.values():
                shrunk = f" — shrunk to {f.messages} messages, {f.processors} processors: {f.vector}" if f.vector else ""
                lines.append(f"  {f.signature} ×{f.count}: {f.line}{shrunk}")
            raise VectorFailure("\n".join(lines))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, VectorFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple:
        return Path("guardspec"), None, self.name


_SHARED_KEY = pytest.StashKey[_Shared]() if hasattr(pytest, "StashKey") else None


def pytest_collection_modifyitems(session: Any, config: Any, items: list) -> None:
    if not config.getoption("guardspec_impl"):
        return
    from guardspec.conformance.vectors import load_vector, vector_paths
    from guardspec.model.codec import FormatError

    shared = _Shared(config)
    config.stash[_SHARED_KEY] = shared
    root = _vectors_dir(config)
    for p in vector_paths([root]) if root else []:
        try:
            modes = list(load_vector(p).expect)
        except FormatError:
            modes = ["guarded"]  # reported by the test itself
        for m in modes:
            items.append(VectorItem.from_parent(session, name=f"guardspec::vector::{p.stem}[{m}]", path_=p, mode=m, shared=shared))
    n = config.getoption("guardspec_examples")
    if n > 0:
        items.append(CampaignItem.from_parent(session, name=f"guardspec::diff[seed={config.getoption('guardspec_seed')},examples={n}]"))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: Any, config: Any) -> None:
    """Which comparison the guardspec tests used, and where its normalisation came from."""
    shared = config.stash.get(_SHARED_KEY, None) if _SHARED_KEY is not None else None
    if shared is not None and shared.chosen is not None:
        terminalreporter.write_line(f"guardspec: {shared.chosen.line()}")
    for name, finding in shared.expected if shared is not None else ():
        terminalreporter.write_line(f"guardspec: expected deviation {finding}: {name}")


def pytest_unconfigure(config: Any) -> None:
    shared = config.stash.get(_SHARED_KEY, None) if _SHARED_KEY is not None else None
    if shared is not None:
        shared.close()
