"""`python -m tools.dead_bots --minutes 10`: where bots that never answer end up on a ladder. `make run` on
free ports, then one working bot (the random policy, the weakest that answers) and four that never play a
card (moves answered with garbage, moves answered after 2 s, a refused port, a host that does not resolve),
all on Sore Spot; after the run, each bot's rank among the ranked bots, or why it has none. Prints JSON.
Design: docs/arena.md#failures-and-health
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import click
import httpx

from arena.botserver import serve_bot_command, wait_serving
from devstack.devredis import free_port
from tools.makerun import make_run

GAME, LADDER = "sore-spot", "sore-spot-4p"
# name -> serve-bot behaviour and policy, or None for a URL nothing answers at
BOTS: dict[str, tuple[str, str, float | None] | None] = {
    "working-random": ("good", "random", None),
    "dead-garbage": ("garbage", "random", None),
    "dead-sleeps-2s": ("sleep", "random", 2.0),
    "dead-refused": None,
    "dead-unresolvable": None,
}
# One owner registers all five from 127.0.0.1: lift the per-owner quota for the run (it has its own tests).
QUOTA = {"TA_MAX_BOTS_PER_OWNER_PER_LADDER": "100", "TA_MAX_BOTS_PER_ADDRESS": "100"}


def placement(ladder: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """The bot's line on the ladder's answer: rank (None: not ranked) and the row's figures.

    >>> ladder = {"ranked_total": 2, "ranking": [{"bot_id": "a", "rank": 1, "rating": 1600.0, "matches": 4,
    ...           "paused": False, "forfeits": 0}], "new": [{"bot_id": "b", "rating": 1500.0, "matches": 0,
    ...           "paused": True, "forfeits": 0}]}
    >>> placement(ladder, "a")["rank"], placement(ladder, "b")["listed"], placement(ladder, "c")["listed"]
    (1, 'new', 'absent')
    """
    for listed, rows in (("ranked", ladder["ranking"]), ("new", ladder["new"])):
        for row in rows:
            if row["bot_id"] == bot_id:
                return {"listed": listed, "rank": row.get("rank"), "of": ladder["ranked_total"],
                        "rating": row["rating"], "matches": row["matches"], "forfeits": row["forfeits"],
                        "paused": row["paused"]}
    return {"listed": "absent", "rank": None, "of": ladder["ranked_total"]}


def start_bots() -> tuple[dict[str, str], list[subprocess.Popen[bytes]]]:
    urls, processes = {}, []
    for name, serving in BOTS.items():
        if serving is None:
            host = "127.0.0.1" if name == "dead-refused" else "dead-bot.invalid"
            urls[name] = f"http://{host}:{free_port()}"
            continue
        behaviour, policy, delay = serving
        port = free_port()
        argv = serve_bot_command(port, behaviour, policy, name=name, delay_s=delay)
        processes.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        urls[name] = f"http://127.0.0.1:{port}"
        wait_serving(urls[name], process=processes[-1])
    return urls, processes


@click.command(help=__doc__)
@click.option("--minutes", type=click.FloatRange(min=0.5), default=10.0, show_default=True,
              help="How long the ladder plays after the bots are registered.")
def command(minutes: float) -> None:
    urls, processes = start_bots()
    try:
        with make_run(QUOTA) as stack, httpx.Client(base_url=stack.base_url, timeout=30) as http:
            registered: dict[str, dict[str, Any]] = {}
            for name, url in urls.items():
                answer = http.post("/api/bots", json={"name": name, "games": [GAME], "url": url})
                registered[name] = answer.json() | {"status": answer.status_code}
            time.sleep(minutes * 60)
            ladder = http.get(f"/api/ladders/{LADDER}", params={"limit": 500}).json()
            bots = {}
            for name, answer in registered.items():
                if answer["status"] != 201:
                    bots[name] = {"registered": False, "refused": answer.get("detail")}
                    continue
                state = http.get(f"/api/bots/{answer['bot_id']}").json()
                bots[name] = {"registered": True, "probe": answer.get("probe", {}).get("outcome"),
                              **placement(ladder, answer["bot_id"]),
                              "paused_reason": state.get("paused_reason")}
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
    click.echo(json.dumps({"minutes": minutes, "ladder": LADDER, "ranked": ladder["ranked_total"],
                           "bots": bots}, indent=2))


def main(argv: list[str] | None = None) -> int:
    """Run the command; a wrong option is one line on stderr (exit 2)."""
    try:
        command.main(args=argv, prog_name="python -m tools.dead_bots", standalone_mode=False)
    except click.ClickException as error:
        print(f"dead_bots: {error.format_message()}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
