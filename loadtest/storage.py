"""`python -m loadtest faults redis-full|redis-disk-full`: Redis out of room under load, then given it back.
Every write refused with 507 store-full, every read answered, writes accepted again within seconds.

Design: docs/reliability.md#redis-out-of-memory-or-disk
"""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import time
from collections import Counter
from typing import Any

import httpx

import engine
from devstack.stack import Stack
from devstack.verify import rating_audit, table_problems
from loadtest.ladder import drain_and_stop, register_bots
from loadtest.players import audit_player_tables, finished_count, start_players, stop_players

PROBLEM = "application/problem+json"
STORE_FULL = "/problems/store-full"
RECOVERY_LIMIT_S = 60.0
# The filler takes whatever room is left, so the size only has to hold what the load writes after the room
# comes back: on a quiet 2-core machine, with 64 MiB, Redis's own files filled the tmpfs again, and the
# restart that audits what reached the disk was refused with MISCONF (no space left).
TMPFS_MB = 512


class Probe:
    """Its own table of 4 open seats: posts moves (and new tables) and reads, counting the API's answers."""

    def __init__(self, api_url: str) -> None:
        self.http = httpx.Client(base_url=api_url, timeout=30)
        table = self.http.post("/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4,
                                                     "options": {"target": 100}})
        table.raise_for_status()
        self.table_id = table.json()["table_id"]
        self.tokens = [self.http.post(f"/api/tables/{self.table_id}/seats/{s}/join").json()["token"]
                       for s in range(4)]
        self.accepted = 0
        self.writes: Counter[str] = Counter()
        self.reads: Counter[str] = Counter()
        self.bad_refusals: list[str] = []
        self.finished_table: str | None = None

    def _auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def move(self) -> httpx.Response:
        table = self.http.get(f"/api/tables/{self.table_id}").json()
        seat = table["to_act"][0]
        state = self.http.get(f"/api/tables/{self.table_id}/seats/{seat}", headers=self._auth(seat)).json()
        decision = state["view"]["decision"]
        move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
        answer = self.http.post(f"/api/tables/{self.table_id}/seats/{seat}/moves", headers=self._auth(seat),
                                json={"move": move, "expected_version": state["version"]})
        if answer.status_code == 200:
            self.accepted += 1
        return answer

    def _count_write(self, name: str, answer: httpx.Response) -> None:
        self.writes[f"{name} {answer.status_code}"] += 1
        if answer.status_code == 200 or answer.status_code == 201:
            return
        body = answer.json() if answer.headers.get("content-type", "").startswith(PROBLEM) else {}
        if body.get("type") != STORE_FULL or not answer.headers.get("retry-after"):
            self.bad_refusals.append(f"{name}: {answer.status_code} {answer.text[:200]}")

    def round_while_full(self) -> None:
        """One write of each kind and one read of each kind."""
        self._count_write("POST move", self.move())
        self._count_write("POST table", self.http.post("/api/tables", json={
            "game": "spot-hearts", "seats": ["open", "random", "random", "random"]}))
        reads = {
            "GET table": f"/api/tables/{self.table_id}",
            "GET seat": f"/api/tables/{self.table_id}/seats/0",
            "GET ladders": "/api/ladders",
        }
        if self.finished_table:
            reads["GET replay"] = f"/api/tables/{self.finished_table}/replay"
        for name, path in reads.items():
            answer = self.http.get(path, headers=self._auth(0) if "seats" in path else None)
            self.reads[f"{name} {answer.status_code}"] += 1

    def logged(self, conn: Any, prefix: str) -> int:
        return int(conn.llen(f"{prefix}table:{self.table_id}:moves"))


class DiskFull:
    """Redis's data directory on a small tmpfs that a filler file fills; or, not root, RLIMIT_FSIZE."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.mounted = False
        self.filler = stack.data_dir / "filler"

    def prepare(self) -> None:
        if os.geteuid() == 0:
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_MB}m", "tmpfs",
                            str(self.stack.data_dir)], check=True)
            self.mounted = True

    @property
    def method(self) -> str:
        return f"tmpfs of {TMPFS_MB} MiB filled by a file" if self.mounted else "RLIMIT_FSIZE on redis-server"

    def fill(self) -> None:
        if self.mounted:
            with open(self.filler, "wb", buffering=0) as handle:  # every free block: the next AOF write fails
                for chunk in (1 << 20, 4096, 512):
                    with contextlib.suppress(OSError):
                        while True:
                            handle.write(b"\0" * chunk)
        else:
            size = sum(p.stat().st_size for p in self.stack.data_dir.rglob("*") if p.is_file())
            resource.prlimit(self.stack.children["redis"].pid, resource.RLIMIT_FSIZE,
                             (size, resource.RLIM_INFINITY))

    def free(self) -> None:
        if self.mounted:
            self.filler.unlink(missing_ok=True)
        elif self.stack.children["redis"].alive():
            resource.prlimit(self.stack.children["redis"].pid, resource.RLIMIT_FSIZE,
                             (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    def release(self) -> None:
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.stack.data_dir)], check=False)
            self.mounted = False


def _refusals(conn: Any) -> int:
    """Writes Redis refused so far for lack of room (INFO errorstats: OOM, MISCONF)."""
    stats = conn.info("errorstats")
    return sum(int(stats.get(f"errorstat_{code}", {}).get("count", 0)) for code in ("OOM", "MISCONF"))


def storage_full(kind: str, seconds: float, full_s: float, clients: int, bots: int) -> dict[str, Any]:
    """The drill; `kind` is "memory" (redis-full) or "disk" (redis-disk-full)."""
    stack = Stack()
    disk = DiskFull(stack) if kind == "disk" else None
    try:
        if disk is not None:
            disk.prepare()
        stack.start_redis(ignore_sigxfsz=True)
        stack.start_api()
        stack.start_house_workers(1)
        bot_ids = register_bots(stack.api_url, stack.start_fast_bots(bots), list(engine.GAMES))
        stack.start_arena(2)
        stop, players = start_players(stack, clients)
        probe = Probe(stack.api_url)
        time.sleep(seconds)
        conn = stack.redis()
        finished = [t for p in players for t, _, done in p.tables if done]
        probe.finished_table = finished[0] if finished else None
        rated_before = rating_audit(conn, stack.prefix)["matches"].get("rated", 0)
        finished_before = finished_count(players)
        refused_before = _refusals(conn)

        # The fault: the load itself runs Redis into the wall.
        fault_at = time.monotonic()
        if disk is not None:
            disk.fill()
        else:
            conn.config_set("maxmemory-policy", "noeviction")
            conn.config_set("maxmemory", int(conn.info("memory")["used_memory"]) + 256 * 1024)
        full_at = None
        while full_at is None and time.monotonic() - fault_at < 60:
            if _refusals(conn) > refused_before:
                full_at = time.monotonic()
            else:
                time.sleep(0.1)
        if disk is None and full_at is not None:
            # Hold it full: workers deleting finished jobs would otherwise free room for a write now and then.
            conn.config_set("maxmemory", int(conn.info("memory")["used_memory"]) * 3 // 4)
        while full_at is not None and time.monotonic() - full_at < full_s:
            probe.round_while_full()
            time.sleep(0.2)
        full_info = {"redis_refused_writes": _refusals(conn) - refused_before,
                     "used_memory": conn.info("memory")["used_memory"],
                     "aof_last_write_status": conn.info("persistence").get("aof_last_write_status")}

        # Room comes back; nothing is restarted.
        room_at = time.monotonic()
        if disk is not None:
            disk.free()
        else:
            conn.config_set("maxmemory", 0)
        recovered_s = None
        while recovered_s is None and time.monotonic() - room_at < RECOVERY_LIMIT_S:
            if probe.move().status_code == 200:
                recovered_s = time.monotonic() - room_at
            else:
                time.sleep(0.1)
        rated_at_recovery = rating_audit(conn, stack.prefix)["matches"].get("rated", 0)
        time.sleep(seconds)
        stragglers = stop_players(stop, players)
        crashed = stack.crashed()
        drain_and_stop(stack, 180)
        # What was accepted must be on disk: restart Redis on its AOF and audit what it loaded.
        stack.stop_redis(hard=False)
        stack.start_redis()
        conn = stack.redis()
        audit = rating_audit(conn, stack.prefix)
        docs = audit.pop("docs")
        stuck = {m: d["status"] for m, d in docs.items() if d["status"] not in ("rated", "void", "aborted")}
        tables = audit_player_tables(stack, players)
        probe_problems = table_problems(conn, stack.prefix, probe.table_id)
        probe_logged = probe.logged(conn, stack.prefix)
        client_errors = [e for p in players for e in p.errors]
        reads_failed = {k: n for k, n in probe.reads.items() if not k.endswith(" 200")}
        writes_refused = sum(n for k, n in probe.writes.items() if not k.endswith((" 200", " 201")))
        name = "redis-full" if kind == "memory" else "redis-disk-full"
        result = {
            "command": f"python -m loadtest faults {name} --seconds {seconds:g} --full-seconds {full_s:g} "
            f"--clients {clients} --bots {bots}",
            "fault": (f"maxmemory = used_memory + 256 KiB, noeviction; once reached, held at 3/4 of "
                      f"used_memory for {full_s:g} s; then maxmemory 0"
                      if disk is None else f"AOF on a full disk ({disk.method}); {full_s:g} s, then freed"),
            "redis_full_after_s": round(full_at - fault_at, 1) if full_at is not None else None,
            "while_full": full_info,
            "probe_writes": dict(probe.writes),
            "probe_writes_refused": writes_refused,
            "probe_bad_refusals": probe.bad_refusals[:5],
            "probe_reads": dict(probe.reads),
            "probe_reads_failed": reads_failed,
            "writes_accepted_again_after_s": round(recovered_s, 2) if recovered_s is not None else None,
            "rated_before_fault": rated_before,
            "rated_at_recovery": rated_at_recovery,
            "probe_moves_accepted": probe.accepted,
            "probe_moves_logged_after_restart": probe_logged,
            "probe_table_problems": probe_problems,
            "client_moves_accepted": sum(len(moves) for p in players for _, moves, _ in p.tables),
            "client_tables_finished_before_fault": finished_before,
            "client_tables_finished_after_fault": finished_count(players) - finished_before,
            "client_errors": client_errors[:5],
            "clients_still_running": stragglers,
            "processes_died": crashed,
            "matches": audit["matches"],
            "rated_after_recovery": audit["matches"].get("rated", 0) - rated_at_recovery,
            "rating_problems": audit["problems"][:20],
            "stuck": stuck,
            "registered_bots": len(bot_ids),
            "log_tracebacks": stack.log_errors(),
            **tables,
            "workdir": str(stack.workdir),
        }
        result["passed"] = (
            full_at is not None
            and writes_refused > 0
            and not probe.bad_refusals
            and not reads_failed
            and recovered_s is not None
            and probe_logged == probe.accepted
            and not probe_problems
            and not client_errors
            and not stragglers
            and not crashed
            and not audit["problems"]
            and not stuck
            and result["rated_after_recovery"] > 0
            and result["client_tables_finished_after_fault"] > 0
            and not tables["corrupt_tables"]
            and not tables["lost_or_doubled"]
            and not tables["replay_cli_failures"]
        )
        return result
    finally:
        stack.stop()
        if disk is not None:
            disk.release()

