"""`python -m loadtest backup-restore`: back Redis up, lose it, restore it; ratings and matches come back.
Every key under the prefix and every API answer are read before and after and compared exactly; then the
arena rates one more match on the restored store.

Design: docs/reliability.md#backup-and-restore
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import redis

import engine
from devstack.stack import Stack
from devstack.verify import match_ids, rating_audit
from loadtest.ladder import active_count, drain_and_stop, register_bots

DIFFERENCES_SHOWN = 20  # differences listed in the report
EXPIRY_MARGIN_S = 5.0


def store_contents(conn: redis.Redis, prefix: str) -> dict[str, Any]:
    """Every key under `prefix`: its type, its value read by type and its time to live (ms; -1: none)."""
    contents: dict[str, Any] = {}
    for key in sorted(conn.scan_iter(match=f"{prefix}*", count=1000)):
        kind = conn.type(key)
        value: Any
        if kind == "none":  # expired since the scan listed it
            continue
        if kind == "string":
            value = conn.get(key)
        elif kind == "hash":
            value = conn.hgetall(key)
        elif kind == "list":
            value = conn.lrange(key, 0, -1)
        elif kind == "set":
            value = sorted(conn.smembers(key))
        elif kind == "zset":
            value = conn.zrange(key, 0, -1, withscores=True)
        elif kind == "stream":
            value = conn.xrange(key)
        else:
            value = None
        ttl_ms = conn.pttl(key)
        if ttl_ms == -2:  # expired while it was read (a match's lease): as good as never listed
            continue
        contents[key] = {"type": kind, "value": value, "ttl_ms": ttl_ms}
    return contents


def comparable(contents: dict[str, Any], elapsed_s: float = 0.0) -> dict[str, Any]:
    """`contents` as it must be found `elapsed_s` later: keys whose time to live runs out by then left out (a
    match's lease lives seconds), and of a TTL only whether there is one (its value moves with the clock).

    >>> comparable({"a": {"type": "string", "value": "1", "ttl_ms": 500},
    ...             "b": {"type": "string", "value": "2", "ttl_ms": -1}}, elapsed_s=1)
    {'b': {'type': 'string', 'value': '2', 'expires': False}}
    """
    limit_ms = elapsed_s * 1000
    return {key: {"type": item["type"], "value": item["value"], "expires": item["ttl_ms"] >= 0}
            for key, item in contents.items() if not 0 <= item["ttl_ms"] <= limit_ms}


def api_state(api_url: str, bot_ids: list[str], matches: list[str]) -> dict[str, Any]:
    """What the API answers about the arena: the ladders with their ratings, each bot's record and its history
    on each ladder, each match and the replay of each of its games."""
    state: dict[str, Any] = {"ladders": {}, "bots": {}, "histories": {}, "matches": {}, "replays": {}}
    with httpx.Client(base_url=api_url, timeout=30) as http:

        def get(path: str) -> Any:
            answer = http.get(path)
            return {"status": answer.status_code, "body": answer.json()}

        ladders = get("/api/ladders")
        state["ladder_list"] = ladders
        ladder_ids = [ladder["ladder_id"] for ladder in ladders["body"]] if ladders["status"] == 200 else []
        for ladder_id in ladder_ids:
            state["ladders"][ladder_id] = get(f"/api/ladders/{ladder_id}")
        for bot_id in bot_ids:
            state["bots"][bot_id] = get(f"/api/bots/{bot_id}")
            for ladder_id in ladder_ids:
                history = f"/api/ladders/{ladder_id}/bots/{bot_id}/history"
                state["histories"][history] = get(history)
        for match_id in matches:
            match = get(f"/api/matches/{match_id}")
            state["matches"][match_id] = match
            for replay in (match["body"].get("replays") or []) if match["status"] == 200 else []:
                state["replays"][replay] = get(replay)
    return state


def differences(before: Any, after: Any, path: str = "") -> list[str]:
    """Where two JSON-like values differ, as `path: before != after` lines (empty: equal).

    >>> differences({"a": [1, 2], "b": 1}, {"a": [1, 3], "c": 1})
    ['.a[1]: 2 != 3', '.b: missing after restore', '.c: not there before']
    """
    if isinstance(before, dict) and isinstance(after, dict):
        found: list[str] = []
        for key in sorted(set(before) | set(after), key=str):
            if key not in after:
                found.append(f"{path}.{key}: missing after restore")
            elif key not in before:
                found.append(f"{path}.{key}: not there before")
            else:
                found += differences(before[key], after[key], f"{path}.{key}")
        return found
    if isinstance(before, list | tuple) and isinstance(after, list | tuple):
        if len(before) != len(after):
            return [f"{path}: {len(before)} items != {len(after)}"]
        return [d for index, (b, a) in enumerate(zip(before, after, strict=True))
                for d in differences(b, a, f"{path}[{index}]")]
    return [] if before == after else [f"{path}: {str(before)[:80]} != {str(after)[:80]}"]


def snapshot(conn: redis.Redis, destination: Path, timeout: float = 60.0) -> Path:
    """BGSAVE, wait until that save has finished, copy the RDB to `destination`; return the copy."""
    before = conn.lastsave()
    conn.bgsave()
    deadline = time.monotonic() + timeout
    while True:
        persistence = conn.info("persistence")
        if not persistence["rdb_bgsave_in_progress"] and conn.lastsave() != before:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"BGSAVE did not finish in {timeout:g} s")
        time.sleep(0.05)
    if persistence["rdb_last_bgsave_status"] != "ok":
        raise RuntimeError(f"BGSAVE failed: {persistence['rdb_last_bgsave_status']}")
    directory, name = conn.config_get("dir")["dir"], conn.config_get("dbfilename")["dbfilename"]
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(Path(directory) / name, destination)
    return destination


def wait_aof_written(conn: redis.Redis, timeout: float = 60.0) -> None:
    """After ``CONFIG SET appendonly yes``: wait until the rewrite that writes the AOF from memory is done."""
    deadline = time.monotonic() + timeout
    while True:
        info = conn.info("persistence")
        if info["aof_enabled"] and not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            if info.get("aof_last_bgrewrite_status", "ok") != "ok":
                raise RuntimeError("the AOF rewrite failed")
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the AOF was not written in {timeout:g} s")
        time.sleep(0.05)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rated(conn: redis.Redis, prefix: str) -> int:
    return int(rating_audit(conn, prefix)["matches"].get("rated", 0))


def backup_restore(bots: int, min_rated: int, seconds: float) -> dict[str, Any]:
    """The drill: play until `min_rated` matches are rated (at most `seconds`), back up, wipe, restore,
    compare; then one more match rated on the restored store."""
    stack = Stack(api_workers=1)
    backup_dir = Path(tempfile.mkdtemp(prefix="ta-backup-"))
    try:
        stack.start_redis()
        stack.start_api()
        bot_ids = register_bots(stack.api_url, stack.start_fast_bots(bots), list(engine.GAMES))
        stack.start_arena(2)
        conn = stack.redis()
        started = time.monotonic()
        while _rated(conn, stack.prefix) < min_rated and time.monotonic() - started < seconds:
            time.sleep(0.5)
        # Quiet: no new matches, the enqueued ones finish, the workers stop; Redis and the API stay.
        stack.children["arena-scheduler"].stop()
        while active_count(conn, stack.prefix) and time.monotonic() - started < seconds + 60:
            time.sleep(0.2)
        for name in [n for n in stack.children if n.startswith("arena-worker")]:
            stack.children[name].stop()
        played_s = time.monotonic() - started
        matches = match_ids(conn, stack.prefix)
        api_before = api_state(stack.api_url, bot_ids, matches)
        store_before = store_contents(conn, stack.prefix)
        read_at = time.monotonic()

        # 1. Snapshot.
        backup = snapshot(conn, backup_dir / "dump.rdb")
        backup_sha = _sha256(backup)
        # 2. Wipe: Redis stopped, its directory deleted; a Redis on it is empty.
        stack.children["api"].stop()
        stack.stop_redis(hard=False)
        shutil.rmtree(stack.data_dir)
        stack.start_redis()
        keys_after_wipe = int(stack.redis().dbsize())
        stack.stop_redis(hard=False)
        # 3. Restore: the RDB back, loaded with the AOF off, the AOF written from memory, then a normal start.
        shutil.rmtree(stack.data_dir)
        shutil.copy2(backup, stack.data_dir / "dump.rdb")
        stack.start_redis(extra_args=["--appendonly", "no"])
        conn = stack.redis()
        conn.config_set("appendonly", "yes")
        wait_aof_written(conn)
        stack.stop_redis(hard=False)
        (stack.data_dir / "dump.rdb").unlink()  # what comes back now comes from the AOF alone
        stack.start_redis()
        conn = stack.redis()
        store_after = store_contents(conn, stack.prefix)
        # Keys that expire within EXPIRY_MARGIN_S of this read (match leases) may or may not be found: neither
        # side counts them.
        elapsed_s = time.monotonic() - read_at
        before_kept = comparable(store_before, elapsed_s + EXPIRY_MARGIN_S)
        after_kept = comparable(store_after, EXPIRY_MARGIN_S)
        expired = len(store_before) - len(before_kept)
        stack.start_api()
        api_after = api_state(stack.api_url, bot_ids, matches)
        store_diff = differences(before_kept, after_kept)
        api_diff = differences(api_before, api_after)

        # The service goes on from the restored state.
        rated_restored = _rated(conn, stack.prefix)
        stack.start_arena(2)
        resumed_at = time.monotonic()
        while _rated(conn, stack.prefix) <= rated_restored and time.monotonic() - resumed_at < seconds:
            time.sleep(0.5)
        rated_after_resume = _rated(conn, stack.prefix) - rated_restored
        crashed = stack.crashed()
        # The audit reads many keys one after another: on a store still being written (a match applied
        # between two of its reads), it would find differences that are not there.
        drain_and_stop(stack, 60)
        audit = rating_audit(conn, stack.prefix)
        audit.pop("docs")
        result = {
            "command": f"python -m loadtest backup-restore --bots {bots} --min-rated {min_rated} "
            f"--seconds {seconds:g}",
            "played_s": round(played_s, 1),
            "backup": {"file": "dump.rdb (BGSAVE)", "bytes": backup.stat().st_size, "sha256": backup_sha},
            "keys_before": len(store_before),
            "keys_after_wipe": keys_after_wipe,
            "keys_compared": len(before_kept),
            "keys_after_restore": len(store_after),
            "keys_expiring_not_compared": expired,
            "matches": len(matches),
            "rated_before": sum(1 for m in api_before["matches"].values()
                                if m["body"].get("status") == "rated"),
            "bots": len(bot_ids),
            "replays_compared": len(api_before["replays"]),
            "ladders_compared": len(api_before["ladders"]),
            "store_differences": store_diff[:DIFFERENCES_SHOWN],
            "api_differences": api_diff[:DIFFERENCES_SHOWN],
            "rated_after_resume": rated_after_resume,
            "rating_problems": audit["problems"][:DIFFERENCES_SHOWN],
            "processes_died": crashed,
            "log_tracebacks": stack.log_errors(),
            "workdir": str(stack.workdir),
        }
        checks = {
            "rated_before": result["rated_before"] >= min_rated,
            "replays_compared": result["replays_compared"] > 0,
            "keys_after_wipe": keys_after_wipe == 0,
            "store_differences": not store_diff,
            "api_differences": not api_diff,
            "rated_after_resume": rated_after_resume > 0,
            "rating_problems": not audit["problems"],
            "processes_died": not crashed,
        }
        result["failed_checks"] = [name for name, ok in checks.items() if not ok]
        result["passed"] = not result["failed_checks"]
        return result
    finally:
        stack.stop()
        shutil.rmtree(backup_dir, ignore_errors=True)
