"""The schemas of ladders, ratings, matches and ladder seats (api.blueprints.ladders)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import (
    LONG_POLL_MAX_S,
    MAX_POSITION,
    GameView,
    MatchSummarySchema,
    MoveField,
    page_limit,
    page_position,
)
from core.arena.ranking import DEFAULT_PAGE, MAX_PAGE, PROVISIONAL_MATCHES, UNCERTAINTY_SCALE
from core.arena.store.ratings import MAX_VERSION_CHARS


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
    completed = fields.Integer(required=True, metadata={
        "description": "rated matches finished without forfeiting: a bot is ranked from its first (one that "
                       "forfeited every match it played is listed with the new bots)"})
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
        "description": "bots with at least one completed rated match, best rating first; rank counts only "
                       "these"})
    new = fields.List(fields.Nested(NewBotSchema), required=True, metadata={
        "description": "members with no completed rated match yet (none played, or every one forfeited): not "
                       "ranked (no rank)"})
    offset = fields.Integer(required=True, metadata={"description": "position of this page's first row"})
    limit = fields.Integer(required=True, metadata={"description": "rows per page"})
    ranked_total = fields.Integer(required=True, metadata={"description": "bots ranked, on every page"})
    new_total = fields.Integer(required=True, metadata={"description": "new bots, on every page"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})
    previous = fields.String(allow_none=True, metadata={
        "description": "URL of the previous page; null on the first"})


class RankingQuerySchema(Schema):
    limit = page_limit(DEFAULT_PAGE, MAX_PAGE,
                       metadata={"description": "rows per page: the ranked bots, then the new ones"})
    offset = page_position(load_default=0, metadata={
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
    limit = page_limit(20, 100)
    cursor = page_position(metadata={
        "description": "`next_cursor` of the previous page; omit for the newest matches"})


class BotMatchesSchema(Schema):
    bot_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(BotMatchSchema), required=True, metadata={
        "description": "newest first"})
    next_cursor = fields.Integer(allow_none=True, metadata={"description": "null on the last page"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})


class RecentMatchesQuerySchema(Schema):
    limit = page_limit(20, 100)
    after = fields.String(metadata={"description": "a match id of the previous page (its last): the next "
                                                   "page starts after it"})


class RecentMatchesSchema(Schema):
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True, metadata={
        "description": "newest first"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})


class LadderSeatsQuerySchema(Schema):
    after = fields.Integer(load_default=None, validate=validate.Range(min=-1, max=MAX_POSITION), metadata={
        "description": "seats version from the X-Seats-Version header of your last answer"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=LONG_POLL_MAX_S), metadata={
        "description": "with `after`: hold the answer until the seats change, at most this many s (≤ 30)"})
    version = fields.String(validate=validate.Length(min=1, max=MAX_VERSION_CHARS), metadata={
        "description": "the version of the polling bot: its matches are rated under it (docs/arena.md)"})


class BotRequestSchema(Schema):
    """The protocol v1 `/move` body the bot was sent (a polling bot read the same view from its seat)."""

    protocol = fields.Integer(required=True)
    game = fields.String(required=True)
    table = fields.String(required=True)
    match = fields.String(required=True)
    seat = fields.Integer(required=True)
    decision = fields.Dict(required=True)
    deadline_ms = fields.Integer(required=True)
    view = GameView("SeatView", required=True)
    legal = fields.List(fields.String(), required=True)


class LoggedDecisionSchema(Schema):
    game_no = fields.Integer(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "the game's move count when it was asked"})
    seat = fields.Integer(required=True)
    latency_ms = fields.Float(required=True, metadata={
        "description": "request sent to answer read; a polling bot: decision opened to its move"})
    outcome = fields.String(required=True, metadata={
        "description": "ok, or the failure that struck it: timeout, connect_error, http_status, bad_reply, "
                       "illegal_move, ..."})
    detail = fields.String(required=True, metadata={"description": "why it failed (empty when ok)"})
    answer = fields.String(allow_none=True, required=True, metadata={
        "description": "the bot's raw answer, cut at 512 bytes; null when it sent none"})
    move = MoveField(allow_none=True, required=True, metadata={
        "description": "the move the game took: the bot's, or the fallback"})
    fallback = fields.Boolean(required=True, metadata={"description": "the arena played the fallback move"})
    request = fields.Nested(BotRequestSchema, required=True)


class DecisionLogSchema(Schema):
    match_id = fields.String(required=True)
    bot_id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True)
    decisions = fields.List(fields.Nested(LoggedDecisionSchema), required=True)


class DecisionLogQuerySchema(Schema):
    game = page_position(metadata={
        "description": "only this game of the match (0-based); default: every game"})
