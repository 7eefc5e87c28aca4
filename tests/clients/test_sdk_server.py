"""The SDK's HTTP bot server speaks protocol v1 to the arena's real client and match runner."""

from __future__ import annotations

import http.client
import json
import socket

import pytest
from trickarena import Bot, BotServer, MoveRequest

import engine
from arena.botclient import BotClient
from arena.drivers import HttpDriver
from arena.match import MatchRunner
from core.arena.model import Member, MemberKind
from tests.clients.starters import STARTERS, play_http_match, starter_bot
from tests.scenarios import match_spec


class Recorder(Bot):
    """Plays the first legal cards and remembers what the arena sent."""

    name = "recorder"
    author = "tests"

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.events: list[tuple[str, dict]] = []

    def choose(self, view):
        self.requests.append(view)
        decision = view["decision"]
        return decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]

    def on_start(self, info):
        self.events.append(("start", info))

    def on_end(self, info):
        self.events.append(("end", info))


class Broken(Bot):
    name = "broken"

    def choose(self, view):
        raise RuntimeError("my bug")


def post(conn: http.client.HTTPConnection, path: str, body: bytes) -> tuple[int, dict]:
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def test_info_move_start_end_on_one_kept_alive_connection(sdk_server) -> None:
    bot = Recorder()
    server = sdk_server(bot)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/")
    info = conn.getresponse()
    assert info.status == 200
    all_games = ["sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"]
    expected = {"name": "recorder", "author": "tests", "version": "1", "games": all_games}
    assert json.loads(info.read()) == expected
    first_socket = conn.sock
    game = engine.new_game("spot-hearts", 4, seed=3)
    view = game.view(0)
    payload = {"protocol": 1, "game": "spot-hearts", "table": "t", "match": "m", "seat": 0,
               "decision": view["decision"], "deadline_ms": 500, "view": view, "legal": view["legal"]}
    status, answer = post(conn, "/move", json.dumps(payload).encode())
    assert status == 200 and answer == {"move": view["legal"][:3]}
    assert post(conn, "/start", b'{"game": "spot-hearts", "seat": 0}') == (200, {})
    assert post(conn, "/end", b'{"totals": [1, 2, 3, 4]}') == (200, {})
    assert conn.sock is first_socket  # HTTP/1.1 keep-alive: no reconnect between calls
    assert bot.events == [("start", {"game": "spot-hearts", "seat": 0}), ("end", {"totals": [1, 2, 3, 4]})]
    assert server.calls == 1
    conn.close()


def test_bad_requests_and_bot_errors_answer_without_killing_the_server(sdk_server) -> None:
    server = sdk_server(Broken())
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    assert post(conn, "/move", b"not json")[0] == 400
    status, body = post(conn, "/move", b'{"view": {}}')
    assert status == 500 and "my bug" in body["error"]
    assert post(conn, "/nowhere", b"{}")[0] == 404
    conn.request("GET", "/")
    assert conn.getresponse().status == 200  # still serving
    conn.close()


def test_accepted_sockets_have_tcp_nodelay() -> None:
    server = BotServer(Recorder())  # not started: accept by hand to look at the socket
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5):
            accepted, _ = server.httpd.get_request()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        server.httpd.server_close()


def play_one_game(game: str, bots: list[Bot], sdk_server, seed: int = 7) -> tuple[object, list[BotServer]]:
    """A real match through the arena's runner and bot client against SDK servers: one game, no duplicate."""
    servers = [sdk_server(bot) for bot in bots]
    return play_http_match(game, [s.url for s in servers], [b.name for b in bots], seed), servers


def test_arena_payload_fits_the_sdk_move_request(sdk_server) -> None:
    recorder = Recorder()
    result, _ = play_one_game("sore-spot", [recorder, Recorder(), Recorder(), Recorder()], sdk_server)
    assert not result.strikes
    assert recorder.requests, "the arena never asked"
    assert [kind for kind, _ in recorder.events] == ["start", "end"]


@pytest.mark.parametrize("game", list(STARTERS))
def test_starter_bot_plays_a_full_game_as_an_http_bot(game, sdk_server) -> None:
    """Four copies of the starter (so every seat exercises it) play a whole game in the arena's runner."""
    bots = [starter_bot(game) for _ in range(4)]
    result, servers = play_one_game(game, bots, sdk_server)
    assert result.strikes == [], [s.to_json() for s in result.strikes]  # every move legal, every call on time
    record = result.records[0]
    replayed = engine.load(record)
    assert replayed.over and replayed.winners
    decisions = len(record["moves"])
    assert sum(s.calls for s in servers) == decisions
    assert result.winners


def test_move_request_type_matches_what_the_runner_sends(sdk_server) -> None:
    seen: list[dict] = []
    server = sdk_server(Recorder())
    # Keep the raw protocol bodies the arena's runner sends (the server hands them to decide()).
    original = server.httpd.decide

    def decide(payload):
        seen.append(payload)
        return original(payload)

    server.httpd.decide = decide  # type: ignore[method-assign]
    client = BotClient(server.url, allow_private=True)
    member = Member("b0", MemberKind.HTTP, url=server.url)
    entrants = [member, Member.house("random"), Member.house("heuristic")]
    spec = match_spec("m1", entrants, ladder_id="local", deadline_ms=2000)
    from arena.drivers import HouseDriver

    drivers = {"b0": HttpDriver(client), "house:random": HouseDriver("random", "1"),
               "house:heuristic": HouseDriver("heuristic", "2")}
    MatchRunner(spec, drivers).run()
    client.close()
    assert seen
    request = MoveRequest.from_json(seen[0])
    assert set(seen[0]) <= {f for f in MoveRequest.__dataclass_fields__}
    assert request.protocol == 1 and request.game == "sore-spot" and request.legal == request.view["legal"]
