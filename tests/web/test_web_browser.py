"""The page in a real headless Chromium (Selenium + Debian's chromium/chromedriver) against a real server.

It loads, lists the ladder's bots, draws the Elo chart, refreshes itself when a match is rated, steps a replay
forward trick by trick with every hand open, and shows a live table with card backs only. Screenshots go to
$TA_SCREENSHOT_DIR when set (look at them), else to a temporary folder.

Skips (with the reason) only where no browser can be had: no chromium/chromedriver binary or no selenium —
and never under CI, where that fails the run (tests/web/browser_guard.py). CI installs them (`.ci/run`:
apt-get install chromium chromium-driver).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.bots import make_bot
from tests.conftest import serving
from tests.web.browser_guard import find_browser
from tests.web.site import LADDERS, build_site, play_ladder_matches, play_one_move

CHROMIUM, CHROMEDRIVER, webdriver = find_browser()

from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000"]


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("TA_SCREENSHOT_DIR")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="ta-chromium-")
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def site(redis_url: str, session_prefix: str) -> Iterator[dict]:
    from api import create_app

    prefix = f"{session_prefix}web-browser:"
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, "KEY_PREFIX": prefix, "WEB_REFRESH_MS": 500,
                      "LIMIT_TABLE_CREATION": "1000/minute"})
    built = build_site(app, redis_url, prefix, matches=3)
    with serving(app) as base_url:
        yield {**built, "app": app, "base": base_url, "prefix": prefix, "redis_url": redis_url}


def wait(browser, condition, timeout: float = 10.0):
    return WebDriverWait(browser, timeout, poll_frequency=0.1).until(lambda _: condition())


LADDER_STATE = """
const rows = [...document.querySelectorAll('#ladder-table tbody tr')];
return {
  names: rows.map(r => r.querySelector('td.bot a').textContent),
  elo: rows.map(r => parseInt(r.querySelector('td.elo').textContent, 10)),
  games: rows.map(r => r.querySelector('td:nth-child(5)').textContent.trim()),
  paths: [...document.querySelectorAll('#elo-chart svg path.series')].map(
      p => ({d: p.getAttribute('d'), width: p.getBoundingClientRect().width})),
  sparks: document.querySelectorAll('svg.spark polyline').length,
  legend: (document.querySelector('#elo-chart .legend') || {}).textContent || '',
  recent: (document.querySelector('#recent-matches .match-link') || {}).textContent || '',
  swaps: document.getElementById('live').getAttribute('data-swaps'),
};
"""


def ladder_state(browser) -> dict:
    """Everything the tests read from the ladder page, in one script call (the page may swap meanwhile)."""
    return browser.execute_script(LADDER_STATE)


def test_ladder_page_lists_the_bots_and_draws_the_elo_chart(browser, site, shots) -> None:
    browser.get(site["base"] + "/")
    assert "Spot Hearts" in browser.title
    state = wait(browser, lambda: (s := ladder_state(browser))["paths"] and s)
    assert sorted(state["names"]) == sorted(LADDERS[0].house_bots)
    assert state["elo"] == sorted(state["elo"], reverse=True) and len(set(state["elo"])) > 1
    # The chart module drew one SVG path per bot, each through every rating point.
    assert len(state["paths"]) == 4
    for path in state["paths"]:
        assert path["d"].count("L") == 3  # start + 3 matches = 4 points
        assert path["width"] > 200
    assert state["sparks"] == 4
    assert all(name in state["legend"] for name in state["names"])
    browser.save_screenshot(str(shots / "ladder.png"))


def test_page_refreshes_itself_only_when_something_changed(browser, site) -> None:
    browser.get(site["base"] + "/ladders/sore-spot-4p")
    assert ladder_state(browser)["recent"] == "sore-spot-4p-m2"
    time.sleep(1.6)  # three refreshes (every 500 ms in this app): same content, so nothing is swapped
    assert ladder_state(browser)["swaps"] is None
    # A new rated match lands while the page is open (seeded differently from the site's own matches).
    play_ladder_matches(site["store"], LADDERS[1], 4, seed=77, first=3)
    # A refresh renders the standings and the recent list in two reads, so it may catch the last match
    # between them: the next refresh then shows both.
    state = wait(browser, lambda: (s := ladder_state(browser))["recent"] == "sore-spot-4p-m6"
                 and set(s["games"]) == {"7"} and s)  # 3 + 4 matches each, refreshed in place
    assert len(state["paths"]) == 4 and all(p["d"].count("L") == 7 for p in state["paths"])  # redrawn


def test_replay_steps_forward_trick_by_trick_with_all_hands(browser, site, shots) -> None:
    match_id = site["matches"]["spot-hearts-4p"][2]
    browser.get(f"{site['base']}/matches/{match_id}")
    browser.find_element(By.PARTIAL_LINK_TEXT, "Replay game 1").click()
    replay = wait(browser, lambda: browser.find_element(By.ID, "replay"))
    assert replay.get_attribute("data-index") == "0"
    assert "the deal" in browser.find_element(By.ID, "frame-label").text
    hands = browser.find_elements(By.CSS_SELECTOR, "#felt .hand")
    assert [len(h.find_elements(By.CSS_SELECTOR, ".pc[data-card]")) for h in hands] == [13] * 4
    browser.find_element(By.ID, "next").click()  # the pass
    assert "passed" in browser.find_element(By.ID, "frame-label").text
    browser.find_element(By.ID, "next").click()  # the first trick
    assert replay.get_attribute("data-index") == "2"
    label = browser.find_element(By.ID, "frame-label").text
    assert label.startswith("Round 1, trick 1 of 13") and "takes it" in label
    trick = browser.find_elements(By.CSS_SELECTOR, "#felt .trick .pc")
    assert len(trick) == 4 and "2C" in [c.get_attribute("data-card") for c in trick]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#felt .trick .pc.take")) == 1
    hands = browser.find_elements(By.CSS_SELECTOR, "#felt .hand")
    assert [len(h.find_elements(By.CSS_SELECTOR, ".pc[data-card]")) for h in hands] == [12] * 4
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert replay.get_attribute("data-index") == "3"
    assert browser.find_element(By.ID, "frame-label").text.startswith("Round 1, trick 2 of 13")
    browser.save_screenshot(str(shots / "replay.png"))
    browser.find_element(By.ID, "last").click()
    assert browser.find_element(By.ID, "frame-label").text.startswith("Game over")


def test_replay_analyses_a_seat_and_jumps_to_its_costliest_decision(browser, site, shots) -> None:
    """The "Analyse" control asks the API (a real analysis worker runs it), shows the progress, then every
    candidate's value beside the seat's decisions, and the costliest decisions jump to their frame."""
    import subprocess
    import sys

    from devstack.devserve import stop
    from tests.conftest import REPO_ROOT

    match_id = site["matches"]["sore-spot-4p"][0]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": site["redis_url"],
           "TA_KEY_PREFIX": site["prefix"]}
    worker = subprocess.Popen([sys.executable, "-m", "arena", "worker", "--simple", "--analysis"],
                              cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        browser.get(f"{site['base']}/matches/{match_id}/games/0")
        replay = wait(browser, lambda: browser.find_element(By.ID, "replay"))
        names = json.loads(replay.get_attribute("data-seats"))
        seat = names.index("random")  # the seat whose choices cost the most
        browser.find_element(By.CSS_SELECTOR, f"#analysis-seat option[value='{seat}']").click()
        browser.find_element(By.ID, "analyse").click()
        wait(browser, lambda: replay.get_attribute("data-analysis") == "done", timeout=120)
    finally:
        stop(worker, timeout=10)
    status = browser.find_element(By.ID, "analysis-status").text
    assert status.startswith("random: total regret") and "13 decisions" in status
    answer = site["app"].test_client().get(f"/api/matches/{match_id}/games/0/analysis?seat={seat}")
    result = answer.get_json()["result"]
    costly = sorted((d for d in result["decisions"] if d["regret"] > 0), key=lambda d: -d["regret"])
    assert costly, "a random seat with no regret at all"
    jumps = browser.find_elements(By.CSS_SELECTOR, "#costliest .jump")
    assert len(jumps) == min(8, len(costly))
    assert jumps[0].text.startswith(f"regret {costly[0]['regret']}")
    target = jumps[0].get_attribute("data-frame")
    jumps[0].click()
    assert replay.get_attribute("data-index") == target
    # Beside the frame: the decision, every candidate with its value, the chosen one and the best marked.
    worst = costly[0]
    box = browser.find_element(By.CSS_SELECTOR, f"#analysis-here .decision[data-index='{worst['index']}']")
    rows = box.find_elements(By.CSS_SELECTOR, "tr")
    moves = sorted(c["move"] for c in worst["candidates"])
    assert sorted(r.get_attribute("data-move") for r in rows) == moves
    chosen = box.find_element(By.CSS_SELECTOR, "tr.chosen")
    best = box.find_element(By.CSS_SELECTOR, "tr.best")
    assert chosen.get_attribute("data-move") == costly[0]["chosen"]
    assert best.get_attribute("data-move") == costly[0]["best"]
    values = {c["move"]: c["value"] for c in costly[0]["candidates"]}
    assert values[costly[0]["best"]] == max(values.values())
    for row in rows:
        assert row.find_elements(By.TAG_NAME, "td")[1].text == f"{values[row.get_attribute('data-move')]:.2f}"
    if costly[0]["kind"] == "play":  # the trick on the felt at that frame holds the card the seat chose
        trick = [c.get_attribute("data-card")
                 for c in browser.find_elements(By.CSS_SELECTOR, "#felt .trick .pc")]
        assert costly[0]["chosen"] in trick
    browser.save_screenshot(str(shots / "replay-analysis.png"))


def test_live_table_shows_card_backs_only_and_follows_the_game(browser, site, shots) -> None:
    table_id = site["live_table"]
    browser.get(f"{site['base']}/tables/{table_id}")
    spectate = browser.find_element(By.ID, "spectate")
    wait(browser, lambda: spectate.get_attribute("data-version") == "9")
    backs = browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc.back")
    client = site["app"].test_client()
    public = client.get(f"/api/tables/{table_id}").get_json()
    assert len(backs) == sum(public["view"]["hand_sizes"]) == 52 - 5  # 4 passes, then 5 cards played
    assert not browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc[data-card]")
    version = play_one_move(client, table_id, site["live_tokens"])
    wait(browser, lambda: spectate.get_attribute("data-version") == str(version))
    assert not browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc[data-card]")  # still no hand shown
    browser.save_screenshot(str(shots / "live.png"))


def test_a_running_ladder_match_can_be_watched_live_with_card_backs_only(browser, site, shots) -> None:
    """A ladder match between bots is played inside a worker; its live feed is what the page shows."""
    import engine
    from core.arena.live import live_snapshot
    from core.arena.model import Member
    from tests.scenarios import match_spec

    store, ladder = site["store"], LADDERS[0]
    entrants = [Member.house(name) for name in ladder.house_bots]
    spec = match_spec("watch-me", entrants, ladder_id=ladder.ladder_id, game=ladder.game,
                      options=ladder.options, seed=77, duplicate=True)
    store.create_match(spec)
    store.start_attempt("watch-me", "test-worker", 30.0)
    seating = [m.bot_id for m in entrants[1:] + entrants[:1]]  # game 2 of 4: the bots rotated one seat
    game = engine.new_game(ladder.game, 4, ladder.options, seed=77)
    for _ in range(9):
        seat = game.to_act()[0]
        game.apply(seat, make_bot("heuristic", seat).choose(game.view(seat)))
    store.publish_live("watch-me", live_snapshot("watch-me", 1, 4, seating, game))

    browser.get(f"{site['base']}/ladders/{ladder.ladder_id}")
    # "Now playing" links a running match to its live page (the page may re-render: follow the href).
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, 'a[href="/matches/watch-me/live"]'))
    browser.get(f"{site['base']}/matches/watch-me/live")
    spectate = wait(browser, lambda: browser.find_element(By.ID, "spectate"))
    wait(browser, lambda: spectate.get_attribute("data-version") == "9")
    assert browser.find_element(By.ID, "frame-label").text.startswith("Game 2 of 4 · Round 1")
    backs = browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc.back")
    assert len(backs) == sum(game.spectator_view()["hand_sizes"])
    assert not browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc[data-card]")
    felt = browser.find_element(By.ID, "felt").text
    assert all(name.removeprefix("house:") in felt for name in seating)  # each seat labelled with its bot

    seat = game.to_act()[0]
    game.apply(seat, make_bot("heuristic", seat).choose(game.view(seat)))
    store.publish_live("watch-me", live_snapshot("watch-me", 1, 4, seating, game))
    wait(browser, lambda: spectate.get_attribute("data-version") == "10")
    assert not browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc[data-card]")
    browser.save_screenshot(str(shots / "live-match.png"))


PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
FITS = """
const root = document.documentElement;
const spill = [...document.querySelectorAll('header.top a, main, #ladder-table, .stat-row')]
    .filter(el => el.getBoundingClientRect().right > root.clientWidth + 0.5 && !el.closest('.table-scroll'))
    .map(el => el.outerHTML.slice(0, 80));
return {scroll: root.scrollWidth, width: root.clientWidth, inner: window.innerWidth, spill: spill,
        nav: [...document.querySelectorAll('header.top .tab')].map(a => a.getBoundingClientRect().right)};
"""


def test_every_page_fits_a_phone_screen(browser, site, shots) -> None:
    """At 390 px (a phone) the navigation wraps and wide tables scroll inside their card: no page is wider
    than the screen."""
    heuristic = "house:heuristic"
    pages = {
        "ladder": "/", "ladder-2": "/ladders/sore-spot-4p",
        "bot": f"/ladders/spot-hearts-4p/bots/{heuristic}",
        "match": f"/matches/{site['matches']['spot-hearts-4p'][0]}",
        "match-replay": f"/matches/{site['matches']['spot-hearts-4p'][0]}/games/0",
        "table": f"/tables/{site['live_table']}", "table-replay": f"/tables/{site['finished_table']}/replay",
        "not-found": "/ladders/nope",
    }
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        for name, path in pages.items():
            browser.get(site["base"] + path)
            wait(browser, lambda: browser.execute_script("return document.readyState") == "complete")
            time.sleep(0.2)  # the chart and card table draw themselves after load
            fit = browser.execute_script(FITS)
            assert fit["inner"] == 390, fit
            assert fit["scroll"] <= fit["width"], (name, fit)
            assert fit["spill"] == [], (name, fit)
            assert fit["nav"] and max(fit["nav"]) <= fit["width"], (name, fit)
            browser.save_screenshot(str(shots / f"phone-{name}.png"))
        # The standings are all there: the table scrolls inside its card instead of widening the page.
        browser.get(site["base"] + "/")
        table = browser.execute_script(
            "const s = document.querySelector('.table-scroll'); return [s.scrollWidth, s.clientWidth,"
            " document.querySelectorAll('#ladder-table tbody tr').length];")
        assert table[2] == 4 and table[1] <= 390
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_a_hostile_bot_name_stays_text_in_the_chart_and_its_tooltip(browser, site) -> None:
    """Names reach the chart legend and hover read-out as text: no element of the name is ever created."""
    from selenium.webdriver.common.action_chains import ActionChains

    from core import keys
    from core.arena.model import Member, MemberKind

    store, ladder = site["store"], LADDERS[1].ladder_id
    hostile = '<img src=x onerror="document.body.dataset.pwned=1">"onmouseover=x'
    store.set_members(ladder, [Member("b-evil", MemberKind.HTTP, url="http://127.0.0.1:9/", name=hostile)])
    history = keys.arena_history(store.prefix, ladder, "b-evil")
    for at, rating in ((1000.0, 1510.0), (2000.0, 1490.0)):
        store.redis.lpush(history, json.dumps({"match": "m", "rating": rating, "delta": 10.0, "place": 1,
                                               "at": at}))
    store.redis.zadd(keys.arena_ratings(store.prefix, ladder), {"b-evil": 1490.0})
    browser.get(f"{site['base']}/ladders/{ladder}/bots/b-evil")
    chart = wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#elo-chart svg"))[0]
    ActionChains(browser).move_to_element(chart).perform()
    tip = wait(browser, lambda: (t := browser.find_element(By.CSS_SELECTOR, "#elo-chart .tip")).is_displayed()
               and t)
    assert hostile in tip.get_attribute("textContent")
    assert hostile in browser.find_element(By.CSS_SELECTOR, "#elo-chart .legend").get_attribute("textContent")
    assert hostile in browser.find_element(By.TAG_NAME, "h1").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#elo-chart img, h1 img, main img")
    assert browser.execute_script("return document.body.dataset.pwned") is None


FELT = """
const felt = document.getElementById('felt').getBoundingClientRect();
const cards = [...document.querySelectorAll('#felt .hand .pc')].map(c => c.getBoundingClientRect());
return {width: window.innerWidth, height: felt.height, feltWidth: felt.width, cards: cards.length,
        inside: cards.filter(c => c.top >= felt.top && c.bottom <= felt.bottom && c.left >= felt.left + 9
                                  && c.right <= felt.right - 9).length};  // within its 10 px border
"""


@pytest.mark.parametrize("width", [390, 800, 1280])
def test_the_replay_felt_keeps_its_height_at_every_window_width(browser, site, shots, width) -> None:
    """Under 1000 px the analysis panel goes under the felt; the felt must keep its height there (it once
    shrank to its 20 px border and showed no card)."""
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        browser.get(f"{site['base']}/matches/{site['matches']['spot-hearts-4p'][0]}/games/0")
        wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc"))
        felt = browser.execute_script(FELT)
        browser.save_screenshot(str(shots / f"replay-felt-{width}.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert felt["width"] == width, felt
    assert felt["height"] >= (440 if width <= 700 else 560), felt  # arena.css: 440 px on phones, else 560
    assert felt["cards"] == 52 and felt["inside"] == 52, (width, felt)  # every card of every hand on the felt


def test_an_owner_finds_the_failed_decisions_of_its_bot_on_the_decisions_page(browser, site, shots) -> None:
    """A registered bot that answers illegal moves plays a match; its owner opens the decisions page from the
    bot page, gives the owner token, and finds every failed decision red in the latency strip, with the
    request it was sent."""
    import dataclasses

    import redis

    from arena.botserver import BotServerConfig, serve_bot
    from arena.jobs import play_match
    from core.arena.model import Member, MemberKind
    from core.arena.registry import BotRegistry
    from core.settings import Settings
    from tests.scenarios import match_spec

    store, ladder = site["store"], LADDERS[1]
    cheater = serve_bot(BotServerConfig(behaviour="illegal", name="cheater"))
    try:
        registry = BotRegistry(redis.Redis.from_url(site["redis_url"], decode_responses=True), site["prefix"],
                               allow_private_urls=True)
        record, token = registry.register("page-cheater", [ladder.game], cheater.url)
        bot_id = record["bot_id"]
        entrants = [Member(bot_id, MemberKind.HTTP, url=cheater.url, name="page-cheater"),
                    *(Member.house(name) for name in ladder.house_bots[:3])]
        store.create_match(match_spec("m-decisions", entrants, ladder_id=ladder.ladder_id, game=ladder.game,
                                      options=ladder.options, seed=5, strike_limit=100))
        settings = dataclasses.replace(Settings.from_env(), allow_private_urls=True)
        assert play_match(store, "m-decisions", worker="web", settings=settings)["status"] == "rated"
    finally:
        cheater.stop()

    browser.get(f"{site['base']}/ladders/{ladder.ladder_id}/bots/{bot_id}")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "a.decisions-link"))
    browser.get(browser.find_element(By.CSS_SELECTOR, "a.decisions-link").get_attribute("href"))
    field = wait(browser, lambda: browser.find_element(By.ID, "token"))
    field.send_keys("not-the-owner" + Keys.ENTER)
    wait(browser, lambda: "token" in browser.find_element(By.ID, "decisions-status").text.lower())
    field.clear()
    field.send_keys(token + Keys.ENTER)
    bars = wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "svg.latency-strip rect.bar"))
    failed = browser.find_elements(By.CSS_SELECTOR, "svg.latency-strip rect.bar.failed")
    assert failed and len(failed) == len(bars)  # every answer of this bot was illegal
    assert "failed" in browser.find_element(By.ID, "decisions-totals").text
    failed[0].click()
    detail = wait(browser, lambda: (d := browser.find_element(By.ID, "decision-detail")).is_displayed() and d)
    assert "illegal_move" in detail.text and '"view"' in detail.text and "(the fallback)" in detail.text
    browser.save_screenshot(str(shots / "decisions.png"))


STEP = """
const felt = document.getElementById('felt');
const cards = (nodes) => [...nodes].map(c => c.getAttribute('data-card'));
return {label: document.getElementById('frame-label').textContent,
        hands: [...felt.querySelectorAll('.hand')].map(h => cards(h.querySelectorAll('.pc[data-card]'))),
        trick: cards(felt.querySelectorAll('.trick .pc')),
        chosen: cards(felt.querySelectorAll('.passed .pc')),
        totals: [...felt.querySelectorAll('.plate b')].map(b => b.textContent),
        seats: [...felt.querySelectorAll('.plate')].map(p => p.firstChild.textContent)};
"""


def walk_replay(browser) -> list[dict]:
    """What every step of the replay on the page shows, stepped with its Next button."""
    total = int(browser.find_element(By.ID, "scrub").get_attribute("max")) + 1
    seen = []
    for _ in range(total):
        seen.append(browser.execute_script(STEP))
        browser.find_element(By.ID, "next").click()
    return seen


def as_named(steps: list[dict], names: list[str]) -> list[dict]:
    """The steps of a replay whose seats are "seat N", as a page naming them `names` shows them."""
    import re

    def named(text: str) -> str:
        return re.sub(r"seat (\d+)", lambda found: names[int(found.group(1))], text)

    return [{**step, "label": named(step["label"]), "seats": names} for step in steps]


class RequestLog:
    """Every request the server gets while it is on: method, path and query, and the body's size."""

    def __init__(self, app) -> None:
        self.app, self.inner, self.seen = app, app.wsgi_app, []

    def __enter__(self) -> RequestLog:
        def record(environ, start_response):
            self.seen.append((environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""),
                              environ.get("QUERY_STRING", ""), environ.get("CONTENT_LENGTH") or "0"))
            return self.inner(environ, start_response)

        self.app.wsgi_app = record
        return self

    def __exit__(self, *exc: object) -> None:
        self.app.wsgi_app = self.inner


FILE_REQUESTS = """
return performance.getEntriesByType('resource').map(e => e.name);
"""


@pytest.mark.parametrize("width", [390, 1280])
def test_a_record_file_replays_in_the_browser_and_is_never_sent(browser, site, shots, tmp_path,
                                                                width) -> None:
    """The user's file is read by the page (FileReader) and replayed by the browser's own rules: every step
    shows what the server's replay of the same game shows, and no request leaves the page meanwhile."""
    client = site["app"].test_client()
    table = site["finished_table"]
    record_file = tmp_path / "table.json"
    record_file.write_text(json.dumps(client.get(f"/api/tables/{table}/replay").get_json()))
    match_id = site["matches"]["spot-hearts-4p"][1]
    games = [client.get(f"/api/matches/{match_id}/games/{n}/replay").get_json() for n in range(2)]
    export_line = tmp_path / "export.ndjson"
    export_line.write_text(json.dumps({"match_id": match_id, "records": games}) + "\n")
    junk = tmp_path / "notes.txt"
    junk.write_text("not a record")

    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    try:
        browser.get(f"{site['base']}/tables/{table}/replay")
        wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc"))
        server_table = walk_replay(browser)
        browser.get(f"{site['base']}/matches/{match_id}/games/1")
        wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc"))
        server_match = walk_replay(browser)
        match_names = json.loads(browser.find_element(By.ID, "replay").get_attribute("data-seats"))

        # Found from a server replay page, as a reader would.
        browser.find_element(By.PARTIAL_LINK_TEXT, "replay a record file").click()
        chooser = wait(browser, lambda: browser.find_element(By.ID, "record-file"))
        assert browser.find_element(By.ID, "local-replay").is_displayed() is False
        loaded = browser.execute_script(FILE_REQUESTS)
        assert all("/assets/" in url for url in loaded), loaded

        with RequestLog(site["app"]) as log:
            chooser.send_keys(str(record_file))
            root = browser.find_element(By.ID, "file-replay")
            wait(browser, lambda: root.get_attribute("data-state") == "shown")
            assert "table.json" in browser.find_element(By.ID, "file-status").text
            assert walk_replay(browser) == server_table

            chooser.send_keys(str(export_line))  # a line of a bot's match export: two games to pick from
            pick = browser.find_element(By.ID, "record-choice")
            wait(browser, pick.is_displayed)
            from selenium.webdriver.support.ui import Select

            Select(pick).select_by_index(1)
            assert "game 2" in Select(pick).first_selected_option.text
            assert as_named(walk_replay(browser), match_names) == server_match
            browser.find_element(By.ID, "first").click()
            for _ in range(6):
                browser.find_element(By.ID, "next").click()
            fit = browser.execute_script("const r = document.documentElement;"
                                         " return [r.scrollWidth, r.clientWidth];")
            browser.save_screenshot(str(shots / f"file-replay-{width}.png"))

            chooser.send_keys(str(junk))
            problem = browser.find_element(By.ID, "file-problem")
            wait(browser, problem.is_displayed)
            assert problem.text.startswith("notes.txt: the file is not JSON")
            assert not browser.find_element(By.ID, "local-replay").is_displayed()
            browser.save_screenshot(str(shots / f"file-replay-refused-{width}.png"))
            requested = browser.execute_script(FILE_REQUESTS)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert log.seen == [] and requested == loaded  # nothing reached the server; the page asked for nothing
    assert fit[0] <= fit[1], fit  # no wider than the screen
    assert len(server_table) == 16  # the deal, the sore cards, 12 tricks, the round, the end
    assert {step["seats"][0] for step in server_table} == {"seat 0"}


def test_the_replay_the_cli_opens_shows_the_servers_steps(browser, site, shots, tmp_path) -> None:
    """`trick-arena replay FILE --open` writes one page with everything inline: in the browser, from a file://
    address, it shows the steps the server's replay of the same table shows."""
    from clients.cli.viewer import viewer_html

    table = site["finished_table"]
    record = site["app"].test_client().get(f"/api/tables/{table}/replay").get_json()
    page = tmp_path / "replay.html"
    page.write_text(viewer_html(record, [f"seat {s}" for s in range(record["players"])], "table.json"))
    browser.get(f"{site['base']}/tables/{table}/replay")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc"))
    server = walk_replay(browser)
    browser.get(page.as_uri())
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#felt .hand .pc"))
    assert walk_replay(browser) == server
    assert browser.execute_script(FILE_REQUESTS) == []
    browser.save_screenshot(str(shots / "cli-replay-open.png"))
