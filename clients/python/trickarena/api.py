"""``ArenaClient``: every public endpoint of the Trick Arena API as a typed method. ``ENDPOINTS`` maps each
public route of the service's OpenAPI document to the method that calls it (tests hold it to the document).

Design: docs/sdk.md#the-api-client
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from trickarena.http import NETWORK_ERRORS, ApiUnavailable, JsonHttp
from trickarena.types import (
    Account,
    AccountKey,
    BotCreated,
    BotHistory,
    BotRecord,
    Challenge,
    Game,
    Join,
    Ladder,
    LadderSeat,
    MatchSummary,
    Move,
    MoveResult,
    Ranking,
    SeatState,
    Table,
    TableSummary,
)

LONG_POLL_MAX_S = 30.0
EXPORT_PAGE = 100  # matches per answer of a bot's export: the service's most

# Route -> the method calling it (the JavaScript SDK's `ENDPOINTS` in clients/js/src/http.js is the same
# table with its own method names).
ENDPOINTS: dict[str, str] = {
    "GET /api/health": "health",
    "GET /api/games": "games",
    "GET /api/games/{game_id}": "game",
    "GET /api/games/{game_id}/schema": "game_schema",
    "POST /api/tables": "create_table",
    "GET /api/tables": "tables",
    "GET /api/tables/{table_id}": "table",
    "GET /api/tables/{table_id}/replay": "replay",
    "POST /api/tables/{table_id}/seats/{seat}/join": "join",
    "GET /api/tables/{table_id}/seats/{seat}": "seat_state",
    "POST /api/tables/{table_id}/seats/{seat}/moves": "move",
    "POST /api/tables/{table_id}/analysis": "request_analysis",
    "GET /api/tables/{table_id}/analysis": "analysis",
    "POST /api/bots": "register_bot",
    "GET /api/bots": "bots",
    "GET /api/bots/{bot_id}": "bot",
    "PATCH /api/bots/{bot_id}": "update_bot",
    "DELETE /api/bots/{bot_id}": "delete_bot",
    "GET /api/bots/{bot_id}/ladder-seats": "watch_ladder_seats",
    "GET /api/bots/{bot_id}/matches": "bot_matches",
    "GET /api/bots/{bot_id}/export": "export_matches",
    "POST /api/accounts": "create_account",
    "GET /api/account": "account",
    "GET /api/account/bots": "account_bots",
    "POST /api/account/bots/{bot_id}/adopt": "adopt_bot",
    "POST /api/account/keys/rotate": "rotate_key",
    "DELETE /api/account/key": "revoke_key",
    "GET /api/ladders": "ladders",
    "GET /api/ladders/{ladder_id}": "ranking",
    "GET /api/ladders/{ladder_id}/bots/{bot_id}/history": "bot_history",
    "GET /api/ladders/{ladder_id}/matches": "recent_matches",
    "GET /api/matches/{match_id}": "match",
    "GET /api/matches/{match_id}/live": "live_match",
    "GET /api/matches/{match_id}/games/{game_no}/replay": "match_replay",
    "GET /api/matches/{match_id}/bots/{bot_id}/decisions": "decisions",
    "POST /api/matches/{match_id}/games/{game_no}/analysis": "request_analysis",
    "GET /api/matches/{match_id}/games/{game_no}/analysis": "analysis",
    "POST /api/challenges": "challenge",
    "GET /api/challenges/{challenge_id}": "get_challenge",
    "POST /api/tournaments": "create_tournament",
    "GET /api/tournaments/{tournament_id}": "tournament",
    "GET /api/tournaments/{tournament_id}/standings": "tournament_standings",
    "POST /api/tournaments/{tournament_id}/entries": "enter_tournament",
}


class ArenaClient:
    """The API at `base_url`, one method per public endpoint (a live service answers them).

    >>> api = ArenaClient("http://127.0.0.1:8000")  # doctest: +SKIP
    >>> table = api.create_table("spot-hearts", ["open", "heuristic", "random", "random"])  # doctest: +SKIP
    >>> seat = api.join(table.table_id, 0)  # doctest: +SKIP
    >>> state = api.seat_state(table.table_id, 0, seat.token, after=-1, wait=25)  # doctest: +SKIP
    """

    def __init__(self, base_url: str, timeout: float = 40.0, retries: int = 6) -> None:
        self.http = JsonHttp(base_url, timeout=timeout, retries=retries)

    @property
    def base_url(self) -> str:
        return self.http.base_url

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- games and tables ---------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        """``{status: ok|degraded, redis, refusing_writes}``: is the service up and its store writable."""
        return self.http.request("GET", "/api/health")

    def games(self) -> list[Game]:
        return [Game.from_json(g) for g in self.http.request("GET", "/api/games")]

    def game(self, game_id: str) -> Game:
        """One game, with its full rules as Markdown (``rules``)."""
        return Game.from_json(self.http.request("GET", f"/api/games/{game_id}"))

    def game_schema(self, game_id: str) -> dict[str, Any]:
        """The game's JSON Schema document (its view, what ``choose`` receives, and its moves)."""
        return self.http.request("GET", f"/api/games/{game_id}/schema")

    def create_table(self, game: str, seats: list[str], options: dict[str, Any] | None = None,
                     token: str | None = None) -> Table:
        """Seats: "open" (join it for a token), a house bot name (random, heuristic, search, eps-X or
        search-MS) or "bot:<bot id>", a registered bot that accepts challenges, or one `token` (its owner
        token or account API key) manages; a table with a registered bot keeps an open seat."""
        body = {"game": game, "seats": seats, "options": options or {}}
        return Table.from_json(self.http.request("POST", "/api/tables", body, token=token))

    def tables(self, limit: int = 50) -> list[TableSummary]:
        return [TableSummary.from_json(t) for t in self.http.request("GET", "/api/tables",
                                                                     params={"limit": limit})]

    def table(self, table_id: str) -> Table:
        return Table.from_json(self.http.request("GET", f"/api/tables/{table_id}"))

    def replay(self, table_id: str) -> dict[str, Any]:
        """The engine's replay record of a finished table (409 while it is still playing)."""
        return self.http.request("GET", f"/api/tables/{table_id}/replay")

    # --- seats --------------------------------------------------------------------------------------------

    def join(self, table_id: str, seat: int) -> Join:
        return Join.from_json(self.http.request("POST", f"/api/tables/{table_id}/seats/{seat}/join"))

    def seat_state(self, table_id: str, seat: int, token: str, after: int | None = None,
                   wait: float = 0.0) -> SeatState:
        """The seat's state; with ``after`` and ``wait`` a long-poll until the version exceeds ``after``."""
        wait = min(max(wait, 0.0), LONG_POLL_MAX_S)
        params = {"after": after, "wait": wait if after is not None and wait > 0 else None}
        body = self.http.request("GET", f"/api/tables/{table_id}/seats/{seat}", params=params, token=token,
                                 timeout=max(self.http.timeout, wait + 10))
        return SeatState.from_json(body)

    def move(self, table_id: str, seat: int, token: str, move: Move, expected_version: int) -> MoveResult:
        body = {"move": move, "expected_version": expected_version}
        return MoveResult.from_json(self.http.request("POST", f"/api/tables/{table_id}/seats/{seat}/moves",
                                                      body, token=token))

    # --- bot registry -------------------------------------------------------------------------------------

    def register_bot(self, name: str, games: list[str], url: str | None = None,
                     key: str | None = None) -> BotCreated:
        """Register a bot (with a URL the arena calls, or none for a polling bot). With an account's API
        `key` the bot belongs to the account and the key manages it; without one, keep the owner token."""
        body: dict[str, Any] = {"name": name, "games": games}
        if url:
            body["url"] = url
        return BotCreated.from_json(self.http.request("POST", "/api/bots", body, token=key))

    def bots(self, game: str | None = None) -> list[BotRecord]:
        return [BotRecord.from_json(b) for b in self.http.request("GET", "/api/bots", params={"game": game})]

    def bot(self, bot_id: str) -> BotRecord:
        return BotRecord.from_json(self.http.request("GET", f"/api/bots/{bot_id}"))

    def update_bot(self, bot_id: str, owner_token: str, **changes: Any) -> BotRecord:
        """Change `games`, `url`, `enabled` or `accepts_challenges`; `owner_token` is the bot's owner token or
        its account's key."""
        return BotRecord.from_json(self.http.request("PATCH", f"/api/bots/{bot_id}", changes,
                                                     token=owner_token))

    def delete_bot(self, bot_id: str, owner_token: str) -> None:
        """Delete the bot; `owner_token` is the bot's owner token or its account's key."""
        self.http.request("DELETE", f"/api/bots/{bot_id}", token=owner_token)

    # --- accounts -----------------------------------------------------------------------------------------

    def create_account(self) -> AccountKey:
        """Open an account: the answer's ``api_key`` is shown this once. Never retried (a lost answer's
        key would be unreachable); a 429 means this address opened its share of accounts for now."""
        return AccountKey.from_json(self.http.request("POST", "/api/accounts", retry=False))

    def account(self, key: str) -> Account:
        return Account.from_json(self.http.request("GET", "/api/account", token=key))

    def account_bots(self, key: str) -> list[BotRecord]:
        """The bots of the key's account, oldest first."""
        return [BotRecord.from_json(b) for b in self.http.request("GET", "/api/account/bots", token=key)]

    def adopt_bot(self, bot_id: str, key: str, owner_token: str) -> BotRecord:
        """Move a bot registered without an account into the key's account; its owner token stops working."""
        return BotRecord.from_json(self.http.request("POST", f"/api/account/bots/{bot_id}/adopt",
                                                     {"owner_token": owner_token}, token=key))

    def rotate_key(self, key: str) -> AccountKey:
        """A new API key (in the answer, this once); `key` stops working. Never retried."""
        return AccountKey.from_json(self.http.request("POST", "/api/account/keys/rotate", token=key,
                                                      retry=False))

    def revoke_key(self, key: str) -> None:
        """`key` stops working and the account has none until the operator issues one; its bots stay."""
        self.http.request("DELETE", "/api/account/key", token=key)

    # --- arena: ladders, ratings, matches -----------------------------------------------------------------

    def bot_matches(self, bot_id: str, ladder: str | None = None, limit: int | None = None,
                    cursor: int | None = None) -> dict[str, Any]:
        """A bot's own record on a ladder (its only one when `ladder` is omitted): its finished matches,
        newest first, with its strikes; a page ``{matches, next_cursor, next}`` (pass ``next_cursor`` as
        `cursor` for the next, until it is None)."""
        return self.http.request("GET", f"/api/bots/{bot_id}/matches",
                                 params={"ladder": ladder, "limit": limit, "cursor": cursor})

    def export_matches(self, bot_id: str, *, since: float | None = None, cursor: str | None = None,
                       limit: int = EXPORT_PAGE) -> Iterator[dict[str, Any]]:
        """Every finished match of the bot (ladder matches and challenges), oldest first, each with its replay
        records: the lines of ``GET /api/bots/{id}/export``, page after page to the end. `since` (a unix
        time) starts after it; `cursor` (a line's ``cursor``) goes on after that match."""
        for line in self.export_lines(bot_id, since=since, cursor=cursor, limit=limit):
            yield json.loads(line)

    def export_lines(self, bot_id: str, *, since: float | None = None, cursor: str | None = None,
                     limit: int = EXPORT_PAGE) -> Iterator[str]:
        """The same matches as the JSON text of each line (no newline), as the service sent it. An answer
        cut off is asked for again from its last line's cursor (up to the client's retries)."""
        params: dict[str, Any] = {"since": since, "cursor": cursor, "limit": limit}
        failures = 0
        while True:
            more = False
            try:
                with self.http.stream_lines(f"/api/bots/{bot_id}/export", params) as (lines, headers):
                    more = 'rel="next"' in headers.get("link", "")
                    for line in lines:
                        params = {"cursor": line_cursor(line), "limit": limit}
                        failures = 0
                        yield line
            except NETWORK_ERRORS as exc:
                failures += 1
                if failures > self.http.retries:
                    raise ApiUnavailable(f"GET /api/bots/{bot_id}/export: {exc!r}") from exc
                self.http.sleep(self.http._delay(failures - 1, None))
                continue
            if not more:
                return

    def ladder_seats(self, bot_id: str, owner_token: str, version: str | None = None) -> list[LadderSeat]:
        """A polling bot's seats at running ladder tables, with their seat tokens (owner token required).

        With `version` the bot declares its version: its matches are rated under it (a new rating line)."""
        return self.watch_ladder_seats(bot_id, owner_token, version=version)[0]

    def watch_ladder_seats(self, bot_id: str, owner_token: str, after: int | None = None,
                           wait: float = 0.0, version: str | None = None) -> tuple[list[LadderSeat], int]:
        """The bot's ladder seats and their version; with ``after`` and ``wait`` a long-poll until the seats
        change from version ``after`` (the version answered last time). Holding it keeps the bot present.
        With `version` the bot declares its version, as in :meth:`ladder_seats`."""
        wait = min(max(wait, 0.0), LONG_POLL_MAX_S)
        params = {"after": after, "wait": wait if after is not None and wait > 0 else None,
                  "version": version}
        body, headers = self.http.request_with_headers("GET", f"/api/bots/{bot_id}/ladder-seats",
                                                       params=params, token=owner_token,
                                                       timeout=max(self.http.timeout, wait + 10))
        return [LadderSeat.from_json(s) for s in body], int(headers.get("x-seats-version", 0))

    def ladders(self) -> list[Ladder]:
        return [Ladder.from_json(lad) for lad in self.http.request("GET", "/api/ladders")]

    def ranking(self, ladder_id: str, *, limit: int | None = None, offset: int | None = None) -> Ranking:
        """One page of the ladder's ranking (100 rows by default, at most 500): the ranked bots, then the
        new ones; ``next_offset`` is the next page's ``offset`` (None on the last)."""
        params = {"limit": limit, "offset": offset}
        return Ranking.from_json(self.http.request("GET", f"/api/ladders/{ladder_id}", params=params))

    def bot_history(self, ladder_id: str, bot_id: str) -> BotHistory:
        path = f"/api/ladders/{ladder_id}/bots/{bot_id}/history"
        return BotHistory.from_json(self.http.request("GET", path))

    def recent_matches(self, ladder_id: str) -> list[MatchSummary]:
        body = self.http.request("GET", f"/api/ladders/{ladder_id}/matches")
        return [MatchSummary.from_json(m) for m in body["matches"]]

    def match(self, match_id: str) -> MatchSummary:
        return MatchSummary.from_json(self.http.request("GET", f"/api/matches/{match_id}"))

    def live_match(self, match_id: str) -> dict[str, Any]:
        """The public table of the game a match is playing now (no hands, no seed); poll it."""
        return self.http.request("GET", f"/api/matches/{match_id}/live")

    def match_replay(self, match_id: str, game_no: int = 0) -> dict[str, Any]:
        """The engine's replay record of one game of a rated match."""
        return self.http.request("GET", f"/api/matches/{match_id}/games/{game_no}/replay")

    def decisions(self, match_id: str, bot_id: str, token: str, game: int | None = None) -> dict[str, Any]:
        """Every decision of your bot in a finished match (its owner token or account key): per decision the
        request it was sent, its raw answer, ``latency_ms``, ``outcome`` ("ok" or the failure that struck
        it), ``detail`` and the ``move`` the game took (``fallback`` when the arena played it); ``game``
        for one game only."""
        return self.http.request("GET", f"/api/matches/{match_id}/bots/{bot_id}/decisions",
                                 params={"game": game}, token=token)

    # --- challenges: unrated matches between chosen bots ----------------------------------------------

    def challenge(self, token: str, game: str, bots: list[str], *, games: int | None = None,
                  duplicate: bool | None = None, options: dict[str, Any] | None = None) -> Challenge:
        """Challenge: one unrated match between `bots` (bot ids, or house bot names), seat order of game 0.
        `token`: the owner token of one of them (or its account's API key); the other bots must be yours or
        accept challenges. Never retried (a lost answer's challenge would still be played, and counted)."""
        body: dict[str, Any] = {"game": game, "bots": bots, "options": options or {}}
        if games is not None:
            body["games"] = games
        if duplicate is not None:
            body["duplicate"] = duplicate
        answer = self.http.request("POST", "/api/challenges", body, token=token, retry=False)
        return Challenge.from_json(answer)

    def get_challenge(self, challenge_id: str) -> Challenge:
        """A challenge and its match (poll until ``.over``; results and replays once ``played``)."""
        return Challenge.from_json(self.http.request("GET", f"/api/challenges/{challenge_id}"))

    # --- tournaments ---------------------------------------------------------------------------------------

    def create_tournament(self, key: str, game: str, format: str, bots: list[str], *,  # noqa: A002
                          rounds: int | None = None, **fields: Any) -> dict[str, Any]:
        """A round-robin or Swiss event (``format``) of ``bots`` (your account's, others' accepting
        challenges, house bot names); ``key``: the account's API key (or the operator's token, which may
        add ``entry="open", starts_at=..., field_limit=...``). Other ``fields``: ``players``, ``meetings``,
        ``name``, ``options``, ``max_tables``. Never retried (a lost answer's event would still run)."""
        body: dict[str, Any] = {"game": game, "format": format, "bots": bots, **fields}
        if rounds is not None:
            body["rounds"] = rounds
        answer: dict[str, Any] = self.http.request("POST", "/api/tournaments", body, token=key, retry=False)
        return answer

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        """The event: its field, each round's tables (``places`` once the round is over) and standings."""
        answer: dict[str, Any] = self.http.request("GET", f"/api/tournaments/{tournament_id}")
        return answer

    def tournament_standings(self, tournament_id: str) -> dict[str, Any]:
        """``{tournament_id, status, rounds_done, standings}``, best first."""
        answer: dict[str, Any] = self.http.request("GET", f"/api/tournaments/{tournament_id}/standings")
        return answer

    def enter_tournament(self, tournament_id: str, bot_id: str, token: str) -> dict[str, Any]:
        """Enter your bot in an open event before its start (its owner token or account key)."""
        answer: dict[str, Any] = self.http.request("POST", f"/api/tournaments/{tournament_id}/entries",
                                                   {"bot": bot_id}, token=token, retry=False)
        return answer

    # --- analysis of a finished game --------------------------------------------------------------------

    def request_analysis(self, seat: int, *, match_id: str | None = None, game_no: int = 0,
                         table_id: str | None = None, budget_ms: int | None = None) -> dict[str, Any]:
        """Ask for the analysis of ``seat`` in a finished game (a match's ``game_no``, or a table): the state
        ``{status, progress: {done, total}, result?, reason?, url}``; poll :meth:`analysis` until ``status``
        is ``done`` or ``failed``. Asking again joins the same analysis."""
        return self.http.request("POST", _analysis_path(match_id, game_no, table_id),
                                 params={"seat": seat, "budget_ms": budget_ms})

    def analysis(self, seat: int, *, match_id: str | None = None, game_no: int = 0,
                 table_id: str | None = None, budget_ms: int | None = None) -> dict[str, Any]:
        """The state of an analysis asked for with :meth:`request_analysis` (the same arguments)."""
        return self.http.request("GET", _analysis_path(match_id, game_no, table_id),
                                 params={"seat": seat, "budget_ms": budget_ms})

    # --- anything else (ladders, matches): the raw JSON ---------------------------------------------------

    def get(self, path: str, **params: Any) -> Any:
        return self.http.request("GET", path, params=params)


def _analysis_path(match_id: str | None, game_no: int, table_id: str | None) -> str:
    if (match_id is None) == (table_id is None):
        raise ValueError("give exactly one of match_id (with game_no) and table_id")
    if match_id is not None:
        return f"/api/matches/{match_id}/games/{game_no}/analysis"
    return f"/api/tables/{table_id}/analysis"


def line_cursor(line: str) -> str:
    """The ``cursor`` of an export line, which the service writes first, read without decoding the line.

    >>> line_cursor('{"cursor":"eyJzcyI6MX0","match_id":"m1","records":[]}')
    'eyJzcyI6MX0'
    """
    head = '{"cursor":"'
    if not line.startswith(head):
        return str(json.loads(line)["cursor"])
    return line[len(head):line.index('"', len(head))]
