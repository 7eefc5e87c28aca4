"""Tournaments without I/O: the formats, the tables of each round (round robin, Swiss) and the standings.

A round seats each bot at one table at most; every table of a round plays the round's deals.
Design: docs/arena.md#tournaments
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

ROUND_ROBIN = "round-robin"
SWISS = "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
MAX_TABLES = 400  # the most tables one event may need (its own `max_tables` may be lower)
MAX_ROUNDS = 30
MAX_ENTRANTS = 64
SEARCH_BUDGET = 20_000  # nodes a Swiss pairing may try before it accepts a table played before


@dataclass(frozen=True)
class TableResult:
    """One played table as the standings read it: each bot's place (1 best; forfeits last) and score."""

    places: Mapping[str, float]
    totals: Mapping[str, float]
    forfeited: Sequence[str] = ()


@dataclass
class Row:
    bot_id: str
    points: float = 0.0
    buchholz: float = 0.0
    score: float = 0.0  # the duplicate score: each game's total less the reference's, summed (as a match's)
    tables: int = 0
    firsts: int = 0
    byes: int = 0
    dropped: bool = False
    opponents: list[str] = field(default_factory=list)


def table_points(place: float, players: int) -> float:
    """Points of a place at a table of `players`: the bots it finished ahead of (a tie shares).

    >>> table_points(1, 4), table_points(4, 4), table_points(2.5, 4)
    (3.0, 0.0, 1.5)
    """
    return float(players - place)


def bye_points(players: int) -> float:
    """A bot left without a table in a round gets the mean points of a place.

    >>> bye_points(4)
    1.5
    """
    return (players - 1) / 2


def group_key(bots: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(bots))


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def every_group(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Round robin of every group: each set of `players` bots meets once (every quartet for 4 seats).

    >>> every_group(["a", "b", "c", "d", "e"], 4)[:2]
    [('a', 'b', 'c', 'd'), ('a', 'b', 'c', 'e')]
    """
    return [tuple(group) for group in itertools.combinations(bots, players)]


def meeting_groups(bots: Sequence[str], players: int, meetings: int) -> list[tuple[str, ...]]:
    """Round robin by meetings: groups of `players` until every two bots have met at least `meetings` times.

    Greedy: each group starts from the pair that met least and adds the bot that met the group least.
    For two seats it is the plain round robin, each pair `meetings` times.

    >>> len(meeting_groups(list("abcdef"), 2, 1))
    15
    >>> groups = meeting_groups(list("abcdefgh"), 4, 1)
    >>> all(any({x, y} <= set(g) for g in groups) for x, y in itertools.combinations("abcdefgh", 2))
    True
    """
    met: Counter[tuple[str, str]] = Counter()
    groups: list[tuple[str, ...]] = []
    pairs = list(itertools.combinations(sorted(bots), 2))
    while True:
        short = [pair for pair in pairs if met[pair] < meetings]
        if not short:
            return groups
        seed = min(short, key=lambda pair: (met[pair], pair))
        group = list(seed)
        while len(group) < players:
            rest = [b for b in sorted(bots) if b not in group]
            group.append(min(rest, key=lambda b: (sum(met[pair_key(b, g)] for g in group), b)))
        for x, y in itertools.combinations(sorted(group), 2):
            met[(x, y)] += 1
        groups.append(tuple(sorted(group)))


def circle_pairs(bots: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair once, in the rounds of the circle method: packed first come first, each run of n/2 pairs
    is a round seating every bot (one bye a round for an odd field), n - 1 rounds in all (n for odd n).

    >>> circle_pairs(["a", "b", "c", "d"])
    [('a', 'd'), ('b', 'c'), ('a', 'c'), ('b', 'd'), ('a', 'b'), ('c', 'd')]
    """
    ring: list[str | None] = [*bots, None] if len(bots) % 2 else list(bots)
    pairs = []
    for _ in range(len(ring) - 1):
        half = len(ring) // 2
        for x, y in zip(ring[:half], reversed(ring[half:]), strict=True):
            if x is not None and y is not None:
                pairs.append(pair_key(x, y))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return pairs


def round_robin_groups(bots: Sequence[str], players: int, meetings: int | None) -> list[tuple[str, ...]]:
    """The groups a round robin plays: every group (`meetings` None; for two seats in the circle method's
    order, so its rounds are as few as can be) or by meetings."""
    if meetings is None:
        return list(circle_pairs(sorted(bots))) if players == 2 else every_group(sorted(bots), players)
    return meeting_groups(bots, players, meetings)


def pack_round(groups: Sequence[tuple[str, ...]], absent: set[str]) -> list[tuple[str, ...]]:
    """The next round of a round robin: the groups still to play, first come first, no bot twice, none with a
    bot that dropped out.

    >>> pack_round([("a", "b"), ("a", "c"), ("c", "d"), ("b", "d")], set())
    [('a', 'b'), ('c', 'd')]
    """
    seated: set[str] = set()
    chosen = []
    for group in groups:
        if seated.isdisjoint(group) and absent.isdisjoint(group):
            chosen.append(group)
            seated.update(group)
    return chosen


def round_robin_rounds(groups: Sequence[tuple[str, ...]]) -> int:
    """How many rounds a round robin of these groups takes when nobody drops out.

    >>> round_robin_rounds(every_group(list("abcd"), 2))
    3
    """
    left = list(groups)
    rounds = 0
    while left:
        chosen = set(pack_round(left, set()))
        left = [g for g in left if g not in chosen]
        rounds += 1
    return rounds


def swiss_tables(entrants: int, players: int, rounds: int) -> int:
    """Tables a Swiss event plays: a table per `players` bots each round (the rest get byes).

    >>> swiss_tables(16, 4, 4), swiss_tables(10, 4, 3)
    (16, 6)
    """
    return (entrants // players) * rounds


def pair_swiss(order: Sequence[str], players: int, played: set[tuple[str, ...]],
               byes: Mapping[str, int],
               budget: int = SEARCH_BUDGET) -> tuple[list[tuple[str, ...]], list[str]]:
    """One Swiss round: (tables, bots with a bye). `order`: the standings, best first.

    The byes go to the lowest-placed bots with the fewest byes; the others sit in tables of `players` from
    the top down, each bot with the next ones in the order, no table the same set of bots as one played
    before while any other pairing exists (a search of at most `budget` steps; past it, the greedy tables).

    >>> pair_swiss(list("abcdefgh"), 4, set(), {})
    ([('a', 'b', 'c', 'd'), ('e', 'f', 'g', 'h')], [])
    >>> pair_swiss(list("abcdefgh"), 4, {("a", "b", "c", "d")}, {})[0]
    [('a', 'b', 'c', 'e'), ('d', 'f', 'g', 'h')]
    >>> pair_swiss(list("abcde"), 2, set(), {"e": 1})
    ([('a', 'b'), ('c', 'e')], ['d'])
    """
    spare = len(order) % players
    ranked = list(order)
    bye: list[str] = []
    if spare:
        by_need = sorted(range(len(ranked)), key=lambda i: (byes.get(ranked[i], 0), -i))
        bye = sorted((ranked[i] for i in by_need[:spare]), key=ranked.index)
        ranked = [b for b in ranked if b not in bye]
    steps = [0]

    def search(left: list[str]) -> list[tuple[str, ...]] | None:
        if not left:
            return []
        head, rest = left[0], left[1:]
        for others in itertools.combinations(rest, players - 1):
            steps[0] += 1
            if steps[0] > budget:
                return None
            group = (head, *others)
            if group_key(group) in played:
                continue
            remaining = [b for b in rest if b not in others]
            found = search(remaining)
            if found is not None:
                return [group, *found]
            if steps[0] > budget:
                return None
        return None

    tables = search(ranked)
    if tables is None:
        tables = [tuple(ranked[i:i + players]) for i in range(0, len(ranked), players)]
    return tables, bye


def standings(entrants: Sequence[str], players: int, rounds: Sequence[Sequence[TableResult]],
              byes: Sequence[Sequence[str]], dropped: Iterable[str], lower_is_better: bool) -> list[Row]:
    """The event's standings, best first, from its published rounds (`rounds[r]`: the tables of round r that
    were played; `byes[r]`: its bots without a table).

    Order: points (a table gives each bot the number of bots it finished ahead of; a bye the mean), then
    Buchholz (the points of every opponent met, summed), then the duplicate score (lower first in a game
    where low wins), then tables won, then the bot id.

    >>> rows = standings(["a", "b", "c"], 2, [[TableResult({"a": 1, "b": 2}, {"a": -4, "b": 4})]], [["c"]],
    ...                  [], True)
    >>> [(r.bot_id, r.points) for r in rows]
    [('a', 1.0), ('c', 0.5), ('b', 0.0)]
    """
    rows = {bot: Row(bot) for bot in entrants}
    for round_tables, round_byes in itertools.zip_longest(rounds, byes, fillvalue=()):
        for table in round_tables:
            for bot, place in table.places.items():
                row = rows.setdefault(bot, Row(bot))
                row.points += table_points(place, players)
                row.score += float(table.totals.get(bot, 0))
                row.tables += 1
                row.firsts += place == 1
                row.opponents.extend(b for b in table.places if b != bot)
        for bot in round_byes:
            row = rows.setdefault(bot, Row(bot))
            row.points += bye_points(players)
            row.byes += 1
    for bot in dropped:
        if bot in rows:
            rows[bot].dropped = True
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents if o in rows)
    sign = 1.0 if lower_is_better else -1.0
    return sorted(rows.values(), key=lambda r: (-r.points, -r.buchholz, sign * r.score, -r.firsts, r.bot_id))


def spearman(expected: Sequence[str], observed: Sequence[str]) -> float:
    """Spearman's rank correlation of the bots of `expected` (best first) as `observed` orders them.

    >>> spearman(["a", "b", "c"], ["x", "a", "b", "c"]), spearman(["a", "b", "c"], ["c", "b", "a"])
    (1.0, -1.0)
    """
    common = [bot for bot in observed if bot in expected]
    n = len(common)
    if n < 2:
        return math.nan
    rank = {bot: i for i, bot in enumerate(common)}
    d2 = sum((rank[bot] - i) ** 2 for i, bot in enumerate(b for b in expected if b in rank))
    return 1 - 6 * d2 / (n * (n * n - 1))
