"""House bots, and registered bots at a table a person opened: an RQ job plays their turns until a polling
seat must act (or the game ends). `drive_table` is a thin job over a table id (enqueued by name:
``core.queues.enqueue_drive``), idempotent and safe to run twice at once: every move goes through the store's
version-checked commit, so a duplicate driver only loses races. Design: docs/arena.md#people-at-the-table
"""

from __future__ import annotations

import hashlib
import logging
import random

import redis
from rq.job import get_current_job

import engine.bots
from arena import runtime
from arena.botclient import ClientPool
from arena.policy import fallback_move
from core import keys
from core.arena.challenges import DEADLINE_MS
from core.arena.model import PROTOCOL_VERSION
from core.arena.moderation import is_suspended
from core.arena.registry import BotRegistry
from core.errors import MoveConflict
from core.redis.connections import settings_client
from core.tables.store import SeatKind, TableRecord, TableStatus, driven_seats_to_act
from engine.shapes import Move, SeatView

log = logging.getLogger(__name__)

MAX_MOVES_PER_JOB = 2000  # a whole game is a few hundred moves; this only bounds a runaway loop
# Kept-alive connections to the registered bots seated at people's tables, shared by the drives a worker runs.
GUEST_CLIENTS = ClientPool()


def bot_seed(table_seed: int, seat: int, version: int) -> int:
    """Bots are deterministic per table/seat/decision without ever exposing the table seed."""
    digest = hashlib.sha256(f"house:{table_seed}:{seat}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


# Longer than a drive job's longest stretch between two refreshes of its lease (one round of bot calls).
DRIVER_LEASE_S = 30


def _choose(name: str, seed: int, view: SeatView) -> Move:
    """The bot's move; if the bot fails, a legal fallback so a faulty bot never stalls a table."""
    try:
        return engine.bots.make_bot(name, seed).choose(view)
    except Exception:  # any bot failure: fall back to a legal move
        log.exception("house bot %s failed to choose; playing a random legal move", name)
        return _fallback(view, seed)


def _fallback(view: SeatView, seed: int) -> Move:
    """A random legal move drawn from the decision's seed (docs/api.md: a house bot that errs)."""
    decision = view["decision"]
    if decision is None:  # never for a seat to act: the engine gives each one a decision
        raise ValueError(f"seat {view['seat']} has nothing to decide")
    return fallback_move(decision, random.Random(seed))


def drive_table(table_id: str, prefix: str, connection: redis.Redis | None = None) -> int:
    """Play every house-bot decision of the table until none is pending; returns the number of moves made.

    One driver at a time (a short lease per table): two drive jobs of one table at once would ask a
    registered bot the same decision twice. A job that finds the table held leaves a note and goes; the
    holder reads the note after letting go, and drives again if one came (no move is left unplayed).
    """
    if connection is None:
        job = get_current_job()
        connection = job.connection if job is not None else settings_client(runtime.settings())
    lease, again = keys.table_driver(prefix, table_id), keys.table_driver_again(prefix, table_id)
    made = 0
    while True:
        if not connection.set(lease, 1, nx=True, ex=DRIVER_LEASE_S):
            connection.set(again, 1, ex=DRIVER_LEASE_S)
            # Taken again at once: the holder may have let go (and read no note) in between.
            if not connection.set(lease, 1, nx=True, ex=DRIVER_LEASE_S):
                return made
        try:
            made += _drive(table_id, prefix, connection, lease)
        finally:
            connection.delete(lease)
        if not connection.getdel(again):
            return made


def _drive(table_id: str, prefix: str, connection: redis.Redis, lease: str) -> int:
    store = runtime.stores(connection, prefix).tables
    made = 0
    while made < MAX_MOVES_PER_JOB:
        connection.expire(lease, DRIVER_LEASE_S)  # still driving
        record = store.load_table(table_id)
        if record.status != TableStatus.PLAYING:
            break
        pending = driven_seats_to_act(record.seats, record.to_act, record.labels)
        if not pending:
            break
        for seat in pending:
            held = store.seat_view(table_id, seat)
            seed = bot_seed(record.seed, seat, held.version)
            if record.seats[seat].kind == SeatKind.BOT:
                bots = runtime.stores(connection, prefix).bots
                move = _ask_guest(bots, record, seat, held.view, seed)
            else:
                move = _choose(record.seats[seat].name or "random", seed, held.view)
            try:
                store.apply_move(table_id, seat, move, expected_version=held.version)
            except engine.EngineError:
                log.warning("house bot at %s seat %s made an illegal move; falling back", table_id, seat)
                store.apply_move(table_id, seat, _fallback(held.view, seed), held.version)
            except MoveConflict:
                # Someone else (a duplicate driver) moved first: re-read and go on.
                break
            made += 1
    return made


def guest_payload(record: TableRecord, seat: int, view: SeatView) -> dict[str, object]:
    """The protocol v1 ``/move`` body for a registered bot's seat at a table a person opened: what it gets at
    a ladder table (its own view and decision only); ``table`` and ``match`` are the table's id."""
    decision = view["decision"]
    return {"protocol": PROTOCOL_VERSION, "game": record.game, "table": record.table_id,
            "match": record.table_id, "seat": seat, "decision": decision, "deadline_ms": DEADLINE_MS,
            "view": view, "legal": decision["legal"] if decision else []}


def _ask_guest(bots: BotRegistry, record: TableRecord, seat: int, view: SeatView,
               seed: int) -> Move:
    """The registered bot's move over HTTP within the challenges' deadline; a legal fallback if it has no URL
    any more, is suspended or deleted, or does not answer well in time (no strike: the table is unrated)."""
    bot_id = record.seats[seat].name or ""
    raw = bots.redis.hgetall(keys.bot(bots.prefix, bot_id))
    url = raw.get("url") if raw else None
    if not url or is_suspended(raw):
        return _fallback(view, seed)
    allow_private = runtime.settings().allow_private_urls
    with GUEST_CLIENTS.lease([url], allow_private) as clients:
        move, result = clients[url].move(guest_payload(record, seat, view), DEADLINE_MS / 1000.0)
    if move is None:
        log.info("bot %s at %s seat %s: %s (%s); a legal fallback is played", bot_id, record.table_id, seat,
                 result.outcome.value, result.detail)
        return _fallback(view, seed)
    return move
