"""The app's service objects (Redis client, stores, RQ queues), built from its Settings; views reach them
through ``services()``."""

from __future__ import annotations

from dataclasses import dataclass

import redis
from flask import current_app
from rq import Queue

from core.analysis import AnalysisStore
from core.arena.accounts import AccountStore
from core.arena.challenges import ChallengeStore
from core.arena.registry import BotRegistry
from core.arena.store import ArenaStore
from core.arena.tournament_store import DEFAULT_TOURNAMENT_QUOTA, TournamentQuota
from core.queues import enqueue_drive
from core.redis.connections import settings_client
from core.settings import Settings
from core.stores import Stores
from core.tables.store import SeatSpec, TableStore, driven_seats_to_act, has_guest_bots

EXTENSION = "trick_arena"


@dataclass
class Services:
    settings: Settings
    redis: redis.Redis
    tables: TableStore
    bots: BotRegistry
    accounts: AccountStore
    arena: ArenaStore
    house_queue: Queue
    arena_queue: Queue
    analyses: AnalysisStore
    analysis_queue: Queue
    challenges: ChallengeStore
    challenge_queue: Queue
    tournament_queue: Queue
    tournament_quota: TournamentQuota


def build_services(settings: Settings) -> Services:
    """The stores (core.stores, as every worker builds them) and queues of an app with these settings."""
    # Waiting long-polls hold no connection (one shared subscriber per process), requests hold one briefly;
    # a blocking pool makes a burst beyond the cap wait for a free connection instead of failing.
    client = settings_client(settings, decode_responses=True, max_connections=256, blocking_timeout=10,
                             health_check_interval=30)
    # RQ pickles/zlibs job payloads, so its connection must not decode responses.
    rq_client = settings_client(settings)
    stores = Stores.build(settings, client)
    return Services(
        settings=settings,
        redis=client,
        tables=stores.tables,
        bots=stores.bots,
        accounts=stores.accounts,
        arena=stores.arena,
        house_queue=Queue(settings.house_queue_name, connection=rq_client),
        arena_queue=Queue(settings.queue_name, connection=rq_client),
        analyses=stores.analyses,
        analysis_queue=Queue(settings.analysis_queue_name, connection=rq_client),
        challenges=stores.challenges,
        challenge_queue=Queue(settings.challenge_queue_name, connection=rq_client),
        tournament_queue=Queue(settings.tournament_queue_name, connection=rq_client),
        tournament_quota=DEFAULT_TOURNAMENT_QUOTA,
    )


def services() -> Services:
    return current_app.extensions[EXTENSION]


def kick_house_bots(seats: list[SeatSpec], to_act: list[int], table_id: str,
                    labels: dict[str, str] | None = None) -> None:
    """Queue a drive of the table's bots if one of `seats` to act now is a house bot's, or a registered bot's
    at a table a person opened: that drive calls the bot, so the arena's challenge workers run it, ahead of
    the challenges they have queued (a person waits on it)."""
    labels = labels or {}
    if not driven_seats_to_act(seats, to_act, labels):
        return
    prefix = current_app.config["KEY_PREFIX"]
    if has_guest_bots(seats, labels):
        enqueue_drive(services().challenge_queue, table_id, prefix, at_front=True)
    else:
        enqueue_drive(services().house_queue, table_id, prefix)
