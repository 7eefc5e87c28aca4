"""Starting the API under gunicorn the way `make run` does, for benchmarks, load scripts and tests.

One place knows the command line and what "up" means (GET /api/health answers 200), so the bench,
the load and fault scripts and the test fixtures cannot drift apart.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

GUNICORN_CONF = Path(__file__).resolve().parent.parent / "api" / "gunicorn_conf.py"


def gunicorn_command(app: str = "api:create_app()") -> list[str]:
    """The Procfile's `web:` command, with this interpreter (serving `app`, gunicorn's name of a factory)."""
    return [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), app]


def is_healthy(base_url: str, timeout: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/api/health", timeout=timeout) as answer:
            return answer.status == 200
    except (OSError, urllib.error.URLError):
        return False


def wait_healthy(base_url: str, process: subprocess.Popen | None = None, timeout: float = 30.0) -> None:
    """Return once the API answers its health check; RuntimeError if `process` exits or time runs out."""
    deadline = time.monotonic() + timeout
    while not is_healthy(base_url):
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode} before {base_url} came up")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the API at {base_url} did not come up within {timeout:g} s")
        time.sleep(0.1)


def stop(process: subprocess.Popen, timeout: float = 15.0) -> None:
    """SIGTERM (gunicorn's, Redis's and RQ's graceful stop), then SIGKILL if it does not go in time."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
