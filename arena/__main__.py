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
