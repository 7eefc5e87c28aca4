"""The schemas of challenges: unrated matches an owner asks for (api.blueprints.challenges)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import GAME_IDS, MatchSummarySchema
from engine.bots.names import describe_house_bot_names


class ChallengeCreateSchema(Schema):
    game = fields.String(required=True, metadata=GAME_IDS)
    bots = fields.List(fields.String(validate=validate.Length(min=1, max=64)), required=True,
                       validate=validate.Length(min=2, max=6), metadata={
                           "description": "one per seat, in the first game's seat order: registered bot ids "
                                          "(at least one yours; the others yours or accepting challenges) or "
                                          f"house bot names ({describe_house_bot_names()}, with or without "
                                          "the `house:` prefix)"})
    players = fields.Integer(validate=validate.Range(min=2, max=6), metadata={
        "description": "defaults to the number of bots, which it must equal"})
    games = fields.Integer(validate=validate.Range(min=1, max=16), metadata={
        "description": "games in the match (bots rotate one seat each game); default one per rotation if "
                       "duplicate, else 1; duplicate: a multiple of players"})
    duplicate = fields.Boolean(metadata={
        "description": "score each game against the reference policy on the same deal (as the 4-player "
                       "ladders do); default true for 4 players"})
    options = fields.Dict(load_default=dict, metadata={"description": "game options (GET /api/games)"})


class ChallengeSchema(Schema):
    challenge_id = fields.String(required=True, metadata={"description": "also its match's id"})
    status = fields.String(required=True, metadata={
        "description": "queued, running, played (finished: results and replays published) or aborted"})
    challenger = fields.String(required=True, metadata={"description": "the challenger's bot"})
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    games = fields.Integer(required=True)
    duplicate = fields.Boolean(required=True)
    options = fields.Dict(required=True)
    bots = fields.List(fields.String(), required=True, metadata={"description": "bot id per seat of game 0"})
    names = fields.List(fields.String(), required=True)
    created = fields.Float(required=True)
    match = fields.Nested(MatchSummarySchema, required=True, metadata={
        "description": "the match: seed, places, totals, strikes and replays once it is played"})
    url = fields.String(required=True)
    match_url = fields.String(required=True)
    web_url = fields.String(required=True, metadata={"description": "the challenge's page"})
