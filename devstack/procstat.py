"""CPU seconds of processes, read from Linux ``/proc``: the one place the benches and load drills count CPU.

One process (an RQ worker), a process and its children (a gunicorn master and its workers, a forking bot
server), or a process group (a component of the load stack). A process's own figure includes its *reaped*
children (``cutime``/``cstime``): work done by a child that has exited and been waited for still counts.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")
UTIME, STIME, CUTIME, CSTIME = 11, 12, 13, 14  # fields of /proc/PID/stat after the ")" of the command name
RSS = 21  # resident pages, in the same fields
_PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def _stat_fields(pid: int | str) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None  # gone meanwhile


def _seconds(fields: list[str], with_reaped: bool = True) -> float:
    wanted = (UTIME, STIME, CUTIME, CSTIME) if with_reaped else (UTIME, STIME)
    return sum(int(fields[i]) for i in wanted) / _TICKS


def _all_processes() -> Iterator[tuple[int, list[str]]]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(entry.name)) is not None:
            yield int(entry.name), fields


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its reaped children (0 if it is gone)."""
    fields = _stat_fields(pid)
    return _seconds(fields) if fields is not None else 0.0


def tree_cpu_seconds(roots: Iterable[int]) -> float:
    """CPU of the `roots`, their reaped children and their live direct children (pre-fork servers)."""
    roots = set(roots)
    total = 0.0
    for pid, fields in _all_processes():
        if pid in roots or int(fields[1]) in roots:  # fields[1]: the parent's pid
            total += _seconds(fields)
    return total


def group_cpu_seconds(pgid: int) -> float:
    """CPU of every live process in a process group (its reaped children included)."""
    return sum(_seconds(fields) for _pid, fields in _all_processes() if int(fields[2]) == pgid)


def descendants_usage(root: int) -> tuple[float, int, int]:
    """CPU seconds (reaped children included), resident MiB and the number of live processes of `root` and
    every process below it, at any depth (a whole `make run`)."""
    table = {pid: fields for pid, fields in _all_processes()}
    members, grown = {root}, True
    while grown:
        below = {pid for pid, fields in table.items() if int(fields[1]) in members} - members
        members |= below
        grown = bool(below)
    live = [table[pid] for pid in members if pid in table]
    rss_mib = sum(int(fields[RSS]) for fields in live) * _PAGE_KIB // 1024
    return sum(_seconds(fields) for fields in live), rss_mib, len(live)

