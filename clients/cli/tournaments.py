"""``trick-arena tournament create|show|standings``: round-robin and Swiss events of your bots and others'.

Design: docs/cli.md#tournaments
"""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from clients.cli.consoles import wide_console

console = wide_console()


def standings_table(title: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=title)
    for column in ("#", "bot", "points", "buchholz", "score", "tables", "won", "byes"):
        table.add_column(column)
    for row in rows:
        name = row["name"] + (" (dropped out)" if row["dropped"] else "")
        table.add_row(str(row["place"]), name, f"{row['points']:g}", f"{row['buchholz']:g}",
                      f"{row['score']:g}", str(row["tables"]), str(row["firsts"]), str(row["byes"]))
    return table


@click.group("tournament")
def tournament() -> None:
    """Tournaments: unrated events whose tables share each round's deals (docs/arena.md#tournaments)."""


@tournament.command("create")
@click.argument("bots", nargs=-1)
@click.option("--game", required=True, help="The game.")
@click.option("--format", "event_format", type=click.Choice(["swiss", "round-robin"]), required=True)
@click.option("--rounds", type=click.IntRange(1, 30), default=None, help="Swiss: the rounds to play.")
@click.option("--meetings", type=click.IntRange(1, 10), default=None,
              help="Round robin: each two bots at least this often (default: every group once).")
@click.option("--players", type=click.IntRange(2, 6), default=4, show_default=True, help="Seats per table.")
@click.option("--name", default="", help="The event's name.")
@click.option("--options", "options_json", default=None, help="Game options as a JSON object.")
@click.pass_context
def create(ctx: click.Context, bots: tuple[str, ...], game: str, event_format: str, rounds: int | None,
           meetings: int | None, players: int, name: str, options_json: str | None) -> None:
    """Create an event of BOTS (your account's, others' accepting challenges, house bot names); it starts at
    once, with your account's API key."""
    from clients.cli import _api, _json_option, _manager

    if len(bots) < players:
        raise click.UsageError(f"name at least {players} bots")
    fields: dict[str, Any] = {"players": players, "name": name, "options": _json_option(options_json)}
    if meetings is not None:
        fields["meetings"] = meetings
    with _api(ctx) as api:
        event = api.create_tournament(_manager(ctx, None), game, event_format, list(bots), rounds=rounds,
                                      **fields)
    console.print(f"tournament [cyan]{event['tournament_id']}[/cyan] {event['status']}: "
                  f"{ctx.obj['api_url']}{event['web_url']}")


@tournament.command("show")
@click.argument("tournament_id")
@click.pass_context
def show(ctx: click.Context, tournament_id: str) -> None:
    """The event's rounds (every table, its status and match) and standings."""
    from clients.cli import _api

    with _api(ctx) as api:
        event = api.tournament(tournament_id)
    console.print(f"{event['name']} · {event['format']} · {event['game']} · {event['status']}")
    for rnd in event["schedule"]:
        console.print(f"round {rnd['round'] + 1} ({rnd['status']})")
        for table in rnd["tables"]:
            console.print(f"  {table['match_id']} {table['status']:8} {' · '.join(table['names'])}  "
                          f"{ctx.obj['api_url']}{table['web_url']}")
        if rnd["byes"]:
            console.print(f"  bye: {', '.join(rnd['byes'])}")
    console.print(standings_table("standings", event["standings"]))


@tournament.command("standings")
@click.argument("tournament_id")
@click.pass_context
def standings(ctx: click.Context, tournament_id: str) -> None:
    """The standings from the rounds that are over."""
    from clients.cli import _api

    with _api(ctx) as api:
        answer = api.tournament_standings(tournament_id)
    title = f"{tournament_id} · {answer['status']} · {answer['rounds_done']} rounds over"
    console.print(standings_table(title, answer["standings"]))
