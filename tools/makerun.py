"""`make run` started by a measuring tool: free ports, an empty Redis of its own, stopped as Ctrl-C does."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from devstack.devredis import free_port
from devstack.devserve import wait_healthy

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class RunningStack:
    pid: int  # make's: every process of the stack descends from it
    base_url: str  # the API
    redis_url: str  # its embedded Redis
    data: Path  # Redis's data, the metrics directory and the run's log


@contextlib.contextmanager
def make_run(env: Mapping[str, str] = {}, ready_s: float = 180.0) -> Iterator[RunningStack]:  # noqa: B006
    """`make run` on free ports with an empty Redis and the given settings, until the block ends."""
    data = Path(tempfile.mkdtemp(prefix="ta-run-"))
    redis_port, bind = free_port(), f"127.0.0.1:{free_port()}"
    full_env = {**os.environ, "TA_BIND": bind, **env}
    full_env.pop("REDIS_URL", None)
    command = ["make", "--no-print-directory", "run", f"DEV_REDIS_PORT={redis_port}", f"DEV_REDIS_DIR={data}",
               f"METRICS_DIR={data}/metrics", f"TA_BIND={bind}", f"RUN_LOG={data}/run.log"]
    with open(data / "make-run.log", "w") as log:
        stack = subprocess.Popen(command, cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        try:
            wait_healthy(f"http://{bind}", timeout=ready_s)
            yield RunningStack(stack.pid, f"http://{bind}", f"redis://127.0.0.1:{redis_port}/0", data)
        finally:
            os.killpg(stack.pid, signal.SIGINT)  # what Ctrl-C does
            try:
                stack.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(stack.pid, signal.SIGKILL)
                stack.wait()
