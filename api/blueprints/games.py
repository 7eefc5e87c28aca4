"""The games the engine plays, with their options, a rules summary and the full rules."""

from __future__ import annotations

from typing import Any

from flask import url_for

import engine
import trick_rules
from api.arguments import Blueprint
from api.problems import ApiProblem
from api.schemas.games import GameSchema, ViewSchemaDocSchema
from core import viewschema

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


def _info(game_id: str) -> Any:
    info = engine.GAMES.get(game_id)
    if info is None:
        raise ApiProblem(404, "game-not-found", f"no game {game_id!r}; known: {', '.join(engine.GAMES)}")
    return info


@blp.get("/<game_id>")
@blp.response(200, GameSchema())
def get_game(game_id: str) -> dict[str, Any]:
    """One game, with its full rules as Markdown (`rules`)."""
    info = _info(game_id)
    return {**_game(info), "rules": trick_rules.text(info.id)}


@blp.get("/<game_id>/schema")
@blp.response(200, ViewSchemaDocSchema())
def get_game_schema(game_id: str) -> dict[str, Any]:
    """The game's JSON Schema (draft 2020-12): a seat's view at its root; in `$defs` the spectator view, the
    decision (one variant per kind: pass, sore, play) and the move that answers it."""
    return viewschema.game_schema(_info(game_id).id)
