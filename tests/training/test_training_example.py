"""clients/examples/train_policy.py for real: trained on the CPU in under a minute, evaluated, served,
registered with the API under gunicorn, and seated by `python -m arena scheduler` in a ladder match that a
`python -m arena worker` plays and rates, without a strike. A drill: 40 s of training and a whole stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from core.arena.model import LadderConfig, MatchStatus
from core.arena.store import ArenaStore

REPO = Path(__file__).resolve().parents[2]
HOUSE = ("heuristic", "eps-0.5", "random")


@pytest.mark.drill
@pytest.mark.timeout(600)
def test_the_example_trains_serves_registers_and_plays_a_rated_ladder_match(
        gunicorn_server: Any, arena_process: Any, redis_url: str, key_prefix: str) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("sore-spot-4p", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE,
                                   max_active=1, house_only_gap_s=3600))
    with gunicorn_server() as api_url:
        for args in (["scheduler", "--no-default-ladders"], ["worker", "--simple"]):
            arena_process(*args, env={"TA_ARENA_TICK_S": "0.2"})
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(REPO / "clients" / "examples" / "train_policy.py"), "--api", api_url,
             "--seconds", "40", "--eval-deals", "200", "--watch-timeout", "180"],
            cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
            timeout=500)
        wall = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"example: {wall:.1f} s wall, {json.dumps(report)}")
    assert report["training"]["seconds"] < 60
    for opponents in ("random", "heuristic"):
        points = report["mean_points"][opponents]
        assert points["trained"] > points["random_play"], (opponents, points)
    match = report["ladder_match"]
    assert match["status"] == "rated" and match["strikes"] == [] and match["ladder"] == "sore-spot-4p"
    doc = store.match(match["match"])
    assert doc["status"] == MatchStatus.RATED
    assert report["bot_id"] in {e["bot_id"] for e in doc["spec"]["entrants"]}
    assert [s for s in doc["result"]["strikes"] if s["bot_id"] == report["bot_id"]] == []
