"""One measured curve and its fitted exponent: ``cost ≈ a · n^k``, k by least squares in log-log space. A
per-request cost is *flat* when k ≤ 0.1; a cost linear in n by nature states that as its goal instead.

Design: docs/scaling.md#how-each-curve-is-measured
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: A per-request cost is flat in n when its fitted exponent is at most this.
FLAT = 0.1


def fit_exponent(sizes: Sequence[float], values: Sequence[float]) -> float:
    """The slope of log(value) against log(size), by least squares (k in value ≈ a·n^k).

    Values of 0 are lifted to the smallest positive value seen (a count that was 0 at one size and 1 at
    another is not an infinite slope). Fewer than two sizes fit nothing and raise ``ValueError``.

    >>> fit_exponent((10, 100, 1000), (1.0, 10.0, 100.0))
    1.0
    """
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError("a curve needs at least two sizes, each with one value")
    positive = [v for v in values if v > 0]
    floor = min(positive) if positive else 1.0
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(v, floor)) for v in values]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        raise ValueError("a curve needs at least two different sizes")
    return round(sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread, 4)


@dataclass(frozen=True)
class Curve:
    """One cost measured at several sizes of one axis (bots, parked polls, watchers, matches).

    ``max_exponent`` is the goal for the fitted exponent (``FLAT`` for a per-request cost); ``limit`` an
    absolute goal for the value at the largest size (e.g. 100 ms for the tick at 10,000 bots), or None.

    >>> curve = Curve("tick", "scheduler tick", "ms", sizes=(100, 1000, 10000), values=(2.0, 2.0, 2.0))
    >>> round(curve.exponent, 3)
    0.0
    """

    key: str
    title: str
    unit: str
    sizes: tuple[int, ...]
    values: tuple[float, ...]
    axis: str = "n"
    max_exponent: float | None = FLAT
    limit: float | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def exponent(self) -> float:
        return fit_exponent(self.sizes, self.values)

    @property
    def goal_met(self) -> bool:
        """Within its exponent goal and its absolute limit (a curve with neither has no goal and passes)."""
        if self.max_exponent is not None and self.exponent > self.max_exponent:
            return False
        return self.limit is None or self.values[-1] <= self.limit

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "title": self.title, "unit": self.unit, "axis": self.axis,
            "sizes": list(self.sizes), "values": list(self.values), "exponent": self.exponent,
            "max_exponent": self.max_exponent, "limit": self.limit, "goal_met": self.goal_met,
            "note": self.note, **({"extra": self.extra} if self.extra else {}),
        }
