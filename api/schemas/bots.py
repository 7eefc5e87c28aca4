"""The schemas of the bot registry (api.blueprints.bots)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import GAME_IDS, page_limit

# http(s)://host[:port][/path]: the shape core.arena.netguard accepts (it also checks where the host
# resolves).
PORT = r"(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
HOST = r"[A-Za-z0-9.-]+"  # a name or IPv4 (the server also takes bracketed IPv6 literals: no regex here)
BOT_URL = {"pattern": rf"^https?://{HOST}(:{PORT})?(/[!-\"$-~]*)?$"}  # printable path, no '#' (fragment)
BOT_NAME = validate.Regexp(r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,39}$",
                           error="2-40 characters: letters, digits, '_', '.', '-'; "
                                 "starting with a letter or digit")


class BotCreateSchema(Schema):
    name = fields.String(required=True, validate=BOT_NAME)
    games = fields.List(fields.String(metadata=GAME_IDS), required=True,
                        validate=validate.Length(min=1, max=10))
    url = fields.String(allow_none=True, validate=validate.Length(max=2000),
                        metadata={"description": "HTTP endpoint the arena calls; omit for a polling bot",
                                  **BOT_URL})


class BotUpdateSchema(Schema):
    games = fields.List(fields.String(metadata=GAME_IDS), validate=validate.Length(min=1, max=10))
    url = fields.String(allow_none=True, validate=validate.Length(max=2000), metadata=BOT_URL)
    enabled = fields.Boolean()
    accepts_challenges = fields.Boolean(metadata={
        "description": "other owners may pick this bot for a challenge (an unrated match; default false)"})


class VersionLineSchema(Schema):
    """A bot's rating line for one of its versions on one ladder (docs/arena.md, "Bot versions")."""

    ladder_id = fields.String(required=True)
    version = fields.String(required=True)
    start = fields.Float(required=True, metadata={"description": "rating before its first match: the "
                                                                 "previous version's rating"})
    rating = fields.Float(required=True, metadata={"description": "rating after its latest match"})
    matches = fields.Integer(required=True, metadata={"description": "rated matches it played"})
    wins = fields.Integer(required=True)
    first = fields.Float(required=True, metadata={"description": "when its first match was rated"})
    last = fields.Float(required=True, metadata={"description": "when its latest match was rated"})
    current = fields.Boolean(required=True, metadata={"description": "the version the bot reports now"})


class BotSchema(Schema):
    bot_id = fields.String(required=True)
    name = fields.String(required=True)
    games = fields.List(fields.String(), required=True)
    url = fields.String(allow_none=True)
    enabled = fields.Boolean(required=True)
    accepts_challenges = fields.Boolean(required=True, metadata={
        "description": "other owners may pick it for a challenge (set with PATCH; house bots always do)"})
    created = fields.Float(required=True)
    updated = fields.Float(required=True)
    version = fields.String(metadata={"description": "GET /api/bots/{id}: the version it reports now"})
    versions = fields.List(fields.Nested(VersionLineSchema), metadata={
        "description": "GET /api/bots/{id}: rating and record of every version, per ladder, oldest first"})
    paused = fields.Boolean(metadata={"description": "GET /api/bots/{id}: out of matchmaking now (paused or "
                                                     "benched); `paused_reason` says why"})
    paused_reason = fields.String(allow_none=True, metadata={
        "description": "GET /api/bots/{id}: why it is out of matchmaking, e.g. `url_disallowed: ...` (its "
                       "URL resolves to an address the arena does not call), `health_check_failed: ...` or "
                       "`benched ...`; null while it can be matched"})


class BotCreatedSchema(BotSchema):
    owner_token = fields.String(metadata={
        "description": "only for a bot registered without an account: shown once; send as Bearer to change, "
                       "delete or poll it (a bot registered with an account's API key is managed by that key "
                       "and has none)"})


class BotListQuerySchema(Schema):
    game = fields.String(metadata={"description": "only bots that play this game"})
    limit = page_limit(100, 500)
