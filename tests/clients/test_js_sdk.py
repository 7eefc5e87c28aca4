"""The JavaScript SDK (clients/js) for real: Node serves the JS starters to the arena's match runner, a JS
polling bot plays a practice table and a ladder match through the move API, `verify-deals` re-deals tables the
service dealt, and Node's own test runner passes the SDK's suite.

Node ≥ 18 is needed (Debian: `apt-get install nodejs`). Without it these tests skip on a workstation and
fail under CI: CI must exercise them.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis
from trickarena import ArenaClient

import engine
from arena.jobs import play_match
from core import keys
from core.arena.model import LadderConfig, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from engine import deals
from engine.errors import UnknownDealingError
from tests.clients.nodejs import JS_STARTERS, SDK, NodeBot, run_node
from tests.clients.starters import QUICK_OPTIONS, interrupt_while_long_polling, play_http_match
from tests.scenarios import match_spec

REPO = Path(__file__).resolve().parents[2]


def verify_with_node(node: str, source: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_node(node, [str(SDK / "bin" / "trickarena.js"), "verify-deals", source], cwd)


# --- the SDK's own suite ------------------------------------------------------------------------------------

def test_node_test_runner_passes_the_sdk_suite(node: str) -> None:
    done = run_node(node, ["--test", "tests/"], SDK, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"^# fail 0$", done.stdout, re.M) and re.search(r"^# pass [1-9]", done.stdout, re.M)


# --- HTTP bots: the arena's match runner calls Node --------------------------------------------------------

def play_local_match(bot: NodeBot, game: str) -> None:
    """The arena's runner and bot client (1 s deadline, strikes, fallback) against a Node-served bot in
    every seat: every answer on time, legal, in shape; then the bot stops cleanly on SIGTERM."""
    result = play_http_match(game, [bot.url] * 4, [f"js-{i}" for i in range(4)], seed=2**53 - 1,
                             deadline_ms=1000)
    assert result.strikes == [], [s.to_json() for s in result.strikes]
    assert result.forfeited == [] and result.winners
    record = result.records[0]
    assert engine.load(record).over
    outcomes = [outcome for stats in result.calls.values() for kind, outcome, _ in stats.calls
                if kind == "move"]
    assert len(outcomes) == len(record["moves"]) and set(outcomes) == {"ok"}
    code, err = bot.stop()
    assert code == 0, err


@pytest.mark.parametrize("game", list(JS_STARTERS))
def test_js_starter_served_by_node_plays_a_local_match_without_strikes(game: str, node_bot: Any) -> None:
    bot = node_bot(JS_STARTERS[game])
    with urllib.request.urlopen(bot.url, timeout=5) as answer:  # GET /: the protocol's info
        info = json.loads(answer.read())
    assert info["games"] == [game] and info["name"].endswith("-starter-js") and info["version"] == "1"
    play_local_match(bot, game)


def test_the_readme_js_bot_plays_a_local_match_without_strikes(node_bot: Any, bots_dir: Path) -> None:
    code = re.search(r"```js\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    assert code, "README.md has no JavaScript bot"
    (bots_dir / "readme_bot.js").write_text(code.group(1))
    play_local_match(node_bot("readme_bot.js"), "spot-hearts")


# --- polling bots: Node calls the move API ---------------------------------------------------------------

def test_js_polling_bot_plays_a_practice_table_and_its_deals_verify(node: str, bots_dir: Path,
                                                                    live_server: str, app: Any,
                                                                    rq_worker: Any) -> None:
    rq_worker(app.config["RQ_QUEUE"])
    done = run_node(node, ["spot_hearts_bot.js", "practice", "--api", live_server, "--opponents",
                           "heuristic,random,eps-0.5", "--options", json.dumps(QUICK_OPTIONS["spot-hearts"])],
                    bots_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r"table (\w+) over: totals (\[.*?\]), winners (\[.*?\])", done.stdout)
    assert found, done.stdout
    table_id = found.group(1)
    with ArenaClient(live_server) as api:
        table = api.table(table_id)
        record = api.replay(table_id)
    assert table.over and json.loads(found.group(2)) == table.view["scores"]
    assert [s.kind for s in table.seats] == ["open", "house", "house", "house"]
    assert sum(1 for m in record["moves"] if m["seat"] == 0) > 13  # our seat played its whole game
    # The table the service dealt verifies in Node from its replay URL alone, as in Python.
    verified = verify_with_node(node, f"{live_server}/api/tables/{table_id}/replay", bots_dir)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "OK" in verified.stdout and "the seed opens the commitment" in verified.stdout
    assert deals.verify_record(record, draws_dealer=True) == []


def test_js_polling_bot_plays_its_ladder_match_without_strikes(node: str, bots_dir: Path, live_server: str,
                                                               redis_url: str, key_prefix: str) -> None:
    with ArenaClient(live_server) as api:
        bot = api.register_bot("js-poller", ["sore-spot"])
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    house = ("heuristic", "eps-0.5", "random")
    store.save_ladder(LadderConfig("ss-js", "sore-spot", 4, {"rounds": 1}, house_bots=house))
    entrants = [Member(bot.bot_id, MemberKind.POLL, name=bot.name), *(Member.house(n) for n in house)]
    # 3 s per decision, as for the Python SDK's polling bot: a new game's first decision waits for the bot
    # to find its seat (it re-reads its seat list every second).
    spec = match_spec("m-js-poll", entrants, ladder_id="ss-js", seed=11, duplicate=True, deadline_ms=3000)
    store.create_match(spec)
    command = [node, "sore_spot_bot.js", "ladder", "--api", live_server, "--bot-id", bot.bot_id,
               "--token", bot.owner_token]
    poller = subprocess.Popen(command, cwd=bots_dir, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        assert poller.stdout is not None
        first = poller.stdout.readline()
        if "playing its ladder seats" not in first:  # say why node stopped, not only that it did
            poller.kill()
            rest, err = poller.communicate(timeout=15)
            raise AssertionError(f"node exited {poller.returncode}: stdout {first + rest!r}, stderr {err!r}")
        outcome = play_match(store, "m-js-poll", worker="test")
    finally:
        poller.terminate()
        out, err = poller.communicate(timeout=15)
    assert poller.returncode == 0, err
    assert out.count("new ladder seat") == 4, out  # duplicate: one game per seat rotation
    assert outcome["status"] == MatchStatus.RATED and outcome["applied"] is True
    doc = store.match("m-js-poll")
    assert [s for s in doc["result"]["strikes"] if s["bot_id"] == bot.bot_id] == []
    # The poller declared its version (the SDK's default "1") with every seat list it read.
    assert store.redis.hget(keys.arena_health(key_prefix, bot.bot_id), "version") == "1"
    assert doc["result"]["versions"][bot.bot_id] == "1"
    # A match replay has no commitment; its deals still verify against its seed in Node.
    with ArenaClient(live_server) as api:
        replay_url = f"{live_server}/api/matches/m-js-poll/games/0/replay"
        assert api.match_replay("m-js-poll", 0)["dealing"] == deals.CURRENT_VERSION
    verified = verify_with_node(node, replay_url, bots_dir)
    assert verified.returncode == 0 and "no commitment in the record" in verified.stdout, verified.stdout


# --- verify-deals against the engine ---------------------------------------------------------------------

def finished_house_table(api: ArenaClient, game: str, players: int) -> str:
    options = QUICK_OPTIONS[game]
    seats = ["heuristic", "random", "eps-0.5", "random", "heuristic"][:players]
    table = api.create_table(game, seats, options)
    version = table.version
    for _ in range(600):
        current = api.table(table.table_id)
        if current.over:
            return table.table_id
        version = current.version
        api.get(f"/api/tables/{table.table_id}", after=version, wait=5)
    raise AssertionError(f"table {table.table_id} did not finish")


def test_verify_deals_agrees_with_the_engine_and_rejects_tampered_records(node: str, bots_dir: Path,
                                                                          live_server: str, app: Any,
                                                                          rq_worker: Any) -> None:
    rq_worker(app.config["RQ_QUEUE"])
    tables = [("spot-hearts", 4), ("card-commons", 3), ("sloppy-seconds", 4), ("sore-spot", 5)]
    with ArenaClient(live_server) as api:
        ids = [finished_house_table(api, game, players) for game, players in tables]
        records = [api.replay(table_id) for table_id in ids]
    for (game, _), table_id, record in zip(tables, ids, records, strict=True):
        assert record["dealing"] == deals.CURRENT_VERSION
        draws_dealer = engine.rules_for(game).first_dealer_from_seed()
        assert deals.verify_record(record, draws_dealer) == []  # the engine says these deals are the seed's
        verified = verify_with_node(node, f"{live_server}/api/tables/{table_id}", bots_dir)  # table URL
        assert verified.returncode == 0, verified.stdout + verified.stderr  # ... and so does Node
        assert f"{len(record['deals'])} round(s) dealt by seed {record['seed']}" in verified.stdout

    record = records[0]
    hands = record["deals"][0]["hands"]
    swapped = json.loads(json.dumps(record))
    swapped["deals"][0]["hands"][0][0], swapped["deals"][0]["hands"][1][0] = hands[1][0], hands[0][0]
    other_seed = {**record, "seed": record["seed"] ^ 1}
    cases = {"swapped.json": (swapped, "round 0: the hands differ from the seed's deal"),
             "seed.json": (other_seed, "the seed and nonce do not open the commitment")}
    for filename, (tampered, problem) in cases.items():
        (bots_dir / filename).write_text(json.dumps(tampered))
        rejected = verify_with_node(node, filename, bots_dir)
        assert rejected.returncode == 1 and "FAILED" in rejected.stdout and problem in rejected.stdout
        assert problem in deals.verify_record(tampered, draws_dealer=True)  # the engine agrees


def test_verify_deals_does_not_vouch_for_another_dealing_version(node: str, bots_dir: Path) -> None:
    """A record of a dealing version other than 2 is refused by Node and by the engine alike."""
    game = engine.new_game("spot-hearts", 4, seed=11)
    other = {**game.record(), "dealing": 1}
    (bots_dir / "other.json").write_text(json.dumps(other))
    done = verify_with_node(node, "other.json", bots_dir)
    assert done.returncode == 1 and "unknown dealing version 1" in done.stdout
    assert deals.verify_record(other, draws_dealer=True) == [str(UnknownDealingError(1))]


def test_js_practice_stops_cleanly_on_ctrl_c_while_long_polling(node: str, bots_dir: Path,
                                                               live_server: str) -> None:
    """No worker drives the house bots: after passing the bot waits in a long-poll; SIGINT ends it at once."""
    process = subprocess.Popen([node, "spot_hearts_bot.js", "practice", "--api", live_server], cwd=bots_dir,
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = interrupt_while_long_polling(process, live_server)
    assert "Error" not in err


# --- accounts -----------------------------------------------------------------------------------------------

ACCOUNT_SCRIPT = """
const { ArenaClient, ApiError } = require("trickarena");
(async () => {
  const api = new ArenaClient(process.argv[2], { retries: 0 });
  const opened = await api.createAccount();
  const out = { account_id: opened.account_id, key: opened.api_key };
  const bot = await api.registerBot("js-keyed", ["sore-spot"], null, opened.api_key);
  out.owner_token = bot.owner_token ?? null;
  await api.updateBot(bot.bot_id, opened.api_key, { enabled: false });
  const old = await api.registerBot("js-old", ["card-commons"]);
  await api.adoptBot(old.bot_id, opened.api_key, old.owner_token);
  out.names = (await api.accountBots(opened.api_key)).map((b) => b.name);
  const rotated = await api.rotateKey(opened.api_key);
  out.shown = await api.account(rotated.api_key);
  try { await api.account(opened.api_key); out.old = "accepted"; }
  catch (error) { out.old = error instanceof ApiError ? error.problem.type : String(error); }
  await api.deleteBot(bot.bot_id, rotated.api_key);
  await api.revokeKey(rotated.api_key);
  try { await api.accountBots(rotated.api_key); out.revoked = "accepted"; }
  catch (error) { out.revoked = error.problem.type; }
  out.bot_id = bot.bot_id;
  console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
"""


def test_js_sdk_manages_an_account_and_its_bots(node: str, bots_dir: Path, live_server: str) -> None:
    (bots_dir / "account_demo.js").write_text(ACCOUNT_SCRIPT)
    done = run_node(node, ["account_demo.js", live_server], bots_dir, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["owner_token"] is None, "a bot in an account has no owner token"
    assert out["names"] == ["js-keyed", "js-old"]
    assert out["shown"]["account_id"] == out["account_id"] and out["shown"]["bots"] == 2
    assert "api_key" not in out["shown"]
    assert out["old"] == "/problems/bad-token" and out["revoked"] == "/problems/bad-token"
    with ArenaClient(live_server) as api:
        assert out["bot_id"] not in {bot.bot_id for bot in api.bots()}


CHALLENGE_SCRIPT = """
const { ArenaClient, ApiError } = require("trickarena");
(async () => {
  const api = new ArenaClient(process.argv[2], { retries: 0 });
  const mine = await api.registerBot("js-challenger", ["sore-spot"], process.argv[3]);
  const out = {};
  try { await api.challenge("not-a-token", "sore-spot", [mine.bot_id, "random", "heuristic"]); }
  catch (error) { out.stranger = error instanceof ApiError ? error.problem.type : String(error); }
  const created = await api.challenge(mine.owner_token, "sore-spot", [mine.bot_id, "random", "heuristic"],
                                      { games: 2, options: { rounds: 1 } });
  out.created = created;
  let shown = created;
  while (!["played", "aborted"].includes(shown.status)) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    shown = await api.getChallenge(created.challenge_id);
  }
  out.shown = shown;
  console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
"""


def test_js_sdk_challenges_a_house_bot_and_reads_the_result(node: str, bots_dir: Path, live_server: str,
                                                             bot_process: Any, challenge_worker: Any) -> None:
    (bots_dir / "challenge_demo.js").write_text(CHALLENGE_SCRIPT)
    challenge_worker()
    done = run_node(node, ["challenge_demo.js", live_server, bot_process()], bots_dir, timeout=90)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["stranger"] == "/problems/bad-token"
    assert out["created"]["status"] == "queued" and out["created"]["match"]["seed"] is None
    assert out["shown"]["status"] == "played" and len(out["shown"]["match"]["replays"]) == 2
    assert out["shown"]["names"] == ["js-challenger", "random", "heuristic"]


# --- a bot's export -----------------------------------------------------------------------------------------

EXPORT_SCRIPT = """
const { ArenaClient, deals } = require("trickarena");
(async () => {
  const api = new ArenaClient(process.argv[2], { retries: 0 });
  const out = { matches: [], problems: [] };
  for await (const match of api.exportMatches(process.argv[3], { limit: 2 })) {
    out.matches.push(match.match_id);
    for (const record of match.records) out.problems.push(...deals.verifyRecord(record).problems);
  }
  out.lines = [];
  const since = Number(process.argv[4]);
  for await (const line of api.exportLines(process.argv[3], { since })) out.lines.push(line);
  console.log(JSON.stringify(out));
})().catch((error) => { console.error(error); process.exit(1); });
"""


def test_js_sdk_exports_a_bots_matches_whose_deals_verify(node: str, bots_dir: Path, live_server: str,
                                                          redis_url: str, key_prefix: str) -> None:
    from arena.botserver import BotServerConfig, serve_bot
    from core.settings import Settings
    from tests.finished_matches import play_matches

    bot = serve_bot(BotServerConfig(name="exported", games=["sore-spot"]))
    try:
        with ArenaClient(live_server) as api:
            bot_id = api.register_bot("exported-js", ["sore-spot"], bot.url).bot_id
        store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
        settings = Settings(redis_url, key_prefix, allow_private_urls=True)
        played = play_matches(store, settings, bot_id, bot.url)
    finally:
        bot.stop()
    with ArenaClient(live_server) as api:
        whole = list(api.export_lines(bot_id))
    since = json.loads(whole[2])["finished"]
    (bots_dir / "export_demo.js").write_text(EXPORT_SCRIPT)
    done = run_node(node, ["export_demo.js", live_server, bot_id, repr(since)], bots_dir, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["matches"] == played and out["problems"] == []  # three pages of two, every deal the seed's
    assert out["lines"] == whole[3:]  # the lines as the service sent them, from `since` on
