"""`make run`'s quiet terminal (devstack/quietrun.py): every line in the log, only problems on the terminal
unless --verbose, and the exit status of the command it ran."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from devstack.devredis import free_port
from tests.conftest import REPO_ROOT

CHATTER = "print('worker.1 | Job OK (m1)'); print('web.1 | [ERROR] Exception in worker'); raise SystemExit(3)"


def quietrun(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess, str]:
    log = tmp_path / "logs" / "run.log"
    done = subprocess.run([sys.executable, "-m", "devstack.quietrun", "--log", str(log),
                           "--url", f"http://127.0.0.1:{free_port()}", *options, "--",
                           sys.executable, "-c", CHATTER],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    return done, log.read_text()


def test_the_terminal_gets_problems_and_the_log_gets_everything(tmp_path: Path) -> None:
    done, log = quietrun(tmp_path)
    assert "Job OK" in log and "[ERROR] Exception" in log
    assert "[ERROR] Exception" in done.stdout and "Job OK" not in done.stdout, done.stdout
    assert done.returncode == 3 and "stopped with exit status 3" in done.stdout


def test_verbose_echoes_every_line(tmp_path: Path) -> None:
    done, _ = quietrun(tmp_path, "--verbose")
    assert "Job OK" in done.stdout and "[ERROR] Exception" in done.stdout


def test_a_wrong_option_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "devstack.quietrun", "--bogus"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
