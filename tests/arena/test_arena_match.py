"""Matches in-process with real HTTP bots on 127.0.0.1: strikes, fallback, forfeit, duplicate rotation."""

from __future__ import annotations

import pytest

import engine
from arena.match import MatchRunner, make_drivers, reference_totals, rotation_seating
from arena.policy import Outcome
from core.arena.model import MatchSpec, Member, MemberKind
from tests.scenarios import match_spec

ONE_ROUND = {"rounds": 1}  # Sore Spot with a single round: 13 cards each, a short but complete game


def spec_for(entrants: list[Member], duplicate: bool = False, game: str = "sore-spot",
             options: dict | None = None, deadline_ms: int = 300, strike_limit: int = 5,
             seed: int = 7) -> MatchSpec:
    return match_spec("m-test", entrants, ladder_id="l", game=game,
                      options=ONE_ROUND if options is None else options, seed=seed, duplicate=duplicate,
                      deadline_ms=deadline_ms, strike_limit=strike_limit)


HOUSE_TRIO = [Member.house("random"), Member.house("heuristic"), Member.house("eps-0.5")]


def http(bot_id: str, url: str) -> Member:
    return Member(bot_id, MemberKind.HTTP, url=url)


def run(spec: MatchSpec):
    return MatchRunner(spec, make_drivers(spec, allow_private=True)).run()


def test_house_match_is_reproducible_and_rated() -> None:
    entrants = [Member.house(n) for n in ("heuristic", "random", "eps-0.5", "eps-0.9")]
    first, second = run(spec_for(entrants)), run(spec_for(entrants))
    assert first.totals == second.totals and first.deltas == second.deltas
    assert sum(first.deltas.values()) == pytest.approx(0.0, abs=1e-9)
    assert sorted(first.places.values())[0] == 1
    # The record replays in the engine to the same totals.
    replayed = engine.load(first.records[0])
    assert replayed.over and list(replayed.totals) == first.games[0]["totals"]


def test_duplicate_match_rotates_every_bot_through_every_seat_on_fresh_deals_against_the_reference() -> None:
    entrants = [Member.house(n) for n in ("heuristic", "random", "eps-0.5", "eps-0.9")]
    spec = spec_for(entrants, duplicate=True)
    result = run(spec)
    assert len(result.games) == 4 and len(result.records) == 4
    seatings = [g["seating"] for g in result.games]
    for seat in range(4):
        assert sorted(s[seat] for s in seatings) == sorted(m.bot_id for m in entrants)
    # No bot sees a deal twice: every game's deal is new, and its seed is none of the others'.
    deals = [r["deals"][0]["hands"] for r in result.records]
    assert all(deals[i] != deals[j] for i in range(4) for j in range(i))
    assert len({r["seed"] for r in result.records} | {spec.seed}) == 5
    assert [r["seed"] for r in result.records] == [spec.game_seed(g) for g in range(4)]
    for game, record in zip(result.games, result.records, strict=True):
        # The baseline is what the reference policy scores in each seat of that same deal.
        assert game["baseline"] == reference_totals(spec, record["seed"])
    for bot in result.totals:  # aggregate = sum over the games of total less the seat's baseline
        scores = [g["totals"][s] - g["baseline"][s] for g in result.games for s in [g["seating"].index(bot)]]
        assert result.totals[bot] == sum(scores)
    assert rotation_seating(entrants, 1)[0] is entrants[1]


def test_a_single_game_match_is_scored_on_its_own_totals() -> None:
    entrants = [Member.house(n) for n in ("heuristic", "random", "eps-0.5")]
    result = run(spec_for(entrants))
    assert "baseline" not in result.games[0]
    [game] = result.games
    assert result.totals == {b: game["totals"][s] for s, b in enumerate(game["seating"])}


@pytest.mark.parametrize(
    ("behaviour", "config", "reason"),
    [
        ("sleep", {"delay_s": 3.0}, Outcome.TIMEOUT),
        ("dribble", {"delay_s": 0.3}, Outcome.TIMEOUT),
        ("huge", {}, Outcome.TOO_LARGE),
        ("status500", {}, Outcome.HTTP_STATUS),
        ("garbage", {}, Outcome.BAD_JSON),
        ("illegal", {}, Outcome.ILLEGAL_MOVE),
        ("wrongcard", {}, Outcome.ILLEGAL_MOVE),
        ("redirect", {}, Outcome.HTTP_STATUS),
    ],
)
def test_misbehaving_bot_gets_strikes_forfeits_and_the_match_completes(
        bot_server, bot_process, behaviour, config, reason):
    bad = bot_server(behaviour, **config)
    # The good bot must never miss a deadline: its own process (no interpreter lock shared with the match)
    # and a deadline a loaded 2-core machine always meets; the bad ones stay far outside it.
    entrants = [http("bad", bad.url), http("good", bot_process("good")), Member.house("random"),
                Member.house("eps-0.5")]
    result = run(spec_for(entrants, deadline_ms=1000))
    strikes = [s for s in result.strikes if s.bot_id == "bad"]
    assert len(strikes) == 5 and {s.reason for s in strikes} == {reason.value}
    assert result.forfeited == ["bad"]
    assert result.places["bad"] == 4 == max(result.places.values())  # last whatever its score, not 5th
    assert "bad" not in result.winners and min(result.places.values()) == 1
    # Every call is logged as what it was: an illegal move is not an "ok" call.
    assert {o for kind, o, _ in result.calls["bad"].calls if kind == "move"} == {reason.value}
    assert result.deltas["bad"] < 0
    assert not [s for s in result.strikes if s.bot_id == "good"]
    # After the fifth strike the bot is on autopilot: no more /move calls.
    move_calls = [c for c in bad.requests if c.endswith("/move")]
    assert len(move_calls) == 5
    assert result.calls["bad"].move_calls == 5
    assert engine.load(result.records[0]).over  # the arena's fallback moves were all legal


def test_flaky_bot_below_the_strike_limit_is_rated_normally(bot_server) -> None:
    flaky = bot_server("flaky")
    entrants = [http("flaky", flaky.url), Member.house("random"), Member.house("heuristic"),
                Member.house("eps-0.5")]
    result = run(spec_for(entrants, strike_limit=100))
    assert result.forfeited == []
    assert {s.reason for s in result.strikes} == {Outcome.HTTP_STATUS.value}
    outcomes = [o for kind, o, _ in result.calls["flaky"].calls if kind == "move"]
    assert outcomes.count("ok") >= 1 and outcomes.count("http_status") == len(result.strikes)


def test_start_and_end_notifications_are_sent_and_recorded(bot_server) -> None:
    bot = bot_server("good")
    entrants = [http("b", bot.url), *HOUSE_TRIO]
    result = run(spec_for(entrants, duplicate=True))
    assert bot.requests.count("POST /start") == 4 and bot.requests.count("POST /end") == 4
    kinds = [kind for kind, _, _ in result.calls["b"].calls]
    assert kinds.count("start") == 4 and kinds.count("end") == 4


def test_pass_phase_bots_get_pass_decisions(bot_server) -> None:
    bot = bot_server("good", house_bot="heuristic")
    entrants = [http("b", bot.url), *HOUSE_TRIO]
    result = run(spec_for(entrants, game="spot-hearts", options={"target": 50}))
    assert result.strikes == []
    assert engine.load(result.records[0]).over


def test_a_match_where_every_bot_forfeits_has_no_winner_and_is_not_rated(bot_server) -> None:
    bad = bot_server("illegal")
    entrants = [http(f"bad{i}", bad.url) for i in range(4)]
    result = run(spec_for(entrants, strike_limit=2))
    assert result.forfeited == sorted(m.bot_id for m in entrants)
    assert result.winners == [] and result.rated is False
    assert result.deltas == dict.fromkeys(result.places, 0.0)
    assert set(result.places.values()) == {1}  # tied, within the table's places
    assert result.summary_json()["rated"] is False
