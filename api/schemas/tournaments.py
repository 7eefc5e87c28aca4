"""The schemas of tournaments: events of round-robin or Swiss rounds on shared deals
(api.blueprints.tournaments)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import GAME_IDS
from core.arena.tournaments import FORMATS, MAX_ENTRANTS, MAX_ROUNDS, MAX_TABLES
from engine.bots.names import describe_house_bot_names


class TournamentCreateSchema(Schema):
    name = fields.String(validate=validate.Length(max=80), load_default="")
    game = fields.String(required=True, metadata=GAME_IDS)
    format = fields.String(required=True, validate=validate.OneOf(FORMATS), metadata={
        "description": "round-robin (every group of `players` bots once, or every two bots at least "
                       "`meetings` times) or swiss (`rounds` rounds, paired by points)"})
    players = fields.Integer(load_default=4, validate=validate.Range(min=2, max=6), metadata={
        "description": "seats per table (default 4)"})
    rounds = fields.Integer(validate=validate.Range(min=1, max=MAX_ROUNDS), metadata={
        "description": "swiss only: the rounds to play"})
    meetings = fields.Integer(validate=validate.Range(min=1, max=10), metadata={
        "description": "round-robin only: each two bots meet at least this often (default: every group "
                       "once)"})
    bots = fields.List(fields.String(validate=validate.Length(min=1, max=64)), load_default=list,
                       validate=validate.Length(max=MAX_ENTRANTS), metadata={
                           "description": "the field: registered bot ids answering over HTTP (yours, or "
                                          "accepting challenges) or house bot names "
                                          f"({describe_house_bot_names()}); each once"})
    options = fields.Dict(load_default=dict, metadata={"description": "game options (GET /api/games)"})
    max_tables = fields.Integer(load_default=MAX_TABLES, validate=validate.Range(min=1, max=MAX_TABLES),
                                metadata={"description": "refuse the event if it would play more tables"})
    entry = fields.String(load_default="invited", validate=validate.OneOf(["invited", "open"]), metadata={
        "description": "invited (the bots named; starts at once) or open (the operator's: owners enter "
                       "their bots until `starts_at`)"})
    starts_at = fields.Float(metadata={"description": "open entry: the start time (unix seconds)"})
    field_limit = fields.Integer(load_default=MAX_ENTRANTS, validate=validate.Range(min=2, max=MAX_ENTRANTS),
                                 metadata={"description": "open entry: the most bots that may enter"})


class TournamentEntrySchema(Schema):
    bot = fields.String(required=True, validate=validate.Length(min=1, max=64), metadata={
        "description": "your bot's id (its owner token or its account's API key)"})


class TournamentEntrantSchema(Schema):
    bot_id = fields.String(required=True)
    name = fields.String(required=True)
    dropped = fields.Boolean(required=True, metadata={
        "description": "forfeited a table: seated in no later round"})


class TournamentTableSchema(Schema):
    match_id = fields.String(required=True)
    bots = fields.List(fields.String(), required=True, metadata={"description": "seat order of game 0"})
    names = fields.List(fields.String(), required=True)
    status = fields.String(required=True, metadata={
        "description": "queued, running, held (over, kept secret until its round is), played or aborted"})
    places = fields.Dict(allow_none=True, metadata={"description": "once the round is over"})
    url = fields.String(required=True, metadata={"description": "the match (GET /api/matches/{id})"})
    web_url = fields.String(required=True, metadata={"description": "its page, with the replays"})


class TournamentRoundSchema(Schema):
    round = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"description": "playing or done"})
    byes = fields.List(fields.String(), required=True, metadata={"description": "bots without a table"})
    tables = fields.List(fields.Nested(TournamentTableSchema), required=True)


class TournamentStandingSchema(Schema):
    place = fields.Integer(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(required=True)
    points = fields.Float(required=True, metadata={
        "description": "per table, the bots it finished ahead of (ties share); a bye the mean"})
    buchholz = fields.Float(required=True, metadata={"description": "the points of every opponent met"})
    score = fields.Float(required=True, metadata={
        "description": "duplicate score: each game's total less the reference policy's on the same deal"})
    tables = fields.Integer(required=True)
    firsts = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    dropped = fields.Boolean(required=True)


class TournamentStandingsSchema(Schema):
    tournament_id = fields.String(required=True)
    status = fields.String(required=True)
    rounds_done = fields.Integer(required=True)
    standings = fields.List(fields.Nested(TournamentStandingSchema), required=True)


class TournamentSchema(Schema):
    tournament_id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    format = fields.String(required=True)
    rounds = fields.Integer(allow_none=True, metadata={"description": "swiss: the rounds to play"})
    meetings = fields.Integer(allow_none=True)
    max_tables = fields.Integer(required=True)
    status = fields.String(required=True, metadata={
        "description": "open (taking entries), running or finished"})
    entry = fields.String(required=True)
    starts_at = fields.Float(allow_none=True)
    field_limit = fields.Integer(required=True)
    created = fields.Float(required=True)
    started = fields.Float(allow_none=True)
    finished = fields.Float(allow_none=True)
    entrants = fields.List(fields.Nested(TournamentEntrantSchema), required=True)
    schedule = fields.List(fields.Nested(TournamentRoundSchema), required=True, metadata={
        "description": "rounds so far"})
    standings = fields.List(fields.Nested(TournamentStandingSchema), required=True, metadata={
        "description": "from the rounds that are over"})
    url = fields.String(required=True)
    standings_url = fields.String(required=True)
    web_url = fields.String(required=True)
