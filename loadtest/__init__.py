"""Bounded load, soak and fault scripts against a service they start themselves on 127.0.0.1.

    python -m loadtest practice --clients 200 --seconds 300
    python -m loadtest ladder --bots 40 --seconds 600
    python -m loadtest faults redis-restart|api-restart ...

Every script prints one JSON document (the figures in docs/reliability.md come from them) and exits
non-zero if a check failed. They are not part of `make test` (see `make load`, `make soak`, `make faults`).
"""
