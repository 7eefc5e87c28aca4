"""`make run` as a user runs it: the whole Procfile under honcho, then Ctrl-C in the middle of a match.

Every process must honour TA_KEY_PREFIX (a practice table's house bots move), the terminal must stay quiet
(every process's lines in the run log) and end on the address the API really listens on, and Ctrl-C must
stop the scheduler and the workers first — the running match given back, queued for a fresh run, no
traceback, nothing SIGKILLed — and Redis last, with its append-only file flushed (the test reopens it and
finds the match queued again).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from core import keys
from devstack.devredis import free_port, server_args, wait_ready
from devstack.devserve import stop, wait_healthy
from tests.conftest import REPO_ROOT
from tests.test_first_scrape import expected as expected_families


class Output:
    """The lines a process prints, collected by a thread, with a wait for a line to appear."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._thread.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_for(self, text: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [line for line in self.lines if text in line]
                if found:
                    return found[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{text!r} never printed; output:\n" + "\n".join(self.lines[-60:]))
                self._changed.wait(left)

    def text(self) -> str:
        self._thread.join(timeout=5)
        return "\n".join(self.lines)


@pytest.mark.drill
def test_make_run_honours_the_prefix_and_ctrl_c_stops_redis_last(tmp_path: Path, bot_process) -> None:
    # A compliant HTTP bot that takes 0.25 s per move (well inside the 1 s deadline): its matches last.
    slow_bot = bot_process("sleep", delay_s=0.25)
    redis_port, api_port = free_port(), free_port()
    prefix = f"tamakerun{os.getpid()}:"
    data_dir = tmp_path / "redis"
    run_log = tmp_path / "run.log"
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "TA_RQ_QUEUE", "MAKEFLAGS")}
    env.update({"DEV_REDIS_PORT": str(redis_port), "DEV_REDIS_DIR": str(data_dir), "ARENA_WORKERS": "1",
                "TA_BIND": f"127.0.0.1:{api_port}", "TA_KEY_PREFIX": prefix, "PYTHONUNBUFFERED": "1",
                "RUN_LOG": str(run_log), "TA_ADMIN_TOKEN": "make-run-operator"})
    # A session of its own, like a terminal's foreground job: the Ctrl-C below goes to make and honcho.
    process = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=REPO_ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    output = Output(process)
    base = f"http://127.0.0.1:{api_port}"
    try:
        banner = output.wait_for("Trick Arena: ladder page", timeout=30)
        assert f"{base}/ " in banner and f"{base}/api/docs" in banner
        wait_healthy(base, timeout=60)
        # The first scrape, as the stack starts: every documented metric is there already.
        first = httpx.get(f"{base}/metrics", headers={"Authorization": "Bearer make-run-operator"}).text
        missing = expected_families() - {family.name for family in text_string_to_metric_families(first)}
        assert not missing, sorted(missing)
        with httpx.Client(base_url=base, timeout=30) as http:
            # Practice table: the house worker must listen on the queue the API (with this prefix) fills.
            seats = ["heuristic"] * 3 + ["open"]
            table = http.post("/api/tables", json={"game": "spot-hearts", "seats": seats,
                                                   "options": {"target": 1}}).json()
            token = http.post(f"/api/tables/{table['table_id']}/seats/3/join").json()["token"]
            state = http.get(f"/api/tables/{table['table_id']}/seats/3", params={"after": 2, "wait": 20},
                             headers={"Authorization": f"Bearer {token}"}).json()
            assert state["version"] >= 3, "the house bots never moved: the house worker serves another queue"
            bot = http.post("/api/bots", json={"name": f"slow-{os.getpid()}", "games": ["spot-hearts"],
                                               "url": slow_bot})
            assert bot.status_code == 201, bot.text
            bot_id = bot.json()["bot_id"]
        running = _wait_for_running_match(redis_port, prefix, bot_id, timeout=60)
        time.sleep(1.0)  # a few decisions into it
        # Quiet: matches have been played and logged, yet the terminal's last line is still the address.
        assert output.lines[-1] == banner, output.lines
        assert "rq.worker" in run_log.read_text()
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    terminal = output.text()
    assert terminal.splitlines()[-1].startswith("stopped; the log of every process"), terminal
    text = run_log.read_text()
    assert "Traceback" not in terminal + text, text
    assert "SIGKILL" not in text, text
    stopped = [line for line in text.splitlines() if " stopped (rc=" in line]
    assert len(stopped) == 8, text  # redis, web, worker, scheduler, arena, challenges, tournaments, analysis
    # Redis last for everything that talks to it: Redis is shut down only once the scheduler, the workers and
    # gunicorn's workers have closed their connections. (A process may still be exiting then — the threaded
    # arena worker joins its threads after its connections are gone — so honcho's "stopped" lines are no
    # measure of it.)
    lines = text.splitlines()
    redis_down = next(i for i, line in enumerate(lines) if "redis.1" in line and "shutdown" in line.lower())
    assert any("every client has left; stopping Redis" in line for line in lines[:redis_down]), text
    assert "clients still connected" not in text, text
    doc = _match_after_restart(data_dir, prefix, running)
    assert doc["status"] == "queued", doc
    assert doc["requeued_because"].startswith("worker stopped"), doc
    assert doc["stopped"] == 1 and doc["attempts"] == 1, doc


def _wait_for_running_match(port: int, prefix: str, bot_id: str, timeout: float) -> str:
    conn = redis.Redis(port=port, decode_responses=True)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for ladder_id in conn.smembers(keys.arena_ladders(prefix)):
                for match_id in conn.smembers(keys.arena_active(prefix, ladder_id)):
                    raw = conn.get(keys.arena_match(prefix, match_id))
                    doc = json.loads(raw) if raw else {}
                    entrants = [m["bot_id"] for m in doc.get("spec", {}).get("entrants", [])]
                    if doc.get("status") == "running" and bot_id in entrants:
                        return match_id
            time.sleep(0.2)
    finally:
        conn.close()
    raise AssertionError("no match with the slow bot started")


def _match_after_restart(data_dir: Path, prefix: str, match_id: str) -> dict:
    """Start Redis again on the same append-only file and read the match document."""
    port = free_port()
    process = subprocess.Popen(server_args(port, data_dir, persistent=True), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"redis://127.0.0.1:{port}/0", timeout=15)
        conn = redis.Redis(port=port, decode_responses=True)
        raw = conn.get(keys.arena_match(prefix, match_id))
        conn.close()
        assert raw is not None, "the match document did not survive the stop"
        return json.loads(raw)
    finally:
        stop(process, timeout=10)
