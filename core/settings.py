"""Settings: one frozen value, read from the environment when an app or a worker starts (never at import).

``Settings.from_env`` is the one reader of the variables: the API (``create_app``, through its Flask
config) and the arena (``python -m arena``) read the same names, so one .env configures both.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from core import keys
from core.arena.store.matches import RECENT_KEEP, RECENT_LIMIT
from core.arena.store.results import FINISHED_MATCH_TTL_S, REPLAY_TTL_S
from core.tables.store import FINISHED_TABLE_TTL, IDLE_TABLE_TTL

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
HOUSE_ONLY_GAP_S = 45.0  # about 0.1 core for four ladders of house bots: python -m tools.idle_cost
MIN_LEASE_S = 10.0  # a match's shortest lease (the scheduler re-runs a match whose lease lapsed)
# Matches in flight per arena worker process: at most MAX_IN_FLIGHT, and new ones only while the process's RSS
# stays within ARENA_MEMORY_MB (docs/arena.md#processes; python -m tools.arena_bench measures both).
MAX_IN_FLIGHT = 2500
ARENA_MEMORY_MB = 512
# ... and only while its event loop wakes up at most this late: past that, more matches add latency, not pace.
ARENA_MAX_LAG_MS = 10.0
# Search time per decision of a game analysis: the default keeps one seat of a complete Spot Hearts game
# (about 140 decisions, a quarter of them forced) well under a minute on 2 cores (docs/api.md has figures).
ANALYSIS_BUDGET_MS = 250
ANALYSIS_BUDGET_RANGE_MS = (10, 1000)
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})

# The Flask config key of each setting (the API reads its settings from app.config).
FLASK_KEYS: dict[str, str] = {
    "REDIS_URL": "redis_url", "KEY_PREFIX": "prefix", "RQ_QUEUE": "house_queue",
    "ANALYSIS_QUEUE": "analysis_queue", "ALLOW_PRIVATE_BOT_URLS": "allow_private_urls",
    "LIMIT_REGISTRATION": "limit_registration", "LIMIT_TABLE_CREATION": "limit_table_creation",
    "LIMIT_BOT_TABLES": "limit_bot_tables",
    "LIMIT_SEAT_POSTS": "limit_seat_posts", "MAX_LONG_POLLS_PER_ADDRESS": "max_long_polls_per_address",
    "MAX_BOTS_PER_ADDRESS": "max_bots_per_address",
    "MAX_BOTS_PER_OWNER_PER_LADDER": "max_bots_per_owner_per_ladder",
    "MAX_BOTS_PER_ACCOUNT": "max_bots_per_account", "LIMIT_ANALYSIS": "limit_analysis",
    "MAX_PENDING_ANALYSES": "max_pending_analyses",
    "MAX_PENDING_ANALYSES_PER_CLIENT": "max_pending_analyses_per_client",
    "ANALYSIS_BUDGET_MS": "analysis_budget_ms",
    "MAX_PENDING_CHALLENGES_PER_OWNER": "max_pending_challenges_per_owner",
    "MAX_CHALLENGES_PER_OWNER_PER_DAY": "max_challenges_per_owner_per_day",
    "MAX_PENDING_CHALLENGES": "max_pending_challenges", "RATELIMIT_ENABLED": "ratelimit_enabled",
    "REDIS_PIPELINING": "redis_pipelining", "MAX_CONTENT_LENGTH": "max_content_length",
    "FINISHED_TABLE_TTL": "finished_table_ttl", "IDLE_TABLE_TTL": "idle_table_ttl",
    "SEAT_MOVE_TIMEOUT": "seat_move_timeout", "TRUSTED_PROXIES": "trusted_proxies",
    "ADMIN_TOKEN": "admin_token", "LIMIT_ACCOUNT_CREATION": "limit_account_creation",
    "REDIS_SENTINELS": "redis_sentinels", "REDIS_SENTINEL_SERVICE": "redis_sentinel_service",
    "METRICS_BIND": "metrics_bind", "REDIS_WAIT_MS": "redis_wait_ms",
    "LIMIT_EXPORT": "limit_export", "REGISTRATION_PROBE_S": "registration_probe_s",
    "LONG_POLL_MAX_SECONDS": "long_poll_max_s",
}

# The API's fixed config: not settings an operator changes.
FLASK_CONSTANTS: dict[str, Any] = {
    "API_TITLE": "Trick Arena",
    "API_VERSION": "1",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/api",
    "OPENAPI_JSON_PATH": "openapi.json",
    "OPENAPI_SWAGGER_UI_PATH": "docs",
    # Served by the app from the swagger-ui-bundle wheel: no CDN at run time.
    "OPENAPI_SWAGGER_UI_URL": "/api/docs/static/",
}


def words(value: str | Iterable[str]) -> tuple[str, ...]:
    """A comma-separated list, blanks dropped; a list given as one already (a Settings field, a config
    override) is taken as it is.

    >>> words(" 10.0.0.1, fd00::/64,,"), words(["s1:26379"])
    (('10.0.0.1', 'fd00::/64'), ('s1:26379',))
    """
    if not isinstance(value, str):
        return tuple(value)
    return tuple(word.strip() for word in value.split(",") if word.strip())


@dataclass(frozen=True)
class Settings:
    """Everything the API and the arena take from the environment; the defaults are a fresh checkout's."""

    redis_url: str = DEFAULT_REDIS_URL  # $REDIS_URL
    prefix: str = keys.DEFAULT_PREFIX  # $TA_KEY_PREFIX: every Redis key, and the queues unless named
    allow_private_urls: bool = False  # $ALLOW_PRIVATE_BOT_URLS: bots on loopback and private networks
    _: KW_ONLY
    house_queue: str | None = None  # $TA_RQ_QUEUE; None: derived from the prefix
    analysis_queue: str | None = None  # $TA_ANALYSIS_QUEUE; None: derived from the prefix
    # Rate limits on registration, table creation and analyses per client address, in the limits library's
    # notation ("20/minute"; ";" separates several, all of which apply).
    limit_registration: str = "20/minute"
    limit_table_creation: str = "60/minute"
    # Tables a person opens with a registered bot seated (its server answers every decision), per client
    # address and per account.
    limit_bot_tables: str = "20/hour;100/day"
    limit_analysis: str = "10/minute"
    # Moves are limited per seat, not per address (api/ratelimit.py): posts on one seat at one table version.
    # A client that posts once per decision makes 1-3 (a 409 or 422 retry), never more.
    limit_seat_posts: int = 10
    # Long-polls one client address may hold at once in each API worker process (api/ratelimit.py): a client
    # that opens more is answered 429 at once instead of being parked.
    max_long_polls_per_address: int = 500
    ratelimit_enabled: bool = True
    # Quotas on registered bots (core/arena/registry.py): per client address, and per owner (the registering
    # address) on each ladder, i.e. bots of one owner listing one game.
    max_bots_per_address: int = 10
    max_bots_per_owner_per_ladder: int = 3
    # Bots one account may hold in all (core/accounts.py); its bots per ladder are capped by the line above.
    max_bots_per_account: int = 10
    # Game analyses (api/blueprints/analysis.py): analyses queued or running at once (beyond it: 503 with
    # Retry-After) and of one client address (its share: beyond it 429), and the search budget per decision
    # when the request names none.
    max_pending_analyses: int = 20
    max_pending_analyses_per_client: int = 3
    analysis_budget_ms: int = ANALYSIS_BUDGET_MS
    # Challenges (core/arena/challenges.py): queued or running at once per owner (an account, or the address
    # that registered its bots), created per owner per UTC day (beyond either: 429), and of all owners at
    # once (beyond it: 503).
    max_pending_challenges_per_owner: int = 2
    max_challenges_per_owner_per_day: int = 50
    max_pending_challenges: int = 20
    # A gevent worker's seat reads and moves share one pipelined Redis connection (docs/api.md); off: a
    # connection per call in flight, for a Redis proxy that does not take pipelined commands.
    redis_pipelining: bool = True
    max_content_length: int = 16 * 1024
    # A finished table (views, move log, replay record) expires this many seconds after its last move; an
    # unfinished one (an abandoned practice table) too. The API's tables and the arena's alike.
    finished_table_ttl: int = FINISHED_TABLE_TTL
    idle_table_ttl: int = IDLE_TABLE_TTL
    seat_move_timeout: float = 600.0  # advisory deadline shown to polling seats (practice tables)
    tick_s: float = 1.0  # the arena scheduler's period
    # The default ladders' gap between two house-only tables (one with a registered bot is never held back):
    # with no outside bot, the house's own matches keep `make run` near idle.
    house_only_gap_s: float = HOUSE_ONLY_GAP_S
    health_every_s: float = 30.0  # per HTTP bot
    # POST /api/bots (and a new URL) waits this long for the URL's first health check, to answer what came
    # back (core/arena/probe.py); 0: queue the check and answer at once.
    registration_probe_s: float = 5.0
    # The longest a long-poll (`wait=`) is held before it answers unchanged; below the proxy's read timeout.
    long_poll_max_s: float = 30.0
    keep_matches: int = RECENT_KEEP  # per ladder: documents and replays of older matches are deleted
    # Retention (docs/arena.md, "Retention"): a finished match's document expires this many seconds after it
    # finished, its replays (nine tenths of its bytes) after `replay_ttl` (never later than the document).
    match_ttl: int = FINISHED_MATCH_TTL_S
    replay_ttl: int = REPLAY_TTL_S
    min_lease_s: float = MIN_LEASE_S
    max_in_flight: int = MAX_IN_FLIGHT  # the most matches one arena worker process plays at once
    arena_memory_mb: int = ARENA_MEMORY_MB  # an arena worker process takes no new match past this RSS
    arena_max_lag_ms: float = ARENA_MAX_LAG_MS  # ... nor while its loop runs this late
    # The reverse proxies whose X-Forwarded-For / Forwarded headers name the client: addresses or CIDR blocks.
    # Empty: the connection's peer is the client, and those headers are ignored.
    trusted_proxies: tuple[str, ...] = ()
    # The operator's bearer token for the admin API and /metrics; None: both are closed.
    admin_token: str | None = None
    # Accounts opened per client address (per /64 over IPv6), in the limits library's notation.
    limit_account_creation: str = "5/day"
    # Redis Sentinel: when named, every process asks these sentinels for the current primary of the service.
    redis_sentinels: tuple[str, ...] = ()
    redis_sentinel_service: str = "trick-arena"
    # A move or a match result is acknowledged only once a replica has it (Redis WAIT 1 <ms> on the commit's
    # connection), or after this many milliseconds without one; 0: acknowledged at once (asynchronous
    # replication: a failover may lose the last writes). docs/reliability.md has the cost.
    redis_wait_ms: int = 0
    # Where `python -m arena metrics` serves this machine's Prometheus metrics ("host:port"); when set, the
    # API's own /metrics is closed (docs/metrics.md). None: the API serves them.
    metrics_bind: str | None = None
    # Pages of a bot's export (GET /api/bots/{id}/export: up to 100 matches with their replays each) per
    # client address, in the limits library's notation: the whole export of a busy bot is a few dozen.
    limit_export: str = "30/minute"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings in ``environ`` (default: the process environment, as it is now).

        >>> settings = Settings.from_env({"TA_KEY_PREFIX": "demo:", "TA_ARENA_MAX_IN_FLIGHT": "8"})
        >>> settings.prefix, settings.max_in_flight, settings.house_queue_name
        ('demo:', 8, 'demo-house')
        """
        env = os.environ if environ is None else environ

        def flag(name: str, default: bool) -> bool:
            value = env.get(name)
            return default if value is None else value.strip().lower() in TRUE_WORDS

        default = cls()
        return cls(
            redis_url=env.get("REDIS_URL", default.redis_url),
            prefix=env.get("TA_KEY_PREFIX", default.prefix),
            allow_private_urls=flag("ALLOW_PRIVATE_BOT_URLS", default.allow_private_urls),
            house_queue=env.get("TA_RQ_QUEUE") or None,
            analysis_queue=env.get("TA_ANALYSIS_QUEUE") or None,
            limit_registration=env.get("TA_LIMIT_REGISTRATION", default.limit_registration),
            limit_table_creation=env.get("TA_LIMIT_TABLE_CREATION", default.limit_table_creation),
            limit_bot_tables=env.get("TA_LIMIT_BOT_TABLES", default.limit_bot_tables),
            limit_analysis=env.get("TA_LIMIT_ANALYSIS", default.limit_analysis),
            limit_seat_posts=int(env.get("TA_LIMIT_SEAT_POSTS", default.limit_seat_posts)),
            max_long_polls_per_address=int(env.get("TA_MAX_LONG_POLLS_PER_ADDRESS",
                                                   default.max_long_polls_per_address)),
            ratelimit_enabled=flag("TA_RATELIMIT_ENABLED", default.ratelimit_enabled),
            max_bots_per_address=int(env.get("TA_MAX_BOTS_PER_ADDRESS", default.max_bots_per_address)),
            max_bots_per_owner_per_ladder=int(env.get("TA_MAX_BOTS_PER_OWNER_PER_LADDER",
                                                      default.max_bots_per_owner_per_ladder)),
            max_bots_per_account=int(env.get("TA_MAX_BOTS_PER_ACCOUNT", default.max_bots_per_account)),
            max_pending_analyses=int(env.get("TA_MAX_PENDING_ANALYSES", default.max_pending_analyses)),
            max_pending_analyses_per_client=int(env.get("TA_MAX_PENDING_ANALYSES_PER_CLIENT",
                                                        default.max_pending_analyses_per_client)),
            analysis_budget_ms=int(env.get("TA_ANALYSIS_BUDGET_MS", default.analysis_budget_ms)),
            max_pending_challenges_per_owner=int(env.get("TA_MAX_PENDING_CHALLENGES_PER_OWNER",
                                                         default.max_pending_challenges_per_owner)),
            max_challenges_per_owner_per_day=int(env.get("TA_MAX_CHALLENGES_PER_OWNER_PER_DAY",
                                                         default.max_challenges_per_owner_per_day)),
            max_pending_challenges=int(env.get("TA_MAX_PENDING_CHALLENGES", default.max_pending_challenges)),
            redis_pipelining=flag("TA_REDIS_PIPELINING", default.redis_pipelining),
            max_content_length=int(env.get("TA_MAX_CONTENT_LENGTH", default.max_content_length)),
            finished_table_ttl=int(env.get("TA_FINISHED_TABLE_TTL", default.finished_table_ttl)),
            idle_table_ttl=int(env.get("TA_IDLE_TABLE_TTL", default.idle_table_ttl)),
            seat_move_timeout=float(env.get("TA_SEAT_MOVE_TIMEOUT", default.seat_move_timeout)),
            tick_s=float(env.get("TA_ARENA_TICK_S", default.tick_s)),
            house_only_gap_s=max(0.0, float(env.get("TA_HOUSE_ONLY_GAP_S", default.house_only_gap_s))),
            health_every_s=float(env.get("TA_ARENA_HEALTH_EVERY_S", default.health_every_s)),
            registration_probe_s=max(0.0, float(env.get("TA_REGISTRATION_PROBE_S",
                                                        default.registration_probe_s))),
            long_poll_max_s=max(0.0, float(env.get("TA_LONG_POLL_MAX_S", default.long_poll_max_s))),
            # Capped: the rating script bounds a ladder's recent list there.
            keep_matches=min(int(env.get("TA_ARENA_KEEP_MATCHES", default.keep_matches)), RECENT_LIMIT),
            match_ttl=max(1, int(env.get("TA_MATCH_TTL", default.match_ttl))),
            replay_ttl=max(1, int(env.get("TA_REPLAY_TTL", default.replay_ttl))),
            min_lease_s=float(env.get("TA_ARENA_MIN_LEASE_S", default.min_lease_s)),
            max_in_flight=max(1, int(env.get("TA_ARENA_MAX_IN_FLIGHT", default.max_in_flight))),
            arena_memory_mb=max(16, int(env.get("TA_ARENA_MEMORY_MB", default.arena_memory_mb))),
            arena_max_lag_ms=max(0.1, float(env.get("TA_ARENA_MAX_LAG_MS", default.arena_max_lag_ms))),
            trusted_proxies=words(env.get("TA_TRUSTED_PROXIES", "")),
            admin_token=env.get("TA_ADMIN_TOKEN") or None,
            limit_account_creation=env.get("TA_LIMIT_ACCOUNT_CREATION", default.limit_account_creation),
            redis_sentinels=words(env.get("REDIS_SENTINELS", "")),
            redis_sentinel_service=env.get("REDIS_SENTINEL_SERVICE", default.redis_sentinel_service),
            redis_wait_ms=max(0, int(env.get("TA_REDIS_WAIT_MS", default.redis_wait_ms))),
            metrics_bind=env.get("TA_METRICS_BIND") or None,
            limit_export=env.get("TA_LIMIT_EXPORT", default.limit_export),
        )

    @property
    def queue_name(self) -> str:
        """The arena's match queue."""
        return keys.arena_queue(self.prefix)

    @property
    def house_queue_name(self) -> str:
        """The practice tables' house-bot queue: the API enqueues there, `python -m arena worker --house`
        listens there, so a TA_KEY_PREFIX set for the whole stack moves practice tables too."""
        return self.house_queue or keys.house_queue(self.prefix)

    @property
    def analysis_queue_name(self) -> str:
        """The game analyses' queue (the API and `python -m arena worker --analysis`)."""
        return self.analysis_queue or keys.analysis_queue(self.prefix)

    @property
    def challenge_queue_name(self) -> str:
        """The challenges' queue (the API and `python -m arena worker --challenges`)."""
        return keys.challenge_queue(self.prefix)

    @property
    def tournament_queue_name(self) -> str:
        """The tournaments' queue (the API and `python -m arena worker --tournaments`)."""
        return keys.tournament_queue(self.prefix)

    def with_config(self, config: Mapping[str, Any] | None) -> Settings:
        """These settings with each setting `config` names by its Flask key (create_app's overrides).

        >>> Settings().with_config({"KEY_PREFIX": "x:", "TESTING": True}).prefix
        'x:'
        """
        changes = {FLASK_KEYS[key]: value for key, value in (config or {}).items() if key in FLASK_KEYS}
        for name in ("trusted_proxies", "redis_sentinels"):  # a list, or one comma-separated string
            if name in changes:
                changes[name] = words(changes[name])
        return dataclasses.replace(self, **changes)

    def flask_config(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The API's Flask config: these settings with ``overrides`` (create_app's dict) on top.

        A queue not named (here or in ``overrides``) is derived from the final KEY_PREFIX.

        >>> Settings.from_env({}).flask_config({"KEY_PREFIX": "other:"})["RQ_QUEUE"]
        'other-house'
        """
        settings = self.with_config(overrides)
        config: dict[str, Any] = {key: getattr(settings, name) for key, name in FLASK_KEYS.items()}
        config.update(RQ_QUEUE=settings.house_queue_name, ANALYSIS_QUEUE=settings.analysis_queue_name,
                      CHALLENGE_QUEUE=settings.challenge_queue_name,
                      TOURNAMENT_QUEUE=settings.tournament_queue_name)
        others = {key: value for key, value in (overrides or {}).items() if key not in FLASK_KEYS}
        return {**config, **FLASK_CONSTANTS, **others}
