"""`python -m arena COMMAND`: scheduler, worker, ladders, offline ladder simulation, a local bot server,
and the operator's moderation commands (`admin`, arena/admin.py)."""

from __future__ import annotations

import sys

from arena import eventloop

if __name__ == "__main__" and eventloop.wanted(sys.argv[1:]):
    eventloop.install()  # first: before anything below opens a socket or makes a lock

import json  # noqa: E402
from typing import Any  # noqa: E402

import click  # noqa: E402

from arena.admin import admin  # noqa: E402


@click.group()
def main() -> None:
    """Trick Arena: ladders of bots rated by Elo."""
    from engine import compiled

    compiled.activate()  # every command plays with the compiled rules when built (make compiled)


@main.command("scheduler")
@click.option("--tick", type=float, default=None, help="Seconds between ticks ($TA_ARENA_TICK_S, 1).")
@click.option("--no-default-ladders", is_flag=True, help="Do not create the 4-player ladder per game.")
@click.option("--stop-after", type=float, default=None, help="Exit after this many seconds (tests, demos).")
def scheduler_command(tick: float | None, no_default_ladders: bool, stop_after: float | None) -> None:
    """Keep every ladder busy: sync members, recover lost matches, enqueue new ones, health-check bots."""
    import dataclasses
    import logging

    from arena.scheduler import run_forever
    from core.arena.model import default_ladders
    from core.settings import Settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    settings = Settings.from_env()
    if tick is not None:
        settings = dataclasses.replace(settings, tick_s=tick)
    try:
        ladders = [] if no_default_ladders else default_ladders(settings.house_only_gap_s)
        run_forever(settings, ladders, stop_after_s=stop_after)
    finally:
        _process_ended()


@main.command("add-ladder")
@click.option("--id", "ladder_id", required=True, help="Ladder id, e.g. sore-spot-5p.")
@click.option("--game", required=True)
@click.option("--players", type=int, required=True)
@click.option("--options", default="{}", show_default=True, help="Game options as JSON.")
@click.option("--duplicate/--no-duplicate", default=None, help="Default: on for 4 players.")
@click.option("--deadline-ms", default=1000, show_default=True)
@click.option("--strike-limit", default=5, show_default=True)
@click.option("--house-bots", default=None, help="Comma-separated permanent house members. "
              "Default: the game's ladder set (core.arena.model.house_bots_for).")
@click.option("--presence-s", default=10.0, show_default=True,
              help="Polling bots are seated only if they called their ladder-seats endpoint this recently.")
def add_ladder_command(ladder_id: str, game: str, players: int, options: str, duplicate: bool | None,
                       deadline_ms: int, strike_limit: int, house_bots: str | None,
                       presence_s: float) -> None:
    """Create or update a ladder (a game, a player count and options) in $REDIS_URL under $TA_KEY_PREFIX."""
    from core.arena.model import LadderConfig
    from core.arena.store import ArenaStore
    from core.redis.connections import settings_client
    from core.settings import Settings

    settings = Settings.from_env()
    bots = tuple(b.strip() for b in house_bots.split(",")) if house_bots else None  # None: the game's set
    try:
        ladder = LadderConfig(ladder_id, game, players, json.loads(options), duplicate=duplicate,
                              deadline_ms=deadline_ms, strike_limit=strike_limit, house_bots=bots,
                              presence_s=presence_s)
    except Exception as exc:  # noqa: BLE001 - any invalid option: say what and stop
        raise click.BadParameter(str(exc)) from None
    ArenaStore(settings_client(settings), settings.prefix).save_ladder(ladder)
    click.echo(json.dumps(ladder.to_json()))


@main.command("issue-account-key")
@click.argument("account_id")
def issue_account_key_command(account_id: str) -> None:
    """Issue a new API key for ACCOUNT_ID (its owner lost or revoked theirs): whatever key it had stops
    working. The key is printed once, here, for the operator to hand to the account's owner."""
    from core.arena.accounts import AccountStore
    from core.errors import AccountNotFound
    from core.redis.connections import settings_client
    from core.settings import Settings

    settings = Settings.from_env()
    store = AccountStore(settings_client(settings, decode_responses=True), settings.prefix)
    try:
        key = store.issue_key(account_id)
    except AccountNotFound as error:
        raise click.ClickException(error.detail) from None
    click.echo(key)


@main.command("worker")
@click.option("--burst", is_flag=True, help="Exit when the queue is empty.")
@click.option("--max-in-flight", "--threads", "max_in_flight", type=click.IntRange(min=1), default=None,
              help="The most matches this process plays at once, one RQ worker each, started as needed "
                   "($TA_ARENA_MAX_IN_FLIGHT, default 2500; 4 with --challenges; 1 with --house or "
                   "--analysis). 1: one job at a time (see --simple).")
@click.option("--simple", is_flag=True, help="With --max-in-flight 1: no fork per job (SimpleWorker), keeps "
              "bot connections alive. Pools always run their jobs in-process.")
@click.option("--queue", "queues", multiple=True, help="Queue(s) to serve instead of the arena queue.")
@click.option("--house", is_flag=True, help="Serve the house-bot queue of practice tables ($TA_RQ_QUEUE, "
              "else derived from $TA_KEY_PREFIX as the API does).")
@click.option("--analysis", is_flag=True, help="Serve the game-analysis queue ($TA_ANALYSIS_QUEUE, else "
              "derived from $TA_KEY_PREFIX as the API does).")
@click.option("--challenges", is_flag=True, help="Serve the challenges' queue (derived from $TA_KEY_PREFIX "
              "as the API does), 4 matches at once at niceness 10 unless told otherwise: below the ladder's "
              "workers.")
@click.option("--tournaments", is_flag=True, help="Serve the tournaments' queue (derived from $TA_KEY_PREFIX "
              "as the API does), 4 matches at once at niceness 19 unless told otherwise: below the ladder's "
              "workers.")
@click.option("--nice", "niceness", type=click.IntRange(0, 19), default=None,
              help="Run at this OS niceness (default 19 with --analysis: analyses get the CPU the match "
                   "workers leave idle; 10 with --challenges; 19 with --tournaments; else unchanged).")
def worker_command(burst: bool, max_in_flight: int | None, simple: bool, queues: tuple[str, ...],
                   house: bool, analysis: bool, challenges: bool, tournaments: bool,
                   niceness: int | None) -> None:
    """RQ workers on the arena queue ($REDIS_URL, $TA_KEY_PREFIX); run as many processes as you like.

    A pool (the default) plays its matches on an event loop (gevent), taking new ones while the process
    keeps up and its RSS stays within $TA_ARENA_MEMORY_MB (docs/arena.md).

    It outlives Redis restarts and a Redis out of memory or disk: RQ's work loop exits on a lost connection
    or a refused write (e.g. from a job's heartbeat), so a fresh worker is started after a backoff instead;
    the interrupted job is recovered like a killed one.
    """
    from arena.workers import run_worker
    from core.settings import Settings

    try:
        run_worker(Settings.from_env(), queues, house=house, analysis=analysis, challenges=challenges,
                   tournaments=tournaments, max_in_flight=max_in_flight, simple=simple, burst=burst,
                   niceness=niceness)
    finally:
        _process_ended()


def _process_ended() -> None:
    """This process's live gauges leave the machine's metrics directory with it (core/metrics.py)."""
    from core import metrics

    metrics.process_ended()


@main.command("metrics")
@click.option("--bind", default=None, help="host:port to serve on ($TA_METRICS_BIND).")
def metrics_command(bind: str | None) -> None:
    """Serve this machine's Prometheus metrics (every process writing to $PROMETHEUS_MULTIPROC_DIR, and the
    RQ queues) at GET /metrics, for the operator's token ($TA_ADMIN_TOKEN); docs/metrics.md."""
    from arena.metricsserver import make_metrics_server, parse_bind
    from core import metrics
    from core.settings import Settings

    settings = Settings.from_env()
    bind = bind or settings.metrics_bind
    if not bind:
        raise click.ClickException("say where to serve: --bind HOST:PORT or $TA_METRICS_BIND")
    try:
        parse_bind(bind)
    except ValueError as exc:
        raise click.ClickException(f"--bind: {exc}") from None
    if metrics.multiprocess_dir() is None:
        raise click.ClickException("set $PROMETHEUS_MULTIPROC_DIR: the directory this machine's processes "
                                   "write their metrics to (docs/metrics.md)")
    try:
        server = make_metrics_server(settings, bind)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {bind}: {exc.strerror}") from None
    click.echo(f"metrics of {metrics.multiprocess_dir()} at http://{bind}/metrics", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _json_object(ctx: click.Context, param: click.Parameter, value: str) -> dict[str, Any]:
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise click.BadParameter("must be a JSON object, e.g. '{\"target\": 1}'")
    return parsed


@main.command("simulate-ladder")
@click.option("--game", default="spot-hearts", show_default=True)
@click.option("--bots", default=None, help="Comma-separated house bots, STRONGEST FIRST (the known order); "
              "`memory` is the memory bot (arena.memorybot). "
              "Default: the game's ladder set (core.arena.model.house_bots_for).")
@click.option("--games-per-bot", default=50, show_default=True, help="Rated matches per bot (at least).")
@click.option("--duplicate/--no-duplicate", default=False, show_default=True)
@click.option("--players", default=4, show_default=True)
@click.option("--options", default="{}", show_default=True, callback=_json_object,
              help="Game options as JSON.")
@click.option("--seed", default=1, show_default=True)
@click.option("--runs", default=1, show_default=True, help="Independent ladders (seeds seed..seed+runs-1); "
              "spearman is then their mean.")
@click.option("--max-active", type=click.IntRange(min=1), default=None,
              help="Model the live ladder on simulated time: this many matches in flight (a ladder's "
              "max_active, 2), created at the scheduler's ticks from free bots. Default: sequential matches.")
@click.option("--tick-s", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="With --max-active: seconds between the scheduler's ticks.")
@click.option("--delay-ms", "delays", multiple=True, metavar="BOT=MS",
              help="With --max-active: a bot's time per decision (default: MS for search-MS, else 0).")
@click.option("--house-gap-s", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="With --max-active: seconds between two house-only tables (a ladder's house_only_gap_s).")
@click.option("--replay-deals", is_flag=True, help="Duplicate matches replay their first game's deal in "
              "every game (the format that shows a bot a deal twice), instead of a fresh deal per game.")
@click.option("--no-mixing", is_flag=True, help="With --max-active: matchmaking without meeting counts and "
              "waits (how the scheduler matched before), to compare.")
def simulate_ladder_command(game: str, bots: str | None, games_per_bot: int, duplicate: bool, players: int,
                            options: dict[str, Any], seed: int, runs: int, max_active: int | None,
                            tick_s: float, delays: tuple[str, ...], house_gap_s: float, replay_deals: bool,
                            no_mixing: bool) -> None:
    """Offline ladder with the real matchmaking, match and Elo code; prints one JSON line with `spearman`."""
    from arena.simulate import Concurrency, simulate_many
    from core.arena.model import house_bots_for

    # By default the ladders' own set (strongest first): the simulation measures the yardstick they use.
    names = [b.strip() for b in bots.split(",")] if bots else list(house_bots_for(game))
    delays_ms: dict[str, float] = {}
    for item in delays:
        bot, _, ms = item.partition("=")
        try:
            delays_ms[bot.strip()] = float(ms)
        except ValueError:
            raise click.BadParameter(f"{item!r} is not BOT=MS", param_hint="--delay-ms") from None
    unknown = set(delays_ms) - set(names)
    if unknown:
        raise click.BadParameter(f"not in the ladder: {', '.join(sorted(unknown))}", param_hint="--delay-ms")
    concurrency = None if max_active is None else Concurrency(max_active, tick_s, delays_ms, house_gap_s,
                                                              mixing=not no_mixing)
    click.echo(json.dumps(simulate_many(game, names, games_per_bot, duplicate, seed, runs, players,
                                        options, concurrency, replay_deals)))


@main.command("memory-gain")
@click.option("--game", default="spot-hearts", show_default=True)
@click.option("--matches", type=click.IntRange(1, 10_000), default=60, show_default=True)
@click.option("--options", default="{}", show_default=True, callback=_json_object,
              help="Game options as JSON.")
@click.option("--opponents", default="heuristic", show_default=True, help="Comma-separated house bots.")
@click.option("--replay-deals", is_flag=True, help="Every game of a match on the first game's deal (bots "
              "rotated): the format that shows a bot a deal twice.")
@click.option("--seed", default=1, show_default=True)
def memory_gain_command(game: str, matches: int, options: dict[str, Any], opponents: str, replay_deals: bool,
                        seed: int) -> None:
    """What a bot that remembers every card gains over its memoryless twin in duplicate matches (JSON)."""
    import engine
    from arena.memorybot import memory_gain
    from engine.bots import make_bot

    if game not in engine.GAMES:
        raise click.BadParameter(f"unknown game {game!r}; games: {', '.join(engine.GAMES)}",
                                 param_hint="--game")
    try:
        engine.new_game(game, 4, options, seed=0)
    except engine.EngineError as exc:
        raise click.BadParameter(str(exc), param_hint="--options") from None
    names = tuple(b.strip() for b in opponents.split(",") if b.strip())
    for name in names:
        try:
            make_bot(name)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--opponents") from None
    click.echo(json.dumps(memory_gain(game, matches, seed, options, names or ("heuristic",), replay_deals)))


@main.command("serve-bot")
@click.option("--port", default=9001, show_default=True)
@click.option("--behaviour", default="good", show_default=True)
@click.option("--house-bot", default="heuristic", show_default=True, help="Engine bot that picks the moves.")
@click.option("--name", default="local-bot", show_default=True)
@click.option("--delay", default=2.0, show_default=True, help="Seconds of `sleep` and `dribble` behaviours.")
def serve_bot_command(port: int, behaviour: str, house_bot: str, name: str, delay: float) -> None:
    """Run a protocol-v1 bot on 127.0.0.1 in the foreground (reference bot, benches, fault drills)."""
    from arena.botserver import BotServerConfig, serve_bot

    config = BotServerConfig(behaviour=behaviour, house_bot=house_bot or None, name=name, delay_s=delay)
    bot = serve_bot(config, port=port)
    click.echo(f"bot {name!r} ({behaviour}) listening on {bot.url}")
    bot.thread.join()


main.add_command(admin)

if __name__ == "__main__":
    main()
