"""Replay frames: a finished game's record turned into the steps the replay viewer shows, all hands open.
Pure, so the web replay viewer and ``trick-arena replay`` step through the same frames.

Design: docs/web.md, "Replay viewer"
"""

from __future__ import annotations

from typing import Any

from .game import start_from_record
from .shapes import Trick
from .state import GameState

PASS, SORE, PLAY = "pass", "sore", "play"


def _completed_tricks(game: GameState[Any]) -> int:
    return sum(len(r["tricks"]) for r in game.history) + len(game.tricks)


def _last_trick(game: GameState[Any]) -> Trick:
    return game.tricks[-1] if game.tricks else game.history[-1]["tricks"][-1]


def _hands(game: GameState[Any]) -> list[list[str]]:
    return [list(game.view(seat)["hand"]) for seat in range(game.players)]


def replay_frames(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every step of the game in `record` (raises engine.EngineError on a record that does not replay)."""
    game = start_from_record(record)
    players = game.players
    frames: list[dict[str, Any]] = []
    hands = _hands(game)
    tricks_per_round = len(hands[0])
    trick_no = 0
    current: list[dict[str, Any]] = []
    choices: dict[int, Any] = {}  # this phase's passes / sore cards, shown together once all are in

    sore_cards: list[Any] | None = None  # public once every seat has laid one; shown for the whole round
    applied = 0  # moves of the record applied so far

    def frame(kind: str, label: str, **extra: Any) -> None:
        public = game.spectator_view()
        frames.append({"kind": kind, "label": label, "moves": applied, "round": game_round,
                       "trick_no": trick_no,
                       "tricks_in_round": tricks_per_round, "hands": [list(h) for h in hands],
                       "totals": list(game.totals), "trick": None, "sore_cards": sore_cards,
                       "trump": public.get("trump"), "hearts_broken": public.get("hearts_broken"), **extra})

    game_round = game.round_no
    frame("deal", f"Round {game_round + 1}: the deal", dealer=game.dealer)
    for entry in record.get("moves", []):
        seat = entry["seat"]
        phase, round_before, completed_before = game.phase, game.round_no, _completed_tricks(game)
        game.apply(seat, entry["move"])
        applied += 1
        move = game.moves[-1]["move"]  # canonical codes
        if phase in (PASS, SORE):
            choices[seat] = move
            if game.phase != phase:
                hands = _hands(game)
                tricks_per_round = len(hands[0])
                if phase == PASS:
                    frame("pass", f"Round {game_round + 1}: cards passed {_direction(game)}".rstrip(),
                          passed=[choices.get(s) for s in range(players)])
                else:
                    sore_cards = [choices.get(s) for s in range(players)]
                    frame("sore", f"Round {game_round + 1}: sore cards laid")
                choices = {}
            continue
        hands[seat] = [c for c in hands[seat] if c != move]
        current.append({"seat": seat, "card": move})
        if _completed_tricks(game) > completed_before:
            trick_no += 1
            taken = _last_trick(game)
            winner = taken.get("winner")
            who = f"seat {winner} takes it" if winner is not None else "nobody takes it"
            frame("trick", f"Round {game_round + 1}, trick {trick_no} of {tricks_per_round}: {who}",
                  trick={"leader": current[0]["seat"], "cards": current, "winner": winner})
            current = []
        if game.round_no != round_before or game.over:
            points = game.history[-1]["points"]
            frame("round", f"Round {game_round + 1} over: points {' / '.join(map(str, points))}",
                  points=list(points))
            if game.over:
                break
            game_round, trick_no, sore_cards = game.round_no, 0, None
            hands = _hands(game)
            tricks_per_round = len(hands[0])
            frame("deal", f"Round {game_round + 1}: the deal", dealer=game.dealer)
    if game.over:
        winners = list(game.winners)
        frame("end", f"Game over: seat{'s' if len(winners) > 1 else ''} "
                     f"{', '.join(map(str, winners))} win{'' if len(winners) > 1 else 's'}", winners=winners)
    return frames


def _direction(game: GameState[Any]) -> str:
    return str(game.spectator_view().get("pass_direction") or "")
