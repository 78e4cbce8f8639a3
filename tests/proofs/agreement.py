"""The z3 encoding against the interpreter on one choice of every variable, shared by the
encoding tests (``test_prove_*``): what z3's model says is observed must be what running the
decoded scenario through the interpreter shows."""

from __future__ import annotations

from typing import Any

from guardspec.properties.harness import execute
from guardspec.properties.symbolic.decode import scenario
from guardspec.properties.symbolic.observe import disagreements, of_encoding, of_run
from guardspec.properties.symbolic.prove import encode
from guardspec.properties.symbolic.scope import Kind


def check(ch: Any, mode: str, scope: Any, *, in_scope: bool = False) -> Any:
    """None when the choices fall outside the encoded scope (an assertion error instead when
    ``in_scope`` is asked); otherwise the interpreter's execution, once its observation and the
    encoding's are asserted to agree."""
    e = encode(ch, mode)
    if not e.in_scope:
        assert not in_scope, f"outside the encoded scope: {ch}"
        return None
    ex = execute(scenario(ch), mode)
    d = disagreements(of_run(scope, ex), of_encoding(e))
    assert not d, f"{ch}\n" + "\n".join(d)
    return ex


def with_carrier_at_slot_1(ch: Any) -> dict:
    """The ``kind``, ``assistant`` and ``mark`` fields that put the carrier in slot 1 of random
    choices: any other carrier becomes a stored message, a carrier or result is an assistant
    message, an absent slot is unmarked."""
    kinds = tuple(int(Kind.CARRIER) if s == 1 else (int(Kind.STORED) if c == Kind.CARRIER else c) for s, c in enumerate(ch.kind))
    assistant = tuple(
        True if kinds[s] in (Kind.CARRIER, Kind.RESULT) else (a if kinds[s] == Kind.STORED else False) for s, a in enumerate(ch.assistant)
    )
    mark = tuple(m if kinds[s] != Kind.ABSENT else False for s, m in enumerate(ch.mark))
    return {"kind": kinds, "assistant": assistant, "mark": mark}
