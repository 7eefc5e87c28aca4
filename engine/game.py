"""Creating games, validating options and explicit deals, loading records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import deals
from .cards import Card, CardError
from .errors import EngineError, OptionsError
from .games.registry import RULES
from .rules import Rules
from .state import GameState, IntDeal


def rules_for(game: str) -> Rules[Any]:
    try:
        return RULES[game]
    except (KeyError, TypeError):
        raise OptionsError(f"unknown game {game!r}; known: {', '.join(RULES)}") from None


def validate_options(game: str, players: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Check a game id, player count and options; return the options with every default filled in.

    >>> validate_options("card-commons", 3)
    {'target': 100}
    """
    return rules_for(game).validate_options(players, dict(options or {}))


def new_game(
    game: str,
    players: int,
    options: dict[str, Any] | None = None,
    seed: int | str | None = None,
    deals: list[dict[str, Any]] | None = None,
) -> GameState[Any]:
    """Start a game.  Rounds come from ``deals`` first (explicit hands), then from ``seed`` (R-DEAL).

    >>> g = new_game("sloppy-seconds", players=3, seed=1)
    >>> g.phase, g.to_act(), len(g.view(0)["hand"])
    (<Phase.PLAY: 'play'>, [1], 17)

    >>> import engine
    >>> g = engine.new_game("spot-hearts", players=4, seed=1)
    >>> g.phase
    <Phase.PASS: 'pass'>
    >>> for seat in g.to_act():
    ...     g.apply(seat, g.legal_moves(seat)[:3])
    >>> g.phase, g.legal_moves(g.to_act()[0])
    (<Phase.PLAY: 'play'>, ['2C'])
    """
    rules = rules_for(game)
    opts = rules.validate_options(players, dict(options or {}))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | str)):
        raise OptionsError(f"seed must be an integer or a string, not {seed!r}")
    parsed = [_parse_deal(rules, players, opts, i, d) for i, d in enumerate(deals or [])]
    if seed is None and not parsed:
        raise OptionsError("a game needs a seed or at least one explicit deal")
    return GameState(rules, players, opts, seed, parsed)


def _parse_deal(rules: Rules[Any], players: int, options: dict[str, Any], index: int, deal: Any) -> IntDeal:
    where = f"deals[{index}]"
    if not isinstance(deal, dict) or "hands" not in deal:
        raise OptionsError(f"{where} must be an object with 'dealer' and 'hands'")
    dealer = deal.get("dealer", 0)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
        raise OptionsError(f"{where}.dealer must be a seat from 0 to {players - 1}")
    hands = deal["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise OptionsError(f"{where}.hands must list {players} hands, one per seat")
    try:
        parsed: list[list[int]] = [[Card.parse(c) for c in hand] for hand in hands]
    except (CardError, TypeError) as exc:
        raise OptionsError(f"{where}: {exc}") from None
    sizes = {len(h) for h in parsed}
    flat = sorted(c for h in parsed for c in h)
    deck = sorted(rules.deck(players, options))
    if len(sizes) != 1 or flat != deck:
        raise OptionsError(
            f"{where}: hands must be equal in size and hold exactly the game's {len(deck)} cards once each"
        )
    return {"dealer": dealer, "hands": parsed}


def load(record: Mapping[str, Any]) -> GameState[Any]:
    """Rebuild a game from a replay record, applying every move (raises :class:`EngineError`)."""
    game = start_from_record(record)
    for move in record.get("moves", []):
        game.apply(move["seat"], move["move"])
    return game


def start_from_record(record: Mapping[str, Any]) -> GameState[Any]:
    """The game a record starts from, before any move."""
    if not isinstance(record, Mapping):
        raise OptionsError("a record must be a JSON object")
    seed = record.get("seed")
    if seed is not None:  # its later rounds are dealt from it: by the dealing the record says
        deals.check_version(record.get("dealing"))
    try:
        return new_game(
            record["game"],
            record["players"],
            record.get("options") or {},
            seed=seed,
            deals=record.get("deals") or [],
        )
    except KeyError as exc:
        raise OptionsError(f"record lacks {exc.args[0]!r}") from None


__all__ = ["EngineError", "load", "new_game", "rules_for", "start_from_record", "validate_options"]
