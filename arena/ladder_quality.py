"""How well a ladder ranks bots of known strength, from its ratings and the entrants of its matches (pure).

Used by `python -m arena simulate-ladder` and `python -m tools.live_ladder`: both report the same figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from core.arena.model import HOUSE_PREFIX


def pair_meetings(tables: Iterable[Iterable[str]]) -> Counter[frozenset[str]]:
    """Matches played together, per pair of bots.

    >>> sorted((sorted(p), n) for p, n in pair_meetings([["a", "b", "c"], ["a", "b"]]).items())
    [(['a', 'b'], 2), (['a', 'c'], 1), (['b', 'c'], 1)]
    """
    met: Counter[frozenset[str]] = Counter()
    for table in tables:
        met.update(frozenset(pair) for pair in combinations(sorted(set(table)), 2))
    return met


def quality_report(known_order: Sequence[str], ratings: Mapping[str, float],
                   tables: Sequence[Sequence[str]]) -> dict[str, Any]:
    """ρ of the ladder order against `known_order` (strongest first), rating spread, distinct groups,
    pairs of `known_order` that never shared a table (named without the house prefix) and the pair meeting
    counts' range.

    Bots without a rating sit at the bottom (they have not played). ρ is None with fewer than two bots.

    >>> r = quality_report(["a", "b", "c"], {"a": 1600, "b": 1500, "c": 1400}, [["a", "b"], ["b", "a"]])
    >>> r["spearman"], r["spread"], r["groups"], r["pairs_never_met"], r["never_met"]
    (1.0, 200.0, 1, 2, [['a', 'c'], ['b', 'c']])
    """
    from scipy.stats import spearmanr  # here: the scheduler imports this module for pair_meetings only

    ladder = sorted(known_order, key=lambda b: -ratings.get(b, float("-inf")))
    rho = (float(spearmanr([known_order.index(b) for b in ladder], list(range(len(ladder)))).statistic)
           if len(ladder) > 1 else None)
    met = pair_meetings(tables)
    pairs = [frozenset(p) for p in combinations(known_order, 2)]
    never = [p for p in pairs if met[p] == 0]
    rated = [ratings[b] for b in known_order if b in ratings]
    return {
        "spearman": None if rho is None else round(rho, 4),
        "spread": round(float(max(rated) - min(rated)), 1) if rated else 0.0,
        "matches": len(tables),
        "groups": len({frozenset(t) for t in tables}),
        "pairs_never_met": len(never),
        "never_met": sorted([b.removeprefix(HOUSE_PREFIX) for b in sorted(p, key=known_order.index)]
                            for p in never),
        "pair_meetings_min": min((met[p] for p in pairs), default=0),
        "pair_meetings_max": max((met[p] for p in pairs), default=0),
    }
