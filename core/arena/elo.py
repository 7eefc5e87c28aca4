"""Multiplayer Elo by pairwise decomposition of a match's final standings, from the pre-match ratings: the
deltas are a pure function of the match record.

Design: docs/arena.md#ratings
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

INITIAL_RATING = 1500.0


@dataclass(frozen=True)
class EloConfig:
    """K by experience, as FIDE's: large while a rating finds its level, small once it has settled.

    A fixed K keeps every rating wandering by about the same amount for ever; the house grades of a game
    can be closer than that (Sloppy Seconds'), so a settled bot's rating moves half as far per match.
    """

    k: float = 32.0
    provisional_k: float = 64.0  # a new bot's rating should move quickly to where it belongs
    provisional_games: int = 20
    established_k: float = 16.0
    established_games: int = 100


def expected_score(rating: float, opponent: float) -> float:
    """Probability-like expected score of `rating` against `opponent` (standard logistic Elo, 400 scale)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def k_factor(games_played: int, config: EloConfig = EloConfig()) -> float:
    """K for a bot with `games_played` rated matches.

    >>> k_factor(0), k_factor(20), k_factor(99), k_factor(100)
    (64.0, 32.0, 32.0, 16.0)
    """
    if games_played < config.provisional_games:
        return config.provisional_k
    return config.k if games_played < config.established_games else config.established_k


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
    """Forfeiting players share the last place, within the table's N places; the others keep their order.

    The players who did not forfeit are ranked among themselves (competition ranking, ties kept); every
    forfeiter then takes the place after them. When every player forfeited they all share place 1 (and
    ``standings`` names no winner).

    >>> places_with_forfeits({"a": 1, "b": 2, "c": 3, "d": 4}, {"a"})
    {'a': 4, 'b': 1, 'c': 2, 'd': 3}
    >>> places_with_forfeits({"a": 1, "b": 2, "c": 2, "d": 4}, {"a", "d"})
    {'a': 3, 'b': 1, 'c': 1, 'd': 3}
    """
    playing = {p: place for p, place in places.items() if p not in forfeited}
    ordered = sorted(playing.values())
    last = len(playing) + 1
    return {p: (ordered.index(playing[p]) + 1 if p in playing else last) for p in places}


@dataclass(frozen=True)
class Standings:
    """A match's final standing: places (1 = best), its winners, and whether it is rated at all."""

    places: dict[str, float]
    winners: list[str]
    rated: bool  # False when every player forfeited: the match is recorded, but moves no rating


def standings(totals: Mapping[str, float], lower_is_better: bool, forfeited: set[str]) -> Standings:
    """Places from the totals, forfeiters last; winners are the first place among those who did not forfeit.

    A forfeiting player is never a winner. A match where everybody forfeited names no winner and is not rated.

    >>> standings({"a": 9, "b": 3, "c": 5}, lower_is_better=True, forfeited={"b"})
    Standings(places={'a': 2, 'b': 3, 'c': 1}, winners=['c'], rated=True)
    >>> standings({"a": 9, "b": 3}, lower_is_better=True, forfeited={"a", "b"})
    Standings(places={'a': 1, 'b': 1}, winners=[], rated=False)
    """
    places = places_with_forfeits(places_from_totals(totals, lower_is_better), forfeited)
    winners = [p for p, place in places.items() if place == 1 and p not in forfeited]
    return Standings(places, winners, rated=bool(winners))


def rate_match(totals: Mapping[str, float], lower_is_better: bool, forfeited: set[str],
               ratings: Mapping[str, float], games_played: Mapping[str, int], *, counts: bool = True,
               config: EloConfig = EloConfig()) -> tuple[Standings, dict[str, float]]:
    """A finished match's standing and rating changes, from the ratings frozen when it was made.

    ``counts`` False (a challenge): the standing only; it is not rated and every change is 0.

    >>> ratings, played = {"a": 1500.0, "b": 1500.0}, {"a": 50, "b": 50}
    >>> standing, deltas = rate_match({"a": 3, "b": 9}, True, set(), ratings, played)
    >>> standing.winners, deltas["a"] > 0 > deltas["b"]
    (['a'], True)
    >>> rate_match({"a": 3, "b": 9}, True, set(), {}, {}, counts=False)
    (Standings(places={'a': 1, 'b': 2}, winners=['a'], rated=False), {'a': 0.0, 'b': 0.0})
    """
    standing = standings(totals, lower_is_better, forfeited)
    if not counts:
        return Standings(standing.places, standing.winners, rated=False), dict.fromkeys(standing.places, 0.0)
    return standing, match_deltas(ratings, games_played, standing, config)


def match_deltas(ratings: Mapping[str, float], games_played: Mapping[str, int], result: Standings,
                 config: EloConfig = EloConfig()) -> dict[str, float]:
    """Rating changes of a match's standing: all zero when the match is not rated."""
    if not result.rated:
        return dict.fromkeys(result.places, 0.0)
    return rating_deltas(ratings, games_played, result.places, config)
