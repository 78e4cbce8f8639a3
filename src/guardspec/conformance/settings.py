"""A differential campaign's settings (``Config``) and the error of bad arguments or input files
(``BadArguments``, exit 2)."""

from __future__ import annotations

from pathlib import Path

from attrs import define, field

from .compare import Comparison


class BadArguments(ValueError):
    """Exit 2: what is wrong with the arguments or an input file (JSON path: expected)."""


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


__all__ = ["BadArguments", "Config"]
