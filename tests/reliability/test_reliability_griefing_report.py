"""The griefing drill's arithmetic (loadtest.griefing.phase_report): what its JSON and the docs' table say."""

from __future__ import annotations

from loadtest.griefing import phase_report

HONEST = {"h1": "http", "p1": "polling"}
GRIEFERS = {"g1": "idle-poll", "g2": "sleep"}


def match(finished: float, entrants: list[str], strikes: list[str] = (), status: str = "rated") -> dict:
    return {"status": status, "finished": finished, "spec": {"entrants": [{"bot_id": b} for b in entrants]},
            "result": {"strikes": [{"bot_id": b, "reason": "timeout"} for b in strikes]}}


def test_a_phase_counts_only_rated_matches_finished_inside_it() -> None:
    docs = {
        "a": match(10, ["h1", "p1", "x", "y"], strikes=["p1", "x"]),
        "b": match(70, ["h1", "g1", "g2", "y"]),
        "c": match(119.9, ["h1", "x", "y", "z"]),
        "early": match(5, ["h1", "p1", "x", "y"]),  # before the phase
        "late": match(120, ["h1", "p1", "x", "y"]),  # at its end: the next phase's
        "aborted": match(50, ["h1", "p1", "x", "y"], status="aborted"),
    }
    report = phase_report(docs, 10.0, 120.0, HONEST, GRIEFERS)  # a 110 s phase
    assert report["rated_matches"] == 3
    assert report["honest_matches_per_minute"] == {"http h1": round(3 / (110 / 60), 2),
                                                   "polling p1": round(1 / (110 / 60), 2)}
    assert report["honest_matches_per_minute_total"] == round(4 / (110 / 60), 2)
    assert report["honest_strikes"] == {"h1": 0, "p1": 1}  # x's strike is not an honest bot's
    assert report["griefer_matches"] == 1 and report["griefer_seats_by_kind"] == {"idle-poll": 1, "sleep": 1}
