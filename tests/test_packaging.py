"""`pip install .` gives a working service: build the wheel, install it into a fresh venv, serve the page.

Offline: the wheel is built without build isolation and installed with --no-deps; the fresh venv borrows the
third-party packages of the running interpreter through a path file (not a site dir, so the editable install
of this checkout is not seen) and its metadata must name each of them. Everything of ours, templates and
static files included, must come from the wheel: the server runs outside the checkout, without PYTHONPATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from core.arena.model import LadderConfig
from core.arena.store import ArenaStore
from devstack.devredis import free_port
from tests.conftest import REPO_ROOT

SOURCES = ("pyproject.toml", "README.md", "engine", "core", "api", "arena", "clients", "training",
           "docs/rules")
OURS = ("engine", "core", "api", "arena", "clients")


def _build_wheel(workdir: Path) -> Path:
    source = workdir / "src"
    source.mkdir()
    for name in SOURCES:  # a clean copy: building writes build/ and *.egg-info next to the sources
        path = REPO_ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info",
                                                                                 "node_modules"))
        else:
            shutil.copy2(path, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "-q", "-w", str(workdir / "dist"), str(source)], check=True, timeout=120)
    (wheel,) = (workdir / "dist").glob("trick_arena-*.whl")
    return wheel


def _fresh_venv(workdir: Path, wheel: Path) -> Path:
    venv = workdir / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-index", "-q", str(wheel)], check=True, timeout=120)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    (Path(purelib) / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read()


@pytest.mark.drill
@pytest.mark.timeout(240)
def test_the_wheel_installs_into_a_fresh_venv_and_serves_the_ladder_page(tmp_path, redis_url, key_prefix):
    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert "api/web/templates/ladder.html" in names and "api/web/static/arena.css" in names
    assert "training/aec.py" in names  # the training ground, for the `training` extra
    assert not any(name.startswith(("tests/", "tools/", "loadtest/", "devstack/")) for name in names)

    python = _fresh_venv(tmp_path, wheel)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    # Our packages come from the wheel, and every declared dependency is there to import.
    check = ("import importlib.metadata as m, re, api, core\n"
             "print(api.__file__)\n"
             "for req in m.requires('trick-arena'):\n"
             "    if 'extra ==' not in req:\n"
             "        m.version(re.match(r'[A-Za-z0-9_.-]+', req).group(0))\n")
    where = subprocess.run([str(python), "-c", check], cwd=tmp_path, env=env, check=True, capture_output=True,
                           text=True, timeout=60).stdout
    assert where.startswith(str(tmp_path / "venv")), where

    ArenaStore.from_url(redis_url, key_prefix).save_ladder(
        LadderConfig("wheel-spot-hearts-4p", "spot-hearts", 4, {}, house_bots=("random",)))
    port = free_port()
    server = subprocess.Popen(
        [str(python), "-m", "gunicorn", "-c", "python:api.gunicorn_conf", "api:create_app()"], cwd=tmp_path,
        env={**env, "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix, "TA_BIND": f"127.0.0.1:{port}",
             "TA_WORKERS": "1", "TA_LOG_LEVEL": "warning"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                status, body = _get(f"{base}/")
                break
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "the installed service did not come up"
                time.sleep(0.3)
        page = body.decode()
        assert status == 200 and "wheel-spot-hearts-4p" in page and 'id="ladder-table"' in page
        assets = re.findall(r'(?:src|href)="(/assets/[^"]+)"', page)
        assert assets
        for asset in assets:
            status, content = _get(f"{base}{asset}")
            assert status == 200 and content
        status, rules = _get(f"{base}/rules/spot-hearts")  # the rule books ship as package data
        assert status == 200 and 'id="r-sh-break"' in rules.decode()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_ci_script_is_valid_bash_and_runs_the_readme_test_command_and_the_drills() -> None:
    """CI runs .ci/run on a clean checkout: a syntax error there fails every submission before a test runs."""
    script = REPO_ROOT / ".ci" / "run"
    checked = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    commands = re.findall(r'^(?:part "[^"]+" )?(make \w+)', script.read_text(), re.M)
    assert commands == ["make test", "make drills"], commands


def test_every_package_of_the_service_is_listed_for_the_wheel() -> None:
    """The wheel's packages are listed, not found (pyproject.toml): a new package must be listed to ship."""
    import tomllib

    listed = set(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(init.parent.relative_to(REPO_ROOT).parts)
               for top in ("engine", "core", "api", "arena", "clients", "training")
               for init in (REPO_ROOT / top).rglob("__init__.py")
               if "python" not in init.parts and "__pycache__" not in init.parts}
    missing = sorted(on_disk - listed)
    assert not missing, f"packages missing from [tool.setuptools] packages: {missing}"
