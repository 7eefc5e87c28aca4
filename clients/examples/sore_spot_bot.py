"""Sore Spot starter bot: every card won scores +1, but cards of your sore suit cost their number.

Plan: lay our sore card from the suit we hold least of (few of them left to hurt us); then win tricks
with off-suit non-Aces (they beat the suit led), but duck a trick that already holds our sore suit.
Run: `python sore_spot_bot.py serve --port 9004`.
"""

from collections import Counter

from trickarena import Bot, run
from trickarena.cards import highest, led_suit, lowest, of_suit, suit, trick_cards


class SoreSpotBot(Bot):
    name = "sore-spot-starter"
    games = ("sore-spot",)

    def choose(self, view):
        decision = view["decision"]
        legal = decision["legal"]
        if decision["kind"] == "sore":
            counts = Counter(suit(c) for c in legal)
            shortest = min(counts, key=lambda s: (counts[s], s))
            return lowest(of_suit(legal, shortest))
        if decision["kind"] == "pass":
            return legal[: decision["count"]]
        sore_cards = view.get("sore_cards") or []
        my_sore = suit(sore_cards[view["seat"]]) if sore_cards else None
        led = led_suit(view)
        if led is None:
            return highest([c for c in legal if suit(c) != my_sore] or legal)
        off_suit = [c for c in legal if suit(c) != led and not c.startswith("A")]
        if my_sore in {suit(c) for c in trick_cards(view)} or not off_suit:
            return lowest(of_suit(legal, led) or legal)  # do not take our own pain
        return lowest([c for c in off_suit if suit(c) != my_sore] or off_suit)


if __name__ == "__main__":
    run(SoreSpotBot())
