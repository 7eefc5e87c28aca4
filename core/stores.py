"""Every store, built from ``Settings`` in one place: the API and each worker get the same TTLs and waits."""

from __future__ import annotations

from dataclasses import dataclass

import redis

from core.analysis import AnalysisStore
from core.arena.accounts import AccountStore
from core.arena.challenges import ChallengeQuota, ChallengeStore
from core.arena.registry import BotQuota, BotRegistry
from core.arena.store import ArenaStore
from core.redis.connections import decoding_client
from core.settings import Settings
from core.tables.store import TableStore


def table_store(settings: Settings, conn: redis.Redis, prefix: str | None = None) -> TableStore:
    """The tables under `prefix` (default: the settings'), with the settings' TTLs, pipelining and wait."""
    return TableStore(conn, settings.prefix if prefix is None else prefix,
                      finished_ttl=settings.finished_table_ttl, idle_ttl=settings.idle_table_ttl,
                      pipelining=settings.redis_pipelining, wait_ms=settings.redis_wait_ms)


def arena_store(settings: Settings, conn: redis.Redis, prefix: str | None = None) -> ArenaStore:
    """The ladders and matches under `prefix` (default: the settings'), with the settings' retention."""
    return ArenaStore(conn, settings.prefix if prefix is None else prefix, wait_ms=settings.redis_wait_ms,
                      match_ttl_s=settings.match_ttl, replay_ttl_s=settings.replay_ttl)


@dataclass(frozen=True)
class Stores:
    """One connection's stores under one prefix."""

    tables: TableStore
    arena: ArenaStore
    bots: BotRegistry
    accounts: AccountStore
    analyses: AnalysisStore
    challenges: ChallengeStore

    @classmethod
    def build(cls, settings: Settings, conn: redis.Redis, prefix: str | None = None) -> Stores:
        prefix = settings.prefix if prefix is None else prefix
        client = decoding_client(conn)
        arena = arena_store(settings, client, prefix)
        quota = BotQuota(settings.max_bots_per_address, settings.max_bots_per_owner_per_ladder,
                         settings.max_bots_per_account)
        bots = BotRegistry(client, prefix, allow_private_urls=settings.allow_private_urls, quota=quota)
        return cls(
            tables=table_store(settings, client, prefix),
            arena=arena,
            bots=bots,
            accounts=bots.accounts,
            analyses=AnalysisStore(client, prefix, max_pending=settings.max_pending_analyses,
                                   max_pending_per_owner=settings.max_pending_analyses_per_client),
            challenges=ChallengeStore(arena, ChallengeQuota(settings.max_pending_challenges_per_owner,
                                                            settings.max_challenges_per_owner_per_day,
                                                            settings.max_pending_challenges)),
        )
