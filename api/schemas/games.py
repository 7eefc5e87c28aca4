"""The schemas of the games and their view schemas (api.blueprints.games)."""

from __future__ import annotations

from marshmallow import Schema, fields

from core import viewschema


class GameSchema(Schema):
    id = fields.String(required=True, metadata={"example": "spot-hearts"})
    name = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    defaults = fields.Dict(required=True, metadata={"description": "default option values"})
    option_docs = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    summary = fields.String(required=True, metadata={"description": "rules summary"})
    rules_url = fields.String(required=True, metadata={"description": "the full rules as a web page",
                                                       "example": "/rules/spot-hearts"})
    rules = fields.String(metadata={"description": "the full rules as Markdown, defining every ruling id "
                                                   "(R-…); in GET /api/games/{game} only"})


class ViewSchemaDocSchema(Schema):
    """A game's JSON Schema document (draft 2020-12): its root is a seat's view, ``$defs`` hold the rest."""

    dialect = fields.String(required=True, data_key="$schema", attribute="$schema",
                            metadata={"example": viewschema.DIALECT})
    title = fields.String(required=True)
    description = fields.String(required=True)
    root = fields.String(required=True, data_key="$ref", attribute="$ref",
                         metadata={"example": "#/$defs/SeatView"})
    defs = fields.Dict(keys=fields.String(), values=fields.Dict(), required=True, data_key="$defs",
                       attribute="$defs", metadata={
                           "description": "SeatView, SpectatorView, Decision (one variant per decision "
                                          "kind), Move, MoveAnswer and what they use: Card, Phase, ..."})
