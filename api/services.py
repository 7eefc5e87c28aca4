"""Per-app service objects (Redis client, stores, RQ queues), reachable from views via current_app, and what
several blueprints do with them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import redis
from flask import current_app
from rq import Queue

from core import keys
from core.analysis import AnalysisStore
from core.arena.accounts import AccountStore
from core.arena.challenges import DEFAULT_CHALLENGE_QUOTA, ChallengeQuota, ChallengeStore
from core.arena.registry import DEFAULT_QUOTA, BotQuota, BotRegistry
from core.arena.store import ArenaStore
from core.queues import enqueue_drive
from core.redis.connections import redis_client
from core.tables.store import SeatSpec, TableStore, house_seats_to_act

EXTENSION = "trick_arena"


@dataclass
class Services:
    redis: redis.Redis
    tables: TableStore
    bots: BotRegistry
    accounts: AccountStore
    arena: ArenaStore
    house_queue: Queue
    analyses: AnalysisStore
    analysis_queue: Queue
    challenges: ChallengeStore
    challenge_queue: Queue


def build_services(redis_url: str, prefix: str, queue_name: str, allow_private_urls: bool,
                   finished_table_ttl: int, idle_table_ttl: int, quota: BotQuota = DEFAULT_QUOTA,
                   analysis_queue_name: str | None = None, max_pending_analyses: int = 20,
                   redis_pipelining: bool = True, max_pending_analyses_per_client: int = 3,
                   sentinels: Sequence[str] = (), sentinel_service: str = "trick-arena",
                   wait_ms: int = 0, challenge_queue_name: str | None = None,
                   challenge_quota: ChallengeQuota = DEFAULT_CHALLENGE_QUOTA) -> Services:
    # Waiting long-polls hold no connection (one shared subscriber per process), requests hold one briefly;
    # a blocking pool makes a burst beyond the cap wait for a free connection instead of failing.
    client = redis_client(redis_url, sentinels, sentinel_service, decode_responses=True, max_connections=256,
                          blocking_timeout=10, health_check_interval=30)
    # RQ pickles/zlibs job payloads, so its connection must not decode responses.
    rq_client = redis_client(redis_url, sentinels, sentinel_service)
    bots = BotRegistry(client, prefix, allow_private_urls=allow_private_urls, quota=quota)
    arena = ArenaStore(client, prefix)
    return Services(
        redis=client,
        tables=TableStore(client, prefix, finished_ttl=finished_table_ttl, idle_ttl=idle_table_ttl,
                          pipelining=redis_pipelining, wait_ms=wait_ms),
        bots=bots,
        accounts=bots.accounts,
        arena=arena,
        house_queue=Queue(queue_name, connection=rq_client),
        analyses=AnalysisStore(client, prefix, max_pending=max_pending_analyses,
                               max_pending_per_owner=max_pending_analyses_per_client),
        analysis_queue=Queue(analysis_queue_name or keys.analysis_queue(prefix), connection=rq_client),
        challenges=ChallengeStore(arena, challenge_quota),
        challenge_queue=Queue(challenge_queue_name or keys.challenge_queue(prefix), connection=rq_client),
    )


def services() -> Services:
    return current_app.extensions[EXTENSION]


def kick_house_bots(seats: list[SeatSpec], to_act: list[int], table_id: str) -> None:
    """Queue a drive of the table's house bots if one of `seats` to act now is a house bot's."""
    if house_seats_to_act(seats, to_act):
        enqueue_drive(services().house_queue, table_id, current_app.config["KEY_PREFIX"])
