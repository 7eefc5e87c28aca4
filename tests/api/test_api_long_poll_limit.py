"""Long-polls held at once per client address (MAX_LONG_POLLS_PER_ADDRESS), over real HTTP: one more is
answered 429 in application/problem+json at once, other addresses park as before, and a slot comes back when
its poll ends. Spectators woken by one move share one rendering of the table, and a plain read is never
answered from it stale."""

from __future__ import annotations

import doctest
import socket
import threading
import time
from typing import Any

import httpx
from api_helpers import app_watcher, bearer, join, open_table

import api.ratelimit
import core.tables.cache
from api.ratelimit import LONG_POLLS
from tests.conftest import serving
from tests.waiting import wait_until

PROBLEM = "application/problem+json"


def park(base: str, table_id: str, after: int, answers: list[Any], forwarded_for: str,
         wait: float = 30) -> None:
    response = httpx.get(f"{base}/api/tables/{table_id}", params={"after": after, "wait": wait},
                         headers={"X-Forwarded-For": forwarded_for}, timeout=60)
    answers.append(response)


def test_one_address_holds_at_most_its_long_polls_and_gets_them_back(make_app: Any) -> None:
    app = make_app(MAX_LONG_POLLS_PER_ADDRESS=2, TRUSTED_PROXIES=["127.0.0.1"])
    client = app.test_client()
    table_id = open_table(client, ["open"] * 4)["table_id"]
    token = join(client, table_id, 0)
    slots = app.extensions[LONG_POLLS]
    with serving(app) as base:
        answers: list[Any] = []
        parked = [threading.Thread(target=park, args=(base, table_id, 0, answers, "198.51.100.7"))
                  for _ in range(2)]
        for thread in parked:
            thread.start()
        wait_until(lambda: slots.held == 2, what="both long-polls parked")
        assert not answers

        started = time.monotonic()
        refused = httpx.get(f"{base}/api/tables/{table_id}", params={"after": 0, "wait": 30},
                            headers={"X-Forwarded-For": "198.51.100.7"}, timeout=60)
        assert time.monotonic() - started < 15  # answered at once, not parked for its 30 s
        assert refused.status_code == 429 and refused.headers["Content-Type"].startswith(PROBLEM)
        assert refused.json()["status"] == 429 and "long-polls" in refused.json()["detail"]
        assert int(refused.headers["Retry-After"]) >= 1
        # The seat's long-poll counts against the same address.
        seat = httpx.get(f"{base}/api/tables/{table_id}/seats/0", params={"after": 0, "wait": 5},
                         headers={**bearer(token), "X-Forwarded-For": "198.51.100.7"}, timeout=30)
        assert seat.status_code == 429 and seat.headers["Content-Type"].startswith(PROBLEM)

        other: list[Any] = []
        elsewhere = threading.Thread(target=park, args=(base, table_id, 0, other, "203.0.113.9"))
        elsewhere.start()
        wait_until(lambda: slots.held == 3, what="the other address's long-poll parked")
        assert not other  # another address parks as before

        state = client.get(f"/api/tables/{table_id}/seats/0", headers=bearer(token)).get_json()
        legal = state["view"]["legal"]
        moved = client.post(f"/api/tables/{table_id}/seats/0/moves", headers=bearer(token),
                            json={"move": legal[:3], "expected_version": 0})
        assert moved.status_code == 200
        for thread in [*parked, elsewhere]:
            thread.join(30)
        assert [answer.json()["version"] for answer in [*answers, *other]] == [1, 1, 1]
        assert slots.held == 0  # every slot given back

        again: list[Any] = []
        park(base, table_id, 1, again, "198.51.100.7", wait=0.3)
        assert again[0].status_code == 200 and again[0].json()["version"] == 1
        assert slots.held == 0


def test_a_poll_whose_client_hung_up_gives_everything_back(make_app: Any) -> None:
    """A client that parks a long-poll and hangs up leaves nothing behind: its slot, its waiter and the held
    gauge are given back when the wait ends (at its `wait`; nothing answers a closed connection sooner)."""
    app = make_app(MAX_LONG_POLLS_PER_ADDRESS=1)
    client = app.test_client()
    table_id = open_table(client, ["open"] * 4)["table_id"]
    slots = app.extensions[LONG_POLLS]
    watcher = app_watcher(app)
    with serving(app) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as hung_up:
            hung_up.sendall(f"GET /api/tables/{table_id}?after=0&wait=3 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            # The slot is taken before the waiter registers: both, before it hangs up.
            wait_until(lambda: slots.held == 1 and watcher.waiting >= 1, what="the long-poll parked")
        wait_until(lambda: slots.held == 0 and watcher.waiting == 0,
                   what="the slot and the waiter given back at the poll's wait")
        answer = httpx.get(f"{base}/api/tables/{table_id}", params={"after": 0, "wait": 0.2}, timeout=10)
        assert answer.status_code == 200  # the address's one slot is free again


def test_a_plain_read_is_never_an_older_rendering(make_app: Any) -> None:
    """The public table a long-poll shares is kept per version: a plain read after a move shows the move,
    and a long-poll at the old version gets the new one. A seat joined keeps the version, so the shared
    answer is kept only for a moment (a move's fan-out): past it, the join shows."""
    client = make_app().test_client()
    table_id = open_table(client, ["open"] * 4)["table_id"]
    token = join(client, table_id, 0)
    first = client.get(f"/api/tables/{table_id}", query_string={"after": -1, "wait": 1}).get_json()
    assert first["version"] == 0
    legal = client.get(f"/api/tables/{table_id}/seats/0", headers=bearer(token)).get_json()["view"]["legal"]
    client.post(f"/api/tables/{table_id}/seats/0/moves", headers=bearer(token),
                json={"move": legal[:3], "expected_version": 0})
    plain = client.get(f"/api/tables/{table_id}").get_json()
    polled = client.get(f"/api/tables/{table_id}", query_string={"after": 0, "wait": 5}).get_json()
    assert plain["version"] == polled["version"] == 1 and plain == polled
    assert plain["seats"][0]["joined"] is True

    # A seat joined keeps the version: the shared answer at version 1 shows it once its moment is over.
    join(client, table_id, 1)

    def joined_shows() -> dict[str, Any] | None:
        later = client.get(f"/api/tables/{table_id}", query_string={"after": 0, "wait": 5}).get_json()
        return later if later["seats"][1]["joined"] is True else None

    assert wait_until(joined_shows, what="the long-poll's answer shows the seat joined")["version"] == 1
    join(client, table_id, 2)
    assert client.get(f"/api/tables/{table_id}").get_json()["seats"][2]["joined"] is True  # a plain read


def test_the_caches_examples_hold() -> None:
    for module in (core.tables.cache, api.ratelimit):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted >= 3
