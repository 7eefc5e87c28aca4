"""Seat views are built from an allow-list: own hand plus the public table."""

import engine

PUBLIC_KEYS = {
    "game",
    "players",
    "options",
    "version",
    "round",
    "dealer",
    "phase",
    "to_act",
    "hand_sizes",
    "trick",
    "tricks",
    "scores",
    "rounds",
    "over",
    "winners",
}


def test_seat_view_keys_are_an_allow_list():
    allowed = {
        "spot-hearts": PUBLIC_KEYS | {"pass_direction", "hearts_broken"},
        "card-commons": PUBLIC_KEYS | {"pass_direction"},
        "sloppy-seconds": PUBLIC_KEYS | {"trump", "broken"},
        "sore-spot": PUBLIC_KEYS | {"sore_cards"},
    }
    own = {"seat", "hand", "decision", "legal", "chosen", "passed", "received"}
    for game_id, keys in allowed.items():
        g = engine.new_game(game_id, 4, seed=1)
        assert set(g.spectator_view()) == keys | {"seat"}
        seat = g.to_act()[0]
        assert set(g.view(seat)) <= keys | own
        g.apply(seat, g.legal_moves(seat)[:3] if g.phase == "pass" else g.legal_moves(seat)[0])
        assert set(g.view(seat)) <= keys | own


def test_view_shows_decision_only_to_the_seat_that_acts():
    g = engine.new_game("sloppy-seconds", 4, seed=2)
    acting = g.to_act()[0]
    view = g.view(acting)
    assert view["decision"] == {"kind": "play", "count": 1, "legal": view["legal"]} and view["legal"]
    idle = g.view((acting + 1) % 4)
    assert idle["decision"] is None and idle["legal"] == []


def test_own_pending_choice_visible_only_to_self():  # R-SIMUL
    g = engine.new_game("spot-hearts", 4, seed=2)
    choice = g.legal_moves(2)[-3:]
    g.apply(2, choice)
    assert g.view(2)["chosen"] == choice and g.view(2)["legal"] == []
    assert all("chosen" not in g.view(s) for s in (0, 1, 3))
    assert g.to_act() == [0, 1, 3]


def test_views_are_every_seat_view_and_the_spectator_view_over_whole_games():
    import random

    for game_id in ("spot-hearts", "card-commons", "sloppy-seconds", "sore-spot"):
        g = engine.new_game(game_id, 4, seed=3)
        rng = random.Random(game_id)
        while True:
            seats, spectator = g.views()
            assert seats == [g.view(seat) for seat in range(4)]
            assert spectator == g.spectator_view()
            if g.over:
                break
            seat = g.to_act()[0]
            decision = g.decision(seat)
            legal = decision["legal"]
            passing = decision["kind"] == "pass"
            g.apply(seat, rng.sample(legal, decision["count"]) if passing else rng.choice(legal))
