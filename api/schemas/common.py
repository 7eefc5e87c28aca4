"""What several blueprints' schemas share: the problem body, the field types of moves and views, the OpenAPI
view components, the page limit, and the schemas more than one blueprint answers with (a long-poll query, a
replay record, a match summary)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

import engine
from core import viewschema

# Games are documented as an enum so clients (and schema-driven fuzzers) know the accepted values; checked at
# run time by the stores, whose problem (unknown-game) says more than a generic validation error.
GAME_IDS = {"enum": list(engine.GAMES)}


# The largest position or cursor a list takes: far beyond any list's length, and exact in every client (a
# double) and in Redis (a signed 64-bit index, with the page's length added).
MAX_POSITION = 2**53 - 1
LONG_POLL_MAX_S = 30  # a request's `wait=` (the service holds it at most TA_LONG_POLL_MAX_S)
MAX_SEAT = 5  # the most seats a game has is 6 (Sore Spot)
MAX_UNIX_TIME = 2**32  # seconds: the year 2106


def page_position(**kwargs: Any) -> fields.Integer:
    """A list's ``offset`` or ``cursor`` query parameter: 0 to ``MAX_POSITION``."""
    return fields.Integer(validate=validate.Range(min=0, max=MAX_POSITION), **kwargs)


def page_limit(default: int, most: int, **kwargs: Any) -> fields.Integer:
    """A list's ``limit`` query parameter: 1 to `most` rows, `default` when it is not given."""
    return fields.Integer(load_default=default, validate=validate.Range(min=1, max=most), **kwargs)


class ProblemSchema(Schema):
    type = fields.String(required=True, metadata={"example": "/problems/illegal-move"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    legal = fields.List(fields.String(), metadata={"description": "legal moves (refused moves only)"})
    errors = fields.Dict(metadata={"description": "field -> messages (422 validation only)"})
    resembles = fields.String(metadata={"description": "the house name a refused bot name reads as "
                                                       "(bot-name-reserved only)"})
    pending = fields.Integer(metadata={"description": "your analyses queued or running "
                                                     "(analysis-share-exhausted only)"})
    limit = fields.Integer(metadata={"description": "analyses one client address may have pending "
                                                   "(analysis-share-exhausted only)"})
    resource = fields.String(metadata={"description": "memory or disk (store-full only)"})
    match_status = fields.String(metadata={"description": "the match's status (match-not-voidable only)"})
    quota = fields.String(metadata={"description": "which cap (bot-quota-exceeded, "
                                                   "challenge-quota-exceeded)"})
    bot_id = fields.String(metadata={"description": "the bot that cannot be challenged "
                                                    "(challenge-not-accepted)"})


class JSONObject(fields.Raw):
    """A JSON object, possibly pre-encoded (an orjson.Fragment from Redis): dumped as is, never re-walked."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metadata.setdefault("type", "object")


class GameView(JSONObject):
    """A view, typed per game in the OpenAPI doc: ``oneOf`` the games' ``{Game}{SeatView|SpectatorView}``
    components (core/viewschema.py, registered by :func:`register_view_components`), told apart by
    ``game``."""

    def __init__(self, view: str, **kwargs: Any) -> None:
        mapping = {game: viewschema.COMPONENTS + viewschema.component_name(game, view)
                   for game in engine.GAMES}
        metadata = {"oneOf": [{"$ref": ref} for ref in mapping.values()],
                    "discriminator": {"propertyName": "game", "mapping": mapping},
                    **kwargs.pop("metadata", {})}
        super().__init__(metadata=metadata, **kwargs)


def register_view_components(spec: Any, converter: Any) -> None:
    """Put every game's view, decision and move schemas in the OpenAPI components, and let fields carry a
    ``discriminator`` (apispec copies only the properties it knows from a field's metadata)."""
    for game in engine.GAMES:
        for name, component in viewschema.openapi_components(game).items():
            spec.components.schema(name, component=component)

    def discriminator2properties(self: Any, field: fields.Field, **kwargs: Any) -> dict[str, Any]:
        return {"discriminator": field.metadata["discriminator"]} if "discriminator" in field.metadata else {}

    converter.add_attribute_function(discriminator2properties)


def is_move(value: Any) -> bool:
    """A card code ("QS") or a list of 1-13 card codes: the shape of a move (whether it is legal is the
    engine's to say)."""
    if isinstance(value, str):
        return 0 < len(value) <= 8
    return (isinstance(value, list) and 0 < len(value) <= 13
            and all(isinstance(card, str) and 0 < len(card) <= 8 for card in value))


class MoveField(fields.Field):
    """A card code ("QS") for play/sore decisions, or a list of card codes for a pass."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str | list[str]:
        if is_move(value):
            return value
        raise ValidationError("a move is a card code string (e.g. \"QS\") or a list of card codes for a pass")

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class LongPollQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(min=-1, max=MAX_POSITION),
                           metadata={"description": "long-poll: answer when version > after"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=LONG_POLL_MAX_S),
                        metadata={"description": "long-poll: seconds to wait for a newer version (<= 30)"})


class DealSchema(Schema):
    dealer = fields.Integer(required=True)
    hands = fields.List(fields.List(fields.String()), required=True, metadata={"description": "per seat"})


class RecordedMoveSchema(Schema):
    seat = fields.Integer(required=True)
    move = MoveField(required=True)


class ReplayRecordSchema(Schema):
    """The engine's replay record, as `python -m engine replay` reads it."""

    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    deals = fields.List(fields.Nested(DealSchema), required=True)
    moves = fields.List(fields.Nested(RecordedMoveSchema), required=True)
    seed = fields.Raw(metadata={"description": "the table seed (integer)"})
    dealing = fields.Integer(metadata={
        "description": "the dealing version that dealt it (docs/deals.md): 2, with the seed"})
    seed_commitment = fields.String(metadata={
        "description": "tables: sha256 of '<seed_nonce>:<seed>', published when the table opened"})
    seed_nonce = fields.String(metadata={"description": "tables: the nonce that opens the commitment"})


class MatchSummarySchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True, metadata={"description": "empty for a challenge"})
    challenge = fields.Boolean(required=True, metadata={
        "description": "a challenge (unrated, on no ladder): its page is /api/challenges/{match_id}"})
    tournament = fields.String(allow_none=True, metadata={
        "description": "the tournament this match is a table of (unrated): /api/tournaments/{tournament}"})
    status = fields.String(required=True, metadata={
        "description": "queued, running, rated, void (every bot forfeited: recorded, no winner, no rating "
                       "change), played (a challenge or tournament table played to the end: never rated), "
                       "held (a tournament table played while its round's other tables still play its deals: "
                       "no seed, result or replay until the round is over) or aborted"})
    game = fields.String(required=True)
    duplicate = fields.Boolean(required=True)
    entrants = fields.List(fields.String(), required=True)
    seed = fields.Integer(allow_none=True, metadata={
        "description": "the rated run's match seed (a re-run plays fresh deals); game g is dealt from the "
                       "seed derived from it (docs/deals.md), shown in that game's replay; revealed once the "
                       "match is finished"})
    attempts = fields.Integer(required=True)
    created = fields.Float(required=True)
    finished = fields.Float(allow_none=True)
    aborted_because = fields.String(allow_none=True)
    totals = fields.Dict(allow_none=True, metadata={
        "description": "per bot: the sum of its game totals; in a duplicate match each less the reference "
                       "policy's total in the same seat of the same deal (`games[g].baseline`)"})
    places = fields.Dict(allow_none=True)
    deltas = fields.Dict(allow_none=True)
    winners = fields.List(fields.String(), allow_none=True)
    forfeited = fields.List(fields.String(), allow_none=True)
    strikes = fields.List(fields.Dict(), allow_none=True)
    calls = fields.Dict(allow_none=True, metadata={"description": "per bot: outcome counts, mean latency"})
    games = fields.List(fields.Dict(), allow_none=True, metadata={
        "description": "per game: game_no, table, seating (bot per seat), totals and winners of the table, "
                       "moves; in a duplicate match also baseline (the reference's total per seat)"})
    replays = fields.List(fields.String(), required=True)
    url = fields.String(required=True)
