"""Dealing version 2's draws: the keyed byte stream, unbiased draws, the shuffle and the deal, compiled with
the rules; :mod:`engine.deals` checks records and dealing versions, and stays interpreted.

Design: docs/deals.md#dealing-version-2
"""

from __future__ import annotations

import functools
import hashlib
import struct
from collections.abc import Sequence
from typing import Any, Final

# Finals: compiled, C statics rather than a lookup in the module's dictionary on every draw.
_TWO_32: Final = 1 << 32
_EIGHT_WORDS: Final = struct.Struct(">8I")


def seed_key(seed: int | str) -> bytes:
    """The HMAC key: the seed's text in UTF-8 (an integer in decimal, no sign for >= 0, no leading zeros)."""
    return (str(int(seed)) if isinstance(seed, int) else str(seed)).encode()


@functools.lru_cache(maxsize=256)
def hmac_pads(key: bytes) -> tuple[Any, Any]:
    """HMAC-SHA-256 (RFC 2104) with its two keyed states built once: copying them is several times cheaper
    than a fresh ``hmac.digest`` per 32-byte block, and a game deals every round from the same seed.

    >>> import hmac
    >>> inner, outer = (p.copy() for p in hmac_pads(b"k"))
    >>> inner.update(b"m"); outer.update(inner.digest())
    >>> outer.digest() == hmac.digest(b"k", b"m", "sha256")
    True
    """
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return (hashlib.sha256(bytes(b ^ 0x36 for b in key)), hashlib.sha256(bytes(b ^ 0x5C for b in key)))


class Draws:
    """Unbiased integers from the byte stream of (seed, purpose).

    The stream is HMAC-SHA-256(key = seed text, message = "deal/v2/<purpose>/<block>") for block = 0, 1,
    2, ... concatenated, read 4 bytes (one big-endian unsigned word) at a time. A draw below ``n`` takes the
    next word ``x`` and returns ``x mod n``, unless ``x`` lies at or above the last full multiple of ``n``
    below 2**32: then that word is thrown away and the next one is read (rejection: no value is more likely).

    >>> d = Draws(1, "round/0")
    >>> hex(d.next_word()), Draws(1, "round/0").below(52)
    ('0x34861083', 27)
    """

    def __init__(self, seed: int | str, purpose: str) -> None:
        self._pads = hmac_pads(seed_key(seed))
        self._prefix = f"deal/v2/{purpose}/"
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._at = 0

    def next_word(self) -> int:
        if self._at == len(self._words):  # 8 words per 32-byte block
            inner, outer = self._pads[0].copy(), self._pads[1].copy()
            inner.update(f"{self._prefix}{self._block}".encode())
            outer.update(inner.digest())
            self._words = _EIGHT_WORDS.unpack(outer.digest())
            self._block += 1
            self._at = 0
        word = self._words[self._at]
        self._at += 1
        return word

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, 1 <= n <= 2**32."""
        limit = _TWO_32 - _TWO_32 % n
        while True:
            x = self.next_word()
            if x < limit:
                return x % n


def shuffled(seed: int | str, round_no: int, deck: Sequence[int]) -> list[int]:
    """Version 2: the deck (canonical order) after Fisher-Yates from the top index down."""
    cards = sorted(deck)
    draws = Draws(seed, f"round/{round_no}")
    for i in range(len(cards) - 1, 0, -1):
        j = draws.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def dealt_v2(
    seed: int | str, round_no: int, deck: Sequence[int], players: int, dealer: int
) -> list[list[int]]:
    """Version 2's hands (sorted) for round ``round_no``: :func:`shuffled`, then one card at a time to
    each seat, the first to the seat left of the dealer.

    >>> hands = dealt_v2(7, 0, range(52), 4, dealer=3)    # the first card goes to seat 0, left of the dealer
    >>> [len(h) for h in hands], shuffled(7, 0, range(52))[0] in hands[0]
    ([13, 13, 13, 13], True)
    """
    cards = shuffled(seed, round_no, deck)
    hands: list[list[int]] = [[] for _ in range(players)]
    seat = dealer
    for c in cards:
        seat = seat + 1 if seat + 1 < players else 0
        hands[seat].append(c)
    for hand in hands:
        hand.sort()
    return hands
