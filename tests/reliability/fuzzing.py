"""Schemathesis over every documented operation with real ids and every kind of token, so that each request
reaches the logic behind its front door; what each operation answered is kept, to show which it reached.

The world is the documented examples' (tests/api/docexamples.py): a ladder with a rated match, a registered
bot with its owner token, a finished table; to it are added an account, a challenge, analyses and a table in
each phase with a joined seat. Operations that destroy what they are given (delete a bot or a key, rotate a
key) get things of their own, so the operations after them still find theirs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig

from tests.api.docexamples import LADDER, OPERATOR_TOKEN, Placeholders, World

# Answers that say the request never got past the front door: no or a wrong token, no such thing, or slowed.
FRONT_DOOR = frozenset({401, 403, 404, 429})

# The refusals of a schema-valid request that the contract describes in words but no JSON schema can state,
# allowed by Schemathesis' positive_data_acceptance check: one place, a reason each.
EXCEPTIONS: dict[str, str] = {
    "POST /api/tables": "players must equal the seats and fit the game; options must be valid for that game "
                        "(422 bad-seats, invalid-options)",
    "POST /api/challenges": "players must equal the bots; a duplicate match's games a multiple of its "
                            "players; each bot named once, one of them the caller's (422 bad-challenge, 403, "
                            "409)",
    "GET /api/bots/{bot_id}/export": "a cursor is a token an earlier page handed out; `since` and `cursor` "
                                     "exclude each other (422 validation-failed)",
    "POST /api/tables/{table_id}/seats/{seat}/moves": "the move must fit the decision the seat faces now: "
                                                      "one card to play, N cards in the pass phase (400 "
                                                      "malformed-move, 409 stale-version, 422 illegal-move)",
    "GET /api/bots/{bot_id}/matches": "a bot on several ladders must name one (400 ladder-required)",
    "POST /api/account/bots/{bot_id}/adopt": "the owner token in the body must be the bot's (403)",
    "POST /api/tables/{table_id}/seats/{seat}/join": "a seat can be joined once (409 seat-taken)",
    "POST /api/matches/{match_id}/games/{game_no}/analysis": "the seat must be one of the game's (422)",
    "POST /api/tables/{table_id}/analysis": "the seat must be one of the table's (422)",
    "POST /api/admin/matches/{match_id}/void": "a match is voided once (409 match-not-voidable)",
    "POST /api/tournaments": "an account's event names at least a table's worth of bots (the operator's open "
                             "event may name none); swiss names `rounds`; each bot once (422 bad-tournament, "
                             "409, 429 tournament-quota-exceeded)",
    "POST /api/tournaments/{tournament_id}/entries": "an event takes entries until it starts, each bot once "
                                                     "(409 tournament-closed)",
}
ALLOWED = ["2xx", "400", "401", "403", "404", "409", "422", "429"]
# How a request that breaks the schema may be refused: Schemathesis' own list, and 413: a body over the API's
# size limit (MAX_CONTENT_LENGTH) is refused, as a problem, before its schema is read.
REJECTED = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
# Checks that cannot hold for an operation, with why.
CHECKS_OFF: dict[str, tuple[str, str]] = {
    "DELETE /api/bots/{bot_id}": ("ignored_auth", "the check asks again with a wrong token after the first "
                                                  "request deleted the bot: a bot that is gone is a 404"),
}


def config() -> SchemathesisConfig:
    accept = {"positive_data_acceptance": {"expected-statuses": ALLOWED}}
    operations = [{"include-name": name, "checks": accept} for name in EXCEPTIONS]
    operations += [{"include-name": name, "checks": {check: {"enabled": False}}}
                   for name, (check, _why) in CHECKS_OFF.items()]
    rejected = {"negative_data_rejection": {"expected-statuses": REJECTED}}
    return SchemathesisConfig.from_dict({"checks": rejected, "operations": operations})


def load_schema(app: Any) -> Any:
    """The OpenAPI document as `app` serves it, with the exceptions above."""
    return schemathesis.openapi.from_wsgi("/api/openapi.json", app, config=config())


@dataclass
class Targets:
    """What each operation is called with: path values, and a bearer token per security scheme; an
    operation named in `own` gets its own values instead (it destroys what it is given)."""

    path: dict[str, Any]
    tokens: dict[str, str]
    own: dict[str, dict[str, Any]] = field(default_factory=dict)
    # seat operations run once per table phase: (path values, seat token)
    seats: list[tuple[dict[str, Any], str]] = field(default_factory=list)

    def variants(self, operation: Any) -> list[tuple[dict[str, Any], dict[str, str]]]:
        """(path parameters, headers) for each run of `operation`."""
        names = [p.name for p in operation.path_parameters]
        scheme = security_scheme(operation)
        if scheme == "seatToken":  # the seat's state and moves: a table in each phase
            return [({n: path[n] for n in names}, bearer(token)) for path, token in self.seats]
        own = self.own.get(operation.label, {})
        values = {**self.path, **own}
        token = own.get(scheme) or self.tokens.get(scheme or "")
        return [({n: values[n] for n in names}, bearer(token) if token else {})]


def security_scheme(operation: Any) -> str | None:
    """The first bearer scheme the operation takes (None: it takes none)."""
    for requirement in operation.definition.raw.get("security", []):
        for scheme in requirement:
            return str(scheme)
    return None


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def targets(world: World) -> Targets:
    """Real ids and tokens from the world, with a table in each phase and things of their own for the
    operations that destroy theirs."""
    values = Placeholders(world)
    client = world.client
    account = client.post("/api/accounts").get_json()
    challenge = values["challenge_id"]
    seats = [table_in_phase(client, phase) for phase in ("waiting", "passing", "playing", "finished")]
    # An analysis of each kind exists, so their GETs find one.
    client.post(f"/api/matches/{world.match_id}/games/0/analysis?seat=0&budget_ms=10")
    client.post(f"/api/tables/{world.finished_table_id}/analysis?seat=0&budget_ms=10")
    doomed = client.post("/api/bots", json={"name": "fuzz-doomed", "games": ["sore-spot"]}).get_json()
    rotating, keyless = client.post("/api/accounts").get_json(), client.post("/api/accounts").get_json()
    adoptable = client.post("/api/bots", json={"name": "fuzz-adoptable", "games": ["sore-spot"]}).get_json()
    return Targets(
        path={"ladder_id": LADDER, "match_id": world.match_id, "game_no": 0,
              "bot_id": world.bot_id, "table_id": world.finished_table_id, "seat": 0,
              "game_id": "sore-spot", "challenge_id": challenge, "account_id": account["account_id"],
              "tournament_id": values["tournament_id"]},
        tokens={"ownerToken": world.bot_token, "apiKey": account["api_key"], "operatorToken": OPERATOR_TOKEN,
                "seatToken": seats[0][1]},
        own={"DELETE /api/bots/{bot_id}": {"bot_id": doomed["bot_id"], "ownerToken": doomed["owner_token"]},
             "POST /api/account/keys/rotate": {"apiKey": rotating["api_key"]},
             "DELETE /api/account/key": {"apiKey": keyless["api_key"]},
             "POST /api/account/bots/{bot_id}/adopt": {"bot_id": adoptable["bot_id"]},
             "POST /api/tables/{table_id}/seats/{seat}/join": {"table_id": table_with_open_seat(client)},
             # Entries are taken by an event open to them (the operator's), until its start.
             "POST /api/tournaments/{tournament_id}/entries": {
                 "tournament_id": values["open_tournament_id"]}},
        seats=seats)


def table_with_open_seat(client: Any) -> str:
    table = client.post("/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4,
                                             "options": {"target": 1}}).get_json()  # one hand ends it
    return str(table["table_id"])


def table_in_phase(client: Any, phase: str) -> tuple[dict[str, Any], str]:
    """A Spot Hearts table with seat 0 joined, in `phase`: waiting for players, passing, playing cards, or
    over; (its path values, seat 0's token)."""
    table_id = table_with_open_seat(client)
    join = 1 if phase == "waiting" else 4
    tokens = [client.post(f"/api/tables/{table_id}/seats/{seat}/join").get_json()["token"]
              for seat in range(join)]
    if phase in ("playing", "finished"):
        play_until(client, table_id, tokens, lambda state: state["status"] == "over" if phase == "finished"
                   else state["view"].get("phase") == "play" or state["status"] == "over")
    return {"table_id": table_id, "seat": 0}, tokens[0]


def play_until(client: Any, table_id: str, tokens: list[str], done: Callable[[dict[str, Any]], bool]) -> None:
    """Every seat plays its first legal move until `done` holds for seat 0's state."""
    for _ in range(400):
        state = client.get(f"/api/tables/{table_id}/seats/0", headers=bearer(tokens[0])).get_json()
        if done(state):
            return
        for seat, token in enumerate(tokens):
            seat_state = state if seat == 0 else client.get(f"/api/tables/{table_id}/seats/{seat}",
                                                            headers=bearer(token)).get_json()
            if seat_state.get("your_turn"):
                decision = seat_state["view"]["decision"]
                legal = seat_state["view"]["legal"]
                move = legal[:decision["count"]] if decision["kind"] == "pass" else legal[0]
                client.post(f"/api/tables/{table_id}/seats/{seat}/moves", headers=bearer(token),
                            json={"move": move, "expected_version": seat_state["version"]})
    raise AssertionError(f"table {table_id} never reached the phase asked for")


# Operations that destroy or change what later ones are given run last, in this order.
LAST = ("POST /api/admin/matches/{match_id}/void", "POST /api/admin/accounts/{account_id}/suspend",
        "POST /api/account/keys/rotate", "DELETE /api/account/key", "DELETE /api/bots/{bot_id}")


def in_order(schema: Any) -> Iterator[Any]:
    operations = [result.ok() for result in schema.get_all_operations()]
    yield from sorted(operations, key=lambda op: LAST.index(op.label) + 1 if op.label in LAST else 0)


@dataclass
class Report:
    """What each operation answered (status -> count), and each failed check."""

    statuses: dict[str, Counter[int]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def cases(self) -> int:
        return sum(sum(counts.values()) for counts in self.statuses.values())

    def reached(self) -> set[str]:
        """Operations that answered at least one request past the front door."""
        return {label for label, counts in self.statuses.items() if set(counts) - FRONT_DOOR}

    def server_errors(self) -> int:
        return sum(n for counts in self.statuses.values() for status, n in counts.items() if status >= 500)

    def summary(self) -> dict[str, Any]:
        return {"operations": len(self.statuses), "reached": len(self.reached()), "cases": self.cases,
                "server_errors": self.server_errors(), "failures": len(self.failures),
                "not_reached": sorted(set(self.statuses) - self.reached())}


def checked(call: Callable[[Any], Any], counts: Counter[int]) -> Callable[[Any], None]:
    """Send a case, count its answer's status, and run every check on the answer."""
    def run(case: Any) -> None:
        response = call(case)
        counts[response.status_code] += 1
        case.validate_response(response)

    return run


def fuzz(schema: Any, targets: Targets | None, call: Callable[[Any], Any], examples: int) -> Report:
    """Every operation, `examples` cases per generation mode (positive and negative) and per variant; with
    `targets` None, as a client with no ids and no tokens would (path values generated)."""
    report = Report()
    for operation in in_order(schema):
        counts = report.statuses.setdefault(operation.label, Counter())
        variants = targets.variants(operation) if targets else [(None, {})]
        for path, headers in variants:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                strategy = operation.as_strategy(mode, path_parameters=path, headers=headers or None)

                run = given(case=strategy)(settings(
                    max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))(checked(call, counts)))

                try:
                    run()
                except Unsatisfiable:  # nothing in it to break: every part is fixed (negative mode)
                    continue
                except (Exception, BaseExceptionGroup) as error:  # a failed check: kept, the others go on
                    report.failures.setdefault(operation.label, f"{mode.value}: {error}"[:2000])
    return report
