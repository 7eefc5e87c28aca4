"""The pure tournament code without I/O (core.arena.tournaments): round-robin coverage and packing, Swiss
pairing without repeats while another pairing exists, byes, the standings' tie-breaks and dropped bots."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from core.arena.tournaments import (
    TableResult,
    bye_points,
    every_group,
    group_key,
    meeting_groups,
    pack_round,
    pair_swiss,
    round_robin_groups,
    round_robin_rounds,
    spearman,
    standings,
    table_points,
)

BOTS = [f"b{i:02d}" for i in range(12)]


# --- round robin -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("bots", "players"), [(5, 4), (7, 3), (8, 4), (6, 2)])
def test_every_group_round_robin_seats_each_set_of_bots_exactly_once(bots: int, players: int) -> None:
    field = BOTS[:bots]
    groups = every_group(field, players)
    assert len(groups) == math.comb(bots, players)
    assert {group_key(g) for g in groups} == {tuple(c) for c in itertools.combinations(field, players)}


@pytest.mark.parametrize(("bots", "players", "meetings"), [(8, 4, 1), (9, 3, 2), (6, 2, 2), (10, 4, 1)])
def test_a_round_robin_by_meetings_has_every_two_bots_meet_at_least_that_often(
        bots: int, players: int, meetings: int) -> None:
    field = BOTS[:bots]
    groups = meeting_groups(field, players, meetings)
    met = {pair: sum(set(pair) <= set(g) for g in groups) for pair in itertools.combinations(field, 2)}
    assert min(met.values()) >= meetings
    assert all(len(set(g)) == players for g in groups)
    if players == 2:
        assert set(met.values()) == {meetings}  # two seats: exactly the pairs, each `meetings` times
        assert len(groups) == math.comb(bots, 2) * meetings
    else:
        assert len(groups) < math.comb(bots, players) * meetings  # fewer tables than every group that often


def test_rounds_of_a_round_robin_seat_each_bot_once_and_play_every_group() -> None:
    groups = round_robin_groups(BOTS[:6], 2, None)
    left, played = list(groups), []
    while left:
        chosen = pack_round(left, set())
        seated = [b for g in chosen for b in g]
        assert len(seated) == len(set(seated)), "a bot at two tables of one round"
        played += chosen
        left = [g for g in left if g not in chosen]
    assert sorted(played) == sorted(groups)
    assert len(played) == 15 and round_robin_rounds(groups) == 5  # six bots, two seats: five rounds
    assert round_robin_rounds(round_robin_groups(BOTS[:7], 2, None)) == 7  # odd: a bye each round
    assert round_robin_rounds(every_group(BOTS[:6], 2)) == 7  # the same pairs packed in sorted order


def test_a_round_robin_round_skips_every_group_of_a_dropped_bot() -> None:
    groups = every_group(BOTS[:5], 4)
    chosen = pack_round(groups, {"b00"})
    assert chosen == [("b01", "b02", "b03", "b04")]
    assert pack_round([g for g in groups if "b00" in g], {"b00"}) == []


# --- Swiss -------------------------------------------------------------------------------------------------

def _pairing_without_repeat_exists(order: list[str], players: int, played: set[tuple[str, ...]]) -> bool:
    def search(left: list[str]) -> bool:
        if not left:
            return True
        head, rest = left[0], left[1:]
        return any(group_key((head, *others)) not in played
                   and search([b for b in rest if b not in others])
                   for others in itertools.combinations(rest, players - 1))

    return search(order)


@pytest.mark.parametrize(("bots", "players"), [(6, 2), (8, 2), (8, 4), (9, 3)])
def test_swiss_never_repeats_a_table_while_another_pairing_exists(bots: int, players: int) -> None:
    rng = random.Random(bots * 10 + players)
    for _ in range(40):
        order = rng.sample(BOTS[:bots], bots)
        candidates = [group_key(g) for g in itertools.combinations(order, players)]
        played = set(rng.sample(candidates, rng.randint(0, len(candidates) - 1)))
        tables, byes = pair_swiss(order, players, played, {})
        assert byes == []
        assert sorted(b for t in tables for b in t) == sorted(order)
        assert all(len(t) == players for t in tables)
        repeats = [t for t in tables if group_key(t) in played]
        assert not repeats or not _pairing_without_repeat_exists(order, players, played), (order, played)


def test_swiss_seats_from_the_top_and_repeats_only_when_it_must() -> None:
    order = BOTS[:8]
    tables, _ = pair_swiss(order, 4, set(), {})
    assert tables == [tuple(order[:4]), tuple(order[4:])]  # nothing played: neighbours in the standings
    only = ("b00", "b01", "b02", "b03")
    assert pair_swiss(list(only), 4, {only}, {}) == ([only], [])  # four bots: the one table there is
    # Past its search budget it takes the greedy tables rather than search on.
    played = {group_key(g) for g in itertools.combinations(order, 4) if "b00" in g and "b01" in g}
    tables, _ = pair_swiss(order, 4, played, {}, budget=1)
    assert tables == [tuple(order[:4]), tuple(order[4:])]


def test_swiss_byes_go_to_the_lowest_placed_with_the_fewest_byes_and_each_bot_gets_one_before_a_second(
        ) -> None:
    field = BOTS[:10]
    byes: dict[str, int] = {}
    played: set[tuple[str, ...]] = set()
    for _ in range(5):
        tables, bye = pair_swiss(field, 4, played, byes)
        assert len(bye) == 2 and not set(bye) & {b for t in tables for b in t}
        fewest = min(byes.get(b, 0) for b in field)
        assert all(byes.get(b, 0) == fewest for b in bye)
        for b in bye:
            byes[b] = byes.get(b, 0) + 1
        played |= {group_key(t) for t in tables}
    assert set(byes) == set(field) and set(byes.values()) == {1}  # five rounds, ten bots, two byes a round
    _, first = pair_swiss(field, 4, set(), {})
    assert first == ["b08", "b09"]  # the lowest placed


# --- standings ---------------------------------------------------------------------------------------------

def test_points_per_place_share_ties_and_a_bye_is_worth_the_mean() -> None:
    assert [table_points(p, 4) for p in (1, 2, 3, 4)] == [3.0, 2.0, 1.0, 0.0]
    assert table_points(1.5, 4) == 2.5  # two bots tied for first share 3 and 2
    assert bye_points(4) == sum(table_points(p, 4) for p in (1, 2, 3, 4)) / 4
    assert bye_points(3) == 1.0


def _table(places: dict[str, float], totals: dict[str, float] | None = None) -> TableResult:
    return TableResult(places, totals or dict.fromkeys(places, 0.0))


def test_standings_order_by_points_then_buchholz() -> None:
    # a, b, c and f end on 1 point: a and f met stronger bots (Buchholz 3) than b and c did (1).
    rounds = [[_table({"a": 1, "c": 2}), _table({"b": 1, "d": 2}), _table({"e": 1, "f": 2})],
              [_table({"e": 1, "a": 2}), _table({"f": 1, "b": 2}), _table({"c": 1, "d": 2})]]
    rows = standings(list("abcdef"), 2, rounds, [[], []], [], True)
    assert [(r.bot_id, r.points, r.buchholz) for r in rows] == [
        ("e", 2.0, 2.0), ("a", 1.0, 3.0), ("f", 1.0, 3.0), ("b", 1.0, 1.0), ("c", 1.0, 1.0), ("d", 0.0, 2.0)]
    by_bot = {r.bot_id: r for r in rows}
    assert by_bot["a"].opponents == ["c", "e"] and by_bot["a"].tables == 2 and by_bot["a"].firsts == 1


@pytest.mark.parametrize("lower_is_better", [True, False])
def test_standings_then_order_by_the_duplicate_score_in_the_games_direction(lower_is_better: bool) -> None:
    # a and b tie on points and Buchholz (they met each other and tied); the score decides.
    rounds = [[_table({"a": 1.5, "b": 1.5}, {"a": -3.0, "b": 5.0})]]
    rows = standings(["a", "b"], 2, rounds, [[]], [], lower_is_better)
    assert rows[0].points == rows[1].points and rows[0].buchholz == rows[1].buchholz
    assert [r.bot_id for r in rows] == (["a", "b"] if lower_is_better else ["b", "a"])


def test_standings_then_by_tables_won_then_by_id() -> None:
    # x and y meet the same four bots and end level on points, Buchholz and score: x won a table, y none.
    rounds = [[_table({"x": 1, "p": 2, "q": 3}), _table({"y": 2, "r": 1, "s": 3})],
              [_table({"x": 3, "r": 1, "s": 2}), _table({"y": 2, "p": 1, "q": 3})]]
    rows = standings(list("yxpqrs"), 3, rounds, [[], []], [], True)
    by_bot = {r.bot_id: r for r in rows}
    assert (by_bot["x"].points, by_bot["x"].buchholz) == (2.0, 8.0)
    assert (by_bot["y"].points, by_bot["y"].buchholz) == (2.0, 8.0)
    assert (by_bot["x"].firsts, by_bot["y"].firsts) == (1, 0)
    order = [r.bot_id for r in rows]
    assert order.index("x") == order.index("y") - 1
    assert [r.bot_id for r in standings(["n", "m"], 2, [], [], [], True)] == ["m", "n"]  # all level: by id


def test_a_bye_counts_its_points_and_no_opponent() -> None:
    rows = {r.bot_id: r for r in standings(list("abc"), 2, [[_table({"a": 1, "b": 2})]], [["c"]], [], True)}
    assert rows["c"].points == 0.5 and rows["c"].byes == 1 and rows["c"].tables == 0
    assert rows["c"].buchholz == 0.0 and rows["a"].buchholz == 0.0 and rows["b"].buchholz == 1.0


def test_a_dropped_bot_keeps_its_points_and_is_marked() -> None:
    rounds = [[_table({"a": 1, "b": 2, "c": 3})]]
    rows = standings(list("abcd"), 3, rounds, [["d"]], ["a"], True)
    by_bot = {r.bot_id: r for r in rows}
    assert by_bot["a"].dropped and by_bot["a"].points == 2.0 and rows[0].bot_id == "a"
    assert not any(r.dropped for r in rows if r.bot_id != "a")
    forfeit = standings(list("ab"), 2, [[TableResult({"a": 1, "b": 2}, {"a": 0, "b": 0}, ["b"])]], [[]],
                        ["b"], True)
    assert [(r.bot_id, r.points, r.dropped) for r in forfeit] == [("a", 1.0, False), ("b", 0.0, True)]


def test_spearman_of_the_graded_bots() -> None:
    assert spearman(list("abcd"), list("xaybzcd")) == 1.0
    assert spearman(list("abcd"), list("dcba")) == -1.0
    assert spearman(list("abc"), list("bac")) == pytest.approx(0.5)
    assert math.isnan(spearman(list("ab"), list("ax")))
