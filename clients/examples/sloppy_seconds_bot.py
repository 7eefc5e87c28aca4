"""Sloppy Seconds starter bot: per suit, the player with the second-highest total of card values scores it.

Plan: aim to be second in each suit, not first: follow with a middling card, take a trick only cheaply,
and lead from our longest suit to keep control. Run: `python sloppy_seconds_bot.py serve --port 9003`.
"""

from collections import Counter

from trickarena import Bot, run
from trickarena.cards import by_rank, led_suit, lowest, suit


def middle(cards: list[str]) -> str:
    ordered = by_rank(cards)
    return ordered[len(ordered) // 2]


class SloppySecondsBot(Bot):
    name = "sloppy-seconds-starter"
    games = ("sloppy-seconds",)

    def choose(self, view):
        decision = view["decision"]
        legal = decision["legal"]
        if decision["kind"] == "pass":  # no passing in this game today, but stay correct if there is
            return by_rank(legal)[: decision["count"]]
        if led_suit(view) is None:
            counts = Counter(suit(c) for c in legal)
            longest = max(counts, key=lambda s: (counts[s], s))
            return middle([c for c in legal if suit(c) == longest])
        trump = view.get("trump")
        if trump and all(suit(c) == trump for c in legal):
            return lowest(legal)  # only trumps left: spend the cheapest
        return middle(legal)


if __name__ == "__main__":
    run(SloppySecondsBot())
