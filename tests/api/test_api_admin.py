"""The admin API: only the operator token reaches it; suspensions, hidden names, voids, boards, audit log."""

from __future__ import annotations

import pytest
import redis
from api_helpers import assert_problem, bearer, join, open_table
from rq import Queue

from arena.jobs import play_match
from arena.scheduler import Scheduler
from core import keys
from core.arena.model import LadderConfig, MatchStatus, Member
from core.arena.moderation import hidden_name
from core.arena.store import ArenaStore
from core.settings import Settings
from tests.scenarios import match_spec

TOKEN = "operator-token-for-the-admin-tests-0123456789"
OPS = bearer(TOKEN)
HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")


@pytest.fixture
def admin(make_app):
    return make_app(ADMIN_TOKEN=TOKEN).test_client()


def register(client, name: str) -> dict:
    response = client.post("/api/bots", json={"name": name, "games": ["sore-spot"]})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_without_an_operator_token_configured_the_admin_api_is_closed(make_app) -> None:
    client = make_app(ADMIN_TOKEN=None).test_client()
    for path in ("/api/admin/audit", "/api/admin/strikes"):
        assert_problem(client.get(path, headers=OPS), 403, "admin-closed")
    assert_problem(client.post("/api/admin/bots/b/suspend", json={"reason": "x"}, headers=OPS), 403,
                   "admin-closed")
    assert_problem(client.get("/api/admin/audit"), 401, "token-required")


def test_only_the_operator_token_reaches_the_admin_api(admin) -> None:
    bot = register(admin, "owner-of-one")
    table = open_table(admin, ["open", "heuristic", "heuristic", "heuristic"], game="sore-spot")
    seat_token = join(admin, table["table_id"], 0)
    missing = admin.get("/api/admin/audit")
    assert_problem(missing, 401, "token-required")
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="admin"'
    for token in (bot["owner_token"], seat_token, "acct_an-account-key", TOKEN[:-1], TOKEN + "x", "x"):
        assert_problem(admin.get("/api/admin/audit", headers=bearer(token)), 403, "not-operator")
        assert_problem(admin.post(f"/api/admin/bots/{bot['bot_id']}/suspend", json={"reason": "mine"},
                                  headers=bearer(token)), 403, "not-operator")
    assert_problem(admin.get("/api/admin/audit", headers={"Authorization": f"Basic {TOKEN}"}), 401)
    assert admin.get(f"/api/bots/{bot['bot_id']}").get_json()["paused"] is False  # nothing happened
    assert admin.get("/api/admin/audit", headers=OPS).get_json() == []


def test_missing_targets_and_bad_bodies_are_clear_problems(admin) -> None:
    assert_problem(admin.get("/api/admin/bots/nope", headers=OPS), 404, "bot-not-found")
    for action in ("suspend", "unsuspend", "hide-name", "show-name"):
        assert_problem(admin.post(f"/api/admin/bots/nope/{action}", json={"reason": "r"}, headers=OPS), 404,
                       "bot-not-found")
    assert_problem(admin.post("/api/admin/matches/m-none/void", json={"reason": "r"}, headers=OPS), 404,
                   "match-not-found")
    bot = register(admin, "reasonless")
    assert_problem(admin.post(f"/api/admin/bots/{bot['bot_id']}/suspend", json={}, headers=OPS), 422,
                   "validation-failed")
    assert admin.get("/api/admin/audit", headers=OPS).get_json() == []


def test_suspend_hide_and_the_audit_log(admin) -> None:
    bot = register(admin, "bad-mouth")
    bot_id, owner = bot["bot_id"], bearer(bot["owner_token"])
    body = {"reason": "abusive name and spam", "actor": "alice"}
    suspended = admin.post(f"/api/admin/bots/{bot_id}/suspend", json=body, headers=OPS)
    assert suspended.status_code == 200
    assert suspended.get_json()["suspended"] is True and suspended.get_json()["changed"] is True
    public = admin.get(f"/api/bots/{bot_id}").get_json()
    assert public["paused"] is True
    assert public["paused_reason"] == "suspended by the operator: abusive name and spam"
    admin.patch(f"/api/bots/{bot_id}", json={"enabled": True}, headers=owner)  # the owner cannot lift it
    assert admin.get(f"/api/admin/bots/{bot_id}", headers=OPS).get_json()["suspended"] is True

    hidden = admin.post(f"/api/admin/bots/{bot_id}/hide-name", json=body, headers=OPS).get_json()
    assert hidden["name"] == "bad-mouth" and hidden["public_name"] == hidden_name(bot_id)
    assert admin.get(f"/api/bots/{bot_id}").get_json()["name"] == hidden_name(bot_id)
    assert [b["name"] for b in admin.get("/api/bots").get_json()] == [hidden_name(bot_id)]

    again = admin.post(f"/api/admin/bots/{bot_id}/unsuspend", json={"reason": "appeal"}, headers=OPS)
    assert again.get_json()["suspended"] is False and again.get_json()["changed"] is True
    assert admin.get(f"/api/bots/{bot_id}").get_json()["paused"] is False
    admin.post(f"/api/admin/bots/{bot_id}/show-name", json={"reason": "renamed"}, headers=OPS)
    assert admin.get(f"/api/bots/{bot_id}").get_json()["name"] == "bad-mouth"

    log = admin.get("/api/admin/audit", headers=OPS).get_json()
    assert [(e["action"], e["target"]) for e in log] == [
        ("bot.show-name", bot_id), ("bot.unsuspend", bot_id), ("bot.hide-name", bot_id),
        ("bot.suspend", bot_id)]
    assert log[-1]["actor"] == "alice" and log[-1]["reason"] == "abusive name and spam"
    assert log[-1]["via"] == "api (127.0.0.1)" and log[0]["actor"] == "operator"
    page = admin.get(f"/api/admin/audit?limit=2&before={log[1]['id']}", headers=OPS).get_json()
    assert admin.get("/api/admin/audit?before=0-0", headers=OPS).get_json() == []  # older than anything
    for not_an_id in ("move", "1-2-3", "99999999999999999999"):  # once a Redis error: a 500
        refused = admin.get(f"/api/admin/audit?before={not_an_id}", headers=OPS)
        assert refused.status_code == 422 and "as the audit answered it" in refused.text, refused.text
    assert [e["action"] for e in page] == ["bot.hide-name", "bot.suspend"]


def test_void_a_rated_match_once(admin, redis_url: str, key_prefix: str) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member.house(n) for n in HOUSE]
    for match_id in ("m1", "mq"):
        store.create_match(match_spec(match_id, entrants, seed=3, deadline_ms=200))
    play_match(store, "m1", worker="w")
    deltas = store.match("m1")["result"]["deltas"]
    assert_problem(admin.post("/api/admin/matches/mq/void", json={"reason": "r"}, headers=OPS), 409,
                   "match-not-voidable")
    response = admin.post("/api/admin/matches/m1/void", json={"reason": "fixed deal", "actor": "bob"},
                          headers=OPS)
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == MatchStatus.VOID and body["voided"]["deltas"] == deltas
    assert body["voided"]["by"] == "bob"
    assert all(rating == pytest.approx(1500.0, abs=1e-9) for rating in store.ratings("ss").values())
    problem = assert_problem(admin.post("/api/admin/matches/m1/void", json={"reason": "again"}, headers=OPS),
                             409, "match-not-voidable")
    assert problem["match_status"] == "void" and "voided already" in problem["detail"]
    public = admin.get("/api/matches/m1").get_json()
    assert public["status"] == "void"


def test_refusals_are_counted_per_client_address(make_app) -> None:
    client = make_app(ADMIN_TOKEN=TOKEN, LIMIT_REGISTRATION="2/minute", MAX_BOTS_PER_ADDRESS=1).test_client()
    register(client, "first")
    assert_problem(client.post("/api/bots", json={"name": "second", "games": ["sore-spot"]}), 409,
                   "bot-quota-exceeded")
    assert_problem(client.post("/api/bots", json={"name": "third", "games": ["sore-spot"]}), 429,
                   "rate-limited")
    board = client.get("/api/admin/refusals", headers=OPS).get_json()
    assert board == [{"address": "127.0.0.1", "refusals": 2}]


def test_the_strike_board(admin, redis_url: str, key_prefix: str) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    bot = register(admin, "striker")
    store.redis.zadd(keys.arena_ratings(key_prefix, "ss"), {bot["bot_id"]: 1500.0})
    store.redis.hset(keys.arena_stats(key_prefix, "ss", bot["bot_id"]), mapping={"strikes": 9, "forfeits": 2})
    rows = admin.get("/api/admin/strikes?limit=3", headers=OPS).get_json()
    assert rows[0]["bot_id"] == bot["bot_id"] and rows[0]["name"] == "striker" and rows[0]["strikes"] == 9
    assert_problem(admin.get("/api/admin/strikes?limit=0", headers=OPS), 422, "validation-failed")


def test_a_hidden_name_leaves_the_rankings_and_the_web_page(admin, redis_url: str, key_prefix: str) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=0))
    bot = register(admin, "rude-name-bot")
    Scheduler(store, Queue(keys.arena_queue(key_prefix), connection=redis.Redis.from_url(redis_url)),
              Settings(redis_url, key_prefix, True)).sync_members(store.ladder("ss"))
    assert "rude-name-bot" in admin.get("/ladders/ss").get_data(as_text=True)
    admin.post(f"/api/admin/bots/{bot['bot_id']}/hide-name", json={"reason": "slur"}, headers=OPS)
    ranking = admin.get("/api/ladders/ss").get_json()
    names = {row["bot_id"]: row["name"] for row in ranking["ranking"] + ranking["new"]}
    assert names[bot["bot_id"]] == hidden_name(bot["bot_id"])
    page = admin.get("/ladders/ss").get_data(as_text=True)
    assert "rude-name-bot" not in page and hidden_name(bot["bot_id"]) in page
    # Nobody can pose as a hidden bot; the name itself stays taken.
    assert_problem(admin.post("/api/bots", json={"name": hidden_name("0" * 16), "games": ["sore-spot"]}),
                   409, "bot-name-reserved")
    assert_problem(admin.post("/api/bots", json={"name": "rude-name-bot", "games": ["sore-spot"]}), 409,
                   "bot-name-taken")
    admin.post(f"/api/admin/bots/{bot['bot_id']}/suspend", json={"reason": "spam"}, headers=OPS)
    page = admin.get(f"/ladders/ss/bots/{bot['bot_id']}").get_data(as_text=True)
    assert "suspended by the operator: spam" in page and "rude-name-bot" not in page


def test_a_deleted_bot_leaves_the_operator_lists(admin) -> None:
    bot = register(admin, "short-lived")
    admin.post(f"/api/admin/bots/{bot['bot_id']}/suspend", json={"reason": "spam"}, headers=OPS)
    assert admin.delete(f"/api/bots/{bot['bot_id']}", headers=bearer(bot["owner_token"])).status_code == 204
    assert_problem(admin.get(f"/api/admin/bots/{bot['bot_id']}", headers=OPS), 404, "bot-not-found")
    assert [e["target"] for e in admin.get("/api/admin/audit", headers=OPS).get_json()] == [bot["bot_id"]]


def test_suspending_an_account_refuses_its_key_and_suspends_its_bots_and_lifting_it_only_undoes_that(
        admin) -> None:
    account = admin.post("/api/accounts").get_json()
    account_id, key = account["account_id"], bearer(account["api_key"])
    bots = [admin.post("/api/bots", json={"name": f"acct-bot-{i}", "games": ["sore-spot"]}, headers=key)
            .get_json()["bot_id"] for i in range(3)]
    alone = bots[0]
    assert admin.post(f"/api/admin/bots/{alone}/suspend", json={"reason": "its own"}, headers=OPS)\
        .status_code == 200

    suspended = admin.post(f"/api/admin/accounts/{account_id}/suspend", json={"reason": "ring of fakes"},
                           headers=OPS)
    assert suspended.status_code == 200, suspended.get_json()
    assert suspended.get_json()["disabled"] is True
    assert sorted(suspended.get_json()["bots_changed"]) == sorted(bots[1:])  # bots[0] was suspended already
    for bot_id in bots:
        assert admin.get(f"/api/bots/{bot_id}").get_json()["paused"] is True
    assert_problem(admin.get("/api/account", headers=key), 403, "account-disabled")
    assert_problem(admin.post("/api/bots", json={"name": "dodger", "games": ["sore-spot"]}, headers=key), 403,
                   "account-disabled")
    assert_problem(admin.delete(f"/api/bots/{bots[1]}", headers=key), 403, "account-disabled")

    lifted = admin.post(f"/api/admin/accounts/{account_id}/unsuspend", json={"reason": "appeal"}, headers=OPS)
    assert sorted(lifted.get_json()["bots_changed"]) == sorted(bots[1:])
    assert admin.get("/api/account", headers=key).status_code == 200
    assert [admin.get(f"/api/bots/{b}").get_json()["paused"] for b in bots] == [True, False, False]
    actions = [entry["action"] for entry in admin.get("/api/admin/audit", headers=OPS).get_json()]
    assert actions.count("account.suspend") == 1 and actions.count("account.unsuspend") == 1
    assert_problem(admin.post("/api/admin/accounts/nope/suspend", json={"reason": "r"}, headers=OPS), 404,
                   "account-not-found")


def test_the_token_helpers_say_what_their_examples_show() -> None:
    import doctest

    import core.tokens

    result = doctest.testmod(core.tokens)
    assert result.attempted >= 4 and result.failed == 0
