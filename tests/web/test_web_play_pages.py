"""The play pages' server side (/play, /play/{table}): what they list and what they never hold."""

from __future__ import annotations

import html
import json
import re
from typing import Any


def _games(page: bytes) -> list[dict[str, Any]]:
    found = re.search(rb'data-games="([^"]*)"', page)
    assert found, page[:300]
    games: list[dict[str, Any]] = json.loads(html.unescape(found.group(1).decode()))
    return games


def _register(client: Any, name: str, url: str | None, accepts: bool) -> str:
    body: dict[str, Any] = {"name": name, "games": ["card-commons"]}
    if url:
        body["url"] = url
    bot = client.post("/api/bots", json=body).get_json()
    if accepts:
        client.patch(f"/api/bots/{bot['bot_id']}", json={"accepts_challenges": True},
                     headers={"Authorization": f"Bearer {bot['owner_token']}"})
    return str(bot["bot_id"])


def test_the_setup_page_offers_house_bots_and_the_bots_that_accept_challenges(client) -> None:
    open_to_all = _register(client, "open-to-all", "http://127.0.0.1:9/", accepts=True)
    _register(client, "keeps-to-itself", "http://127.0.0.1:9/", accepts=False)
    _register(client, "polls-only", None, accepts=True)
    page = client.get("/play")
    assert page.status_code == 200 and page.mimetype == "text/html"
    games = {game["id"]: game for game in _games(page.data)}
    commons = games["card-commons"]
    assert commons["bots"] == [{"seat": f"bot:{open_to_all}", "name": "open-to-all"}]
    assert games["spot-hearts"]["bots"] == []  # the bot plays Card Commons only
    assert "heuristic" in commons["house"] and commons["options"]["target"]["default"] == 100
    assert (commons["min"], commons["max"]) == (3, 4)
    assert b'href="/play"' in client.get("/rules").data  # every page's header links to it


def test_the_table_page_holds_no_hand_and_an_unknown_table_is_a_404_page(client) -> None:
    table = client.post("/api/tables", json={"game": "card-commons", "seats": ["open", "random", "random",
                                                                               "heuristic"]}).get_json()
    page = client.get(f"/play/{table['table_id']}")
    assert page.status_code == 200
    assert b'data-seats-url="/api/tables/' + table["table_id"].encode() + b'/seats/"' in page.data
    # The page is the same for everyone: the hand comes from the API, with the seat token, to its holder only.
    assert b"hand_sizes" not in page.data and b'"hand"' not in page.data
    missing = client.get("/play/0000000000000000")
    assert missing.status_code == 404 and missing.mimetype == "text/html"
