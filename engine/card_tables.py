"""The card tables every move reads (R-CARD): each card's code, suit and rank, and each code's card, as
``Final`` names of a module compiled with the rules; :mod:`engine.cards` re-exports them with the notation.

Design: docs/engine.md#why-compiled
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

SUITS: Final = "CDHS"
RANKS: Final = "23456789TJQKA"
CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3

CODES: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
SUIT_OF: Final[tuple[int, ...]] = tuple(i // 13 for i in range(52))
RANK_OF: Final[tuple[int, ...]] = tuple(i % 13 + 2 for i in range(52))
#: Canonical code -> card int: the quick lookup for moves already in canonical form ("QS", not "qs").
INT_OF_CODE: Final[dict[str, int]] = {code: i for i, code in enumerate(CODES)}


def codes(cards: Iterable[int]) -> list[str]:
    """Card ints to their codes, in the given order."""
    return [CODES[c] for c in cards]
