"""The live spectator feed of ladder matches: throttling, hidden information, and the API and web page.

Ladder games between HTTP bots are played inside a worker; the feed is the only way to watch them.
"""

from __future__ import annotations

import json
import random
import threading

import pytest
import redis

import engine
from arena.jobs import play_match
from arena.match import MatchRunner, make_drivers
from core.arena.live import WATCHED_TTL_S, LiveFeed, WatchedMatches, live_snapshot
from core.arena.matchgame import MatchGame
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec
from tests.waiting import wait_until

GAMES = [("sore-spot", 4, {"rounds": 1}), ("card-commons", 4, {}), ("sloppy-seconds", 3, {}),
         ("spot-hearts", 4, {})]


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_feed_publishes_at_most_every_interval_except_when_forced() -> None:
    published: list[dict] = []
    clock = FakeClock()
    feed = LiveFeed("m1", 1, published.append, every_s=0.25, clock=clock)
    game = engine.new_game("spot-hearts", 4, {}, seed=3)
    assert feed(0, game, ["a", "b", "c", "d"])  # the first frame always goes out
    clock.now += 0.1
    assert not feed(0, game, ["a", "b", "c", "d"])
    assert feed(0, game, ["a", "b", "c", "d"], force=True)  # a game's start or end is never dropped
    clock.now += 0.24
    assert not feed(0, game, ["a", "b", "c", "d"])
    clock.now += 0.01
    assert feed(0, game, ["a", "b", "c", "d"])
    assert len(published) == 3
    assert published[-1]["match_id"] == "m1" and published[-1]["seating"] == ["a", "b", "c", "d"]



def test_between_a_games_start_and_end_the_feed_publishes_only_while_somebody_watches() -> None:
    from core.arena.live import LiveFeed

    now = [0.0]
    frames: list[dict] = []
    watched = [False]
    looks = [0]

    def is_watched() -> bool:
        looks[0] += 1
        return watched[0]

    feed = LiveFeed("m", 1, frames.append, every_s=0.25, clock=lambda: now[0], watched=is_watched,
                    check_every_s=1.0)
    game = engine.new_game("spot-hearts", 4, {}, seed=3)
    assert feed(0, game, ["a", "b", "c", "d"], force=True)  # a game's start: always
    now[0] = 0.5
    assert not feed(0, game, ["a", "b", "c", "d"])  # nobody watches: no frame
    now[0] = 0.9
    watched[0] = True
    assert not feed(0, game, ["a", "b", "c", "d"]) and looks[0] == 1  # looked under a second ago
    now[0] = 1.6
    assert feed(0, game, ["a", "b", "c", "d"]) and looks[0] == 2  # a second on: watched, frames again
    now[0] = 1.7
    assert not feed(0, game, ["a", "b", "c", "d"])  # still at most every 0.25 s
    now[0] = 1.9
    assert feed(0, game, ["a", "b", "c", "d"]) and looks[0] == 2  # no new look within the second
    watched[0] = False
    now[0] = 3.0
    assert not feed(0, game, ["a", "b", "c", "d"]) and looks[0] == 3
    assert feed(0, game, ["a", "b", "c", "d"], force=True)  # a game's end: always, watched or not
    assert len(frames) == 4


def test_a_worker_process_learns_which_of_its_matches_are_watched_in_one_read_a_second() -> None:
    clock = FakeClock()
    watched = {"m1"}
    reads: list[float] = []

    def fetch() -> set[str]:
        reads.append(clock.now)
        if watched is None:
            raise redis.ConnectionError("gone")
        return set(watched)

    matches = WatchedMatches(fetch, every_s=1.0, clock=clock)
    assert "m1" in matches and "m2" not in matches
    for _ in range(50):  # every match in flight asks; Redis is read once
        clock.now += 0.01
        assert "m1" in matches
    assert len(reads) == 1
    watched.add("m2")
    assert "m2" not in matches  # not before the second is up
    clock.now += 0.5
    assert "m2" in matches and len(reads) == 2
    watched = None  # noqa: F841 - Redis goes away: nobody counts as watched until a read succeeds
    clock.now += 1.0
    assert "m1" not in matches and len(reads) == 3


def test_a_watch_lasts_its_time_and_the_set_of_watched_matches_cleans_itself(redis_conn) -> None:
    store = ArenaStore(redis_conn, "watch-test:")
    store.mark_watched("m1")
    store.mark_watched("m2")
    assert store.watched_matches() == {"m1", "m2"} and store.watched("m1") and not store.watched("m3")
    key = "watch-test:arena:watched"
    redis_conn.zadd(key, {"m1": 1.0})  # a watch that ended long ago
    assert store.watched_matches() == {"m2"}
    store.mark_watched("m3")  # a new watch sweeps the ended ones out
    assert set(redis_conn.zrange(key, 0, -1)) == {"m2", "m3"}
    assert 0 < redis_conn.ttl(key) <= 2 * WATCHED_TTL_S  # nobody watching for a while: the set goes too
    redis_conn.delete(key)


@pytest.mark.parametrize(("game_id", "players", "options"), GAMES)
def test_a_snapshot_never_shows_a_card_still_in_a_hand_nor_the_seed(game_id, players, options) -> None:
    rng = random.Random(f"live:{game_id}")
    for seed in range(5):
        game = engine.new_game(game_id, players, options, seed=seed)
        stop_at = rng.randrange(1, 120)
        while not game.over and game.version < stop_at:
            seat = game.to_act()[0]
            decision = game.view(seat)["decision"]
            legal = decision["legal"]
            game.apply(seat, rng.sample(legal, decision["count"]) if decision["kind"] == "pass"
                       else rng.choice(legal))
        text = json.dumps(live_snapshot("m", 0, 1, [f"b{i}" for i in range(players)], game))
        held = {card for seat in range(players) for card in game.view(seat)["hand"]}
        shown = {card for card in held if f'"{card}"' in text}
        assert not shown, f"{game_id} seed {seed} move {game.version}: hand cards {shown} in the live feed"
        assert '"hand"' not in text and '"seed"' not in text and '"chosen"' not in text


def test_the_runner_reports_each_game_start_every_decision_and_each_game_end() -> None:
    entrants = [Member.house(n) for n in ("random", "heuristic", "eps-0.5")]
    spec = match_spec("obs", entrants, ladder_id="l", game="sloppy-seconds", options={}, seed=5,
                      duplicate=True, deadline_ms=500)
    calls: list[tuple[int, int, bool]] = []

    def observe(game_no: int, game: MatchGame, seating: list[str], force: bool, table_id: str | None) -> None:
        calls.append((game_no, game.version, force))

    result = MatchRunner(spec, make_drivers(spec, True), observer=observe).run()
    for game in result.games:
        mine = [c for c in calls if c[0] == game["game_no"]]
        assert mine[0] == (game["game_no"], 0, True) and mine[-1] == (game["game_no"], game["moves"], True)
        assert len(mine) == game["moves"] + 2


def test_a_running_ladder_match_can_be_watched_through_the_api_and_the_page(
        client, redis_url, key_prefix, bot_server, monkeypatch) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")  # the bots listen on 127.0.0.1
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    # Bots that take 5 ms per move: the match runs for a few seconds, long enough to be watched.
    bots = [bot_server("sleep", delay_s=0.005, name=f"slow{i}") for i in range(4)]
    members = [Member(f"bot{i}", MemberKind.HTTP, url=bot.url, name=f"Slow {i}")
               for i, bot in enumerate(bots)]
    store.save_ladder(LadderConfig("sh-live", "spot-hearts", 4, {"target": 50}, house_bots=()))
    store.set_members("sh-live", members)
    spec = match_spec("mlive", members, ladder_id="sh-live", game="spot-hearts", options={"target": 50},
                      seed=21, duplicate=True)
    store.create_match(spec)
    waiting = client.get("/api/matches/mlive/live").get_json()
    assert waiting["match_status"] == "queued" and waiting["view"] is None and waiting["status"] == "playing"

    worker = threading.Thread(target=play_match, args=(store, "mlive", "test-worker"))
    worker.start()
    seen: list[dict] = []

    def watched() -> bool:
        """A look at the feed; whether the match is over or has been seen at three moments already."""
        live = client.get("/api/matches/mlive/live")
        assert live.status_code == 200
        body = live.get_json()
        if body["view"] is not None and body["match_status"] == "running":
            seen.append(body)
        return not worker.is_alive() or len({(s["game_no"], s["version"]) for s in seen}) >= 3

    wait_until(watched, 60, "the match watched at three moments, or over", interval=0.1)
    worker.join(60)
    assert len({(s["game_no"], s["version"]) for s in seen}) >= 3, "the feed did not move while the match ran"
    frame = seen[-1]
    names = {m.bot_id: m.name for m in members}
    assert frame["seat_names"] == [names[bot] for bot in frame["seating"]]
    assert "hand" not in frame["view"] and "seed" not in json.dumps(frame)
    page = client.get("/matches/mlive/live")
    assert page.status_code == 200 and b"/api/matches/mlive/live" in page.data

    done = client.get("/api/matches/mlive/live").get_json()
    assert done["match_status"] == "rated" and done["status"] == "over"
    assert done["game_no"] == 3 and done["game_over"] is True  # the final frame: last game's end
    assert client.get("/api/matches/nope/live").mimetype == "application/problem+json"
