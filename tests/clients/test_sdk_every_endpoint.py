"""Every method of each SDK's `ENDPOINTS` against the live service: the Python `ArenaClient` and the
JavaScript one (under node) each call every public route on a real HTTP server, with a real bot server in a
rated match, a table whose four open seats the SDK plays through the move API, and an account opened, used,
rotated and revoked.

Each client records the route of every request it sends; a route of its `ENDPOINTS` it never sent fails the
test, so a method added to the table must be exercised here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from trickarena import ApiError, ArenaClient, SeatState
from trickarena.api import ENDPOINTS
from trickarena.poll import play_seat

from arena.jobs import play_match
from core.arena.model import LadderConfig, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from tests.clients.nodejs import run_node
from tests.clients.starters import QUICK_OPTIONS, starter_bot
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")


@dataclass(frozen=True)
class Arena:
    """A rated match on ladder "ss" with a registered HTTP bot in it, and the routes the service serves."""

    api_url: str
    ladder_id: str
    match_id: str
    bot_id: str
    bot_token: str
    served: frozenset[str]


def template(method: str, path: str) -> str | None:
    """The `ENDPOINTS` route a request was sent to ('GET /api/bots/b1' -> 'GET /api/bots/{bot_id}')."""
    for route in ENDPOINTS:
        verb, pattern = route.split(" ", 1)
        if verb == method and re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", pattern), path):
            return route
    return None


@pytest.fixture
def arena(live_server: str, redis_url: str, key_prefix: str, bot_process: Callable[..., str],
          monkeypatch: pytest.MonkeyPatch) -> Arena:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "true")  # the match runner calls the bot on 127.0.0.1
    with ArenaClient(live_server) as api:
        bot = api.register_bot("every-endpoint", ["sore-spot"], bot_process("good"))
        paths = api.get("/api/openapi.json")["paths"]
    served = frozenset(f"{verb.upper()} {path}" for path, ops in paths.items() for verb in ops)
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member(bot.bot_id, MemberKind.HTTP, url=bot.url, name=bot.name),
                *(Member.house(n) for n in HOUSE)]
    spec = match_spec("m-every", entrants, seed=5, deadline_ms=3000)
    store.create_match(spec)
    assert play_match(store, "m-every", worker="test")["status"] == MatchStatus.RATED
    assert bot.owner_token
    return Arena(live_server, "ss", "m-every", bot.bot_id, bot.owner_token, served)


def play_other_seat(api_url: str, table_id: str, seat: int, token: str) -> SeatState:
    with ArenaClient(api_url) as api:
        return play_seat(api, table_id, seat, token, starter_bot("sore-spot"), wait_s=10)


def required_routes(arena: Arena) -> set[str]:
    """Every route of the table (the parity test holds the table to the routes the service serves)."""
    return set(ENDPOINTS)


def test_every_python_sdk_method_against_the_live_service(arena: Arena) -> None:
    sent: list[tuple[str, str]] = []
    api = ArenaClient(arena.api_url, retries=0)
    send = api.http.request_with_headers

    def recording(method: str, path: str, *args: Any, **kwargs: Any) -> Any:
        sent.append((method, path))
        return send(method, path, *args, **kwargs)

    api.http.request_with_headers = recording  # type: ignore[method-assign]
    stream = api.http.stream_lines

    def recording_stream(path: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(("GET", path))
        return stream(path, *args, **kwargs)

    api.http.stream_lines = recording_stream  # type: ignore[method-assign]
    with api:
        assert api.health()["status"] == "ok"
        assert "sore-spot" in {game.id for game in api.games()}
        assert "trick" in (api.game("sore-spot").rules or "").lower()
        schema = api.game_schema("sore-spot")
        assert schema["$ref"] == "#/$defs/SeatView" and "Card" in schema["$defs"]

        # A table of four open seats played through the move API (join, long-poll each seat, move).
        table_id = api.create_table("sore-spot", ["open"] * 4, QUICK_OPTIONS["sore-spot"]).table_id
        tokens = [api.join(table_id, seat).token for seat in range(4)]
        with ThreadPoolExecutor(3) as others:  # seats 1-3 on clients of their own; seat 0 on this one
            played = [others.submit(play_other_seat, arena.api_url, table_id, seat, tokens[seat])
                      for seat in (1, 2, 3)]
            final = play_seat(api, table_id, 0, tokens[0], starter_bot("sore-spot"), wait_s=10)
            assert all(seat.result(timeout=60).over for seat in played)
        assert final.over and api.table(table_id).over
        assert table_id in {t.table_id for t in api.tables()}
        assert api.replay(table_id)["moves"]
        assert api.request_analysis(0, table_id=table_id)["status"] in ("queued", "running", "done")
        assert api.analysis(0, table_id=table_id)["status"] in ("queued", "running", "done")
        # A person's table with the registered bot seated: its owner token lets it sit there.
        guest = api.create_table("sore-spot", ["open", f"bot:{arena.bot_id}", "random"], {"rounds": 1},
                                 token=arena.bot_token)
        assert (guest.seats[1].kind, guest.seats[1].name) == ("bot", arena.bot_id)

        # The rated match and the bot's record.
        assert arena.bot_id in {b.bot_id for b in api.bots("sore-spot")}
        assert api.bot(arena.bot_id).name == "every-endpoint"
        record = api.bot_matches(arena.bot_id, ladder=arena.ladder_id)
        assert [m["match"] for m in record["matches"]] == [arena.match_id] and record["next_cursor"] is None
        assert [m["match_id"] for m in api.export_matches(arena.bot_id)] == [arena.match_id]
        assert len(api.bot_history(arena.ladder_id, arena.bot_id).history) == 1
        assert arena.ladder_id in {lad.ladder_id for lad in api.ladders()}
        ranking = api.ranking(arena.ladder_id)
        assert arena.bot_id in {row.bot_id for row in [*ranking.ranking, *ranking.new]}
        assert arena.match_id in {m.match_id for m in api.recent_matches(arena.ladder_id)}
        assert api.match(arena.match_id).status == MatchStatus.RATED
        assert api.live_match(arena.match_id)["status"] == "over"
        assert api.match_replay(arena.match_id, 0)["moves"]
        log = api.decisions(arena.match_id, arena.bot_id, arena.bot_token, game=0)["decisions"]
        assert log and {d["outcome"] for d in log} == {"ok"} and {d["game_no"] for d in log} == {0}
        assert api.request_analysis(1, match_id=arena.match_id)["status"] in ("queued", "running", "done")
        assert api.analysis(1, match_id=arena.match_id)["status"] in ("queued", "running", "done")

        # A polling bot's ladder seats: none yet, and the version to long-poll from.
        poller = api.register_bot("every-poller", ["sore-spot"])
        assert poller.owner_token
        seats, version = api.watch_ladder_seats(poller.bot_id, poller.owner_token)
        assert seats == [] and version >= 0

        # A challenge of the polling bot against house bots: queued (no challenge worker here), readable.
        created = api.challenge(poller.owner_token, "sore-spot", [poller.bot_id, "random", "heuristic"])
        assert api.get_challenge(created.challenge_id).names[0] == "every-poller"

        # An account: a tournament of house bots (queued: no tournament worker here), its bots, adoption,
        # changes, rotation, revocation.
        opened = api.create_account()
        event = api.create_tournament(opened.api_key, "sore-spot", "swiss",
                                      ["heuristic", "random", "eps-0.5"], rounds=1, players=3)
        assert api.tournament(event["tournament_id"])["status"] == "running"
        assert len(api.tournament_standings(event["tournament_id"])["standings"]) == 3
        with pytest.raises(ApiError) as closed:
            api.enter_tournament(event["tournament_id"], poller.bot_id, poller.owner_token)
        assert closed.value.status == 409  # a polling bot, and an event by invitation
        keyed = api.register_bot("every-keyed", ["sore-spot"], key=opened.api_key)
        assert not keyed.owner_token  # the account key manages it
        assert api.adopt_bot(poller.bot_id, opened.api_key, poller.owner_token).bot_id == poller.bot_id
        assert api.update_bot(keyed.bot_id, opened.api_key, enabled=False).enabled is False
        assert sorted(b.name for b in api.account_bots(opened.api_key)) == ["every-keyed", "every-poller"]
        rotated = api.rotate_key(opened.api_key)
        assert api.account(rotated.api_key).bots == 2
        api.delete_bot(keyed.bot_id, rotated.api_key)
        with pytest.raises(ApiError) as gone:
            api.bot(keyed.bot_id)
        assert gone.value.status == 404
        api.revoke_key(rotated.api_key)
        with pytest.raises(ApiError) as refused:
            api.account(rotated.api_key)
        assert refused.value.type == "/problems/bad-token"

    hit = {template(method, path) for method, path in sent}
    assert not required_routes(arena) - hit, f"never sent: {sorted(required_routes(arena) - hit)}"


JS_SCRIPT = r"""
const { ArenaClient, playSeat } = require("trickarena");
const bot = { name: "js-every", games: ["sore-spot"], choose: (view) => {
  const { kind, count, legal } = view.decision;
  return kind === "pass" ? legal.slice(0, count) : legal[0];
} };
const [apiUrl, ladderId, matchId, botId, botToken] = process.argv.slice(2);
(async () => {
  const api = new ArenaClient(apiUrl, { retries: 0 });
  const sent = [];
  const send = api.request.bind(api);
  api.request = (method, path, options) => { sent.push([method, path]); return send(method, path, options); };
  const fetched = globalThis.fetch; // the export streams its answers through fetch itself
  globalThis.fetch = (url, init = {}) => {
    sent.push([init.method || "GET", new URL(url).pathname]);
    return fetched(url, init);
  };
  const out = {};
  out.health = (await api.health()).status;
  out.games = (await api.games()).map((g) => g.id);
  out.rules = (await api.game("sore-spot")).rules.length;
  out.schema = Object.keys((await api.gameSchema("sore-spot")).$defs);
  // A table of four open seats played through the move API; seats 1-3 on clients of their own.
  const opened4 = await api.createTable("sore-spot", ["open", "open", "open", "open"], { rounds: 1 });
  const tableId = opened4.table_id;
  const tokens = [];
  for (let seat = 0; seat < 4; seat += 1) tokens.push((await api.join(tableId, seat)).token);
  const [final] = await Promise.all(tokens.map((token, seat) =>
    playSeat(seat === 0 ? api : new ArenaClient(apiUrl), tableId, seat, token, bot, { waitS: 10 })));
  out.table = { over: final.status === "over" && (await api.table(tableId)).status === "over",
    listed: (await api.tables()).some((t) => t.table_id === tableId),
    moves: (await api.replay(tableId)).moves.length,
    analysis: [(await api.requestAnalysis(0, { tableId })).status,
      (await api.analysis(0, { tableId })).status] };
  out.guest = (await api.createTable("sore-spot", ["open", `bot:${botId}`, "random"], { rounds: 1 },
    botToken)).seats[1];
  out.bots = (await api.bots("sore-spot")).map((b) => b.bot_id);
  out.bot = (await api.bot(botId)).name;
  out.record = await api.botMatches(botId, { ladder: ladderId });
  out.exported = [];
  for await (const match of api.exportMatches(botId)) out.exported.push(match.match_id);
  out.history = (await api.botHistory(ladderId, botId)).history.length;
  out.ladders = (await api.ladders()).map((l) => l.ladder_id);
  const ranking = await api.ranking(ladderId);
  out.ranked = [...ranking.ranking, ...ranking.new].map((r) => r.bot_id);
  out.recent = (await api.recentMatches(ladderId)).map((m) => m.match_id);
  out.match = (await api.match(matchId)).status;
  out.live = (await api.liveMatch(matchId)).status;
  out.replay = (await api.matchReplay(matchId, 0)).moves.length;
  const log = await api.decisions(matchId, botId, botToken, { game: 0 });
  out.decisions = log.decisions.map((d) => d.outcome);
  out.matchAnalysis = [(await api.requestAnalysis(1, { matchId, gameNo: 0 })).status,
    (await api.analysis(1, { matchId, gameNo: 0 })).status];
  const poller = await api.registerBot("js-every-poller", ["sore-spot"]);
  out.seats = await api.watchLadderSeats(poller.bot_id, poller.owner_token);
  const challengers = [poller.bot_id, "random", "heuristic"];
  const created = await api.challenge(poller.owner_token, "sore-spot", challengers);
  out.challenged = (await api.getChallenge(created.challenge_id)).names[0];
  const opened = await api.createAccount();
  const event = await api.createTournament(opened.api_key, "sore-spot", "swiss",
    ["heuristic", "random", "eps-0.5"], { rounds: 1, players: 3 });
  out.tournament = [(await api.tournament(event.tournament_id)).status,
    (await api.tournamentStandings(event.tournament_id)).standings.length];
  try {
    await api.enterTournament(event.tournament_id, poller.bot_id, poller.owner_token);
    out.entered = "accepted";
  } catch (e) { out.entered = e.status; }
  const keyed = await api.registerBot("js-every-keyed", ["sore-spot"], null, opened.api_key);
  out.keyedToken = keyed.owner_token ?? null;
  const adopted = await api.adoptBot(poller.bot_id, opened.api_key, poller.owner_token);
  out.adopted = adopted.bot_id === poller.bot_id;
  out.updated = (await api.updateBot(keyed.bot_id, opened.api_key, { enabled: false })).enabled;
  out.accountBots = (await api.accountBots(opened.api_key)).map((b) => b.name);
  const rotated = await api.rotateKey(opened.api_key);
  out.accountCount = (await api.account(rotated.api_key)).bots;
  await api.deleteBot(keyed.bot_id, rotated.api_key);
  try { await api.bot(keyed.bot_id); out.deleted = "still there"; } catch (e) { out.deleted = e.status; }
  await api.revokeKey(rotated.api_key);
  try { await api.account(rotated.api_key); out.revoked = "accepted"; } catch (e) { out.revoked = e.status; }
  out.sent = sent;
  console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
"""


def test_every_js_sdk_method_against_the_live_service(arena: Arena, node: str, bots_dir: Path) -> None:
    (bots_dir / "every_endpoint.js").write_text(JS_SCRIPT)
    done = run_node(node, ["every_endpoint.js", arena.api_url, arena.ladder_id, arena.match_id, arena.bot_id,
                     arena.bot_token],
                    bots_dir, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["health"] == "ok" and "sore-spot" in out["games"] and out["rules"] > 100
    assert "Card" in out["schema"]
    assert out["challenged"] == "js-every-poller"
    assert out["tournament"] == ["running", 3] and out["entered"] == 409
    assert out["table"]["over"] and out["table"]["listed"] and out["table"]["moves"] > 0
    assert set(out["table"]["analysis"]) <= {"queued", "running", "done"}
    assert (out["guest"]["kind"], out["guest"]["name"]) == ("bot", arena.bot_id)
    assert arena.bot_id in out["bots"] and out["bot"] == "every-endpoint"
    assert [m["match"] for m in out["record"]["matches"]] == [arena.match_id]
    assert out["exported"] == [arena.match_id]
    assert out["history"] == 1 and arena.ladder_id in out["ladders"] and arena.bot_id in out["ranked"]
    assert arena.match_id in out["recent"] and out["match"] == "rated" and out["live"] == "over"
    assert out["replay"] > 0 and set(out["matchAnalysis"]) <= {"queued", "running", "done"}
    assert out["decisions"] and set(out["decisions"]) == {"ok"}
    assert out["seats"]["seats"] == [] and out["seats"]["version"] >= 0
    assert out["keyedToken"] is None and out["adopted"] and out["updated"] is False
    assert sorted(out["accountBots"]) == ["js-every-keyed", "js-every-poller"] and out["accountCount"] == 2
    assert out["deleted"] == 404 and out["revoked"] == 403
    hit = {template(method, path.split("?")[0]) for method, path in out["sent"]}
    assert not required_routes(arena) - hit, f"never sent: {sorted(required_routes(arena) - hit)}"
