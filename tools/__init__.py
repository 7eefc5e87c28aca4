"""Benchmarks, measurements and the docs' generated examples: not part of the service (api/, arena/ and
engine/ never import them); the stack they start is devstack's, shared with loadtest/."""
