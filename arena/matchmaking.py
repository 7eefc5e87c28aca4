"""Choosing who sits at a ladder's next table (pure: no Redis, no clock)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    bot_id: str
    rating: float
    matches: int  # rated matches so far
    available: bool = True  # False when paused, disabled, absent or already seated in a running match
    owner: str | None = None  # bots of one owner avoid sharing a table; None: the bot is its own owner
    busy: bool = False  # seated in a running match (so not available): it will be free again soon

    @property
    def owner_key(self) -> str:
        return self.owner if self.owner is not None else f"bot:{self.bot_id}"


@dataclass(frozen=True)
class MatchmakingConfig:
    # Bots whose game counts differ by less than this are treated as equally "owed" a game, so rating
    # closeness decides among them; a larger band trades game-count balance for closer ratings.
    matches_band: int = 3
    # With meeting counts, bots who met the first pick fewer times are preferred, in bands of this many
    # meetings: within a band rating closeness still decides.
    meetings_band: int = 2
    # A table whose bots have met each other `wait_margin` or more times more often than one of them met a
    # busy bot waits for the busy ones, for at most `max_wait_s` (counted from the first seated bot's
    # release): without it, bots of fast matches are re-matched among themselves at every tick while the
    # slow bots are busy, and the ladder splits into groups that never meet.
    wait_margin: int = 2
    max_wait_s: float = 30.0


def pick_table(
    candidates: Sequence[Candidate],
    seats: int,
    rng: random.Random,
    last_group: frozenset[str] | None = None,
    config: MatchmakingConfig = MatchmakingConfig(),
    first_from: frozenset[str] | None = None,
    meetings: Mapping[frozenset[str], int] | None = None,
    waited_s: Mapping[str, float] | None = None,
) -> list[str] | None:
    """Bot ids for one table, or None when fewer than `seats` bots are available.

    The first pick is a bot with the fewest rated matches (random among equals); the others are the bots
    with the fewest rated matches (in bands of `matches_band`), then ratings closest to the first pick's. At
    most one bot of an owner sits at the table unless the available bots have fewer owners than seats (then
    the fewest repeats that fill it). A group identical to the ladder's previous one is avoided when any
    other choice exists. With `first_from`, the first pick is restricted to those bots (None if none of them
    is available).

    With `meetings` (matches played together, per pair of bot ids) the others are, within a band, the
    bots that met the first pick least (in bands of `meetings_band`); with `waited_s` too (seconds each
    available bot has been free) the table is held back (None) while `should_wait` says so.

    >>> mine = [Candidate(f"m{i}", 1500.0, 0, owner="me") for i in range(4)]
    >>> others = [Candidate(f"o{i}", 1500.0, 9) for i in range(3)]
    >>> sorted(pick_table(mine + others, 4, random.Random(1)))[-3:]
    ['o0', 'o1', 'o2']
    """
    pool = [c for c in candidates if c.available]
    if len(pool) < seats:
        return None
    rng.shuffle(pool)  # random tie-breaking among equal keys (sort below is stable)
    pool.sort(key=lambda c: c.matches)
    firsts = [c for c in pool if first_from is None or c.bot_id in first_from]
    if not firsts:
        return None
    first = firsts[0]
    least = pool[0].matches
    met = meetings or {}
    rest = sorted(
        (c for c in pool if c is not first),
        key=lambda c: ((c.matches - least) // max(config.matches_band, 1),
                       met.get(frozenset((first.bot_id, c.bot_id)), 0) // max(config.meetings_band, 1),
                       abs(c.rating - first.rating)),
    )
    group = _fill(first, rest, seats)
    if last_group is not None and frozenset(c.bot_id for c in group) == last_group and len(pool) > seats:
        # Leave out the least important pick (the last one): the next best bot takes its seat.
        group = _fill(first, [c for c in rest if c is not group[-1]], seats)
    table = [c.bot_id for c in group]
    if meetings is not None and waited_s is not None:
        busy = [c.bot_id for c in candidates if c.busy]
        if should_wait(table, busy, meetings, waited_s, config):
            return None
    return table


def should_wait(table: Sequence[str], busy: Sequence[str], meetings: Mapping[frozenset[str], int],
                waited_s: Mapping[str, float], config: MatchmakingConfig = MatchmakingConfig()) -> bool:
    """True when `table` should wait for bots now in running matches (`busy`).

    It waits when a seated bot has met every one of its table mates at least `wait_margin` times more than
    it met some busy bot, and no seated bot has waited `max_wait_s` yet. Mates who have hardly met (a big
    ladder) never wait; a small group re-matched while slow bots play does, until the slow ones are free.

    >>> met = {frozenset(p): 3 for p in (("a", "b"), ("a", "c"), ("b", "c"))}
    >>> should_wait(["a", "b", "c"], ["s"], met, {"a": 5.0})
    True
    >>> should_wait(["a", "b", "c"], ["s"], met, {"a": 30.0}), should_wait(["a", "b", "c"], [], met, {})
    (False, False)
    """
    if not busy or max((waited_s.get(b, 0.0) for b in table), default=0.0) >= config.max_wait_s:
        return False
    for bot in table:
        mates = min(meetings.get(frozenset((bot, mate)), 0) for mate in table if mate != bot)
        least_busy = min(meetings.get(frozenset((bot, other)), 0) for other in busy)
        if least_busy + config.wait_margin <= mates:
            return True
    return False


def _fill(first: Candidate, ordered: list[Candidate], seats: int) -> list[Candidate]:
    """`first`, then bots from `ordered` in order, at most one per owner; if that leaves seats empty (too few
    owners), further passes allow two per owner, then three, ...: the fewest repeats that fill the table."""
    group = [first]
    per_owner = Counter({first.owner_key: 1})
    remaining = list(ordered)
    cap = 1
    while len(group) < seats and remaining:
        left = []
        for candidate in remaining:
            if len(group) < seats and per_owner[candidate.owner_key] < cap:
                group.append(candidate)
                per_owner[candidate.owner_key] += 1
            else:
                left.append(candidate)
        remaining = left
        cap += 1
    return group
