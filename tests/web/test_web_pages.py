"""The web page's server side: rendered HTML over a real Redis with real rated matches; the pure functions."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.web import data
from core.arena.model import Member, MemberKind
from core.arena.ranking import ranking
from tests.scenarios import match_spec
from tests.web.site import HOUSE, build_site

STATIC = Path(__file__).resolve().parents[2] / "api" / "web" / "static"


@pytest.fixture(scope="module")
def site_app(redis_url: str, session_prefix: str) -> Iterator[tuple]:
    """One populated arena for the whole module (building it plays 24 real games)."""
    from api import create_app

    prefix = f"{session_prefix}web-pages:"
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, "KEY_PREFIX": prefix,
                      "LIMIT_TABLE_CREATION": "1000/minute"})
    yield app, build_site(app, redis_url, prefix, matches=3)


@pytest.fixture
def site(site_app) -> dict:
    return site_app[1]


@pytest.fixture
def site_client(site_app):
    return site_app[0].test_client()


def attribute_json(page: str, name: str) -> object:
    match = re.search(rf'{name}="([^"]*)"', page)
    assert match, f"no {name} attribute"
    return json.loads(html.unescape(match.group(1)))


def test_index_shows_the_ladder_with_every_bot_chart_data_and_recent_matches(site_client, site) -> None:
    response = site_client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "Spot Hearts" in page and "Sore Spot" in page  # one tab per ladder, Spot Hearts first
    rows = re.findall(r'<tr class="rank-(\d+)[^"]*" data-bot="([^"]+)"', page)
    assert [int(rank) for rank, _ in rows] == [1, 2, 3, 4]
    assert {bot for _, bot in rows} == {f"house:{name}" for name in HOUSE}
    series = attribute_json(page, "data-series")
    assert len(series) == 4 and all(len(s["points"]) == 4 for s in series)  # start + 3 rated matches
    for match_id in site["matches"]["spot-hearts-4p"]:
        assert f"/matches/{match_id}" in page
    assert site["live_table"] in page  # the table still being played is listed for spectators
    assert site["finished_table"] not in page
    # Everything the page loads is ours: no CDN.
    for src in re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', page):
        assert src.startswith("/assets/"), src


def test_fragment_is_the_live_part_only(site_client, site) -> None:
    page = site_client.get("/ladders/sore-spot-4p?fragment=1").get_data(as_text=True)
    assert "<html" not in page and 'id="ladder-table"' in page
    assert "sore-spot-4p-m0" in page


def test_static_assets_are_served_from_the_package(client) -> None:
    for name in ("chart.js", "cardtable.js", "live.js", "arena.css"):
        response = client.get(f"/assets/{name}")
        assert response.status_code == 200 and response.get_data() == (STATIC / name).read_bytes()
        response.close()


def test_bot_page_has_its_history_chart(site_client, site) -> None:
    page = site_client.get("/ladders/spot-hearts-4p/bots/house:heuristic").get_data(as_text=True)
    series = attribute_json(page, "data-series")
    assert series[0]["bot_id"] == "house:heuristic" and len(series[0]["points"]) == 4
    assert page.count('class="match"') == 3


def test_bot_page_says_why_a_bot_is_not_matched(site_app, site_client, redis_url) -> None:
    import redis

    from core.arena.store import ArenaStore

    store = ArenaStore(redis.Redis.from_url(redis_url), site_app[0].config["KEY_PREFIX"])
    url = "/ladders/spot-hearts-4p/bots/house:heuristic"
    assert 'id="paused-reason"' not in site_client.get(url).get_data(as_text=True)
    store.block_urls({"house:heuristic": "resolves to 127.0.0.1 <loopback>"})
    try:
        page = site_client.get(url).get_data(as_text=True)
    finally:
        store.block_urls({"house:heuristic": None})
    assert "url_disallowed: resolves to 127.0.0.1 &lt;loopback&gt;" in page and "badge warn\">paused" in page


def test_match_page_links_every_game_replay(site_client, site) -> None:
    match_id = site["matches"]["spot-hearts-4p"][0]
    page = site_client.get(f"/matches/{match_id}").get_data(as_text=True)
    for game_no in range(4):  # duplicate: one game per rotation
        assert f"/matches/{match_id}/games/{game_no}" in page


def test_replay_page_embeds_frames_with_all_hands_and_names(site_client, site) -> None:
    match_id = site["matches"]["sore-spot-4p"][1]
    page = site_client.get(f"/matches/{match_id}/games/2").get_data(as_text=True)
    frames = attribute_json(page, "data-frames")
    seats = attribute_json(page, "data-seats")
    assert sorted(seats) == sorted(HOUSE)
    assert frames[0]["kind"] == "deal" and all(len(h) == 13 for h in frames[0]["hands"])
    assert frames[-1]["kind"] == "end"


def test_finished_table_redirects_to_its_replay_and_live_page_holds_no_cards(site_client, site) -> None:
    response = site_client.get(f"/tables/{site['finished_table']}")
    assert response.status_code == 302 and response.headers["Location"].endswith("/replay")
    replay = site_client.get(f"/tables/{site['finished_table']}/replay").get_data(as_text=True)
    assert attribute_json(replay, "data-frames")[-1]["kind"] == "end"
    live = site_client.get(f"/tables/{site['live_table']}").get_data(as_text=True)
    assert "data-frames" not in live
    assert f"/api/tables/{site['live_table']}" in live  # the spectator view it polls: no hands in it
    public = site_client.get(f"/api/tables/{site['live_table']}").get_json()
    assert "hand" not in public["view"] and "hands" not in public["view"]


def test_unfinished_and_unknown_things_are_error_pages(site_client, site) -> None:
    for url in ("/ladders/nope", "/matches/nope", "/ladders/spot-hearts-4p/bots/nobody",
                f"/matches/{site['matches']['spot-hearts-4p'][0]}/games/9", "/tables/nope"):
        response = site_client.get(url)
        assert response.status_code == 404 and response.mimetype == "text/html", url
        assert "Back to the ladders" in response.get_data(as_text=True)
    assert site_client.get("/api/matches/nope").mimetype == "application/problem+json"  # the API is unchanged
    site["store"].create_match(_queued_spec())
    in_play = site_client.get("/ladders/spot-hearts-4p?fragment=1").get_data(as_text=True)
    assert 'id="in-play"' in in_play and "m-queued" in in_play  # listed under "Now playing"
    response = site_client.get("/matches/m-queued/games/0")
    assert response.status_code == 409 and "queued" in response.get_data(as_text=True)
    assert site_client.get(f"/tables/{site['live_table']}/replay").status_code == 409  # not over: no hands


def _queued_spec():
    entrants = [Member.house(name) for name in HOUSE]
    return match_spec("m-queued", entrants, ladder_id="spot-hearts-4p", game="spot-hearts", options={},
                      duplicate=True)


def test_empty_arena_says_so(client) -> None:
    page = client.get("/").get_data(as_text=True)
    assert "No ladders yet" in page


# --- pure functions --------------------------------------------------------------------------------------

def test_ago() -> None:
    assert data.ago(100.0, now=101.0) == "just now"
    assert data.ago(100.0, now=142.0) == "42 s ago"
    assert data.ago(0.0) == ""
    assert data.ago(1000.0, now=1000.0 + 5 * 60 + 3) == "5 min ago"
    assert data.ago(0.5, now=0.5 + 3 * 3600) == "3 h ago"
    assert data.ago(1.0, now=1.0 + 2 * 86400) == "2 d ago"


def test_ranking_rows_win_share_kinds_and_departed_bots() -> None:
    members = {"a": Member("a", MemberKind.HTTP, url="http://x", name="alpha"), "h": Member.house("random")}
    stats = {"a": {"matches": 4, "wins": 1, "strikes": 2, "mean_latency_ms": 3.5},
             "h": {"matches": 0, "wins": 0, "strikes": 0, "mean_latency_ms": None},
             "gone": {"matches": 2, "wins": 2, "strikes": 0, "mean_latency_ms": None}}
    rows, new = data.ranking_rows(ranking([("gone", 1600.4), ("a", 1510.6), ("h", 1500.0)], members, stats,
                                          {"a"}))
    assert [r["rank"] for r in rows] == [1, 2]
    assert rows[0]["name"] == "gone" and rows[0]["kind"] == "left" and rows[0]["rating"] == 1600
    assert rows[1]["win_share"] == 0.25 and rows[1]["paused"] and rows[1]["latency_ms"] == 3.5
    assert all(r["provisional"] for r in rows)
    assert [r["bot_id"] for r in new] == ["h"] and "rank" not in new[0]  # no rated match: new, unranked
    assert new[0]["win_share"] is None and new[0]["kind"] == "house"


def test_ladder_page_lists_new_bots_apart_and_marks_provisional_ratings(client, redis_url,
                                                                       key_prefix) -> None:
    import redis

    from arena.jobs import play_match
    from core.arena.model import LadderConfig
    from core.arena.store import ArenaStore

    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member.house(n) for n in HOUSE]
    store.create_match(match_spec("m-new", entrants, seed=5, strike_limit=3))
    play_match(store, "m-new", worker="test")
    store.set_members("ss", [Member("b-fresh", MemberKind.HTTP, url="http://127.0.0.1:9", name="freshling")])
    page = client.get("/ladders/ss").get_data(as_text=True)
    table = page.split('id="ladder-table"')[1].split("</table>")[0]
    assert [int(r) for r in re.findall(r'<tr class="rank-(\d+)', table)] == [1, 2, 3, 4]
    assert "b-fresh" not in table
    assert table.count('class="provisional"') == 4  # one rated match each: all provisional
    new = page.split('id="new-bots"')[1].split("</section>")[0]
    assert "New" in new and 'data-new-bot="b-fresh"' in new and "freshling" in new
    assert ">?</span>" in table
    bot_page = client.get("/ladders/ss/bots/b-fresh").get_data(as_text=True)
    assert "not ranked" in bot_page and "rank None" not in bot_page


def test_seat_labels() -> None:
    names = {"b1": "alpha"}
    assert data.seat_label("b1", "bot", names) == "alpha"
    assert data.seat_label("house:heuristic", "bot", names) == "heuristic"
    assert data.seat_label("eps-0.3", "house", names) == "eps-0.3"
    assert data.seat_label(None, "open", names) == "open"
    assert data.seat_label("gone", "bot", names) == "gone"


def test_rating_series_starts_from_the_rating_before_the_first_match() -> None:
    history = [{"at": 30.0, "rating": 1520.0, "delta": 5.0}, {"at": 20.0, "rating": 1515.0, "delta": 20.0},
               {"at": 10.0, "rating": 1495.0, "delta": -5.0}]
    assert data.rating_series(history) == [[9.0, 1500.0], [10.0, 1495.0], [20.0, 1515.0], [30.0, 1520.0]]
    # Cut to the newest points, the series no longer claims to start from the initial rating.
    assert data.rating_series(history, limit=2) == [[20.0, 1515.0], [30.0, 1520.0]]


def test_bot_page_lists_the_strikes_of_a_misbehaving_http_bot(client, redis_url, key_prefix,
                                                               monkeypatch) -> None:
    import redis

    from arena.botserver import BotServerConfig, serve_bot
    from arena.jobs import play_match
    from core.arena.model import LadderConfig
    from core.arena.store import ArenaStore

    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "true")  # the bot listens on 127.0.0.1
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3]))
    cheater = serve_bot(BotServerConfig(behaviour="illegal", name="cheater"))
    try:
        entrants = [Member("b-cheat", MemberKind.HTTP, url=cheater.url, name="cheater"),
                    *(Member.house(n) for n in HOUSE[:3])]
        spec = match_spec("m-strikes", entrants, seed=3, strike_limit=3)
        store.create_match(spec)
        play_match(store, "m-strikes", worker="test")
    finally:
        cheater.stop()
    page = client.get("/ladders/ss/bots/b-cheat").get_data(as_text=True)
    record = page.split('id="bot-matches"')[1].split("</section>")[0]
    assert "m-strikes" in record and "forfeited" in record and "place 4 of 4" in record
    listed = re.findall(r"<b>(\w+)</b>", record)
    assert listed == ["illegal_move"] * 3  # the strike limit, then the forfeit autopilot
    match_page = client.get("/matches/m-strikes").get_data(as_text=True)
    assert "forfeited" in match_page
