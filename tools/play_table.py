"""`python -m tools.play_table`: a person plays Card Commons tables in a headless Chromium (/play) against the
processes of `make run` (gunicorn API, house-bot and challenge workers, a registered HTTP bot); the time from
the table page's load to the first legal card shown, and each move's round trip as the page saw it. JSON.

    python -m tools.play_table [--tables 5] [--target 1]
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from typing import Any

import click
import httpx

import engine.compiled
from devstack.stack import Stack

SEATS = ("heuristic", "random")  # the house bots beside the registered one


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of `values` (not empty).

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5), percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.99)
    (3.0, 5.0)
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def browser() -> Any:
    """Headless Chromium through Debian's chromium and chromedriver (selenium: the [dev] extra)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        raise click.ClickException("needs chromium and chromedriver: apt-get install chromium "
                                   "chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='ta-play-')}", "--window-size=1280,1000"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


def play_one(page: Any, base: str, bot_id: str, target: int) -> dict[str, Any]:
    """Deal a table from /play and play seat 1 to the end, as a person clicks; the page's timings."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    def until(condition: Any, timeout: float = 30.0) -> Any:
        return WebDriverWait(page, timeout, poll_frequency=0.02).until(lambda _: condition())

    def table(name: str) -> str:
        return str(page.find_element(By.ID, "play-table").get_attribute(name))

    page.get(base + "/play")
    Select(page.find_element(By.ID, "play-game")).select_by_value("card-commons")
    Select(page.find_element(By.ID, "play-players")).select_by_value("4")
    for seat, choice in enumerate((f"bot:{bot_id}", *SEATS), start=1):
        Select(page.find_element(By.ID, f"play-seat-{seat}")).select_by_value(choice)
    page.find_element(By.ID, "play-option-target").send_keys(str(target))
    page.find_element(By.ID, "play-start").click()
    until(lambda: "/play/" in page.current_url)
    while True:
        until(lambda: table("data-status") == "over" or table("data-your-turn") == "1")
        if table("data-status") == "over":
            break
        version = table("data-version")
        page.execute_script(  # a person's clicks: three cards and Pass, or the first legal card
            "const c = document.getElementById('play-confirm');"
            "const hand = [...document.querySelectorAll('#play-hand button')];"
            "if (!c.hidden) { hand.slice(0, 3).forEach(b => b.click());"
            "  document.getElementById('play-confirm').click(); }"
            "else { hand.find(b => b.classList.contains('legal')).click(); }")
        until(lambda seen=version: table("data-version") != seen or table("data-status") == "over")
    timings: dict[str, Any] = page.execute_script("return window.TAPlay")
    return timings


@click.command()
@click.option("--tables", default=5, show_default=True, help="Tables to play, one after another.")
@click.option("--target", default=1, show_default=True, help="Card Commons' target: 1 is one round.")
def main(tables: int, target: int) -> None:
    engine.compiled.activate()
    stack = Stack(api_workers=2)
    page = None
    try:
        stack.start_redis()
        stack.start_api()
        stack.start_house_workers(1)
        stack.start_challenge_worker()
        url = stack.start_bot_server("guest-bot", "good", house_bot="heuristic")
        bot = httpx.post(stack.api_url + "/api/bots", json={"name": "guest", "games": ["card-commons"],
                                                            "url": url}).json()
        httpx.patch(f"{stack.api_url}/api/bots/{bot['bot_id']}", json={"accepts_challenges": True},
                    headers={"Authorization": f"Bearer {bot['owner_token']}"}).raise_for_status()
        page = browser()
        started = time.monotonic()
        played = [play_one(page, stack.api_url, bot["bot_id"], target) for _ in range(tables)]
        wall = time.monotonic() - started
    finally:
        if page is not None:
            page.quit()
        stack.stop()
    firsts = [float(p["firstLegalMs"]) for p in played]
    trips = [float(t) for p in played for t in p["roundTrips"]]
    json.dump({"tables": tables, "game": "card-commons", "target": target,
               "api": "gunicorn gevent, 2 workers",
               "first_legal_card_ms": {"p50": round(statistics.median(firsts), 1),
                                       "max": round(max(firsts), 1)},
               "round_trip_ms": {"moves": len(trips), "p50": round(percentile(trips, 0.5), 1),
                                 "p99": round(percentile(trips, 0.99), 1)},
               "wall_s_per_table": round(wall / tables, 1)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
