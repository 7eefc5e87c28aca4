"""docs/admin.md names only what exists: its endpoints are the admin blueprint's (and all of them), its
commands and flags are `python -m arena admin`'s (and all of them), its paths and problem types exist."""

from __future__ import annotations

import re
from pathlib import Path

from api import create_app
from api.problems import PROBLEMS
from arena.admin import admin

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "docs" / "admin.md").read_text()


def test_every_endpoint_is_documented_and_every_documented_one_exists() -> None:
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "TESTING": True})
    served = {(method, re.sub(r"<(\w+)>", r"{\1}", rule.rule))
              for rule in app.url_map.iter_rules() if rule.rule.startswith("/api/admin")
              for method in rule.methods - {"HEAD", "OPTIONS"}}
    documented = set(re.findall(r"`(GET|POST) (/api/admin/[^`?\s]*)", TEXT))
    assert {(m, re.sub(r"\{\w+\}", "{}", p)) for m, p in documented} == \
        {(m, re.sub(r"\{\w+\}", "{}", p)) for m, p in served}


def test_every_command_and_flag_is_documented_and_exists() -> None:
    rows = re.findall(r"`python -m arena admin ([a-z-]+)([^`]*)`", TEXT)
    assert {name for name, _ in rows} == set(admin.commands)
    for name, rest in rows:
        options = {opt for param in admin.commands[name].params for opt in param.opts}
        flags = set(re.findall(r"--[a-z-]+", rest))
        assert flags <= options, (name, flags - options)


def test_named_paths_and_problem_types_exist() -> None:
    for path in re.findall(r"`((?:api|arena|core|tests|docs)/[\w./-]+)`", TEXT):
        assert (ROOT / path).exists(), path
    slugs = {slug for _, _, slug, _ in PROBLEMS} | {"validation-failed"}
    for slug in re.findall(r"/problems/([a-z-]+)", TEXT):
        assert slug in slugs, slug
