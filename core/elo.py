"""Multiplayer Elo by pairwise decomposition of a match's final standings.

Every ordered pair (i, j) of the N players is treated as one head-to-head game: i scores 1 if it placed
ahead of j, 0.5 on a tie, 0 behind. Each pair is worth K/(N-1) so that a match moves a rating by at most K,
whatever the table size. Expected scores come from the *pre-match* ratings, so the deltas are a pure function
of the match record and re-running the computation always gives the same numbers (needed for exactly-once).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

INITIAL_RATING = 1500.0


@dataclass(frozen=True)
class EloConfig:
    k: float = 32.0
    provisional_k: float = 64.0  # a new bot's rating should move quickly to where it belongs
    provisional_games: int = 20


def expected_score(rating: float, opponent: float) -> float:
    """Probability-like expected score of `rating` against `opponent` (standard logistic Elo, 400 scale)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def k_factor(games_played: int, config: EloConfig = EloConfig()) -> float:
    return config.provisional_k if games_played < config.provisional_games else config.k


def pair_score(place: float, other_place: float) -> float:
    """1 for finishing ahead (lower place), 0.5 for a tie, 0 for behind."""
    if place < other_place:
        return 1.0
    if place == other_place:
        return 0.5
    return 0.0


def rating_deltas(
    ratings: Mapping[str, float],
    games_played: Mapping[str, int],
    places: Mapping[str, float],
    config: EloConfig = EloConfig(),
) -> dict[str, float]:
    """Rating change of every player of a match.

    ratings: pre-match rating per player; games_played: rated games before this match (picks K);
    places: final standing per player, lower is better, equal values are ties (1, 2, 2, 4 or 0, 1, 1, 3 ...).
    """
    players = list(places)
    if len(players) < 2:
        return {p: 0.0 for p in players}
    per_pair = 1.0 / (len(players) - 1)
    deltas: dict[str, float] = {}
    for p in players:
        others = [q for q in players if q != p]
        surplus = sum(pair_score(places[p], places[q]) - expected_score(ratings[p], ratings[q])
                      for q in others)
        deltas[p] = k_factor(games_played[p], config) * per_pair * surplus
    return deltas


def places_from_totals(totals: Mapping[str, float], lower_is_better: bool) -> dict[str, int]:
    """Competition ranking (1, 2, 2, 4) of players by total score."""
    ordered = sorted(totals.values(), reverse=not lower_is_better)
    return {p: ordered.index(t) + 1 for p, t in totals.items()}


def places_with_forfeits(places: Mapping[str, float], forfeited: set[str]) -> dict[str, float]:
    """Move forfeiting players below everyone else (tied among themselves), keeping the others' order."""
    if not forfeited:
        return dict(places)
    worst = max(places.values()) if places else 0
    return {p: (worst + 1 if p in forfeited else place) for p, place in places.items()}
