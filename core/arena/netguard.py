"""SSRF guard for bot URLs, in two layers: ``validate_bot_url`` when a URL is registered (every address it
resolves to must be globally routable), and ``guarded_create_connection``, which the bot client opens every
socket with (connects to the vetted IP and checks the peer again: no DNS-rebinding bypass).

Design: docs/bot-tips.md#why-a-private-address-is-refused
"""

from __future__ import annotations

import concurrent.futures
import ipaddress
import socket
from collections.abc import Callable
from functools import partial
from typing import Any
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
# NAT64 well-known prefix: the low 32 bits are an IPv4 address that the translator would reach.
NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")
POLICY_RESOLVE_S = 2.0  # the longest a policy check waits for the resolver (the scheduler's loop waits on it)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]


class UnsafeURLError(ValueError):
    """The bot URL is malformed or points at an address the arena must not call."""


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address tunnels or translates to (each must be global too)."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in NAT64_PREFIX:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    # IPv4-compatible ::a.b.c.d (deprecated, but some stacks still route it to a.b.c.d).
    if int(ip) >> 32 == 0 and int(ip) > 1:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def non_global_reason(ip: IPAddress) -> str | None:
    """Why ``ip`` is not a safe destination, or None if it is a global unicast address."""
    if ip.is_loopback:
        return "loopback"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip in ipaddress.ip_network("100.64.0.0/10"):
        return "carrier-grade NAT (100.64.0.0/10)"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in ipaddress.ip_network("fc00::/7"):
            return "unique-local"
        for inner in _embedded_ipv4(ip):
            inner_reason = non_global_reason(inner)
            if inner_reason is not None:
                return f"embeds {inner} ({inner_reason})"
    if ip.is_private:
        return "private"
    if ip.is_reserved:
        return "reserved"
    if not ip.is_global:
        return "not globally routable"
    return None


def is_public_address(address: str | IPAddress) -> bool:
    """True only for global unicast addresses (not multicast, reserved or tunnelling a private one)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
    return non_global_reason(ip) is None


def system_resolve(host: str, port: int, timeout: float | None = None) -> list[str]:
    """Every address the system resolver returns for host (the same lookup an HTTP client would do), within
    `timeout` seconds if given (TimeoutError past it)."""
    infos = resolve_within(host, port, timeout)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def check_addresses(host: str, addresses: list[str]) -> None:
    """Raise UnsafeURLError if any resolved address of host is not public."""
    if not addresses:
        raise UnsafeURLError(f"host {host!r} did not resolve to any address")
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        reason = non_global_reason(ip)
        if reason is not None:
            raise UnsafeURLError(
                f"bot URL host {host!r} resolves to {ip}, not a public address ({reason}); "
                "only public addresses are allowed (operators may set ALLOW_PRIVATE_BOT_URLS locally)"
            )


def split_bot_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a syntactically acceptable bot URL, else UnsafeURLError."""
    if not isinstance(url, str) or not url.strip():
        raise UnsafeURLError("bot URL must be a non-empty string")
    if any(ch.isspace() or ord(ch) < 0x20 for ch in url):
        raise UnsafeURLError("bot URL must not contain whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(f"bot URL is malformed: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise UnsafeURLError(f"bot URL scheme must be http or https, not {parts.scheme or 'missing'!r}")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURLError("bot URL must not contain credentials (user:password@)")
    host = parts.hostname
    if not host:
        raise UnsafeURLError("bot URL must include a host name")
    if parts.fragment:
        raise UnsafeURLError("bot URL must not contain a fragment")
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


def validate_bot_url(url: str, allow_private: bool, resolver: Resolver = system_resolve) -> None:
    """Raise UnsafeURLError unless url is an http(s) URL whose host resolves only to public addresses.

    With ``allow_private`` (local runs and tests) only the syntax is checked.
    """
    _scheme, host, port = split_bot_url(url)
    if allow_private:
        return
    try:
        addresses = resolver(host, port)
    except (OSError, UnicodeError) as exc:
        raise UnsafeURLError(f"bot URL host {host!r} cannot be resolved: {exc}") from None
    check_addresses(host, addresses)


def policy_refusal(url: str, allow_private: bool, resolver: Resolver | None = None) -> str | None:
    """Why the address policy refuses `url` as it resolves now, or None if it accepts it.

    Unlike ``validate_bot_url`` a host that cannot be resolved (now) is not refused: that is a bot that is
    down, for its health checks to count, not a URL the arena disallows.
    """
    if allow_private:
        return None
    try:
        _scheme, host, port = split_bot_url(url)
        addresses = (resolver or partial(system_resolve, timeout=POLICY_RESOLVE_S))(host, port)
    except UnsafeURLError as exc:
        return str(exc)
    except (OSError, UnicodeError):
        return None
    if not addresses:
        return None
    try:
        check_addresses(host, addresses)
    except UnsafeURLError as exc:
        return str(exc)
    return None

# getaddrinfo cannot be interrupted: a slow resolver would hold a worker past the decision's deadline.
# Lookups run on a small pool and the caller waits only for the time it has left; a late answer is dropped.
_resolver_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="bot-dns")


def literal_address_info(host: str, port: int) -> list[Any] | None:
    """What ``getaddrinfo`` answers for an IP address written out (no lookup, no thread), else None.

    A worker busy with many matches must not turn a bot at a plain IP into a resolver timeout: the lookup
    pool's threads wait for the interpreter like any other.

    >>> literal_address_info("127.0.0.1", 80)[0][4], literal_address_info("::1", 80)[0][4]
    (('127.0.0.1', 80), ('::1', 80, 0, 0))
    >>> literal_address_info("bots.example", 80) is None
    True
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if ip.version == 4:
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (str(ip), port))]
    return [(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (str(ip), port, 0, 0))]


def resolve_within(host: str, port: int, timeout: float | None) -> list[Any]:
    """``getaddrinfo`` bounded by ``timeout`` seconds (None: unbounded); TimeoutError when it runs over."""
    literal = literal_address_info(host, port)
    if literal is not None:
        return literal
    if timeout is None:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    future = _resolver_pool.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        return future.result(timeout=max(timeout, 0.0))
    except concurrent.futures.TimeoutError:
        raise TimeoutError(f"resolving {host!r} took longer than the {timeout:.3f} s left") from None


def guarded_create_connection(
    address: tuple[str, int],
    timeout: float | None,
    allow_private: bool,
    socket_factory: Callable[..., socket.socket] = socket.socket,
) -> socket.socket:
    """Connect like ``socket.create_connection`` but only to vetted addresses (unless allow_private).

    The socket connects to the exact IP that was checked, so a later DNS answer cannot redirect it, and the
    peer address of the connected socket is checked again before the socket is handed out.
    """
    host, port = address
    try:
        infos = resolve_within(host, port, timeout)
    except (OSError, UnicodeError) as exc:
        raise ConnectionError(f"cannot resolve {host!r}: {exc}") from None
    if not allow_private:
        try:
            check_addresses(host, list(dict.fromkeys(str(info[4][0]) for info in infos)))
        except UnsafeURLError as exc:
            raise ConnectionRefusedError(str(exc)) from None
    last_error: OSError | None = None
    for family, socktype, proto, _canon, sockaddr in infos:
        sock = socket_factory(family, socktype, proto)
        try:
            sock.settimeout(timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.connect(sockaddr)
            if not allow_private:
                peer = sock.getpeername()[0]
                if not is_public_address(str(peer)):
                    raise ConnectionRefusedError(f"connected peer {peer} is not a public address")
            return sock
        except OSError as exc:
            last_error = exc
            sock.close()
    raise last_error if last_error is not None else ConnectionError(f"no address to connect to for {host!r}")
