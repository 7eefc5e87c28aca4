"""gunicorn says where the API listens: each worker binds its own socket, so its own line names none."""

from __future__ import annotations

import os
import subprocess

from devstack import devserve
from devstack.devredis import free_port
from tests.conftest import REPO_ROOT


def test_gunicorn_names_the_address_it_serves(redis_url: str, key_prefix: str, tmp_path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix,
           "TA_BIND": f"127.0.0.1:{port}", "TA_WORKERS": "1", "TA_LOG_LEVEL": "info"}
    log = tmp_path / "gunicorn.log"
    with log.open("w") as out:
        process = subprocess.Popen(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env, stdout=out,
                                   stderr=subprocess.STDOUT)
        try:
            devserve.wait_healthy(f"http://127.0.0.1:{port}", process)
        finally:
            devserve.stop(process)
    text = log.read_text()
    assert f"Listening at: http://127.0.0.1:{port} (" in text, text
    assert "MonkeyPatchWarning" not in text, text
