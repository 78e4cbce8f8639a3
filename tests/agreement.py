"""The z3 encoding against the interpreter on one choice of every variable, shared by the
encoding tests (``test_prove_*``): what z3's model says is observed must be what running the
decoded scenario through the interpreter shows."""

from __future__ import annotations

from typing import Any

from guardspec.properties.harness import execute
from guardspec.properties.symbolic.decode import scenario
from guardspec.properties.symbolic.observe import disagreements, of_encoding, of_run
from guardspec.properties.symbolic.prove import encode


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
