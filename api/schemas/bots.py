"""The schemas of the bot registry and of a bot's export (api.blueprints.bots)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from api.schemas.common import GAME_IDS, MAX_UNIX_TIME, ReplayRecordSchema, page_limit
from api.schemas.ladders import StrikeSchema
from core.arena.export import DEFAULT_PAGE as DEFAULT_EXPORT_PAGE
from core.arena.export import MAX_PAGE as MAX_EXPORT_PAGE
from core.arena.export import decode_cursor

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


class ProbeSchema(Schema):
    """The first health check of the bot's URL (core.arena.probe)."""

    outcome = fields.String(required=True, metadata={
        "description": "`ok`, how the call failed (`timeout`, `connect_error`, `http_status`, `bad_json`, "
                       "`unsafe_address`, ...), or `pending`: not finished within the wait"})
    ok = fields.Boolean(required=True, allow_none=True)
    latency_ms = fields.Float(required=True, allow_none=True)
    detail = fields.String(required=True, metadata={
        "description": "what came back and what follows, in words"})


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
    present = fields.Boolean(allow_none=True, metadata={
        "description": "GET /api/bots/{id}: a polling bot is polling its ladder seats now (it is seated only "
                       "then); null for a bot with a URL"})
    probe = fields.Nested(ProbeSchema, metadata={
        "description": "POST, and PATCH with a new url: the first health check of the URL (seated once one "
                       "passes)"})
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


class ExportCursor(fields.String):
    """A cursor of the export (a line's `cursor`): deserialized to the positions it holds."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, int]:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return decode_cursor(text)
        except ValueError:
            raise ValidationError("not a cursor of this export: pass the `cursor` of a line it answered, or "
                                  "follow its Link: rel=\"next\"") from None


class ExportQuerySchema(Schema):
    limit = page_limit(DEFAULT_EXPORT_PAGE, MAX_EXPORT_PAGE, metadata={
        "description": "matches in this answer (each with its replay records)"})
    since = fields.Float(validate=validate.Range(min=0, max=MAX_UNIX_TIME), metadata={
        "description": "a unix time: start with the first match that finished after it (omit both this and "
                       "`cursor` to start with the oldest)"})
    cursor = ExportCursor(metadata={
        "description": "the `cursor` of a line: go on after that match (an answer's `Link: rel=\"next\"` "
                       "carries its last line's)"})

    @validates_schema
    def one_start(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "since" in data and "cursor" in data:
            raise ValidationError("give since or cursor, not both", "cursor")


class ExportBotSchema(Schema):
    """The bot's own part of a match: its entry in its record."""

    bot_id = fields.String(required=True)
    place = fields.Float(required=True, metadata={"description": "1 = first; forfeiters share the last"})
    won = fields.Boolean(required=True)
    forfeited = fields.Boolean(required=True)
    delta = fields.Float(required=True, metadata={"description": "rating change (0 for a challenge or a void "
                                                                 "match)"})
    rating = fields.Float(allow_none=True, metadata={"description": "rating after it; null: a challenge"})
    version = fields.String(allow_none=True, metadata={"description": "the bot's version in the match"})
    strikes = fields.List(fields.Nested(StrikeSchema), required=True)


class ExportLineSchema(Schema):
    """One line of `GET /api/bots/{bot_id}/export` (application/x-ndjson): one finished match of the bot."""

    cursor = fields.String(required=True, metadata={
        "description": "pass it as `cursor` to go on after this match, now or later (newer matches follow)"})
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True, metadata={"description": "empty for a challenge"})
    challenge = fields.Boolean(required=True)
    status = fields.String(required=True, metadata={"description": "rated, void or played (a challenge)"})
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(allow_none=True)
    duplicate = fields.Boolean(allow_none=True)
    entrants = fields.List(fields.String(), allow_none=True, metadata={"description": "seat order of game 0"})
    finished = fields.Float(required=True, metadata={"description": "when the match finished (unix time)"})
    seed = fields.Integer(allow_none=True, metadata={
        "description": "the match's seed; game g is dealt from the seed derived from it (docs/deals.md), the "
                       "`seed` of its record"})
    totals = fields.Dict(allow_none=True, metadata={"description": "per bot, as in GET /api/matches/{id}"})
    places = fields.Dict(allow_none=True)
    deltas = fields.Dict(allow_none=True)
    winners = fields.List(fields.String(), allow_none=True)
    forfeited = fields.List(fields.String(), allow_none=True)
    games = fields.List(fields.Dict(), allow_none=True, metadata={
        "description": "per game: game_no, table, seating (bot per seat), totals and winners of the table, "
                       "moves; in a duplicate match also baseline"})
    bot = fields.Nested(ExportBotSchema, required=True)
    expired = fields.String(allow_none=True, metadata={
        "description": "null; `replays`: the retention policy deleted the match's replay records (`records` "
                       "is null); `match`: its document too (only the bot's own part is left)"})
    records = fields.List(fields.Nested(ReplayRecordSchema), allow_none=True, metadata={
        "description": "game by game, the replay records GET /api/matches/{id}/games/{n}/replay serves"})
