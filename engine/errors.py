"""Typed engine errors.

Each error says why in its message and carries the seat's legal moves, so a
client can show or log them without another call.  All of them leave the game
state untouched: the engine checks everything before it changes anything.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    def __init__(self, message: str, legal: list[str] | None = None) -> None:
        self.legal: list[str] = list(legal or [])
        if legal is not None:
            message = f"{message} (legal: {' '.join(self.legal) or 'none'})"
        super().__init__(message)


class OptionsError(EngineError, ValueError):
    """Unknown game, bad player count, bad option or bad explicit deal."""


class MalformedMoveError(EngineError, ValueError):
    """The move is not well formed: not a card code, or the wrong shape for this decision."""


class IllegalMoveError(EngineError):
    """A well-formed move the rules do not allow now."""


class NotYourTurnError(EngineError):
    """The seat has nothing to decide now."""


class GameOverError(EngineError):
    """The game has ended; no more moves are taken."""


class UnknownDealingError(OptionsError):
    """A record dealt from a seed whose dealing version this engine does not deal (docs/deals.md), or that
    does not say its version. ``version`` is what the record says (None: nothing)."""

    def __init__(self, version: object) -> None:
        said = "does not say its dealing version" if version is None else f"says dealing version {version!r}"
        super().__init__(f"the record {said}; this engine deals version 2 (\"dealing\": 2, docs/deals.md)")
        self.version = version
