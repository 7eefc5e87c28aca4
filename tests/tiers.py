"""The suite's two tiers: which tests are drills, from the fixtures they use and the marks they carry.

`make test` runs the fast tier (``-m "not drill"``), `make drills` the rest; tests/README.md says which
test belongs where and why.
"""

from __future__ import annotations

from collections.abc import Iterable

DRILL = "drill"
REDIS = "redis"

# Fixtures that start a whole stack or break one on purpose: every test that uses one is a drill.
DRILL_FIXTURES: dict[str, str] = {
    "sentinel_needed": "starts a Redis Sentinel set",
    "behind_nginx": "starts nginx in front of the API",
    "browser": "drives a headless Chromium",
    "own_redis": "restarts or kills a Redis server of its own",
    "limited_redis": "fills a Redis server of its own to its memory or disk limit",
}

# Fixtures that reach the session's Redis: tests without one (``-m "not redis"``) are pure and run in seconds.
REDIS_FIXTURES = frozenset({"redis_url"})

# The fast tier's budget per test (setup, call and teardown), reported at the end of a run, never asserted.
FAST_TEST_BUDGET_S = 20.0


def tier_marks(fixtures: Iterable[str]) -> set[str]:
    """The marks a test gets from the fixtures it uses (directly or through other fixtures).

    >>> sorted(tier_marks(["make_app", "redis_url", "own_redis"]))
    ['drill', 'redis']
    >>> sorted(tier_marks(["tmp_path"]))
    []
    """
    fixtures = set(fixtures)
    marks = set()
    if fixtures & DRILL_FIXTURES.keys():
        marks.add(DRILL)
    if fixtures & REDIS_FIXTURES:
        marks.add(REDIS)
    return marks


def over_budget(durations: dict[str, float], budget_s: float = FAST_TEST_BUDGET_S) -> list[tuple[str, float]]:
    """The fast-tier tests whose time went over the budget, slowest first.

    >>> over_budget({"a": 3.0, "b": 25.0, "c": 21.5})
    [('b', 25.0), ('c', 21.5)]
    """
    return sorted(((name, s) for name, s in durations.items() if s > budget_s), key=lambda item: -item[1])
