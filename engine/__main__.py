"""Command line: ``python -m engine replay|play|bench|compile|duel|analyse|regret``.

Each command's options: ``python -m engine COMMAND --help``; what each prints: docs/engine.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import compiled
from .errors import EngineError

# The commands import the rule modules when they run, after main() has put the compiled build in place.


def _option(text: str) -> tuple[str, Any]:
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import replay_summary

    try:
        with open(args.file) if args.file != "-" else sys.stdin as fh:
            record = json.load(fh)
        summary = replay_summary(record, trace=args.trace)
    except (OSError, json.JSONDecodeError, EngineError) as exc:
        summary = {"ok": False, "error": type(exc).__name__, "reason": str(exc)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(render_summary(summary))
    return 0 if summary["ok"] else 1


def render_summary(summary: dict[str, Any]) -> str:
    lines = []
    for i, rnd in enumerate(summary.get("rounds", [])):
        lines.append(f"Round {i + 1} (dealer {rnd['dealer']})")
        for t in rnd["tricks"]:
            seats = [(t["leader"] + k) for k in range(len(t["cards"]))]
            cards = "  ".join(
                f"{s % len(summary['totals'])}:{c}" for s, c in zip(seats, t["cards"], strict=True)
            )
            won = "nobody (all Aces)" if t["winner"] is None else f"seat {t['winner']}"
            lines.append(f"  {cards}  -> {won}")
        if rnd["points"] is not None:
            lines.append(f"  points {rnd['points']}")
    if "totals" in summary:
        lines.append(
            f"Totals {summary['totals']}" + (f"  winners {summary['winners']}" if summary.get("over") else "")
        )
    if not summary["ok"]:
        lines.append(
            f"ILLEGAL move #{summary.get('index')} by seat {summary.get('seat')}: {summary['reason']}"
        )
    return "\n".join(lines)


def cmd_play(args: argparse.Namespace) -> int:
    from .bots import make_bot, play_game
    from .game import new_game
    from .replay import replay_summary

    names = args.bots.split(",")
    try:
        game = new_game(args.game, args.players, dict(args.option), seed=args.seed)
        if len(names) != args.players:
            raise EngineError(f"--bots names {len(names)} bots for {args.players} players")
        bots = [make_bot(name, seed=f"{args.seed}/{seat}") for seat, name in enumerate(names)]
    except (EngineError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    play_game(game, bots)
    if args.json:
        print(json.dumps(game.record()))
        return 0
    print(f"{game.rules.info.name}, {args.players} players, seed {args.seed}, bots {', '.join(names)}")
    print(render_summary({"ok": True, **replay_summary(game.record())}))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import bench
    from .games.registry import GAMES

    if args.game and any(g not in GAMES for g in args.game):
        print(f"error: --game must be one of {', '.join(GAMES)}", file=sys.stderr)
        return 2
    rows = bench(
        args.game, args.rounds, args.seed, args.players, repeat=args.repeat, openspiel=not args.no_openspiel
    )
    if args.json:
        print(json.dumps(rows))
        return 0
    for row in rows:
        print(json.dumps(row))
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    try:
        status = compiled.build()
    except Exception as exc:  # no C compiler, no mypy: the interpreted engine is the fallback
        print(f"not compiled ({type(exc).__name__}: {exc}); the engine runs interpreted", file=sys.stderr)
        return 1
    print(f"compiled {len(compiled.MODULES)} modules into {compiled.BUILD}")
    return status


def cmd_duel(args: argparse.Namespace) -> int:
    from .bots import make_bot
    from .duel import duel

    a, _, b = args.bots.partition(",")
    try:
        make_bot(a), make_bot(b)
        print(json.dumps(duel(args.game, a, b, args.games, args.players, args.duplicate, args.seed,
                              dict(args.option), worlds=args.worlds)))
    except (EngineError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from .analysis import analyse

    def progress(done: int, total: int) -> None:
        print(f"\ranalysing seat {args.seat}: {done}/{total} decisions", end="", file=sys.stderr, flush=True)

    try:
        with open(args.file) if args.file != "-" else sys.stdin as fh:
            record = json.load(fh)
        report = analyse(record, args.seat, args.budget_ms, args.seed, progress=progress)
    except (OSError, json.JSONDecodeError, EngineError, KeyError, TypeError, AttributeError) as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(file=sys.stderr)
    if args.json:
        print(json.dumps(report))
        return 0
    for d in report["decisions"]:
        if d["forced"]:
            continue
        values = "  ".join(f"{_move_text(c['move'])}={c['value']}" for c in d["candidates"])
        print(f"#{d['index']:<4} round {d['round']} {d['kind']:<4} chose {_move_text(d['chosen']):<9} "
              f"best {_move_text(d['best']):<9} regret {d['regret']:<6} | {values}")
    print(f"seat {args.seat}: total regret {report['total_regret']} over "
          f"{len(report['decisions'])} decisions (mean {report['mean_regret']}; "
          f"{report['mean_behind_heuristic']} behind the heuristic); "
          f"seat total {report['seat_total']}; {report['elapsed_s']} s")
    return 0


def _move_text(move: Any) -> str:
    return "-" if move is None else move if isinstance(move, str) else "+".join(move)


def cmd_regret(args: argparse.Namespace) -> int:
    from .analysis import regret_by_bot

    names = args.bots.split(",")
    try:
        print(json.dumps(regret_by_bot(args.game, names, args.games, args.budget_ms, args.seed,
                                       dict(args.option), players=args.players, worlds=args.worlds,
                                       search_worlds=args.search_worlds,
                                       same_positions=args.same_positions)))
    except (EngineError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Trick Arena rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="replay a JSON record and summarise it")
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--trace", action="store_true", help="list every decision with its legal moves")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("play", help="play a full game between house bots")
    p.add_argument("--game", required=True)
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--bots", required=True, help="comma-separated: random, heuristic, eps-0.3, search, ...")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", type=_option, default=[], metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true", help="print the replay record")
    p.set_defaults(func=cmd_play)
    p = sub.add_parser("bench", help="rounds per second with random bots, next to OpenSpiel's Hearts")
    p.add_argument("--game", action="append", help="a game to measure (repeatable; default: all four)")
    p.add_argument("--rounds", "--games", type=int, default=2000, help="rounds per run")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, help="players per game (default 4)")
    p.add_argument("--repeat", type=int, default=3, help="alternating runs; each figure is the best")
    p.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel even when installed")
    p.add_argument("--json", action="store_true", help="print every row in one JSON list")
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser("compile", help="compile the rule modules with mypyc (needs mypy and a C compiler)")
    p.set_defaults(func=cmd_compile)
    p = sub.add_parser("duel", help="paired games of house bot A against house bot B, with a p-value")
    p.add_argument("--game", required=True)
    p.add_argument("--bots", required=True, help="A,B: e.g. search,heuristic")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=50, help="deals (game seeds) to play")
    p.add_argument("--duplicate", action="store_true",
                   help="every deal with A in each seat and an all-B baseline")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", type=_option, default=[], metavar="KEY=VALUE")
    p.add_argument("--worlds", type=_positive, help="search bots: exactly this many worlds per decision, "
                   "no clock (the same games on any machine)")
    p.set_defaults(func=cmd_duel)
    p = sub.add_parser("analyse", help="value every decision of one seat of a replay record")
    p.add_argument("file", help="record file, or - for standard input")
    p.add_argument("--seat", type=int, required=True)
    p.add_argument("--budget-ms", type=int, default=250, help="search time per decision")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled worlds")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_analyse)
    p = sub.add_parser("regret", help="mean regret and mean points behind the heuristic per decision of "
                       "each house bot over played games")
    p.add_argument("--game", required=True)
    p.add_argument("--bots", required=True, help="strongest first, e.g. search-10,heuristic,eps-0.5,random; "
                   "seat s of game g holds bot (g + s) mod their number")
    p.add_argument("--players", type=int, help="seats per game (default: one per bot)")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--budget-ms", type=int, default=50, help="search time per analysed decision")
    p.add_argument("--worlds", type=_positive,
                   help="analysis: exactly this many worlds per decision, no clock")
    p.add_argument("--search-worlds", type=_positive,
                   help="search bots that play: exactly this many worlds per decision, no clock")
    p.add_argument("--same-positions", action="store_true",
                   help="every bot answers every decision of every game, judged by the same values")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", type=_option, default=[], metavar="KEY=VALUE")
    p.set_defaults(func=cmd_regret)
    args = parser.parse_args(argv)
    if args.func is not cmd_compile:
        compiled.activate()  # the compiled build when it matches the source (engine/compiled.py)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
