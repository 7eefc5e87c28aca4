"""``trick-arena log MATCH_ID``: your bot's decisions in a finished match, with what it answered, how long
it took and what the arena did. Design: docs/cli.md#why-did-my-bot-lose
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

import clients.cli as cli
from clients.cli.account import account_key
from core.arena.latency import percentile

ANSWER_SHOWN = 60  # characters of a raw answer shown in the table (--json has all of it)


def latency_line(latencies: list[float]) -> str:
    """p50 / p95 / max of decision latencies, in words.

    >>> latency_line([10.0, 12.0, 11.0, 250.0])
    'latency p50 11.0 ms, p95 250.0 ms, max 250.0 ms'
    >>> latency_line([])
    'no decisions'
    """
    if not latencies:
        return "no decisions"
    ordered = sorted(latencies)
    return (f"latency p50 {percentile(ordered, 0.5):.1f} ms, p95 {percentile(ordered, 0.95):.1f} ms, "
            f"max {ordered[-1]:.1f} ms")


def shown_answer(answer: str | None) -> str:
    if answer is None:
        return "(none)"
    return answer if len(answer) <= ANSWER_SHOWN else answer[: ANSWER_SHOWN - 1] + "…"


def decision_table(game_no: int, decisions: list[dict[str, Any]], deadline_ms: int) -> Table:
    failed = [d for d in decisions if d["outcome"] != "ok"]
    title = (f"game {game_no}: {len(decisions)} decisions, {len(failed)} failed; "
             f"{latency_line([d['latency_ms'] for d in decisions])}")
    table = Table(title=title, title_justify="left")
    for column, justify in (("move #", "right"), ("latency ms", "right"), ("outcome", "left"),
                            ("move played", "left"), ("answer", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for d in decisions:
        slow = d["latency_ms"] >= 0.8 * deadline_ms
        latency = f"[yellow]{d['latency_ms']:.1f}[/yellow]" if slow else f"{d['latency_ms']:.1f}"
        outcome = ("ok" if d["outcome"] == "ok"
                   else f"[red]{escape(d['outcome'])}[/red]: {escape(d['detail'])}")
        move = " ".join(d["move"]) if isinstance(d["move"], list) else str(d["move"])
        if d["fallback"]:
            move += " (fallback)"
        table.add_row(str(d["version"]), latency, outcome, move, escape(shown_answer(d["answer"])))
    return table


def my_bots_in(api: Any, ctx: click.Context, match: Any) -> list[str]:
    """The bots of the account whose key is set that played in `match`."""
    mine = {bot.bot_id for bot in api.account_bots(account_key(ctx))}
    return [bot_id for bot_id in match.entrants if bot_id in mine]


@click.command("log")
@click.argument("match_id")
@click.option("--bot", "bot_id", default=None, help="The bot (default: each of your account's bots in it).")
@click.option("--token", default=None, help="The bot's owner token, for a bot outside your account.")
@click.option("--game", "game_no", type=click.IntRange(0), default=None, help="Only this game (0-based).")
@click.option("--failed", is_flag=True, help="Only the decisions that failed (struck, fallback played).")
@click.option("--json", "as_json", is_flag=True, help="The log as the API answers it, one JSON per bot.")
@click.pass_context
def log(ctx: click.Context, match_id: str, bot_id: str | None, token: str | None, game_no: int | None,
        failed: bool, as_json: bool) -> None:
    """Your bot's decisions in a finished match: per decision its latency, the outcome (ok, or why it was
    struck), the move played (its own, or the fallback) and its raw answer."""
    if token and not bot_id:
        raise click.UsageError("--token names one bot's owner token: give --bot BOT_ID too")
    with cli._api(ctx) as api:
        match = api.match(match_id)
        bot_ids = [bot_id] if bot_id else my_bots_in(api, ctx, match)
        if not bot_ids:
            raise click.ClickException(f"none of your account's bots played in {match_id}: "
                                       "name one with --bot")
        manager = token or account_key(ctx)
        for one in bot_ids:
            answer = api.decisions(match_id, one, manager, game=game_no)
            if as_json:
                click.echo(json.dumps(answer))
                continue
            decisions = [d for d in answer["decisions"] if not failed or d["outcome"] != "ok"]
            deadline_ms = answer["decisions"][0]["request"]["deadline_ms"] if answer["decisions"] else 1000
            cli.console.print(f"[bold]{escape(one)}[/bold] in {match_id} "
                              f"({answer['game']}, {answer['status']})")
            for game in sorted({d["game_no"] for d in decisions}):
                cli.console.print(decision_table(game, [d for d in decisions if d["game_no"] == game],
                                                 deadline_ms))
            struck = sum(1 for d in answer["decisions"] if d["outcome"] != "ok")
            cli.console.print(f"{len(answer['decisions'])} decisions, {struck} struck; "
                              + latency_line([d["latency_ms"] for d in answer["decisions"]]))
