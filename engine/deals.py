"""Dealing from a seed, specified so that any language can re-deal and check a table: dealing version 2
(SHA-256 and HMAC only), the check of a record's dealing version (:func:`check_version`) and of its deals.

Design: docs/deals.md
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from .cards import Card, CardError

# The draws live in engine/draws.py, compiled with the rules; their names stay importable from here.
from .draws import Draws as Draws
from .draws import dealt_v2
from .draws import seed_key as seed_key
from .draws import shuffled as shuffled
from .errors import UnknownDealingError

CURRENT_VERSION = 2


def check_version(version: object) -> int:
    """The dealing version a record or a stored table states, if this engine deals it.

    >>> check_version(2)
    2
    >>> try:
    ...     check_version(1)
    ... except UnknownDealingError as error:
    ...     print(error.version)
    1
    """
    if type(version) is not int or version != CURRENT_VERSION:
        raise UnknownDealingError(version)
    return version


def deal(seed: int | str, round_no: int, deck: Sequence[int], players: int, dealer: int) -> list[list[int]]:
    """Each seat's hand (sorted) for round ``round_no``: the shuffled deck dealt one card at a time,
    the first to the seat left of the dealer (``dealer + 1``).

    >>> hands = deal(7, 0, list(range(52)), 4, dealer=0)
    >>> [len(h) for h in hands], sorted(c for h in hands for c in h) == list(range(52))
    ([13, 13, 13, 13], True)
    """
    return dealt_v2(seed, round_no, deck, players, dealer)


def first_dealer(seed: int | str, players: int) -> int:
    """The first dealer of a game whose rules draw it (R-DEALER); later rounds pass it to the left.

    >>> first_dealer(7, 4) in range(4)
    True
    """
    return Draws(seed, "dealer").below(players)


# --- checking a record ----------------------------------------------------------------------------------


def seed_commitment(seed: int | str, nonce: str) -> str:
    """SHA-256 (hex) of ``"<nonce>:<seed>"``: published when a table opens, opened when it ends."""
    return hashlib.sha256(f"{nonce}:{seed}".encode()).hexdigest()


def verify_record(record: dict[str, Any], draws_dealer: bool) -> list[str]:
    """Problems found re-dealing a replay record from its seed (empty: every deal matches).

    ``draws_dealer``: the game draws its first dealer from the seed (Spot Hearts); otherwise seat 0 deals
    first. The deck is the set of cards in the first deal. A record with ``seed_commitment`` and
    ``seed_nonce`` must open its commitment.
    """
    problems: list[str] = []
    seed = record.get("seed")
    if seed is None or isinstance(seed, bool) or not isinstance(seed, int | str):
        return ["the record has no seed"]
    try:
        check_version(record.get("dealing"))
    except UnknownDealingError as error:
        return [str(error)]
    commitment, nonce = record.get("seed_commitment"), record.get("seed_nonce")
    if commitment is not None and (nonce is None or seed_commitment(seed, nonce) != commitment):
        problems.append("the seed and nonce do not open the commitment")
    deals = record.get("deals") or []
    players = record.get("players")
    if not deals or not isinstance(players, int):
        return [*problems, "the record has no deals"]
    try:
        parsed = [[sorted(Card.parse(c) for c in hand) for hand in d["hands"]] for d in deals]
    except (CardError, KeyError, TypeError):
        return [*problems, "a deal is malformed"]
    deck = sorted(c for hand in parsed[0] for c in hand)
    first = first_dealer(seed, players) if draws_dealer else 0
    for round_no, (entry, hands) in enumerate(zip(deals, parsed, strict=True)):
        dealer = (first + round_no) % players
        if entry.get("dealer") != dealer:
            problems.append(f"round {round_no}: dealer is {entry.get('dealer')}, the seed says {dealer}")
        if hands != deal(seed, round_no, deck, players, dealer):
            problems.append(f"round {round_no}: the hands differ from the seed's deal")
    return problems
