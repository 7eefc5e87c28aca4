"""A replay in the terminal, trick by trick, from the same frames the web replay viewer steps through."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from engine.frames import replay_frames

SUIT_SYMBOLS = {"S": ("♠", "white"), "C": ("♣", "white"), "H": ("♥", "red"), "D": ("♦", "red")}


def card_text(code: str) -> Text:
    symbol, colour = SUIT_SYMBOLS.get(code[-1], ("?", "white"))
    rank = "10" if code[:-1] == "T" else code[:-1]
    return Text(f"{rank}{symbol}", style=f"bold {colour}")


def cards_text(codes: list[str]) -> Text:
    return Text(" ").join(card_text(c) for c in codes) if codes else Text("–", style="dim")


def print_replay(console: Console, record: dict[str, Any], names: list[str] | None = None,
                 hands: bool = False) -> None:
    frames = replay_frames(record)
    players = record["players"]
    names = names or [f"seat {s}" for s in range(players)]
    width = max(len(n) for n in names)
    console.print(f"[bold]{record['game']}[/bold] · {players} players · options {record.get('options') or {}}"
                  f"{' · seed ' + str(record['seed']) if record.get('seed') is not None else ''}")
    for frame in frames:
        kind = frame["kind"]
        if kind == "deal":
            console.rule(f"Round {frame['round'] + 1} · dealer {names[frame.get('dealer', 0)]}")
            if hands:
                for seat in range(players):
                    console.print(Text(f"  {names[seat]:<{width}}  ") + cards_text(frame["hands"][seat]))
        elif kind in ("pass", "sore"):
            label = "passes" if kind == "pass" else "lays sore card"
            chosen = frame.get("passed") if kind == "pass" else frame.get("sore_cards")
            for seat in range(players):
                value = (chosen or [None] * players)[seat]
                codes = value if isinstance(value, list) else ([value] if value else [])
                console.print(Text(f"  {names[seat]:<{width}}  {label} ") + cards_text(codes))
        elif kind == "trick":
            trick = frame["trick"]
            line = Text(f"  {frame['trick_no']:>2}. ")
            for index, played in enumerate(trick["cards"]):
                if index:
                    line.append("  ")
                line.append(f"{names[played['seat']]} ")
                line.append_text(card_text(played["card"]))
            winner = trick["winner"]
            line.append(f"  → {names[winner] if winner is not None else 'nobody'}", style="cyan")
            console.print(line)
        elif kind == "round":
            points = " · ".join(f"{names[s]} {p}" for s, p in enumerate(frame["points"]))
            totals = " · ".join(f"{names[s]} {t}" for s, t in enumerate(frame["totals"]))
            console.print(f"  points: {points}\n  totals: [bold]{totals}[/bold]")
        elif kind == "end":
            winners = ", ".join(names[s] for s in frame["winners"])
            console.rule(f"[bold green]Game over: {winners} won[/bold green]")
