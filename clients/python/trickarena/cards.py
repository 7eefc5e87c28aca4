"""Cards for bots: ranks, suits, sorting, the trick on the table.

Card codes are rank + suit: ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits ``C D H S`` ("TH", "QS").
"""

from __future__ import annotations

from typing import Any

RANKS = "23456789TJQKA"
SUITS = "CDHS"


def rank(card: str) -> int:
    """2 .. 14 (Ace high)."""
    return RANKS.index(card[0]) + 2


def suit(card: str) -> str:
    return card[-1]


def lowest(cards: list[str]) -> str:
    return min(cards, key=rank)


def highest(cards: list[str]) -> str:
    return max(cards, key=rank)


def of_suit(cards: list[str], wanted: str) -> list[str]:
    return [c for c in cards if suit(c) == wanted]


def by_rank(cards: list[str], descending: bool = False) -> list[str]:
    return sorted(cards, key=rank, reverse=descending)


def trick_cards(view: dict[str, Any]) -> list[str]:
    """Cards already played to the current trick, in play order (empty when we lead)."""
    cards = (view.get("trick") or {}).get("cards") or []
    return [c["card"] if isinstance(c, dict) else c for c in cards]


def led_suit(view: dict[str, Any]) -> str | None:
    cards = trick_cards(view)
    return suit(cards[0]) if cards else None


def winning_card(view: dict[str, Any], trump: str | None = None) -> str | None:
    """The card currently winning the trick (highest of the led suit, or of trump if any was played)."""
    cards = trick_cards(view)
    if not cards:
        return None
    trumps = of_suit(cards, trump) if trump else []
    return highest(trumps) if trumps else highest(of_suit(cards, suit(cards[0])))
