"""History in Redis: the bytes a rated match, a bot and an analysis leave behind, and what a day costs,
measured on a throwaway Redis with the arena's own worker and analysis code.

Design: docs/scaling.md#how-each-curve-is-measured
"""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import Sequence
from typing import Any

import redis

from arena.analysis import run_analysis
from arena.jobs import play_match
from core import keys
from core.analysis import AnalysisSubject
from core.arena.model import LadderConfig, MatchSpec, Member
from core.arena.registry import BotQuota, BotRegistry
from core.arena.store import ArenaStore
from core.arena.store.matches import APPLIED_TTL_S
from core.arena.store.results import HISTORY_LIMIT
from core.redis.connections import decoding_client
from core.settings import Settings
from devstack.devredis import start_throwaway
from engine.seeds import new_seed
from tools.growth.fit import FLAT, Curve

DEFAULT_SIZES = (25, 50, 100)
QUICK_SIZES = (2, 4)
PREFIX = "growth:"
LADDER = LadderConfig(ladder_id="growth-history-4p", game="spot-hearts", players=4,
                      house_bots=("random", "eps-0.8", "eps-0.6", "eps-0.4"))
DAY_S = 86_400
BOTS_MEASURED = 200
RETENTION_BOTS = 1_000  # bots whose bounded records the year's figure counts


def used_memory(conn: redis.Redis) -> int:
    return int(conn.info("memory")["used_memory"])


def key_bytes(conn: redis.Redis, key: str) -> int:
    return int(conn.memory_usage(key, samples=0) or 0)


def play(store: ArenaStore, settings: Settings, count: int) -> list[str]:
    """`count` rated matches of the ladder's house bots, created as the scheduler creates them and played
    and applied by the worker's own function."""
    played = []
    members = [Member.house(name) for name in LADDER.house_bots or ()]
    for _ in range(count):
        ratings = store.ratings(LADDER.ladder_id)
        stats = store.stats(LADDER.ladder_id, [m.bot_id for m in members])
        spec = MatchSpec(match_id=f"m{secrets.token_hex(8)}", ladder_id=LADDER.ladder_id, game=LADDER.game,
                         players=4, options=LADDER.options, seed=new_seed(), duplicate=bool(LADDER.duplicate),
                         entrants=members, deadline_ms=LADDER.deadline_ms, strike_limit=LADDER.strike_limit,
                         pre_ratings={m.bot_id: ratings.get(m.bot_id, 1500.0) for m in members},
                         pre_matches={m.bot_id: int(stats[m.bot_id]["matches"] or 0) for m in members},
                         created=time.time())
        store.create_match(spec)
        outcome = play_match(store, spec.match_id, "growth", settings)
        if outcome.get("status") != "rated":
            raise RuntimeError(f"match {spec.match_id} ended {outcome}")
        played.append(spec.match_id)
    return played


def match_key_bytes(conn: redis.Redis, match_id: str) -> dict[str, int]:
    """What one finished match holds in keys of its own."""
    return {"document": key_bytes(conn, keys.arena_match(PREFIX, match_id)),
            "replays": key_bytes(conn, keys.arena_match_games(PREFIX, match_id)),
            "idempotency_key": key_bytes(conn, keys.arena_match_applied(PREFIX, match_id)),
            "reference_count": key_bytes(conn, keys.arena_match_refs(PREFIX, match_id))}


def bot_bytes(conn: redis.Redis, count: int) -> float:
    """Bytes per bot registered through the registry (record, name, index and owner entries)."""
    registry = BotRegistry(decoding_client(conn), PREFIX,
                           quota=BotQuota(per_address=10**9, per_owner_per_ladder=10**9, per_account=10**9))
    before = used_memory(conn)
    for i in range(count):
        registry.register(f"growth-bot-{i}", ["spot-hearts"], None, address=f"10.1.{i // 250}.{i % 250}")
    return (used_memory(conn) - before) / count


def analysis_bytes(conn: redis.Redis, match_id: str) -> int:
    """Bytes of one seat's analysis of one game, made by the analysis worker's own code (10 ms budget)."""
    subject = AnalysisSubject.for_match(match_id, 0, 0, 10)
    outcome = run_analysis(conn, PREFIX, subject)
    if outcome.get("status") != "done":
        raise RuntimeError(f"analysis failed: {outcome}")
    return key_bytes(conn, keys.analysis(PREFIX, subject.key))


def retained(share: dict[str, int], bytes_per_match: float, settings: Settings,
             bots: int = RETENTION_BOTS) -> dict[str, Any]:
    """What the retention policy keeps at 1 match/s for ever after (every TTL is under a year, so a year's
    memory is this steady state): replays for ``replay_ttl``, documents and reference counts for
    ``match_ttl``, idempotency keys for their 60 days, and per bot and ladder at most HISTORY_LIMIT record
    and rating-history entries (the bytes of a match not in its own keys, shared by its four bots)."""
    per_bot_match = max(0.0, (bytes_per_match - sum(share.values())) / LADDER.players)
    kept = {
        "replays": share["replays"] * min(settings.replay_ttl, settings.match_ttl),
        "documents": (share["document"] + share["reference_count"]) * settings.match_ttl,
        "idempotency_keys": share["idempotency_key"] * APPLIED_TTL_S,
        "bot_records": per_bot_match * HISTORY_LIMIT * bots,
    }
    return {"year_at_1_match_per_s": {
        "bots": bots, "replay_ttl_s": settings.replay_ttl, "match_ttl_s": settings.match_ttl,
        "bytes_per_bot_match": round(per_bot_match),
        "gib": {name: round(value / 2**30, 2) for name, value in kept.items()},
        "total_gib": round(sum(kept.values()) / 2**30, 1)}}


def measure(sizes: Sequence[int] | None = None, *, quick: bool = False) -> list[Curve]:
    """Bytes per rated match after 25, 50 and 100 matches (quick: 2 and 4), and the costs around it."""
    sizes = tuple(sizes or (QUICK_SIZES if quick else DEFAULT_SIZES))
    server = start_throwaway()
    try:
        conn = redis.Redis.from_url(server.url)
        per_match, totals, shares = [], [], []
        for n in sizes:
            conn.flushall()  # our own throwaway server
            store = ArenaStore(conn, PREFIX)
            store.save_ladder(LADDER)
            settings = Settings(redis_url=server.url, prefix=PREFIX)
            play(store, settings, 1)  # the ladder's first match creates its per-bot keys
            before = used_memory(conn)
            played = play(store, settings, n)
            grown = used_memory(conn) - before
            per_match.append(grown / n)
            totals.append(float(grown))
            shares += [match_key_bytes(conn, match_id) for match_id in played]
        bots = bot_bytes(conn, 20 if quick else BOTS_MEASURED)
        analysis = analysis_bytes(conn, played[-1])
        conn.close()
    finally:
        server.stop()
    share = {name: round(statistics.fmean(s[name] for s in shares)) for name in shares[0]}
    bytes_per_match = per_match[-1]
    extra: dict[str, Any] = {
        "per_match_keys": share, "bytes_per_bot": round(bots), "bytes_per_analysis": analysis,
        "day_at_1_match_per_s_gib": round(bytes_per_match * DAY_S / 2**30, 2),
        "replays_share": round(share["replays"] / bytes_per_match, 3) if bytes_per_match else None,
        **retained(share, bytes_per_match, Settings()),
    }
    axis = "rated matches played"
    return [
        Curve("history.bytes_per_match", "Redis bytes per rated match", "bytes", sizes,
              tuple(round(v, 1) for v in per_match), axis, max_exponent=FLAT,
              note="used_memory delta over the matches played, per match", extra=extra),
        Curve("history.bytes_total", "Redis bytes of history", "bytes", sizes, tuple(totals), axis,
              max_exponent=1.1, note="linear until retention trims it (docs/arena.md, Retention)"),
    ]
