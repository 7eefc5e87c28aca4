"""Benchmarks, load and dev helpers: not part of the service (api/, arena/ and engine/ never import them)."""
