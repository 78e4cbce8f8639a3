"""z3 encodings of one call over a bounded scope (issue: prove the invariants on bounded
scopes, and keep the encoding honest). See docs/proofs.md; ``prove.prove`` is the entry point,
``guardspec prove`` the command."""
