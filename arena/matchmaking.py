"""Choosing who sits at a ladder's next table (pure: no Redis, no clock)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    bot_id: str
    rating: float
    games: int
    available: bool = True  # False when paused, disabled or already seated in a running match


@dataclass(frozen=True)
class MatchmakingConfig:
    # Bots whose game counts differ by less than this are treated as equally "owed" a game, so rating
    # closeness decides among them; a larger band trades game-count balance for closer ratings.
    games_band: int = 3


def pick_table(
    candidates: Sequence[Candidate],
    seats: int,
    rng: random.Random,
    last_group: frozenset[str] | None = None,
    config: MatchmakingConfig = MatchmakingConfig(),
    first_from: frozenset[str] | None = None,
) -> list[str] | None:
    """Bot ids for one table, or None when fewer than `seats` bots are available.

    The first pick is a bot with the fewest games (random among equals); the others are the bots with fewest
    games (in bands of `games_band`), then ratings closest to the first pick's. A group identical to the
    ladder's previous one is avoided when any other choice exists. With `first_from`, the first pick is
    restricted to those bots (None if none of them is available).
    """
    pool = [c for c in candidates if c.available]
    if len(pool) < seats:
        return None
    rng.shuffle(pool)  # random tie-breaking among equal keys (sort below is stable)
    pool.sort(key=lambda c: c.games)
    firsts = [c for c in pool if first_from is None or c.bot_id in first_from]
    if not firsts:
        return None
    first = firsts[0]
    least = pool[0].games
    rest = sorted(
        (c for c in pool if c is not first),
        key=lambda c: ((c.games - least) // max(config.games_band, 1), abs(c.rating - first.rating)),
    )
    group = [first, *rest[: seats - 1]]
    if last_group is not None and frozenset(c.bot_id for c in group) == last_group and len(pool) > seats:
        # Swap the least important pick (the last one) for the next best bot not in the group.
        group[-1] = rest[seats - 1]
    return [c.bot_id for c in group]
