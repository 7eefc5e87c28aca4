"""Every HTML answer's security headers, no inline script or style, and bot-chosen text reaching pages only
escaped; a bot's record paged on its page. Real Redis, the Flask app, a real misbehaving bot on 127.0.0.1."""

from __future__ import annotations

import re

import pytest
import redis

from arena.botserver import BotServerConfig, serve_bot
from arena.jobs import play_match
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")
HOSTILE = '<script>alert(1)</script>"onmouseover=alert(2) x=\''


@pytest.fixture
def arena(client, redis_url: str, key_prefix: str, monkeypatch) -> dict:
    """A ladder where a bot with a hostile display name played (and forfeited) two matches."""
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "true")  # the bot listens on 127.0.0.1
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    # Display names come from the registry (which only takes plain names); the pages must not rely on that.
    hostile = Member("b-hostile", MemberKind.HTTP, url="http://127.0.0.1:1", name=HOSTILE)
    bot = serve_bot(BotServerConfig(behaviour="illegal"))
    try:
        for number in range(2):
            ratings = store.ratings("ss")
            entrants = [Member(hostile.bot_id, MemberKind.HTTP, url=bot.url, name=HOSTILE),
                        *(Member.house(n) for n in HOUSE)]
            store.set_members("ss", [entrants[0]])
            spec = match_spec(f"m-hostile{number}", entrants, seed=number, strike_limit=2, ratings=ratings,
                              matches={m.bot_id: number for m in entrants})
            store.create_match(spec)
            play_match(store, spec.match_id, worker="test")
    finally:
        bot.stop()
    return {"store": store}


def html_pages(client) -> dict[str, object]:
    pages = {url: client.get(url) for url in (
        "/", "/ladders/ss", "/ladders/ss?fragment=1", "/ladders/ss/bots/b-hostile", "/matches/m-hostile0",
        "/matches/m-hostile0/live", "/matches/m-hostile0/games/0", "/ladders/nope", "/replay", "/api/docs")}
    return pages


def test_every_html_answer_carries_the_security_headers(client, arena) -> None:
    for url, response in html_pages(client).items():
        assert response.mimetype == "text/html", url
        policy = response.headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["default-src"] == "'self'" and directives["frame-ancestors"] == "'none'", url
        assert directives["style-src"] == "'self'" and directives["object-src"] == "'none'", url
        assert "unsafe" not in policy and "*" not in policy, url
        if url != "/api/docs":  # our own pages have no inline script at all: no hash needed
            assert directives["script-src"] == "'self'", url
        assert response.headers["X-Content-Type-Options"] == "nosniff", url
        assert response.headers["Referrer-Policy"] == "same-origin", url
        assert response.headers["X-Frame-Options"] == "DENY", url
    assert client.get("/ladders/nope").status_code == 404
    api = client.get("/api/ladders/ss")
    assert api.headers["X-Content-Type-Options"] == "nosniff" and "Content-Security-Policy" not in api.headers


def test_the_swagger_pages_inline_script_is_allowed_by_its_hash_only(client) -> None:
    import base64
    import hashlib

    response = client.get("/api/docs")
    [script] = re.findall(r"<script>(.*?)</script>", response.get_data(as_text=True), re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    script_src = next(d for d in response.headers["Content-Security-Policy"].split(";") if "script-src" in d)
    assert script_src.split() == ["script-src", "'self'", f"'sha256-{digest}'"]


def test_pages_have_no_inline_script_style_or_event_handler(client, arena) -> None:
    for url, response in html_pages(client).items():
        if url == "/api/docs":
            continue
        page = response.get_data(as_text=True)
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page), url
        assert "<style" not in page and not re.search(r"\sstyle=", page), url
        assert not re.search(r"<[^>]+\son[a-z]+=", page), url


def test_text_bots_choose_reaches_pages_only_escaped(client, arena) -> None:
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for url, response in html_pages(client).items():
        page = response.get_data(as_text=True)
        assert "<script>alert" not in page and '"onmouseover' not in page, url
        if url in ("/ladders/ss", "/ladders/ss/bots/b-hostile", "/matches/m-hostile0"):
            assert escaped in page, url  # shown, as text


def test_a_bots_page_pages_through_its_record_with_strike_reasons(client, arena, monkeypatch) -> None:
    import api.web

    monkeypatch.setattr(api.web, "BOT_PAGE_MATCHES", 1)
    first = client.get("/ladders/ss/bots/b-hostile").get_data(as_text=True)
    assert "m-hostile1" in first and "m-hostile0" not in first
    assert first.count("<b>illegal_move</b>") == 2 and "forfeited" in first
    older = re.search(r'id="older-matches" href="([^"]+)"', first).group(1).replace("&amp;", "&")
    second = client.get(older).get_data(as_text=True)
    assert "m-hostile0" in second and "m-hostile1" not in second and 'id="older-matches"' not in second
    assert 'id="newest-matches"' in second
    # The record outlives the match documents the ladder trims.
    arena["store"].trim_recent("ss", keep=0)
    again = client.get("/ladders/ss/bots/b-hostile").get_data(as_text=True)
    assert "m-hostile1" in again and "<b>illegal_move</b>" in again
