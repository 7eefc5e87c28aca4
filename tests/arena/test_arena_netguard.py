"""SSRF guard: hostile URLs are refused, and a loopback listener sees no connection."""

from __future__ import annotations

import socket

import pytest

from core.arena.netguard import (
    UnsafeURLError,
    guarded_create_connection,
    is_public_address,
    policy_refusal,
    validate_bot_url,
)

HOSTILE_URLS = [
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://017700000001/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://169.254.169.254/",
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://[::1]/",
    "http://localhost:8000/",
    "http://10.0.0.1/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://[fe80::1]/",
    "http://240.0.0.1/",
    "http://[2002:7f00:1::]/",  # 6to4 wrapping 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://[::7f00:1]/",  # IPv4-compatible 127.0.0.1
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_urls_are_refused(url: str) -> None:
    with pytest.raises(UnsafeURLError) as info:
        validate_bot_url(url, allow_private=False)
    assert "address" in str(info.value)


@pytest.mark.parametrize(("url", "reason"), [
    ("http://0.0.0.0/", "unspecified"), ("http://127.0.0.1/", "loopback"),
    ("http://100.64.0.1/", "carrier-grade NAT (100.64.0.0/10)")])
def test_a_refusal_says_in_plain_words_why(url: str, reason: str) -> None:
    with pytest.raises(UnsafeURLError) as info:
        validate_bot_url(url, allow_private=False)
    assert f"not a public address ({reason})" in str(info.value)


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_private_urls_pass_when_operator_allows_them(url: str) -> None:
    validate_bot_url(url, allow_private=True)


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("ftp://example.com/", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://1.1.1.1/", "scheme"),
        ("example.com/bot", "scheme"),
        ("http://", "host"),
        ("http://user:pw@8.8.8.8/", "credentials"),
        ("http://user@8.8.8.8/", "credentials"),
        ("http://8.8.8.8:99999/", "malformed"),
        ("http://8.8.8.8/ x", "whitespace"),
        ("", "non-empty"),
    ],
)
def test_malformed_urls_are_refused_even_when_private_allowed(url: str, fragment: str) -> None:
    with pytest.raises(UnsafeURLError) as info:
        validate_bot_url(url, allow_private=True)
    assert fragment in str(info.value)


def test_public_literal_addresses_are_accepted() -> None:
    validate_bot_url("http://8.8.8.8/", allow_private=False)
    validate_bot_url("https://[2606:4700:4700::1111]:8443/bot", allow_private=False)


def test_a_name_is_refused_if_any_of_its_addresses_is_private() -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["8.8.8.8", "10.1.2.3"]

    with pytest.raises(UnsafeURLError, match="10.1.2.3"):
        validate_bot_url("http://bot.example/", allow_private=False, resolver=resolver)


def test_unresolvable_host_is_refused() -> None:
    with pytest.raises(UnsafeURLError, match="cannot be resolved"):
        validate_bot_url("http://no-such-host.invalid/", allow_private=False)


@pytest.mark.parametrize(
    ("address", "public"),
    [("8.8.8.8", True), ("1.1.1.1", True), ("2606:4700::1111", True), ("2002:808:808::1", True),
     ("100.64.0.1", False), ("198.18.0.1", False), ("::ffff:10.0.0.1", False), ("ff0e::1", False)],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


@pytest.fixture
def loopback_listener():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.3)
    yield server
    server.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1", "2130706433", "localhost"])
def test_guarded_connection_never_reaches_a_loopback_listener(loopback_listener, host: str) -> None:
    port = loopback_listener.getsockname()[1]
    with pytest.raises(ConnectionRefusedError, match="loopback"):
        guarded_create_connection((host, port), timeout=1.0, allow_private=False)
    with pytest.raises(TimeoutError):
        loopback_listener.accept()


PUBLIC = "93.184.216.34"


def test_a_connection_that_lands_on_loopback_is_refused(loopback_listener, monkeypatch) -> None:
    """DNS rebinding past the resolver check: the name resolves to a public address both when the URL is
    validated and when the guard resolves it, but the connection ends at 127.0.0.1 (a rebinding resolver
    in the middle, a NAT rule). Only the re-check of the connected peer catches it."""
    port = loopback_listener.getsockname()[1]
    real_getaddrinfo = socket.getaddrinfo

    def resolver(host, *args, **kwargs):  # the test's DNS: always the public address for this name
        if host == "rebind.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC, port))]
        return real_getaddrinfo(host, *args, **kwargs)

    class Rebound(socket.socket):
        """What the connection meets on the wire: traffic for the public address answered on loopback."""

        def connect(self, address):
            assert address == (PUBLIC, port)  # the guard connects to the address it vetted...
            super().connect(("127.0.0.1", port))  # ...and lands on loopback

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    validate_bot_url(f"http://rebind.example:{port}/", allow_private=False)  # passes: public at registration
    with pytest.raises(ConnectionRefusedError, match="connected peer 127.0.0.1 is not a public address"):
        guarded_create_connection(("rebind.example", port), timeout=1.0, allow_private=False,
                                  socket_factory=Rebound)
    conn, _ = loopback_listener.accept()  # it did connect...
    conn.settimeout(1.0)
    assert conn.recv(1) == b""  # ...and the guard closed it before sending a byte
    conn.close()
    # The operator's switch for local runs lets the same connection through.
    sock = guarded_create_connection(("rebind.example", port), timeout=1.0, allow_private=True,
                                     socket_factory=Rebound)
    sock.close()
    loopback_listener.accept()[0].close()


def test_dns_rebinding_is_caught_at_connect_time(loopback_listener, monkeypatch) -> None:
    """The name resolved to a public address at registration, and to loopback when the arena connects."""
    from arena.botclient import BotClient
    from arena.policy import Outcome

    port = loopback_listener.getsockname()[1]
    validate_bot_url("http://rebind.example/", allow_private=False, resolver=lambda h, p: ["93.184.216.34"])
    real_getaddrinfo = socket.getaddrinfo

    def rebound(host, *args, **kwargs):
        if host == "rebind.example":
            return real_getaddrinfo("127.0.0.1", *args, **kwargs)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebound)
    move, result = BotClient(f"http://rebind.example:{port}/", allow_private=False).move(
        {"decision": {"kind": "play", "count": 1, "legal": ["2C"]}}, 1.0)
    assert move is None and result.outcome is Outcome.UNSAFE_ADDRESS
    with pytest.raises(TimeoutError):
        loopback_listener.accept()


def test_a_slow_name_lookup_is_bounded_by_the_time_left(monkeypatch):
    """getaddrinfo cannot be interrupted; the guard waits only for the decision's remaining time."""
    import socket
    import threading

    from core.arena import netguard

    real = socket.getaddrinfo
    answer = threading.Event()  # the slow name's lookup answers only once this is set

    def slow(host, *args, **kwargs):
        if host == "slow.example":
            answer.wait(60)
        return real("127.0.0.1", *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    try:
        # Given up after the 0.1 s left, while the lookup still runs: it cannot answer before `answer` is set.
        with pytest.raises(ConnectionError, match="longer than the 0.100 s left"):
            netguard.guarded_create_connection(("slow.example", 80), 0.1, allow_private=True)
    finally:
        answer.set()
    assert netguard.resolve_within("fast.example", 80, 30.0)  # answers in time are used


def test_policy_refusal_names_a_refused_address_but_not_a_host_that_does_not_resolve() -> None:
    def resolver(answers: list[str] | Exception):
        def resolve(host: str, port: int) -> list[str]:
            if isinstance(answers, Exception):
                raise answers
            return answers
        return resolve

    assert "127.0.0.1" in policy_refusal("http://bot.example/", False, resolver(["127.0.0.1"]))
    assert "private" in policy_refusal("http://bot.example/", False, resolver(["93.184.215.14", "10.0.0.1"]))
    assert policy_refusal("http://bot.example/", False, resolver(["93.184.215.14"])) is None
    assert policy_refusal("http://bot.example/", True, resolver(["127.0.0.1"])) is None
    # Down (no answer now) is for the health checks to count, not a refusal.
    assert policy_refusal("http://bot.example/", False, resolver(socket.gaierror("no such host"))) is None
    assert policy_refusal("http://bot.example/", False, resolver([])) is None
    assert "scheme" in policy_refusal("ftp://bot.example/", False, resolver(["93.184.215.14"]))
    assert "127.0.0.1" in policy_refusal("http://127.0.0.1:9/", False)  # a literal: no lookup
