"""The backup-and-restore drill (`python -m loadtest backup-restore`, docs/deploy.md "Backups") on a real
stack: rated matches, BGSAVE and a copy of the RDB, Redis's directory deleted, the copy restored through an
RDB load and an AOF rewrite; every key, rating, bot record, match and replay compared exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis

from loadtest.backup import backup_restore, comparable, differences, store_contents
from tests.conftest import REPO_ROOT, log_folder_on_failure


@pytest.mark.drill
@pytest.mark.timeout(180)
def test_a_restored_backup_gives_back_every_rating_bot_match_and_replay(request) -> None:
    result = backup_restore(bots=4, min_rated=2, seconds=60)
    log_folder_on_failure(request.node, Path(result["workdir"]))
    shown = {k: v for k, v in result.items() if k not in ("backup", "log_tracebacks")}
    assert result["store_differences"] == [] and result["api_differences"] == [], shown
    assert result["passed"], (result["failed_checks"], shown)
    assert result["keys_after_wipe"] == 0 and result["keys_compared"] > 100
    assert result["keys_before"] == result["keys_compared"] + result["keys_expiring_not_compared"]
    assert result["rated_before"] >= 2 and result["replays_compared"] >= 2 and result["ladders_compared"] >= 1
    assert result["rated_after_resume"] > 0  # the arena goes on from the restored ratings


def test_the_comparison_finds_a_changed_value_a_lost_key_and_a_lost_expiry(redis_conn: redis.Redis,
                                                                          key_prefix: str) -> None:
    redis_conn.hset(f"{key_prefix}bot:1", mapping={"name": "a", "rating": "1500"})
    redis_conn.rpush(f"{key_prefix}moves", "1", "2")
    redis_conn.zadd(f"{key_prefix}ratings", {"b1": 1510.5, "b2": 1490})
    redis_conn.sadd(f"{key_prefix}ladders", "x", "y")
    redis_conn.set(f"{key_prefix}doc", "{}", ex=600)
    before = comparable(store_contents(redis_conn, key_prefix))
    assert set(before) == {f"{key_prefix}{k}" for k in ("bot:1", "moves", "ratings", "ladders", "doc")}
    assert differences(before, comparable(store_contents(redis_conn, key_prefix))) == []
    redis_conn.zadd(f"{key_prefix}ratings", {"b1": 1511})
    redis_conn.delete(f"{key_prefix}moves")
    redis_conn.persist(f"{key_prefix}doc")
    found = differences(before, comparable(store_contents(redis_conn, key_prefix)))
    assert found == [f".{key_prefix}doc.expires: True != False",
                     f".{key_prefix}moves: missing after restore",
                     f".{key_prefix}ratings.value[1][1]: 1510.5 != 1511.0"], found


def test_the_drill_command_answers_a_wrong_option_in_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "loadtest", "backup-restore", "--bots", "many"],
                          cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "invalid int value" in done.stderr.strip().splitlines()[-1]
