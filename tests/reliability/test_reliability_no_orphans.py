"""`make run` leaves nothing behind: a closed terminal (SIGHUP to its process group) or a SIGKILL of the group
stops every process it started, the embedded Redis included, and the next `make run` serves on the same ports.

The processes of a run are found by an environment variable only that run has (every child inherits it), so
a process that escaped to PID 1 is found too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from devstack.devredis import PID_FILE, free_port, server_args, stop_stale_server, wait_ready
from devstack.devserve import wait_healthy
from tests.conftest import REPO_ROOT
from tests.waiting import wait_until

MARK = "TA_KEY_PREFIX"


def processes_with(mark: str) -> list[int]:
    """Live processes whose environment has MARK=mark (zombies hold no port and are skipped)."""
    wanted = f"{MARK}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:  # gone, or a zombie (no environment to read)
            continue
    return found


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _hangup_as_in_a_terminal() -> None:
    """A shell starts its jobs with SIGHUP at its default (terminate); a suite run under `nohup` would
    hand `make run` an ignored SIGHUP, and the closed terminal this test plays would then close nothing."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class Run:
    """`make run` on ports of its own, in a process group of its own like a terminal's foreground job."""

    def __init__(self, tmp_path: Path) -> None:
        self.mark = f"taorphans{os.getpid()}x{time.monotonic_ns()}:"
        self.redis_port, self.api_port = free_port(), free_port()
        self.env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TA_RQ_QUEUE", "MAKEFLAGS")}
        self.env.update({"DEV_REDIS_PORT": str(self.redis_port), "DEV_REDIS_DIR": str(tmp_path / "redis"),
                         "ARENA_WORKERS": "1", "TA_BIND": f"127.0.0.1:{self.api_port}", MARK: self.mark,
                         "PYTHONUNBUFFERED": "1", "RUN_LOG": str(tmp_path / "run.log")})
        self.log = tmp_path / "make-run.log"
        self.run_log = tmp_path / "run.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=REPO_ROOT,
                                            env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True, preexec_fn=_hangup_as_in_a_terminal)
        try:
            wait_healthy(f"http://127.0.0.1:{self.api_port}", timeout=60)
        except RuntimeError:
            raise AssertionError(f"make run did not serve; output:\n{self.output()}") from None

    def output(self) -> str:
        processes = self.run_log.read_text(errors="replace")[-6000:] if self.run_log.exists() else ""
        return self.log.read_text(errors="replace")[-3000:] + "\n--- run log ---\n" + processes

    def signal_group(self, sig: int) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, sig)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"make run still running 60 s after signal {sig}: {self.running()}\n"
                                 f"{self.output()}") from None

    def running(self) -> dict[int, str]:
        """The run's live processes and their command lines: what a stop is still waiting for."""
        found = {}
        for pid in processes_with(self.mark):
            with contextlib.suppress(OSError):
                found[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120].decode()
        return found

    def wait_all_gone(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not processes_with(self.mark) and port_free(self.redis_port) and port_free(self.api_port):
                return
            time.sleep(0.2)
        raise AssertionError(f"still running after {timeout} s: {self.running()}; redis port free "
                             f"{port_free(self.redis_port)}, API port free {port_free(self.api_port)}\n"
                             f"{self.output()}")

    def kill_leftovers(self) -> None:
        for pid in processes_with(self.mark):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.drill
@pytest.mark.timeout(360)
def test_sighup_and_sigkill_of_make_run_leave_no_process_and_the_next_run_serves(tmp_path: Path) -> None:
    run = Run(tmp_path)
    try:
        run.start()
        assert len(processes_with(run.mark)) >= 8  # make, honcho, 6 lines, redis-server, gunicorn workers
        run.signal_group(signal.SIGHUP)  # the terminal was closed
        run.wait_all_gone(timeout=30)
        run.start()  # same ports, same data directory
        run.signal_group(signal.SIGKILL)
        run.wait_all_gone(timeout=30)
        run.start()
        run.signal_group(signal.SIGINT)  # Ctrl-C, as ever
        run.wait_all_gone(timeout=30)
    finally:
        run.kill_leftovers()
        if run.process is not None and run.process.poll() is None:
            os.killpg(run.process.pid, signal.SIGKILL)
            run.process.wait()


def test_a_tethered_command_stops_when_its_parent_is_killed(tmp_path: Path) -> None:
    # The parent starts `python -m devstack.tether sleep 60`, prints its pid and waits; then it is SIGKILLed.
    code = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-m', 'devstack.tether', 'sleep', '60'])\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    child = int(parent.stdout.readline())
    try:
        deadline = time.monotonic() + 10
        while b"sleep" not in Path(f"/proc/{child}/cmdline").read_bytes():  # exec'd into the command
            assert time.monotonic() < deadline
            time.sleep(0.05)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 10
        while Path(f"/proc/{child}").exists() and "Z" not in _state(child):
            assert time.monotonic() < deadline, "the tethered command outlived its parent"
            time.sleep(0.05)
    finally:
        if Path(f"/proc/{child}").exists():
            os.kill(child, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_a_tethered_command_refuses_no_command() -> None:
    result = subprocess.run([sys.executable, "-m", "devstack.tether"], cwd=REPO_ROOT, capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].endswith("a command to run is required")


def test_a_redis_server_left_by_an_earlier_run_is_stopped_through_its_pid_file(tmp_path: Path) -> None:
    port = free_port()
    # A process group of its own, as devredis starts it: nothing but a signal to its pid reaches it.
    stale = subprocess.Popen(server_args(port, tmp_path, persistent=True), stdout=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        wait_ready(f"redis://127.0.0.1:{port}/0")
        (tmp_path / PID_FILE).write_text(f"{stale.pid}\n")
        assert stop_stale_server(tmp_path) == stale.pid
        assert stale.wait(timeout=5) == 0  # SIGTERM: a clean shutdown
        assert port_free(port) and not (tmp_path / PID_FILE).exists()
        # A pid file naming a process that is not a redis-server leaves that process alone.
        (tmp_path / PID_FILE).write_text(f"{os.getpid()}\n")
        assert stop_stale_server(tmp_path) is None and not (tmp_path / PID_FILE).exists()
    finally:
        if stale.poll() is None:
            stale.kill()
            stale.wait()


def test_the_embedded_redis_stops_when_its_wrapper_is_killed(tmp_path: Path) -> None:
    port = free_port()
    wrapper = subprocess.Popen([sys.executable, "-m", "devstack.devredis", "--port", str(port), "--data-dir",
                                str(tmp_path)], cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    try:
        wait_ready(f"redis://127.0.0.1:{port}/0")
        # Redis may answer before its wrapper has written the pid file: wait for the file, whole.
        pid_file = tmp_path / PID_FILE
        server = int(wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), 30,
                                "the wrapper's pid file"))
        wrapper.kill()  # no chance to stop Redis itself
        wrapper.wait()
        deadline = time.monotonic() + 10
        while not port_free(port) or "Z" not in _state(server):
            assert time.monotonic() < deadline, "redis-server outlived its wrapper"
            time.sleep(0.05)
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
            wrapper.wait()


def test_a_second_run_on_the_same_data_directory_leaves_the_running_redis_alone(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    first = subprocess.Popen([sys.executable, "-m", "devstack.devredis", "--port", str(port), "--data-dir",
                              str(tmp_path)], cwd=REPO_ROOT, stdout=subprocess.DEVNULL, env=env)
    try:
        wait_ready(f"redis://127.0.0.1:{port}/0")
        second = subprocess.run([sys.executable, "-m", "devstack.devredis", "--port", str(free_port()),
                                 "--data-dir", str(tmp_path)], cwd=REPO_ROOT, capture_output=True, text=True,
                                env=env, timeout=30)
        assert second.returncode == 1 and "Traceback" not in second.stderr, second.stderr
        assert second.stderr.strip().splitlines()[-1].startswith(f"devredis: {tmp_path} is in use")
        wait_ready(f"redis://127.0.0.1:{port}/0", timeout=1)  # the first one still serves
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
