"""`python -m arena scheduler`: the loop that keeps every ladder busy (one instance at a time: a Redis lock).
Each tick syncs the members, recovers lost matches, tops the ladders up and schedules health checks.

Design: docs/arena.md#the-schedulers-tick
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import random
import secrets
import signal
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.utils import now as rq_now

from arena import runtime
from arena.ladder_quality import pair_meetings
from arena.matchmaking import Candidate, pick_table
from core import keys, metrics
from core.arena.challenges import JOB_TIMEOUT_S as CHALLENGE_JOB_TIMEOUT_S
from core.arena.challenges import ChallengeStore
from core.arena.model import FINAL_STATUSES, LadderConfig, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.moderation import is_suspended, public_name
from core.arena.netguard import policy_refusal
from core.arena.presence import present_now
from core.arena.store import ArenaStore
from core.arena.store.health import HEALTH_FAILURES_TO_PAUSE
from core.arena.store.matches import STOPPED_REASON, MatchDoc
from core.arena.tournament_store import JOB_TIMEOUT_S as TOURNAMENT_JOB_TIMEOUT_S
from core.arena.tournament_store import TournamentStore
from core.errors import TournamentNotFound
from core.queues import enqueue_challenge, enqueue_health_check, enqueue_match, enqueue_tournament_table
from core.redis.connections import StrRedis, settings_client
from core.settings import Settings
from core.stores import arena_store
from engine.seeds import new_seed

log = logging.getLogger("arena.scheduler")
MAX_ATTEMPTS = 3
CHALLENGE_GRACE_S = 30.0
HEALTH_BACKOFF_MAX_S = 1800.0  # a paused bot's health checks back off to one per half hour at most


def entrant_ids(doc: MatchDoc | None) -> list[str]:
    """The bots of a match document; none for one without a spec (it counts no meeting)."""
    spec: dict[str, Any] = (doc.get("spec") if doc else None) or {}
    return [m["bot_id"] for m in spec.get("entrants", [])]


def registered_members(conn: StrRedis, prefix: str, game: str) -> list[Member]:
    """Enabled registered bots that play `game`, less those an operator suspended (core.arena.moderation):
    HTTP members if they have a URL, polling ones otherwise, named as the public sees them."""
    index = conn.zrange(keys.bots_index(prefix), 0, -1)
    pipe = conn.pipeline(transaction=False)
    for bot_id in index:
        pipe.hgetall(keys.bot(prefix, bot_id))
    members = []
    for raw in pipe.execute():
        if not raw or raw.get("enabled") != "1" or is_suspended(raw):
            continue
        try:
            games = json.loads(raw.get("games", "[]"))
        except ValueError:
            continue
        if game not in games:
            continue
        url = raw.get("url") or None
        kind = MemberKind.HTTP if url else MemberKind.POLL
        members.append(Member(raw["bot_id"], kind, url=url, name=public_name(raw)))
    return members


def bot_owners(conn: redis.Redis, prefix: str, bot_ids: list[str]) -> dict[str, str]:
    """Owner of each registered bot that has one recorded (api.registry: the address that registered it)."""
    pipe = conn.pipeline(transaction=False)
    for bot_id in bot_ids:
        pipe.hget(keys.bot(prefix, bot_id), "owner")
    return {b: owner for b, owner in zip(bot_ids, pipe.execute(), strict=True) if owner}


@dataclass
class Scheduler:
    store: ArenaStore
    queue: Queue
    settings: Settings
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    _health_due: dict[str, float] = field(default_factory=dict)
    _house_only_at: dict[str, float] = field(default_factory=dict)
    _url_checked: dict[tuple[str, str], float] = field(default_factory=dict)  # (bot, url) -> when
    _meetings: dict[str, Counter[frozenset[str]]] = field(default_factory=dict)  # per ladder
    _free_since: dict[str, dict[str, float]] = field(default_factory=dict)  # per ladder: bot -> monotonic
    _members: dict[str, list[Member]] = field(default_factory=dict)  # per ladder, as last synced
    _synced: dict[str, str | None] = field(default_factory=dict)  # per ladder: registry generation synced
    challenge_queue: Queue | None = None  # where lost challenges are queued again (None: not recovered here)
    tournament_queue: Queue | None = None  # where tournaments' tables are queued (None: not run from here)

    def tick(self) -> dict[str, int]:
        counts = {"created": 0, "requeued": 0, "aborted": 0, "health_checks": 0, "forgotten": 0}
        http_members: dict[str, str] = {}
        generation = self.store.redis.get(keys.bots_generation(self.store.prefix))
        for ladder in self.store.ladders():
            members = self.ladder_members(ladder, generation)
            http_members.update({m.bot_id: m.url for m in members if m.kind is MemberKind.HTTP and m.url})
            self.check_urls(http_members)  # before fill: a refused URL is never seated
            busy = self.recover(ladder, counts)
            counts["created"] += self.fill(ladder, members, busy)
            counts["forgotten"] += self.store.trim_recent(ladder.ladder_id, self.settings.keep_matches)
        self.recover_challenges(counts)
        self.tend_tournaments(counts)
        counts["health_checks"] = self.schedule_health_checks(http_members)
        # Forget the URLs bots no longer have: a bot that goes back to one is checked again at once.
        self._url_checked = {(bot_id, url): at for (bot_id, url), at in self._url_checked.items()
                             if http_members.get(bot_id) == url}
        return counts

    def check_urls(self, http_members: dict[str, str]) -> None:
        """Pause (with the reason) bots whose URL the address policy refuses, and lift it once it accepts it.

        An operator who stops allowing private URLs leaves bots registered on them: seated, they would take
        strikes and forfeits for the arena's own refusal. Each URL is checked when first seen (a changed URL
        is a new one) and again every health period, when its host may resolve elsewhere.
        """
        now = time.monotonic()
        due = {bot_id: url for bot_id, url in http_members.items()
               if now - self._url_checked.get((bot_id, url), -1e18) >= self.settings.health_every_s}
        if not due:
            return
        self.store.block_urls({bot_id: policy_refusal(url, self.settings.allow_private_urls)
                               for bot_id, url in due.items()})
        self._url_checked.update({(bot_id, url): now for bot_id, url in due.items()})

    def ladder_members(self, ladder: LadderConfig, generation: str | None) -> list[Member]:
        """The ladder's members, synced from the registry when it changed since the last sync (its generation
        counter moved, read before this sync: a change during it moves it again) or on the first tick."""
        lid = ladder.ladder_id
        if lid not in self._members or self._synced.get(lid) != generation:
            self.sync_members(ladder)
            self._members[lid] = self.store.members(lid)
            self._synced[lid] = generation
        return self._members[lid]

    def sync_members(self, ladder: LadderConfig) -> None:
        added, removed = self.store.set_members(
            ladder.ladder_id, registered_members(self.store.redis, self.store.prefix, ladder.game))
        if added or removed:
            log.info("ladder %s: joined %s, left %s", ladder.ladder_id, added, removed)

    def recover(self, ladder: LadderConfig, counts: dict[str, int]) -> set[str]:
        """Handle dead or failed matches; return the bot ids seated in live ones.

        In a few round trips whatever the number of matches in play: their documents in one MGET, the
        leases of the running ones in another, the RQ jobs of the queued ones in one pipeline."""
        busy: set[str] = set()
        active = self.store.active_matches(ladder.ladder_id)
        docs = self.store.match_docs(active)
        problems = self._problems({m: d["status"] for m, d in zip(active, docs, strict=True)
                                   if d is not None and d["status"] not in FINAL_STATUSES})
        for match_id, doc in zip(active, docs, strict=True):
            if doc is None:
                self.store.redis.srem(keys.arena_active(self.store.prefix, ladder.ladder_id), match_id)
                continue
            status = doc["status"]
            if status in FINAL_STATUSES:
                self.store.redis.srem(keys.arena_active(self.store.prefix, ladder.ladder_id), match_id)
                continue
            problem = problems.get(match_id)
            if problem is not None:
                if doc.get("attempts", 0) - doc.get("stopped", 0) >= MAX_ATTEMPTS:
                    self.store.abort_match(ladder.ladder_id, match_id, f"{problem}; gave up after "
                                           f"{doc.get('attempts', 0)} attempts")
                    counts["aborted"] += 1
                    continue
                self.store.requeue_match(match_id, problem)
                enqueue_match(self.queue, MatchSpec.from_json(doc["spec"]), ladder, self.store.prefix)
                counts["requeued"] += 1
            busy.update(m["bot_id"] for m in doc["spec"]["entrants"])
        return busy

    def recover_challenges(self, counts: dict[str, int]) -> None:
        """Challenges whose worker died or whose job failed for good: queued again (a re-run deals fresh
        cards), or aborted after MAX_ATTEMPTS; finished ones stop counting as pending. The API enqueues a
        challenge just after creating it, so a job missing for less than ``CHALLENGE_GRACE_S`` is not lost."""
        if self.challenge_queue is None:
            return
        challenges = ChallengeStore(self.store)
        for match_id in challenges.pending():
            doc = self.store.match(match_id)
            if doc is None or doc["status"] in FINAL_STATUSES:
                challenges.release(match_id, doc)
                continue
            problem = self._problems({match_id: doc["status"]}, self.challenge_queue).get(match_id)
            if problem is None or (problem == "job missing"
                                   and time.time() - doc.get("created", 0.0) < CHALLENGE_GRACE_S):
                continue
            if doc.get("attempts", 0) - doc.get("stopped", 0) >= MAX_ATTEMPTS:
                challenges.abort(match_id, f"{problem}; gave up after {doc.get('attempts', 0)} attempts")
                counts["aborted"] += 1
                continue
            self.store.requeue_match(match_id, problem)
            enqueue_challenge(self.challenge_queue, match_id, self.store.prefix, CHALLENGE_JOB_TIMEOUT_S)
            counts["requeued"] += 1

    def tend_tournaments(self, counts: dict[str, int]) -> None:
        """Open tournaments whose start time has come start (their first round queued); the tables of running
        ones whose worker died or whose job failed for good are queued again (fresh deals) or given up after
        MAX_ATTEMPTS, which may end their round."""
        if self.tournament_queue is None:
            return
        events = TournamentStore(self.store)
        prefix = self.store.prefix
        for tournament_id in events.active():
            try:
                doc = events.get(tournament_id)
            except TournamentNotFound:
                self.store.redis.zrem(keys.tournaments_active(prefix), tournament_id)
                continue
            if doc["status"] == "open" and (doc["starts_at"] or 0) <= time.time():
                for spec in events.start(tournament_id):
                    enqueue_tournament_table(self.tournament_queue, spec.match_id, prefix,
                                             TOURNAMENT_JOB_TIMEOUT_S)
                    counts["created"] += 1
                continue
            if doc["status"] != "running" or not doc["round_list"]:
                continue
            mended = events.repair(tournament_id)  # a table or a round's end that a dying process left undone
            for spec in mended:
                enqueue_tournament_table(self.tournament_queue, spec.match_id, prefix,
                                         TOURNAMENT_JOB_TIMEOUT_S)
                counts["created"] += 1
            if mended:
                continue
            current = doc["round_list"][-1]
            tables = dict(zip(current["tables"], self.store.match_docs(current["tables"]), strict=True))
            live = {mid: d["status"] for mid, d in tables.items() if d is not None and d["status"] not in
                    FINAL_STATUSES}
            for match_id, problem in self._problems(live, self.tournament_queue).items():
                table = tables[match_id] or {}
                if problem == "job missing" and time.time() - table.get("created", 0.0) < CHALLENGE_GRACE_S:
                    continue
                if table.get("attempts", 0) - table.get("stopped", 0) >= MAX_ATTEMPTS:
                    reason = f"{problem}; gave up after {table.get('attempts', 0)} attempts"
                    specs = events.abort_table(tournament_id, current["round"], match_id, reason)
                    counts["aborted"] += 1
                else:
                    self.store.requeue_match(match_id, problem)
                    specs = [MatchSpec.from_json(table["spec"])]
                    counts["requeued"] += 1
                for spec in specs:
                    enqueue_tournament_table(self.tournament_queue, spec.match_id, prefix,
                                             TOURNAMENT_JOB_TIMEOUT_S)

    def _problems(self, statuses: dict[str, str], queue: Queue | None = None) -> dict[str, str]:
        """What went wrong with each of these unfinished matches (id -> status), where something did; their
        jobs are on `queue` (default: the ladders')."""
        running = [m for m, status in statuses.items() if status == MatchStatus.RUNNING]
        queued = [m for m, status in statuses.items() if status == MatchStatus.QUEUED]
        problems: dict[str, str] = {}
        leases = self.store.lease_holders(running)
        for match_id, holder in zip(running, leases, strict=True):
            # Lease gone but the match not final: the worker died mid-match (or lost Redis for a lease).
            if holder is None and not self.store.is_applied(match_id):
                problems[match_id] = "worker lost (lease expired)"
        jobs = Job.fetch_many(queued, connection=self.queue.connection) if queued else []
        for match_id, job in zip(queued, jobs, strict=True):
            problem = "job missing" if job is None else self._job_problem(job, queue or self.queue)
            if problem is not None:
                problems[match_id] = problem
        return problems

    def _job_problem(self, job: Job, queue: Queue) -> str | None:
        """What went wrong with a queued match's RQ job, if anything."""
        try:
            job_status = job.get_status(refresh=False)
        except NoSuchJobError:
            return "job missing"
        if job_status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
            return f"job {job_status}"
        if job_status == JobStatus.FINISHED:  # a stopping worker gave the match back (abandon_attempt)
            return STOPPED_REASON
        if self._stranded(job, job_status, queue):
            return "job stranded (its worker lost Redis before the match started)"
        return None

    def _stranded(self, job: Job, job_status: JobStatus | None, queue: Queue) -> bool:
        """Whether a worker took the match's job and lost Redis before the match started (the primary died
        under it, say): started for RQ, but the match never got a lease; or taken off the queue (into RQ's
        list of jobs being handed over) and never started. RQ itself gives such a job up only when its
        timeout has passed (an hour for a match). Both states last milliseconds in a live worker: one older
        than two shortest leases is stranded.
        """
        since = job.started_at if job_status == JobStatus.STARTED else job.enqueued_at
        if since is None or (rq_now() - since).total_seconds() < 2 * self.settings.min_lease_s:
            return False
        if job_status == JobStatus.STARTED:
            return True
        return job_status == JobStatus.QUEUED and queue.get_job_position(job.id) is None

    def fill(self, ladder: LadderConfig, members: list[Member], busy: set[str]) -> int:
        """Top the ladder up to `max_active` matches. Only the bots that could sit down now (house bots,
        HTTP bots, polling bots present, none of them in a running match) are read from Redis: a tick costs
        the bots free to play, not every bot ever registered."""
        active = len(self.store.active_matches(ladder.ladder_id))
        if active >= ladder.max_active:
            return 0
        lid = ladder.ladder_id
        by_id = {m.bot_id: m for m in members}
        present = present_now(self.store.redis, self.store.prefix, ladder.presence_s)
        # Out of this fill: polling bots that are not around to play, and (below) paused or benched bots.
        # Bots in running matches are read no further: they only hold a table back (should_wait).
        absent = {m.bot_id for m in members if m.kind is MemberKind.POLL and m.bot_id not in present}
        relevant = [m.bot_id for m in members if m.bot_id not in absent or m.bot_id in busy]
        unseated = [b for b in relevant if b not in busy]
        registered_ids = [b for b in unseated if by_id[b].kind is not MemberKind.HOUSE]
        http_ids = [b for b in registered_ids if by_id[b].kind is MemberKind.HTTP]
        away = absent | self.store.paused_bots(registered_ids, need_answer=set(http_ids))
        ratings = self.store.ratings_of(lid, unseated)
        matches = self.store.matches_played(lid, unseated)
        owners = bot_owners(self.store.redis, self.store.prefix, registered_ids)
        created = 0
        last = self.store.last_group(lid)
        meetings = self._ladder_meetings(lid)
        now = time.monotonic()
        free_since = self._free_since.setdefault(lid, {})
        free = {b for b in relevant if b not in busy and b not in away}
        metrics.BOTS_READY.labels(lid).set(sum(1 for b in relevant
                                               if b not in away and by_id[b].kind is not MemberKind.HOUSE))
        for bot_id in [b for b in free_since if b not in free]:
            free_since.pop(bot_id)
        for bot_id in free:  # the wait counts from the first tick that sees the bot free, with room to play
            free_since.setdefault(bot_id, now)
        waited = {b: now - t for b, t in free_since.items()}
        while active + created < ladder.max_active:
            candidates = [
                Candidate(b, ratings.get(b, 1500.0), matches.get(b, 0),
                          available=b not in busy and b not in away, owner=owners.get(b),
                          busy=b in busy and b not in away)
                for b in relevant
            ]
            table = pick_table(candidates, ladder.players, self.rng, last_group=last, meetings=meetings,
                               waited_s=waited)
            if table is not None and all(by_id[b].kind is MemberKind.HOUSE for b in table):
                now = time.monotonic()
                if now - self._house_only_at.get(ladder.ladder_id, -1e9) >= ladder.house_only_gap_s:
                    self._house_only_at[ladder.ladder_id] = now
                else:  # house-only tables wait; a registered bot, if one is free, gets a table right away
                    registered = frozenset(b for b, m in by_id.items() if m.kind is not MemberKind.HOUSE)
                    table = pick_table(candidates, ladder.players, self.rng, last_group=last,
                                       first_from=registered, meetings=meetings, waited_s=waited)
            if table is None:
                break
            spec = MatchSpec(
                match_id=f"m{secrets.token_hex(8)}", ladder_id=ladder.ladder_id, game=ladder.game,
                players=ladder.players, options=ladder.options, seed=new_seed(),
                duplicate=bool(ladder.duplicate), entrants=[by_id[b] for b in table],
                deadline_ms=ladder.deadline_ms,
                strike_limit=ladder.strike_limit, pre_ratings={b: ratings.get(b, 1500.0) for b in table},
                pre_matches={b: matches[b] for b in table}, created=time.time(),
            )
            self.store.create_match(spec)
            enqueue_match(self.queue, spec, ladder, self.store.prefix)
            busy.update(table)
            meetings.update(pair_meetings([table]))
            for bot in table:  # seated: its next wait starts when it is free again
                free_since.pop(bot, None)
            last = frozenset(table)
            created += 1
        return created

    def _ladder_meetings(self, ladder_id: str) -> Counter[frozenset[str]]:
        """Pair meeting counts of a ladder: read once from its recent matches, then counted as they are
        created (a restarted scheduler starts again from the recent ones)."""
        if ladder_id not in self._meetings:
            ids = self.store.recent_matches(ladder_id, limit=self.settings.keep_matches) or []
            docs = self.store.match_docs(ids)
            self._meetings[ladder_id] = pair_meetings(entrant_ids(doc) for doc in docs)
        return self._meetings[ladder_id]

    def schedule_health_checks(self, http_members: dict[str, str]) -> int:
        now = time.monotonic()
        due = [bot_id for bot_id in http_members if self._health_due.get(bot_id, 0.0) <= now]
        failures = self.store.health_failures(due)
        for bot_id in due:
            enqueue_health_check(self.queue, bot_id, http_members[bot_id], self.store.prefix)
            self._health_due[bot_id] = now + health_interval(self.settings.health_every_s, failures[bot_id])
        return len(due)


def health_interval(every_s: float, failures: int, max_s: float = HEALTH_BACKOFF_MAX_S) -> float:
    """Seconds to the next health check of a bot with `failures` failed checks in a row.

    Every `every_s` while it passes or has not failed often enough to be paused; once paused, the retries
    back off (double each time, at most `max_s`): a bot that is down for good costs a check every half
    hour, and one that comes back is matched again after its first passing check.

    >>> [health_interval(30.0, f) for f in (0, 2, 3, 4, 5, 12)]
    [30.0, 30.0, 60.0, 120.0, 240.0, 1800.0]
    """
    if failures < HEALTH_FAILURES_TO_PAUSE:
        return every_s
    return min(every_s * 2.0 ** (failures - HEALTH_FAILURES_TO_PAUSE + 1), max_s)


def run_forever(settings: Settings, ladders: list[LadderConfig] | None = None,
                stop_after_s: float | None = None) -> None:
    """The scheduler process: install ladders, then tick until stopped (holding a lock while alive)."""
    runtime.install(settings)
    conn = settings_client(settings)
    store = arena_store(settings, conn)
    for ladder in ladders or []:
        stored = store.ladder(ladder.ladder_id)
        # A default ladder follows the settings' house-only gap; anything else an operator set stays.
        if stored is None or stored == dataclasses.replace(ladder, house_only_gap_s=stored.house_only_gap_s) \
                and stored.house_only_gap_s != ladder.house_only_gap_s:
            store.save_ladder(ladder)
    scheduler = Scheduler(store, Queue(settings.queue_name, connection=conn), settings,
                          challenge_queue=Queue(settings.challenge_queue_name, connection=conn),
                          tournament_queue=Queue(settings.tournament_queue_name, connection=conn))
    me = f"{socket.gethostname()}:{os.getpid()}"
    lock = keys.arena_scheduler_lock(settings.prefix)
    started = time.monotonic()
    lock_ms = int(max(5.0, settings.tick_s * 5) * 1000)
    stopping = threading.Event()
    if threading.current_thread() is threading.main_thread():
        # SIGTERM/SIGINT end the loop between two ticks (no half-done tick, no KeyboardInterrupt traceback).
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopping.set())
    while not stopping.is_set() and (stop_after_s is None or time.monotonic() - started < stop_after_s):
        # The lock calls are Redis calls too: a restart must not kill the loop (honcho would stop everything).
        try:
            holder = store.redis.set(lock, me, nx=True, px=lock_ms) or store.redis.get(lock) == me
            if holder:
                store.redis.pexpire(lock, lock_ms)
                counts = scheduler.tick()
                if any(counts.values()):
                    log.info("tick: %s", counts)
        except redis.RedisError as exc:  # Redis restarting: keep trying, state is all in Redis
            metrics.count_redis_error("scheduler", exc)
            log.warning("tick failed: %s", exc)
        stopping.wait(settings.tick_s)
    with contextlib.suppress(redis.RedisError):  # let a successor take over at once
        if store.redis.get(lock) == me:
            store.redis.delete(lock)
    log.info("scheduler stopped")
