"""The API's rate limits: moves per seat and table version, never per client address; registration, account,
table creation and analysis requests per client address; long-polls held at once per address and worker.

Design: docs/api.md#limits
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import redis
from flask import Flask, current_app, request
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from redis.connection import parse_url

from api.services import EXTENSION as SERVICES
from core import keys
from core.arena.audit import count_refusal
from core.clientaddr import client_identity, parse_networks
from core.errors import RateLimited, TooManyMovePosts
from core.settings import words
from core.tables.lua import SEAT_POSTS_SCRIPT
from core.tables.store import PostLimit
from core.tokens import token_tag

SEAT_WINDOW_S = 60  # a seat's count at one version is forgotten this long after its first post
EXTENSION = "trick_arena_seat_limit"


LONG_POLLS = "trick_arena_long_polls"


def install_seat_limit(app: Flask, client: redis.Redis) -> None:
    app.extensions[EXTENSION] = client.register_script(SEAT_POSTS_SCRIPT)
    app.extensions[LONG_POLLS] = LongPollSlots()


class LongPollSlots:
    """Long-polls held right now in this process, by client address.

    >>> slots = LongPollSlots()
    >>> slots.take("198.51.100.7", 1), slots.take("198.51.100.7", 1), slots.take("203.0.113.9", 1)
    (True, False, True)
    >>> slots.give_back("198.51.100.7"); slots.take("198.51.100.7", 1), slots.held
    (True, 2)
    """

    def __init__(self) -> None:
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, address: str, limit: int) -> bool:
        with self._lock:
            held = self._held.get(address, 0)
            if held >= limit:
                return False
            self._held[address] = held + 1
            return True

    def give_back(self, address: str) -> None:
        with self._lock:
            held = self._held.get(address, 0) - 1
            if held > 0:
                self._held[address] = held
            else:
                self._held.pop(address, None)

    @property
    def held(self) -> int:
        with self._lock:
            return sum(self._held.values())


@contextmanager
def long_poll_slot() -> Iterator[None]:
    """Hold one of this client address's long-poll slots while the request waits; over
    ``MAX_LONG_POLLS_PER_ADDRESS`` in this process, `RateLimited` (429) at once, before anything waits."""
    config = current_app.config
    slots: LongPollSlots | None = current_app.extensions.get(LONG_POLLS)
    if slots is None or not config.get("RATELIMIT_ENABLED", True):
        yield
        return
    address = client_address()
    limit = int(config["MAX_LONG_POLLS_PER_ADDRESS"])
    if not slots.take(address, limit):
        note_refusal(address)
        raise RateLimited(f"{limit} long-polls held at once per address", 1)  # 429 (api/problems.py)
    try:
        yield
    finally:
        slots.give_back(address)


def seat_post_limit() -> PostLimit | None:
    """This app's per-seat move limit, None when rate limits are off."""
    config = current_app.config
    if not config.get("RATELIMIT_ENABLED", True):
        return None
    return PostLimit(int(config["LIMIT_SEAT_POSTS"]), SEAT_WINDOW_S)


def check_seat_posts(table_id: str, seat: int, token: str) -> None:
    """Count one move post with `token` on (table, seat) at the table's current version; 429 over the limit.

    The count is kept per token (a short hash of it): posts with a wrong token, refused with 403 anyway,
    cannot use up the budget of the client that holds the seat.
    """
    limit = seat_post_limit()
    if limit is None:
        return
    prefix = current_app.config["KEY_PREFIX"]
    wait = current_app.extensions[EXTENSION](
        keys=[keys.table(prefix, table_id), keys.seat_posts(prefix, table_id, seat, token_tag(token))],
        args=[limit.limit, limit.window_s])
    if int(wait):
        raise TooManyMovePosts(seat, limit.limit, int(wait))  # 429 rate-limited (api/problems.py)


# --- per client address ------------------------------------------------------------------------------------

View = Callable[..., Any]


TRUSTED_PROXIES = "trick_arena_trusted_proxies"


def install_trusted_proxies(app: Flask) -> None:
    """Parse ``TRUSTED_PROXIES`` (addresses or CIDR blocks) once, when the app is created: a bad entry stops
    the app there (`core.clientaddr.BadTrustedProxy`, a one-line message), not at its first limited request.
    """
    entries = app.config.get("TRUSTED_PROXIES") or ()
    app.extensions[TRUSTED_PROXIES] = parse_networks(words(entries))


def client_address() -> str:
    """The client the per-address limits, the bot quotas and the analysis shares count (core/clientaddr.py):
    the connection's peer, or the client a trusted proxy names in ``X-Forwarded-For`` / ``Forwarded``; an
    IPv6 client as its /64 (``2001:db8:1:2::/64``)."""
    environ = request.environ
    return client_identity(environ.get("REMOTE_ADDR") or "127.0.0.1", environ.get("HTTP_X_FORWARDED_FOR"),
                           environ.get("HTTP_FORWARDED"), current_app.extensions[TRUSTED_PROXIES])


def note_refusal(address: str | None = None) -> None:
    """Count one refused request of client `address` (default: this request's) on the operator's refusal
    board (core.arena.audit): the per-address limits and the bot quota call it when they refuse."""
    count_refusal(current_app.extensions[SERVICES].redis, current_app.config["KEY_PREFIX"],
                  address or client_address())


def install_address_limits(app: Flask, limited: Mapping[str, tuple[str, Sequence[str]]]) -> None:
    """Wrap each view of `limited` (endpoint -> (config key with its limit, methods it applies to)) in its
    per-address limit, unless ``RATELIMIT_ENABLED`` is off.

    The limit is the config value in the limits library's notation (``20/minute``; ``;`` separates several,
    all of which apply), counted per client address and endpoint in a fixed window on the Redis at
    ``RATELIMIT_STORAGE_URI`` (default: the app's Redis) under ``RATELIMIT_KEY_PREFIX``.
    """
    sentinels = words(app.config.get("REDIS_SENTINELS") or ())
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(
        app.config["REDIS_URL"], sentinels, app.config.get("REDIS_SENTINEL_SERVICE") or "trick-arena"))
    app.config.setdefault("RATELIMIT_KEY_PREFIX", keys.rate_limit_prefix(app.config["KEY_PREFIX"]))
    if not app.config.get("RATELIMIT_ENABLED", True):
        return
    # One storage per app (tests build many apps on different prefixes); it connects on its first hit.
    uri = app.config["RATELIMIT_STORAGE_URI"]
    storage = storage_from_string(uri, **storage_options(uri, app.config["REDIS_URL"]))
    limiter = FixedWindowRateLimiter(storage)
    app.extensions[GUEST_TABLES] = AddressLimit(limiter, parse_many(app.config["LIMIT_BOT_TABLES"]),
                                                app.config["RATELIMIT_KEY_PREFIX"], GUEST_TABLES_SCOPE)
    for endpoint, (config_key, methods) in limited.items():
        limit = AddressLimit(limiter, parse_many(app.config[config_key]), app.config["RATELIMIT_KEY_PREFIX"],
                             endpoint)
        app.view_functions[endpoint] = limit.wrap(app.view_functions[endpoint], methods)


GUEST_TABLES = "trick_arena_guest_tables"
GUEST_TABLES_SCOPE = "tables.registered-bots"


def check_guest_tables(account: str | None) -> None:
    """Count one table with a registered bot seated against ``LIMIT_BOT_TABLES`` of this client address and,
    for a request with an account's API key, of that account too; `RateLimited` (429) over either."""
    limit: AddressLimit | None = current_app.extensions.get(GUEST_TABLES)
    if limit is None:  # rate limits are off
        return
    address = client_address()
    try:
        limit.hit(address)
        if account is not None:
            limit.hit(f"account:{account}")
    except RateLimited:
        note_refusal(address)
        raise


class AddressLimit:
    """One view's limits per client address; `hit` counts a request and raises `RateLimited` over any."""

    def __init__(self, limiter: FixedWindowRateLimiter, items: Sequence[RateLimitItem], prefix: str,
                 scope: str) -> None:
        self.limiter = limiter
        self.items = items
        self.prefix = prefix
        self.scope = scope

    def hit(self, address: str) -> None:
        for item in self.items:
            if not self.limiter.hit(item, self.prefix, address, self.scope):
                reset_at = self.limiter.get_window_stats(item, self.prefix, address, self.scope).reset_time
                raise RateLimited(str(item), int(reset_at - time.time()) + 1)  # 429 (api/problems.py)

    def wrap(self, view: View, methods: Collection[str]) -> View:
        methods = frozenset(methods)

        @functools.wraps(view)
        def limited_view(*args: Any, **kwargs: Any) -> Any:
            if request.method in methods:
                address = client_address()
                try:
                    self.hit(address)
                except RateLimited:
                    note_refusal(address)
                    raise
            return view(*args, **kwargs)

        return limited_view


def storage_uri(redis_url: str, sentinels: Sequence[str] = (), service: str = "trick-arena") -> str:
    """The limits library's name for the Redis at `redis_url`: it spells a unix socket ``redis+unix://``
    where redis-py spells it ``unix://``, and the primary of a Sentinel service
    ``redis+sentinel://sentinel,sentinel/service`` (the database and password: `storage_options`).

    >>> storage_uri("unix:///run/redis.sock?db=0")
    'redis+unix:///run/redis.sock?db=0'
    >>> storage_uri("redis://127.0.0.1:6379/0")
    'redis://127.0.0.1:6379/0'
    >>> storage_uri("redis://127.0.0.1:6379/0", ["10.0.0.5:26379", "10.0.0.6:26379"], "arena")
    'redis+sentinel://10.0.0.5:26379,10.0.0.6:26379/arena'
    """
    if sentinels:
        return f"redis+sentinel://{','.join(sentinels)}/{service}"
    return "redis+" + redis_url if redis_url.startswith("unix://") else redis_url


def storage_options(uri: str, redis_url: str) -> dict[str, Any]:
    """The storage's options beyond its URI: on Sentinel, REDIS_URL's database and password (a Sentinel URI
    names neither) and every count on the primary (a replica's copy may lag behind).

    >>> storage_options("redis+sentinel://s1:26379/arena", "redis://:pw@ignored:6379/2")
    {'use_replicas': False, 'db': 2, 'password': 'pw', 'sentinel_kwargs': {'password': None}}
    >>> storage_options("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0")
    {}
    """
    if not uri.startswith("redis+sentinel://"):
        return {}
    target = parse_url(redis_url)
    options: dict[str, Any] = {"use_replicas": False, "db": int(target.get("db") or 0)}
    if target.get("password"):
        options["password"] = target["password"]
        options["sentinel_kwargs"] = {"password": None}  # the password is the primary's, not the sentinels'
    return options
