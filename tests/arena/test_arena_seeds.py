"""Every seed the service makes is below 2**53: exact as a JSON number in JavaScript and jq (no I/O here;
the scheduler's, API tables' and polling tables' seeds are checked with real processes in their own tests)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import engine.seeds
from core.arena.model import MatchSpec, Member
from engine.seeds import SEED_LIMIT, derive_seed, new_seed

ENTRANTS = [Member.house(name) for name in ("random", "heuristic", "eps-0.3")]


def spec_seeded(seed: int) -> MatchSpec:
    return MatchSpec("m", "l", "sore-spot", 3, {"rounds": 1}, seed, False, ENTRANTS, 1000, 5,
                     {m.bot_id: 1500.0 for m in ENTRANTS}, {m.bot_id: 0 for m in ENTRANTS})


def test_the_limit_is_the_last_exact_json_integer() -> None:
    assert SEED_LIMIT == 2**53
    assert float(SEED_LIMIT - 1) == SEED_LIMIT - 1 and float(SEED_LIMIT + 1) != SEED_LIMIT + 1


@given(st.integers(min_value=0, max_value=2**64 - 1), st.integers(min_value=2, max_value=10**6))
def test_a_rerun_seed_is_below_the_limit_whatever_seed_the_match_had(seed: int, attempt: int) -> None:
    # Matches stored before the limit had 63-bit seeds: their re-runs are published below 2**53 too.
    rerun = spec_seeded(seed).for_attempt(attempt)
    assert 0 <= rerun.seed < SEED_LIMIT
    assert rerun.seed == spec_seeded(seed).for_attempt(attempt).seed


@given(st.lists(st.one_of(st.integers(), st.text(max_size=20)), min_size=1, max_size=4))
def test_derived_seeds_are_below_the_limit(parts: list) -> None:
    assert 0 <= derive_seed(*parts) < SEED_LIMIT


def test_fresh_seeds_are_below_the_limit_and_use_its_whole_range() -> None:
    seeds = [new_seed() for _ in range(2000)]
    assert all(0 <= s < SEED_LIMIT for s in seeds)
    assert max(seeds) > SEED_LIMIT // 2 and len(set(seeds)) == len(seeds)  # not a narrower draw


def test_every_place_that_makes_a_seed_uses_the_seed_module() -> None:
    # The scheduler (arena matches), the table store (API tables; the arena's polling tables take the match's
    # seed) and re-runs all draw from engine.seeds: no 63-bit draw is left anywhere.
    import arena.scheduler
    import core.arena.model
    import core.tables.store

    assert arena.scheduler.new_seed is engine.seeds.new_seed
    assert core.tables.store.new_seed is engine.seeds.new_seed
    assert core.arena.model.derive_seed is engine.seeds.derive_seed


def test_engine_seeds_docstring_examples() -> None:
    import doctest

    results = doctest.testmod(engine.seeds)
    assert results.attempted >= 2 and results.failed == 0
