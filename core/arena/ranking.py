"""A ladder's ranking as the JSON API, the web pages and the CLI show it: one row per bot, built once here
(ranked bots, new bots apart, provisional ratings with their uncertainty).

Design: docs/arena.md#ratings
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.arena.elo import EloConfig
from core.arena.model import Member, MemberKind
from core.arena.store import ArenaStore

PROVISIONAL_MATCHES = EloConfig().provisional_games  # fewer rated matches: a provisional rating ("?")
UNCERTAINTY_SCALE = 350.0  # a rating's rough uncertainty: ± UNCERTAINTY_SCALE / sqrt(matches + 1)


def uncertainty(matches: int) -> float:
    """A rough ± of a rating after `matches` rated matches.

    >>> uncertainty(0), uncertainty(3)
    (350.0, 175.0)
    """
    return round(UNCERTAINTY_SCALE / math.sqrt(max(0, matches) + 1), 1)


@dataclass(frozen=True)
class RankingRow:
    """One bot of a ladder's ranking. ``name`` and ``kind`` are None for a bot that has left the ladder."""

    bot_id: str
    name: str | None
    kind: str | None
    rating: float  # rounded to 0.1
    matches: int  # rated matches played (a duplicate match is several games; a void match is not counted)
    completed: int  # rated matches finished without forfeiting: ranked from the first
    wins: int
    strikes: int
    forfeits: int
    mean_latency_ms: float | None
    paused: bool
    version: str | None
    provisional: bool
    uncertainty: float
    rank: int | None  # None: not ranked yet, no completed rated match

    @property
    def win_share(self) -> float | None:
        return self.wins / self.matches if self.matches else None

    def to_json(self) -> dict[str, Any]:
        """The API's fields (a new bot's row has no ``rank``)."""
        row: dict[str, Any] = {} if self.rank is None else {"rank": self.rank}
        row.update(bot_id=self.bot_id, name=self.name, kind=self.kind, rating=self.rating,
                   matches=self.matches, completed=self.completed, wins=self.wins, win_share=self.win_share,
                   strikes=self.strikes, forfeits=self.forfeits, mean_latency_ms=self.mean_latency_ms,
                   provisional=self.provisional, uncertainty=self.uncertainty, paused=self.paused,
                   version=self.version)
        return row


@dataclass(frozen=True)
class Ranking:
    ranked: list[RankingRow]  # best rating first
    new: list[RankingRow]  # members with no completed rated match yet, in rating order

    @property
    def rows(self) -> list[RankingRow]:
        return [*self.ranked, *self.new]


def ranking(ranked: list[tuple[str, float]], members: Mapping[str, Member],
            stats: Mapping[str, Mapping[str, Any]], paused: set[str],
            versions: Mapping[str, str | None] | None = None,
            provisional_matches: int = PROVISIONAL_MATCHES, first_rank: int = 1) -> Ranking:
    """The ranking of bots `ranked` (rating descending, as the store keeps them), pure: `members` by bot id
    (a bot missing there has left), `stats` as ``ArenaStore.stats`` gives them (a bot missing there has no
    rated match), `paused` bot ids, `versions` by bot id; the first ranked row has rank `first_rank` (a
    page's).

    A bot is ranked from its first rated match finished without forfeiting (`completed`): one that has
    forfeited every match it played (it never answered) stays with the new bots, its rating shown.

    >>> stats = {"a": {"matches": 4, "completed": 4, "wins": 1}, "d": {"matches": 3, "completed": 0}}
    >>> table = ranking([("a", 1512.34), ("d", 1414.0), ("n", 1500.0)], {}, stats, set())
    >>> [(row.rank, row.bot_id, row.rating, row.win_share) for row in table.ranked]
    [(1, 'a', 1512.3, 0.25)]
    >>> [(row.rank, row.bot_id, row.matches) for row in table.new]
    [(None, 'd', 3), (None, 'n', 0)]
    """
    rows: list[RankingRow] = []
    new: list[RankingRow] = []
    for bot_id, rating in ranked:
        member = members.get(bot_id)
        bot_stats = stats.get(bot_id, {})
        matches = int(bot_stats.get("matches", 0))
        completed = int(bot_stats.get("completed", matches))
        row = RankingRow(
            bot_id=bot_id, name=member.name if member else None, kind=member.kind.value if member else None,
            rating=round(rating, 1), matches=matches, completed=completed, wins=int(bot_stats.get("wins", 0)),
            strikes=int(bot_stats.get("strikes", 0)), forfeits=int(bot_stats.get("forfeits", 0)),
            mean_latency_ms=bot_stats.get("mean_latency_ms"), paused=bot_id in paused,
            version=(versions or {}).get(bot_id), provisional=matches < provisional_matches,
            uncertainty=uncertainty(matches), rank=first_rank + len(rows) if completed > 0 else None)
        (rows if completed > 0 else new).append(row)
    return Ranking(rows, new)


def read_ranking(store: ArenaStore, ladder_id: str) -> Ranking:
    """A ladder's ranking as stored now: ratings, stats, who is paused and every bot's current version."""
    members = {m.bot_id: m for m in store.members(ladder_id)}
    ranked = store.ranked(ladder_id)
    bot_ids = [bot for bot, _ in ranked]
    # Benched after forfeits, a polling bot too; paused (health checks, a refused URL), only an HTTP bot.
    paused = store.paused_bots([bot for bot, m in members.items() if m.kind is not MemberKind.HOUSE])
    return ranking(ranked, members, store.stats(ladder_id, bot_ids), paused, store.versions(bot_ids))


DEFAULT_PAGE = 100  # rows of a ranking page when the request names no limit
MAX_PAGE = 500


@dataclass(frozen=True)
class RankingPage:
    """Rows ``offset`` .. ``offset + limit - 1`` of a ladder's ranking (the ranked bots, then the new)."""

    table: Ranking
    offset: int
    limit: int
    ranked_total: int
    new_total: int

    @property
    def total(self) -> int:
        return self.ranked_total + self.new_total

    @property
    def next_offset(self) -> int | None:
        return self.offset + self.limit if self.offset + self.limit < self.total else None

    @property
    def previous_offset(self) -> int | None:
        return max(0, self.offset - self.limit) if self.offset > 0 else None


def _rows(store: ArenaStore, ladder_id: str, ranked: list[tuple[str, float]], first_rank: int) -> Ranking:
    """The rows of `ranked` (bot, rating), reading only those bots: members, stats, pauses, versions."""
    bot_ids = [bot for bot, _ in ranked]
    members = store.members_of(ladder_id, bot_ids)
    # Benched after forfeits, a polling bot too; paused (health checks, a refused URL), only an HTTP bot.
    paused = store.paused_bots([bot for bot, m in members.items() if m.kind is not MemberKind.HOUSE])
    return ranking(ranked, members, store.stats(ladder_id, bot_ids), paused, store.versions(bot_ids),
                   first_rank=first_rank)


def read_ranking_page(store: ArenaStore, ladder_id: str, offset: int = 0,
                      limit: int = DEFAULT_PAGE) -> RankingPage:
    """One page of a ladder's ranking, reading only its bots (the cost of a page does not grow with the
    ladder)."""
    ranked, new, ranked_total, new_total = store.ranking_page(ladder_id, offset, limit)
    ratings = store.ratings_of(ladder_id, new)
    table = _rows(store, ladder_id, [*ranked, *((b, ratings[b]) for b in new)], first_rank=offset + 1)
    return RankingPage(table, offset, limit, ranked_total, new_total)


def read_ranking_row(store: ArenaStore, ladder_id: str, bot_id: str) -> RankingRow | None:
    """One bot's row with its rank, None if it has never been on the ladder."""
    rating = store.rating(ladder_id, bot_id)
    if rating is None:
        return None
    place = store.ranked_position(ladder_id, bot_id)
    return _rows(store, ladder_id, [(bot_id, rating)], first_rank=(place or 0) + 1).rows[0]
