"""Arena value types: ladders, members, match specs and results (JSON round-trippable, no I/O)."""

from __future__ import annotations

import enum
from array import array
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import engine
from engine.bots.names import describe_house_bot_names, is_house_bot_name
from engine.seeds import derive_seed
from engine.shapes import Record

# The graded house bots under the search bot, strongest first: the strength steps a ladder is measured by.
GRADED_HOUSE_BOTS = ("heuristic", "eps-0.2", "eps-0.4", "eps-0.6", "eps-0.8", "random")
# The search bot tops every default ladder. Its budget per game keeps the ladder's matches per minute at
# least half of what they were without it when matches are bound by CPU (a registered bot answering at
# once, two workers: tools.ladder_pace): 5 ms in Card Commons and Spot Hearts, whose matches cost the most
# search time; Sloppy Seconds needs 10 ms to stand clearly above its heuristic (docs/arena.md, "House bots").
LADDER_SEARCH_BOTS = {
    "sore-spot": "search-10",
    "card-commons": "search-5",
    "sloppy-seconds": "search-10",
    "spot-hearts": "search-5",
}
HOUSE_PREFIX = "house:"
PROTOCOL_VERSION = 1  # the bot protocol's version, sent in every request (docs/bot-protocol.md)
# The reference policy of duplicate matches: every game is also played by it in every seat, in-process, and
# a bot's score on a deal is its total minus the reference's in that seat (a control variate for the cards).
REFERENCE_BOT = "heuristic"


def house_bots_for(game: str) -> tuple[str, ...]:
    """The default house set of a ladder of ``game``, strongest first.

    >>> house_bots_for("card-commons")
    ('search-5', 'heuristic', 'eps-0.2', 'eps-0.4', 'eps-0.6', 'eps-0.8', 'random')
    """
    if game not in LADDER_SEARCH_BOTS:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(LADDER_SEARCH_BOTS)}")
    return (LADDER_SEARCH_BOTS[game], *GRADED_HOUSE_BOTS)


class MemberKind(enum.StrEnum):
    HOUSE = "house"  # an engine bot played in-process
    HTTP = "http"  # a registered bot with a URL: called over HTTP (protocol v1)
    POLL = "poll"  # a registered bot without URL: moves through the move API of a real table


class MatchStatus(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    RATED = "rated"
    VOID = "void"  # finished and recorded, but every bot forfeited: no winner, no rating change
    ABORTED = "aborted"
    PLAYED = "played"  # a challenge played to the end: recorded, never rated (core.arena.challenges)
    # A tournament's table played to the end while other tables of its round still play its deals: no seed,
    # replay or result shown until the round is over, then played (core.arena.tournament_store).
    HELD = "held"


# A match in one of these states is never played again and never changes (but a held table, published).
FINAL_STATUSES = (MatchStatus.RATED, MatchStatus.VOID, MatchStatus.ABORTED, MatchStatus.PLAYED,
                  MatchStatus.HELD)


@dataclass(frozen=True)
class Member:
    bot_id: str
    kind: MemberKind
    house_bot: str | None = None
    url: str | None = None
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: (v.value if isinstance(v, enum.Enum) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Member:
        return cls(data["bot_id"], MemberKind(data["kind"]), data.get("house_bot"), data.get("url"),
                   data.get("name"))

    @classmethod
    def house(cls, name: str) -> Member:
        return cls(f"{HOUSE_PREFIX}{name}", MemberKind.HOUSE, house_bot=name, name=name)


@dataclass(frozen=True)
class LadderConfig:
    ladder_id: str
    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    duplicate: bool | None = None  # None: on for 4-player ladders, off otherwise
    deadline_ms: int = 1000
    strike_limit: int = 5
    house_bots: tuple[str, ...] | None = None  # None: the game's default set (house_bots_for); () none
    max_active: int = 2  # concurrent matches the scheduler keeps queued/running for this ladder
    job_timeout_s: int = 3600
    # Matches of house bots only are paced (at most one per this many seconds per ladder): the house ladder
    # stays alive without burning every core; a table with a registered bot is never held back.
    house_only_gap_s: float = 3.0
    # A polling bot is seated only while present: holding a long-poll on its ladder-seats endpoint or having
    # called it within this many seconds (core/arena/presence.py). An absent one is skipped, without penalty.
    presence_s: float = 10.0

    def __post_init__(self) -> None:
        engine.validate_options(self.game, self.players, self.options)  # raises OptionsError
        if self.duplicate is None:
            object.__setattr__(self, "duplicate", self.players == 4)
        if self.house_bots is None:
            object.__setattr__(self, "house_bots", house_bots_for(self.game))
        unknown = [name for name in self.house_bots or () if not is_house_bot_name(name)]
        if unknown:  # the same names a table seats (engine.bots.names): a ladder plays them with make_bot
            raise ValueError(f"unknown house bot(s) {', '.join(map(repr, unknown))}; "
                             f"use {describe_house_bot_names()}")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["house_bots"] = list(self.house_bots or ())
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LadderConfig:
        data = dict(data)
        if "house_bots" in data:
            data["house_bots"] = tuple(data["house_bots"])
        return cls(**data)


def default_ladders(house_only_gap_s: float | None = None) -> list[LadderConfig]:
    """A 4-player ladder per game (duplicate on: 4 games, bots rotated, fresh deals against the reference);
    `house_only_gap_s` (the scheduler's: Settings) instead of the ladders' own default when given."""
    ladders = [LadderConfig(ladder_id=f"{game}-4p", game=game, players=4) for game in engine.GAMES]
    if house_only_gap_s is None:
        return ladders
    return [replace(ladder, house_only_gap_s=house_only_gap_s) for ladder in ladders]


@dataclass
class MatchSpec:
    match_id: str
    ladder_id: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    duplicate: bool
    entrants: list[Member]  # seat order of the first game
    deadline_ms: int
    strike_limit: int
    pre_ratings: dict[str, float]
    pre_matches: dict[str, int]
    created: float = 0.0
    # A challenge (core.arena.challenges): played like a ladder match, never rated, on no ladder's standings.
    challenge: bool = False
    game_count: int = 0  # games in the match when a challenge names it; 0: the ladder's format
    # A tournament's table (core.arena.tournament_store): the event's id; unrated, like a challenge.
    tournament: str = ""

    @property
    def games(self) -> int:
        """Games in the match: one per rotation of the bots through the seats if duplicate, else one (or the
        count a challenge names: game g seats the bots rotated g times)."""
        return self.game_count or (self.players if self.duplicate else 1)

    def game_seed(self, game_no: int) -> int:
        """The deal seed of game `game_no`: a fresh deal every game, never one a bot of the match has seen.

        The seeds are derived one way from the match's: a game's seed, published once it is over, says
        nothing about the deals of the games still to come.

        >>> spec = MatchSpec("m", "l", "spot-hearts", 4, {}, 7, True, [], 1000, 5, {}, {})
        >>> len({spec.game_seed(g) for g in range(spec.games)} | {spec.seed})
        5
        """
        return derive_seed("game", self.seed, game_no)

    def for_attempt(self, attempt: int) -> MatchSpec:
        """The spec a match's `attempt`-th run plays: the same, but on fresh deals after the first run.

        A run that dies part-way (worker killed, job timeout) has already shown its bots cards of its deals; a
        re-run on the same deals would hand them the other seats' cards.

        >>> spec = MatchSpec("m", "l", "sore-spot", 3, {}, 7, False, [], 1000, 5, {}, {})
        >>> spec.for_attempt(1).seed, spec.for_attempt(2).seed == spec.for_attempt(2).seed != 7
        (7, True)
        """
        return self if attempt <= 1 else replace(self, seed=rerun_seed(self.seed, attempt))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["entrants"] = [m.to_json() for m in self.entrants]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchSpec:
        data = dict(data)
        data["entrants"] = [Member.from_json(m) for m in data["entrants"]]
        return cls(**data)


def rerun_seed(seed: int, attempt: int) -> int:
    """Deal seed of re-run `attempt` (≥ 2) of a match seeded `seed`: deterministic, unrelated to `seed`."""
    return derive_seed("rerun", seed, attempt)  # below 2**53, like every seed the service publishes


@dataclass
class Strike:
    bot_id: str
    game_no: int
    version: int
    reason: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class BotCallStats:
    """Every call to one bot in a match, in order: (kind "wake"/"start"/"move"/"end", outcome, latency ms).

    Kept compact while the match plays (a code per call and its latency in arrays, not a tuple per call):
    hundreds of matches in flight each log hundreds of calls.

    >>> stats = BotCallStats()
    >>> stats.add("move", "ok", 12.34567)
    >>> stats.add("move", "timeout", 1000.0)
    >>> stats.calls, stats.move_calls, stats.latency_sum_ms
    ([('move', 'ok', 12.346), ('move', 'timeout', 1000.0)], 2, 1012.346)
    """

    def __init__(self) -> None:
        self._kinds: list[tuple[str, str]] = []  # (kind, outcome) pairs seen, by code
        self._codes = bytearray()
        self._latencies = array("d")

    def add(self, kind: str, outcome: str, latency_ms: float) -> None:
        pair = (kind, outcome)
        try:
            code = self._kinds.index(pair)
        except ValueError:
            code = len(self._kinds)
            self._kinds.append(pair)
        self._codes.append(code)
        self._latencies.append(round(latency_ms, 3))

    @property
    def calls(self) -> list[tuple[str, str, float]]:
        return [(*self._kinds[code], latency) for code, latency in zip(self._codes, self._latencies,
                                                                      strict=True)]

    def _moves(self) -> list[float]:
        """The latencies of the /move calls, read from the arrays (no tuple per call)."""
        return [latency for code, latency in zip(self._codes, self._latencies, strict=True)
                if self._kinds[code][0] == "move"]

    @property
    def move_calls(self) -> int:
        return len(self._moves())

    @property
    def latency_sum_ms(self) -> float:
        """Latency of /move calls only: the ladder's mean latency is about decisions."""
        return sum(self._moves())


@dataclass
class MatchResult:
    match_id: str
    # Aggregate over the match's games: the sum of each bot's game totals, each less the reference policy's
    # total in the same seat of the same deal in duplicate matches (`games[i]["baseline"]`).
    totals: dict[str, int]
    places: dict[str, float]  # 1 = best; forfeits last
    deltas: dict[str, float]
    winners: list[str]
    forfeited: list[str]
    strikes: list[Strike]
    calls: dict[str, BotCallStats]
    games: list[dict[str, Any]]  # per game: seating, totals, winners, version count
    records: list[Record]  # replay records (engine format), one per game
    seed: int  # the seed of this run's deals (a re-run's differs from the spec's): game g deals game_seed(g)
    rated: bool = True  # False: every bot forfeited; recorded with no winner and no rating change
    # Each bot's decision log (core.arena.decisions rows), kept apart from the public document: its owner's.
    decisions: dict[str, list[list[Any]]] = field(default_factory=dict)

    def summary_json(self) -> dict[str, Any]:
        return {
            "totals": self.totals, "places": self.places, "deltas": self.deltas, "winners": self.winners,
            "forfeited": self.forfeited, "strikes": [s.to_json() for s in self.strikes], "games": self.games,
            "seed": self.seed, "rated": self.rated,
            "calls": {bot: {"moves": s.move_calls, "latency_ms_sum": round(s.latency_sum_ms, 3),
                            "log": s.calls} for bot, s in self.calls.items()},
        }
