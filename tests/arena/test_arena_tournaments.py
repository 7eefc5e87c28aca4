"""Tournaments played by a real `python -m arena worker --tournaments` against real HTTP bots, through the
real API: a round's tables share their deals and stay secret until the round is over; a bot that forfeits
drops out and the event goes on to its end (core.arena.tournament_store, arena.jobs)."""

from __future__ import annotations

from typing import Any

from tests.api.api_helpers import bearer
from tests.waiting import wait_until

OPTIONS = {"rounds": 1}
HOUSE = ["heuristic", "random", "eps-0.3", "eps-0.6", "eps-0.9"]


def _register(client: Any, key: str, name: str, url: str) -> str:
    answer = client.post("/api/bots", json={"name": name, "games": ["sore-spot"], "url": url},
                         headers=bearer(key))
    assert answer.status_code == 201, answer.get_json()
    return str(answer.get_json()["bot_id"])


def _create(client: Any, key: str, bots: list[str], rounds: int) -> dict[str, Any]:
    answer = client.post("/api/tournaments", headers=bearer(key), json={
        "game": "sore-spot", "format": "swiss", "players": 3, "rounds": rounds, "bots": bots,
        "options": OPTIONS})
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.get_json())


def _event(client: Any, url: str) -> dict[str, Any]:
    return dict(client.get(url).get_json())


def test_a_tables_deals_stay_secret_until_every_table_of_its_round_is_over(
        make_app, bot_process, tournament_worker) -> None:
    client = make_app(ALLOW_PRIVATE_BOT_URLS=True).test_client()
    key = client.post("/api/accounts").get_json()["api_key"]
    slow = _register(client, key, "slowpoke", bot_process(behaviour="sleep", delay_s=0.3))
    event = _create(client, key, [slow, *HOUSE], rounds=1)
    tables = event["schedule"][0]["tables"]
    mine = next(t for t in tables if slow in t["bots"])
    house_only = next(t for t in tables if slow not in t["bots"])
    tournament_worker()

    def held() -> dict[str, Any] | None:
        now = _event(client, event["url"])
        statuses = {t["match_id"]: t["status"] for t in now["schedule"][0]["tables"]}
        return now if statuses[house_only["match_id"]] == "held" else None

    now = wait_until(held, 60, "the house table over while the slow bot's still plays")
    assert now["schedule"][0]["status"] == "playing"
    assert {t["match_id"]: t["status"] for t in now["schedule"][0]["tables"]}[mine["match_id"]] in (
        "queued", "running")
    # The table that is over shows nothing of its deals: no seed, result, replay or decision log.
    match = client.get(house_only["url"]).get_json()
    assert match["status"] == "held" and match["seed"] is None and match["replays"] == []
    assert match["totals"] is None and match["games"] is None and match["places"] is None
    refused = client.get(f"{house_only['url']}/games/0/replay")
    assert refused.status_code == 409 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["type"].endswith("/problems/match-not-finished")
    own = client.get(f"{mine['url']}/bots/{slow}/decisions", headers=bearer(key))
    assert own.status_code == 409, own.get_json()  # the owner's own table, still in play
    assert all(t["places"] is None for t in now["schedule"][0]["tables"])
    assert {row["points"] for row in now["standings"]} == {0.0}
    page = client.get(house_only["web_url"]).get_data(as_text=True)
    assert "replay" not in page.lower() or "/games/0" not in page

    done = wait_until(lambda: (e := _event(client, event["url"]))["status"] == "finished" and e, 60,
                      "the event over")
    assert done["schedule"][0]["status"] == "done"
    seeds = set()
    for table in done["schedule"][0]["tables"]:
        match = client.get(table["url"]).get_json()
        assert match["status"] == "played" and len(match["replays"]) == 3
        assert table["places"] == match["places"]
        assert set(match["deltas"].values()) == {0.0}  # unrated
        seeds.add(match["seed"])
        assert client.get(match["replays"][0]).status_code == 200
    assert len(seeds) == 1  # both tables played the round's deals
    assert client.get(f"{mine['url']}/bots/{slow}/decisions", headers=bearer(key)).status_code == 200
    assert sorted(row["points"] for row in done["standings"]) == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]


def test_a_bot_that_forfeits_drops_out_and_the_event_goes_on_to_its_end(
        make_app, bot_process, tournament_worker) -> None:
    client = make_app(ALLOW_PRIVATE_BOT_URLS=True).test_client()
    key = client.post("/api/accounts").get_json()["api_key"]
    quitter = _register(client, key, "quitter", bot_process(behaviour="illegal"))
    event = _create(client, key, [quitter, *HOUSE], rounds=2)
    tournament_worker()
    done = wait_until(lambda: (e := _event(client, event["url"]))["status"] == "finished" and e, 90,
                      "the event over")
    first, second = done["schedule"]
    assert first["status"] == second["status"] == "done"
    assert quitter in {b for t in first["tables"] for b in t["bots"]}
    assert quitter not in {b for t in second["tables"] for b in t["bots"]} | set(second["byes"])
    assert len(second["tables"]) == 1 and len(second["byes"]) == 2  # five bots left, three seats
    match = client.get(next(t for t in first["tables"] if quitter in t["bots"])["url"]).get_json()
    assert match["forfeited"] == [quitter]
    rows = {row["bot_id"]: row for row in done["standings"]}
    assert rows[quitter]["dropped"] is True and rows[quitter]["tables"] == 1 and rows[quitter]["points"] == 0
    assert done["standings"][-1]["bot_id"] == quitter
    assert next(e for e in done["entrants"] if e["bot_id"] == quitter)["dropped"] is True
    assert all(t["status"] == "played" for r in done["schedule"] for t in r["tables"])
    # The second round's table never repeats a table of the first.
    played = {frozenset(t["bots"]) for t in first["tables"]}
    assert played.isdisjoint({frozenset(t["bots"]) for t in second["tables"]})
