"""``run(bot)``: the command line every starter bot gets for free.

    python my_bot.py serve [--host 127.0.0.1] [--port 9001]      # HTTP bot (protocol v1)
    python my_bot.py practice [--api URL] [--game G] [--opponents heuristic,random,random] [--options JSON]
    python my_bot.py ladder --bot-id ID --token OWNER_TOKEN [--api URL]   # polling bot on the ladder
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from typing import NoReturn

from trickarena.bot import Bot
from trickarena.http import ApiError, ApiUnavailable


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _stop_on_sigterm() -> None:
    # Process managers (honcho, systemd) stop with SIGTERM: treat it like Ctrl-C for a clean exit. SIGINT is
    # re-armed too: a shell starting us in the background may have set it to "ignore", which Python inherits.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _json_object(text: str) -> dict:
    """``--options``: a JSON object, or a usage error (one line, exit 2) saying why not.

    >>> _json_object('{"target": 100}')
    {'target': 100}
    """
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc}") from exc
    if not isinstance(parsed, dict):
        raise argparse.ArgumentTypeError('options must be a JSON object, e.g. \'{"target": 100}\'')
    return parsed


def build_parser(bot: Bot) -> argparse.ArgumentParser:
    """The bot's command line (tests/clients/test_sdk_parity.py compares it with the JavaScript SDK's)."""
    parser = argparse.ArgumentParser(description=f"Trick Arena bot {bot.name!r}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the bot protocol over HTTP")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=9001)
    practice = commands.add_parser("practice", help="play one game against house bots via the move API")
    practice.add_argument("--api", default="http://127.0.0.1:8000")
    practice.add_argument("--game", default=bot.games[0])
    practice.add_argument("--opponents", default="heuristic,heuristic,heuristic")
    practice.add_argument("--options", type=_json_object, default={},
                          help='game options as JSON, e.g. \'{"target": 100}\'')
    ladder = commands.add_parser("ladder", help="polling bot (registered without URL): play ladder seats")
    ladder.add_argument("--api", default="http://127.0.0.1:8000")
    ladder.add_argument("--bot-id", required=True)
    ladder.add_argument("--token", required=True, help="the owner token printed at registration")
    return parser


def run(bot: Bot, argv: list[str] | None = None) -> NoReturn:
    parser = build_parser(bot)
    args = parser.parse_args(values_joined(parser, sys.argv[1:] if argv is None else argv))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    _stop_on_sigterm()
    # A wrong bot id, token, game or port is the user's to fix: one line on stderr and exit 1, no traceback.
    try:
        if args.command == "serve":
            bot.serve(args.host, args.port)
        elif args.command == "ladder":
            bot.play_ladder(args.api, args.bot_id, args.token)
        else:
            bot.practice(args.api, args.game, args.opponents.split(","), args.options)
    except ApiError as error:
        _fail(f"API error {error.status} {error.problem.get('title', '')}: {error.detail}")
    except ApiUnavailable as error:
        _fail(f"cannot reach the API at {args.api}: {error}")
    except OSError as error:
        where = f"cannot listen on {args.host}:{args.port}" if args.command == "serve" else "error"
        _fail(f"{where}: {error.strerror or error}")
    sys.exit(0)


def values_joined(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``--token -x`` as ``--token=-x``: an owner token may start with "-" (one in 64 does), which argparse
    would otherwise take for an option and refuse as a missing value.

    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--token")
    >>> _ = parser.add_argument("--verbose", action="store_true")
    >>> values_joined(parser, ["--verbose", "--token", "-x1"])
    ['--verbose', '--token=-x1']
    """
    takes_value = {option for action in _every_action(parser) if action.nargs is None
                   for option in action.option_strings if option.startswith("--")}
    joined: list[str] = []
    rest = iter(argv)
    for word in rest:
        value = next(rest, None) if word in takes_value else None
        joined.append(word if value is None else f"{word}={value}")
    return joined


def _every_action(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's actions and those of its sub-commands."""
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions.extend(_every_action(sub))
    return actions


def _port(text: str) -> int:
    """A TCP port number, for argparse (which prints a one-line usage error for anything else)."""
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0-65535; 0: any free one)")
    return int(text)


def _fail(message: str) -> NoReturn:
    print(" ".join(message.split()), file=sys.stderr, flush=True)
    sys.exit(1)
