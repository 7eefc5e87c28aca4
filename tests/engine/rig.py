"""Rigged deals for rule tests: put named cards in named hands, deal the rest in order."""

from __future__ import annotations

from typing import Any

import engine
from engine.cards import CODES, Card


def rig(
    game: str, players: int, dealer: int, fixed: dict[int, list[str]], options: dict | None = None
) -> dict:
    """One explicit deal where ``fixed[seat]`` cards are in that seat's hand; other cards fill up in order."""
    rules = engine.rules_for(game)
    opts = engine.validate_options(game, players, options or {})
    deck = sorted(rules.deck(players, opts))
    size = len(deck) // players
    hands: list[list[str]] = [[] for _ in range(players)]
    used = set()
    for seat, cards in fixed.items():
        for code in cards:
            hands[seat].append(code)
            used.add(Card.parse(code))
    rest = [CODES[c] for c in deck if c not in used]
    for seat in range(players):
        while len(hands[seat]) < size:
            hands[seat].append(rest.pop(0))
    return {"dealer": dealer, "hands": hands}


def game_with(
    game: str, players: int, dealer: int, fixed: dict[int, list[str]], **kw: Any
) -> engine.GameState:
    options = kw.pop("options", None)
    return engine.new_game(
        game, players, options, deals=[rig(game, players, dealer, fixed, options)], seed=0, **kw
    )


def play(g: engine.GameState, *cards: str) -> None:
    """Play cards in turn order."""
    for code in cards:
        g.apply(g.to_act()[0], code)


def lay_all(g: engine.GameState, choices: list[str] | list[list[str]]) -> None:
    """Submit one simultaneous choice per seat (sore cards or passes)."""
    for seat, choice in enumerate(choices):
        g.apply(seat, choice)


def state_with(game: str, players: int = 4, **fields: Any) -> engine.GameState:
    """A real game whose state fields (``trick``, ``hands``, ``won``, ``extra``...) are set as given:
    for calling one rule step on a position (a compiled engine accepts only real game states)."""
    g = engine.new_game(game, players, seed=0)
    for name, value in fields.items():
        setattr(g, name, value)
    return g
