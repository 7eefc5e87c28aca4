"""The fault drills' verdict on their client players (`loadtest.players.players_came_through`): a lost move
passes only when the service counted writes it answered without a replica's acknowledgement; a doubled move,
a corrupt table or a player still running never does."""

from __future__ import annotations

from typing import Any

from loadtest.players import players_came_through


def drill_result(**fields: Any) -> dict[str, Any]:
    return {"clients_still_running": [], "corrupt_tables": [], "lost_or_doubled": [], "finishes_lost": [],
            "replay_cli_failures": [], "client_tables_finished_after_fault": 3, **fields}


def test_a_lost_move_passes_only_when_unreplicated_writes_were_counted() -> None:
    lost = drill_result(lost_or_doubled=["t1: lost: accepted 9, logged 8"])
    assert not players_came_through(lost)
    assert players_came_through(lost, losses_counted=True)


def test_a_doubled_or_differing_move_fails_even_with_counted_losses() -> None:
    for line in ("t1: doubled: accepted 8, logged 10", "t1: differs: accepted 8, logged 8"):
        both = drill_result(lost_or_doubled=["t2: lost: accepted 3, logged 2", line])
        assert not players_came_through(both, losses_counted=True), line


def test_a_table_seen_over_but_not_stored_over_is_reported_not_failed() -> None:
    assert players_came_through(drill_result(finishes_lost=["t3: seen over, stored playing at version 51"]))


def test_players_still_running_corrupt_tables_or_no_table_after_the_fault_fail() -> None:
    assert players_came_through(drill_result())
    for bad in ({"clients_still_running": ["sdk-player-0"]}, {"corrupt_tables": ["t1: version 3, 2 moves"]},
                {"replay_cli_failures": ["t1"]}, {"client_tables_finished_after_fault": 0}):
        assert not players_came_through(drill_result(**bad), losses_counted=True), bad
