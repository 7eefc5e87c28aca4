"""Card Commons starter bot: each heart costs 1, the Q♠ 13; lowest total wins.

Plan: pass high spades and hearts; follow with the highest card that still loses the trick; when void,
dump the Q♠, then the highest heart, then the highest card. Run: `python card_commons_bot.py serve`.
"""

from trickarena import Bot, run
from trickarena.cards import highest, led_suit, lowest, of_suit, rank, suit, winning_card


def burden(card: str) -> int:
    if card == "QS":
        return 50
    if suit(card) == "S" and rank(card) > 12:  # K♠, A♠ catch the queen
        return 30 + rank(card)
    return rank(card) + (14 if suit(card) == "H" else 0)


class CardCommonsBot(Bot):
    name = "card-commons-starter"
    games = ("card-commons",)

    def choose(self, view):
        decision = view["decision"]
        legal = decision["legal"]
        if decision["kind"] == "pass":
            return sorted(legal, key=burden, reverse=True)[: decision["count"]]
        led = led_suit(view)
        if led is None:
            non_hearts = [c for c in legal if suit(c) != "H"]
            return lowest(non_hearts or legal)
        following = of_suit(legal, led)
        if not following:
            return max(legal, key=burden)
        under = [c for c in following if rank(c) < rank(winning_card(view))]
        if under:
            return highest(under)
        last_to_play = len(view["trick"]["cards"]) == view["players"] - 1
        # Forced to win the trick: if we are last, win it with our highest card and keep the low ones.
        return highest(following) if last_to_play and "QS" not in following else lowest(following)


if __name__ == "__main__":
    run(CardCommonsBot())
