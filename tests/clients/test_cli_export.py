"""`trick-arena export BOT_ID > games.ndjson` and the Python SDK's `export_matches` against a real service on
127.0.0.1, with a real HTTP bot's ladder matches and challenges played by the arena's job function; and the
SDK going on after an answer cut off in the middle of a line."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import redis
from click.testing import CliRunner
from trickarena import ArenaClient

import engine
from arena.botserver import BotServerConfig, serve_bot
from clients.cli import main
from core.arena.store import ArenaStore
from core.settings import Settings
from engine import deals
from engine.replay import replay_summary
from tests.finished_matches import LADDERS, play_ladder_match, play_matches


@pytest.fixture
def bot_url() -> Iterator[str]:
    bot = serve_bot(BotServerConfig(name="exported", games=["sore-spot"]))
    yield bot.url
    bot.stop()


def served_lines(api_url: str, bot_id: str) -> list[str]:
    with urllib.request.urlopen(f"{api_url}/api/bots/{bot_id}/export?limit=100", timeout=30) as answer:
        assert answer.headers["Content-Type"] == "application/x-ndjson" and "Link" not in answer.headers
        return answer.read().decode().splitlines()


def export(api_url: str, *args: str) -> tuple[list[str], str]:
    """`trick-arena export ...`: the lines on stdout, and stderr."""
    result = CliRunner().invoke(main, ["--api", api_url, "export", *args])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" or result.stdout.endswith("\n")
    return result.stdout.splitlines(), result.stderr.strip()


def test_export_writes_every_match_and_goes_on_later(live_server: str, redis_url: str, key_prefix: str,
                                                     bot_url: str, tmp_path: Any) -> None:
    with ArenaClient(live_server) as api:
        bot_id = api.register_bot("exported", ["sore-spot"], bot_url).bot_id
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    settings = Settings(redis_url, key_prefix, allow_private_urls=True)
    played = play_matches(store, settings, bot_id, bot_url)

    whole = served_lines(live_server, bot_id)
    out, err = export(live_server, bot_id, "--limit", "4")  # two requests
    assert out == whole and [json.loads(line)["match_id"] for line in out] == played
    last = json.loads(out[-1])["cursor"]
    assert err == f"6 matches of {bot_id} exported; go on later with --cursor {last}"
    games = tmp_path / "games.ndjson"
    games.write_text("\n".join(out) + "\n")
    for line in games.read_text().splitlines():  # the file as a reader takes it: every record replays
        match = json.loads(line)
        draws_dealer = engine.rules_for(match["game"]).first_dealer_from_seed()
        for game, record in zip(match["games"], match["records"], strict=True):
            assert replay_summary(record)["totals"] == game["totals"]
            assert deals.verify_record(record, draws_dealer) == []

    newer = play_ladder_match(store, settings, LADDERS[1], bot_id, bot_url)
    out, err = export(live_server, bot_id, "--cursor", last)
    assert [json.loads(line)["match_id"] for line in out] == [newer]
    assert err == f"1 match of {bot_id} exported; go on later with --cursor {json.loads(out[0])['cursor']}"
    assert export(live_server, bot_id, "--cursor", json.loads(out[0])["cursor"])[0] == []
    since = json.loads(whole[3])["finished"]
    assert export(live_server, bot_id, "--since", str(since))[0] == [*whole[4:], *out]

    # The SDK: the same lines, page after page, as JSON text or decoded.
    with ArenaClient(live_server) as api:
        assert list(api.export_lines(bot_id, limit=1)) == [*whole, *out]
        decoded = list(api.export_matches(bot_id, limit=3, since=since))
        assert decoded == [json.loads(line) for line in [*whole[4:], *out]]
        after_second = api.export_matches(bot_id, cursor=json.loads(whole[1])["cursor"])
        assert [match["match_id"] for match in after_second] == [*played[2:], newer]


def test_export_refuses_in_one_line(live_server: str) -> None:
    for args, code, text in ((["export", "no-such-bot"], 1, "API error 404"),
                             (["export", "b", "--limit", "101"], 2, "Error: Invalid value for '--limit'"),
                             (["export", "b", "--since", "1", "--cursor", "c"], 2,
                              "Error: give --since or --cursor, not both"),
                             (["export", "b", "--cursor", "not-a-cursor"], 1, "API error 422")):
        result = CliRunner().invoke(main, ["--api", live_server, *args])
        assert result.exit_code == code, result.output
        assert result.stdout == "" and "Traceback" not in result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(text), result.stderr


class CutOnce(BaseHTTPRequestHandler):
    """A bot's export in two answers: the first cut off in the middle of its second line (its Link promising
    more), the second going on after the last whole line's cursor."""

    LINES = [json.dumps({"cursor": f"c{n}", "match_id": f"m{n}", "records": []}) for n in range(4)]
    asked: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.asked.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        if "cursor=" not in self.path:
            self.send_header("Link", '</api/bots/b/export?limit=2&cursor=c1>; rel="next"')
            self.end_headers()
            self.wfile.write(f"{self.LINES[0]}\n{self.LINES[1][:20]}".encode())
        else:
            self.end_headers()
            self.wfile.write("".join(f"{line}\n" for line in self.LINES[1:]).encode())
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


def test_the_sdk_goes_on_after_an_answer_cut_off() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), CutOnce)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with ArenaClient(f"http://127.0.0.1:{server.server_port}", retries=2) as api:
            api.http.sleep = lambda s: None
            found = [m["match_id"] for m in api.export_matches("b", limit=2)]
    finally:
        server.shutdown()
        server.server_close()
    assert found == ["m0", "m1", "m2", "m3"]
    assert CutOnce.asked == ["/api/bots/b/export?limit=2", "/api/bots/b/export?cursor=c0&limit=2"]
