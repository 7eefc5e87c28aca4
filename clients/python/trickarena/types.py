"""Typed payloads: one dataclass per API response body, mirroring the service's marshmallow schemas.

Field names equal the schema's (``tests/clients/test_sdk_types.py`` checks them against ``api.schemas``), so
``Table.from_json(body)`` never loses a field. Unknown keys are ignored: a newer server may add fields.
Views stay plain dicts (typed as ``View``): they are the same dict an engine bot reads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Self, TypedDict

GAME_IDS = ("sore-spot", "card-commons", "sloppy-seconds", "spot-hearts")

Move = str | list[str]  # a card code ("QS"), or a list of card codes for a pass

# The values a view's enumerated fields take; GET /api/games/{game}/schema has each game's exact ones
# (tests/clients/test_sdk_view_types.py checks these types against those schemas).
GameId = Literal["sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"]
Phase = Literal["sore", "pass", "play", "over"]
PassDirection = Literal["left", "right", "across", "hold"]  # hold: a round without a pass
Suit = Literal["C", "D", "H", "S"]


class Decision(TypedDict):
    kind: Literal["pass", "sore", "play"]
    count: int  # 3 for a pass, else 1
    legal: list[str]


class TrickCard(TypedDict):
    seat: int
    card: str


class CurrentTrick(TypedDict):
    """The trick being played (``view["trick"]``): each card with its seat; ``leader`` None outside play."""

    leader: int | None
    cards: list[TrickCard]


class Trick(TypedDict):
    """A finished trick (``view["tricks"]``): plain codes in play order from the leader; ``winner`` None
    only for Sore Spot's all-Ace trick."""

    leader: int
    cards: list[str]
    winner: int | None


class RoundPoints(TypedDict):
    dealer: int
    points: list[int]


class View(TypedDict):
    """A seat's view: its own hand plus the public table; ``decision`` None and ``legal`` empty when it has
    nothing to decide. The optional keys belong to the games that have them."""

    game: GameId
    players: int
    options: dict[str, Any]
    version: int
    round: int
    dealer: int
    phase: Phase
    to_act: list[int]
    hand_sizes: list[int]
    trick: CurrentTrick
    tricks: list[Trick]
    scores: list[int]
    rounds: list[RoundPoints]
    over: bool
    winners: list[int]
    seat: int
    hand: list[str]
    decision: Decision | None
    legal: list[str]
    chosen: NotRequired[list[str]]  # games with a pass or a sore card: your choice, until every seat chose
    passed: NotRequired[list[str]]  # hearts games, after the pass
    received: NotRequired[list[str]]
    pass_direction: NotRequired[PassDirection]  # hearts games
    hearts_broken: NotRequired[bool]  # Spot Hearts
    trump: NotRequired[Suit | None]  # Sloppy Seconds
    broken: NotRequired[list[Suit]]  # Sloppy Seconds: suits broken, in order
    sore_cards: NotRequired[list[str | None]]  # Sore Spot: None until every seat has laid its card


class _Payload:
    """from_json / to_json for the dataclasses below."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**{key: value for key, value in data.items() if key in names})

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]


@dataclass(frozen=True)
class Problem(_Payload):
    """An RFC 9457 problem body (every API error)."""

    type: str = "about:blank"
    title: str = ""
    status: int = 0
    detail: str = ""
    legal: list[str] | None = None
    errors: dict[str, Any] | None = None
    resembles: str | None = None  # bot-name-reserved: the house name the refused name reads as
    pending: int | None = None  # analysis-share-exhausted: your analyses queued or running
    limit: int | None = None  # analysis-share-exhausted: the most one client address may have
    resource: str | None = None  # store-full: memory or disk
    match_status: str | None = None  # match-not-voidable: the status that made the match not voidable
    quota: str | None = None  # bot-quota-exceeded, challenge-quota-exceeded: which cap ("pending", ...)
    bot_id: str | None = None  # challenge-not-accepted: the bot that cannot be challenged


@dataclass(frozen=True)
class Game(_Payload):
    id: str
    name: str
    min_players: int
    max_players: int
    defaults: dict[str, Any]
    option_docs: dict[str, str]
    summary: str
    rules_url: str  # the full rules as a web page, relative to the service
    rules: str | None = None  # the full rules as Markdown (when one game is asked for)


@dataclass(frozen=True)
class SeatInfo(_Payload):
    seat: int
    kind: str  # open | house | bot
    joined: bool
    name: str | None = None


@dataclass(frozen=True)
class Table(_Payload):
    table_id: str
    game: str
    players: int
    options: dict[str, Any]
    seats: list[SeatInfo]
    status: str  # playing | over
    version: int
    to_act: list[int]
    seed_commitment: str
    view: dict[str, Any]
    created: float
    updated: float
    seed: int | None = None
    seed_nonce: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        table = super().from_json(data)
        return dataclasses.replace(table, seats=[SeatInfo.from_json(s) for s in data.get("seats", [])])

    @property
    def over(self) -> bool:
        return self.status == "over"


@dataclass(frozen=True)
class TableSummary(_Payload):
    table_id: str
    game: str
    status: str
    version: int


@dataclass(frozen=True)
class Join(_Payload):
    table_id: str
    seat: int
    token: str
    state_url: str
    moves_url: str


@dataclass(frozen=True)
class SeatState(_Payload):
    table_id: str
    seat: int
    version: int
    status: str
    to_act: list[int]
    your_turn: bool
    view: dict[str, Any]
    deadline: float | None = None

    @property
    def over(self) -> bool:
        return self.status == "over"


@dataclass(frozen=True)
class MoveResult(_Payload):
    version: int
    status: str
    to_act: list[int]


@dataclass(frozen=True)
class BotRecord(_Payload):
    bot_id: str
    name: str
    games: list[str]
    enabled: bool
    accepts_challenges: bool  # other owners may pick it for a challenge (PATCH to change)
    created: float
    updated: float
    url: str | None = None
    version: str | None = None  # GET /api/bots/{id}: the version it reports now
    versions: list[dict[str, Any]] | None = None  # GET /api/bots/{id}: rating line per version and ladder
    paused: bool | None = None  # GET /api/bots/{id}: out of matchmaking now (paused or benched)
    paused_reason: str | None = None  # GET /api/bots/{id}: why, e.g. "url_disallowed: ..."; else None
    present: bool | None = None  # GET /api/bots/{id}: a polling bot polls its seats now (a URL bot: None)
    # POST, and PATCH with a new url: the first health check of the URL ({outcome, ok, latency_ms, detail})
    probe: dict[str, Any] | None = None


@dataclass(frozen=True)
class BotCreated(BotRecord):
    owner_token: str = ""  # only for a bot registered without an account; "" for an account's bot


@dataclass(frozen=True)
class Account(_Payload):
    """An account as ``GET /api/account`` shows it to its key's holder."""

    account_id: str
    created: float
    disabled: bool
    has_key: bool
    bots: int
    quotas: dict[str, int]  # {"bots": cap in all, "bots_per_ladder": cap per ladder}
    key_created: float | None = None


@dataclass(frozen=True)
class AccountKey(Account):
    """An account with its API key: the answer to opening the account or rotating its key, the only times
    the key is ever shown."""

    api_key: str = ""


@dataclass(frozen=True)
class MoveRequest(_Payload):
    """The body of the arena's ``POST {url}/move`` (bot protocol v1)."""

    protocol: int
    game: str
    seat: int
    decision: dict[str, Any]
    view: dict[str, Any]
    legal: list[str]
    deadline_ms: int = 1000
    table: str | None = None
    match: str | None = None


@dataclass(frozen=True)
class BotInfo(_Payload):
    """The answer to the arena's ``GET {url}/``."""

    name: str
    author: str
    version: str
    games: list[str] = field(default_factory=lambda: list(GAME_IDS))


# --- arena: ladders, ratings, matches ------------------------------------------------------------------

@dataclass(frozen=True)
class Ladder(_Payload):
    ladder_id: str
    game: str
    players: int
    options: dict[str, Any]
    duplicate: bool
    deadline_ms: int
    strike_limit: int
    house_bots: list[str]
    presence_s: float
    members: int
    active_matches: int
    url: str


@dataclass(frozen=True)
class NewBot(_Payload):
    """A ladder member with no rated match yet: listed apart, not ranked."""

    bot_id: str
    rating: float
    matches: int  # rated matches played (a duplicate match is several games)
    completed: int  # rated matches finished without forfeiting: ranked from the first
    wins: int  # rated matches won: placed first without forfeiting
    strikes: int
    forfeits: int
    paused: bool
    history: str  # URL of the bot's rating history on this ladder
    provisional: bool  # fewer rated matches than a settled rating needs: shown with "?"
    uncertainty: float  # rough ± of the rating: 350 / sqrt(matches + 1)
    name: str | None = None
    kind: str | None = None  # house | http | poll; None: left the ladder
    mean_latency_ms: float | None = None
    win_share: float | None = None  # wins / matches; None before the first rated match
    version: str | None = None  # the version the bot reports now


@dataclass(frozen=True)
class RankedBot(NewBot):
    """A ranked row: a bot with at least one rated match, and its place among those."""

    rank: int = field(kw_only=True)


@dataclass(frozen=True)
class Ranking(_Payload):
    ladder: Ladder
    ranking: list[RankedBot]  # bots with a rated match, best first (this page's)
    new: list[NewBot]  # bots with none yet (this page's)
    offset: int  # position of the page's first row
    limit: int  # rows per page
    ranked_total: int  # bots ranked, on every page
    new_total: int  # new bots, on every page
    next: str | None = None  # URL of the next page; None on the last
    previous: str | None = None  # URL of the previous page; None on the first

    @property
    def next_offset(self) -> int | None:
        """The next page's ``offset`` (None on the last page)."""
        return None if self.next is None else self.offset + self.limit

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ranking:
        return cls(Ladder.from_json(data["ladder"]), [RankedBot.from_json(r) for r in data["ranking"]],
                   [NewBot.from_json(r) for r in data.get("new", [])], int(data["offset"]),
                   int(data["limit"]), int(data["ranked_total"]), int(data["new_total"]), data.get("next"),
                   data.get("previous"))


@dataclass(frozen=True)
class HistoryEntry(_Payload):
    match: str
    rating: float
    delta: float
    place: float
    at: float


@dataclass(frozen=True)
class BotHistory(_Payload):
    ladder_id: str
    bot_id: str
    history: list[HistoryEntry]
    rating: float | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotHistory:
        history = super().from_json(data)
        return dataclasses.replace(history, history=[HistoryEntry.from_json(h) for h in data["history"]])


@dataclass(frozen=True)
class MatchSummary(_Payload):
    match_id: str
    ladder_id: str
    status: str  # queued | running | rated | void | played (a challenge, a tournament table) | held | aborted
    game: str
    duplicate: bool
    entrants: list[str]
    attempts: int
    created: float
    replays: list[str]  # URLs of each game's replay record (once played to the end)
    url: str
    challenge: bool  # a challenge: unrated, on no ladder (ladder_id "")
    tournament: str | None = None  # the event this match is a table of (unrated, ladder_id "")
    seed: int | None = None
    finished: float | None = None
    aborted_because: str | None = None
    totals: dict[str, int] | None = None
    places: dict[str, float] | None = None
    deltas: dict[str, float] | None = None
    winners: list[str] | None = None
    forfeited: list[str] | None = None
    strikes: list[dict[str, Any]] | None = None
    calls: dict[str, Any] | None = None
    games: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class Challenge(_Payload):
    """An unrated match between chosen bots (``POST /api/challenges``, ``GET /api/challenges/{id}``)."""

    challenge_id: str  # also its match's id
    status: str  # queued | running | played | aborted
    challenger: str  # the challenger's bot
    game: str
    players: int
    games: int
    duplicate: bool
    options: dict[str, Any]
    bots: list[str]  # bot id per seat of game 0 (house bots as "house:NAME")
    names: list[str]
    created: float
    match: MatchSummary  # seed, places, totals, strikes and replays once played
    url: str
    match_url: str
    web_url: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Challenge:
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {key: value for key, value in data.items() if key in fields}
        values["match"] = MatchSummary.from_json(data["match"])
        return cls(**values)

    @property
    def over(self) -> bool:
        """Played to the end or aborted: it changes no more."""
        return self.status in ("played", "aborted")


@dataclass(frozen=True)
class LadderSeat(_Payload):
    """A polling bot's seat at a running ladder table (``GET /api/bots/{id}/ladder-seats``)."""

    table: str
    seat: int
    token: str
    match: str
    ladder: str
    game_no: int
    deadline_ms: int
    state_url: str
    moves_url: str
