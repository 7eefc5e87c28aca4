"""Bounded load, soak and fault scripts against a service they start themselves on 127.0.0.1 (``python -m
loadtest practice|ladder|faults|backup-restore``). Every script prints one JSON document and exits non-zero
if a check failed; none is part of `make test` (`make load`, `make soak`, `make faults` run them).

Design: docs/reliability.md
"""
