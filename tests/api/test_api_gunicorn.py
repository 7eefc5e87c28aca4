"""The production serving path: gunicorn with the gevent worker (api/gunicorn_conf.py)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

# gunicorn with its master and workers, as deployed: several processes, each test seconds long.
pytestmark = pytest.mark.drill

# Concurrent posts of one decision: as many as the per-seat limit lets through at one table version.
POSTS = 10


@pytest.mark.timeout(90)
def test_gevent_worker_holds_many_long_polls_and_still_serves(gunicorn_server):
    with gunicorn_server("gevent", workers=1) as base:
        table = httpx.post(f"{base}/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4}).json()
        table_id = table["table_id"]
        tokens = [httpx.post(f"{base}/api/tables/{table_id}/seats/{seat}/join").json()["token"]
                  for seat in range(2)]
        versions: list[int] = []
        sent = threading.Semaphore(0)
        # One shared client (a connection per poll): a client per thread spends seconds building SSL contexts.
        limits = httpx.Limits(max_connections=300, max_keepalive_connections=300)
        http = httpx.Client(limits=limits, timeout=30)

        def poll() -> None:
            sent.release()
            response = http.get(f"{base}/api/tables/{table_id}/seats/0", params={"after": 0, "wait": 25},
                                headers={"Authorization": f"Bearer {tokens[0]}"})
            versions.append(response.json()["version"])

        pollers = [threading.Thread(target=poll) for _ in range(100)]
        started = time.monotonic()
        for poller in pollers:
            poller.start()
        for _ in pollers:
            sent.acquire()
        time.sleep(2.0)  # let the last requests reach the server and park
        assert time.monotonic() - started < 15, "the client itself was too slow to park the polls"
        # One worker process, 100 requests parked: other requests are still answered at once.
        # One client for these too: what is timed is the server's answer, not 20 clients being built.
        with httpx.Client(timeout=30) as other:
            started = time.monotonic()
            for _ in range(20):
                assert other.get(f"{base}/api/games").status_code == 200
            assert time.monotonic() - started < 10  # 20 requests; far below the 25 s the polls hold
        auth = {"Authorization": f"Bearer {tokens[1]}"}
        state = httpx.get(f"{base}/api/tables/{table_id}/seats/1", headers=auth).json()
        moved = time.monotonic()
        response = httpx.post(f"{base}/api/tables/{table_id}/seats/1/moves", headers=auth,
                              json={"move": state["view"]["legal"][:3], "expected_version": 0})
        assert response.status_code == 200
        for poller in pollers:
            poller.join(timeout=30)
        assert time.monotonic() - moved < 10  # woken by the notification, not the 25 s timeout
        assert versions == [1] * 100
        http.close()


@pytest.mark.timeout(90)
def test_ten_posts_across_two_worker_processes_apply_exactly_one(gunicorn_server, redis_conn, key_prefix):
    """Across processes only the Lua version check stands between two commits: one wins, the rest get 409."""
    from core.tables.store import TableStore

    with gunicorn_server("gevent", workers=2) as base:
        created = httpx.post(f"{base}/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4})
        table_id = created.json()["table_id"]
        token = httpx.post(f"{base}/api/tables/{table_id}/seats/3/join").json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        legal = httpx.get(f"{base}/api/tables/{table_id}/seats/3", headers=auth).json()["view"]["legal"]
        barrier = threading.Barrier(POSTS)
        statuses: list[int] = []

        def post() -> None:
            # A fresh connection each: gunicorn spreads them over both worker processes.
            with httpx.Client(headers={"Connection": "close"}) as http:
                barrier.wait()
                response = http.post(f"{base}/api/tables/{table_id}/seats/3/moves", headers=auth,
                                     json={"move": legal[:3], "expected_version": 0})
                statuses.append(response.status_code)

        threads = [threading.Thread(target=post) for _ in range(POSTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(statuses) == [200] + [409] * (POSTS - 1)
    tables = TableStore(redis_conn, key_prefix)
    assert tables.load_table(table_id).version == 1
    assert len(tables.moves(table_id)) == 1


def _redis_connections(port: int, listening_on: int) -> set[tuple[int, int]]:
    """(pid, local port) of each connection to 127.0.0.1:`port` held by the processes listening on
    `listening_on`: a connection opened since an earlier call is one not in that call's set (a count could
    stay the same while one closes and another opens)."""
    return {(pid, c.laddr.port) for pid, connections in _listeners_connections(listening_on, with_pid=True)
            for c in connections if c.raddr and c.raddr.port == port and c.status == "ESTABLISHED"}


def _settled_connections_to(port: int, listening_on: int) -> set[tuple[int, int]]:
    """`_redis_connections` once it holds still: the connections of requests that came before (a health
    check its client gave up on under load is still served) are open by then, not opened during the burst."""
    last = _redis_connections(port, listening_on)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        time.sleep(0.3)
        now = _redis_connections(port, listening_on)
        if now == last:
            return now
        last = now
    raise AssertionError(f"the worker's Redis connections kept changing for 20 s: {last}")


def _listeners_connections(port: int, with_pid: bool = False) -> Iterator[Any]:
    """The TCP connections of each process that listens on `port` (with its pid: `(pid, connections)`)."""
    import psutil

    for process in psutil.process_iter():
        try:
            connections = process.net_connections("tcp")
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
        if any(c.laddr.port == port and c.status == psutil.CONN_LISTEN for c in connections):
            yield (process.pid, connections) if with_pid else connections


@pytest.mark.timeout(90)
@pytest.mark.parametrize("pipelining", ["1", "0"])
def test_concurrent_seat_reads_in_a_gevent_worker_share_one_redis_connection(gunicorn_server, redis_url,
                                                                             pipelining):
    """A gevent worker's seat reads and moves go through one pipelined Redis connection (core.redis.pipelined
    .PipelinedLane), however many requests are in flight: each still gets its own seat's answer.
    TA_REDIS_PIPELINING=0 gives each call in flight a connection of its own."""
    import redis

    redis_port = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs.get("port")
    if redis_port is None:
        pytest.skip("REDIS_URL names a unix socket: connections are counted by TCP port")
    with gunicorn_server("gevent", workers=1, extra_env={"TA_REDIS_PIPELINING": pipelining}) as base:
        port = int(base.rsplit(":", 1)[1])
        table_id = httpx.post(f"{base}/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4}
                              ).json()["table_id"]
        tokens = [httpx.post(f"{base}/api/tables/{table_id}/seats/{seat}/join").json()["token"]
                  for seat in range(4)]
        hands = [httpx.get(f"{base}/api/tables/{table_id}/seats/{seat}",
                           headers={"Authorization": f"Bearer {tokens[seat]}"}).json()["view"]["hand"]
                 for seat in range(4)]
        before = _settled_connections_to(redis_port, port)
        # Redis holds every command for a while, so the 40 reads are all in flight at once however slowly
        # the machine serves them: without pipelining each needs a connection of its own then.
        barrier = threading.Barrier(41)
        answers: list[tuple[int, int, list[str]]] = []

        def read(seat: int) -> None:
            with httpx.Client(headers={"Connection": "close"}, timeout=30) as http:
                barrier.wait()
                response = http.get(f"{base}/api/tables/{table_id}/seats/{seat}",
                                    headers={"Authorization": f"Bearer {tokens[seat]}"})
                answers.append((seat, response.status_code, response.json()["view"]["hand"]))

        threads = [threading.Thread(target=read, args=(index % 4,)) for index in range(40)]
        for thread in threads:
            thread.start()
        redis.Redis.from_url(redis_url).execute_command("CLIENT", "PAUSE", 2000)
        barrier.wait()
        for thread in threads:
            thread.join()
        assert sorted(answers) == sorted((index % 4, 200, hands[index % 4]) for index in range(40))
        opened = _redis_connections(redis_port, port) - before
        if pipelining == "1":
            assert opened == set(), opened  # no connection opened for the burst
        else:
            assert opened, before  # a connection per call in flight


def _listening_sockets(port: int) -> int:
    """How many sockets listen on 127.0.0.1:`port` (from the kernel's own table)."""
    local = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as table:
        return sum(1 for line in table.readlines()[1:]
                   if line.split()[1] == local and line.split()[3] == "0A")  # 0A: LISTEN


def _established_per_worker(port: int) -> list[int]:
    """Connections each process listening on `port` holds (the workers: with SO_REUSEPORT the master
    listens on nothing)."""
    return [sum(1 for c in connections if c.laddr.port == port and c.status == "ESTABLISHED")
            for connections in _listeners_connections(port)]


@pytest.mark.timeout(90)
def test_each_worker_listens_on_its_own_socket_and_connections_are_spread(gunicorn_server):
    with gunicorn_server("gevent", workers=2) as base:
        port = int(base.rsplit(":", 1)[1])
        assert _listening_sockets(port) == 2  # one per worker (SO_REUSEPORT), none shared from the master
        # A burst of keep-alive connections, opened at once as a bench or a crowd of bots would: on one
        # shared socket a single idle worker could accept them all.
        clients = [httpx.Client(timeout=10) for _ in range(32)]
        try:
            for client in clients:
                assert client.get(f"{base}/api/games").status_code == 200
            per_worker = _established_per_worker(port)
            assert len(per_worker) == 2 and sum(per_worker) == 32
            assert min(per_worker) >= 4, per_worker  # hashed over two sockets: 4 or fewer has odds < 1e-5
        finally:
            for client in clients:
                client.close()


@pytest.mark.timeout(60)
def test_the_server_refuses_a_port_another_server_listens_on(redis_url, key_prefix):
    import socket
    import subprocess

    from devstack import devserve
    from tests.conftest import REPO_ROOT

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url,
               "TA_KEY_PREFIX": key_prefix, "TA_BIND": f"127.0.0.1:{port}", "TA_LOG_LEVEL": "warning"}
        server = subprocess.run(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env, capture_output=True,
                                text=True, timeout=45)
    assert server.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in server.stderr


@pytest.mark.timeout(60)
def test_the_workers_run_the_compiled_engine_when_it_is_built(gunicorn_server):
    import psutil

    from engine import compiled

    with gunicorn_server("gevent", workers=1) as base:
        port = int(base.rsplit(":", 1)[1])
        assert httpx.get(f"{base}/api/games", timeout=10).status_code == 200  # the worker plays the rules
        workers = []
        for process in psutil.process_iter():
            try:
                if any(c.laddr.port == port and c.status == psutil.CONN_LISTEN
                       for c in process.net_connections("tcp")):
                    workers.append({m.path for m in process.memory_maps()})
            except (psutil.AccessDenied, psutil.NoSuchProcess):
                continue
        assert len(workers) == 1
        # gunicorn_conf.on_starting activates the build in the master; the forked worker imports the app.
        loaded = {path for path in workers[0] if path.startswith(str(compiled.BUILD))}
        assert bool(loaded) is compiled.usable(), loaded
