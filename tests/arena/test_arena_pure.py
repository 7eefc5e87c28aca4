"""Pure arena logic: Elo, matchmaking, fallback policy, reply validation (no I/O)."""

from __future__ import annotations

import random

import pytest

import core.arena.model
from arena.ladder_quality import pair_meetings, quality_report
from arena.matchmaking import Candidate, MatchmakingConfig, pick_table, should_wait
from arena.policy import Outcome, ReplyError, fallback_move, parse_reply
from core.arena.elo import (
    EloConfig,
    expected_score,
    k_factor,
    match_deltas,
    places_from_totals,
    places_with_forfeits,
    rating_deltas,
    standings,
)
from core.arena.model import (
    GRADED_HOUSE_BOTS,
    LADDER_SEARCH_BOTS,
    LadderConfig,
    MatchSpec,
    Member,
    default_ladders,
    house_bots_for,
)

# --- Elo ---------------------------------------------------------------------------------------------------


def test_expected_score_is_symmetric_and_half_for_equal_ratings() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1700, 1500) + expected_score(1500, 1700) == pytest.approx(1.0)
    assert expected_score(1900, 1500) == pytest.approx(1 / (1 + 10 ** (-1)))


def test_two_player_match_is_classic_elo() -> None:
    deltas = rating_deltas({"a": 1500, "b": 1500}, {"a": 50, "b": 50}, {"a": 1, "b": 2})
    assert deltas == {"a": pytest.approx(16.0), "b": pytest.approx(-16.0)}


def test_four_player_pairwise_decomposition_by_hand() -> None:
    ratings = {"a": 1600.0, "b": 1500.0, "c": 1500.0, "d": 1400.0}
    games = {p: 50 for p in ratings}
    places = {"a": 2, "b": 1, "c": 3, "d": 3}  # c and d tie for third
    deltas = rating_deltas(ratings, games, places)
    k_pair = 32 / 3
    e = expected_score
    want_a = k_pair * ((0 - e(1600, 1500)) + (1 - e(1600, 1500)) + (1 - e(1600, 1400)))
    want_c = k_pair * ((0 - e(1500, 1600)) + (0 - e(1500, 1500)) + (0.5 - e(1500, 1400)))
    want_d = k_pair * ((0 - e(1400, 1600)) + (0 - e(1400, 1500)) + (0.5 - e(1400, 1500)))
    assert deltas["a"] == pytest.approx(want_a)
    assert deltas["c"] == pytest.approx(want_c)
    assert deltas["d"] == pytest.approx(want_d)
    # With one K for everybody the match is zero-sum.
    assert sum(deltas.values()) == pytest.approx(0.0, abs=1e-9)


def test_provisional_k_for_first_twenty_games() -> None:
    config = EloConfig(k=32, provisional_k=64, provisional_games=20)
    assert k_factor(0, config) == 64
    assert k_factor(19, config) == 64
    assert k_factor(20, config) == 32
    assert k_factor(99, config) == 32 and k_factor(100, config) == 16  # settled: half the step
    deltas = rating_deltas({"new": 1500, "old": 1500}, {"new": 3, "old": 50}, {"new": 1, "old": 2})
    assert deltas["new"] == pytest.approx(32.0)
    assert deltas["old"] == pytest.approx(-16.0)
    settled = rating_deltas({"new": 1500, "old": 1500}, {"new": 3, "old": 300}, {"new": 1, "old": 2})
    assert settled["old"] == pytest.approx(-8.0)


def test_a_match_moves_a_rating_by_at_most_k() -> None:
    deltas = rating_deltas({p: 1000.0 + 500 * i for i, p in enumerate("abcde")}, dict.fromkeys("abcde", 99),
                           {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5})
    assert all(abs(d) <= 32 for d in deltas.values())
    assert deltas["a"] > 0 > deltas["e"]


def test_all_tied_equal_ratings_change_nothing() -> None:
    deltas = rating_deltas(dict.fromkeys("abcd", 1500.0), dict.fromkeys("abcd", 0), dict.fromkeys("abcd", 1))
    assert all(d == pytest.approx(0.0) for d in deltas.values())


def test_places_from_totals_both_directions_with_ties() -> None:
    totals = {"a": 10, "b": 30, "c": 10, "d": 5}
    assert places_from_totals(totals, lower_is_better=True) == {"d": 1, "a": 2, "c": 2, "b": 4}
    assert places_from_totals(totals, lower_is_better=False) == {"b": 1, "a": 2, "c": 2, "d": 4}


def test_forfeiting_bots_rank_last_within_the_tables_places() -> None:
    places = {"a": 1, "b": 2, "c": 3, "d": 4}
    assert places_with_forfeits(places, {"a"}) == {"a": 4, "b": 1, "c": 2, "d": 3}
    assert places_with_forfeits(places, {"a", "c"}) == {"a": 3, "b": 1, "c": 3, "d": 2}
    assert places_with_forfeits({"a": 1, "b": 1, "c": 3, "d": 4}, {"d"}) == {"a": 1, "b": 1, "c": 3, "d": 4}
    for forfeited in ({"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "b", "c", "d"}):
        assert max(places_with_forfeits(places, forfeited).values()) <= len(places)
    deltas = rating_deltas(dict.fromkeys("abcd", 1500.0), dict.fromkeys("abcd", 50),
                           places_with_forfeits(places, {"a"}))
    assert deltas["a"] == pytest.approx(-16.0)


def test_a_forfeiting_bot_is_never_a_winner() -> None:
    # The forfeiter has the best score; the only bot that did not forfeit... is first, not second.
    result = standings({"a": 0, "b": 10, "c": 20, "d": 30}, lower_is_better=True, forfeited={"a", "c", "d"})
    assert result.places == {"a": 2, "b": 1, "c": 2, "d": 2}
    assert result.winners == ["b"] and result.rated


def test_a_match_everybody_forfeited_has_no_winner_and_moves_no_rating() -> None:
    result = standings({"a": 0, "b": 10, "c": 20, "d": 30}, lower_is_better=True, forfeited=set("abcd"))
    assert result.winners == [] and not result.rated
    assert set(result.places.values()) == {1}
    deltas = match_deltas(dict(zip("abcd", (1400.0, 1500.0, 1600.0, 1700.0), strict=True)),
                          dict.fromkeys("abcd", 0), result)
    assert deltas == dict.fromkeys("abcd", 0.0)


def test_standings_without_forfeits_are_the_score_order_with_ties() -> None:
    result = standings({"a": 5, "b": 5, "c": 1}, lower_is_better=False, forfeited=set())
    assert result.places == {"a": 1, "b": 1, "c": 3} and result.winners == ["a", "b"] and result.rated


def test_arena_elo_docstring_examples() -> None:
    import doctest

    import core.arena.elo

    assert doctest.testmod(core.arena.elo).attempted >= 4 and doctest.testmod(core.arena.elo).failed == 0


# --- matchmaking -------------------------------------------------------------------------------------------


def test_pick_table_prefers_fewest_games_then_close_ratings() -> None:
    candidates = [
        Candidate("newbie", 1500, 0),
        Candidate("near", 1510, 10),
        Candidate("far", 1900, 10),
        Candidate("mid", 1450, 11),
        Candidate("close-but-busy", 1500, 10, available=False),
        Candidate("veteran", 1500, 500),
    ]
    table = pick_table(candidates, 3, random.Random(1))
    assert table is not None
    assert table[0] == "newbie"
    assert set(table) == {"newbie", "near", "mid"}


def test_pick_table_first_pick_can_be_restricted() -> None:
    candidates = [Candidate(c, 1500, 0) for c in "abcdefgh"] + [Candidate("reg", 1500, 9)]
    for seed in range(20):
        table = pick_table(candidates, 4, random.Random(seed), first_from=frozenset({"reg"}))
        assert table is not None and table[0] == "reg"
    busy = [*candidates[:-1], Candidate("reg", 1500, 9, available=False)]
    assert pick_table(busy, 4, random.Random(0), first_from=frozenset({"reg"})) is None


def test_pick_table_seats_at_most_one_bot_per_owner_when_owners_suffice() -> None:
    # One owner floods the ladder with ten fresh bots (fewest games: always the first pick's neighbours).
    flood = [Candidate(f"flood{i}", 1500, 0, owner="mallory") for i in range(10)]
    others = [Candidate(f"solo{i}", 1500 + 40 * i, 25) for i in range(4)]
    house = [Candidate(f"house:{n}", 1500, 40, owner=None) for n in ("a", "b")]
    last = None
    for seed in range(50):
        table = pick_table(flood + others + house, 4, random.Random(seed), last_group=last)
        assert table is not None
        assert sum(b.startswith("flood") for b in table) == 1, table
        last = frozenset(table)


def test_pick_table_repeats_owners_only_as_much_as_too_few_owners_require() -> None:
    two_owners = [Candidate(f"{o}{i}", 1500, i, owner=o) for o in "ab" for i in range(3)]
    for seed in range(20):
        table = pick_table(two_owners, 4, random.Random(seed))
        assert table is not None and len(table) == 4
        assert sorted(b[0] for b in table) == ["a", "a", "b", "b"]
    three_owners = [*two_owners, Candidate("c0", 1500, 50, owner="c")]
    table = pick_table(three_owners, 4, random.Random(3))
    assert table is not None and sorted(b[0] for b in table).count("c") == 1  # c seated despite its games


def test_pick_table_needs_enough_available_bots() -> None:
    candidates = [Candidate("a", 1500, 0), Candidate("b", 1500, 0), Candidate("c", 1500, 0, available=False)]
    assert pick_table(candidates, 3, random.Random(0)) is None


def test_pick_table_avoids_the_same_group_twice_in_a_row() -> None:
    candidates = [Candidate(c, 1500 + i, 0) for i, c in enumerate("abcde")]
    rng = random.Random(7)
    first = pick_table(candidates, 4, rng)
    assert first is not None
    for seed in range(50):
        again = pick_table(candidates, 4, random.Random(seed), last_group=frozenset(first))
        assert again is not None and frozenset(again) != frozenset(first)
        assert len(set(again)) == 4


def test_same_group_allowed_when_no_alternative_exists() -> None:
    candidates = [Candidate(c, 1500, 0) for c in "abcd"]
    assert set(pick_table(candidates, 4, random.Random(0), last_group=frozenset("abcd"))) == set("abcd")


def test_repeated_matchmaking_balances_game_counts() -> None:
    rng = random.Random(3)
    games = dict.fromkeys("abcdefghij", 0)
    ratings = {b: 1200 + 60 * i for i, b in enumerate(games)}
    last = None
    for _ in range(200):
        table = pick_table([Candidate(b, ratings[b], games[b]) for b in games], 4, rng, last_group=last)
        assert table is not None
        for b in table:
            games[b] += 1
        last = frozenset(table)
    assert max(games.values()) - min(games.values()) <= 4


def test_matchmaking_docstring_examples() -> None:
    import doctest

    import arena.ladder_quality
    import arena.matchmaking

    for module in (arena.matchmaking, arena.ladder_quality):
        result = doctest.testmod(module)
        assert result.attempted >= 2 and result.failed == 0


def test_pick_table_prefers_bots_that_met_the_first_pick_least() -> None:
    # Equal games and ratings: only the meeting counts tell the bots apart.
    candidates = [Candidate(b, 1500.0, 0) for b in "abcdefg"]
    met = pair_meetings([["a", "b", "c", "d"]] * 4)
    for seed in range(20):
        table = pick_table(candidates, 4, random.Random(seed), meetings=met)
        assert table is not None
        if table[0] in "abcd":  # the three others are the bots it has never met
            assert set(table[1:]) == set("efg")


def test_a_group_re_matched_while_slow_bots_play_waits_for_them_a_bounded_time() -> None:
    fast, slow = list("abcd"), list("wxyz")
    met = pair_meetings([fast] * 3 + [slow])
    candidates = ([Candidate(b, 1500.0, 3) for b in fast]
                  + [Candidate(b, 1500.0, 1, available=False, busy=True) for b in slow])
    config = MatchmakingConfig(max_wait_s=30.0)
    rng = random.Random(0)
    early = dict.fromkeys(fast, 5.0)
    assert pick_table(candidates, 4, rng, meetings=met, waited_s=early, config=config) is None
    late = pick_table(candidates, 4, rng, meetings=met, waited_s={**dict.fromkeys(fast, 5.0), "c": 30.0},
                      config=config)
    assert late is not None and set(late) == set(fast)  # waited long enough: they play among themselves
    # Without waiting times (or meeting counts) the table is never held back.
    assert pick_table(candidates, 4, rng, meetings=met) is not None


def test_bots_that_hardly_met_each_other_never_wait() -> None:
    # A big ladder: the table's bots met once at most, a busy bot never: not worth waiting for.
    met = pair_meetings([["a", "b"], ["c", "d"]])
    assert not should_wait(list("abcd"), ["z"], met, dict.fromkeys("abcd", 0.0))
    assert not should_wait(list("abcd"), [], pair_meetings([list("abcd")] * 9), {})  # nobody to wait for


def test_mixing_matchmaking_with_slow_bots_lets_every_pair_meet() -> None:
    """Two matches in flight, one group slow: without waits the groups never mix (the split this prevents)."""
    bots = [f"b{i}" for i in range(8)]
    slow = set(bots[:4])

    def play(mixing: bool) -> dict[str, object]:
        rng = random.Random(5)
        games = dict.fromkeys(bots, 0)
        met: dict[frozenset[str], int] = pair_meetings([])
        running: list[tuple[int, list[str]]] = []  # (finish tick, table)
        free_since: dict[str, int] = {}
        tables = []
        for now in range(400):
            for finish, table in [r for r in running if r[0] <= now]:
                running.remove((finish, table))
                for b in table:
                    games[b] += 1
            busy = {b for _, t in running for b in t}
            for b in bots:
                free_since.pop(b, None) if b in busy else free_since.setdefault(b, now)
            while len(running) < 2:
                candidates = [Candidate(b, 1500.0, games[b], available=b not in busy, busy=b in busy)
                              for b in bots]
                table = pick_table(candidates, 4, rng, meetings=met if mixing else None,
                                   waited_s={b: now - t for b, t in free_since.items()} if mixing else None)
                if table is None:
                    break
                duration = 1 + 10 * len(slow & set(table))  # slow bots take 10 ticks a match each
                running.append((now + duration, table))
                met.update(pair_meetings([table]))
                busy.update(table)
                tables.append(table)
        return quality_report(bots, dict.fromkeys(bots, 1500.0), tables)

    assert play(mixing=False)["pairs_never_met"] == 16
    assert play(mixing=True)["pairs_never_met"] == 0


def test_quality_report_of_a_ladder() -> None:
    known = ["s", "h", "e", "r"]  # strongest first
    ratings = {"s": 1700.0, "h": 1600.0, "e": 1620.0, "r": 1300.0}
    tables = [["s", "h", "e"], ["h", "e", "s"], ["h", "e", "r"]]
    report = quality_report(known, ratings, tables)
    assert report["spearman"] == 0.8  # one swap of neighbours among 4
    assert report["spread"] == 400.0 and report["matches"] == 3
    assert report["groups"] == 2  # the first two tables are one group in another seating
    assert report["never_met"] == [["s", "r"]] and report["pairs_never_met"] == 1
    assert report["pair_meetings_min"] == 0 and report["pair_meetings_max"] == 3
    # A bot that never played sits at the bottom and meets nobody.
    unplayed = quality_report([*known, "new"], ratings, tables)
    assert unplayed["pairs_never_met"] == 5 and unplayed["spearman"] is not None


# --- fallback policy and reply validation -------------------------------------------------------------------


def test_fallback_play_is_lowest_legal_card() -> None:
    assert fallback_move({"kind": "play", "count": 1, "legal": ["KS", "2H", "TD", "2C"]}) == "2C"
    assert fallback_move({"kind": "sore", "count": 1, "legal": ["AS", "QD"]}) == "QD"


def test_fallback_pass_is_the_lowest_cards() -> None:
    decision = {"kind": "pass", "count": 3, "legal": ["AS", "TH", "9C", "2D", "QS", "9D"]}
    assert fallback_move(decision) == ["2D", "9C", "9D"]


def test_a_house_bots_fallback_is_a_legal_move_drawn_from_its_seed() -> None:
    import doctest
    import random

    import arena.policy

    legal = ["KS", "2H", "TD", "2C", "9C"]
    decision = {"kind": "pass", "count": 3, "legal": legal}
    passes = [fallback_move(decision, random.Random(seed)) for seed in range(9)]
    assert all(len(set(move)) == 3 and set(move) <= set(legal) for move in passes)
    assert len({tuple(move) for move in passes}) > 1  # drawn, not always the lowest
    play = {"kind": "play", "count": 1, "legal": legal}
    assert fallback_move(play, random.Random(4)) == fallback_move(play, random.Random(4)) in legal
    assert doctest.testmod(arena.policy).failed == 0


PLAY = {"kind": "play", "count": 1, "legal": ["QS", "2C"]}
PASS = {"kind": "pass", "count": 3, "legal": ["2C", "3C", "4C", "5C"]}


def test_parse_reply_accepts_good_moves() -> None:
    assert parse_reply(b'{"move": "QS"}', PLAY) == "QS"
    assert parse_reply(b'{"move": ["qs"], "note": "x"}', PLAY) == "qs"
    assert parse_reply(b'{"move": ["2C", "3C", "4C"]}', PASS) == ["2C", "3C", "4C"]


@pytest.mark.parametrize(
    ("body", "decision", "outcome"),
    [
        (b"not json", PLAY, Outcome.BAD_JSON),
        (b"\xff\xfe", PLAY, Outcome.BAD_JSON),
        (b"", PLAY, Outcome.BAD_JSON),
        (b'["QS"]', PLAY, Outcome.BAD_SHAPE),
        (b'{"card": "QS"}', PLAY, Outcome.BAD_SHAPE),
        (b'{"move": 12}', PLAY, Outcome.BAD_SHAPE),
        (b'{"move": "the queen"}', PLAY, Outcome.BAD_SHAPE),
        (b'{"move": ["2C", "3C"]}', PASS, Outcome.BAD_SHAPE),
        (b'{"move": ["2C", "2c", "3C"]}', PASS, Outcome.BAD_SHAPE),
        (b'{"move": "2C"}', PASS, Outcome.BAD_SHAPE),
    ],
)
def test_parse_reply_rejects_bad_replies(body: bytes, decision: dict, outcome: Outcome) -> None:
    with pytest.raises(ReplyError) as info:
        parse_reply(body, decision)
    assert info.value.outcome is outcome


# --- ladder defaults ----------------------------------------------------------------------------------------


def test_duplicate_is_on_by_default_for_four_player_ladders_only() -> None:
    assert LadderConfig("a", "sore-spot", 4).duplicate is True
    assert LadderConfig("b", "sore-spot", 5).duplicate is False
    assert LadderConfig("c", "sore-spot", 5, duplicate=True).duplicate is True
    assert LadderConfig.from_json(LadderConfig("d", "card-commons", 3).to_json()).duplicate is False
    ladders = default_ladders()
    assert {lad.game for lad in ladders} == {"sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"}
    assert all(lad.players == 4 and lad.duplicate and len(lad.house_bots) >= 4 for lad in ladders)


def test_a_ladder_gets_its_games_house_set_unless_it_names_one() -> None:
    # Each game's set: its search bot on top of the same graded bots.
    for ladder in default_ladders():
        assert ladder.house_bots == (LADDER_SEARCH_BOTS[ladder.game], *GRADED_HOUSE_BOTS)
        assert ladder.house_bots[0].startswith("search-")
    assert LadderConfig("cc", "card-commons", 3).house_bots == house_bots_for("card-commons")
    assert house_bots_for("card-commons") != house_bots_for("sloppy-seconds")  # budgets differ by game
    assert LadderConfig("none", "spot-hearts", 4, house_bots=()).house_bots == ()  # no house members
    mine = LadderConfig("mine", "sore-spot", 4, house_bots=("random", "heuristic"))
    assert LadderConfig.from_json(mine.to_json()) == mine
    stored = LadderConfig("old", "sloppy-seconds", 4).to_json()
    del stored["house_bots"]  # a ladder stored without the field gets its game's set
    assert LadderConfig.from_json(stored).house_bots == house_bots_for("sloppy-seconds")
    with pytest.raises(ValueError, match="unknown game"):
        house_bots_for("bridge")


def test_a_rerun_plays_fresh_deals_and_nothing_else_changes() -> None:
    entrants = [Member.house(name) for name in ("random", "heuristic", "eps-0.3")]
    spec = MatchSpec("m", "l", "sore-spot", 3, {"rounds": 1}, 12345, False, entrants, 1000, 5,
                     {m.bot_id: 1500.0 for m in entrants}, {m.bot_id: 0 for m in entrants})
    assert spec.for_attempt(1) is spec and spec.for_attempt(0) is spec
    seeds = [spec.for_attempt(attempt).seed for attempt in (2, 3, 4)]
    assert len({12345, *seeds}) == 4 and all(0 <= s < 2**53 for s in seeds)
    assert spec.for_attempt(2).seed == seeds[0]  # every worker derives the same re-run
    rerun = spec.for_attempt(2)
    assert {**rerun.to_json(), "seed": spec.seed} == spec.to_json()
    # Fresh deals indeed: the engine deals other hands from the re-run's seed.
    import engine

    first, second = (engine.new_game("sore-spot", 3, {"rounds": 1}, seed=s.seed) for s in (spec, rerun))
    assert first.record()["deals"] != second.record()["deals"]


def test_arena_model_docstring_examples() -> None:
    import doctest

    result = doctest.testmod(core.arena.model)
    assert result.attempted > 0 and result.failed == 0
