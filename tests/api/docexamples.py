"""The documented request/response examples (docs/api.md, docs/admin.md, ...): how they are read, the world
they run in, and how an answer is held to its example's shape.

An example is two fenced blocks in a row, both tagged `http`: a request (`METHOD /path HTTP/1.1`, headers, a
blank line, an optional JSON body) and its response (`HTTP/1.1 STATUS Reason`, headers, a blank line, an
optional JSON body; of an NDJSON answer, its first line, pretty-printed). `{name}` in a request is a
placeholder: a value the running service gave earlier (a table id, a seat token, ...), filled from
`Placeholders` below.

To document a new endpoint: put its example (request block, then response block) under a `### METHOD
/path` heading of the page that documents it; a page not yet read here goes into `EXAMPLE_DOCS`; a
placeholder not yet known gets a `_make_<name>` method on `Placeholders` that creates what it names
through the API (and sets any companion values, as `_make_bot_id` sets `owner_token`).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[2]
# The docs that hold examples, run in this order; a page that documents endpoints of its own adds its name
# here, before admin.md: the operator's examples void the world's match, so they stay last.
EXAMPLE_DOCS = ["docs/api.md", "docs/admin.md"]
OPERATOR_TOKEN = "operator-token-of-the-documented-examples-0123"
NDJSON = "application/x-ndjson"
BLOCK = re.compile(r"^```http\n(.*?)^```", re.S | re.M)
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass
class Example:
    doc: str
    line: int
    method: str
    target: str  # the path and query, placeholders unfilled
    headers: dict[str, str]
    body: str
    status: int
    response_headers: dict[str, str]
    response_body: Any

    @property
    def route(self) -> str:
        """The OpenAPI path this example calls: its path with the placeholders as OpenAPI names them."""
        return self.target.split("?")[0]

    def __str__(self) -> str:
        return f"{self.doc}:{self.line} {self.method} {self.target}"


def _split(block: str) -> tuple[str, dict[str, str], str]:
    head, _, body = block.partition("\n\n")
    first, *lines = head.splitlines()
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip()] = value.strip()
    return first, headers, body.strip()


def examples(doc: str) -> list[Example]:
    """Every request/response pair of `doc`, in order; a request block must be followed by its response."""
    text = (ROOT / doc).read_text()
    blocks = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in BLOCK.finditer(text)]
    found = []
    for (line, request), (_, response) in zip(blocks[::2], blocks[1::2], strict=False):
        first, headers, body = _split(request)
        method, target, _version = first.split()
        status_line, response_headers, response_body = _split(response)
        assert status_line.startswith("HTTP/1.1 "), f"{doc}:{line}: a request without its response"
        found.append(Example(doc, line, method, target, headers, body, int(status_line.split()[1]),
                             response_headers, json.loads(response_body) if response_body else None))
    assert len(blocks) % 2 == 0, f"{doc}: an http block without its pair"
    return found


# --- the shape of an answer ---------------------------------------------------------------------------------


def served_json(response: Any) -> Any:
    """The JSON a served answer holds, as its example shows it: the body, or an NDJSON answer's first line."""
    if response.mimetype == NDJSON:
        first = response.get_data(as_text=True).partition("\n")[0]
        return json.loads(first) if first else None
    return response.get_json(silent=True)


FIELD = re.compile(r"^[a-z][a-z0-9_]*$")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def shape_differences(documented: Any, served: Any, where: str = "$") -> list[str]:
    """Where `served` differs in shape from `documented`: the same keys, the same JSON types.

    null matches any type (a nullable field); lists are compared element by element as far as both go; an
    object whose keys are not field names (ids, card codes, game names: a map) is compared by its values
    only.
    """
    if documented is None or served is None:
        return []
    if _kind(documented) != _kind(served):
        return [f"{where}: documented {_kind(documented)}, served {_kind(served)}"]
    if isinstance(documented, list):
        return [d for i, (a, b) in enumerate(zip(documented, served, strict=False))
                for d in shape_differences(a, b, f"{where}[{i}]")]
    if not isinstance(documented, dict):
        return []
    is_map = not all(FIELD.match(k) for k in [*documented, *served]) or (not documented or not served)
    if is_map:
        values = list(served.values())
        return [d for value in list(documented.values())[:1] for other in values[:1]
                for d in shape_differences(value, other, f"{where}.*")]
    differences = []
    if documented.keys() != served.keys():
        missing, extra = sorted(documented.keys() - served.keys()), sorted(served.keys() - documented.keys())
        differences.append(f"{where}: documented but not served {missing}, served but not documented {extra}")
    for key in documented.keys() & served.keys():
        differences += shape_differences(documented[key], served[key], f"{where}.{key}")
    return differences


# --- the world the examples run in --------------------------------------------------------------------------

LADDER = "sore-spot"
HOUSE = ("heuristic", "eps-0.3", "random")


def play_out(client: Any, table_id: str, tokens: dict[int, str]) -> None:
    """Play a table whose seats are all held to its end through the API, each seat's first legal move."""
    while True:
        table = client.get(f"/api/tables/{table_id}").get_json()
        if table["status"] != "playing" or not table["to_act"]:
            return
        for seat in table["to_act"]:
            state = client.get(f"/api/tables/{table_id}/seats/{seat}",
                               headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
            if not state["your_turn"]:
                continue
            legal = state["view"]["legal"]
            client.post(f"/api/tables/{table_id}/seats/{seat}/moves",
                        json={"move": legal[0], "expected_version": state["version"]},
                        headers={"Authorization": f"Bearer {tokens[seat]}"})


class World:
    """What every example may refer to and no example destroys: a sore-spot ladder with a registered HTTP bot
    that has played one rated match against house bots, and a finished API table."""

    def __init__(self, app: Any, redis_url: str, prefix: str, bot_url: str, striking_bot_url: str) -> None:
        from rq import Queue

        from api import create_app
        from arena.jobs import check_bot_health, play_match
        from arena.scheduler import Scheduler
        from core import keys
        from core.arena.model import LadderConfig, Member, MemberKind
        from core.arena.store import ArenaStore
        from core.settings import Settings
        from tests.scenarios import match_spec

        self.app = app
        self.client = app.test_client()
        self.prefix = prefix
        connection = redis.Redis.from_url(redis_url)
        self.store = ArenaStore(connection, prefix)
        settings = Settings(redis_url, prefix, True)
        ladder = LadderConfig(LADDER, "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=0)
        self.store.save_ladder(ladder)
        bot = self.client.post("/api/bots", json={"name": "docs-bot", "games": ["sore-spot"], "url": bot_url})
        assert bot.status_code == 201, bot.get_json()
        self.bot_id, self.bot_token = bot.get_json()["bot_id"], bot.get_json()["owner_token"]
        assert check_bot_health(self.store, self.bot_id, bot_url, allow_private=True)["ok"]  # its first check
        striker = self.client.post("/api/bots", json={"name": "illegal-moves-bot", "games": ["sore-spot"],
                                                      "url": striking_bot_url}).get_json()["bot_id"]
        Scheduler(self.store, Queue(keys.arena_queue(prefix), connection=connection), settings
                  ).sync_members(self.store.ladder(LADDER))
        entrants = [Member(self.bot_id, MemberKind.HTTP, url=bot_url, name="docs-bot"),
                    Member(striker, MemberKind.HTTP, url=striking_bot_url, name="illegal-moves-bot"),
                    *(Member.house(name) for name in HOUSE[:2])]
        self.match_id = f"m{int(time.time())}"
        self.store.create_match(match_spec(self.match_id, entrants, ladder_id=LADDER, seed=7))
        play_match(self.store, self.match_id, worker="docs", settings=settings)
        # One address refused by a per-address limit, for the operator's refusal board.
        strict = create_app({"TESTING": True, "REDIS_URL": redis_url, "KEY_PREFIX": prefix,
                             "LIMIT_ACCOUNT_CREATION": "1/hour"}).test_client()
        assert [strict.post("/api/accounts").status_code for _ in range(2)] == [201, 429]
        table = self.client.post("/api/tables", json={"game": "sore-spot", "players": 4,
                                                      "options": {"rounds": 1}, "seats": ["open"] * 4})
        self.finished_table_id = table.get_json()["table_id"]
        tokens = {seat: self.client.post(f"/api/tables/{self.finished_table_id}/seats/{seat}/join")
                  .get_json()["token"] for seat in range(4)}
        play_out(self.client, self.finished_table_id, tokens)


class Placeholders:
    """The values of one example's placeholders: the world's, or made for this example alone on first use (so
    an example that deletes, rotates or suspends touches nothing another example uses)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.client = world.client
        self.values: dict[str, Any] = {"operator_token": OPERATOR_TOKEN, "ladder_id": LADDER,
                                       "match_id": world.match_id, "game_no": 0,
                                       "ladder_bot_id": world.bot_id, "ladder_bot_token": world.bot_token,
                                       "finished_table_id": world.finished_table_id}

    def __getitem__(self, name: str) -> Any:
        if name not in self.values:
            getattr(self, f"_make_{name}")()
        return self.values[name]

    def _make_table_id(self) -> None:
        seats = ["open", "random", "random", "random"]
        table = self.client.post("/api/tables", json={"game": "sore-spot", "seats": seats}).get_json()
        self.values["table_id"] = table["table_id"]
        self.values["open_table_id"] = table["table_id"]

    _make_open_table_id = _make_table_id

    def _make_seat_token(self) -> None:
        self.values["seat_token"] = self.client.post(
            f"/api/tables/{self['table_id']}/seats/0/join").get_json()["token"]

    def _make_version(self) -> None:
        state = self.client.get(f"/api/tables/{self['table_id']}/seats/0",
                                headers={"Authorization": f"Bearer {self['seat_token']}"}).get_json()
        self.values["version"] = state["version"]
        self.values["legal_move"] = JsonText(json.dumps(state["view"]["legal"][0]))

    def _make_legal_move(self) -> None:
        self._make_version()

    def _make_api_key(self) -> None:
        account = self.client.post("/api/accounts").get_json()
        self.values["api_key"] = account["api_key"]
        self.values["account_id"] = account["account_id"]

    _make_account_id = _make_api_key

    def _make_bot_id(self) -> None:
        bot = self.client.post("/api/bots", json={"name": f"polling-bot-{secrets.token_hex(3)}",
                                                  "games": ["sore-spot"]}).get_json()
        self.values["bot_id"] = bot["bot_id"]
        self.values["owner_token"] = bot["owner_token"]

    _make_owner_token = _make_bot_id

    def _make_challenge_id(self) -> None:
        answer = self.client.post("/api/challenges", json={"game": "sore-spot",
                                                           "bots": [self["bot_id"], "random", "heuristic"]},
                                  headers={"Authorization": f"Bearer {self['owner_token']}"})
        assert answer.status_code == 201, answer.get_json()
        self.values["challenge_id"] = answer.get_json()["challenge_id"]

    def _make_tournament_id(self) -> None:
        answer = self.client.post("/api/tournaments", headers={"Authorization": f"Bearer {self['api_key']}"},
                                  json={"game": "sore-spot", "format": "swiss", "rounds": 2,
                                        "bots": ["heuristic", "eps-0.3", "eps-0.6", "random", "search-10"]})
        assert answer.status_code == 201, answer.get_json()
        self.values["tournament_id"] = answer.get_json()["tournament_id"]

    def _make_open_tournament_id(self) -> None:
        answer = self.client.post("/api/tournaments", headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"},
                                  json={"game": "sore-spot", "format": "swiss", "rounds": 3, "entry": "open",
                                        "starts_at": time.time() + 3600, "field_limit": 16,
                                        "bots": ["heuristic", "random"]})
        assert answer.status_code == 201, answer.get_json()
        self.values["open_tournament_id"] = answer.get_json()["tournament_id"]

    def fill(self, text: str) -> str:
        """`text` with its placeholders filled: `"{name}"` in a JSON body is that value as a JSON string, a
        bare `{name}` (a whole JSON value, like `{version}` or `{legal_move}`) the value's JSON."""
        def value(match: re.Match[str]) -> str:
            if match.group(1):
                return json.dumps(str(self[match.group(1)]))
            filled = self[match.group(2)]
            return filled.json if isinstance(filled, JsonText) else str(filled)

        return re.sub(r'"\{([a-z_]+)\}"|\{([a-z_]+)\}', value, text)


@dataclass(frozen=True)
class JsonText:
    """A placeholder value written as JSON where it stands (a move: a card code or a list of them)."""

    json: str
