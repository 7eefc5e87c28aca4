"""OpenAPI links: what a client may call next with what an answer gave it (a new table's id, a seat's token,
a bot's owner token), so generated clients, the API docs and Schemathesis' stateful phase follow the flow.

Design: docs/api.md#links
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apispec import BasePlugin

BODY = "$response.body#/"


@dataclass(frozen=True)
class Link:
    """From an answer of `source` ("METHOD /path") with `status` to the operation `target`, its parameters
    filled by runtime expressions (or constants); `bearer`: the expression of the token it sends."""

    source: str
    status: str
    name: str
    target: str
    parameters: dict[str, Any] = field(default_factory=dict)
    bearer: str | None = None
    description: str = ""

    def document(self) -> dict[str, Any]:
        method, path = self.target.split(" ", 1)
        parameters = dict(self.parameters)
        if self.bearer:
            parameters["header.Authorization"] = f"Bearer {{{self.bearer}}}"
        link: dict[str, Any] = {"operationRef": operation_ref(method, path), "parameters": parameters}
        if self.description:
            link["description"] = self.description
        return link


def operation_ref(method: str, path: str) -> str:
    """A JSON pointer to the operation in this document.

    >>> operation_ref("GET", "/api/tables/{table_id}")
    '#/paths/~1api~1tables~1{table_id}/get'
    """
    return "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method.lower()


TABLE = {"table_id": "$request.path.table_id", "seat": "$request.path.seat"}
ANALYSIS = {"seat": "$request.query.seat"}
LINKS = (
    Link("POST /api/tables", "201", "GetTable", "GET /api/tables/{table_id}", {"table_id": BODY + "table_id"},
         description="the new table"),
    Link("POST /api/tables", "201", "JoinSeat", "POST /api/tables/{table_id}/seats/{seat}/join",
         {"table_id": BODY + "table_id", "seat": 0}, description="claim a seat of the new table"),
    Link("POST /api/tables/{table_id}/seats/{seat}/join", "201", "GetSeatState",
         "GET /api/tables/{table_id}/seats/{seat}", TABLE, BODY + "token", "the seat's state with its token"),
    Link("POST /api/tables/{table_id}/seats/{seat}/join", "201", "PostMove",
         "POST /api/tables/{table_id}/seats/{seat}/moves", TABLE, BODY + "token", "a move of the seat"),
    Link("POST /api/bots", "201", "GetBot", "GET /api/bots/{bot_id}", {"bot_id": BODY + "bot_id"}),
    Link("POST /api/bots", "201", "UpdateBot", "PATCH /api/bots/{bot_id}", {"bot_id": BODY + "bot_id"},
         BODY + "owner_token", "change it with its owner token"),
    Link("POST /api/bots", "201", "DeleteBot", "DELETE /api/bots/{bot_id}", {"bot_id": BODY + "bot_id"},
         BODY + "owner_token", "delete it with its owner token"),
    Link("POST /api/bots", "201", "GetLadderSeats", "GET /api/bots/{bot_id}/ladder-seats",
         {"bot_id": BODY + "bot_id"}, BODY + "owner_token", "a polling bot's seats in ladder matches"),
    Link("POST /api/bots", "201", "GetBotMatches", "GET /api/bots/{bot_id}/matches",
         {"bot_id": BODY + "bot_id"}),
    Link("POST /api/challenges", "201", "GetChallenge", "GET /api/challenges/{challenge_id}",
         {"challenge_id": BODY + "challenge_id"}, description="the challenge and its match as it plays"),
    Link("POST /api/matches/{match_id}/games/{game_no}/analysis", "202", "GetAnalysis",
         "GET /api/matches/{match_id}/games/{game_no}/analysis",
         {"match_id": "$request.path.match_id", "game_no": "$request.path.game_no", **ANALYSIS},
         description="poll the analysis until it is done"),
    Link("POST /api/tables/{table_id}/analysis", "202", "GetTableAnalysis",
         "GET /api/tables/{table_id}/analysis", {"table_id": "$request.path.table_id", **ANALYSIS},
         description="poll the analysis until it is done"),
    Link("POST /api/accounts", "201", "GetAccount", "GET /api/account", {}, BODY + "api_key",
         "the account, with its API key"),
    Link("POST /api/accounts", "201", "GetAccountBots", "GET /api/account/bots", {}, BODY + "api_key"),
)


class LinksPlugin(BasePlugin):
    """Adds `LINKS` to the responses they start from as apispec documents each path."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            for link in LINKS:
                if link.source == f"{method.upper()} {path}":
                    responses = operation.get("responses", {})
                    response = responses.get(link.status) or responses.get(int(link.status))
                    if response is None:
                        raise KeyError(f"{link.source} has no {link.status} answer for link {link.name}")
                    response.setdefault("links", {})[link.name] = link.document()
