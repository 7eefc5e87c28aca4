"""The ladder's ranking rows, pure: new bots apart and unranked, the provisional flag, the uncertainty."""

from __future__ import annotations

import math

from api.blueprints.ladders import PROVISIONAL_MATCHES, standing_rows, uncertainty
from core.arena.elo import EloConfig
from core.arena.model import Member, MemberKind


def _stats(**games: int) -> dict[str, dict[str, int]]:
    return {bot: {"matches": n, "wins": 0, "strikes": 0, "forfeits": 0} for bot, n in games.items()}


def test_bots_with_no_rated_match_are_new_and_ranks_count_only_ranked_bots() -> None:
    ranked = [("n1", 1500.0), ("a", 1499.0), ("n2", 1500.0), ("b", 1400.0)]  # rating descending, as stored
    rows, new = standing_rows(ranked, {}, _stats(n1=0, a=141, n2=0, b=3), set())
    assert [(r["rank"], r["bot_id"]) for r in rows] == [(1, "a"), (2, "b")]
    assert [r["bot_id"] for r in new] == ["n1", "n2"] and all("rank" not in r for r in new)
    assert all(r["matches"] == 0 and r["provisional"] for r in new)


def test_a_bot_missing_from_stats_counts_as_new() -> None:
    rows, new = standing_rows([("x", 1500.0)], {}, {}, set())
    assert rows == [] and [r["bot_id"] for r in new] == ["x"]


def test_provisional_below_the_elo_provisional_games() -> None:
    assert EloConfig().provisional_games == PROVISIONAL_MATCHES
    n = PROVISIONAL_MATCHES
    ranked = [("a", 1600.0), ("b", 1550.0), ("c", 1510.0)]
    rows, _ = standing_rows(ranked, {}, _stats(a=n - 1, b=n, c=1), set())
    assert [(r["bot_id"], r["provisional"]) for r in rows] == [("a", True), ("b", False), ("c", True)]
    rows, _ = standing_rows([("a", 1600.0)], {}, _stats(a=5), set(), provisional_matches=5)
    assert rows[0]["provisional"] is False


def test_rows_carry_names_kinds_versions_and_a_shrinking_uncertainty() -> None:
    members = {"a": Member("a", MemberKind.HTTP, url="http://x", name="alpha")}
    rows, _ = standing_rows([("a", 1512.34), ("gone", 1490.0)], members, _stats(a=8, gone=2), {"a"},
                            versions={"a": "1.2"})
    assert (rows[0]["name"], rows[0]["kind"], rows[0]["rating"], rows[0]["paused"], rows[0]["version"]) == (
        "alpha", "http", 1512.3, True, "1.2")
    assert (rows[1]["name"], rows[1]["kind"], rows[1]["version"]) == (None, None, None)
    assert rows[0]["uncertainty"] == round(350 / math.sqrt(9), 1)
    assert uncertainty(0) == 350.0 and uncertainty(141) < uncertainty(20) < uncertainty(1)
