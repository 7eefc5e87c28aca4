"""A small but real arena on a test Redis: ladders, rated house-bot matches, a live and a finished table.

Shared by the web tests and usable by hand (``python -m tests.web.site``) to look at the page.
"""

from __future__ import annotations

from typing import Any

import redis

import engine
from arena.jobs import play_match
from core.arena.model import LadderConfig, Member
from core.arena.store import ArenaStore
from engine.bots import make_bot
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")
LADDERS = (
    LadderConfig("spot-hearts-4p", "spot-hearts", 4, {"target": 60}, house_bots=HOUSE),
    LadderConfig("sore-spot-4p", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE),
)


def play_ladder_matches(store: ArenaStore, ladder: LadderConfig, matches: int, seed: int = 1,
                        first: int = 0) -> list[str]:
    """Rate `matches` real matches of the ladder's house bots (the arena's own job function, in-process)."""
    ids = []
    entrants = [Member.house(name) for name in ladder.house_bots]
    for number in range(first, first + matches):
        ratings = store.ratings(ladder.ladder_id)
        stats = store.stats(ladder.ladder_id, [m.bot_id for m in entrants])
        match_id = f"{ladder.ladder_id}-m{number}"
        seating = entrants[number % 4:] + entrants[:number % 4]
        spec = match_spec(match_id, seating, ladder_id=ladder.ladder_id, game=ladder.game,
                          options=ladder.options, seed=seed * 1000 + number, duplicate=ladder.duplicate,
                          deadline_ms=ladder.deadline_ms, strike_limit=ladder.strike_limit, ratings=ratings,
                          matches={m.bot_id: stats[m.bot_id]["matches"] for m in entrants})
        store.create_match(spec)
        play_match(store, match_id, worker="site-builder")
        ids.append(match_id)
    return ids


def play_table_through_api(client: Any, game: str, options: dict[str, Any],
                           moves: int | None = None) -> tuple[str, list[str]]:
    """Open a table of four open seats; play `moves` moves (None: all) over the HTTP API with engine bots."""
    body = {"game": game, "seats": ["open"] * 4, "options": options}
    table = client.post("/api/tables", json=body).get_json()
    table_id = table["table_id"]
    tokens = [client.post(f"/api/tables/{table_id}/seats/{s}/join").get_json()["token"] for s in range(4)]
    bots = [make_bot("heuristic", s) for s in range(4)]
    played = 0
    while moves is None or played < moves:
        public = client.get(f"/api/tables/{table_id}").get_json()
        if public["status"] == "over":
            break
        seat = public["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        state = client.get(f"/api/tables/{table_id}/seats/{seat}", headers=auth).get_json()
        move = bots[seat].choose(state["view"])
        answer = client.post(f"/api/tables/{table_id}/seats/{seat}/moves", headers=auth,
                             json={"move": move, "expected_version": state["version"]})
        assert answer.status_code == 200, answer.get_json()
        played += 1
    return table_id, tokens


def play_one_move(client: Any, table_id: str, tokens: list[str]) -> int:
    """One more move on a table (the first seat that must act, a heuristic choice); the new version."""
    seat = client.get(f"/api/tables/{table_id}").get_json()["to_act"][0]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    state = client.get(f"/api/tables/{table_id}/seats/{seat}", headers=auth).get_json()
    move = make_bot("heuristic", seat).choose(state["view"])
    answer = client.post(f"/api/tables/{table_id}/seats/{seat}/moves", headers=auth,
                         json={"move": move, "expected_version": state["version"]})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["version"]


def build_site(app: Any, redis_url: str, key_prefix: str, matches: int = 3) -> dict[str, Any]:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    match_ids = {}
    for ladder in LADDERS:
        store.save_ladder(ladder)
        match_ids[ladder.ladder_id] = play_ladder_matches(store, ladder, matches)
    client = app.test_client()
    finished, _ = play_table_through_api(client, "sore-spot", {"rounds": 1})
    live, live_tokens = play_table_through_api(client, "spot-hearts", {}, moves=9)
    return {"store": store, "matches": match_ids, "finished_table": finished, "live_table": live,
            "live_tokens": live_tokens, "games": list(engine.GAMES)}


if __name__ == "__main__":
    import sys
    import time

    from api import create_app
    from devstack.devredis import start_throwaway
    from tests.conftest import serving

    server = start_throwaway()
    app = create_app({"REDIS_URL": server.url, "KEY_PREFIX": "demo:", "ALLOW_PRIVATE_BOT_URLS": True})
    site = build_site(app, server.url, "demo:", matches=int(sys.argv[1]) if len(sys.argv) > 1 else 6)
    with serving(app) as base:
        print(base, site["finished_table"], site["live_table"], site["matches"], flush=True)
        time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 3600)
    server.stop()
