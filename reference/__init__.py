"""guardspec.reference: the pure-functional interpreter (SPEC M1-M13, G0-G15).

It imports neither hypothesis nor z3.
"""

from .run import run, run_call, run_thread

__all__ = ["run", "run_call", "run_thread"]
