"""What the reliability tests share: cards in any answer, what a seat may not know, short games."""

from __future__ import annotations

import json
import re
from typing import Any

from engine.cards import CODES

PROBLEM = "application/problem+json"
CARD_CODES = frozenset(CODES)
# Card-shaped tokens in HTML; not after % or # (URL escapes like %3C, CSS colours like #3C3C3C).
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9%#&])(?:10|[2-9TJQKA])[CDHS](?![A-Za-z0-9])")

# (game, players, options): one short game of each, with undealt cards where the rules leave some.
SHORT_GAMES = [
    ("spot-hearts", 4, {"target": 1}),
    ("card-commons", 3, {"target": 1}),
    ("sore-spot", 5, {"rounds": 1}),
    ("sloppy-seconds", 3, {"target": 1}),
]


def normalise(code: str) -> str:
    code = code.upper()
    return "T" + code[2:] if code.startswith("10") else code


def cards_in_json(value: Any) -> set[str]:
    """Every card code that appears as a string anywhere in a JSON value."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if normalise(item) in CARD_CODES:
                found.add(normalise(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def cards_in_body(content_type: str, text: str) -> set[str]:
    """Cards in a response body: JSON strings for JSON answers, card-shaped tokens for anything else."""
    if "json" in content_type:
        try:
            return cards_in_json(json.loads(text))
        except ValueError:
            pass
    return {normalise(m) for m in CARD_IN_TEXT.findall(text)}


def codes_of(cards: Any) -> set[str]:
    """Engine card ints (or lists of them, or None) as codes."""
    if cards is None:
        return set()
    if isinstance(cards, int):
        cards = [cards]
    return {CODES[c] for c in cards}


def public_cards(game: Any) -> set[str]:
    return cards_in_json(game.spectator_view())


def secret_cards(game: Any, seat: int | None) -> set[str]:
    """Cards `seat` (None: a spectator) must not learn now: other hands, others' pending choices, undealt
    cards of the round; minus what the seat legitimately knows (its hand, what it passed) and public cards."""
    dealt = set()
    for hand in game.dealt[-1]["hands"]:
        dealt |= {normalise(c) for c in hand}
    hidden = {CODES[c] for c in game.deck} - dealt  # undealt
    for other in range(game.players):
        if other == seat:
            continue
        hidden |= codes_of(game.hands[other])
        pending = game.pending.get(other) if isinstance(game.pending, dict) else None
        hidden |= codes_of(pending)
    if seat is not None:
        hidden -= codes_of(game.hands[seat])
        hidden -= codes_of(game.passed[seat])
    return hidden - public_cards(game)


def random_move(decision: dict[str, Any], rng: Any) -> Any:
    legal = decision["legal"]
    return rng.sample(legal, decision["count"]) if decision["kind"] == "pass" else rng.choice(legal)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
