"""Domain errors: what the shared stores refuse, with what a caller needs to act on it.

They know no HTTP: the API maps each class to a problem type (``api.problems.PROBLEMS``) and the arena decides
by class (a move that lost a race is a ``MoveConflict``). The store failing itself: ``core.redis.failures``.
"""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    """Base class. ``detail`` is written for the client; ``fields()`` are machine-readable extras: the
    attributes a class names in ``extras``, in that order, those that are set (not None)."""

    extras: ClassVar[tuple[str, ...]] = ()

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def fields(self) -> dict[str, Any]:
        return {name: value for name in self.extras if (value := getattr(self, name)) is not None}


# --- not found ---------------------------------------------------------------------------------------------
class NotFound(DomainError):
    """Something the caller named does not exist (or no longer does)."""


class TableNotFound(NotFound):
    def __init__(self, table_id: str) -> None:
        super().__init__(f"no table {table_id!r}")
        self.table_id = table_id


class SeatNotFound(NotFound):
    """``table_id`` names the table, or with ``what="match"`` a match's game ("m1 game 2")."""

    def __init__(self, table_id: str, seat: int, players: int | None = None, what: str = "table") -> None:
        seats = f" (seats 0 to {players - 1})" if players else ""
        super().__init__(f"{what} {table_id} has no seat {seat}{seats}")
        self.table_id = table_id
        self.seat = seat


class BotNotFound(NotFound):
    def __init__(self, bot_id: str) -> None:
        super().__init__(f"no bot {bot_id!r}")
        self.bot_id = bot_id


class AccountNotFound(NotFound):
    def __init__(self, account_id: str) -> None:
        super().__init__(f"no account {account_id!r}")
        self.account_id = account_id


class AnalysisNotFound(NotFound):
    def __init__(self) -> None:
        super().__init__("this analysis was never asked for (or has expired): POST to this URL to start it")


class LadderNotFound(NotFound):
    def __init__(self, ladder_id: str) -> None:
        super().__init__(f"no ladder {ladder_id!r}")
        self.ladder_id = ladder_id


class MatchNotFound(NotFound):
    """No such match; with ``recent_of``, the match a page of a ladder's recent matches starts after is not
    (or no longer) among them: the ladder keeps only its most recent matches."""

    def __init__(self, match_id: str, recent_of: str | None = None) -> None:
        super().__init__(f"no match {match_id!r}" if recent_of is None else
                         f"match {match_id!r} is not (or no longer) among the recent matches of ladder "
                         f"{recent_of!r}")
        self.match_id = match_id


class Expired(DomainError):
    """Something that existed and was deleted by the retention policy (docs/arena.md, "Retention")."""


class MatchExpired(Expired):
    """A finished match whose document the retention policy deleted (its ratings stay)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"match {match_id!r} finished and was deleted by the retention policy; its rating "
                         "changes stay in the ratings and in each bot's record")
        self.match_id = match_id


class ReplayExpired(Expired):
    """A finished match whose replays the retention policy deleted (its document and ratings stay)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(f"the replays of match {match_id!r} were deleted by the retention policy; the "
                         "match's result stays")
        self.match_id = match_id


class ChallengeNotFound(NotFound):
    def __init__(self, challenge_id: str) -> None:
        super().__init__(f"no challenge {challenge_id!r}")
        self.challenge_id = challenge_id


class MatchGameNotFound(NotFound):
    def __init__(self, match_id: str, games: int) -> None:
        super().__init__(f"match {match_id} has games 0..{games - 1}")
        self.match_id = match_id


class DecisionLogNotFound(NotFound):
    def __init__(self, match_id: str, bot_id: str) -> None:
        super().__init__(f"match {match_id} has no decision log of bot {bot_id}: it did not play in it")


class BotNotOnLadder(NotFound):
    """The bot has never been on the ladder (``ladder_id``), or on any ladder (None)."""

    def __init__(self, bot_id: str, ladder_id: str | None = None) -> None:
        where = f"ladder {ladder_id!r}" if ladder_id is not None else "a ladder"
        super().__init__(f"bot {bot_id!r} has never been on {where}")
        self.bot_id = bot_id


# --- tokens ------------------------------------------------------------------------------------------------
class TokenRequired(DomainError):
    """No token was given; ``kind`` is "seat", "owner" or "API key", ``realm`` what it protects ("seat",
    "bot" or "account")."""

    def __init__(self, kind: str, realm: str) -> None:
        noun = kind if kind.endswith("key") else f"{kind} token"
        super().__init__(f"send the {noun} as 'Authorization: Bearer <token>'")
        self.kind = kind
        self.realm = realm


class BadToken(DomainError):
    """A token was given but it does not hold what it was shown for."""


class AdminClosed(DomainError):
    """The admin API is closed: the operator set no token (``TA_ADMIN_TOKEN``)."""

    def __init__(self) -> None:
        super().__init__("the admin API is closed: this service has no operator token (TA_ADMIN_TOKEN)")


class AdminTokenRequired(TokenRequired):
    """An admin request without a bearer token."""

    def __init__(self) -> None:
        super().__init__("operator", "admin")


class AdminForbidden(DomainError):
    """A bearer token that is not the operator's (a bot owner's, a seat's, an account's or a wrong one)."""

    def __init__(self) -> None:
        super().__init__("this token is not the operator's token")


class AccountDisabled(BadToken):
    """The API key is the current key of an account an operator has disabled: it manages nothing until the
    account is enabled again."""

    def __init__(self, account_id: str) -> None:
        super().__init__(f"account {account_id} is disabled by the operator: its key manages nothing; "
                         "ask the operator why")
        self.account_id = account_id


class MetricsClosed(DomainError):
    """``/metrics`` is not served here: no operator token is set, or metrics have an address of their own."""


# --- requests the rules of the house refuse ----------------------------------------------------------------
class Invalid(DomainError):
    """A request whose content is refused; ``errors`` names the offending fields."""

    extras = ("errors",)

    def __init__(self, detail: str, errors: dict[str, list[str]] | None = None) -> None:
        super().__init__(detail)
        self.errors = errors or None


class BadSeats(Invalid):
    """The seats given do not fit the table (count, kinds, house bot names)."""


class UnknownGame(Invalid):
    def __init__(self, unknown: list[str], known: list[str], field: str = "games") -> None:
        super().__init__(f"unknown game(s) {', '.join(unknown)}; known: {', '.join(known)}",
                         errors={field: [f"unknown: {game}" for game in unknown]})
        self.unknown = unknown


class UnsafeURL(Invalid):
    """A bot URL the arena will not call (private address, bad scheme, ...)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, errors={"url": [reason]})


class BadChallenge(Invalid):
    """A challenge whose bots, game or format do not fit together (``errors`` names the field)."""


class LadderRequired(Invalid):
    """A bot on several ladders was asked about without saying which one."""

    def __init__(self, bot_id: str, ladders: list[str]) -> None:
        super().__init__(f"bot {bot_id!r} is on several ladders ({', '.join(ladders)}): "
                         "say which with ?ladder=")
        self.ladders = ladders


# --- conflicts with the current state ----------------------------------------------------------------------
class Conflict(DomainError):
    """The request does not fit the current state; re-reading the state tells why."""


class NameTaken(Conflict):
    def __init__(self, name: str) -> None:
        super().__init__(f"a bot named {name!r} is already registered")
        self.name = name


class NameReserved(Conflict):
    """The name reads as a house bot's (core.arena.names): ``resembles`` names which, or its family; or it
    reads as the name public views give a bot whose name the operator hid (``detail`` says so)."""

    extras = ("resembles",)

    def __init__(self, name: str, resembles: str, detail: str | None = None) -> None:
        super().__init__(detail or f"{name!r} reads as the house name {resembles!r}: house bot names, their "
                         "numbered families and look-alikes of them are reserved; choose another name")
        self.name = name
        self.resembles = resembles


class QuotaExceeded(Conflict):
    """A cap on registered bots is reached: ``quota`` names which (``per_address``, ``per_account`` or
    ``per_owner_per_ladder``), ``limit`` its value and ``game`` the ladder's game for a per-ladder cap."""

    extras = ("quota", "limit", "game")

    def __init__(self, detail: str, quota: str, limit: int, game: str | None = None) -> None:
        super().__init__(detail)
        self.quota = quota
        self.limit = limit
        self.game = game


class ChallengeNotAccepted(Conflict):
    """A bot of another owner that does not take challenges (its owner has not set ``accepts_challenges``),
    or one that cannot play now (disabled, suspended): ``bot_id`` names it."""

    extras = ("bot_id",)

    def __init__(self, bot_id: str, why: str) -> None:
        super().__init__(f"bot {bot_id} cannot be challenged: {why}")
        self.bot_id = bot_id


class SeatNotOpen(Conflict):
    def __init__(self, seat: int, kind: str) -> None:
        super().__init__(f"seat {seat} is played by a {kind} bot")
        self.seat = seat


class SeatTaken(Conflict):
    def __init__(self, seat: int) -> None:
        super().__init__(f"seat {seat} has already been joined")
        self.seat = seat


class GameNotOver(Conflict):
    def __init__(self, detail: str = "the replay record is published when the game is over") -> None:
        super().__init__(detail)


class UnknownDealing(Conflict):
    """A stored table states a dealing version this service does not deal (docs/deals.md), or none."""

    def __init__(self, table_id: str, dealing: object) -> None:
        said = "states no dealing version" if dealing is None else f"is dealt by dealing version {dealing!r}"
        super().__init__(f"table {table_id} {said}; this service deals version 2 only")
        self.table_id = table_id
        self.dealing = dealing


class MatchNotPublished(Conflict):
    """Replays hold every hand, so a match's are published only once it has been played to the end."""

    def __init__(self, match_id: str, status: str) -> None:
        super().__init__(f"match {match_id} is {status}; replays are published when it has been played "
                         "to the end (rated or void)")
        self.match_id = match_id


class MatchNotVoidable(Conflict):
    """Only a rated match can be voided by an operator: ``match_status`` is the match's (``void`` when it is
    void already, by the operator (``voided``) or because every bot forfeited)."""

    extras = ("match_status",)

    def __init__(self, match_id: str, status: str, voided: bool = False) -> None:
        if voided:
            why = "it has been voided already"
        elif status == "void":
            why = "it is void already (every bot forfeited: it moved no rating)"
        else:
            why = f"it is {status}; only a rated match can be voided"
        super().__init__(f"match {match_id} cannot be voided: {why}")
        self.match_id = match_id
        self.match_status = status


class MoveConflict(Conflict):
    """A move that no longer fits the table: it moved on, or is over. Nothing changed; re-read and decide."""

    extras = ("legal", "version")
    legal: list[Any] | None = None  # None: not said; [] when nothing may be played now
    version: int | None = None


class TableOver(MoveConflict):
    def __init__(self) -> None:
        super().__init__("the game is over")
        self.legal = []


class NotYourTurn(MoveConflict):
    def __init__(self, seat: int, to_act: list[int], version: int) -> None:
        waiting = ", ".join(map(str, to_act))
        super().__init__(f"seat {seat} has nothing to decide now (waiting for seat(s) {waiting})")
        self.seat = seat
        self.legal = []
        self.version = version


class StaleVersion(MoveConflict):
    """The mover's version is not one of its current decision: older (stale), or ahead of the table.

    >>> error = StaleVersion("t1", expected=999, version=5, since=4)
    >>> isinstance(error, MoveConflict), error.fields(), str(error).split(":")[0]
    (True, {'version': 5}, 'expected_version 999 is ahead of the table')
    """

    def __init__(self, table_id: str, expected: int, version: int, since: int) -> None:
        what = "is ahead of the table" if expected > version else "is stale"
        super().__init__(f"expected_version {expected} {what}: the table is at version {version} and this "
                         f"decision was opened at version {since}; fetch the state again")
        self.table_id = table_id
        self.version = version


class TableBusy(MoveConflict):
    def __init__(self) -> None:
        super().__init__("the table kept changing while this move was applied; retry")


# --- refused for now: retry later ---------------------------------------------------------------------------
class RetryLater(DomainError):
    """Refused for now, not for good: asking again after ``retry_after`` seconds (at least 1) may succeed."""

    retry_after: int = 1

    def __init__(self, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        if retry_after is not None:
            self.retry_after = max(1, retry_after)


class TooManyMovePosts(RetryLater):
    """A seat's poster went over its move posts at one table version (``core.tables.store.PostLimit``)."""

    def __init__(self, seat: int, limit: int, retry_after: int) -> None:
        retry_after = max(1, retry_after)
        super().__init__(f"{limit} move posts on seat {seat} at this table version already (the limit: one "
                         f"decision at a time needs far fewer); retry in {retry_after} s or once the table "
                         "moves", retry_after)
        self.seat = seat
        self.limit = limit


class RateLimited(RetryLater):
    """A client address went over a per-address limit (``limit`` as the limits library writes it, e.g.
    ``20 per 1 minute``); its window resets in ``retry_after`` seconds."""

    def __init__(self, limit: str, retry_after: int) -> None:
        super().__init__(f"rate limit exceeded ({limit}); retry after the Retry-After delay", retry_after)
        self.limit = limit


class ChallengeQuotaExceeded(RetryLater):
    """One owner has its share of challenges: ``quota`` is ``pending`` (queued or running at once) or
    ``per_day`` (created this UTC day), ``limit`` its value."""

    extras = ("quota", "limit")

    def __init__(self, quota: str, limit: int, retry_after: int) -> None:
        what = ("challenges queued or running at once" if quota == "pending"
                else "challenges created in one UTC day")
        super().__init__(f"this owner has reached its {limit} {what}; retry in {retry_after} s", retry_after)
        self.quota = quota
        self.limit = limit


class QueueFull(RetryLater):
    """Too many jobs of one kind (``what``) are queued or running, of all clients: the most the arena runs."""

    what: ClassVar[str]

    def __init__(self, pending: int, retry_after: int) -> None:
        super().__init__(f"{pending} {self.what} are queued or running, the most the arena takes at once; "
                         f"retry in {retry_after} s", retry_after)


class ChallengeQueueFull(QueueFull):
    what = "challenges"


class AnalysisQueueFull(QueueFull):
    what = "game analyses"


class AnalysisShareExhausted(RetryLater):
    """One client address has its share of the analysis queue pending (the problem carries ``pending`` and
    ``limit``)."""

    extras = ("pending", "limit")

    def __init__(self, pending: int, limit: int, retry_after: int) -> None:
        super().__init__(f"{pending} of your game analyses are queued or running, the most one client "
                         f"address may have at once ({limit}); retry in {retry_after} s, or once one of them "
                         "is done", retry_after)
        self.pending = pending
        self.limit = limit


# --- tournaments --------------------------------------------------------------------------------------------
class TournamentNotFound(NotFound):
    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"no tournament {tournament_id!r}")
        self.tournament_id = tournament_id


class BadTournament(Invalid):
    """A tournament whose format, field or limits do not fit together (``errors`` names the field)."""


class TournamentClosed(Conflict):
    """The tournament takes no such change now: entry closed (started, full, invited only) or a bot already
    entered (``bot_id`` names it)."""

    extras = ("bot_id",)

    def __init__(self, detail: str, bot_id: str | None = None) -> None:
        super().__init__(detail)
        self.bot_id = bot_id


class TournamentQuotaExceeded(RetryLater):
    """One account has its share of tournaments: ``quota`` is ``active`` (open or running at once) or
    ``per_day`` (created this UTC day), ``limit`` its value."""

    extras = ("quota", "limit")

    def __init__(self, quota: str, limit: int, retry_after: int) -> None:
        what = ("tournaments open or running at once" if quota == "active"
                else "tournaments created in one UTC day")
        super().__init__(f"this account has reached its {limit} {what}; retry in {retry_after} s",
                         retry_after)
        self.quota = quota
        self.limit = limit
