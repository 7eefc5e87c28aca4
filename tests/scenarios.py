"""Scenarios that many tests set up: a ladder match as the scheduler would create it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.arena.model import MatchSpec, Member

ONE_ROUND = {"rounds": 1}  # Sore Spot in one round: the shortest match of any game
START_RATING = 1500.0


def match_spec(match_id: str, entrants: Sequence[Member], *, ladder_id: str = "ss", game: str = "sore-spot",
               options: Mapping[str, Any] = ONE_ROUND, seed: int = 1, duplicate: bool = False,
               deadline_ms: int = 1000, strike_limit: int = 5, ratings: Mapping[str, float] | None = None,
               matches: Mapping[str, int] | None = None, **extra: Any) -> MatchSpec:
    """A match of `entrants` (seat order of the first game), one seat each, as the scheduler makes it: every
    entrant at its rating in `ratings` (1500 when absent) with its count of matches in `matches` (0 when
    absent). `extra` sets the other fields (``challenge``, ``game_count``, ``created``).

    >>> spec = match_spec("m1", [Member.house("random"), Member.house("heuristic"), Member.house("eps-0.5")],
    ...                   ratings={"house:random": 1400.0})
    >>> spec.players, spec.options, spec.pre_ratings["house:random"], spec.pre_ratings["house:heuristic"]
    (3, {'rounds': 1}, 1400.0, 1500.0)
    """
    ratings, matches = ratings or {}, matches or {}
    return MatchSpec(match_id=match_id, ladder_id=ladder_id, game=game, players=len(entrants),
                     options=dict(options), seed=seed, duplicate=duplicate, entrants=list(entrants),
                     deadline_ms=deadline_ms, strike_limit=strike_limit,
                     pre_ratings={m.bot_id: ratings.get(m.bot_id, START_RATING) for m in entrants},
                     pre_matches={m.bot_id: matches.get(m.bot_id, 0) for m in entrants}, **extra)
