"""The schemas of a seat: joining it, reading its state, moving (api.blueprints.seats)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from api.schemas.common import GameView, LongPollQuerySchema, MoveField, is_move

CARD_CODE = {"type": "string", "minLength": 1, "maxLength": 8}


class JoinSchema(Schema):
    table_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "seat token: shown once, send as Bearer"})
    state_url = fields.String(required=True)
    moves_url = fields.String(required=True)


SeatStateQuerySchema = LongPollQuerySchema


class SeatStateSchema(Schema):
    table_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    to_act = fields.List(fields.Integer(), required=True)
    your_turn = fields.Boolean(required=True)
    deadline = fields.Float(allow_none=True, metadata={"description": "unix time the decision is due"})
    view = GameView("SeatView", required=True, metadata={
        "description": "own hand + public table (+ legal, decision); its schema per game: "
                       "GET /api/games/{game}/schema"})


class MoveRequestSchema(Schema):
    move = MoveField(required=True, metadata={"description": "card code, or list of card codes for a pass",
                                              "oneOf": [CARD_CODE,
                                                        {"type": "array", "items": CARD_CODE, "minItems": 1,
                                                         "maxItems": 13}],
                                              "example": "QS"})
    expected_version = fields.Integer(required=True, validate=validate.Range(min=0),
                                      metadata={"description": "the version your decision was read at"})

    @staticmethod
    def loads_unchanged(data: Any) -> bool:
        """True if `load` would return `data` itself, as every well-formed move post does: exactly these two
        fields, a move of the right shape and a version that is already a non-negative int. The check costs a
        few type tests where a load walks every field through marshmallow; anything else (a version sent as
        "5", an unknown field, a bad move) takes the load and its errors."""
        if type(data) is not dict or len(data) != 2:
            return False
        version = data.get("expected_version")
        return type(version) is int and version >= 0 and is_move(data.get("move"))


class MoveResultSchema(Schema):
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    to_act = fields.List(fields.Integer(), required=True)
