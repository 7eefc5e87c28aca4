"""Ladders, matches and published replays by id, or the domain error that says why not.

The JSON API and the web pages answer these errors alike (``api.problems``): a page about a missing match
is the same 404 ``match-not-found`` as the match's API URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.arena.decisions import expand
from core.arena.model import LadderConfig, MatchStatus
from core.arena.store import ArenaStore
from core.arena.store.matches import MatchDoc
from core.errors import (
    BotNotOnLadder,
    DecisionLogNotFound,
    LadderNotFound,
    LadderRequired,
    MatchExpired,
    MatchGameNotFound,
    MatchNotFound,
    MatchNotPublished,
    ReplayExpired,
)

PUBLISHED = (MatchStatus.RATED, MatchStatus.VOID, MatchStatus.PLAYED)  # played to the end: replays published


def find_ladder(store: ArenaStore, ladder_id: str) -> LadderConfig:
    ladder = store.ladder(ladder_id)
    if ladder is None:
        raise LadderNotFound(ladder_id)
    return ladder


def find_match(store: ArenaStore, match_id: str) -> MatchDoc:
    """The match document; MatchExpired (410) for a finished match the retention policy deleted (its
    idempotency key outlives it), MatchNotFound for an id never seen."""
    doc = store.match(match_id)
    if doc is None:
        if store.is_applied(match_id):
            raise MatchExpired(match_id)
        raise MatchNotFound(match_id)
    return doc


def published_games(store: ArenaStore, match_id: str, game_no: int) -> tuple[MatchDoc, list[dict[str, Any]]]:
    """A match's document and replay records, with `game_no` checked.

    Replays hold every hand, so they are published only once the match has been played to the end.
    """
    doc = find_match(store, match_id)
    if doc["status"] not in PUBLISHED:
        raise MatchNotPublished(match_id, doc["status"])
    stored = store.match_games(match_id)
    if stored is None:  # published, so it had replays: the retention policy deleted them
        raise ReplayExpired(match_id)
    records = stored
    if not 0 <= game_no < len(records):
        raise MatchGameNotFound(match_id, len(records))
    return doc, records


def decision_log(store: ArenaStore, match_id: str, bot_id: str, game_no: int | None = None) -> dict[str, Any]:
    """A bot's decisions in a match (game `game_no`, or all), as its owner reads them: published, like the
    replays it is rebuilt from, only once the match has been played to the end."""
    doc = find_match(store, match_id)
    if doc["status"] not in PUBLISHED:
        raise MatchNotPublished(match_id, doc["status"])
    stored = (store.match_log(match_id) or {}).get(bot_id)
    records = store.match_games(match_id)
    if stored is None or records is None:
        if records is None and bot_id in {m["bot_id"] for m in doc["spec"]["entrants"]}:
            raise ReplayExpired(match_id)  # the log goes with the replays
        raise DecisionLogNotFound(match_id, bot_id)
    if game_no is not None:
        if not 0 <= game_no < len(records):
            raise MatchGameNotFound(match_id, len(records))
        stored = [game for game in stored if game[0] == game_no]
    games = doc.get("result", {}).get("games", [])
    return {"match_id": match_id, "bot_id": bot_id, "game": doc["spec"]["game"], "status": doc["status"],
            "decisions": expand(stored, records, games, doc["spec"], match_id)}


@dataclass(frozen=True)
class Matchmaking:
    """Whether a bot can be seated now, as its owner reads it (``GET /api/bots/{id}``, the bot's page)."""

    reason: str | None  # why it is not: suspended, paused, benched, waiting for its first check; None: it can
    present: bool | None  # a registered polling bot polls its ladder seats now; None for any other bot


def matchmaking(store: ArenaStore, bot_id: str, record: Mapping[str, Any] | None,
                suspension: str | None) -> Matchmaking:
    """The bot's matchmaking state from its public `record` (None: a house bot, or one deleted) and the
    operator's `suspension`, which comes first."""
    url = record.get("url") if record is not None else None
    reason = suspension or store.matchmaking_reason(bot_id, url)
    return Matchmaking(reason, store.present(bot_id) if record is not None and not url else None)


def rating_on_ladder(store: ArenaStore, ladder_id: str, bot_id: str) -> float:
    """The bot's rating on a ladder found (``find_ladder``) already; a bot keeps it after leaving."""
    rating = store.rating(ladder_id, bot_id)
    if rating is None:
        raise BotNotOnLadder(bot_id, ladder_id)
    return rating


def bot_ladder(store: ArenaStore, bot_id: str, ladder_id: str | None) -> str:
    """The ladder whose record of `bot_id` is asked for: the one given, or the only one the bot is on."""
    if ladder_id is not None:
        find_ladder(store, ladder_id)
        rating_on_ladder(store, ladder_id, bot_id)
        return ladder_id
    on = [lad.ladder_id for lad in store.ladders() if store.rating(lad.ladder_id, bot_id) is not None]
    if not on:
        raise BotNotOnLadder(bot_id)
    if len(on) > 1:
        raise LadderRequired(bot_id, on)
    return on[0]
