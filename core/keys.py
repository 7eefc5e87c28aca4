"""Every Redis key and channel name used by Trick Arena is built here, and only here.

A flat module of functions over a prefix so that tests (unique prefix per test) and several deployments
can share one Redis server without ever touching each other's keys.
"""

from __future__ import annotations

DEFAULT_PREFIX = "ta:"


# --- tables -------------------------------------------------------------------------------------------------

def table(prefix: str, table_id: str) -> str:
    """Hash: the table record (game, options, seats, seed, status, version, ...)."""
    return f"{prefix}table:{table_id}"


def table_driver(prefix: str, table_id: str) -> str:
    """String: held (short TTL) by the job driving the table's bot seats; one driver at a time asks a bot."""
    return f"{prefix}table:{table_id}:driver"


def table_driver_again(prefix: str, table_id: str) -> str:
    """String: a driver came while another held the table: the holder looks again before it leaves."""
    return f"{prefix}table:{table_id}:driver-again"


def table_moves(prefix: str, table_id: str) -> str:
    """List: accepted moves, JSON {"seat", "move"} in order; its length equals the table version."""
    return f"{prefix}table:{table_id}:moves"


def table_views(prefix: str, table_id: str) -> str:
    """Hash: seat index (and "spectator") -> JSON view at the current version, precomputed at each move."""
    return f"{prefix}table:{table_id}:views"


def tables_index(prefix: str) -> str:
    """Sorted set: table id scored by creation time."""
    return f"{prefix}tables"


def table_events(prefix: str, table_id: str) -> str:
    """Pub/sub channel: the table's new version number is published here after every accepted change."""
    return f"{prefix}ev:table:{table_id}"


def version_events_pattern(prefix: str) -> str:
    """Pattern matching every channel a version is published on (``table_events``, ``bot_seats_events``):
    one listener per process subscribes to it (core.redis.notify)."""
    return f"{prefix}ev:*"


# --- bot registry ------------------------------------------------------------------------------------------

def bot(prefix: str, bot_id: str) -> str:
    """Hash: a registered bot record."""
    return f"{prefix}bot:{bot_id}"


def bots_index(prefix: str) -> str:
    """Sorted set: bot id scored by registration time."""
    return f"{prefix}bots"


def bots_generation(prefix: str) -> str:
    """Counter: bumped after every change of a bot record that matchmaking reads (registered, updated,
    deleted, suspended, name hidden) or of a ladder's house bots; the scheduler re-reads the registry only
    when it moved."""
    return f"{prefix}bots-generation"


def bot_name(prefix: str, name: str) -> str:
    """String: bot id owning this (case-folded) name; makes names unique."""
    return f"{prefix}botname:{name.casefold()}"


def owner_bots(prefix: str, owner: str) -> str:
    """Set: ids of the registered bots of an owner (the per-address quota counts it)."""
    return f"{prefix}owner:{owner}:bots"


def owner_game_bots(prefix: str, owner: str, game: str) -> str:
    """Set: ids of an owner's bots that list `game` (the per-owner, per-ladder quota counts it)."""
    return f"{prefix}owner:{owner}:game:{game}:bots"


# --- accounts ----------------------------------------------------------------------------------------------

def account(prefix: str, account_id: str) -> str:
    """Hash: an account record (created, key_hash — the sha256 of its API key, never the key —, disabled)."""
    return f"{prefix}account:{account_id}"


def account_key(prefix: str, key_hash: str) -> str:
    """String: the account id whose current API key hashes to `key_hash` (how a key finds its account)."""
    return f"{prefix}accountkey:{key_hash}"


def accounts_index(prefix: str) -> str:
    """Sorted set: account id scored by creation time."""
    return f"{prefix}accounts"


# --- infrastructure ----------------------------------------------------------------------------------------

def rate_limit_prefix(prefix: str) -> str:
    """Prefix of the per-client-address rate limits' keys (api/ratelimit.py; the limits library's Redis
    storage puts its own ``LIMITS:LIMITER/`` in front)."""
    return f"{prefix}rl"


def seat_posts(prefix: str, table_id: str, seat: int, token_tag: str) -> str:
    """Hash with TTL: {v: table version, n: move posts with one token on this seat at that version}."""
    return f"{prefix}rl:seat:{table_id}:{seat}:{token_tag}"


def house_queue(prefix: str) -> str:
    """RQ queue name for house-bot driving jobs (RQ adds its own "rq:" keys around it)."""
    return f"{prefix.rstrip(':')}-house"


# --- arena (ladders, ratings, matches) ---------------------------------------------------------------------

def arena_ladders(prefix: str) -> str:
    """Set: ids of every ladder."""
    return f"{prefix}arena:ladders"


def arena_ladder(prefix: str, ladder_id: str) -> str:
    """String: the ladder's configuration (JSON)."""
    return f"{prefix}arena:ladder:{ladder_id}"


def arena_members(prefix: str, ladder_id: str) -> str:
    """Hash: bot id -> member JSON (kind house/http/poll, house bot name or URL) of a ladder."""
    return f"{prefix}arena:ladder:{ladder_id}:members"


def arena_ratings(prefix: str, ladder_id: str) -> str:
    """Sorted set: bot id scored by its current rating on the ladder."""
    return f"{prefix}arena:ladder:{ladder_id}:ratings"


def arena_ranked(prefix: str, ladder_id: str) -> str:
    """Sorted set: the ladder's bots with at least one rated match, scored by rating (the ranking's pages)."""
    return f"{prefix}arena:ladder:{ladder_id}:ranked"


def arena_unrated(prefix: str, ladder_id: str) -> str:
    """Sorted set: the ladder's bots with no rated match yet, all scored 0 (the ranking's "new", by id)."""
    return f"{prefix}arena:ladder:{ladder_id}:unrated"


def arena_ranking_built(prefix: str, ladder_id: str) -> str:
    """String: present once ``arena_ranked`` and ``arena_unrated`` were built from the ratings and stats
    (ladders rated before they existed are built on first read; every rating change keeps them since)."""
    return f"{prefix}arena:ladder:{ladder_id}:ranking-built"


def arena_stats(prefix: str, ladder_id: str, bot_id: str) -> str:
    """Hash: games (rated matches), wins, strikes, forfeits, latency_ms_sum, calls of a bot on a ladder."""
    return f"{prefix}arena:ladder:{ladder_id}:stats:{bot_id}"


def arena_history(prefix: str, ladder_id: str, bot_id: str) -> str:
    """List: newest first, JSON {match, rating, delta, place, at} per rated match of a bot."""
    return f"{prefix}arena:ladder:{ladder_id}:history:{bot_id}"


def arena_record(prefix: str, ladder_id: str, bot_id: str) -> str:
    """Sorted set: a bot's finished matches on a ladder (JSON: place, delta, strikes and reasons ...),
    scored by a per-bot sequence number (newest highest): the cursor of its paged match list."""
    return f"{prefix}arena:ladder:{ladder_id}:record:{bot_id}"
def arena_versions(prefix: str, ladder_id: str, bot_id: str) -> str:
    """Hash: version -> JSON {start, rating, games, wins, first, last}: a bot's rating line per version."""
    return f"{prefix}arena:ladder:{ladder_id}:versions:{bot_id}"


def arena_recent(prefix: str, ladder_id: str) -> str:
    """List: newest first, ids of the ladder's finished (rated, void or aborted) matches."""
    return f"{prefix}arena:ladder:{ladder_id}:recent"


def arena_active(prefix: str, ladder_id: str) -> str:
    """Set: ids of the ladder's queued or running matches."""
    return f"{prefix}arena:ladder:{ladder_id}:active"


def arena_last_group(prefix: str, ladder_id: str) -> str:
    """String: JSON list of the bot ids of the ladder's most recently scheduled table."""
    return f"{prefix}arena:ladder:{ladder_id}:last-group"


def arena_match(prefix: str, match_id: str) -> str:
    """String: the match document (JSON: spec, status, result, per-call stats)."""
    return f"{prefix}arena:match:{match_id}"


def arena_match_live(prefix: str, match_id: str) -> str:
    """String: the public table of the game a worker is playing now in this match (JSON, short TTL)."""
    return f"{prefix}arena:match:{match_id}:live"


def arena_watched_matches(prefix: str) -> str:
    """Sorted set: match id -> the Unix time until which somebody reads its live table: only then is it
    refreshed between games. One set, so a worker process learns which of its matches are watched in one
    read, however many it plays."""
    return f"{prefix}arena:watched"


def arena_match_games(prefix: str, match_id: str) -> str:
    """String: JSON list of the replay records of a finished match's games."""
    return f"{prefix}arena:match:{match_id}:games"


def arena_match_log(prefix: str, match_id: str) -> str:
    """String: JSON object, each bot's decision log of a finished match (core.arena.decisions), for its owner;
    kept as long as the match's replays."""
    return f"{prefix}arena:match:{match_id}:log"


def arena_match_refs(prefix: str, match_id: str) -> str:
    """Integer string: how many lists still link to a finished match (its bots' records, the ladder's recent
    list); the match's document and replays are deleted when it drops to 0."""
    return f"{prefix}arena:match:{match_id}:refs"


def arena_match_lease(prefix: str, match_id: str) -> str:
    """String with a short TTL: refreshed by the worker playing the match; gone = the worker died."""
    return f"{prefix}arena:match:{match_id}:lease"


def arena_match_applied(prefix: str, match_id: str) -> str:
    """String: the idempotency key set by the rating script; present = ratings already applied."""
    return f"{prefix}arena:match:{match_id}:applied"


def arena_health(prefix: str, bot_id: str) -> str:
    """Hash: failures (consecutive), paused (0/1), checked_at, last_error of an HTTP bot's health checks;
    version: the one the bot last reported (an HTTP bot's GET /, a polling bot's ladder-seats?version=);
    url_blocked: why the arena's address policy refuses its URL (a pause, not a failure); paused_until."""
    return f"{prefix}arena:health:{bot_id}"


def arena_poll_seats(prefix: str, bot_id: str) -> str:
    """Hash: table id -> JSON {seat, token, match} of a polling bot's seats in running ladder matches."""
    return f"{prefix}arena:poll-seats:{bot_id}"


def arena_poll_seen(prefix: str) -> str:
    """Sorted set: polling bot id scored by the time it last called its ladder-seats endpoint."""
    return f"{prefix}arena:poll-seen"


def arena_poll_holding(prefix: str) -> str:
    """Sorted set: polling bot id scored by the time until which its ladder-seats long-poll is held."""
    return f"{prefix}arena:poll-holding"


def arena_poll_seats_version(prefix: str, bot_id: str) -> str:
    """Counter: bumped when a polling bot's ladder seats change (its ladder-seats long-poll waits on it)."""
    return f"{prefix}arena:poll-seats:{bot_id}:version"


def bot_seats_events(prefix: str, bot_id: str) -> str:
    """Pub/sub channel: a polling bot's new ladder-seats version is published here when its seats change."""
    return f"{prefix}ev:bot-seats:{bot_id}"


def arena_scheduler_lock(prefix: str) -> str:
    """String with TTL: held by the one running scheduler."""
    return f"{prefix}arena:scheduler-lock"


def arena_queue(prefix: str) -> str:
    """RQ queue name for match jobs."""
    return f"{prefix.rstrip(':')}-arena"


def challenge_queue(prefix: str) -> str:
    """RQ queue name for challenge matches (their own workers, below the ladder's: docs/arena.md)."""
    return f"{prefix.rstrip(':')}-challenges"


def challenges_pending(prefix: str) -> str:
    """Sorted set: ids of every queued or running challenge, scored by creation time (the global cap counts
    it, the scheduler recovers from it)."""
    return f"{prefix}challenges:pending"


def challenges_owner_pending(prefix: str, owner: str) -> str:
    """Sorted set: ids of one owner's queued or running challenges, scored by creation time."""
    return f"{prefix}challenges:owner:{owner}:pending"


def challenges_owner_day(prefix: str, owner: str, day: str) -> str:
    """Counter with TTL: challenges one owner created on UTC day `day` (YYYYMMDD)."""
    return f"{prefix}challenges:owner:{owner}:day:{day}"


def challenges_of_bot(prefix: str, bot_id: str) -> str:
    """Sorted set: the challenges a registered bot played (JSON as its ladder record's entries), scored by a
    per-bot sequence number (newest highest): the challenges' part of the bot's export."""
    return f"{prefix}challenges:bot:{bot_id}"


# --- moderation ---------------------------------------------------------------------------------------------

def admin_suspended(prefix: str) -> str:
    """Set: ids of the bots an operator has suspended (the bot hash's ``suspended`` field is the authority;
    this lists them)."""
    return f"{prefix}admin:suspended"


def admin_hidden(prefix: str) -> str:
    """Set: ids of the bots whose name an operator has hidden from public views."""
    return f"{prefix}admin:hidden"


def admin_audit(prefix: str) -> str:
    """Stream, capped: every operator action (who, what, target, reason, when)."""
    return f"{prefix}admin:audit"


def admin_refusals(prefix: str) -> str:
    """Sorted set, bounded: client address scored by how many requests the per-address limits and the bot
    quota refused it."""
    return f"{prefix}admin:refusals"


# --- game analysis -----------------------------------------------------------------------------------------

def analysis(prefix: str, subject: str) -> str:
    """Hash with TTL: one seat's analysis of one finished game (status, done, total, result JSON, reason).

    ``subject`` is ``AnalysisSubject.key`` (core/analysis.py): the game, the seat and the budget."""
    return f"{prefix}analysis:{subject}"


def analysis_pending(prefix: str) -> str:
    """Sorted set: subjects of queued or running analyses scored by enqueue time (the cap counts it)."""
    return f"{prefix}analysis-pending"


def analysis_owner_pending(prefix: str, owner: str) -> str:
    """Sorted set with TTL: the subjects of one owner's (client address's) queued or running analyses, scored
    by enqueue time (the per-owner share counts it)."""
    return f"{prefix}analysis-pending-owner:{owner}"


def analysis_queue(prefix: str) -> str:
    """RQ queue name for game analyses (slow and CPU-bound: their own workers, apart from matches)."""
    return f"{prefix.rstrip(':')}-analysis"


# --- tournaments --------------------------------------------------------------------------------------------

def tournament_queue(prefix: str) -> str:
    """RQ queue name for tournament tables (their own workers, below the ladder's: docs/arena.md)."""
    return f"{prefix.rstrip(':')}-tournaments"


def tournament(prefix: str, tournament_id: str) -> str:
    """String (JSON) with TTL: one tournament, its entrants, rounds and tables
    (core.arena.tournament_store)."""
    return f"{prefix}tournament:{tournament_id}"


def tournament_tables_of_bot(prefix: str, bot_id: str) -> str:
    """Sorted set: the published tournament tables a registered bot played (JSON as its ladder record's
    entries), scored by a per-bot sequence number (newest highest): the tournaments' part of its export."""
    return f"{prefix}tournaments:bot:{bot_id}"


def tournament_round_done(prefix: str, tournament_id: str, round_no: int) -> str:
    """Set with TTL: the tables of one round that are over (played or aborted); the last one in ends it."""
    return f"{prefix}tournament:{tournament_id}:round:{round_no}:done"


def tournaments_active(prefix: str) -> str:
    """Sorted set: ids of the tournaments open for entry or running, scored by creation time (the scheduler
    starts the open ones at their start time and recovers the running ones' lost tables)."""
    return f"{prefix}tournaments:active"


def tournaments_owner_active(prefix: str, owner: str) -> str:
    """Sorted set: one owner's tournaments open or running, scored by creation time (its quota)."""
    return f"{prefix}tournaments:owner:{owner}:active"


def tournaments_owner_day(prefix: str, owner: str, day: str) -> str:
    """Counter with TTL: tournaments one owner created on UTC day `day` (YYYYMMDD)."""
    return f"{prefix}tournaments:owner:{owner}:day:{day}"
