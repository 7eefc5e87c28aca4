"""Playing one ladder match: the engine, one driver per bot, strikes, fallback moves, the aggregate result.

No Redis here: the caller hands in the spec and one driver per bot, and gets a ``MatchResult`` back; the job
(arena.jobs) stores it and applies the rating. The same code runs offline in ``simulate-ladder``.

Duplicate matches: one game per rotation of the bots through the seats, each game on a fresh deal
(``MatchSpec.game_seed``), so that no bot ever plays a deal it has seen: a bot that remembers every card
gains nothing. The luck of the cards is cancelled by a control variate instead of by replaying the deals:
every deal is also played, in-process, by the reference policy (``REFERENCE_BOT``) in every seat, and a
bot's score for a game is its total less the reference's total in the same seat of the same deal. The
result is the sum of these scores.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import engine
from arena.botclient import PROTOCOL_VERSION, BotClient, CallResult
from arena.policy import Outcome, fallback_move
from arena.polling import PollDriver, StaleMove
from core import metrics
from core.arena.elo import match_deltas, standings
from core.arena.model import REFERENCE_BOT, BotCallStats, MatchResult, MatchSpec, Member, MemberKind, Strike

# A driver's answer when the move is already on the table (a polling bot moved through the move API).
MOVE_ALREADY_APPLIED = object()
# (game_no, seating, deal seed) -> the game to play: an API table for matches with a polling bot.
HostFactory = Callable[[int, list[Member], int], Any]
# Called with (game_no, game, bot id per seat, force) at the start and end of each game and after every
# decision: the live spectator feed (core.arena.live.LiveFeed), which throttles itself.
Observer = Callable[[int, Any, list[str], bool], Any]


@dataclass(frozen=True)
class DecisionRequest:
    """What a driver gets for one decision; ``payload`` is the protocol v1 /move body."""

    game_no: int
    table_id: str
    seat: int
    view: dict[str, Any]
    payload: dict[str, Any]
    deadline_s: float
    host: Any = None  # the game (an engine game, or a TableHost for matches with polling bots)


@dataclass(frozen=True)
class DriverAnswer:
    move: Any | None  # None: the bot failed; `failure` says how
    call: CallResult | None = None  # the HTTP exchange, when there was one
    failure: Outcome | None = None
    detail: str = ""


class SeatDriver(Protocol):
    def begin_game(self, game_no: int, payload: dict[str, Any]) -> CallResult | None: ...

    def decide(self, request: DecisionRequest) -> DriverAnswer: ...

    def end_game(self, game_no: int, payload: dict[str, Any]) -> CallResult | None: ...


class HouseDriver:
    """An engine bot, in-process. Fresh RNG per game so a duplicate match is reproducible."""

    def __init__(self, house_bot: str, seed: str) -> None:
        from engine.bots import make_bot

        self._make = make_bot
        self.house_bot = house_bot
        self.seed = seed
        self.bot = make_bot(house_bot, seed)

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> None:
        self.bot = self._make(self.house_bot, f"{self.seed}:{game_no}")

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        return DriverAnswer(self.bot.choose(request.view))

    def end_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None


class HttpDriver:
    """A bot behind a URL, protocol v1, through a kept-alive BotClient."""

    NOTIFY_TIMEOUT_S = 0.5

    def __init__(self, client: BotClient) -> None:
        self.client = client

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> CallResult:
        return self.client.notify("start", payload, self.NOTIFY_TIMEOUT_S)

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        move, result = self.client.move(request.payload, request.deadline_s)
        if move is None:
            return DriverAnswer(None, result, result.outcome, result.detail)
        return DriverAnswer(move, result)

    def end_game(self, game_no: int, payload: dict[str, Any]) -> CallResult:
        return self.client.notify("end", payload, self.NOTIFY_TIMEOUT_S)


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


class MatchAbandoned(Exception):
    """The worker is stopping: the match stops between two decisions, unrated, to be re-run from scratch."""


class MatchRunner:
    def __init__(self, spec: MatchSpec, drivers: dict[str, SeatDriver],
                 heartbeat: Callable[[], None] | None = None, heartbeat_every_s: float = 1.0,
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
        self.heartbeat = heartbeat
        self.heartbeat_every_s = heartbeat_every_s
        self._last_beat = time.monotonic()
        self.strike_counts: Counter[str] = Counter()
        self.forfeited: set[str] = set()
        self.strikes: list[Strike] = []
        self.calls = {m.bot_id: BotCallStats() for m in spec.entrants if m.kind is not MemberKind.HOUSE}

    def run(self) -> MatchResult:
        spec = self.spec
        totals: Counter[str] = Counter({m.bot_id: 0 for m in spec.entrants})
        games: list[dict[str, Any]] = []
        records: list[dict[str, Any]] = []
        for game_no in range(spec.games):
            seating = rotation_seating(spec.entrants, game_no)
            seed = self.deal_seed(game_no)
            game = self._play_game(game_no, seating, seed)
            baseline = reference_totals(spec, seed) if spec.duplicate else [0] * spec.players
            for seat, member in enumerate(seating):
                totals[member.bot_id] += game.totals[seat] - baseline[seat]
            entry = {"game_no": game_no, "table": getattr(game, "table_id", self.table_id(game_no)),
                     "seating": [m.bot_id for m in seating], "totals": list(game.totals),
                     "winners": [seating[s].bot_id for s in game.winners], "moves": game.version}
            if spec.duplicate:
                entry["baseline"] = baseline
            games.append(entry)
            records.append(game.record())
        low_wins = engine.rules_for(spec.game).low_wins
        standing = standings(dict(totals), low_wins, self.forfeited)
        # A challenge moves no rating: its deltas are zero and it is not rated, whatever the standings.
        deltas = ({b: 0.0 for b in totals} if spec.challenge
                  else match_deltas(spec.pre_ratings, spec.pre_matches, standing))
        return MatchResult(
            match_id=spec.match_id, totals=dict(totals), places=standing.places,
            deltas=deltas, winners=standing.winners,
            forfeited=sorted(self.forfeited), strikes=self.strikes, calls=self.calls, games=games,
            records=records, seed=spec.seed, rated=standing.rated and not spec.challenge,
        )

    def table_id(self, game_no: int) -> str:
        return f"{self.spec.match_id}.{game_no}"

    def _notify(self, kind: str, member: Member, result: CallResult | None) -> None:
        if result is not None and member.bot_id in self.calls:
            self.calls[member.bot_id].add(kind, result.outcome.value, result.latency_ms)

    def _play_game(self, game_no: int, seating: list[Member], seed: int) -> Any:
        spec = self.spec
        if self.host_factory is None:
            game = engine.new_game(spec.game, spec.players, spec.options, seed=seed)
        else:
            game = self.host_factory(game_no, seating, seed)
        try:
            return self._play(game, game_no, seating)
        finally:
            if hasattr(game, "close"):
                game.close()

    def _play(self, game: Any, game_no: int, seating: list[Member]) -> Any:
        spec = self.spec
        table_id = getattr(game, "table_id", self.table_id(game_no))
        for seat, member in enumerate(seating):
            if member.bot_id not in self.forfeited:
                payload = {"game": spec.game, "table": table_id, "match": spec.match_id, "seat": seat,
                           "players": spec.players, "options": game.options}
                self._notify("start", member, self.drivers[member.bot_id].begin_game(game_no, payload))
        bot_ids = [m.bot_id for m in seating]
        self._observe(game_no, game, bot_ids, True)
        while not game.over:
            for seat in game.to_act():
                if seat in game.to_act():  # a simultaneous phase may have resolved meanwhile
                    self._decide(game, game_no, seat, seating[seat])
                    if self.stop_requested():
                        raise MatchAbandoned(f"stopped at move {game.version} of game {game_no}")
                    self._beat()  # after every decision: a lease must outlive one slow bot, not a round
                    self._observe(game_no, game, bot_ids, False)
        self._observe(game_no, game, bot_ids, True)
        for seat, member in enumerate(seating):
            if member.bot_id not in self.forfeited:
                payload = {"game": spec.game, "table": table_id, "match": spec.match_id, "seat": seat,
                           "totals": list(game.totals), "winners": list(game.winners)}
                self._notify("end", member, self.drivers[member.bot_id].end_game(game_no, payload))
        return game

    def _observe(self, game_no: int, game: Any, bot_ids: list[str], force: bool) -> None:
        if self.observer is not None:
            self.observer(game_no, game, bot_ids, force)

    def _beat(self) -> None:
        if self.heartbeat is not None and time.monotonic() - self._last_beat >= self.heartbeat_every_s:
            self._last_beat = time.monotonic()
            self.heartbeat()

    def _decide(self, game: Any, game_no: int, seat: int, member: Member) -> None:
        view = game.view(seat)
        decision = view["decision"]
        bot_id = member.bot_id
        if bot_id in self.forfeited:
            self._apply_fallback(game, seat, decision)  # autopilot after a forfeit
            return
        payload = {
            "protocol": PROTOCOL_VERSION, "game": self.spec.game,
            "table": getattr(game, "table_id", self.table_id(game_no)),
            "match": self.spec.match_id, "seat": seat, "decision": decision,
            "deadline_ms": self.spec.deadline_ms, "view": view, "legal": decision["legal"],
        }
        request = DecisionRequest(game_no, payload["table"], seat, view, payload,
                                  self.spec.deadline_ms / 1000.0, host=game)
        try:
            answer = self.drivers[bot_id].decide(request)
        except Exception as exc:  # noqa: BLE001 - no bot behaviour may crash a match
            answer = DriverAnswer(None, None, Outcome.PROTOCOL_ERROR, f"driver error: {exc!r}")
        failure, detail = answer.failure, answer.detail
        if answer.move is not None and answer.move is not MOVE_ALREADY_APPLIED:
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
            metrics.BOT_LATENCY.labels(self.spec.ladder_id).observe(answer.call.latency_ms / 1000.0)
        if answer.move is not None and failure is None:
            self._count_decision(bot_id, None)
            return
        version = game.version
        if self._apply_fallback(game, seat, decision):
            reason = failure or Outcome.PROTOCOL_ERROR
            self._count_decision(bot_id, reason.value)
            self._strike(bot_id, game_no, version, reason, detail)
        else:
            self._count_decision(bot_id, None)  # a polling bot's own move came in first

    def _count_decision(self, bot_id: str, outcome: str | None) -> None:
        """One decision of a ladder bot (not a house bot's) in the metrics, by its bounded outcome."""
        if bot_id in self.calls:
            metrics.BOT_DECISIONS.labels(self.spec.ladder_id, metrics.decision_outcome(outcome)).inc()

    @staticmethod
    def _apply_fallback(game: Any, seat: int, decision: dict[str, Any]) -> bool:
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
