"""`python -m loadtest faults griefing`: one person tries to stall a ladder; four honest bots must not notice.
One address registers as many idle and misbehaving bots as the service lets it; the honest bots must keep
≥ 80 % of their matches per minute, with 0 strikes and 0 × 429.

Design: docs/reliability.md#griefing-one-address-against-a-ladder
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import httpx

from core.arena.model import LadderConfig
from core.arena.store import ArenaStore
from core.arena.store.matches import RECENT_LIMIT
from devstack.stack import Stack
from devstack.verify import rating_audit
from loadtest.ladder import drain_and_stop

GRIEF_BEHAVIOURS = ("idle-poll", "sleep", "status500", "garbage", "illegal")
GRIEFER_ADDRESS = "127.0.0.66"
HONEST_ADDRESSES = ("127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14")
GOAL_RATIO = 0.8
DRILL_OPTIONS = {"target": 100}


def client(api_url: str, address: str, timeout: float = 30.0) -> httpx.Client:
    """An HTTP client whose connections come from `address` (a loopback alias: one person per address)."""
    return httpx.Client(
        base_url=api_url, timeout=timeout, transport=httpx.HTTPTransport(local_address=address)
    )


class StatusCounter:
    """HTTP statuses a client saw (thread-safe)."""

    def __init__(self) -> None:
        self.counts: Counter[int] = Counter()
        self._lock = threading.Lock()

    def add(self, status: int) -> None:
        with self._lock:
            self.counts[status] += 1


class HonestPollingBot(threading.Thread):
    """A polling bot written from docs/bot-protocol.md: seats from ladder-seats, long-polls, one move each."""

    def __init__(
        self,
        api_url: str,
        address: str,
        bot_id: str,
        owner_token: str,
        stop: threading.Event,
        statuses: StatusCounter,
    ) -> None:
        super().__init__(name=f"honest-poll-{bot_id}", daemon=True)
        self.api_url, self.address, self.bot_id, self.owner_token = api_url, address, bot_id, owner_token
        self.stop_flag = stop
        self.statuses = statuses
        self.errors: list[str] = []
        self._seats: dict[str, threading.Thread] = {}

    def run(self) -> None:
        # docs/bot-protocol.md: hold a long-poll on ladder-seats (after=<X-Seats-Version>&wait=25), so a new
        # seat is seen at once and the bot stays present; start each new seat's player straight away.
        version: str | None = None
        with client(self.api_url, self.address) as http:
            while not self.stop_flag.is_set():
                try:
                    params = {} if version is None else {"after": version, "wait": 25}
                    answer = http.get(
                        f"/api/bots/{self.bot_id}/ladder-seats",
                        params=params,
                        headers={"Authorization": f"Bearer {self.owner_token}"},
                    )
                    self.statuses.add(answer.status_code)
                    if answer.status_code != 200:
                        version = None
                        self.stop_flag.wait(1.0)
                        continue
                    version = answer.headers["X-Seats-Version"]
                    for entry in answer.json():
                        key = f"{entry['table']}/{entry['seat']}"
                        if key not in self._seats:
                            self._seats[key] = threading.Thread(
                                target=self._play, args=(entry,), daemon=True
                            )
                            self._seats[key].start()
                except httpx.HTTPError as error:
                    self.errors.append(f"ladder-seats: {error!r}")
                    version = None
                    self.stop_flag.wait(1.0)

    def _play(self, entry: dict[str, Any]) -> None:
        headers = {"Authorization": f"Bearer {entry['token']}"}
        after = -1
        with client(self.api_url, self.address) as http:
            while not self.stop_flag.is_set():
                try:
                    answer = http.get(
                        entry["state_url"], params={"after": after, "wait": 25}, headers=headers
                    )
                    self.statuses.add(answer.status_code)
                    if answer.status_code in (404, 410):
                        return  # the table is gone
                    if answer.status_code != 200:
                        time.sleep(0.5)
                        continue
                    state = answer.json()
                    if state["status"] == "over":
                        return
                    decision = state["view"].get("decision")
                    if not state["your_turn"] or not decision:
                        after = state["version"]  # wait for the next change
                        continue
                    legal = decision["legal"]
                    move = legal[: decision["count"]] if decision["kind"] == "pass" else legal[0]
                    posted = http.post(
                        entry["moves_url"],
                        headers=headers,
                        json={"move": move, "expected_version": state["version"]},
                    )
                    self.statuses.add(posted.status_code)
                    after = -1  # our move may make it our turn again (we took the trick): look at once
                except httpx.HTTPError as error:
                    self.errors.append(f"{entry['table']}: {error!r}")
                    time.sleep(0.5)


def _register(http: httpx.Client, name: str, game: str, url: str | None) -> httpx.Response:
    body: dict[str, Any] = {"name": name, "games": [game]}
    if url:
        body["url"] = url
    return http.post("/api/bots", json=body)


def register_griefers(stack: Stack, game: str, most: int) -> dict[str, Any]:
    """Register as many griefing bots as the service accepts from one address; stop at the first refusal."""
    servers = {b: stack.start_bot_server(f"grief-{b}", b) for b in GRIEF_BEHAVIOURS if b != "idle-poll"}
    registered: dict[str, str] = {}
    stopped_by = f"reached --griefers {most}"
    with client(stack.api_url, GRIEFER_ADDRESS) as http:
        for index in range(most):
            behaviour = GRIEF_BEHAVIOURS[index % len(GRIEF_BEHAVIOURS)]
            url = None if behaviour == "idle-poll" else f"{servers[behaviour]}/g{index}"
            answer = _register(http, f"grief-{index:03d}-{behaviour}", game, url)
            if answer.status_code != 201:
                problem = answer.json() if answer.headers.get("content-type", "").endswith("json") else {}
                stopped_by = (
                    f"{answer.status_code} {problem.get('title') or problem.get('type') or ''}".strip()
                )
                break
            registered[answer.json()["bot_id"]] = behaviour
    return {"bots": registered, "stopped_by": stopped_by}


def _matches_in(docs: dict[str, dict[str, Any]], since: float, until: float) -> list[dict[str, Any]]:
    return [d for d in docs.values() if d["status"] == "rated" and since <= d.get("finished", 0) < until]


def phase_report(
    docs: dict[str, dict[str, Any]],
    since: float,
    until: float,
    honest: dict[str, str],
    griefers: dict[str, str],
) -> dict[str, Any]:
    matches = _matches_in(docs, since, until)
    minutes = max((until - since) / 60.0, 1e-9)
    per_bot = Counter(e["bot_id"] for d in matches for e in d["spec"]["entrants"])
    strikes = Counter(s["bot_id"] for d in matches for s in d["result"].get("strikes", []))
    with_griefer = [d for d in matches if any(e["bot_id"] in griefers for e in d["spec"]["entrants"])]
    return {
        "seconds": round(until - since, 1),
        "rated_matches": len(matches),
        "honest_matches_per_minute": {
            f"{kind} {bot_id}": round(per_bot[bot_id] / minutes, 2) for bot_id, kind in honest.items()
        },
        "honest_matches_per_minute_total": round(sum(per_bot[b] for b in honest) / minutes, 2),
        "honest_strikes": {bot_id: strikes[bot_id] for bot_id in honest},
        "griefer_matches": len(with_griefer),
        "griefer_seats_by_kind": dict(
            Counter(
                griefers[e["bot_id"]]
                for d in with_griefer
                for e in d["spec"]["entrants"]
                if e["bot_id"] in griefers
            )
        ),
    }


def griefing(
    seconds: float,
    most_griefers: int,
    game: str = "spot-hearts",
    options: dict[str, Any] | None = None,
    arena_workers: int = 2,
) -> dict[str, Any]:
    # The service's own rate limits: the drill measures what the public meets (load runs lift them).
    stack = Stack(api_workers=2, real_limits=True)
    stop = threading.Event()
    pollers: list[HonestPollingBot] = []
    try:
        stack.start_redis()
        stack.start_api()
        honest: dict[str, str] = {}
        statuses = {address: StatusCounter() for address in HONEST_ADDRESSES}
        for index, address in enumerate(HONEST_ADDRESSES[:2]):
            url = stack.start_bot_server(f"honest-http-{index}", "good")
            with client(stack.api_url, address) as http:
                answer = _register(http, f"honest-http-{index}", game, url)
                statuses[address].add(answer.status_code)
                answer.raise_for_status()
                honest[answer.json()["bot_id"]] = "http"
        for index, address in enumerate(HONEST_ADDRESSES[2:]):
            with client(stack.api_url, address) as http:
                answer = _register(http, f"honest-poll-{index}", game, None)
                statuses[address].add(answer.status_code)
                answer.raise_for_status()
                created = answer.json()
            honest[created["bot_id"]] = "polling"
            poller = HonestPollingBot(
                stack.api_url, address, created["bot_id"], created["owner_token"], stop, statuses[address]
            )
            poller.start()
            pollers.append(poller)
        # The game's default ladder, created before the scheduler would, with shorter games: many matches per
        # phase, so a rate per minute means something even in a short run.
        options = DRILL_OPTIONS if options is None else options
        ladder = LadderConfig(ladder_id=f"{game}-4p", game=game, players=4, options=options)
        ArenaStore(stack.redis(), stack.prefix).save_ladder(ladder)
        stack.start_arena(arena_workers, keep_matches=RECENT_LIMIT)
        baseline_start = time.time()
        time.sleep(seconds)
        baseline_end = time.time()
        baseline_429 = sum(s.counts[429] for s in statuses.values())
        griefers = register_griefers(stack, game, most_griefers)
        grief_start = time.time()
        time.sleep(seconds)
        grief_end = time.time()
        crashed = stack.crashed()
        # The honest polling bots play on until the last match ends: stopped earlier, they would time out.
        drain_and_stop(stack, 60, drained_hook=stop.set)
        audit = rating_audit(stack.redis(), stack.prefix)
        docs = audit.pop("docs")
        baseline = phase_report(docs, baseline_start, baseline_end, honest, griefers["bots"])
        griefed = phase_report(docs, grief_start, grief_end, honest, griefers["bots"])
        griefed["honest_429"] = sum(s.counts[429] for s in statuses.values()) - baseline_429
        baseline["honest_429"] = baseline_429
        base_rate = baseline["honest_matches_per_minute_total"]
        ratio = griefed["honest_matches_per_minute_total"] / base_rate if base_rate else 0.0
        goals = {
            "honest_rate_kept": round(ratio, 3),
            "honest_rate_kept_at_least_80_percent": ratio >= GOAL_RATIO,
            "honest_strikes_zero": not any(baseline["honest_strikes"].values())
            and not any(griefed["honest_strikes"].values()),
            "honest_429_zero": baseline["honest_429"] == 0 and griefed["honest_429"] == 0,
        }
        tracebacks = stack.log_errors()
        result = {
            "command": f"python -m loadtest faults griefing --seconds {seconds:g} --griefers {most_griefers}",
            "ladder": ladder.to_json(),
            "honest_bots": honest,
            "griefer": {
                "address": GRIEFER_ADDRESS,
                "registered": len(griefers["bots"]),
                "by_kind": dict(Counter(griefers["bots"].values())),
                "registration_stopped_by": griefers["stopped_by"],
            },
            "baseline": baseline,
            "griefing": griefed,
            "goals": goals,
            "honest_client_statuses": {a: dict(s.counts) for a, s in statuses.items()},
            "honest_client_errors": [e for p in pollers for e in p.errors][:20],
            "rating_problems": audit["problems"][:20],
            "processes_died": crashed,
            "log_tracebacks": {k: v for k, v in tracebacks.items() if v},
            "workdir": str(stack.workdir),
        }
        result["passed"] = (
            all(v for k, v in goals.items() if k != "honest_rate_kept")
            and not audit["problems"]
            and not crashed
            and not any(tracebacks.values())
        )
        return result
    finally:
        stop.set()
        stack.stop()
