"""Hostile bot URLs through the real API over HTTP, with private URLs disallowed.

Every hostile URL is refused at registration (and on update) with a problem+json naming the `url`
field, and listeners on loopback — on port 80, where the port-less URLs point, and on a port spelled out in
the URL — see no connection at all: not from the registration check, not from the arena's health check of a
record that somehow holds such a URL (connect-time guard, no DNS-rebinding bypass).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
import redis

from arena.jobs import check_bot_health
from core.arena.store import ArenaStore
from tests.conftest import serving

ISSUE_URLS = [
    "http://127.1/",
    "http://2130706433/",
    "http://[::ffff:7f00:1]/",
    "http://169.254.169.254/",
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",
    "http://0.0.0.0/",
]
LOOPBACK_NAMES = ["localhost", "LOCALHOST"]


class Listener:
    """Accepts and counts TCP connections on a loopback address until closed."""

    def __init__(self, family: int, address: tuple) -> None:
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            self.sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        self.sock.bind(address)
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[tuple] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.append(peer)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@pytest.fixture
def listeners() -> Iterator[tuple[list[Listener], int, bool]]:
    """Listeners on a free port (IPv4 and IPv6 loopback) and, if we may bind it, on port 80 everywhere."""
    started = [Listener(socket.AF_INET, ("127.0.0.1", 0))]
    port = started[0].port
    with contextlib.suppress(OSError):
        started.append(Listener(socket.AF_INET6, ("::1", port)))
    on_port_80 = False
    with contextlib.suppress(OSError):
        started.append(Listener(socket.AF_INET, ("0.0.0.0", 80)))
        on_port_80 = True
        started.append(Listener(socket.AF_INET6, ("::", 80)))
    yield started, port, on_port_80
    for listener in started:
        listener.close()


def hostile_urls(port: int, on_port_80: bool) -> list[str]:
    with_port = [url.rstrip("/") + f":{port}/" for url in ISSUE_URLS]
    names = [f"http://{name}:{port}/bot" for name in LOOPBACK_NAMES]
    return (ISSUE_URLS if on_port_80 else []) + with_port + names + ["http://localhost/"]


def test_hostile_bot_urls_are_refused_through_the_api_and_nothing_connects(
    make_app, listeners, redis_url, key_prefix
):
    started, port, on_port_80 = listeners
    app = make_app(ALLOW_PRIVATE_BOT_URLS=False)
    urls = hostile_urls(port, on_port_80)
    with serving(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        plain = http.post("/api/bots", json={"name": "plain-bot", "games": ["spot-hearts"]})
        assert plain.status_code == 201
        bot_id, owner = plain.json()["bot_id"], plain.json()["owner_token"]
        for index, url in enumerate(urls):
            for answer in (
                http.post("/api/bots", json={"name": f"ssrf-{index}", "games": ["spot-hearts"], "url": url}),
                http.patch(
                    f"/api/bots/{bot_id}", json={"url": url}, headers={"Authorization": f"Bearer {owner}"}
                ),
            ):
                assert answer.status_code == 422, (url, answer.text)
                assert answer.headers["content-type"].startswith("application/problem+json")
                problem = answer.json()
                assert problem["type"] == "/problems/unsafe-bot-url", url
                assert "url" in problem["errors"]
                assert "address" in problem["detail"] and "ALLOW_PRIVATE_BOT_URLS" in problem["detail"], url
        listed = http.get("/api/bots").json()
        assert [b["name"] for b in listed] == ["plain-bot"] and listed[0]["url"] is None

    # A record holding such a URL anyway (registered while an operator allowed private URLs): the arena's
    # calls refuse it at connect time, and the bot ends up paused, never called.
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    for url in urls:
        result = check_bot_health(store, "sneaky", url, timeout_s=1.0, allow_private=False)
        assert not result["ok"], url
    assert store.health("sneaky")["paused"]
    assert all(listener.accepted == [] for listener in started), [lr.accepted for lr in started]


def test_the_listeners_do_see_a_connection_when_private_urls_are_allowed(listeners, redis_url, key_prefix):
    """Control: the same listener and health check do connect when the operator allows private URLs."""
    started, port, _ = listeners
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    check_bot_health(store, "local", f"http://127.1:{port}/", timeout_s=1.0, allow_private=True)
    assert started[0].accepted
