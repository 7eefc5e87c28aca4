"""`npx trickarena` (clients/js/bin/trickarena.js) for real: a JavaScript author opens an account, registers,
changes, adopts and deletes bots and reads a bot's record without Python on the client side.

The closing proof: the JS command line registers the JS starter bot served by node, and the real stack (the
API under gunicorn, `python -m arena scheduler` and `python -m arena worker`) seats it in a rated ladder
match; its record, read with the JS command line, shows the match without a strike.
"""

from __future__ import annotations

import re
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from trickarena import ApiError, ArenaClient

from core.arena.model import LadderConfig, MatchStatus
from core.arena.store import ArenaStore
from tests.clients.nodejs import CLI, SDK, NodeBot, run_node
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]
HOUSE = ("heuristic", "eps-0.5", "random")
REGISTERED = re.compile(r"registered (\S+) as (\w+) for")
OWNER_TOKEN = re.compile(r"owner token \(shown once\): (\S+)")


@pytest.fixture
def js_cli(node: str, tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """js_cli(*args, env=...): `trickarena ARGS` under node, with this test's key file."""
    key_file = tmp_path / "config" / "trick-arena" / "key"

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_node(node, [str(CLI), *args], tmp_path, timeout=60,
                        env={"TRICK_ARENA_KEY_FILE": str(key_file), **(env or {})})

    run.key_file = key_file  # type: ignore[attr-defined]
    return run


def one_line_refusal(done: subprocess.CompletedProcess[str], code: int, says: str) -> None:
    assert done.returncode == code, done.stdout + done.stderr
    assert says in done.stderr and "    at " not in done.stderr, done.stderr  # no stack trace


def test_js_cli_manages_an_account_and_its_bots(js_cli: Any, live_server: str, node: str,
                                                bots_dir: Path) -> None:
    api = ["--api", live_server]
    opened = js_cli("account", "create", *api)
    assert opened.returncode == 0, opened.stderr
    key = js_cli.key_file.read_text().strip()
    assert key and key not in opened.stdout  # saved, never shown
    assert stat.S_IMODE(js_cli.key_file.stat().st_mode) == 0o600
    again = js_cli("account", "create", *api)
    one_line_refusal(again, 1, "a key is already saved")

    registered = js_cli("register", "js-cli-bot", "--game", "sore-spot", "--game", "spot-hearts",
                        "--url", "http://127.0.0.1:9/", *api)
    assert registered.returncode == 0, registered.stderr
    name, bot_id = REGISTERED.search(registered.stdout).groups()  # type: ignore[union-attr]
    assert name == "js-cli-bot" and "owner token" not in registered.stdout
    assert "in your account" in registered.stdout

    updated = js_cli("update", bot_id, "--disable", "--game", "sore-spot", *api)
    assert updated.returncode == 0, updated.stderr
    with ArenaClient(live_server) as client:
        record = client.bot(bot_id)
    assert record.enabled is False and record.games == ["sore-spot"]

    # A bot registered without the account, then adopted by it; its owner token stops working.
    loose = js_cli("register", "js-loose", "--game", "card-commons", "--no-account", *api)
    assert loose.returncode == 0, loose.stderr
    loose_id = REGISTERED.search(loose.stdout).group(2)  # type: ignore[union-attr]
    token = OWNER_TOKEN.search(loose.stdout).group(1)  # type: ignore[union-attr]
    assert js_cli("update", loose_id, "--url", "http://127.0.0.1:8/", "--token", token, *api).returncode == 0
    adopted = js_cli("account", "adopt", loose_id, "--owner-token", token, *api)
    assert adopted.returncode == 0 and "is in your account now" in adopted.stdout, adopted.stderr
    listed = js_cli("account", "bots", *api)
    assert "js-cli-bot" in listed.stdout and "js-loose" in listed.stdout
    shown = js_cli("account", "show", *api)
    assert re.search(r"account \w+: 2 of \d+ bots", shown.stdout), shown.stdout

    # $TRICK_ARENA_KEY wins over the key file (here: a file that does not exist).
    from_env = js_cli("account", "show", *api,
                      env={"TRICK_ARENA_KEY": key, "TRICK_ARENA_KEY_FILE": "/nonexistent"})
    assert from_env.stdout == shown.stdout, from_env.stderr

    # The record of a bot that has played nothing yet: the API's refusal, one line.
    one_line_refusal(js_cli("record", bot_id, *api), 1, "API error 404")

    rotated = js_cli("account", "rotate", *api)
    assert rotated.returncode == 0, rotated.stderr
    new_key = js_cli.key_file.read_text().strip()
    assert new_key != key and new_key not in rotated.stdout
    assert js_cli("delete", loose_id, *api).returncode == 0
    assert js_cli("delete", bot_id, *api).stdout == f"deleted {bot_id}\n"
    with ArenaClient(live_server) as client:
        with pytest.raises(ApiError) as gone:
            client.bot(bot_id)
        assert gone.value.status == 404
        one_line_refusal(js_cli("account", "revoke", *api), 2, "confirm with --yes")
        revoked = js_cli("account", "revoke", "--yes", *api)
        assert revoked.returncode == 0 and not js_cli.key_file.exists(), revoked.stderr
        with pytest.raises(ApiError):
            client.account(new_key)


def test_js_cli_answers_a_wrong_command_line_with_one_line(js_cli: Any, live_server: str) -> None:
    """Usage errors exit 2 (clients/js/tests/cli.test.js has them all), refusals 1: one line, no stack."""
    one_line_refusal(js_cli("register", "x", "--game", "sore-spot", "--colour", "red"), 2, "Unknown option")
    one_line_refusal(js_cli("account", "show", "--api", live_server), 1, "no account key")
    one_line_refusal(js_cli("delete", "nope", "--token", "t", "--api", live_server), 1, "API error 404")
    one_line_refusal(js_cli("games", "--api", "http://127.0.0.1:9"), 1, "cannot reach the API")


# --- the closing proof: a JavaScript bot registered and rated without Python on the client side -------------

def readme_walkthrough() -> list[str]:
    """The README's `npx trickarena` commands of "Register and play on the ladder", in order."""
    text = (SDK / "README.md").read_text()
    section = text.split("## Register and play on the ladder", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "clients/js/README.md: no command block under 'Register and play on the ladder'"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture
def arena_processes(arena_process: Any) -> None:
    """`python -m arena scheduler` and `python -m arena worker`, as `make run` starts them (0.2 s ticks)."""
    for args in (["scheduler", "--no-default-ladders"], ["worker", "--simple"]):
        arena_process(*args, env={"TA_ARENA_TICK_S": "0.2"})


def test_a_js_bot_registered_with_the_js_cli_plays_a_rated_ladder_match(
        js_cli: Any, gunicorn_server: Any, redis_url: str, key_prefix: str, node: str, bots_dir: Path,
        request: pytest.FixtureRequest) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("sore-spot-4p", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE,
                                   max_active=1, house_only_gap_s=3600))
    walkthrough = readme_walkthrough()
    assert [line.split()[:3] for line in walkthrough] == [
        ["npx", "trickarena", "account"], ["node", "sore_spot_bot.js", "serve"],
        ["npx", "trickarena", "register"], ["npx", "trickarena", "record"]], walkthrough
    with gunicorn_server() as api_url:
        api = ["--api", api_url]
        # 1. npx trickarena account create
        assert js_cli(*walkthrough[0].split()[2:], *api).returncode == 0
        # 2. node sore_spot_bot.js serve --port 9004 (here: a free port)
        bot = NodeBot(node, bots_dir, "sore_spot_bot.js")
        try:
            # 3. npx trickarena register my-js-bot --game sore-spot --url http://127.0.0.1:9004
            args = [a.replace("http://127.0.0.1:9004", bot.url) for a in walkthrough[2].split()[2:]]
            registered = js_cli(*args, *api)
            assert registered.returncode == 0, registered.stderr
            bot_id = REGISTERED.search(registered.stdout).group(2)  # type: ignore[union-attr]
            request.getfixturevalue("arena_processes")  # the scheduler seats it, a worker plays the match
            rated: list[str] = wait_until(
                lambda: [m for m in store.recent_matches("sore-spot-4p")
                         if bot_id in {e["bot_id"] for e in store.match(m)["spec"]["entrants"]}
                         and store.match(m)["status"] == MatchStatus.RATED],
                60, "a rated match with the JS bot", interval=0.2)
            # 4. npx trickarena record BOT_ID
            record = js_cli(*walkthrough[3].replace("BOT_ID", bot_id).split()[2:], *api)
            assert record.returncode == 0, record.stderr
            assert rated[-1] in record.stdout and "strike" not in record.stdout, record.stdout
            assert f"{bot_id} on sore-spot-4p:" in record.stdout
        finally:
            code, err = bot.stop()
        assert code == 0, err
    doc = store.match(rated[-1])
    assert [s for s in doc["result"]["strikes"] if s["bot_id"] == bot_id] == []
