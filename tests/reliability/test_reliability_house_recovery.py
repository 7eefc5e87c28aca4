"""A lost house-bot job must not stall a practice table forever (found by `loadtest faults redis-restart`).

A drive job can be lost: enqueued just before a Redis restart, or running in a worker that died. Nothing else
would ever move the house seats, and the polling client would long-poll an unchanging table for good. A
long-poll that waited and saw nothing change re-kicks the house bots when they are the ones to act.
"""

from __future__ import annotations

import time

import httpx
import pytest

from core.tables.store import SeatKind, SeatSpec, TableStore
from tests.conftest import serving


@pytest.mark.drill
def test_a_long_poll_on_a_stalled_table_revives_its_house_bots(make_app, redis_conn, key_prefix, rq_worker):
    app = make_app()
    tables = TableStore(redis_conn, key_prefix)
    # Created straight in the store: no drive job was ever enqueued, as if it had been lost.
    record = tables.create_table("spot-hearts", 4, {"target": 1},
                                 [SeatSpec(SeatKind.HOUSE, "heuristic")] * 3 + [SeatSpec(SeatKind.OPEN)])
    rq_worker(app.config["RQ_QUEUE"])
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        token = http.post(f"/api/tables/{record.table_id}/seats/3/join").json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        state_path = f"/api/tables/{record.table_id}/seats/3"
        started = time.monotonic()
        version = 0
        while version < 3 and time.monotonic() - started < 20:  # the three house passes
            version = http.get(state_path, params={"after": 2, "wait": 2}, headers=headers).json()["version"]
        assert version == 3, "the house bots of a stalled table never moved again"
