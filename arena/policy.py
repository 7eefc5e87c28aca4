"""What a bot's reply must look like, and the move played for a bot that fails: the lowest legal card (for a
pass of N cards, the N lowest), deterministic and the same in every game.

Design: docs/bot-protocol.md#failures-strikes-fallback-forfeit
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from typing import Any

import orjson

from engine.card_tables import CODES

RANK_ORDER = "23456789TJQKA"
SUIT_ORDER = "CDHS"
MAX_CARD_CODE_LEN = 3  # "10H" is the longest accepted spelling


class Outcome(enum.StrEnum):
    """Result of one call to a bot (recorded for every call)."""

    OK = "ok"
    TIMEOUT = "timeout"
    CONNECT_ERROR = "connect_error"
    UNSAFE_ADDRESS = "unsafe_address"
    HTTP_STATUS = "http_status"
    TOO_LARGE = "too_large"
    BAD_JSON = "bad_json"
    BAD_SHAPE = "bad_shape"
    ILLEGAL_MOVE = "illegal_move"
    PROTOCOL_ERROR = "protocol_error"


class ReplyError(ValueError):
    def __init__(self, outcome: Outcome, detail: str) -> None:
        super().__init__(detail)
        self.outcome = outcome


def card_sort_key(card: str) -> tuple[int, int]:
    code = card.upper().replace("10", "T")
    return RANK_ORDER.index(code[0]), SUIT_ORDER.index(code[1])


def fallback_move(decision: Mapping[str, Any], rng: random.Random | None = None) -> str | list[str]:
    """The fallback for a decision {"kind", "count", "legal"}: the documented lowest legal cards, or with
    `rng` (a house bot's) legal cards drawn at random.

    >>> decision = {"kind": "pass", "count": 3, "legal": ["QS", "2C", "9D", "AH"]}
    >>> fallback_move(decision)
    ['2C', '9D', 'QS']
    >>> fallback_move(decision, random.Random(1)) == fallback_move(decision, random.Random(1))
    True
    """
    count = int(decision.get("count", 1))
    passing = decision["kind"] == "pass"
    if rng is not None:
        legal = list(decision["legal"])  # drawn from in the order the view lists them
        return rng.sample(legal, count) if passing else rng.choice(legal)
    legal = sorted(decision["legal"], key=card_sort_key)
    return legal[:count] if passing else legal[0]


def parse_reply(body: bytes, decision: Mapping[str, Any]) -> str | list[str]:
    """The move in a bot's /move reply body, or ReplyError saying what is wrong with it.

    Only the shape is checked here (JSON object with "move": a card code, or a list of `count` distinct codes
    for a pass); legality is the engine's job, which reports an illegal move with the same strike policy.
    """
    try:
        data = orjson.loads(body)  # stricter than json (no NaN, valid UTF-8 only) and cheaper per call
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReplyError(Outcome.BAD_JSON, f"reply is not JSON: {exc}") from None
    if not isinstance(data, dict) or "move" not in data:
        raise ReplyError(Outcome.BAD_SHAPE, 'reply must be a JSON object with a "move" member')
    move = data["move"]
    count = int(decision.get("count", 1))
    if decision["kind"] == "pass":
        if (
            not isinstance(move, list)
            or len(move) != count
            or not all(_looks_like_card(c) for c in move)
            or len({c.upper() for c in move}) != count
        ):
            raise ReplyError(Outcome.BAD_SHAPE, f'"move" must be a list of {count} distinct cards')
        return [_shared(c) for c in move]
    if isinstance(move, list) and len(move) == 1:
        move = move[0]  # tolerate ["QS"] for a single card
    if not _looks_like_card(move):
        raise ReplyError(Outcome.BAD_SHAPE, '"move" must be a card code such as "QS"')
    return _shared(move)


# The 52 canonical codes as shared objects: a game keeps every move it was given (its record), and a match
# in flight should not hold a fresh copy of "QS" per card played.
_CANONICAL = {code: code for code in CODES}


def _shared(code: str) -> str:
    return _CANONICAL.get(code, str(code))


def _looks_like_card(value: object) -> bool:
    return isinstance(value, str) and 2 <= len(value) <= MAX_CARD_CODE_LEN
