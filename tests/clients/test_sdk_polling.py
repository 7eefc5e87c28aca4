"""Polling clients against the real API over HTTP on 127.0.0.1: long-poll loop, moves, refusals, Ctrl-C."""

from __future__ import annotations

import logging
import re
import signal
import subprocess
import sys
import threading

import pytest
from trickarena import ApiError, ArenaClient, Bot, play_seat, practice

import engine
from tests.clients.starters import (
    EXAMPLES,
    QUICK_OPTIONS,
    STARTERS,
    interrupt_while_long_polling,
    starter_bot,
)


@pytest.mark.parametrize("game", list(STARTERS))
def test_four_starter_bots_play_a_full_game_through_the_move_api(game, live_server) -> None:
    """Four SDK polling clients in threads share one table: long-polls wake each other until the end."""
    api = ArenaClient(live_server)
    table = api.create_table(game, ["open"] * 4, QUICK_OPTIONS[game])
    tokens = [api.join(table.table_id, seat).token for seat in range(4)]
    finals: dict[int, object] = {}
    errors: list[BaseException] = []

    def play(seat: int) -> None:
        client = ArenaClient(live_server)
        try:
            finals[seat] = play_seat(client, table.table_id, seat, tokens[seat], starter_bot(game), wait_s=10)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=play, args=(seat,), daemon=True) for seat in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(finals) == [0, 1, 2, 3] and all(f.over for f in finals.values())
    public = api.table(table.table_id)
    record = api.replay(table.table_id)
    assert public.over and engine.load(record).totals == public.view["scores"]
    api.close()


def test_starter_practices_against_house_bots_driven_by_a_real_worker(live_server, app, rq_worker) -> None:
    rq_worker(app.config["RQ_QUEUE"])
    moves: list[object] = []
    with ArenaClient(live_server) as api:
        table_id, final = practice(api, starter_bot("spot-hearts"), "spot-hearts",
                                   ["heuristic", "random", "eps-0.5"], QUICK_OPTIONS["spot-hearts"],
                                   on_move=lambda state, move: moves.append(move))
        record = api.replay(table_id)
    assert final.over and final.view["winners"]
    ours = [m["move"] for m in record["moves"] if m["seat"] == 0]
    assert len(ours) == len(moves) > 13  # every one of our moves was accepted as sent (canonical codes)


class AlwaysIllegal(Bot):
    def choose(self, view):
        return ["XX", "YY", "ZZ"] if view["decision"]["kind"] == "pass" else "ZZ"


class PlaysAHeldCardOutOfTurnOrSuit(Bot):
    """Plays the first card of its hand, legal or not (often fails to follow suit)."""

    def choose(self, view):
        decision = view["decision"]
        if decision["kind"] == "pass":
            return decision["legal"][:3]
        illegal = [card for card in view["hand"] if card not in decision["legal"]]
        return illegal[0] if illegal else decision["legal"][0]


def test_a_refused_move_raises_api_error_with_status_and_problem(live_server) -> None:
    with ArenaClient(live_server) as api:
        table = api.create_table("spot-hearts", ["open"] * 4)
        token = api.join(table.table_id, 0).token
        with pytest.raises(ApiError) as caught:
            play_seat(api, table.table_id, 0, token, AlwaysIllegal(), wait_s=1)
        assert caught.value.status == 400 and caught.value.problem["status"] == 400
        assert caught.value.problem["type"].endswith("malformed-move")


def test_fallback_mode_keeps_a_buggy_bot_playing_to_the_end(live_server, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="trickarena.poll")
    with ArenaClient(live_server) as api:
        # Spot Hearts: following suit is compulsory, so a bot that plays its first card is refused often.
        table = api.create_table("spot-hearts", ["open"] * 4, {"target": 1})
        tokens = [api.join(table.table_id, seat).token for seat in range(4)]
        results: dict[int, object] = {}

        def play(seat: int, bot: Bot, mode: str) -> None:
            with ArenaClient(live_server) as client:
                results[seat] = play_seat(client, table.table_id, seat, tokens[seat], bot, on_refused=mode,
                                          wait_s=10)

        players = [(0, PlaysAHeldCardOutOfTurnOrSuit(), "fallback"),
                   *((seat, starter_bot("spot-hearts"), "raise") for seat in (1, 2, 3))]
        threads = [threading.Thread(target=play, args=player, daemon=True) for player in players]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(results) == [0, 1, 2, 3] and api.table(table.table_id).over
    # The buggy bot's moves really were refused, and each refusal was replaced by the first legal move.
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert refused
    assert all(m.startswith("seat 0: move") and "playing the first legal move" in m for m in refused)


def test_example_bot_stops_cleanly_on_ctrl_c_while_long_polling(live_server) -> None:
    """No worker drives the house bots, so the starter waits in a long-poll; SIGINT ends it at once."""
    command = [sys.executable, str(EXAMPLES / "spot_hearts_bot.py"), "practice", "--api", live_server]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = interrupt_while_long_polling(process, live_server)
    assert "Traceback" not in err


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # what a non-interactive shell does to `cmd &`


def test_example_bot_server_stops_cleanly_on_sigint_and_sigterm() -> None:
    for sig, before in ((signal.SIGINT, None), (signal.SIGTERM, None), (signal.SIGINT, _ignore_sigint)):
        command = [sys.executable, str(EXAMPLES / "card_commons_bot.py"), "serve", "--port", "0"]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=before)
        line = process.stdout.readline()
        assert "listening on http://127.0.0.1:" in line
        port = int(line.rsplit(":", 1)[1].split()[0])
        with ArenaClient(f"http://127.0.0.1:{port}") as bot:
            assert bot.get("/")["name"] == "card-commons-starter"
        process.send_signal(sig)
        out, err = process.communicate(timeout=10)
        assert process.returncode == 0 and "Traceback" not in err, err


def test_example_bot_practices_with_game_options_as_a_js_bot_does(live_server, app, rq_worker) -> None:
    """`python my_bot.py practice --options JSON`: the table is opened with those options (as
    `node my_bot.js practice --options JSON`); options that are not a JSON object are one usage line."""
    rq_worker(app.config["RQ_QUEUE"])
    command = [sys.executable, str(EXAMPLES / "sore_spot_bot.py"), "practice", "--api", live_server,
               "--opponents", "heuristic,random,random", "--options", '{"rounds": 1}']
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    table_id = re.search(r"table (\w+) over", done.stdout).group(1)  # type: ignore[union-attr]
    with ArenaClient(live_server) as api:
        table = api.table(table_id)
    assert table.over and table.options["rounds"] == 1
    wrong = subprocess.run([*command[:-1], "[1]"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert "options must be a JSON object" in wrong.stderr.splitlines()[-1]
