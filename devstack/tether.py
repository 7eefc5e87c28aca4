"""`python -m devstack.tether [--wait-redis URL] COMMAND...`: run COMMAND; it stops when its parent dies.

Each Procfile line runs through it: the kernel sends it SIGTERM when honcho's process for that line dies
(``PR_SET_PDEATHSIG``, kept across the exec of COMMAND).
Design: README.md#quick-start
"""

from __future__ import annotations

import argparse
import os
import signal

from devstack.parent_death import die_with_parent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m devstack.tether", description=__doc__.split("\n")[0])
    parser.add_argument("--wait-redis", metavar="URL", help="first wait until the Redis at URL answers")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run (exec'd)")
    options = parser.parse_args(argv)
    if not options.command:
        parser.error("a command to run is required")
    die_with_parent(signal.SIGTERM)
    if options.wait_redis:  # only then the Redis client is loaded: a plain command is exec'd without it
        import redis

        from devstack.devredis import wait_ready

        try:
            wait_ready(options.wait_redis, timeout=30)
        except redis.ConnectionError as error:
            parser.exit(1, f"{parser.prog}: no Redis at {options.wait_redis} after 30 s: {error}\n")
    try:
        os.execvp(options.command[0], options.command)
    except OSError as error:
        parser.exit(127, f"{parser.prog}: cannot run {options.command[0]}: {error.strerror}\n")


if __name__ == "__main__":
    main()
