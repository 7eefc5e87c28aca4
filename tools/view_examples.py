"""The example views of docs/bot-protocol.md ("Views of every game"), made by the engine itself: ``python -m
tools.view_examples`` prints the section's text; tests/clients/test_doc_views.py checks the doc holds it.

Design: docs/bot-protocol.md#views-of-every-game-and-their-schemas
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine

WIDTH = 108


@dataclass(frozen=True)
class Example:
    title: str
    game: str
    players: int
    seed: int
    until: Callable[[Any], bool]  # the moment, a predicate on the game
    seat: Callable[[Any], int] = lambda g: g.to_act()[0]
    first_move: tuple[int, int] | None = None  # (seat, index of its legal card) played before anything else


EXAMPLES = [
    Example("Card Commons, 3 players: a pass (`decision.kind` `pass`, three cards to the left)",
            "card-commons", 3, 11, lambda g: True, lambda g: 0),
    Example('Card Commons, 3 players: a play in a hold round (`pass_direction` `"hold"`: no pass, so no '
            '`passed` / `received`)',
            "card-commons", 3, 11, lambda g: g.round_no == 2 and g.phase == "play" and len(g.trick) == 1),
    Example("Sloppy Seconds, 4 players: a play once trump is set (`trump`; `broken` lists the suits broken, "
            "in order)",
            "sloppy-seconds", 4, 5, lambda g: len(g.tricks) == 5 and len(g.trick) == 2),
    Example("Sore Spot, 4 players: the sore card (`decision.kind` `sore`); seat 1 has laid its own already, "
            "`sore_cards` stay null until every seat has",
            "sore-spot", 4, 2, lambda g: True, lambda g: 0, first_move=(1, 3)),
    Example("Sore Spot: seat 1 at the same moment: its card in `chosen`, nothing to decide (`decision` null, "
            "`legal` empty)",
            "sore-spot", 4, 2, lambda g: True, lambda g: 1, first_move=(1, 3)),
    Example("Sore Spot, 4 players: a play (every sore card shown; no need to follow suit, so every card is "
            "legal)",
            "sore-spot", 4, 2, lambda g: g.phase == "play" and len(g.tricks) == 2 and len(g.trick) == 1,
            first_move=(1, 3)),
]


def _step(game: Any) -> None:
    seat = game.to_act()[0]
    decision = game.decision(seat)
    legal = decision["legal"]
    game.apply(seat, legal[: decision["count"]] if decision["kind"] == "pass" else legal[-1])


def view(example: Example) -> dict[str, Any]:
    """The example's view, as JSON gives it."""
    game = engine.new_game(example.game, example.players, seed=example.seed)
    if example.first_move is not None:
        seat, index = example.first_move
        game.apply(seat, game.legal_moves(seat)[index])
    while not example.until(game):
        _step(game)
    result: dict[str, Any] = json.loads(json.dumps(game.view(example.seat(game))))
    return result


def pretty(value: Any, indent: int = 0, lead: int = 0) -> str:
    """JSON within WIDTH columns: compact where it fits, else its members packed per line, each nested
    value that does not fit broken the same way."""
    flat = json.dumps(value)
    if indent + lead + len(flat) <= WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    if isinstance(value, dict):
        items = []
        for key, member in value.items():
            name = json.dumps(key)
            items.append(f"{name}: {pretty(member, indent + 2, len(name) + 2)}")
        brackets = "{}"
    else:
        items = [pretty(v, indent + 2) for v in value]
        brackets = "[]"
    pad = " " * (indent + 2)
    lines: list[str] = []
    line = ""
    for item in items:
        if "\n" in item or (line and len(pad) + len(line) + 2 + len(item) > WIDTH):
            if line:
                lines.append(line)
            line = ""
        if "\n" in item:
            lines.append(item)
        else:
            line = f"{line}, {item}" if line else item
    if line:
        lines.append(line)
    body = ",\n".join(pad + entry for entry in lines)
    return f"{brackets[0]}\n{body}\n{' ' * indent}{brackets[1]}"


def render() -> str:
    """The section's examples: a paragraph and a JSON block each."""
    return "\n".join(f"{textwrap.fill(example.title + ':', 110)}\n\n```json\n{pretty(view(example))}\n```\n"
                     for example in EXAMPLES)


if __name__ == "__main__":
    print(render(), end="")
