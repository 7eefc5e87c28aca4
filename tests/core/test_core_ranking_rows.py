"""The ladder's ranking rows, pure: new bots apart and unranked, the provisional flag, the uncertainty."""

from __future__ import annotations

import math

from core.arena.elo import EloConfig
from core.arena.model import Member, MemberKind
from core.arena.ranking import PROVISIONAL_MATCHES, ranking, uncertainty


def _stats(**matches: int) -> dict[str, dict[str, int]]:
    return {bot: {"matches": n, "wins": 0, "strikes": 0, "forfeits": 0} for bot, n in matches.items()}


def test_bots_with_no_rated_match_are_new_and_ranks_count_only_ranked_bots() -> None:
    ranked = [("n1", 1500.0), ("a", 1499.0), ("n2", 1500.0), ("b", 1400.0)]  # rating descending, as stored
    table = ranking(ranked, {}, _stats(n1=0, a=141, n2=0, b=3), set())
    assert [(r.rank, r.bot_id) for r in table.ranked] == [(1, "a"), (2, "b")]
    assert [r.bot_id for r in table.new] == ["n1", "n2"] and all(r.rank is None for r in table.new)
    assert all("rank" not in r.to_json() for r in table.new) and table.ranked[0].to_json()["rank"] == 1
    assert all(r.matches == 0 and r.provisional for r in table.new)
    assert [r.bot_id for r in table.rows] == ["a", "b", "n1", "n2"]


def test_a_bot_missing_from_stats_counts_as_new() -> None:
    table = ranking([("x", 1500.0)], {}, {}, set())
    assert table.ranked == [] and [r.bot_id for r in table.new] == ["x"]


def test_provisional_below_the_elo_provisional_games() -> None:
    assert EloConfig().provisional_games == PROVISIONAL_MATCHES
    n = PROVISIONAL_MATCHES
    ranked = [("a", 1600.0), ("b", 1550.0), ("c", 1510.0)]
    table = ranking(ranked, {}, _stats(a=n - 1, b=n, c=1), set())
    assert [(r.bot_id, r.provisional) for r in table.ranked] == [("a", True), ("b", False), ("c", True)]
    table = ranking([("a", 1600.0)], {}, _stats(a=5), set(), provisional_matches=5)
    assert table.ranked[0].provisional is False


def test_rows_carry_names_kinds_versions_and_a_shrinking_uncertainty() -> None:
    members = {"a": Member("a", MemberKind.HTTP, url="http://x", name="alpha")}
    stats = {**_stats(a=8, gone=2), "a": {"matches": 8, "wins": 2, "strikes": 1, "forfeits": 0,
                                          "mean_latency_ms": 4.5}}
    table = ranking([("a", 1512.34), ("gone", 1490.0)], members, stats, {"a"}, versions={"a": "1.2"})
    alpha, gone = table.ranked
    assert (alpha.name, alpha.kind, alpha.rating, alpha.paused, alpha.version) == (
        "alpha", "http", 1512.3, True, "1.2")
    assert (alpha.win_share, alpha.strikes, alpha.mean_latency_ms) == (0.25, 1, 4.5)
    assert (gone.name, gone.kind, gone.version, gone.paused) == (None, None, None, False)
    assert alpha.uncertainty == round(350 / math.sqrt(9), 1)
    assert uncertainty(0) == 350.0 and uncertainty(141) < uncertainty(20) < uncertainty(1)


def test_a_bot_that_forfeited_every_match_is_not_ranked_above_one_that_finished_one() -> None:
    stats = {"dead": {"matches": 3, "completed": 0, "forfeits": 3}, "weak": {"matches": 11, "completed": 11},
             "old": {"matches": 2}}  # rated before `completed` was counted: its matches count
    table = ranking([("dead", 1414.3), ("old", 1320.0), ("weak", 1305.3)], {}, stats, set())
    assert [(row.bot_id, row.rank) for row in table.ranked] == [("old", 1), ("weak", 2)]
    assert [(row.bot_id, row.rank, row.matches, row.completed) for row in table.new] == [("dead", None, 3, 0)]


def test_the_json_row_has_the_api_fields() -> None:
    row = ranking([("a", 1500.0)], {}, _stats(a=1), set()).ranked[0].to_json()
    assert list(row) == ["rank", "bot_id", "name", "kind", "rating", "matches", "completed", "wins",
                         "win_share",
                         "strikes", "forfeits", "mean_latency_ms", "provisional", "uncertainty", "paused",
                         "version"]


def test_ranking_docstring_examples() -> None:
    import doctest

    import core.arena.ranking

    result = doctest.testmod(core.arena.ranking)
    assert result.attempted >= 4 and result.failed == 0
