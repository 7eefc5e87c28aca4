"""A process that stops when its parent dies: the kernel's ``PR_SET_PDEATHSIG``.

`make run`'s servers are started through `devstack.tether` (every Procfile line) or `devstack.devredis`
(Redis); both ask for it, so that no server outlives the honcho process that supervised it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(sig: int = signal.SIGTERM, parent: int | None = None) -> None:
    """Have the kernel send `sig` to this process when its parent dies; exit now if it already has.

    `parent` is the pid the parent had before (a fork's caller); without it, a parent that is PID 1 means
    this process was orphaned before it could ask. Linux only: elsewhere nothing is asked.
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    now = os.getppid()
    if (parent is not None and now != parent) or (parent is None and now == 1):
        os._exit(128 + int(sig))  # the parent is gone already: the signal asked for would never come
