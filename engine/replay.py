"""Replaying a record: the summary printed by ``python -m engine replay``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import EngineError
from .game import start_from_record
from .state import GameState


def replay_summary(record: Mapping[str, Any], trace: bool = False) -> dict[str, Any]:
    """Apply a record's moves and summarise the game, or say which move is illegal and why.

    Returns ``{"ok": true, "over", "rounds", "totals", "winners"}`` (``"decisions"`` with ``trace``);
    on a bad move ``{"ok": false, "index", "seat", "move", "error", "reason", "legal"}`` plus the
    rounds up to that point.  A record may end mid-game: the round in progress is listed with
    ``"points": null``.
    """
    game = start_from_record(record)
    decisions: list[dict[str, Any]] = []
    failure: dict[str, Any] | None = None
    for index, entry in enumerate(record.get("moves", [])):
        seat = entry.get("seat") if isinstance(entry, dict) else None
        move = entry.get("move") if isinstance(entry, dict) else None
        legal = game.legal_moves(seat) if isinstance(seat, int) and 0 <= seat < game.players else []
        try:
            game.apply(seat, move)  # a record's bad seat or move: apply rejects it
        except EngineError as exc:
            failure = {
                "ok": False,
                "index": index,
                "seat": seat,
                "move": move,
                "error": type(exc).__name__,
                "reason": str(exc),
                "legal": exc.legal or legal,
            }
            break
        if trace:
            decisions.append({"seat": seat, "legal": legal, "move": game.moves[-1]["move"]})
    out: dict[str, Any] = failure or {"ok": True}
    out.update(summarise(game))
    if trace:
        out["decisions"] = decisions
    return out


def summarise(game: GameState[Any]) -> dict[str, Any]:
    rounds = [{"dealer": r["dealer"], "tricks": r["tricks"], "points": r["points"]} for r in game.history]
    if not game.over:
        rounds.append({"dealer": game.dealer, "tricks": list(game.tricks), "points": None})
    return {"over": game.over, "rounds": rounds, "totals": list(game.totals), "winners": list(game.winners)}
