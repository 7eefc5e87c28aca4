"""Playing one match: the engine, one seat driver per bot, strikes, fallback moves, the aggregate result.

No Redis here: the job (arena.jobs) stores the ``MatchResult``; ``simulate-ladder`` runs the same code
offline. Seat drivers, duplicate games and their baseline: docs/arena.md#a-match-step-by-step.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import engine
from arena.botclient import BotClient, CallResult
from arena.drivers import DecisionRequest, DriverAnswer, HouseDriver, HttpDriver, SeatDriver, StaleMove
from arena.policy import Outcome, fallback_move
from arena.polling import PollDriver
from core import metrics
from core.arena.decisions import DETAIL_LIMIT, BotLog, LoggedDecision, kept_answer
from core.arena.elo import rate_match
from core.arena.matchgame import MatchGame
from core.arena.model import (
    PROTOCOL_VERSION,
    REFERENCE_BOT,
    BotCallStats,
    MatchResult,
    MatchSpec,
    Member,
    MemberKind,
    Strike,
)
from engine.shapes import Decision, Record


class HostedGame(MatchGame, Protocol):
    """A game kept at an API table (``arena.polling.TableHost``): it has the table's id and must be closed."""

    @property
    def table_id(self) -> str: ...

    def close(self) -> None: ...


# A match's decision counts and latencies, and the "last decision" gauge (for an alert on minutes without
# one), are kept in the match and written to the metrics this often and at its end: a write per decision was a
# few % of a worker's CPU.
METRICS_EVERY_S = 1.0

# (game_no, seating, deal seed) -> the game to play: an API table for matches with a polling bot.
HostFactory = Callable[[int, list[Member], int], HostedGame]


class Observer(Protocol):
    """Called at the start and end of each game and after every decision: the live spectator feed
    (core.arena.live.LiveFeed), which throttles itself. ``table_id``: the API table, if the game has one."""

    def __call__(self, game_no: int, game: MatchGame, seating: list[str], force: bool,
                 table_id: str | None) -> object: ...


@dataclass(frozen=True)
class PlayedGame:
    game: MatchGame
    table_id: str  # the API table's id, or the match's own name for the game (match_id.game_no)


def house_seed(spec: MatchSpec, member: Member) -> str:
    return f"{spec.seed}:{member.bot_id}"


def reference_totals(spec: MatchSpec, seed: int) -> list[int]:
    """What the reference policy scores in each seat of the deal `seed`: the baseline of a duplicate game."""
    from engine.bots import make_bot, play_game

    game = engine.new_game(spec.game, spec.players, spec.options, seed=seed)
    bots = [make_bot(REFERENCE_BOT, f"reference:{seed}:{seat}") for seat in range(spec.players)]
    return list(play_game(game, bots).totals)


def replayed_deal(spec: MatchSpec) -> Callable[[int], int]:
    """A `deal_seed` that deals every game of the match from the match's seed: one deal, bots rotated (the
    format that shows a bot a deal twice, for simulations to compare against)."""
    return lambda _game_no: spec.seed


def rotation_seating(entrants: list[Member], rotation: int) -> list[Member]:
    """Seat s of game `rotation` holds entrant (s + rotation) mod n: over n games each bot sits everywhere."""
    n = len(entrants)
    return [entrants[(seat + rotation) % n] for seat in range(n)]


Item = TypeVar("Item")
Result = TypeVar("Result")


def call_per_host(items: Sequence[Item], host_of: Callable[[Item], object | None],
                  call: Callable[[Item], Result]) -> list[Result]:
    """``call(item)`` for every item, the results in the items' order: items of different hosts at once (a
    match waits for its slowest bot, not for the sum of them), items of one host one after another (bots
    registered at one URL share its kept-alive connection, which carries one call at a time). Items whose
    host is None (a house bot: no I/O) are called in this thread.

    >>> call_per_host([1, 2, 3, 4], lambda n: n % 2, lambda n: n * 10)
    [10, 20, 30, 40]
    """
    if len(items) == 1:  # most calls of a match (one seat's play): no grouping
        return [call(items[0])]
    groups: dict[int, list[int]] = {}
    local: list[int] = []
    for index, item in enumerate(items):
        host = host_of(item)
        if host is None:
            local.append(index)
        else:
            groups.setdefault(id(host), []).append(index)
    results: list[Any] = [None] * len(items)
    failures: list[BaseException] = []

    def run(indexes: list[int]) -> None:
        try:
            for index in indexes:
                results[index] = call(items[index])
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            failures.append(exc)

    batches = list(groups.values())
    # The first host's calls run in this thread: one thread fewer, and none at all with a single host.
    threads = [threading.Thread(target=run, args=(batch,), name="per-host", daemon=True)
               for batch in batches[1:]]
    for thread in threads:
        thread.start()
    run(local + (batches[0] if batches else []))
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return results


@dataclass(frozen=True)
class Asked:
    """A seat asked for its decision: what it had to decide, at which version, and its driver's answer (None:
    not asked, the bot forfeited) after `waited_ms`."""

    decision: Decision
    version: int
    answer: DriverAnswer | None
    waited_ms: float


class MatchAbandoned(Exception):
    """The worker is stopping: the match stops between two decisions, unrated, to be re-run from scratch."""


class MatchRunner:
    def __init__(self, spec: MatchSpec, drivers: dict[str, SeatDriver],
                 heartbeat: Callable[[], None] | None = None,
                 host_factory: HostFactory | None = None, observer: Observer | None = None,
                 stop_requested: Callable[[], bool] | None = None,
                 deal_seed: Callable[[int], int] | None = None) -> None:
        self.spec = spec
        # The deal of each game; `replayed_deal(spec)` is how the simulations show what a format that shows
        # a bot a deal twice would give away.
        self.deal_seed = deal_seed or spec.game_seed
        self.stop_requested = stop_requested or (lambda: False)
        self.drivers = drivers
        self.host_factory = host_factory
        self.observer = observer
        self.heartbeat = heartbeat  # called after every decision (a lease keeper batches what it sends)
        self._call_s: float | None = None  # the last decision's bot call, s (None: no HTTP call)
        # The ladder's metric series, looked up once: a decision costs the worker a few hundred µs, and a
        # labels() lookup per metric per decision was a noticeable part of it.
        self._latency_metric = metrics.BatchedHistogram(metrics.BOT_LATENCY.labels(spec.ladder_id))
        self._arena_metric = metrics.BatchedHistogram(metrics.ARENA_DECISION.labels(spec.ladder_id))
        self._decision_metrics: dict[str, metrics.BatchedCounter] = {}
        self._metrics_flushed = time.monotonic()
        self._last_decision_metric = metrics.LAST_DECISION.labels(spec.ladder_id)
        self._answered = False  # a ladder bot answered in time since the last flush
        self.strike_counts: Counter[str] = Counter()
        self.forfeited: set[str] = set()
        self.strikes: list[Strike] = []
        self.calls = {m.bot_id: BotCallStats() for m in spec.entrants if m.kind is not MemberKind.HOUSE}
        # Every decision of every bot but the house's, for its owner (core.arena.decisions).
        self.decisions = {bot_id: BotLog() for bot_id in self.calls}

    def run(self) -> MatchResult:
        try:
            return self._run()
        finally:
            self._flush_metrics()

    def _run(self) -> MatchResult:
        spec = self.spec
        self._wake_up()
        totals: Counter[str] = Counter({m.bot_id: 0 for m in spec.entrants})
        games: list[dict[str, Any]] = []
        records: list[Record] = []
        for game_no in range(spec.games):
            seating = rotation_seating(spec.entrants, game_no)
            seed = self.deal_seed(game_no)
            played = self._play_game(game_no, seating, seed)
            game = played.game
            baseline = reference_totals(spec, seed) if spec.duplicate else [0] * spec.players
            for seat, member in enumerate(seating):
                totals[member.bot_id] += game.totals[seat] - baseline[seat]
            entry = {"game_no": game_no, "table": played.table_id,
                     "seating": [m.bot_id for m in seating], "totals": list(game.totals),
                     "winners": [seating[s].bot_id for s in game.winners], "moves": game.version}
            if spec.duplicate:
                entry["baseline"] = baseline
            games.append(entry)
            records.append(game.record())
        # Rated from the ratings frozen when the match was made, so a re-run rates it the same; a challenge
        # moves no rating (core.arena.elo.rate_match). The store adds the changes, once per match.
        unrated = spec.challenge or bool(spec.tournament)
        standing, deltas = rate_match(dict(totals), engine.rules_for(spec.game).low_wins, self.forfeited,
                                      spec.pre_ratings, spec.pre_matches, counts=not unrated)
        return MatchResult(
            match_id=spec.match_id, totals=dict(totals), places=standing.places,
            deltas=deltas, winners=standing.winners,
            forfeited=sorted(self.forfeited), strikes=self.strikes, calls=self.calls, games=games,
            records=records, seed=spec.seed, rated=standing.rated,
            decisions={bot_id: log.stored() for bot_id, log in self.decisions.items()},
        )

    def table_id(self, game_no: int) -> str:
        return f"{self.spec.match_id}.{game_no}"

    def _wake_up(self) -> None:
        """Wake every entrant's host at once before the first deal (docs/bot-protocol.md, "A host that
        sleeps"): the match waits for the slowest, at most the wake-up call's timeout, and a bot that does
        not wake plays on and takes strikes as usual. Recorded as a `wake` call, never a strike."""
        members = [m for m in self.spec.entrants if m.bot_id in self.calls]
        woken = call_per_host(members, self._host_of, lambda m: self.drivers[m.bot_id].wake_up())
        for member, result in zip(members, woken, strict=True):
            self._notify("wake", member, result)

    def _host_of(self, member: Member) -> object | None:
        """The connection a member's calls go through (bots at one URL share it); None: no call (house)."""
        driver = self.drivers[member.bot_id]
        return driver.client if isinstance(driver, HttpDriver) else None

    def _tell_seats(self, kind: str, game_no: int, seating: list[Member],
                    payload_of: Callable[[int], dict[str, Any]]) -> None:
        """A game's `start` or `end` to every seat not forfeited, all hosts at once (best effort)."""
        seats = [seat for seat, member in enumerate(seating) if member.bot_id not in self.forfeited]

        def tell(seat: int) -> CallResult | None:
            driver = self.drivers[seating[seat].bot_id]
            if kind == "start":
                return driver.begin_game(game_no, payload_of(seat))
            return driver.end_game(game_no, payload_of(seat))

        told = call_per_host(seats, lambda seat: self._host_of(seating[seat]), tell)
        for seat, result in zip(seats, told, strict=True):
            self._notify(kind, seating[seat], result)

    def _notify(self, kind: str, member: Member, result: CallResult | None) -> None:
        if result is not None and member.bot_id in self.calls:
            self.calls[member.bot_id].add(kind, result.outcome.value, result.latency_ms)

    def _play_game(self, game_no: int, seating: list[Member], seed: int) -> PlayedGame:
        spec = self.spec
        if self.host_factory is None:
            game = engine.new_game(spec.game, spec.players, spec.options, seed=seed)
            return self._play(PlayedGame(game, self.table_id(game_no)), game_no, seating, None)
        host = self.host_factory(game_no, seating, seed)
        try:
            return self._play(PlayedGame(host, host.table_id), game_no, seating, host.table_id)
        finally:
            host.close()

    def _play(self, played: PlayedGame, game_no: int, seating: list[Member],
              api_table: str | None) -> PlayedGame:
        spec, game, table_id = self.spec, played.game, played.table_id
        self._tell_seats("start", game_no, seating, lambda seat: {
            "game": spec.game, "table": table_id, "match": spec.match_id, "seat": seat,
            "players": spec.players, "options": game.options})
        bot_ids = [m.bot_id for m in seating]
        self._observe(game_no, game, bot_ids, True, api_table)
        mark = time.monotonic()
        while not game.over:
            seats = game.to_act()
            # A choice every seat makes at once (a pass, the sore suit) is asked of every host at once, unless
            # a polling bot is seated: its move may come first through the move API, and is awaited in turn.
            together = len(seats) > 1 and not any(
                isinstance(self.drivers[seating[s].bot_id], PollDriver) for s in seats)
            for batch in ([list(seats)] if together else [[s] for s in seats]):
                if not together and batch[0] not in game.to_act():
                    continue  # its move came first (a polling bot; logged at the game's end)
                self._decide(game, table_id, game_no, batch, seating)
                if self.stop_requested():
                    raise MatchAbandoned(f"stopped at move {game.version} of game {game_no}")
                if self.heartbeat is not None:  # after every decision: a lease must outlive one slow bot
                    self.heartbeat()
                self._observe(game_no, game, bot_ids, False, api_table)
                now = time.monotonic()
                if self._call_s is not None:  # an HTTP bot's answer: what the worker added to it
                    self._arena_metric.observe(max(0.0, now - mark - self._call_s))
                if now - self._metrics_flushed >= METRICS_EVERY_S:
                    self._flush_metrics()
                mark = now
        self._observe(game_no, game, bot_ids, True, api_table)
        moves = game.record()["moves"]
        for seat, member in enumerate(seating):  # a polling bot's moves the arena never saw it make
            if member.kind is MemberKind.POLL and member.bot_id not in self.forfeited:
                mine = [index for index, move in enumerate(moves) if move["seat"] == seat]
                self.decisions[member.bot_id].add_unseen(game_no, seat, mine)
        self._tell_seats("end", game_no, seating, lambda seat: {
            "game": spec.game, "table": table_id, "match": spec.match_id, "seat": seat,
            "totals": list(game.totals), "winners": list(game.winners)})
        return played

    def _observe(self, game_no: int, game: MatchGame, bot_ids: list[str], force: bool,
                 api_table: str | None) -> None:
        if self.observer is not None:
            self.observer(game_no, game, bot_ids, force, api_table)

    def _flush_metrics(self) -> None:
        self._metrics_flushed = time.monotonic()
        self._latency_metric.flush()
        self._arena_metric.flush()
        for counter in self._decision_metrics.values():
            counter.flush()
        if self._answered:
            self._answered = False
            self._last_decision_metric.set_to_current_time()

    def _decide(self, game: MatchGame, table_id: str, game_no: int, seats: list[int],
                seating: list[Member]) -> None:
        """Ask `seats` (several: a choice they make at once, asked of every host at once) and apply their
        answers in seat order, or the fallback with a strike; `_call_s` is the longest bot call."""
        asked = call_per_host(seats, lambda seat: self._host_of(seating[seat]),
                              lambda seat: self._ask(game, table_id, game_no, seat, seating[seat]))
        self._call_s = None
        for seat, question in zip(seats, asked, strict=True):
            self._settle(game, game_no, seat, seating[seat], question)

    def _ask(self, game: MatchGame, table_id: str, game_no: int, seat: int, member: Member) -> Asked:
        """The seat's driver asked (nothing asked of a forfeited bot); nothing applied yet."""
        request = self._request(game, table_id, game_no, seat)
        version = game.version  # before the driver: a polling bot's own move moves the game on meanwhile
        if member.bot_id in self.forfeited:
            return Asked(request.decision, version, None, 0.0)
        asked = time.monotonic()
        try:
            answer = self.drivers[member.bot_id].decide(request)
        except Exception as exc:  # noqa: BLE001 - no bot behaviour may crash a match
            answer = DriverAnswer.failed(Outcome.PROTOCOL_ERROR, f"driver error: {exc!r}")
        return Asked(request.decision, version, answer, (time.monotonic() - asked) * 1000.0)

    def _settle(self, game: MatchGame, game_no: int, seat: int, member: Member, asked: Asked) -> None:
        """Apply the seat's answer, or the fallback (a strike, unless a polling bot's own move came first);
        count and log the decision."""
        bot_id, decision, answer, version = member.bot_id, asked.decision, asked.answer, asked.version
        if answer is None:
            self._apply_fallback(game, seat, decision)  # autopilot after a forfeit
            return
        failure, detail = answer.failure, answer.detail
        if answer.move is not None:
            try:
                game.apply(seat, answer.move)
            except StaleMove:
                pass
            except engine.EngineError as exc:  # malformed or illegal: the engine changed nothing
                failure, detail = Outcome.ILLEGAL_MOVE, f"{answer.move!r}: {exc}"
        if answer.call is not None and bot_id in self.calls:
            # The call is logged as what it turned out to be: a well-formed reply the engine refused is an
            # illegal move, not an ok call.
            outcome = failure.value if failure is not None else answer.call.outcome.value
            self.calls[bot_id].add("move", outcome, answer.call.latency_ms)
        if answer.call is not None:
            call_s = answer.call.latency_ms / 1000.0
            self._call_s = call_s if self._call_s is None else max(self._call_s, call_s)
            self._latency_metric.observe(call_s)
        latency_ms = answer.call.latency_ms if answer.call is not None else asked.waited_ms
        body = answer.call.body if answer.call is not None else None
        if (answer.move is not None or answer.already_applied) and failure is None:
            self._count_decision(bot_id, None)
            self._log(bot_id, LoggedDecision(game_no, version, seat, latency_ms, "ok",
                                             answer=kept_answer(body, answer.move)))
            return
        if self._apply_fallback(game, seat, decision):
            reason = failure or Outcome.PROTOCOL_ERROR
            self._count_decision(bot_id, reason.value)
            self._strike(bot_id, game_no, version, reason, detail)
            self._log(bot_id, LoggedDecision(game_no, version, seat, latency_ms, reason.value,
                                             detail[:DETAIL_LIMIT], kept_answer(body, None)))
        else:
            self._count_decision(bot_id, None)  # a polling bot's own move came in first
            self._log(bot_id, LoggedDecision(game_no, version, seat, latency_ms, "ok"))

    def _request(self, game: MatchGame, table_id: str, game_no: int, seat: int) -> DecisionRequest:
        """The decision of `seat`, for its driver. Built here, not in `_decide`, so that only the request
        holds the view: an HTTP driver lets go of it once encoded (DecisionRequest.take_body)."""
        view = game.view(seat)
        decision = view["decision"]
        if decision is None:  # the engine gives every seat to act a decision
            raise RuntimeError(f"seat {seat} is to act at move {game.version} with nothing to decide")
        payload = {
            "protocol": PROTOCOL_VERSION, "game": self.spec.game, "table": table_id,
            "match": self.spec.match_id, "seat": seat, "decision": decision,
            "deadline_ms": self.spec.deadline_ms, "view": view, "legal": decision["legal"],
        }
        return DecisionRequest(game_no, table_id, seat, view, payload, self.spec.deadline_ms / 1000.0,
                               game=game, decision=decision)

    def _log(self, bot_id: str, entry: LoggedDecision) -> None:
        if bot_id in self.decisions:
            self.decisions[bot_id].add(entry)

    def _count_decision(self, bot_id: str, outcome: str | None) -> None:
        """One decision of a ladder bot (not a house bot's) in the metrics, by its bounded outcome."""
        if bot_id not in self.calls:
            return
        label = metrics.decision_outcome(outcome)
        counter = self._decision_metrics.get(label)
        if counter is None:
            counter = self._decision_metrics[label] = metrics.BatchedCounter(
                metrics.BOT_DECISIONS.labels(self.spec.ladder_id, label))
        counter.inc()
        if outcome is None:
            self._answered = True

    @staticmethod
    def _apply_fallback(game: MatchGame, seat: int, decision: Decision) -> bool:
        """Play the fallback; False if the table moved first (a polling bot's own move arrived in time)."""
        try:
            game.apply(seat, fallback_move(decision))
            return True
        except StaleMove:
            return False

    def _strike(self, bot_id: str, game_no: int, version: int, reason: Outcome, detail: str) -> None:
        self.strikes.append(Strike(bot_id, game_no, version, reason.value, detail[:300]))
        self.strike_counts[bot_id] += 1
        if self.strike_counts[bot_id] >= self.spec.strike_limit:
            self.forfeited.add(bot_id)


def make_drivers(spec: MatchSpec, allow_private: bool,
                 clients: dict[str, BotClient] | None = None) -> dict[str, SeatDriver]:
    """One driver per entrant; HTTP clients are reused from `clients` (keyed by URL) to keep connections."""
    clients = clients if clients is not None else {}
    drivers: dict[str, SeatDriver] = {}
    for member in spec.entrants:
        if member.kind is MemberKind.HOUSE:
            drivers[member.bot_id] = HouseDriver(member.house_bot or "random", house_seed(spec, member))
        elif member.kind is MemberKind.POLL:
            drivers[member.bot_id] = PollDriver()
        elif member.kind is MemberKind.HTTP and member.url:
            client = clients.get(member.url)
            if client is None or client.allow_private != allow_private:
                client = clients[member.url] = BotClient(member.url, allow_private=allow_private)
            drivers[member.bot_id] = HttpDriver(client)
        else:
            raise ValueError(f"member {member.bot_id} of kind {member.kind} cannot be driven in-process")
    return drivers
