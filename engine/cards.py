"""Cards and their canonical notation (R-CARD). A card is an ``int`` from 0 to 51, ``suit * 13 + rank_index``
(clubs, diamonds, hearts, spades; 2 up to the Ace): ints keep the hot paths cheap, and :class:`Card` adds
the notation without costing anything in comparisons or hashing.
"""

from __future__ import annotations

# The tables themselves live in a compiled module (engine/card_tables.py); their names stay importable here.
from .card_tables import CLUBS as CLUBS
from .card_tables import CODES as CODES
from .card_tables import DIAMONDS as DIAMONDS
from .card_tables import HEARTS as HEARTS
from .card_tables import INT_OF_CODE as INT_OF_CODE
from .card_tables import RANK_OF as RANK_OF
from .card_tables import RANKS as RANKS
from .card_tables import SPADES as SPADES
from .card_tables import SUIT_OF as SUIT_OF
from .card_tables import SUITS as SUITS
from .card_tables import codes as codes


class CardError(ValueError):
    """A text that is not a card code."""


class Card(int):
    """One card: an int 0..51 with a readable code.

    >>> Card.parse("QS")
    Card('QS')
    >>> str(Card.parse("10h"))
    'TH'
    >>> Card.parse("QS") == Card.parse("qs") == 49
    True
    """

    __slots__ = ()

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a card code (``"QS"``, ``"10H"``, ``"th"``); raises :class:`CardError`."""
        if not isinstance(text, str):
            raise CardError(f"a card code must be a string like 'QS', not {type(text).__name__}")
        code = text.strip().upper()
        if code.startswith("10"):
            code = "T" + code[2:]
        if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
            raise CardError(f"{text!r} is not a card code (rank 2-9,T/10,J,Q,K,A + suit C,D,H,S, e.g. 'QS')")
        return CARDS[SUITS.index(code[1]) * 13 + RANKS.index(code[0])]

    @property
    def suit(self) -> int:
        return self // 13

    @property
    def rank(self) -> int:
        """2..14 (Ace high)."""
        return self % 13 + 2

    @property
    def code(self) -> str:
        return CODES[self]

    def __str__(self) -> str:
        return CODES[self]

    def __repr__(self) -> str:
        return f"Card('{CODES[self]}')"


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
FULL_DECK: tuple[int, ...] = tuple(range(52))
#: Canonical code -> card: the quick lookup for moves already in canonical form ("QS", not "qs").
CARD_OF_CODE: dict[str, Card] = {code: CARDS[i] for i, code in enumerate(CODES)}


def card(suit: int, rank: int) -> int:
    """The card of ``suit`` (0..3) and ``rank`` (2..14)."""
    return suit * 13 + rank - 2

