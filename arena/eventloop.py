"""The match worker's event loop: gevent, patched in before anything opens a socket or makes a lock.

Imports nothing of the arena (it must run first); why an event loop: docs/arena.md#processes.
"""

from __future__ import annotations

from collections.abc import Sequence

# Options of `python -m arena worker` that select a one-job-at-a-time worker (arena/__main__.py).
ONE_AT_A_TIME_FLAGS = frozenset({"--simple", "--house", "--analysis"})
CEILING_OPTIONS = ("--max-in-flight", "--threads")


def wanted(argv: Sequence[str]) -> bool:
    """Whether this command line starts a pool of matches in flight (which runs on the event loop).

    >>> wanted(["worker"]), wanted(["worker", "--challenges"]), wanted(["worker", "--max-in-flight=1"])
    (True, True, False)
    >>> wanted(["worker", "--simple", "--house"]), wanted(["scheduler"]), wanted(["worker", "--threads", "1"])
    (False, False, False)
    """
    if not argv or argv[0] != "worker" or ONE_AT_A_TIME_FLAGS.intersection(argv):
        return False
    for index, word in enumerate(argv):
        for option in CEILING_OPTIONS:
            if word == option and index + 1 < len(argv):
                return argv[index + 1].strip() != "1"
            if word.startswith(option + "="):
                return word.split("=", 1)[1].strip() != "1"
    return True


def install() -> None:
    """Patch the standard library for gevent: sockets, locks, threads and sleeps cooperate in one thread."""
    from gevent import monkey  # type: ignore[import-untyped]

    monkey.patch_all()


def active() -> bool:
    """Whether this process runs on the event loop (its `threading` is gevent's)."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the service
        return False
    return bool(monkey.is_module_patched("threading"))
