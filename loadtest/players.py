"""Practice clients of the fault drills (loadtest/faults.py, loadtest/storage.py): players that keep playing
practice tables through the SDK's polling client across a fault, and the audit of the tables they played.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from devstack.stack import Stack
from devstack.verify import all_table_ids, replay_cli_failures, table_problems

PRACTICE_SEATS = ["open", "heuristic", "eps-0.5", "random"]
# A table whose house-bot job the fault lost moves again once a long-poll on it waits in vain
# (docs/reliability.md): a poll shorter than the SDK's default revives it sooner.
POLL_WAIT_S = 8.0


def _same(move: Any) -> Any:
    # A move as the log and the client may spell it: cards upper case, a pass in any order.
    return sorted(c.upper() for c in move) if isinstance(move, list) else str(move).upper()


class SdkPlayer(threading.Thread):
    """Plays practice tables with the SDK's polling client until told to stop (after its current table)."""

    def __init__(self, api_url: str, stop: threading.Event, index: int) -> None:
        super().__init__(name=f"sdk-player-{index}", daemon=True)
        self.api_url = api_url
        self.stop_flag = stop
        self.tables: list[tuple[str, list[Any], bool]] = []  # (table id, accepted moves, finished)
        self.errors: list[str] = []

    def run(self) -> None:
        from trickarena import ArenaClient, Bot
        from trickarena.poll import play_seat

        class FirstLegal(Bot):
            def choose(self, view: dict) -> Any:
                decision = view["decision"]
                return (
                    decision["legal"][: decision["count"]]
                    if decision["kind"] == "pass"
                    else decision["legal"][0]
                )

        api = ArenaClient(self.api_url, retries=12)  # ~1 minute of backoff: rides out a restart
        while not self.stop_flag.is_set():
            accepted: list[Any] = []
            try:
                table = api.create_table("spot-hearts", PRACTICE_SEATS, {"target": 1})
                token = api.join(table.table_id, 0).token
                entry = (table.table_id, accepted, False)
                self.tables.append(entry)
                final = play_seat(
                    api,
                    table.table_id,
                    0,
                    token,
                    FirstLegal(),
                    wait_s=POLL_WAIT_S,
                    on_move=lambda state, move, acc=accepted: acc.append(move),
                )
                self.tables[-1] = (table.table_id, accepted, bool(final.over))
            except Exception as error:  # reported: the drill fails if any client gave up
                self.errors.append(f"{type(error).__name__}: {error}")
                time.sleep(1)


def audit_player_tables(stack: Stack, players: list[SdkPlayer]) -> dict[str, Any]:
    """Every table whole; each player's accepted moves in the log (at most one more: the answer a fault
    swallowed); every finished table replays with `python -m engine replay`."""
    conn = stack.redis()
    table_ids = all_table_ids(conn, stack.prefix)
    corrupt = [p for table_id in table_ids for p in table_problems(conn, stack.prefix, table_id)]
    lost_or_doubled = []
    finishes_lost: list[str] = []
    finished_records = []
    for player in players:
        for table_id, accepted, finished in player.tables:
            logged = [json.loads(m) for m in conn.lrange(f"{stack.prefix}table:{table_id}:moves", 0, -1)]
            mine = [_same(m["move"]) for m in logged if m["seat"] == 0]
            seen = [_same(m) for m in accepted]
            if seen != [m for m in mine if m in seen] or not 0 <= len(mine) - len(seen) <= 1:
                extra = len(mine) - len(seen)
                kind = "lost" if extra < 0 else "doubled" if extra > 1 else "differs"
                lost_or_doubled.append(f"{table_id}: {kind}: accepted {len(seen)}, logged {len(mine)}")
            if finished:
                status, version, record = conn.hmget(f"{stack.prefix}table:{table_id}",
                                                     ["status", "version", "record"])
                if record is None:  # the client saw the table end; the store does not have that end
                    finishes_lost.append(f"{table_id}: seen over, stored {status} at version {version}")
                else:
                    finished_records.append(json.loads(record))
    cli_failures = replay_cli_failures(finished_records)
    return {
        "tables_checked": len(table_ids),
        "corrupt_tables": corrupt[:20],
        "client_tables_finished": len(finished_records),
        "lost_or_doubled": lost_or_doubled[:20],
        "finishes_lost": finishes_lost[:20],
        "replays_verified_by_engine_cli": len(finished_records) - len(cli_failures),
        "replay_cli_failures": cli_failures[:10],
    }


def start_players(stack: Stack, count: int) -> tuple[threading.Event, list[SdkPlayer]]:
    """`count` players on the stack's API; setting the event returned stops them (see stop_players)."""
    stop = threading.Event()
    players = [SdkPlayer(stack.api_url, stop, i) for i in range(count)]
    for player in players:
        player.start()
    return stop, players


def stop_players(stop: threading.Event, players: list[SdkPlayer], timeout: float = 180) -> list[str]:
    """Stop the players after their current tables; the names of those still playing after `timeout`."""
    stop.set()
    deadline = time.monotonic() + timeout
    for player in players:
        player.join(timeout=max(0.1, deadline - time.monotonic()))
    return [p.name for p in players if p.is_alive()]


def finished_count(players: list[SdkPlayer]) -> int:
    """Tables the players have played to the end so far."""
    return sum(1 for p in players for _, _, finished in p.tables if finished)


def play_on_after_fault(players: list[SdkPlayer], finished_before: int, fault_at: float, seconds: float,
                        limit_s: float = 60.0) -> float:
    """Let the players play for `seconds` after the fault, and on until a table of theirs has finished since
    it (at most `limit_s` after the fault): a recovery slower than the drill's load time must still show a
    table played through, not stop the players the moment it is back. Returns the seconds since the fault."""
    while time.monotonic() - fault_at < limit_s and (
            time.monotonic() - fault_at < seconds or finished_count(players) <= finished_before):
        time.sleep(0.1)
    return time.monotonic() - fault_at


def players_came_through(result: dict[str, Any], losses_counted: bool = False) -> bool:
    """What every drill with client players asks of them after its fault: none still running, no table of
    theirs corrupt or failing its replay, at least one finished after the fault, and no accepted move lost
    or doubled (fields of `audit_player_tables` and the drill's result). With `losses_counted` (the service
    counted writes it answered without a replica's acknowledgement before the fault), a lost move is one of
    those and allowed; a doubled one never is. A table seen over whose end the store does not have
    (`finishes_lost`) was read, not acknowledged: reported, not a failure."""
    lost = result["lost_or_doubled"]
    return (not result["clients_still_running"]
            and not result["corrupt_tables"]
            and (not lost or (losses_counted and all(": lost: " in line for line in lost)))
            and not result["replay_cli_failures"]
            and result["client_tables_finished_after_fault"] > 0)

