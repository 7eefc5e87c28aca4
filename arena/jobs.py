"""RQ jobs: thin functions over ids. The play is arena.match's, the storing core.arena.store's.

``run_match(match_id, prefix)`` may run more than once (an RQ retry, the scheduler recovering a lost
worker's match): each run plays the match from scratch, and its rating is applied at most once.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from typing import Any, NotRequired, TypedDict

import redis
from rq import Queue, get_current_job

from arena import runtime
from arena.botclient import BotClient, ClientPool
from arena.leases import keeper_for
from arena.match import HostFactory, MatchAbandoned, MatchRunner, make_drivers
from arena.policy import Outcome
from arena.polling import TableHost
from arena.runtime import STOPPING
from core import keys, metrics
from core.arena.challenges import ChallengeStore
from core.arena.live import LiveFeed, WatchedMatches
from core.arena.model import FINAL_STATUSES, MatchSpec, MatchStatus, MemberKind
from core.arena.netguard import policy_refusal
from core.arena.store import ArenaStore
from core.arena.tournament_store import JOB_TIMEOUT_S as TOURNAMENT_JOB_TIMEOUT_S
from core.arena.tournament_store import TournamentStore
from core.queues import enqueue_tournament_table
from core.redis.connections import settings_client
from core.settings import Settings
from core.stores import table_store

# Kept-alive bot connections survive between matches in a long-lived (in-process) worker; each match leases
# its clients, so the matches a threaded worker runs at once never share a connection.
CLIENTS = ClientPool()


class MatchOutcome(TypedDict):
    """What ``run_match`` returns (RQ keeps it an hour): how the run ended."""

    match: str
    status: str  # a MatchStatus value, or "missing"
    applied: NotRequired[bool]  # this run stored the result (a re-run of a stored match did not)
    stopped: NotRequired[str]  # the worker stopped: the match is queued again
    aborted: NotRequired[str]
    places: NotRequired[dict[str, float]]
    deltas: NotRequired[dict[str, float]]


class HealthReport(TypedDict):
    """What ``health_check`` returns: the check's outcome and whether the bot is now paused."""

    bot: str
    ok: bool
    outcome: str  # an Outcome value
    paused: bool
    latency_ms: float
    detail: str  # what came back, in words ("" when it passed)


def lease_seconds(deadline_ms: int, min_lease_s: float) -> float:
    """Long enough to cover the slowest single decision with room to spare: an HTTP bot's call may take up
    to three deadlines (a stale kept-alive connection found within one, a new connection within the next, the
    answer within the third; ``BotClient.call``), plus a busy worker's lateness.

    A match's lease is extended while it makes decisions (``arena.leases``, at most a quarter lease after
    each); the scheduler re-runs a match whose lease lapsed.
    """
    return max(min_lease_s, 4 * deadline_ms / 1000.0 + 1)


def worker_name() -> str:
    job = get_current_job()
    origin = job.worker_name if job is not None and job.worker_name else "inline"
    return f"{origin}@{socket.gethostname()}:{os.getpid()}"


def _connection() -> redis.Redis:
    job = get_current_job()
    if job is None:
        raise RuntimeError("an RQ entry point runs inside an RQ job (or call play_match, check_bot_health)")
    return job.connection


def run_match(match_id: str, prefix: str) -> MatchOutcome:
    """RQ entry point: play match `match_id` and apply its rating (at most once). A Redis error fails the
    attempt (RQ retries it, the scheduler recovers it after that) and is counted."""
    try:
        return play_match(runtime.stores(_connection(), prefix).arena, match_id)
    except redis.RedisError as exc:
        metrics.count_redis_error("worker", exc)
        raise


def play_match(store: ArenaStore, match_id: str, worker: str | None = None,
               settings: Settings | None = None) -> MatchOutcome:
    """Play the match and apply its rating; the worker's settings unless given."""
    settings = settings or runtime.settings()
    doc = store.match(match_id)
    if doc is None:
        return {"match": match_id, "status": "missing"}
    if STOPPING.is_set():
        # A stopping worker starts nothing new (the scheduler may have enqueued the match again just as the
        # worker gave it back): still queued, no attempt used; the scheduler enqueues it once more.
        return {"match": match_id, "status": doc["status"], "applied": False, "stopped": "before the start"}
    spec = MatchSpec.from_json(doc["spec"])
    worker = worker or worker_name()
    lease = lease_seconds(spec.deadline_ms, settings.min_lease_s)
    doc = store.start_attempt(match_id, worker, lease)
    if doc is None or doc["status"] in FINAL_STATUSES:
        return {"match": match_id, "status": doc["status"] if doc else "missing", "applied": False}
    spec = spec.for_attempt(doc["attempts"])
    metrics.MATCHES_STARTED.labels(spec.ladder_id).inc()
    refused = refused_urls(spec, settings.allow_private_urls)
    if refused:
        # Seated before the address policy refused its URL (an operator stopped allowing private URLs): the
        # arena's refusal is no fault of the bot's. No card is dealt, nobody is rated, the bot is paused.
        store.block_urls(refused)
        reason = "the address policy refuses the URL of " + ", ".join(sorted(refused))
        if spec.challenge:
            ChallengeStore(store).abort(match_id, reason)
        elif spec.tournament:
            enqueue_tables(store, TournamentStore(store).abort_table(
                spec.tournament, doc["tournament"]["round"], match_id, reason))
        else:
            store.abort_match(spec.ladder_id, match_id, reason)
        metrics.MATCHES_FINISHED.labels(spec.ladder_id, "aborted").inc()
        return {"match": match_id, "status": MatchStatus.ABORTED.value, "applied": False, "aborted": reason}
    # The document the result is written over at the end: kept as its JSON while the match plays (with
    # hundreds of matches in flight, a string each rather than the ~60 objects it decodes to).
    kept_doc = json.dumps(doc, separators=(",", ":"))
    del doc
    urls = [m.url for m in spec.entrants if m.kind is MemberKind.HTTP and m.url]
    in_flight = metrics.MATCHES_IN_FLIGHT.labels(spec.ladder_id)
    with CLIENTS.lease(urls, settings.allow_private_urls) as clients, in_flight.track_inprogress():
        drivers = make_drivers(spec, settings.allow_private_urls, clients)
        # Every decision notes the match alive; the process's keeper extends the leases of all its matches
        # that did, in one round trip a second (arena/leases.py).
        leases = keeper_for(store.prefix, store.refresh_leases)
        runner = MatchRunner(spec, drivers, heartbeat=lambda: leases.beat(match_id, worker, lease),
                             host_factory=table_hosts(store, spec, settings),
                             # A tournament's table shows no live view: its deals are in play at the others.
                             observer=None if spec.tournament else live_feed(store, spec),
                             stop_requested=STOPPING.is_set)
        try:
            result = runner.run()
        except MatchAbandoned as stopped:
            store.abandon_attempt(match_id, worker, str(stopped))
            metrics.MATCHES_GIVEN_BACK.labels(spec.ladder_id).inc()
            return {"match": match_id, "status": MatchStatus.QUEUED.value, "applied": False,
                    "stopped": str(stopped)}
        finally:
            leases.release(match_id)
    doc = json.loads(kept_doc)
    if spec.challenge:  # stored unrated, on no ladder (core.arena.challenges)
        applied = ChallengeStore(store).finish(spec, result, doc)
        if applied:
            metrics.MATCHES_FINISHED.labels(spec.ladder_id, MatchStatus.PLAYED.value).inc()
        return {"match": match_id, "status": MatchStatus.PLAYED.value, "applied": applied,
                "places": result.places}
    if spec.tournament:  # held until its round is over (core.arena.tournament_store)
        applied, tables = TournamentStore(store).finish_table(spec, result, doc)
        enqueue_tables(store, tables)
        if applied:
            metrics.MATCHES_FINISHED.labels(spec.ladder_id, MatchStatus.PLAYED.value).inc()
        return {"match": match_id, "status": MatchStatus.HELD.value, "applied": applied,
                "places": result.places}
    applied = store.apply_result(spec, result, doc)
    status = MatchStatus.RATED if result.rated else MatchStatus.VOID
    if applied:  # once per match: a re-run whose result was already applied is not a second ending
        metrics.MATCHES_FINISHED.labels(spec.ladder_id, status.value).inc()
    return {"match": match_id, "status": status.value, "applied": applied,
            "places": result.places, "deltas": result.deltas}


def enqueue_tables(store: ArenaStore, specs: list[MatchSpec]) -> None:
    """Queue a tournament's new tables on the tournaments' queue (with the job's connection, as RQ's)."""
    if not specs:
        return
    job = get_current_job()
    conn = job.connection if job is not None else settings_client(runtime.settings())
    queue = Queue(keys.tournament_queue(store.prefix), connection=conn)
    for spec in specs:
        enqueue_tournament_table(queue, spec.match_id, store.prefix, TOURNAMENT_JOB_TIMEOUT_S)


def refused_urls(spec: MatchSpec, allow_private: bool) -> dict[str, str]:
    """Bot id -> why the address policy refuses its URL now, for the match's HTTP entrants it refuses."""
    reasons = {m.bot_id: policy_refusal(m.url, allow_private)
               for m in spec.entrants if m.kind is MemberKind.HTTP and m.url}
    return {bot_id: reason for bot_id, reason in reasons.items() if reason is not None}


# The process's view of which matches are watched, by key prefix: one Redis read a second for all its matches.
_WATCHED: dict[str, WatchedMatches] = {}


def live_feed(store: ArenaStore, spec: MatchSpec) -> LiveFeed:
    """Spectators' view of the running match; a Redis blip loses a frame, never the match."""

    def publish(snapshot: dict[str, Any]) -> None:
        with contextlib.suppress(redis.RedisError):  # the next frame replaces a lost one
            store.publish_live(spec.match_id, snapshot)

    watching = _WATCHED.get(store.prefix)
    if watching is None:
        watching = _WATCHED[store.prefix] = WatchedMatches(store.watched_matches)
    watching.fetch = store.watched_matches  # the newest store's connection (one Redis per process in use)
    # Asked at every decision: the process's set answers from memory, so a watch is seen within its read.
    return LiveFeed(spec.match_id, spec.games, publish, watched=lambda: spec.match_id in watching,
                    check_every_s=0.0)


def table_hosts(store: ArenaStore, spec: MatchSpec, settings: Settings) -> HostFactory | None:
    """Games of matches with a polling bot live in API tables (the bot moves through the move API)."""
    if not any(m.kind is MemberKind.POLL for m in spec.entrants):
        return None
    tables = table_store(settings, store.redis, store.prefix)
    return lambda game_no, seating, seed: TableHost(tables, spec, seating, game_no, seed)


def health_check(bot_id: str, url: str, prefix: str, timeout_s: float = 2.0) -> HealthReport:
    """RQ entry point: GET {url}/ once; three failures in a row pause the bot until a check passes (a URL the
    address policy refuses pauses it at once, without counting as a failure)."""
    return check_bot_health(runtime.stores(_connection(), prefix).arena, bot_id, url, timeout_s)


def check_bot_health(store: ArenaStore, bot_id: str, url: str, timeout_s: float = 2.0,
                     allow_private: bool | None = None) -> HealthReport:
    allow = runtime.settings().allow_private_urls if allow_private is None else allow_private
    client = BotClient(url, allow_private=allow)
    try:
        result = client.info(timeout_s)
    finally:
        client.close()
    if result.outcome is Outcome.UNSAFE_ADDRESS:
        # The address policy refused the URL before any connection: not the bot's failure, so no failed
        # check towards a pause, but it is paused at once, with the reason, until the URL or policy changes.
        store.block_urls({bot_id: result.detail})
        return {"bot": bot_id, "ok": False, "outcome": result.outcome.value, "paused": True,
                "latency_ms": round(result.latency_ms, 3), "detail": result.detail}
    paused = store.record_health(bot_id, result.ok, "" if result.ok else f"{result.outcome}: {result.detail}",
                                 result.latency_ms)
    if result.ok:  # its matches are rated under the version it reports (a new version: a new rating line)
        version = json.loads(result.body).get("version")
        if isinstance(version, str | int | float) and not isinstance(version, bool) and str(version):
            store.record_version(bot_id, str(version))
    return {"bot": bot_id, "ok": result.ok, "outcome": result.outcome.value, "paused": paused,
            "latency_ms": round(result.latency_ms, 3), "detail": "" if result.ok else result.detail}
