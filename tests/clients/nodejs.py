"""Node.js for the JavaScript SDK tests: where node is, a starter served by node, a node command run.

Node ≥ 18 is needed (Debian: `apt-get install nodejs`). Without it the tests that need it skip on a
workstation and fail under CI: CI must exercise them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.ci import under_ci

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "clients" / "js"
CLI = SDK / "bin" / "trickarena.js"
JS_STARTERS = {"spot-hearts": "spot_hearts_bot.js", "card-commons": "card_commons_bot.js",
               "sloppy-seconds": "sloppy_seconds_bot.js", "sore-spot": "sore_spot_bot.js"}
LISTENING = re.compile(r"listening on (http://\S+)")


def node_path() -> str:
    """The node binary (≥ 18); a skip without one, or a failure under CI."""
    path = shutil.which("node") or shutil.which("nodejs")
    if path is None:
        message = "Node.js >= 18 is needed for the JavaScript SDK tests (Debian: apt-get install nodejs)"
        if under_ci():
            pytest.fail(message)
        pytest.skip(message)
    version = subprocess.run([path, "--version"], capture_output=True, text=True, check=True).stdout
    assert int(version.strip().lstrip("v").split(".")[0]) >= 18, f"Node {version.strip()} is older than 18"
    return path


class NodeBot:
    """`node STARTER serve --port 0` as a child process; stopped with SIGTERM (it must exit 0)."""

    def __init__(self, node: str, folder: Path, filename: str) -> None:
        self.process = subprocess.Popen([node, filename, "serve", "--port", "0"], cwd=folder, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = LISTENING.search(line)
        assert found, (line, self.process.stderr.read() if self.process.poll() is not None else "")
        self.url = found.group(1)

    def stop(self) -> tuple[int, str]:
        self.process.terminate()
        _, err = self.process.communicate(timeout=10)
        return self.process.returncode, err


def run_node(node: str, args: list[str], cwd: Path, timeout: float = 120,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})
