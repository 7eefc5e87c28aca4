"""sample_world: sampled deals fit the view, every possible card placement shows up, no hidden state read."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.bots import make_bot
from engine.cards import SUIT_OF, Card
from engine.sampling import knowledge, played_this_round, sample_world
from engine.worlds import world_state

TABLES = [("sore-spot", 3), ("sore-spot", 4), ("sore-spot", 5), ("sore-spot", 6), ("card-commons", 3),
          ("card-commons", 4), ("sloppy-seconds", 3), ("sloppy-seconds", 4), ("spot-hearts", 4)]


def advance(game_id: str, players: int, seed: int, steps: int, bot: str = "random") -> engine.GameState:
    """A game after `steps` moves of seeded house bots (stops early at the end)."""
    g = engine.new_game(game_id, players, seed=seed)
    bots = [make_bot(bot, seed=f"{seed}/{s}") for s in range(players)]
    for _ in range(steps):
        if g.over:
            break
        seat = g.to_act()[0]
        g.apply(seat, bots[seat].choose(g.view(seat)))
    return g


def check_consistent(view: dict, hands: list[list[str]]) -> None:
    """The deal fits everything the view shows, and the rules accept every public move in it."""
    n, me = view["players"], view["seat"]
    assert hands[me] == view["hand"]
    assert [len(h) for h in hands] == view["hand_sizes"]
    cards = [Card.parse(c) for h in hands for c in h]
    plays = played_this_round(view)
    sore = [Card.parse(c) for c in view.get("sore_cards") or [] if c is not None]
    deck = engine.rules_for(view["game"]).deck(n, view["options"])
    assert sorted(cards + [c for _, _, c in plays] + sore) == sorted(deck)
    if view["game"] != "sore-spot":
        tricks = {}
        for t, seat, c in plays:
            tricks.setdefault(t, []).append((seat, c))
        for cards_of_trick in tricks.values():
            led = SUIT_OF[cards_of_trick[0][1]]
            for seat, c in cards_of_trick[1:]:
                if SUIT_OF[c] != led:  # a seat that did not follow holds none of the suit led
                    assert all(SUIT_OF[Card.parse(x)] != led for x in hands[seat])
    if view.get("passed"):
        offset = {"left": 1, "right": -1, "across": 2}[view["pass_direction"]]
        played = {c for _, _, c in plays}
        target = hands[(me + offset) % n]
        assert all(c in target for c in view["passed"] if Card.parse(c) not in played)
    if view["phase"] in ("play", "sore"):
        world = world_state(view, hands)  # replays every public move of the round under the rules
        assert world.view(me)["hand"] == view["hand"]
        if view["phase"] == "play":
            assert world.to_act() == view["to_act"]
        else:  # the others' secret sore cards stay undecided in a world
            assert set(view["to_act"]) <= set(world.to_act())


@settings(max_examples=60, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10_000), steps=st.integers(0, 80),
       seat=st.integers(0, 5), bot=st.sampled_from(["random", "heuristic"]), rng_seed=st.integers(0, 99))
def test_every_sampled_world_is_consistent_with_the_view(table, seed, steps, seat, bot, rng_seed):
    game_id, players = table
    g = advance(game_id, players, seed, steps, bot)
    view = g.view(seat % players)
    rng = random.Random(rng_seed)
    for _ in range(3):
        check_consistent(view, sample_world(view, rng))
    # the real deal is one of the worlds the knowledge allows
    know = knowledge(view)
    for s in range(players):
        real = {Card.parse(c) for c in g.view(s)["hand"]}
        assert real - know.fixed[s] <= know.allowed[s] or s == view["seat"]
        assert know.fixed[s] <= real


def feasible(know, card: int, seat: int) -> bool:
    """Is there a deal of the unseen cards within the limits with `card` in `seat`'s hand? (matching)"""
    n = len(know.sizes)
    room = [know.sizes[s] - len(know.fixed[s]) for s in range(n)]
    free = sorted(know.unseen - set().union(*know.fixed))
    if card in free:
        if card not in know.allowed[seat] or room[seat] == 0:
            return False
        room[seat] -= 1
        free.remove(card)
    elif card not in know.fixed[seat]:
        return False
    slots = [s for s in range(n) for _ in range(room[s])]
    match: dict[int, int] = {}  # slot index -> card

    def place(c: int, seen: set[int]) -> bool:
        for i, s in enumerate(slots):
            if c in know.allowed[s] and i not in seen:
                seen.add(i)
                if i not in match or place(match[i], seen):
                    match[i] = c
                    return True
        return False

    return all(place(c, set()) for c in free)


def test_every_card_that_could_be_in_a_hand_appears_there():
    for game_id, players, seed, steps in [("spot-hearts", 4, 3, 30), ("sloppy-seconds", 4, 5, 26),
                                          ("card-commons", 3, 8, 25), ("sore-spot", 5, 2, 24),
                                          ("spot-hearts", 4, 11, 41), ("sloppy-seconds", 3, 1, 40)]:
        g = advance(game_id, players, seed, steps)
        view = g.view(g.to_act()[0])
        know = knowledge(view)
        rng = random.Random(seed)
        seen = set()
        for _ in range(400):
            hands = sample_world(view, rng)
            seen |= {(s, Card.parse(c)) for s, h in enumerate(hands) for c in h}
        possible = {(s, c) for s in range(players) if s != view["seat"] for c in know.unseen
                    if feasible(know, c, s)}
        assert possible, "the position has hidden cards"
        others = {(s, c) for s, c in seen if s != view["seat"]}
        assert others == possible, (game_id, sorted(possible - others), sorted(others - possible))


def test_voids_leave_the_only_possible_places():
    """Late in a round constraints bite: the sampler still finds only deals that fit."""
    g = advance("sloppy-seconds", 4, 21, 44, bot="heuristic")
    view = g.view(g.to_act()[0])
    rng = random.Random(0)
    for _ in range(50):
        check_consistent(view, sample_world(view, rng))


def test_the_sampler_reads_only_the_view():
    """Two games whose hidden hands differ but whose views for seat 0 are equal give the same worlds."""
    a = engine.new_game("sloppy-seconds", 4, seed=9)
    hands = a.record()["deals"][0]["hands"]
    dealer = a.record()["deals"][0]["dealer"]
    swapped = [hands[0], hands[2], hands[3], hands[1]]
    b = engine.new_game("sloppy-seconds", 4, deals=[{"dealer": dealer, "hands": swapped}])
    assert a.view(0) == b.view(0) and a.view(1) != b.view(1)
    from_a = [sample_world(a.view(0), random.Random(7)) for _ in range(5)]
    from_b = [sample_world(json.loads(json.dumps(b.view(0))), random.Random(7)) for _ in range(5)]
    assert from_a == from_b


def test_passed_cards_stay_with_the_receiver():
    g = engine.new_game("spot-hearts", 4, seed=4)
    for seat in g.to_act():
        g.apply(seat, g.legal_moves(seat)[-3:])
    view = g.view(0)
    target = (0 + 1) % 4  # round 0 passes left
    rng = random.Random(1)
    for _ in range(20):
        hands = sample_world(view, rng)
        assert set(view["passed"]) <= set(hands[target])


def test_the_checked_deal_never_gets_stuck(monkeypatch):
    """With no greedy tries left the sampler checks Hall's condition card by card: only fitting deals."""
    import engine.sampling

    monkeypatch.setattr(engine.sampling, "_GREEDY_TRIES", 0)
    for game_id, players, seed, steps in [("spot-hearts", 4, 11, 41), ("sloppy-seconds", 3, 1, 40),
                                          ("card-commons", 4, 2, 30)]:
        g = advance(game_id, players, seed, steps, bot="heuristic")
        view = g.view(g.to_act()[0])
        rng = random.Random(3)
        for _ in range(10):
            check_consistent(view, sample_world(view, rng))


def test_before_the_first_card_the_leader_holds_the_opening_card():
    """A hearts-family round's first trick is led by the holder of its opening card: the worlds agree."""
    for game_id, players in [("card-commons", 4), ("card-commons", 3), ("spot-hearts", 4)]:
        g = engine.new_game(game_id, players, seed=5)
        while g.phase != "play":
            for seat in g.to_act():
                g.apply(seat, g.legal_moves(seat)[:g.decision(seat)["count"]])
        leader = g.to_act()[0]
        opener = g.legal_moves(leader)[0]
        for seat in range(players):
            if seat == leader:
                continue
            view, rng = g.view(seat), random.Random(seat)
            for _ in range(10):
                hands = sample_world(view, rng)
                assert opener in hands[leader]
                check_consistent(view, hands)
