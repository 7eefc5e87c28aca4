"""Trick Arena's rules engine: four trick-taking games as plain values and functions.

No I/O, no global randomness: dealing is a pure function of a seed (or explicit hands), and a game is
reproduced exactly by its record.
Design: docs/engine.md
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cards import Card, CardError
    from .errors import (
        EngineError,
        GameOverError,
        IllegalMoveError,
        MalformedMoveError,
        NotYourTurnError,
        OptionsError,
    )
    from .game import load, new_game, rules_for, start_from_record, validate_options
    from .games.registry import GAMES
    from .replay import replay_summary
    from .sampling import NoWorldError, sample_world
    from .shapes import Decision, Phase, SeatView, SpectatorView, TableView
    from .state import GameState

    COMPILED: bool

# Each public name is imported from its module on first use: importing the package (or engine.compiled) runs
# no rule module, so a program can still call engine.compiled.activate() first to run the compiled build.
_HOMES = {
    "Card": ".cards",
    "CardError": ".cards",
    "EngineError": ".errors",
    "GameOverError": ".errors",
    "IllegalMoveError": ".errors",
    "MalformedMoveError": ".errors",
    "NotYourTurnError": ".errors",
    "OptionsError": ".errors",
    "load": ".game",
    "new_game": ".game",
    "rules_for": ".game",
    "start_from_record": ".game",
    "validate_options": ".game",
    "GAMES": ".games.registry",
    "replay_summary": ".replay",
    "NoWorldError": ".sampling",
    "sample_world": ".sampling",
    "Decision": ".shapes",
    "Phase": ".shapes",
    "SeatView": ".shapes",
    "SpectatorView": ".shapes",
    "TableView": ".shapes",
    "GameState": ".state",
}

__all__ = [
    "COMPILED",
    "GAMES",
    "Card",
    "CardError",
    "Decision",
    "EngineError",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "MalformedMoveError",
    "NoWorldError",
    "NotYourTurnError",
    "OptionsError",
    "Phase",
    "SeatView",
    "SpectatorView",
    "TableView",
    "load",
    "new_game",
    "replay_summary",
    "rules_for",
    "sample_world",
    "start_from_record",
    "validate_options",
]


def __getattr__(name: str) -> Any:
    if name == "COMPILED":  # read each time: True once engine.compiled.activate() put the build in place
        from . import compiled

        return compiled.active()
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
