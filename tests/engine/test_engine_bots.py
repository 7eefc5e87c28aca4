"""House bots: the heuristic clearly beats random in every game (400 seeded games each)."""

import statistics

import pytest
from scipy import stats

import engine
from engine.bots import make_bot, play_game

GAMES = [("sore-spot", 4), ("card-commons", 4), ("sloppy-seconds", 4), ("spot-hearts", 4)]


def advantage(game_id: str, players: int, strong: str, games: int) -> list[float]:
    """Per game: the strong bot's total against the mean of the random seats', signed so higher is better."""
    low = engine.rules_for(game_id).low_wins
    out = []
    for i in range(games):
        seat = i % players  # every seat in turn
        bots = [make_bot(strong if s == seat else "random", seed=f"{i}/{s}") for s in range(players)]
        g = play_game(engine.new_game(game_id, players, seed=i), bots)
        others = statistics.mean(t for s, t in enumerate(g.totals) if s != seat)
        diff = g.totals[seat] - others
        out.append(-diff if low else diff)
    return out


@pytest.mark.parametrize("game_id,players", GAMES)
def test_heuristic_beats_random_p_below_001(game_id, players):
    diffs = advantage(game_id, players, "heuristic", 400)
    result = stats.wilcoxon(diffs, alternative="greater")
    assert statistics.mean(diffs) > 0 and result.pvalue < 0.01, (statistics.mean(diffs), result.pvalue)


def test_random_against_random_shows_no_edge():
    """The measure itself is fair: random vs random gives no significant advantage."""
    diffs = advantage("spot-hearts", 4, "random", 100)
    assert stats.wilcoxon(diffs).pvalue > 0.01


@pytest.mark.parametrize("name", ["random", "heuristic", *(f"eps-0.{tenths}" for tenths in range(1, 10))])
def test_every_house_bot_plays_only_legal_moves(name):
    """(The search bots: tests/engine/test_engine_search.py, on a small budget.)"""
    for game_id, players in [
        ("sore-spot", 5),
        ("card-commons", 3),
        ("sloppy-seconds", 3),
        ("spot-hearts", 4),
    ]:
        play_game(engine.new_game(game_id, players, seed=7), [make_bot(name, seed=s) for s in range(players)])


def test_bots_are_deterministic_per_seed():
    def run():
        bots = [make_bot("eps-0.5", seed=s) for s in range(4)]
        return play_game(engine.new_game("spot-hearts", 4, {"target": 100}, seed=1), bots).record()

    assert run() == run()


@pytest.mark.parametrize("name", ["eps-2", "search-0", "search-1000", "search-x", "searching"])
def test_unknown_bot_name(name):
    with pytest.raises(ValueError, match="unknown house bot"):
        make_bot(name)


def test_search_names():
    assert make_bot("search").budget_ms == 250 and make_bot("search").name == "search"
    assert make_bot("search-50").budget_ms == 50 and make_bot("search-999").name == "search-999"


def test_sloppy_seconds_heuristic_opens_with_a_sure_winner():
    # Nothing won yet: a trick the seat takes puts it in the running for second place in that suit,
    # a trick an opponent takes is worth nothing to it, so it leads a card no unseen card beats.
    from engine.cards import RANK_OF, SUIT_OF, Card

    opened = 0
    for seed in range(10):
        g = engine.new_game("sloppy-seconds", 4, {"target": 1}, seed=seed)
        view = g.view(g.to_act()[0])
        hand = [Card.parse(c) for c in view["hand"]]

        def sure(c: int, hand: list[int] = hand) -> bool:
            return all(x in hand for x in range(52) if SUIT_OF[x] == SUIT_OF[c] and RANK_OF[x] > RANK_OF[c])

        move = Card.parse(make_bot("heuristic").choose(view))
        if any(sure(c) for c in hand):
            opened += 1
            assert sure(move), (seed, view["hand"], move)
    assert opened >= 5
