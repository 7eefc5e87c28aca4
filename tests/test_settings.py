"""One environment, one Settings value: the API's Flask config and the arena's settings agree on every
name."""

from __future__ import annotations

import doctest
import re
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner

import core.settings
from api import create_app
from core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

# Every variable Settings reads, a value other than its default, and the field it lands in.
ENVIRONMENT = {
    "REDIS_URL": ("redis://10.0.0.9:6390/3", "redis_url", "redis://10.0.0.9:6390/3"),
    "TA_KEY_PREFIX": ("shared:", "prefix", "shared:"),
    "ALLOW_PRIVATE_BOT_URLS": ("yes", "allow_private_urls", True),
    "TA_RQ_QUEUE": ("practice-moves", "house_queue", "practice-moves"),
    "TA_ANALYSIS_QUEUE": ("analyses", "analysis_queue", "analyses"),
    "TA_LIMIT_REGISTRATION": ("5/minute", "limit_registration", "5/minute"),
    "TA_LIMIT_TABLE_CREATION": ("7/minute", "limit_table_creation", "7/minute"),
    "TA_LIMIT_BOT_TABLES": ("3/hour", "limit_bot_tables", "3/hour"),
    "TA_LIMIT_ANALYSIS": ("2/minute", "limit_analysis", "2/minute"),
    "TA_LIMIT_SEAT_POSTS": ("4", "limit_seat_posts", 4),
    "TA_MAX_LONG_POLLS_PER_ADDRESS": ("7", "max_long_polls_per_address", 7),
    "TA_RATELIMIT_ENABLED": ("off", "ratelimit_enabled", False),
    "TA_MAX_BOTS_PER_ADDRESS": ("6", "max_bots_per_address", 6),
    "TA_MAX_BOTS_PER_OWNER_PER_LADDER": ("2", "max_bots_per_owner_per_ladder", 2),
    "TA_MAX_BOTS_PER_ACCOUNT": ("4", "max_bots_per_account", 4),
    "TA_MAX_PENDING_ANALYSES": ("9", "max_pending_analyses", 9),
    "TA_MAX_PENDING_ANALYSES_PER_CLIENT": ("1", "max_pending_analyses_per_client", 1),
    "TA_ANALYSIS_BUDGET_MS": ("40", "analysis_budget_ms", 40),
    "TA_MAX_PENDING_CHALLENGES_PER_OWNER": ("1", "max_pending_challenges_per_owner", 1),
    "TA_MAX_CHALLENGES_PER_OWNER_PER_DAY": ("7", "max_challenges_per_owner_per_day", 7),
    "TA_MAX_PENDING_CHALLENGES": ("5", "max_pending_challenges", 5),
    "TA_REDIS_PIPELINING": ("0", "redis_pipelining", False),
    "TA_MAX_CONTENT_LENGTH": ("2048", "max_content_length", 2048),
    "TA_FINISHED_TABLE_TTL": ("120", "finished_table_ttl", 120),
    "TA_IDLE_TABLE_TTL": ("240", "idle_table_ttl", 240),
    "TA_SEAT_MOVE_TIMEOUT": ("30", "seat_move_timeout", 30.0),
    "TA_ARENA_TICK_S": ("0.5", "tick_s", 0.5),
    "TA_HOUSE_ONLY_GAP_S": ("90", "house_only_gap_s", 90.0),
    "TA_ARENA_HEALTH_EVERY_S": ("12", "health_every_s", 12.0),
    "TA_REGISTRATION_PROBE_S": ("1.5", "registration_probe_s", 1.5),
    "TA_LONG_POLL_MAX_S": ("7", "long_poll_max_s", 7.0),
    "TA_ARENA_KEEP_MATCHES": ("50", "keep_matches", 50),
    "TA_MATCH_TTL": ("3600", "match_ttl", 3600),
    "TA_REPLAY_TTL": ("600", "replay_ttl", 600),
    "TA_ARENA_MIN_LEASE_S": ("20", "min_lease_s", 20.0),
    "TA_ARENA_MAX_IN_FLIGHT": ("8", "max_in_flight", 8),
    "TA_ARENA_MEMORY_MB": ("256", "arena_memory_mb", 256),
    "TA_ARENA_MAX_LAG_MS": ("25", "arena_max_lag_ms", 25.0),
    "TA_TRUSTED_PROXIES": ("10.0.0.2, 10.1.0.0/16", "trusted_proxies", ("10.0.0.2", "10.1.0.0/16")),
    "TA_ADMIN_TOKEN": ("s3cret-operator-token", "admin_token", "s3cret-operator-token"),
    "TA_LIMIT_ACCOUNT_CREATION": ("2/hour", "limit_account_creation", "2/hour"),
    "REDIS_SENTINELS": ("10.0.0.5:26379,10.0.0.6:26379", "redis_sentinels",
                        ("10.0.0.5:26379", "10.0.0.6:26379")),
    "REDIS_SENTINEL_SERVICE": ("arena-main", "redis_sentinel_service", "arena-main"),
    "TA_REDIS_WAIT_MS": ("100", "redis_wait_ms", 100),
    "TA_METRICS_BIND": ("127.0.0.1:9108", "metrics_bind", "127.0.0.1:9108"),
    "TA_LIMIT_EXPORT": ("3/minute", "limit_export", "3/minute"),
}
# The Flask config key of each setting the API uses.
FLASK_KEYS = {
    "redis_url": "REDIS_URL", "prefix": "KEY_PREFIX", "allow_private_urls": "ALLOW_PRIVATE_BOT_URLS",
    "house_queue": "RQ_QUEUE", "analysis_queue": "ANALYSIS_QUEUE", "limit_registration": "LIMIT_REGISTRATION",
    "limit_table_creation": "LIMIT_TABLE_CREATION", "limit_analysis": "LIMIT_ANALYSIS",
    "limit_bot_tables": "LIMIT_BOT_TABLES",
    "limit_seat_posts": "LIMIT_SEAT_POSTS", "ratelimit_enabled": "RATELIMIT_ENABLED",
    "max_bots_per_address": "MAX_BOTS_PER_ADDRESS",
    "max_bots_per_owner_per_ladder": "MAX_BOTS_PER_OWNER_PER_LADDER",
    "max_bots_per_account": "MAX_BOTS_PER_ACCOUNT",
    "max_pending_analyses": "MAX_PENDING_ANALYSES",
    "max_pending_analyses_per_client": "MAX_PENDING_ANALYSES_PER_CLIENT",
    "analysis_budget_ms": "ANALYSIS_BUDGET_MS", "redis_pipelining": "REDIS_PIPELINING",
    "max_content_length": "MAX_CONTENT_LENGTH", "finished_table_ttl": "FINISHED_TABLE_TTL",
    "idle_table_ttl": "IDLE_TABLE_TTL", "seat_move_timeout": "SEAT_MOVE_TIMEOUT",
    "trusted_proxies": "TRUSTED_PROXIES", "admin_token": "ADMIN_TOKEN",
    "limit_account_creation": "LIMIT_ACCOUNT_CREATION", "redis_sentinels": "REDIS_SENTINELS",
    "redis_sentinel_service": "REDIS_SENTINEL_SERVICE", "metrics_bind": "METRICS_BIND",
    "redis_wait_ms": "REDIS_WAIT_MS",
    "max_pending_challenges_per_owner": "MAX_PENDING_CHALLENGES_PER_OWNER",
    "max_challenges_per_owner_per_day": "MAX_CHALLENGES_PER_OWNER_PER_DAY",
    "max_pending_challenges": "MAX_PENDING_CHALLENGES",
    "limit_export": "LIMIT_EXPORT",
}


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, (raw, _field, _value) in ENVIRONMENT.items():
        monkeypatch.setenv(name, raw)


def test_every_setting_is_read_from_its_variable():
    settings = Settings.from_env({name: raw for name, (raw, _field, _value) in ENVIRONMENT.items()})
    assert {field: getattr(settings, field) for _raw, field, _value in ENVIRONMENT.values()} == \
        {field: value for _raw, field, value in ENVIRONMENT.values()}
    assert {f.name for f in fields(Settings)} == {field for _raw, field, _value in ENVIRONMENT.values()}
    for _raw, field, value in ENVIRONMENT.values():
        assert getattr(Settings(), field) != value  # each value above differs from the default


def test_an_empty_environment_gives_the_defaults():
    assert Settings.from_env({}) == Settings()


def test_the_api_and_the_arena_read_the_same_values_from_one_environment(environment, monkeypatch):
    import arena.__main__

    app = create_app()
    arena_settings = Settings.from_env()
    for field, key in FLASK_KEYS.items():
        assert app.config[key] == getattr(arena_settings, field), key
    # The queues each side names: the API enqueues where `python -m arena worker --house/--analysis` listens.
    listened: list[list[str]] = []
    monkeypatch.setattr("arena.workers.WorkerPool.run", lambda pool: listened.append(list(pool.queues)))
    for flag in ("--house", "--analysis", "--challenges"):
        result = CliRunner().invoke(arena.__main__.main, ["worker", flag, "--threads", "2", "--nice", "0"])
        assert result.exit_code == 0, result.output
    assert listened == [[app.config["RQ_QUEUE"]], [app.config["ANALYSIS_QUEUE"]],
                        [app.config["CHALLENGE_QUEUE"]]]


def test_unnamed_queues_follow_the_key_prefix_of_the_app(monkeypatch):
    monkeypatch.delenv("TA_RQ_QUEUE", raising=False)
    monkeypatch.delenv("TA_ANALYSIS_QUEUE", raising=False)
    monkeypatch.setenv("TA_KEY_PREFIX", "env:")
    settings = Settings.from_env()
    app = create_app({"KEY_PREFIX": "given:"})
    assert app.config["KEY_PREFIX"] == "given:"
    assert app.config["RQ_QUEUE"] == Settings(prefix="given:").house_queue_name != settings.house_queue_name
    assert app.config["ANALYSIS_QUEUE"] == Settings(prefix="given:").analysis_queue_name
    monkeypatch.setenv("TA_RQ_QUEUE", "named")
    assert create_app({"KEY_PREFIX": "given:"}).config["RQ_QUEUE"] == "named"  # a named queue stays


def test_the_overrides_win_and_a_given_settings_value_replaces_the_environment(environment):
    app = create_app({"LIMIT_SEAT_POSTS": 99, "TESTING": True}, settings=Settings(prefix="mine:"))
    assert app.config["LIMIT_SEAT_POSTS"] == 99 and app.config["TESTING"] is True
    assert app.config["KEY_PREFIX"] == "mine:" and app.config["REDIS_URL"] == Settings().redis_url


def test_the_documented_variables_are_the_ones_read():
    names = r"TA_[A-Z_]+[A-Z]|REDIS_URL|REDIS_SENTINEL[A-Z_]*[A-Z]|ALLOW_PRIVATE_BOT_URLS"
    variable = rf"\b({names})\b"
    documented = set()
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        documented |= set(re.findall(variable, doc.read_text()))
    source = Path(core.settings.__file__).read_text()
    read = set(re.findall(rf'"((?:{names}))"', source))
    assert read == set(ENVIRONMENT)
    assert read <= documented, sorted(read - documented)  # README.md or docs/ name each


def test_the_module_examples_hold():
    result = doctest.testmod(core.settings)
    assert result.attempted and not result.failed
