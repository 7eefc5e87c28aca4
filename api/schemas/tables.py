"""The schemas of tables: creating, listing and reading them (api.blueprints.tables)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import GAME_IDS, GameView, page_limit
from engine.bots.names import HOUSE_BOT_NAME_PATTERN, describe_house_bot_names

# Seats are documented as a pattern (house bots come in numbered families, engine.bots.names) for the reason
# games are an enum (api.schemas.common.GAME_IDS); the table API checks them and answers bad-seats.
SEAT_KINDS = {"pattern": f"^(open|bot:[0-9a-f]{{16}}|{HOUSE_BOT_NAME_PATTERN})$"}
SEAT_KINDS_HELP = (f"'open' (a polling client joins it), a house bot name ({describe_house_bot_names()}) or "
                   "'bot:<bot id>' (a registered bot that accepts challenges, or one the bearer token "
                   "manages)")


class TableCreateSchema(Schema):
    game = fields.String(required=True, metadata={"example": "spot-hearts", **GAME_IDS})
    players = fields.Integer(validate=validate.Range(min=2, max=8),
                             metadata={"description": "defaults to the number of seats"})
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.String(validate=validate.Length(min=1, max=32), metadata=SEAT_KINDS),
                        required=True, validate=validate.Length(min=2, max=8),
                        metadata={"description": f"one per player: {SEAT_KINDS_HELP}",
                                  "example": ["open", "heuristic", "heuristic", "random"]})


class SeatInfoSchema(Schema):
    seat = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"description": "open | house | bot"})
    name = fields.String(allow_none=True, metadata={"description": "house bot name or registered bot id"})
    joined = fields.Boolean(required=True, metadata={"description": "an open seat has been claimed"})


class TableSchema(Schema):
    table_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    seats = fields.List(fields.Nested(SeatInfoSchema), required=True)
    status = fields.String(required=True, metadata={"description": "playing | over"})
    version = fields.Integer(required=True, metadata={"description": "number of accepted moves"})
    to_act = fields.List(fields.Integer(), required=True)
    seed_commitment = fields.String(
        required=True, metadata={"description": "sha256 of '<seed_nonce>:<seed>', published at start"})
    seed = fields.Integer(allow_none=True, metadata={"description": "revealed once the game is over"})
    seed_nonce = fields.String(allow_none=True, metadata={"description": "revealed once the game is over"})
    view = GameView("SpectatorView", required=True,
                    metadata={"description": "spectator view: the public table, no hands"})
    created = fields.Float(required=True)
    updated = fields.Float(required=True)


class TableSummarySchema(Schema):
    table_id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)


class TableListQuerySchema(Schema):
    limit = page_limit(50, 200)
