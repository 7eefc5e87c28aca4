"""Linux network namespaces as separate "machines" for benchmarks: each reaches the host over one veth pair
(namespace i: 10.231.i.2, the host side 10.231.i.1, no other route). Needs root and ``ip``; ``machines()``
creates them and removes them when it exits, also on an error, after removing a killed run's leftovers.

Design: docs/scaling.md#the-command
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

NAME_PREFIX = "ta-rc"
SUBNET = "10.231"  # 10.231.<i>.0/30 per namespace: private, and only ever on links this module creates


@dataclass(frozen=True)
class Machine:
    """One namespace and its link to the host."""

    index: int

    @property
    def name(self) -> str:
        return f"{NAME_PREFIX}{self.index}"

    @property
    def host_link(self) -> str:
        return f"{self.name}h"

    @property
    def inner_link(self) -> str:
        return f"{self.name}n"

    @property
    def host_address(self) -> str:
        """The host side of the link: where a host server must listen for this machine to reach it."""
        return f"{SUBNET}.{self.index}.1"

    @property
    def address(self) -> str:
        return f"{SUBNET}.{self.index}.2"

    def wrap(self, command: list[str]) -> list[str]:
        """`command` run inside this namespace."""
        return ["ip", "netns", "exec", self.name, *command]

    def routes(self) -> list[str]:
        """The namespace's routing table (one line per route): evidence that it reaches nothing else."""
        done = _ip("netns", "exec", self.name, "ip", "-4", "route", "show", check=True)
        return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def available() -> bool:
    """Namespaces can be made here: running as root with `ip` on PATH."""
    return os.geteuid() == 0 and shutil.which("ip") is not None


def _ip(*args: str, check: bool) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done


def _remove(machine: Machine) -> None:
    # Deleting the namespace destroys its end of the veth pair, which destroys the host end with it; the
    # explicit link delete covers a pair whose inner end never made it into the namespace.
    _ip("netns", "delete", machine.name, check=False)
    _ip("link", "delete", machine.host_link, check=False)


def _create(machine: Machine) -> None:
    inside = ("netns", "exec", machine.name, "ip")
    steps = [
        ("netns", "add", machine.name),
        ("link", "add", machine.host_link, "type", "veth", "peer", "name", machine.inner_link),
        ("link", "set", machine.inner_link, "netns", machine.name),
        ("addr", "add", f"{machine.host_address}/30", "dev", machine.host_link),
        ("link", "set", machine.host_link, "up"),
        (*inside, "addr", "add", f"{machine.address}/30", "dev", machine.inner_link),
        (*inside, "link", "set", machine.inner_link, "up"),
        (*inside, "link", "set", "lo", "up"),
    ]
    for step in steps:
        _ip(*step, check=True)


@contextlib.contextmanager
def machines(count: int) -> Iterator[list[Machine]]:
    """`count` namespaces, each linked to the host only; all removed on exit (even on an error).

        with machines(3) as boxes:
            command = boxes[0].wrap(["python", "-m", "arena", "worker"])  # runs inside namespace 0
    """
    if not available():
        raise RuntimeError("network namespaces need root and the `ip` command")
    for name in leftovers():  # a previous run killed before its cleanup, whatever its machine count
        _remove(Machine(int(name.removeprefix(NAME_PREFIX))))
    boxes = [Machine(i) for i in range(count)]
    try:
        for box in boxes:
            _remove(box)  # a host-side link may outlive its namespace
            _create(box)
        yield boxes
    finally:
        for box in boxes:
            _remove(box)


def leftovers() -> list[str]:
    """Namespaces of this module that still exist (empty after a clean exit)."""
    done = _ip("netns", "list", check=False)
    return [line.split()[0] for line in done.stdout.splitlines() if line.startswith(NAME_PREFIX)]
