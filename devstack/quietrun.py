"""`make run`'s terminal: every process's lines go to a log file, the terminal gets the address once the API
answers, the problems (errors, tracebacks, a process that failed) and a closing line; `--verbose` echoes all.

    python -m devstack.quietrun --log var/log/run.log --url http://127.0.0.1:8000 -- honcho start ...
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, NoReturn

from devstack.devserve import is_healthy

# A line the operator must see even in a quiet run: an error or a traceback from any process, or honcho
# saying a process ended on its own with a failure (a stop by Ctrl-C is rc=0 or a signal's negative rc).
PROBLEM = re.compile(r"Traceback|\bERROR\b|\bCRITICAL\b|\[ERROR\]|\bFATAL\b|stopped \(rc=[1-9]")
READY_WAIT_S = 180.0  # a first start compiles nothing here (make did), but a cold Redis may replay its AOF


def is_problem(line: str) -> bool:
    """Whether a quiet run shows `line` in the terminal.

    >>> is_problem("14:30:17 arena.1 | 2026-12-07 14:30:17,240 rq.worker Job OK (abc)")
    False
    >>> is_problem("14:30:17 web.1 | [2026-12-07 14:30:17 +0000] [12] [ERROR] Exception in worker process")
    True
    >>> is_problem("system | redis.1 stopped (rc=0)"), is_problem("system | web.1 stopped (rc=3)")
    (False, True)
    """
    return PROBLEM.search(line) is not None


def banner(url: str, log: Path) -> str:
    """The lines printed once the API answers: the addresses last, so they stay at the bottom.

    >>> print(banner("http://h:80", Path("var/log/run.log")))
    logs of every process: var/log/run.log (VERBOSE=1 make run: here too)
    Trick Arena: ladder page http://h:80/  API docs http://h:80/api/docs  (Ctrl-C stops all)
    """
    return (f"logs of every process: {log} (VERBOSE=1 make run: here too)\n"
            f"Trick Arena: ladder page {url}/  API docs {url}/api/docs  (Ctrl-C stops all)")


def say(text: str) -> None:
    print(text, flush=True)


def announce_when_ready(url: str, log: Path, child: subprocess.Popen, done: threading.Event) -> None:
    """Print the banner once the API answers its health check (or say where to look if it never does)."""
    deadline = time.monotonic() + READY_WAIT_S
    while not done.wait(0.2):
        if is_healthy(url):
            say(banner(url, log))
            return
        if time.monotonic() > deadline or child.poll() is not None:
            say(f"the API did not answer at {url}: see {log}")
            return


def copy_lines(source: IO[str], log: IO[str], verbose: bool) -> None:
    terminal = True  # until it goes (a closed terminal): the log still gets every line
    for line in source:
        log.write(line)
        log.flush()
        if terminal and (verbose or is_problem(line)):
            try:
                sys.stdout.write(line)
                sys.stdout.flush()
            except OSError:
                terminal = False


class OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A wrong option is one line on stderr (exit 2), not argparse's usage block."""
        self.exit(2, f"{self.prog}: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m devstack.quietrun", description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, required=True, help="file that gets every line")
    parser.add_argument("--url", required=True, help="the API's base URL, announced once it answers")
    parser.add_argument("--verbose", action="store_true", help="echo every line to the terminal too")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run (honcho)")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    args.log.parent.mkdir(parents=True, exist_ok=True)
    # Ctrl-C reaches honcho from the terminal (same process group): it stops the processes and exits, and
    # this process keeps copying their last lines until then. A signal sent to this process alone is passed
    # on.
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: child.send_signal(signum))
    done = threading.Event()
    announcer = threading.Thread(target=announce_when_ready, args=(args.url, args.log, child, done),
                                 daemon=True)
    announcer.start()
    assert child.stdout is not None
    with open(args.log, "w", encoding="utf-8") as log:
        copy_lines(child.stdout, log, args.verbose)
    code = child.wait()
    done.set()
    announcer.join(timeout=1)
    if code in (0, 128 + signal.SIGINT):  # honcho's exit after Ctrl-C: every process stopped as asked
        say(f"stopped; the log of every process: {args.log}")
        return 0
    say(f"stopped with exit status {code}; the log of every process: {args.log}")
    return code


if __name__ == "__main__":
    sys.exit(main())
