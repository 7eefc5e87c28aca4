"""A person plays bots in a real headless Chromium (/play, static/play.js) against a real server, a real house
worker, a real challenge worker and a real HTTP bot: a whole Card Commons table with the mouse and the
keyboard, an illegal card refused with the API's reason on the page, a reload that resumes the seat, and the
table at 390, 800 and 1280 px. The page's own timings (first legal card, move round trips) are printed and
written to play-figures.json beside the screenshots ($TA_SCREENSHOT_DIR, else a temporary folder)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import serving
from tests.web.browser_guard import find_browser

CHROMIUM, CHROMEDRIVER, webdriver = find_browser()

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1000"]
FITS = """
const root = document.documentElement;
const hand = document.getElementById('play-hand');
return {scroll: root.scrollWidth, width: root.clientWidth,
        hand: hand ? hand.getBoundingClientRect().right : 0,
        cards: [...document.querySelectorAll('#play-hand button')].map(b => b.getBoundingClientRect().right)};
"""


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("TA_SCREENSHOT_DIR")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
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


@pytest.fixture
def arena(make_app, arena_process, bot_process) -> Iterator[dict[str, Any]]:
    """The API and pages served on a free port, the house-bot and challenge workers as the Procfile runs them,
    and one registered HTTP bot that accepts challenges."""
    app = make_app(WEB_REFRESH_MS=500)
    arena_process("worker", "--simple", "--house")
    arena_process("worker", "--challenges", "--threads", "2")
    client = app.test_client()
    bot = client.post("/api/bots", json={"name": "guest-heuristic", "games": ["card-commons"],
                                         "url": bot_process()}).get_json()
    client.patch(f"/api/bots/{bot['bot_id']}", json={"accepts_challenges": True},
                 headers={"Authorization": f"Bearer {bot['owner_token']}"})
    with serving(app) as base:
        yield {"base": base, "bot_id": bot["bot_id"], "client": client}


def wait(browser: Any, condition: Callable[[], Any], timeout: float = 20.0) -> Any:
    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(lambda _: condition())


def attr(browser: Any, name: str) -> str | None:
    value: str | None = browser.find_element(By.ID, "play-table").get_attribute(name)
    return value


def open_table(browser: Any, arena: dict[str, Any], target: int = 1) -> str:
    """Fill in the setup form (Card Commons, a registered bot and two house bots) and deal: the table id."""
    browser.get(arena["base"] + "/play")
    Select(browser.find_element(By.ID, "play-game")).select_by_value("card-commons")
    Select(browser.find_element(By.ID, "play-players")).select_by_value("4")
    Select(browser.find_element(By.ID, "play-seat-1")).select_by_value(f"bot:{arena['bot_id']}")
    Select(browser.find_element(By.ID, "play-seat-2")).select_by_value("heuristic")
    Select(browser.find_element(By.ID, "play-seat-3")).select_by_value("random")
    browser.find_element(By.ID, "play-option-target").send_keys(str(target))
    browser.find_element(By.ID, "play-start").click()
    wait(browser, lambda: "/play/" in browser.current_url)
    return str(browser.current_url.rsplit("/", 1)[1])


def my_turn_or_over(browser: Any) -> str:
    """Wait until the seat must act or the game is over: 'turn' or 'over'."""
    def ready() -> str | None:
        status, turn = attr(browser, "data-status"), attr(browser, "data-your-turn")
        if status == "over":
            return "over"
        return "turn" if turn == "1" else None

    found: str = wait(browser, ready, 30)
    return found


def hand(browser: Any) -> list[Any]:
    return list(browser.find_elements(By.CSS_SELECTOR, "#play-hand button"))


def classes(element: Any) -> str:
    return str(element.get_attribute("class"))


def act(browser: Any, use_keyboard: bool) -> None:
    """Make the seat's decision as a person would: pick three cards and press Pass, or play a legal card
    (by clicking it, or by arrowing to it and pressing Enter); then wait for the table to move on."""
    version = attr(browser, "data-version")
    buttons = hand(browser)
    if browser.find_element(By.ID, "play-confirm").is_displayed():
        # The bots' passes redraw the hand meanwhile: each pick finds the cards afresh.
        def pick() -> bool:
            try:
                pressed = [b for b in hand(browser) if b.get_attribute("aria-pressed") == "true"]
                if len(pressed) >= 3:
                    return True
                next(b for b in hand(browser) if b.get_attribute("aria-pressed") == "false").click()
            except StaleElementReferenceException:
                pass
            return False

        wait(browser, pick)
        browser.find_element(By.ID, "play-confirm").click()
    elif use_keyboard:
        buttons[0].send_keys(Keys.HOME)
        for _ in range(len(buttons)):
            focused = browser.switch_to.active_element
            if "legal" in classes(focused).split():
                focused.send_keys(Keys.ENTER)
                break
            focused.send_keys(Keys.ARROW_RIGHT)
        else:
            raise AssertionError("no legal card reached with the arrow keys")
    else:
        next(b for b in buttons if "legal" in classes(b).split()).click()
    wait(browser, lambda: attr(browser, "data-version") != version or attr(browser, "data-status") == "over")


def test_a_person_plays_a_whole_card_commons_table_to_the_end(browser, arena, shots) -> None:
    started = time.monotonic()
    table_id = open_table(browser, arena)
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#play-hand button.legal"))
    browser.save_screenshot(str(shots / "play-pass.png"))
    moves = 0
    while my_turn_or_over(browser) == "turn":
        act(browser, use_keyboard=moves % 2 == 1)
        moves += 1
        assert moves < 80
        if moves == 4:
            browser.save_screenshot(str(shots / "play-trick.png"))
    status = browser.find_element(By.ID, "play-status").text
    assert status.startswith("Game over:"), status
    browser.save_screenshot(str(shots / "play-over.png"))
    table = arena["client"].get(f"/api/tables/{table_id}").get_json()
    assert table["status"] == "over" and table["seats"][1] == {
        "seat": 1, "kind": "bot", "name": arena["bot_id"], "joined": False}
    replay = arena["client"].get(f"/api/tables/{table_id}/replay").get_json()
    mine = [m for m in replay["moves"] if m["seat"] == 0]
    assert len(mine) == moves >= 14  # a pass and thirteen cards at least
    link = browser.find_element(By.CSS_SELECTOR, "a.play-replay").get_attribute("href")
    assert link.endswith(f"/tables/{table_id}/replay")
    timings = browser.execute_script("return window.TAPlay")
    trips = sorted(timings["roundTrips"])
    figures = {"first_legal_card_ms": round(timings["firstLegalMs"], 1), "moves": len(trips),
               "round_trip_p50_ms": round(statistics.median(trips), 1),
               "round_trip_p99_ms": round(trips[min(len(trips) - 1, int(0.99 * len(trips)))], 1),
               "wall_s": round(time.monotonic() - started, 1)}
    (shots / "play-figures.json").write_text(json.dumps(figures, indent=1))
    print("person's table in the browser:", json.dumps(figures))


def test_an_illegal_card_is_refused_with_its_reason_shown(browser, arena, shots) -> None:
    open_table(browser, arena, target=100)
    for _ in range(20):
        my_turn_or_over(browser)
        illegal = [b for b in hand(browser) if "not-legal" in classes(b).split()]
        if illegal:
            break
        act(browser, use_keyboard=False)
    else:
        raise AssertionError("every decision in 20 had every card legal")
    version = attr(browser, "data-version")
    card = illegal[0].get_attribute("data-card")
    assert "not legal now" in illegal[0].get_attribute("aria-label")
    illegal[0].click()
    reason = wait(browser, lambda: browser.find_element(By.ID, "play-reason").text)
    assert f"{card} may not be played now" in reason and "legal:" in reason, reason
    browser.save_screenshot(str(shots / "play-refused.png"))
    # Nothing changed: the same version, the card still in the hand, still this seat's turn.
    assert attr(browser, "data-version") == version and attr(browser, "data-your-turn") == "1"
    assert card in [b.get_attribute("data-card") for b in hand(browser)]
    act(browser, use_keyboard=False)  # and a legal card is then played
    assert browser.find_element(By.ID, "play-reason").text == ""


def test_a_reload_resumes_the_seat_and_the_table_fits_every_width(browser, arena, shots) -> None:
    table_id = open_table(browser, arena, target=100)
    my_turn_or_over(browser)
    act(browser, use_keyboard=False)  # the pass
    my_turn_or_over(browser)
    before = [b.get_attribute("data-card") for b in hand(browser)]
    browser.refresh()
    wait(browser, lambda: attr(browser, "data-your-turn") == "1")
    assert [b.get_attribute("data-card") for b in hand(browser)] == before
    act(browser, use_keyboard=True)
    assert len(hand(browser)) == len(before) - 1
    for width in (390, 800, 1280):
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500})
        try:
            browser.refresh()
            wait(browser, lambda: hand(browser))
            fit = browser.execute_script(FITS)
            assert fit["scroll"] <= fit["width"] and max(fit["cards"]) <= fit["width"], (width, fit)
            browser.save_screenshot(str(shots / f"play-{width}.png"))
        finally:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    # Another browser (no token) sees no hand: only a link to the spectator view.
    browser.execute_script("localStorage.clear()")
    browser.get(f"{arena['base']}/play/{table_id}")
    status = wait(browser, lambda: browser.find_element(By.ID, "play-status").text)
    assert "holds no seat" in status and hand(browser) == []
