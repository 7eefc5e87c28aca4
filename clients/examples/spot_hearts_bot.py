"""Spot Hearts starter bot: hearts score their rank (A = 14), the Q♠ 25; lowest total wins.

Plan: pass the most dangerous cards; duck under the winning card when following; dump the Q♠ and big
hearts when void; lead low. Run: `python spot_hearts_bot.py serve --port 9001` or `... practice`.
"""

from trickarena import Bot, run
from trickarena.cards import highest, led_suit, lowest, of_suit, rank, suit, winning_card


def danger(card: str) -> int:
    """How much we want to get rid of a card: the Q♠ first, then big spades and hearts, then rank."""
    if card == "QS":
        return 100
    if suit(card) == "S" and rank(card) > 12:
        return 60 + rank(card)
    return rank(card) + (20 if suit(card) == "H" else 0)


class SpotHeartsBot(Bot):
    name = "spot-hearts-starter"
    games = ("spot-hearts",)

    def choose(self, view):
        decision = view["decision"]
        legal = decision["legal"]
        if decision["kind"] == "pass":
            return sorted(legal, key=danger, reverse=True)[: decision["count"]]
        led = led_suit(view)
        if led is None:  # we lead: the lowest card gives the lead away
            return lowest(legal)
        following = of_suit(legal, led)
        if following:
            winner = winning_card(view)
            under = [c for c in following if rank(c) < rank(winner)]
            return highest(under) if under else lowest(following)
        return max(legal, key=danger)  # void in the led suit: dump our worst card


if __name__ == "__main__":
    run(SpotHeartsBot())
