"""The games the engine plays, with their options, a rules summary and the full rules."""

from __future__ import annotations

from typing import Any

from flask import url_for

import engine
import trick_rules
from api.arguments import Blueprint
from api.problems import ApiProblem
from api.schemas import GameSchema

blp = Blueprint("games", __name__, url_prefix="/api/games", description="Games and their options")


def _game(info: Any) -> dict[str, Any]:
    return {"id": info.id, "name": info.name,
            "min_players": info.min_players, "max_players": info.max_players,
            "defaults": dict(info.defaults), "option_docs": dict(info.option_docs), "summary": info.summary,
            "rules_url": url_for("web.rules_page", game_id=info.id)}


@blp.get("")
@blp.response(200, GameSchema(many=True))
def list_games() -> list[dict[str, Any]]:
    """Every game, with player counts, default options and a rules summary."""
    return [_game(info) for info in engine.GAMES.values()]


@blp.get("/<game_id>")
@blp.response(200, GameSchema())
def get_game(game_id: str) -> dict[str, Any]:
    """One game, with its full rules as Markdown (`rules`)."""
    info = engine.GAMES.get(game_id)
    if info is None:
        raise ApiProblem(404, "game-not-found", f"no game {game_id!r}; known: {', '.join(engine.GAMES)}")
    return {**_game(info), "rules": trick_rules.text(info.id)}
