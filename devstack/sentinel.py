"""A Redis primary, its replica and three Redis Sentinels on loopback, from the sample files an operator
starts from (deploy/redis/redis.conf, deploy/redis/sentinel.conf) with only the addresses changed: what the
failover drill and the Sentinel tests run against. Each sentinel has a file of its own: Sentinel rewrites it.

Design: docs/reliability.md#redis-sentinel-configuration
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis

from core.redis.connections import redis_client
from devstack.devredis import free_port, server_binary, wait_ready

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "redis"
REDIS_CONF = DEPLOY / "redis.conf"
SENTINEL_CONF = DEPLOY / "sentinel.conf"
SERVICE = "trick-arena"


def sample_setting(name: str, text: str | None = None) -> str:
    """The value of a ``sentinel NAME trick-arena VALUE`` line of deploy/redis/sentinel.conf.

    >>> sample_setting("down-after-milliseconds"), sample_setting("failover-timeout")
    ('5000', '10000')
    """
    for line in (SENTINEL_CONF.read_text() if text is None else text).splitlines():
        words = line.split()
        if words[:3] == ["sentinel", name, SERVICE]:
            return words[3]
    raise KeyError(name)


DOWN_AFTER_MS = int(sample_setting("down-after-milliseconds"))
FAILOVER_TIMEOUT_MS = int(sample_setting("failover-timeout"))


def sentinel_binary() -> str | None:
    """Debian's redis-sentinel, None when it is not installed."""
    return shutil.which("redis-sentinel")


def sentinel_conf(port: int, primary_port: int, workdir: Path, down_after_ms: int | None = None) -> str:
    """deploy/redis/sentinel.conf for a sentinel on 127.0.0.1:`port` watching the primary on
    127.0.0.1:`primary_port` (the sample's quorum and timings; `down_after_ms` instead of its own).

    >>> conf = sentinel_conf(26380, 6390, Path("/tmp/s"), down_after_ms=1000).splitlines()
    >>> [line for line in conf if line.startswith(("port", "bind", "sentinel monitor", "sentinel down"))]
    ['port 26380', 'bind 127.0.0.1', 'sentinel monitor trick-arena 127.0.0.1 6390 2', \
'sentinel down-after-milliseconds trick-arena 1000']
    """
    lines = []
    for line in SENTINEL_CONF.read_text().splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "port":
            line = f"port {port}"
        elif words[0] == "bind":
            line = "bind 127.0.0.1"
        elif words[0] == "protected-mode":
            line = "protected-mode yes"
        elif words[:2] == ["sentinel", "monitor"]:
            line = f"sentinel monitor {words[2]} 127.0.0.1 {primary_port} {words[5]}"
        elif words[:2] == ["sentinel", "down-after-milliseconds"] and down_after_ms is not None:
            line = f"sentinel down-after-milliseconds {words[2]} {down_after_ms}"
        lines.append(line)
    return "\n".join([*lines, f"dir {workdir}", ""])


@dataclass
class SentinelCluster:
    """Ports and commands of a primary, a replica and three sentinels; `launch` starts each (through a
    function that starts a command as a named child process and returns it)."""

    workdir: Path
    service: str = SERVICE
    down_after_ms: int = DOWN_AFTER_MS
    data_ports: list[int] = field(default_factory=lambda: [free_port(), free_port()])
    sentinel_ports: list[int] = field(default_factory=lambda: [free_port() for _ in range(3)])

    @property
    def sentinels(self) -> list[str]:
        return [f"127.0.0.1:{port}" for port in self.sentinel_ports]

    def node_name(self, index: int) -> str:
        return f"redis-{index}"

    def node_url(self, index: int) -> str:
        return f"redis://127.0.0.1:{self.data_ports[index]}/0"

    def node_command(self, index: int) -> list[str]:
        """Data server `index` (0 starts as the primary, 1 as its replica); a node restarted later is made a
        replica of the current primary by the sentinels."""
        data_dir = self.workdir / self.node_name(index)
        data_dir.mkdir(parents=True, exist_ok=True)
        conf = data_dir / "redis.conf"  # a copy: the sentinels make the servers rewrite it (CONFIG REWRITE)
        if not conf.exists():
            shutil.copyfile(REDIS_CONF, conf)
        args = [server_binary(), str(conf), "--port", str(self.data_ports[index]),
                "--bind", "127.0.0.1", "--protected-mode", "yes", "--dir", str(data_dir)]
        if index:
            args += ["--replicaof", "127.0.0.1", str(self.data_ports[0])]
        return args

    def sentinel_command(self, index: int) -> list[str]:
        binary = sentinel_binary()
        if binary is None:
            raise RuntimeError("no redis-sentinel: apt-get install -y redis-sentinel")
        directory = self.workdir / f"sentinel-{index}"
        directory.mkdir(parents=True, exist_ok=True)
        conf = directory / "sentinel.conf"
        conf.write_text(sentinel_conf(self.sentinel_ports[index], self.data_ports[0], directory,
                                      self.down_after_ms))
        return [binary, str(conf)]

    def launch(self, start: Callable[[str, list[str]], object], timeout: float = 30.0) -> None:
        """Start both data servers and the sentinels, and wait until the replica is in sync and every
        sentinel knows the replica and the other two sentinels (a failover is possible from then on)."""
        for index in range(2):
            start(self.node_name(index), self.node_command(index))
            wait_ready(self.node_url(index), timeout=15)
        for index in range(3):
            start(f"sentinel-{index}", self.sentinel_command(index))
        deadline = time.monotonic() + timeout
        while not self.ready():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the sentinels did not settle; see {self.workdir}")
            time.sleep(0.2)

    def ready(self) -> bool:
        try:
            replica = redis_client(self.node_url(1), decode_responses=True).info("replication")
            if replica.get("master_link_status") != "up":
                return False
            for port in self.sentinel_ports:
                state = self.sentinel(port).sentinel_master(self.service)
                if int(state["num-slaves"]) < 1 or int(state["num-other-sentinels"]) < 2:
                    return False
        except (redis.RedisError, KeyError):
            return False
        return True

    def sentinel(self, port: int) -> redis.Redis:
        """A client of one sentinel (its own commands: SENTINEL MASTER, ...)."""
        return redis_client(f"redis://127.0.0.1:{port}/0", decode_responses=True, socket_timeout=1.0)

    def primary_port(self) -> int | None:
        """The primary's port as the first sentinel that answers reports it."""
        for port in self.sentinel_ports:
            try:
                _host, primary = self.sentinel(port).sentinel_get_master_addr_by_name(self.service)
                return int(primary)
            except (redis.RedisError, TypeError):
                continue
        return None

    def client(self, **options: object) -> redis.Redis:
        """A client of the service's current primary, through the sentinels (as the stack's processes)."""
        return redis_client("redis://127.0.0.1/0", self.sentinels, self.service, **options)  # type: ignore[arg-type]
