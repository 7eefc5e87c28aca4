"""House bots: an RQ job plays their turns until a polling seat must act (or the game ends).

`drive_table` is a thin job over a table id (the API enqueues it by name: ``core.queues.enqueue_drive``). It
is idempotent and safe to run twice at once: every move goes through the store's version-checked commit, so a
duplicate driver only loses races, never double-moves.
"""

from __future__ import annotations

import hashlib
import logging
import random

import redis
from rq.job import get_current_job

import engine.bots
from arena import runtime
from arena.policy import fallback_move
from core.errors import MoveConflict
from core.redis.connections import settings_client
from core.tables.store import TableStatus, house_seats_to_act
from engine.shapes import Move, SeatView

log = logging.getLogger(__name__)

MAX_MOVES_PER_JOB = 2000  # a whole game is a few hundred moves; this only bounds a runaway loop


def bot_seed(table_seed: int, seat: int, version: int) -> int:
    """Bots are deterministic per table/seat/decision without ever exposing the table seed."""
    digest = hashlib.sha256(f"house:{table_seed}:{seat}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


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
    """Play every house-bot decision of the table until none is pending; returns the number of moves made."""
    if connection is None:
        job = get_current_job()
        connection = job.connection if job is not None else settings_client(runtime.settings())
    store = runtime.stores(connection, prefix).tables
    made = 0
    while made < MAX_MOVES_PER_JOB:
        record = store.load_table(table_id)
        if record.status != TableStatus.PLAYING:
            break
        pending = house_seats_to_act(record.seats, record.to_act)
        if not pending:
            break
        for seat in pending:
            held = store.seat_view(table_id, seat)
            seed = bot_seed(record.seed, seat, held.version)
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
