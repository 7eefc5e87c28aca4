"""Property tests over random seeded games of every game and player count."""

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.bots import RandomBot
from engine.cards import CODES, Card

TABLES = [
    ("sore-spot", 3),
    ("sore-spot", 4),
    ("sore-spot", 5),
    ("sore-spot", 6),
    ("card-commons", 3),
    ("card-commons", 4),
    ("sloppy-seconds", 3),
    ("sloppy-seconds", 4),
    ("spot-hearts", 4),
]
MAX_DECISIONS = 20_000  # far above any real game: a game that runs past it does not end


def places(g) -> Counter:
    """Every card's current place: hands, trick, won piles, sore cards, and all-Ace tricks out of play."""
    where = Counter()
    for hand in g.hands:
        where.update(hand)
    where.update(g.trick)
    for pile in g.won:
        where.update(pile)
    where.update(c for c in getattr(g.extra, "sore_cards", []) if c is not None)
    for t in g.tricks:
        if t["winner"] is None:
            where.update(Card.parse(c) for c in t["cards"])
    return where


def card_codes_in(value) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        if value in CODES:
            found.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            found |= card_codes_in(v)
    elif isinstance(value, list):
        for v in value:
            found |= card_codes_in(v)
    return found


def check_round_invariant(game_id, points, summary):
    if game_id == "spot-hearts":
        assert sum(points) == 129
    elif game_id == "card-commons":
        if summary["moon"] is None:
            assert sum(points) == 26
        else:
            assert sorted(points)[0] == -26 and sum(points) == -26
    elif game_id == "sloppy-seconds":
        assert all(p >= 5 for p in points)


def check_views_hide_other_hands(g):
    for seat in range(g.players):
        view = g.view(seat)
        assert "seed" not in view
        known = set(view["hand"]) | set(view.get("passed", []))
        hidden = {CODES[c] for s, hand in enumerate(g.hands) if s != seat for c in hand} - known
        assert not (card_codes_in(view) & hidden)
    spectator = g.spectator_view()
    assert "hand" not in spectator
    assert not (card_codes_in(spectator) & {CODES[c] for hand in g.hands for c in hand})


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32), bot_seed=st.integers(0, 1000))
def test_random_games_conserve_cards_obey_invariants_end_and_replay(table, seed, bot_seed):
    game_id, players = table
    g = engine.new_game(game_id, players, seed=seed)
    deck = Counter(g.deck)
    bots = [RandomBot(f"{bot_seed}/{s}") for s in range(players)]
    rounds_seen = 0
    decisions = 0
    while not g.over:
        assert places(g) == deck
        for seat in g.to_act():
            g.apply(seat, bots[seat].choose(g.view(seat)))
            decisions += 1
        if decisions % 7 == 0:
            check_views_hide_other_hands(g)
        while rounds_seen < len(g.history):
            summary = g.history[rounds_seen]
            check_round_invariant(game_id, summary["points"], summary)
            rounds_seen += 1
        assert decisions < MAX_DECISIONS, "game did not end"
    assert [sum(r["points"][s] for r in g.history) for s in range(players)] == g.totals
    again = engine.load(g.record())
    assert again.over and again.totals == g.totals and again.history == g.history
    assert again.winners == g.winners == engine.rules_for(game_id).winners(g.totals)
    summary = engine.replay_summary(g.record())
    assert summary["ok"] and summary["totals"] == g.totals and len(summary["rounds"]) == len(g.history)


@settings(max_examples=20, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 2**32), cut=st.integers(0, 400))
def test_a_record_cut_anywhere_replays_to_the_same_state(table, seed, cut):
    game_id, players = table
    g = engine.new_game(game_id, players, seed=seed)
    bots = [RandomBot(s) for s in range(players)]
    while not g.over and g.version < cut:
        seat = g.to_act()[0]
        g.apply(seat, bots[seat].choose(g.view(seat)))
    again = engine.load(g.record())
    for seat in range(players):
        assert again.view(seat) == g.view(seat)
    assert again.spectator_view() == g.spectator_view()
