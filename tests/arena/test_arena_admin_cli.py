"""`python -m arena admin`: the operator's commands on a real Redis, each written to the audit log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from arena.__main__ import main
from arena.jobs import play_match
from core import keys
from core.arena.audit import count_refusal
from core.arena.model import LadderConfig, MatchStatus, Member
from core.arena.moderation import hidden_name
from core.arena.registry import BotRegistry
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(redis_url: str, key_prefix: str):
    runner = CliRunner()

    def invoke(*args: str, status: int = 0):
        env = {"REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix}
        result = runner.invoke(main, ["admin", *args], env=env)
        assert result.exit_code == status, result.output
        assert "Traceback" not in result.output
        return json.loads(result.output) if status == 0 else result.output

    return invoke


def test_suspend_hide_and_audit_from_the_command_line(run, redis_url: str, key_prefix: str) -> None:
    registry = BotRegistry(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix)
    a = registry.register("account-bot-a", ["sore-spot"], None)[0]["bot_id"]
    b = registry.register("account-bot-b", ["sore-spot"], None)[0]["bot_id"]
    out = run("suspend", a, b, "--reason", "account closed", "--actor", "carol")
    assert sorted(out["changed"]) == sorted([a, b]) and all(bot["suspended"] for bot in out["bots"])
    assert run("suspended") == sorted([a, b])
    assert registry.suspension(a) == "suspended by the operator: account closed"
    out = run("unsuspend", b, "--reason", "only a was at fault", "--actor", "carol")
    assert out["changed"] == [b] and run("suspended") == [a]
    assert run("hide-name", a, "--reason", "impersonation")["public_name"] == hidden_name(a)
    assert registry.get(a)["name"] == hidden_name(a) and run("show", a)["name"] == "account-bot-a"
    assert run("show-name", a, "--reason", "cleared")["public_name"] == "account-bot-a"
    log = run("audit", "--limit", "10")
    assert [(e["action"], e["target"]) for e in log] == [
        ("bot.show-name", a), ("bot.hide-name", a), ("bot.unsuspend", b), ("bot.suspend", b),
        ("bot.suspend", a)]
    assert {e["via"] for e in log} == {"cli"} and log[-1]["actor"] == "carol"
    assert "@" in log[0]["actor"]  # the default actor: user@host
    assert [e["target"] for e in run("audit", "--before", log[2]["id"])] == [b, a]

    assert "no bot 'gone'" in run("suspend", a, "gone", "--reason", "x", status=1)
    assert run("suspended") == [a]  # all or none
    assert "Missing option '--reason'" in run("suspend", a, status=2)


def test_void_strikes_and_refusals_from_the_command_line(run, redis_url: str, key_prefix: str,
                                                         redis_conn: redis.Redis) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member.house(n) for n in HOUSE]
    store.create_match(match_spec("m1", entrants, seed=9, deadline_ms=200))
    play_match(store, "m1", worker="w")
    deltas = store.match("m1")["result"]["deltas"]
    out = run("void", "m1", "--reason", "a fixed deal")
    assert out["status"] == MatchStatus.VOID and out["voided"]["deltas"] == deltas
    assert all(r == pytest.approx(1500.0, abs=1e-9) for r in store.ratings("ss").values())
    assert "voided already" in run("void", "m1", "--reason", "again", status=1)
    assert "no match 'm2'" in run("void", "m2", "--reason", "typo", status=1)

    assert run("strikes") == []
    store.redis.hset(keys.arena_stats(key_prefix, "ss", "house:random"), "strikes", 4)
    assert [(r["bot_id"], r["strikes"]) for r in run("strikes", "--limit", "1")] == [("house:random", 4)]
    count_refusal(redis_conn, key_prefix, "192.0.2.9")
    assert run("refusals") == [{"address": "192.0.2.9", "refusals": 1}]


def test_the_real_command_answers_a_dead_redis_in_one_line(key_prefix: str) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "admin", "strikes"], cwd=REPO_ROOT,
                          env={"REDIS_URL": "redis://127.0.0.1:1/0", "TA_KEY_PREFIX": key_prefix,
                               "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("Error: Redis:") and len(done.stderr.strip().splitlines()) == 1


def test_suspend_an_account_from_the_command_line(run, redis_url: str, key_prefix: str) -> None:
    from core.arena.accounts import AccountStore

    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    account, key = AccountStore(conn, key_prefix).create()
    registry = BotRegistry(conn, key_prefix)
    bot = registry.register("cli-account-bot", ["sore-spot"], None, key=key)[0]["bot_id"]
    out = run("suspend-account", account["account_id"], "--reason", "spam ring")
    assert out["disabled"] is True and out["bots_changed"] == [bot]
    reason = f"account {account['account_id']}: spam ring"
    assert registry.suspension(bot) == f"suspended by the operator: {reason}"
    out = run("unsuspend-account", account["account_id"], "--reason", "appeal upheld")
    assert out["disabled"] is False and out["bots_changed"] == [bot] and registry.suspension(bot) is None
    assert "nope" in run("suspend-account", "nope", "--reason", "r", status=1)
