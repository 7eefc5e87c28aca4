"""Post-run checks: tables are whole (log, version, views agree), replays re-verify with the engine's CLI,
and every finished arena match is rated exactly once. Used by the load scripts and the reliability tests."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis

import engine
from core import keys
from core.arena.elo import INITIAL_RATING

REPO_ROOT = Path(__file__).resolve().parent.parent


def table_problems(conn: redis.Redis, prefix: str, table_id: str) -> list[str]:
    """Why the stored table is not consistent (empty list = whole): the move log replays legally from the
    seed, its length is the version, the status and the stored views agree with that version."""
    raw = conn.hgetall(keys.table(prefix, table_id))
    if not raw:
        return [f"{table_id}: table hash missing"]
    problems = []
    version = int(raw["version"])
    moves = [json.loads(m) for m in conn.lrange(keys.table_moves(prefix, table_id), 0, -1)]
    if len(moves) != version:
        problems.append(f"{table_id}: {len(moves)} logged moves but version {version}")
    record = {
        "game": raw["game"],
        "players": int(raw["players"]),
        "options": json.loads(raw["options"]),
        "seed": int(raw["seed"]),
        "dealing": int(raw["dealing"]),
        "moves": moves,
    }
    if "deals" in raw:
        record["deals"] = json.loads(raw["deals"])
    try:
        game = engine.load(record)
    except engine.EngineError as error:
        return [*problems, f"{table_id}: move log does not replay: {error}"]
    over = raw["status"] == "over"
    if game.over != over:
        problems.append(f"{table_id}: status {raw['status']} but the replayed game over={game.over}")
    if over and json.loads(raw.get("record", "null")) != game.record():
        problems.append(f"{table_id}: stored final record differs from the replayed one")
    views = conn.hgetall(keys.table_views(prefix, table_id))
    for name, view in views.items():
        if name.startswith("t:"):  # a copy of a seat's token hash, not a view
            continue
        if json.loads(view).get("version") != version:
            problems.append(f"{table_id}: view {name} is not at version {version}")
    if json.loads(raw["to_act"]) != list(game.to_act()):
        problems.append(f"{table_id}: to_act disagrees with the replayed game")
    return problems


def all_table_ids(conn: redis.Redis, prefix: str) -> list[str]:
    return list(conn.zrange(keys.tables_index(prefix), 0, -1))


def replay_cli_failures(records: list[dict[str, Any]], parallel: int = 2) -> list[str]:
    """Run `python -m engine replay FILE --json` on every record; the failures (empty = all verified)."""
    with tempfile.TemporaryDirectory(prefix="ta-replays-") as directory:
        paths = []
        for index, record in enumerate(records):
            path = Path(directory) / f"{index}.json"
            path.write_text(json.dumps(record))
            paths.append(path)

        def check(path: Path) -> str | None:
            done = subprocess.run(
                [sys.executable, "-m", "engine", "replay", str(path), "--json"],
                cwd=REPO_ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            try:
                summary = json.loads(done.stdout)
            except ValueError:
                summary = {}
            if done.returncode != 0 or not summary.get("ok") or not summary.get("over"):
                return f"{path.name}: rc={done.returncode} {done.stdout[:200]} {done.stderr[-300:]}"
            return None

        with ThreadPoolExecutor(parallel) as pool:
            return [failure for failure in pool.map(check, paths) if failure]


def match_ids(conn: redis.Redis, prefix: str) -> list[str]:
    head = keys.arena_match(prefix, "")
    found = []
    for key in conn.scan_iter(match=f"{head}*", count=1000):
        rest = key[len(head) :]
        if ":" not in rest:  # not :games, :lease or :applied
            found.append(rest)
    return sorted(found)


def rating_audit(conn: redis.Redis, prefix: str) -> dict[str, Any]:
    """Every rated match applied exactly once: idempotency key set, one history entry per entrant, games
    counts and ratings equal to 1500 + the sum of the deltas of that bot's rated matches. Void matches (every
    bot forfeited) were recorded once and moved no rating; aborted matches moved nothing.

    Only on a quiet store: its reads are not one snapshot, and a match applied between two of them shows
    as a difference that is not there.
    """
    problems: list[str] = []
    by_status: dict[str, int] = defaultdict(int)
    expected_games: dict[tuple[str, str], int] = defaultdict(int)
    expected_delta: dict[tuple[str, str], float] = defaultdict(float)
    rated_for: dict[tuple[str, str], set[str]] = defaultdict(set)
    docs = {}
    for match_id in match_ids(conn, prefix):
        raw = conn.get(keys.arena_match(prefix, match_id))
        if raw is None:
            continue
        doc = json.loads(raw)
        docs[match_id] = doc
        status = doc["status"]
        by_status[status] += 1
        ladder = doc["ladder_id"]
        applied = conn.get(keys.arena_match_applied(prefix, match_id))
        if status == "rated":
            if applied is None or applied.startswith("aborted"):
                problems.append(f"{match_id}: rated but its idempotency key is {applied!r}")
            for bot, delta in doc["result"]["deltas"].items():
                expected_games[(ladder, bot)] += 1
                expected_delta[(ladder, bot)] += delta
                rated_for[(ladder, bot)].add(match_id)
        elif status == "void" and (applied is None or applied.startswith("aborted")):
            problems.append(f"{match_id}: void (recorded, not rated) but its idempotency key is {applied!r}")
        elif status == "aborted" and applied is not None and not applied.startswith("aborted"):
            problems.append(f"{match_id}: aborted but rated ({applied!r})")
    history_checked = 0
    for (ladder, bot), games in expected_games.items():
        stats = conn.hgetall(keys.arena_stats(prefix, ladder, bot))
        if int(stats.get("matches", 0)) != games:
            problems.append(f"{ladder}/{bot}: stats say {stats.get('matches')} matches, "
                            f"{games} rated matches")
        rating = conn.zscore(keys.arena_ratings(prefix, ladder), bot)
        want = INITIAL_RATING + expected_delta[(ladder, bot)]
        if rating is None or not math.isclose(rating, want, abs_tol=1e-6):
            problems.append(f"{ladder}/{bot}: rating {rating} but 1500 + sum(deltas) = {want}")
        history = [
            json.loads(h)["match"] for h in conn.lrange(keys.arena_history(prefix, ladder, bot), 0, -1)
        ]
        if len(history) < 500:  # HISTORY_LIMIT trims older entries; compare only untrimmed histories
            history_checked += 1
            if sorted(history) != sorted(rated_for[(ladder, bot)]):
                doubled = sorted({m for m in history if history.count(m) > 1})
                problems.append(
                    f"{ladder}/{bot}: history has {len(history)} entries for "
                    f"{len(rated_for[(ladder, bot)])} rated matches (doubled: {doubled[:3]})"
                )
    return {
        "matches": dict(by_status),
        "bots_checked": len(expected_games),
        "histories_checked": history_checked,
        "problems": problems,
        "docs": docs,
    }
