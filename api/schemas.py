"""Marshmallow schemas: the only mapping between JSON bodies and Python, and the source of the OpenAPI doc."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

import engine
from core import viewschema
from core.analysis import AnalysisStatus
from core.arena.ranking import DEFAULT_PAGE, MAX_PAGE, PROVISIONAL_MATCHES, UNCERTAINTY_SCALE
from core.arena.store.ratings import MAX_VERSION_CHARS
from core.settings import ANALYSIS_BUDGET_RANGE_MS
from engine.bots.names import HOUSE_BOT_NAME_PATTERN, describe_house_bot_names

# Documented as enums (games) and a pattern (seats: house bots come in numbered families, engine.bots.names)
# so clients (and schema-driven fuzzers) know the accepted values; checked at run time by the store and the
# table API, whose problems (unknown-game, bad-seats) say more than a generic validation error.
GAME_IDS = {"enum": list(engine.GAMES)}
SEAT_KINDS = {"pattern": f"^(open|{HOUSE_BOT_NAME_PATTERN})$"}
CARD_CODE = {"type": "string", "minLength": 1, "maxLength": 8}
# http(s)://host[:port][/path]: the shape core.arena.netguard accepts (it also checks where the host
# resolves).
PORT = r"(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
HOST = r"[A-Za-z0-9.-]+"  # a name or IPv4 (the server also takes bracketed IPv6 literals: no regex here)
BOT_URL = {"pattern": rf"^https?://{HOST}(:{PORT})?(/[!-\"$-~]*)?$"}  # printable path, no '#' (fragment)

SEAT_KINDS_HELP = f"'open' (a polling client joins it) or a house bot name: {describe_house_bot_names()}"


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


# --- health ----------------------------------------------------------------------------------------------

class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"description": "ok, or degraded"})
    redis = fields.Boolean(required=True, metadata={"description": "Redis answers"})
    refusing_writes = fields.String(required=True, allow_none=True,
                                    metadata={"description": "memory or disk: what Redis refuses writes "
                                              "for; null when it takes them"})


# --- games -----------------------------------------------------------------------------------------------

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


# --- tables ----------------------------------------------------------------------------------------------

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


class TableSummarySchema(Schema):
    table_id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    version = fields.Integer(required=True)


class TableListQuerySchema(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class JoinSchema(Schema):
    table_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "seat token: shown once, send as Bearer"})
    state_url = fields.String(required=True)
    moves_url = fields.String(required=True)


class LongPollQuerySchema(Schema):
    after = fields.Integer(validate=validate.Range(min=-1),
                           metadata={"description": "long-poll: answer when version > after"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=30),
                        metadata={"description": "long-poll: seconds to wait for a newer version (<= 30)"})


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


# --- bot registry ----------------------------------------------------------------------------------------

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
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


# --- accounts (api.blueprints.accounts) ---------------------------------------------------------------------


class AccountQuotasSchema(Schema):
    bots = fields.Integer(required=True, metadata={"description": "bots the account may hold in all"})
    bots_per_ladder = fields.Integer(required=True, metadata={
        "description": "bots of the account that may list one game (so play on each ladder)"})


class AccountRecordSchema(Schema):
    """An account's record (core.arena.accounts.public): what its owner and the operator both see."""

    account_id = fields.String(required=True)
    created = fields.Float(required=True)
    disabled = fields.Boolean(required=True, metadata={
        "description": "disabled by the operator: its key is refused (403 account-disabled)"})
    has_key = fields.Boolean(required=True, metadata={"description": "false after the key was revoked"})
    key_created = fields.Float(allow_none=True, metadata={"description": "when the current key was issued"})


class AccountSchema(AccountRecordSchema):
    bots = fields.Integer(required=True, metadata={"description": "bots the account holds"})
    quotas = fields.Nested(AccountQuotasSchema, required=True)


class AccountKeySchema(AccountSchema):
    api_key = fields.String(required=True, metadata={
        "description": "shown only in this answer and stored hashed: keep it; send it as "
                       "'Authorization: Bearer <api key>'"})


class AdoptSchema(Schema):
    owner_token = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata={
        "description": "the owner token shown when the bot was registered without an account; it stops "
                       "working when the account adopts the bot"})


# --- ladders, ratings and matches (api.blueprints.ladders) ------------------------------------------------


class LadderSchema(Schema):
    ladder_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    duplicate = fields.Boolean(required=True)
    deadline_ms = fields.Integer(required=True)
    strike_limit = fields.Integer(required=True)
    house_bots = fields.List(fields.String(), required=True)
    presence_s = fields.Float(required=True, metadata={
        "description": "a polling bot is seated only if it called its ladder-seats endpoint within this many "
                       "seconds or holds a long-poll there"})
    members = fields.Integer(required=True)
    active_matches = fields.Integer(required=True)
    url = fields.String(required=True)


class RankedBotSchema(Schema):
    rank = fields.Integer(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(allow_none=True)
    kind = fields.String(allow_none=True, metadata={"description": "house, http, poll; null: left"})
    rating = fields.Float(required=True)
    matches = fields.Integer(required=True, metadata={
        "description": "rated matches played (a duplicate match is several games; a match every bot "
                       "forfeited is not rated and not counted)"})
    wins = fields.Integer(required=True, metadata={
        "description": "rated matches won: placed first (ties included) without forfeiting"})
    win_share = fields.Float(allow_none=True, metadata={"description": "wins / matches; null before a match"})
    strikes = fields.Integer(required=True, metadata={"description": "strikes in every finished match"})
    forfeits = fields.Integer(required=True, metadata={"description": "finished matches it forfeited"})
    mean_latency_ms = fields.Float(allow_none=True)
    paused = fields.Boolean(required=True)
    history = fields.String(required=True)
    version = fields.String(allow_none=True, metadata={
        "description": "the version the bot reports now (GET / or ladder-seats?version=); house bots: house"})
    provisional = fields.Boolean(required=True, metadata={
        "description": f"fewer than {PROVISIONAL_MATCHES} rated matches: the rating is still settling"})
    uncertainty = fields.Float(required=True, metadata={
        "description": f"rough ± of the rating: {UNCERTAINTY_SCALE:g} / sqrt(matches + 1)"})


class NewBotSchema(RankedBotSchema):
    class Meta:
        exclude = ("rank",)


class RankingSchema(Schema):
    ladder = fields.Nested(LadderSchema, required=True)
    ranking = fields.List(fields.Nested(RankedBotSchema), required=True, metadata={
        "description": "bots with at least one rated match, best rating first; rank counts only these"})
    new = fields.List(fields.Nested(NewBotSchema), required=True, metadata={
        "description": "members with no rated match yet: not ranked (no rank), at the initial rating"})
    offset = fields.Integer(required=True, metadata={"description": "position of this page's first row"})
    limit = fields.Integer(required=True, metadata={"description": "rows per page"})
    ranked_total = fields.Integer(required=True, metadata={"description": "bots ranked, on every page"})
    new_total = fields.Integer(required=True, metadata={"description": "new bots, on every page"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})
    previous = fields.String(allow_none=True, metadata={
        "description": "URL of the previous page; null on the first"})


class RankingQuerySchema(Schema):
    limit = fields.Integer(load_default=DEFAULT_PAGE, validate=validate.Range(min=1, max=MAX_PAGE),
                           metadata={"description": "rows per page: the ranked bots, then the new ones"})
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0), metadata={
        "description": "position of the first row (0: the best-rated bot)"})


class HistoryEntrySchema(Schema):
    match = fields.String(required=True)
    rating = fields.Float(required=True)
    delta = fields.Float(required=True)
    place = fields.Float(required=True)
    at = fields.Float(required=True)


class BotHistorySchema(Schema):
    ladder_id = fields.String(required=True)
    bot_id = fields.String(required=True)
    rating = fields.Float(allow_none=True)
    history = fields.List(fields.Nested(HistoryEntrySchema), required=True)


class MatchSummarySchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True, metadata={"description": "empty for a challenge"})
    challenge = fields.Boolean(required=True, metadata={
        "description": "a challenge (unrated, on no ladder): its page is /api/challenges/{match_id}"})
    status = fields.String(required=True, metadata={
        "description": "queued, running, rated, void (every bot forfeited: recorded, no winner, no rating "
                       "change), played (a challenge played to the end: never rated) or aborted"})
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


# --- challenges (api.blueprints.challenges) -----------------------------------------------------------------


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


class LadderSeatSchema(Schema):
    table = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "seat token for the seat API"})
    match = fields.String(required=True)
    ladder = fields.String(required=True)
    game_no = fields.Integer(required=True)
    deadline_ms = fields.Integer(required=True)
    state_url = fields.String(required=True)
    moves_url = fields.String(required=True)


class LiveMatchSchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    match_status = fields.String(required=True, metadata={"description": "queued, running, rated, aborted"})
    status = fields.String(required=True, metadata={
        "description": "playing while the match runs (between its games too); over once it is finished"})
    game_no = fields.Integer(allow_none=True, metadata={"description": "game shown; null before the first"})
    games = fields.Integer(required=True, metadata={"description": "games in this match (duplicate: n)"})
    seating = fields.List(fields.String(), required=True, metadata={"description": "bot id in each seat"})
    seat_names = fields.List(fields.String(), required=True)
    table = fields.String(allow_none=True, metadata={
        "description": "the API table of the game shown, when the match has a polling bot; else null"})
    version = fields.Integer(allow_none=True, metadata={"description": "moves played in the game shown"})
    to_act = fields.List(fields.Integer(), required=True)
    game_over = fields.Boolean(required=True)
    view = GameView("SpectatorView", allow_none=True, metadata={
        "description": "spectator view of the game shown (public table, no hands); null before the first"})
    updated = fields.Float(allow_none=True)
    url = fields.String(required=True, metadata={"description": "the match: results and replays once rated"})


class StrikeSchema(Schema):
    game_no = fields.Integer(required=True, metadata={"description": "game of the match (0-based)"})
    version = fields.Integer(required=True, metadata={"description": "moves played before the decision"})
    reason = fields.String(required=True, metadata={
        "description": "timeout, connect_error, http_status, too_large, bad_json, bad_shape, illegal_move, "
                       "..."})
    detail = fields.String(required=True)


class BotMatchSchema(Schema):
    match = fields.String(required=True)
    ladder = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "rated, or void (every bot forfeited)"})
    at = fields.Float(required=True, metadata={"description": "when the match finished (unix time)"})
    players = fields.Integer(required=True)
    place = fields.Float(required=True, metadata={
        "description": "1 = first; forfeiters share the last place"})
    won = fields.Boolean(required=True)
    forfeited = fields.Boolean(required=True)
    delta = fields.Float(required=True, metadata={"description": "rating change (0 for a void match)"})
    rating = fields.Float(required=True, metadata={"description": "rating after the match"})
    version = fields.String(metadata={"description": "the bot's version in this match (its rating line)"})
    strikes = fields.List(fields.Nested(StrikeSchema), required=True)
    url = fields.String(required=True, metadata={
        "description": "the match (kept for the ladder's recent matches; this record outlives it)"})


class BotMatchesQuerySchema(Schema):
    ladder = fields.String(metadata={"description": "the ladder (needed only if the bot is on several)"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.Integer(validate=validate.Range(min=0), metadata={
        "description": "`next_cursor` of the previous page; omit for the newest matches"})


class BotMatchesSchema(Schema):
    bot_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(BotMatchSchema), required=True, metadata={
        "description": "newest first"})
    next_cursor = fields.Integer(allow_none=True, metadata={"description": "null on the last page"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})


class RecentMatchesQuerySchema(Schema):
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    after = fields.String(metadata={"description": "a match id of the previous page (its last): the next "
                                                   "page starts after it"})


class RecentMatchesSchema(Schema):
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True, metadata={
        "description": "newest first"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})


class LadderSeatsQuerySchema(Schema):
    after = fields.Integer(load_default=None, metadata={
        "description": "seats version from the X-Seats-Version header of your last answer"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0), metadata={
        "description": "with `after`: hold the answer until the seats change, at most this many s (≤ 30)"})
    version = fields.String(validate=validate.Length(min=1, max=MAX_VERSION_CHARS), metadata={
        "description": "the version of the polling bot: its matches are rated under it (docs/arena.md)"})


# --- game analyses (api.blueprints.analysis) -------------------------------------------------------------


class AnalysisQuerySchema(Schema):
    seat = fields.Integer(required=True, validate=validate.Range(min=0), metadata={
        "description": "the seat whose decisions are analysed"})
    budget_ms = fields.Integer(validate=validate.Range(*ANALYSIS_BUDGET_RANGE_MS), metadata={
        "description": "search time per decision (default: the server's, 250 ms); another budget is another "
                       "analysis"})


class CandidateSchema(Schema):
    move = MoveField(required=True)
    value = fields.Float(allow_none=True, required=True, metadata={
        "description": "expected round margin after this move (points; higher is better); null when forced"})


class DecisionSchema(Schema):
    index = fields.Integer(required=True, metadata={"description": "index of the move in the record's moves"})
    round = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"description": "pass, sore or play"})
    legal = fields.List(fields.String(), required=True)
    candidates = fields.List(fields.Nested(CandidateSchema), required=True)
    chosen = MoveField(required=True)
    best = MoveField(allow_none=True, required=True)
    regret = fields.Float(required=True, metadata={"description": "best value - value of the chosen move"})
    forced = fields.Boolean(required=True)
    worlds = fields.Integer(required=True, metadata={"description": "sampled deals the values average"})


class AnalysisResultSchema(Schema):
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    budget_ms = fields.Integer(required=True)
    over = fields.Boolean(required=True)
    decisions = fields.List(fields.Nested(DecisionSchema), required=True)
    total_regret = fields.Float(required=True)
    mean_regret = fields.Float(required=True)
    seat_total = fields.Integer(required=True)
    totals = fields.List(fields.Integer(), required=True)
    elapsed_s = fields.Float(required=True)


class ProgressSchema(Schema):
    done = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "the seat's decisions; 0 until it starts"})


class AnalysisStateSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf([s.value for s in AnalysisStatus]))
    progress = fields.Nested(ProgressSchema, required=True)
    result = fields.Nested(AnalysisResultSchema, metadata={"description": "once done"})
    reason = fields.String(metadata={"description": "why it failed (POST again to retry)"})
    seat = fields.Integer(required=True)
    budget_ms = fields.Integer(required=True)
    url = fields.String(required=True, metadata={"description": "poll it with GET"})


# --- the admin API (operator token) -------------------------------------------------------------------------

class AdminActionSchema(Schema):
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500),
                           metadata={"description": "why: kept in the audit log"})
    actor = fields.String(load_default="operator", validate=validate.Length(min=1, max=100),
                          metadata={"description": "who acts (the audit log's `actor`; one token serves "
                                                   "every operator, so say who you are)"})


class AdminAccountSchema(AccountRecordSchema):
    bots_changed = fields.List(fields.String(), required=True,
                               metadata={"description": "the bots whose suspension this action changed"})


class AdminBotSchema(Schema):
    bot_id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the real name, hidden or not"})
    public_name = fields.String(required=True, metadata={"description": "the name public views show"})
    games = fields.List(fields.String(), required=True)
    url = fields.String(allow_none=True, required=True)
    enabled = fields.Boolean(required=True, metadata={"description": "the owner's own flag"})
    owner = fields.String(allow_none=True, required=True, metadata={"description": "the owner id"})
    suspended = fields.Boolean(required=True, metadata={"description": "the operator's suspension"})
    suspended_reason = fields.String(allow_none=True, required=True)
    suspended_at = fields.Float(allow_none=True, required=True)
    name_hidden = fields.Boolean(required=True)
    created = fields.Float(required=True)
    changed = fields.Boolean(metadata={"description": "whether this action changed anything (actions only)"})


class VoidedSchema(Schema):
    at = fields.Float(required=True)
    by = fields.String(required=True)
    reason = fields.String(required=True)
    deltas = fields.Dict(keys=fields.String(), values=fields.Float(), required=True,
                         metadata={"description": "the rating changes undone, by bot id"})


class VoidedMatchSchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "void"})
    voided = fields.Nested(VoidedSchema, required=True)


class AdminListQuerySchema(Schema):
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=500))


class StrikeBoardRowSchema(Schema):
    bot_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True,
                         metadata={"description": "the real name; null for a bot deleted since"})
    strikes = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)
    matches = fields.Integer(required=True, metadata={"description": "rated matches, every ladder"})
    ladders = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                          metadata={"description": "strikes per ladder"})


class RefusalRowSchema(Schema):
    address = fields.String(required=True, metadata={"description": "the client address (api.ratelimit)"})
    refusals = fields.Integer(required=True)


class AuditQuerySchema(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    before = fields.String(validate=validate.Length(min=1, max=40),
                           metadata={"description": "an entry id: the page of entries older than it"})


class AuditEntrySchema(Schema):
    id = fields.String(required=True, metadata={"description": "time-ordered entry id"})
    at = fields.Float(required=True)
    actor = fields.String(required=True)
    action = fields.String(required=True, metadata={
        "description": "bot.suspend, bot.unsuspend, bot.hide-name, bot.show-name, match.void"})
    target = fields.String(required=True, metadata={"description": "bot id or match id"})
    reason = fields.String(required=True)
    via = fields.String(required=True, metadata={"description": "api or cli"})
    detail = fields.Dict(required=True)
