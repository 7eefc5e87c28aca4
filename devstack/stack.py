"""The service under test, started by the load scripts themselves on loopback and torn down by them.

Every process here is a child of the load script (own session, so a restart can kill exactly its group);
nothing outside 127.0.0.1 is ever contacted, and the Redis is always one this script started (AOF everysec
in a temporary directory, exactly as `make run` configures it through devstack.devredis).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import redis

from arena.botserver import serve_bot_command, wait_serving
from core.redis.connections import redis_client
from devstack import devserve
from devstack.devredis import free_port, server_args, wait_ready
from devstack.procstat import group_cpu_seconds

REPO_ROOT = Path(__file__).resolve().parent.parent
PREFIX = "taload:"
# Every client of a load run comes from 127.0.0.1 and so shares one rate-limit bucket and one owner: lift the
# per-address limits and bot quotas, the run measures the service, not the limiter (which has its own tests).
# Moves are limited per seat (api/ratelimit.py), which a compliant load client never meets: that one stays.
UNLIMITED = {
    "TA_LIMIT_TABLE_CREATION": "100000000/minute",
    "TA_LIMIT_REGISTRATION": "100000000/minute",
    "TA_MAX_BOTS_PER_ADDRESS": "100000",
    "TA_MAX_BOTS_PER_OWNER_PER_LADDER": "100000",
    "TA_LIMIT_BOT_TABLES": "100000000/minute",
}


def _ignore_sigxfsz() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


@dataclass
class Child:
    """A child process in its own session (so its whole group can be signalled), logging to a file."""

    name: str
    command: list[str]
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen | None = None
    ignore_sigxfsz: bool = False  # then a file-size limit fails the child's writes instead of killing it
    _log: IO[bytes] | None = None

    def start(self) -> Child:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        self.process = subprocess.Popen(
            self.command,
            cwd=REPO_ROOT,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_ignore_sigxfsz if self.ignore_sigxfsz else None,
        )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal_group(self, sig: int) -> None:
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, sig)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
        if self.process is None:
            return
        self.signal_group(sig)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.signal_group(signal.SIGKILL)
            self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def kill(self) -> None:
        """SIGKILL the whole group (the process and anything it forked) and reap it."""
        self.stop(signal.SIGKILL, timeout=5)


@dataclass
class Stack:
    """Redis + API (gunicorn) + RQ house-bot workers [+ arena scheduler and workers], all on 127.0.0.1."""

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="ta-load-")))
    redis_port: int = field(default_factory=free_port)
    api_port: int = field(default_factory=free_port)
    api_workers: int = 2
    worker_class: str = "gevent"
    prefix: str = PREFIX
    real_limits: bool = False  # keep the service's own rate limits instead of lifting them (UNLIMITED)
    # Redis Sentinel addresses ("host:port"): when named, every process finds the primary through them
    # (REDIS_SENTINELS; devstack.sentinel starts such a cluster) and REDIS_URL only names the database.
    sentinels: list[str] = field(default_factory=list)
    sentinel_service: str = "trick-arena"
    settings: dict[str, str] = field(default_factory=dict)  # more environment for every process
    children: dict[str, Child] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}"

    @property
    def data_dir(self) -> Path:
        path = self.workdir / "redis"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def metrics_dir(self) -> Path:
        """Where every process of the stack writes its metrics (docs/metrics.md): emptied when the stack is
        made, before its first process starts, as prometheus-client's multiprocess mode needs."""
        path = self.workdir / "metrics"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def env(self, **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "PROMETHEUS_MULTIPROC_DIR": str(self.metrics_dir),
            "REDIS_URL": self.redis_url,
            "TA_KEY_PREFIX": self.prefix,
            "ALLOW_PRIVATE_BOT_URLS": "true",
            **({"REDIS_SENTINELS": ",".join(self.sentinels), "REDIS_SENTINEL_SERVICE": self.sentinel_service}
               if self.sentinels else {}),
            **({} if self.real_limits else UNLIMITED),
            **self.settings,
            **extra,
        }

    def _add(self, name: str, command: list[str], env: dict[str, str], ignore_sigxfsz: bool = False) -> Child:
        child = Child(name, command, env, self.workdir / f"{name}.log", ignore_sigxfsz=ignore_sigxfsz).start()
        self.children[name] = child
        return child

    def redis(self) -> redis.Redis:
        return redis_client(self.redis_url, self.sentinels, self.sentinel_service, decode_responses=True)

    # --- components ---------------------------------------------------------------------------------------

    def start_redis(self, ignore_sigxfsz: bool = False, extra_args: list[str] | None = None) -> Child:
        """redis-server with AOF everysec, the arguments `make run` uses (devstack.devredis.server_args);
        `extra_args` come last and so override them (e.g. ``--appendonly no`` to load an RDB)."""
        args = server_args(self.redis_port, self.data_dir, persistent=True) + (extra_args or [])
        child = self._add("redis", args, self.env(), ignore_sigxfsz)
        wait_ready(self.redis_url, timeout=15)
        return child

    def stop_redis(self, hard: bool) -> None:
        """hard: SIGKILL (up to ~1 s of AOF lost); else SHUTDOWN (AOF fsynced), like a clean restart."""
        child = self.children["redis"]
        if hard:
            child.kill()
            return
        with contextlib.suppress(redis.RedisError):
            redis_client(self.redis_url).shutdown(nosave=True)
        child.stop(timeout=15)

    def start_api(self) -> Child:
        env = self.env(
            TA_BIND=f"127.0.0.1:{self.api_port}",
            TA_WORKERS=str(self.api_workers),
            TA_WORKER_CLASS=self.worker_class,
            TA_LOG_LEVEL="warning",
        )
        command = devserve.gunicorn_command()
        child = self._add("api", command, env)
        self.wait_api()
        return child

    def wait_api(self, timeout: float = 30.0) -> None:
        try:
            devserve.wait_healthy(self.api_url, timeout=timeout)
        except RuntimeError:
            raise RuntimeError(f"the API did not come up; see {self.workdir / 'api.log'}") from None

    def start_house_workers(self, count: int) -> list[Child]:
        # The Procfile's `worker:` command (an RQ SimpleWorker that outlives Redis restarts).
        command = [sys.executable, "-m", "arena", "worker", "--simple", "--house"]
        return [self._add(f"house-worker-{i}", command, self.env()) for i in range(count)]

    def start_challenge_worker(self) -> Child:
        # The Procfile's `challenges:` command: challenges, and the registered bots at people's tables.
        return self._add("challenge-worker", [sys.executable, "-m", "arena", "worker", "--challenges"],
                         self.env())

    def start_arena(self, workers: int, tick_s: float = 1.0, health_every_s: float = 30.0,
                    keep_matches: int | None = None) -> list[Child]:
        env = self.env(TA_ARENA_TICK_S=str(tick_s), TA_ARENA_HEALTH_EVERY_S=str(health_every_s))
        if keep_matches is not None:
            env["TA_ARENA_KEEP_MATCHES"] = str(keep_matches)
        started = [self._add("arena-scheduler", [sys.executable, "-m", "arena", "scheduler"], env)]
        started += [
            self._add(f"arena-worker-{i}", [sys.executable, "-m", "arena", "worker", "--simple"], env)
            for i in range(workers)
        ]
        return started

    def start_bot_server(self, name: str, behaviour: str, **options: Any) -> str:
        """`python -m arena serve-bot` as child `name` (options: house_bot, delay_s); returns its URL."""
        port = free_port()
        child = self._add(name, serve_bot_command(port, behaviour, name=name, **options), self.env())
        url = f"http://127.0.0.1:{port}"
        wait_serving(url, timeout=20, process=child.process)
        return url

    def start_fast_bots(self, count: int) -> list[int]:
        """`count` protocol-v1 bots (devstack.fastbot: a forked child per connection); returns their ports."""
        ports = [free_port() for _ in range(count)]
        code = (
            "import sys; from devstack.fastbot import run_fast_bots; "
            "run_fast_bots([int(p) for p in sys.argv[1:]], started=lambda p: print('ready', flush=True))"
        )
        self._add("fast-bots", [sys.executable, "-c", code, *map(str, ports)], self.env())
        deadline = time.monotonic() + 15
        for port in ports:
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        raise RuntimeError("fast bots did not start") from None
                    time.sleep(0.05)
        return ports

    def cpu_by_component(self) -> dict[str, float]:
        return {
            name: round(group_cpu_seconds(child.pid) if child.alive() else 0.0, 2)
            for name, child in self.children.items()
        }

    def crashed(self) -> list[str]:
        """Children that exited on their own (a restart replaces the entry, so this means a crash)."""
        return [name for name, child in self.children.items() if not child.alive()]

    def log_errors(self) -> dict[str, int]:
        """Tracebacks written to each component's log (an unhandled error anywhere shows up here)."""
        counts = {}
        for name, child in self.children.items():
            with contextlib.suppress(OSError):
                counts[name] = child.log_path.read_text(errors="replace").count("Traceback")
        return counts

    def __post_init__(self) -> None:
        shutil.rmtree(self.workdir / "metrics", ignore_errors=True)  # a reused directory: no old samples

    def stop(self) -> None:
        for name in sorted(self.children, key=lambda n: n.startswith(("redis", "sentinel"))):  # Redis last
            self.children[name].stop()
        shutil.rmtree(self.workdir / "metrics", ignore_errors=True)  # nothing reads them once all stopped


def loadavg() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
