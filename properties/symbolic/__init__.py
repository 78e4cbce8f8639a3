"""z3 encodings of one call over a bounded scope (issue: prove the invariants)."""
