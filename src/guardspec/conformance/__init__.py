"""Differential conformance: protocol harness, vectors, pytest plugin."""
