"""Command groups contributed to the guardspec CLI, one module per concern."""
