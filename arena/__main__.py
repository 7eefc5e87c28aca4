"""`python -m arena COMMAND`: scheduler, worker, benches, offline ladder simulation, a local bot server."""

from __future__ import annotations

import json

import click


@click.group()
def main() -> None:
    """Trick Arena: ladders of bots rated by Elo."""


@main.command("bench-http")
@click.option("--calls", default=3000, show_default=True, help="Calls per client.")
def bench_http(calls: int) -> None:
    """Bare keep-alive loops: http.client vs requests vs httpx vs the arena BotClient (JSON)."""
    from arena.bench_http import run

    click.echo(json.dumps(run(calls)))


@main.command("scheduler")
@click.option("--tick", type=float, default=None, help="Seconds between ticks ($TA_ARENA_TICK_S, 1).")
@click.option("--no-default-ladders", is_flag=True, help="Do not create the 4-player ladder per game.")
@click.option("--stop-after", type=float, default=None, help="Exit after this many seconds (tests, demos).")
def scheduler_command(tick: float | None, no_default_ladders: bool, stop_after: float | None) -> None:
    """Keep every ladder busy: sync members, recover lost matches, enqueue new ones, health-check bots."""
    import dataclasses
    import logging

    from arena.config import load_settings
    from arena.model import default_ladders
    from arena.scheduler import run_forever

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    settings = load_settings()
    if tick is not None:
        settings = dataclasses.replace(settings, tick_s=tick)
    run_forever(settings, [] if no_default_ladders else default_ladders(), stop_after_s=stop_after)


@main.command("add-ladder")
@click.option("--id", "ladder_id", required=True, help="Ladder id, e.g. sore-spot-5p.")
@click.option("--game", required=True)
@click.option("--players", type=int, required=True)
@click.option("--options", default="{}", show_default=True, help="Game options as JSON.")
@click.option("--duplicate/--no-duplicate", default=None, help="Default: on for 4 players.")
@click.option("--deadline-ms", default=1000, show_default=True)
@click.option("--strike-limit", default=5, show_default=True)
@click.option("--house-bots", default=None, help="Comma-separated permanent house members.")
def add_ladder_command(ladder_id: str, game: str, players: int, options: str, duplicate: bool | None,
                       deadline_ms: int, strike_limit: int, house_bots: str | None) -> None:
    """Create or update a ladder (a game, a player count and options) in $REDIS_URL under $TA_KEY_PREFIX."""
    import redis

    from arena.config import load_settings
    from arena.model import DEFAULT_HOUSE_BOTS, LadderConfig
    from arena.store import ArenaStore

    settings = load_settings()
    bots = tuple(b.strip() for b in house_bots.split(",")) if house_bots else DEFAULT_HOUSE_BOTS
    try:
        ladder = LadderConfig(ladder_id, game, players, json.loads(options), duplicate=duplicate,
                              deadline_ms=deadline_ms, strike_limit=strike_limit, house_bots=bots)
    except Exception as exc:  # noqa: BLE001 - any invalid option: say what and stop
        raise click.BadParameter(str(exc)) from None
    ArenaStore(redis.Redis.from_url(settings.redis_url), settings.prefix).save_ladder(ladder)
    click.echo(json.dumps(ladder.to_json()))


@main.command("worker")
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.option("--simple", is_flag=True, help="No fork per job (SimpleWorker): keeps bot connections alive.")
@click.option("--queue", "queues", multiple=True, help="Queue(s) to serve instead of the arena queue "
              "(e.g. the house-bot queue).")
def worker_command(burst: bool, simple: bool, queues: tuple[str, ...]) -> None:
    """An RQ worker on the arena queue ($REDIS_URL, $TA_KEY_PREFIX); run as many as you like, anywhere.

    It outlives Redis restarts: RQ's work loop exits on a lost connection (e.g. from a job's heartbeat), so
    a fresh worker is started after a backoff instead; the interrupted job is recovered like a killed one.
    """
    import logging
    import time

    import redis
    from rq import SimpleWorker, Worker

    from arena.config import load_settings

    settings = load_settings()
    conn = redis.Redis.from_url(settings.redis_url)
    worker_class = SimpleWorker if simple else Worker
    backoff = 0.5
    while True:
        try:
            worker_class(list(queues) or [settings.queue_name], connection=conn).work(burst=burst,
                                                                                    with_scheduler=False)
            return  # stopped (signal, or --burst done)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            logging.getLogger("arena.worker").warning("lost Redis (%s); new worker in %.1f s", exc, backoff)
            time.sleep(backoff)
            backoff = min(backoff * 2, 10.0)


@main.command("simulate-ladder")
@click.option("--game", default="spot-hearts", show_default=True)
@click.option("--bots", default=None, help="Comma-separated house bots, STRONGEST FIRST (the known order). "
              "Default: search-10, heuristic, eps-0.15 .. eps-0.9, random.")
@click.option("--games-per-bot", default=50, show_default=True, help="Rated matches per bot (at least).")
@click.option("--duplicate/--no-duplicate", default=False, show_default=True)
@click.option("--players", default=4, show_default=True)
@click.option("--options", default="{}", show_default=True, help="Game options as JSON.")
@click.option("--seed", default=1, show_default=True)
@click.option("--runs", default=1, show_default=True, help="Independent ladders (seeds seed..seed+runs-1); "
              "spearman is then their mean.")
def simulate_ladder_command(game: str, bots: str | None, games_per_bot: int, duplicate: bool, players: int,
                            options: str, seed: int, runs: int) -> None:
    """Offline ladder with the real matchmaking, match and Elo code; prints one JSON line with `spearman`."""
    from arena.simulate import DEFAULT_BOTS, simulate_many

    names = [b.strip() for b in bots.split(",")] if bots else list(DEFAULT_BOTS)
    click.echo(json.dumps(simulate_many(game, names, games_per_bot, duplicate, seed, runs, players,
                                        json.loads(options))))


@main.command("bench")
@click.option("--seconds", default=3.0, show_default=True, help="Length of the bare loop.")
@click.option("--games", default=10, show_default=True, help="Spot Hearts games for the in-process worker.")
@click.option("--matches", default=48, show_default=True, help="Matches for each RQ worker run (1 and 2).")
@click.option("--repeat", default=3, show_default=True, help="Interleaved repetitions; the best is reported.")
def bench_command(seconds: float, games: int, matches: int, repeat: int) -> None:
    """4 local HTTP bots: bare keep-alive loop vs one worker vs 1 and 2 RQ workers (JSON)."""
    from arena.bench import run

    click.echo(json.dumps(run(seconds, games, matches, repeat)))


@main.command("fast-bots")
@click.option("--ports", default="9101,9102,9103,9104", show_default=True)
def fast_bots_command(ports: str) -> None:
    """Very cheap protocol-v1 bots (first legal move) on 127.0.0.1, a process per connection (benches)."""
    from arena.fastbot import run_fast_bots

    run_fast_bots([int(p) for p in ports.split(",")],
                  started=lambda bound: click.echo(f"fast bots on ports {bound}"))


@main.command("serve-bot")
@click.option("--port", default=9001, show_default=True)
@click.option("--behaviour", default="good", show_default=True)
@click.option("--house-bot", default="heuristic", show_default=True, help="Engine bot that picks the moves.")
@click.option("--name", default="local-bot", show_default=True)
def serve_bot_command(port: int, behaviour: str, house_bot: str, name: str) -> None:
    """Run a protocol-v1 bot on 127.0.0.1 in the foreground (reference bot, benches, fault drills)."""
    from arena.botserver import BotServerConfig, serve_bot

    bot = serve_bot(BotServerConfig(behaviour=behaviour, house_bot=house_bot or None, name=name), port=port)
    click.echo(f"bot {name!r} ({behaviour}) listening on {bot.url}")
    bot.thread.join()


if __name__ == "__main__":
    main()
