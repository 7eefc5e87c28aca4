"""`python -m devstack.devredis`: the persistent local Redis that `make run` starts."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from devstack.devredis import free_port, wait_ready
from tests.waiting import wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_make_run_redis_is_loopback_only_with_aof_everysec(tmp_path):
    port = free_port()
    data_dir = tmp_path / "redis"
    process = subprocess.Popen([sys.executable, "-m", "devstack.devredis", "--port", str(port),
                                "--data-dir", str(data_dir)], cwd=REPO_ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"redis://127.0.0.1:{port}/0"
        wait_ready(url)
        client = redis.Redis.from_url(url, decode_responses=True)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
        assert client.config_get("bind")["bind"] == "127.0.0.1"
        assert Path(client.config_get("dir")["dir"]) == data_dir.resolve()
        client.set("ta:check", "1")
        client.close()
    finally:
        process.send_signal(signal.SIGTERM)  # what honcho sends on Ctrl-C: Redis flushes the AOF and exits
        assert process.wait(timeout=15) == 0
    written = list(data_dir.rglob("*.aof"))
    assert written and any(b"ta:check" in path.read_bytes() for path in written)


def test_on_ctrl_c_redis_stops_once_its_clients_have_gone(tmp_path):
    """honcho signals every process at once; Redis serves until the API and the workers have disconnected."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "devstack.devredis", "--port", str(port),
                                "--clients-wait", "60", "--data-dir", str(tmp_path / "redis")], cwd=REPO_ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        wait_ready(url)
        worker = redis.Redis.from_url(url)
        worker.ping()  # a process still connected, e.g. a worker finishing its decision
        me = str(worker.client_id())
        process.send_signal(signal.SIGINT)

        def waited_for_clients_s() -> int:
            """How long the wrapper's own connection, which counts the clients still there, has been open."""
            return max((int(c["age"]) for c in worker.client_list() if c["id"] != me), default=0)

        wait_until(lambda: waited_for_clients_s() >= 2, what="devredis waiting 2 s for its clients to leave")
        assert worker.set("ta:late-write", "1")  # still served: a client is connected
        assert process.poll() is None
        worker.close()
        assert process.wait(timeout=30) == 0  # the cap is 60 s: it stopped because the client left
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    written = list((tmp_path / "redis").rglob("*.aof"))
    assert any(b"ta:late-write" in path.read_bytes() for path in written)
