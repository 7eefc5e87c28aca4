"""No public endpoint shows a deal while a game that holds it is still to be played.

A duplicate match with a polling bot (its games are API tables) is played through the move API, as a ladder's
match and as a challenge; at every
game boundary, before the polling bot's first move of the new game, every public GET route of the service
(and every analysis request) is asked about every table, match, game, ladder and bot there is. Every number
in every answer is then tried as a seed, and every list of cards as a hand, against the deals of the games
not over yet.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

import pytest
import redis
import requests

import engine
from arena.jobs import play_match
from core.arena.challenges import ChallengeStore
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from engine.seeds import new_seed
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")
OPTIONS = {"rounds": 1}
NUMBER = re.compile(r"\d{6,16}")  # seeds are integers below 2**53: 16 digits at most


def _routes(app: Any) -> list[tuple[str, str]]:
    skip = ("/api/docs", "/static", "/assets", "/api/openapi.json")
    out = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(skip):
            continue
        for method in ("GET", "POST"):
            if method in rule.methods and (method == "GET" or rule.rule.endswith("/analysis")):
                out.append((method, rule.rule))
    return sorted(out)


def _fill(rule: str, ids: dict[str, list[Any]]) -> list[str]:
    paths = [rule]
    for name in re.findall(r"<(?:[a-z]+:)?([a-z_]+)>", rule):
        slot = rf"<(?:[a-z]+:)?{name}>"
        paths = [re.sub(slot, str(value), p, count=1) for p in paths for value in ids[name]]
    return paths


def _probe(base: str, app: Any, ids: dict[str, list[Any]]) -> list[tuple[str, str]]:
    answers = []
    for method, rule in _routes(app):
        for path in _fill(rule, ids):
            body = {} if method == "POST" else None
            response = requests.request(method, f"{base}{path}", timeout=10, json=body)
            answers.append((f"{method} {path}", response.text))
    return answers


def _hands_in(value: Any) -> list[frozenset[str]]:
    if isinstance(value, dict):
        return [h for v in value.values() for h in _hands_in(v)]
    if isinstance(value, list):
        if value and all(isinstance(c, str) and re.fullmatch(r"(10|[2-9JQKA])[CDHS]", c) for c in value):
            return [frozenset(value)]
        return [h for v in value for h in _hands_in(v)]
    return []


def _leaks(answers: list[tuple[str, str]], deals: dict[int, list[list[str]]], game: str) -> list[str]:
    """Where an answer shows one of `deals` (game number -> round 0 hands): a seed dealing it, or a hand."""
    targets = {frozenset(h): g for g, hands in deals.items() for h in hands}
    found = []
    tried: set[int] = set()
    for where, text in answers:
        for number in {int(n) for n in NUMBER.findall(text)} - tried:
            tried.add(number)
            if number < 2**53:
                hands = engine.new_game(game, 4, OPTIONS, seed=number).record()["deals"][0]["hands"]
                found += [f"{where}: seed {number} deals game {g}" for g, h in deals.items() if h == hands]
        try:
            body = json.loads(text)
        except ValueError:
            continue
        found += [f"{where}: a hand of game {targets[h]}" for h in _hands_in(body) if h in targets]
    return found


def _play_and_probe(live_server: str, app: Any, redis_url: str, prefix: str,
                    challenge: bool = False) -> tuple[dict, dict, list]:
    """Play the match (a ladder's, or a challenge); return its document, the probes' answers by game in play,
    and the deals."""
    response = requests.post(f"{live_server}/api/bots", json={"name": "poller", "games": ["sore-spot"]},
                             timeout=5)
    bot_id, owner = response.json()["bot_id"], response.json()["owner_token"]
    store = ArenaStore(redis.Redis.from_url(redis_url), prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, OPTIONS, house_bots=HOUSE))
    entrants = [Member(bot_id, MemberKind.POLL, name="poller"), *(Member.house(n) for n in HOUSE)]
    spec = match_spec("msecret", entrants, ladder_id="" if challenge else "ss", options=OPTIONS,
                      seed=new_seed(), duplicate=True, deadline_ms=3000, challenge=challenge,
                      game_count=4 if challenge else 0)
    if challenge:  # as POST /api/challenges stores it (the worker is this test's thread)
        ChallengeStore(store).create(spec, "owner-of-poller", bot_id)
    else:
        store.create_match(spec)
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.update(play_match(store, "msecret", worker="test")))
    thread.start()
    auth = {"Authorization": f"Bearer {owner}"}
    probes: dict[int, list] = {}
    tables: list[str] = []
    deadline = time.monotonic() + 120
    while thread.is_alive() and time.monotonic() < deadline:
        listed_seats = requests.get(f"{live_server}/api/bots/{bot_id}/ladder-seats", headers=auth, timeout=5)
        seats = listed_seats.json()
        if not seats:  # not seated (yet, or any more): long-poll a moment for the bot's seats to change
            requests.get(f"{live_server}/api/bots/{bot_id}/ladder-seats", headers=auth, timeout=30,
                         params={"after": listed_seats.headers["X-Seats-Version"], "wait": 1})
            continue
        seat = seats[0]
        game_no = seat["game_no"]
        if seat["table"] not in tables:
            tables.append(seat["table"])
        if game_no not in probes:  # a game boundary: game `game_no` is being played, nothing moved yet
            listed = [t["table_id"] for t in requests.get(f"{live_server}/api/tables", timeout=5).json()]
            ids = {"table_id": sorted(set(listed) | set(tables)), "match_id": ["msecret"],
                   "game_no": range(4), "ladder_id": ["ss"], "bot_id": [bot_id], "seat": range(4),
                   "game_id": ["sore-spot"], "challenge_id": ["msecret"],
                   "tournament_id": ["tnone"]}  # no event here: its tables' secrecy, test_arena_tournaments
            probes[game_no] = _probe(live_server, app, ids)
        token = {"Authorization": f"Bearer {seat['token']}"}
        state = requests.get(f"{live_server}{seat['state_url']}", params={"wait": 5}, headers=token,
                             timeout=10).json()
        if state["status"] == "over" or not state["your_turn"]:
            continue
        decision = state["view"]["decision"]
        move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][-1]
        requests.post(f"{live_server}{seat['moves_url']}", headers=token, timeout=5,
                      json={"move": move, "expected_version": state["version"]})
    thread.join(timeout=30)
    assert outcome["status"] == (MatchStatus.PLAYED if challenge else MatchStatus.RATED), outcome
    replays = [requests.get(f"{live_server}/api/matches/msecret/games/{g}/replay", timeout=5).json()
               for g in range(4)]
    deals = {g: r["deals"][0]["hands"] for g, r in enumerate(replays)}
    return store.match("msecret"), probes, deals


def _game_seeds_are_the_match_seed(self: MatchSpec, game_no: int) -> int:
    return self.seed


@pytest.mark.parametrize("dealing", ["fresh deals", "one deal per match", "a challenge"])
def test_no_endpoint_shows_a_deal_before_every_game_that_holds_it_is_over(
        dealing: str, app, live_server, redis_url, key_prefix, monkeypatch) -> None:
    if dealing == "one deal per match":  # the format the arena does not use: the probe must catch its leak
        monkeypatch.setattr(MatchSpec, "game_seed", _game_seeds_are_the_match_seed)
    doc, probes, deals = _play_and_probe(live_server, app, redis_url, key_prefix,
                                         challenge=dealing == "a challenge")
    assert sorted(probes) == [0, 1, 2, 3], "a game boundary was not probed"
    leaks = {g: _leaks(answers, {k: d for k, d in deals.items() if k >= g}, "sore-spot")
             for g, answers in probes.items()}
    if dealing != "one deal per match":
        assert leaks == {0: [], 1: [], 2: [], 3: []}
        # The match seed, from which every game's seed is derived, stays secret until the match is over.
        assert all(str(doc["spec"]["seed"]) not in text for answers in probes.values() for _, text in answers)
    else:
        assert leaks[0] == [] and leaks[1] and leaks[2] and leaks[3], leaks
    # The probe is able to see a deal: once the match is over, the same routes show every game's.
    assert set(deals) == {0, 1, 2, 3} and len({json.dumps(d) for d in deals.values()}) == (
        1 if dealing == "one deal per match" else 4)
