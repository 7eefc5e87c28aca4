"""The client identity the per-address limits, bot quotas and analysis shares count (core/clientaddr.py):
X-Forwarded-For / Forwarded believed only from TA_TRUSTED_PROXIES, read right to left; IPv6 per /64."""

from __future__ import annotations

import doctest
import os
import re
import subprocess

import pytest
from api_helpers import assert_problem
from hypothesis import assume, given
from hypothesis import strategies as st

import core.clientaddr
from core.clientaddr import BadTrustedProxy, client_identity, parse_networks

TRUSTED = parse_networks(["127.0.0.1", "10.0.0.0/8", "fd00:1::/64"])
TABLE = {"game": "spot-hearts", "seats": ["open", "random", "random", "random"]}


def test_doctests():
    assert doctest.testmod(core.clientaddr).failed == 0


@pytest.mark.parametrize(("peer", "xff", "forwarded", "client"), [
    # No trusted proxies configured, or a peer that is none: the headers are never read.
    ("203.0.113.9", "198.51.100.7", 'for=198.51.100.8', "203.0.113.9"),
    # From a trusted proxy: the first untrusted hop from the right; what is left of it is never read.
    ("127.0.0.1", "198.51.100.7", None, "198.51.100.7"),
    ("127.0.0.1", "6.6.6.6, 198.51.100.7", None, "198.51.100.7"),
    ("127.0.0.1", "junk;; here, 198.51.100.7, 10.2.3.4", None, "198.51.100.7"),
    ("127.0.0.1", "198.51.100.7, 10.2.3.4, 10.9.9.9", None, "198.51.100.7"),
    # Trusted all the way: the farthest hop named.
    ("127.0.0.1", "10.2.3.4", None, "10.2.3.4"),
    # Malformed before an untrusted hop is found: the peer.
    ("127.0.0.1", "198.51.100.7, not-an-address", None, "127.0.0.1"),
    ("127.0.0.1", "198.51.100.7,", None, "127.0.0.1"),
    ("127.0.0.1", "198.51.100.7:port", None, "127.0.0.1"),
    ("127.0.0.1", "  ", None, "127.0.0.1"),
    # Ports and brackets are taken off.
    ("127.0.0.1", "198.51.100.7:4711", None, "198.51.100.7"),
    ("127.0.0.1", "[2001:db8:1:2::9]:4711", None, "2001:db8:1:2::/64"),
    # RFC 7239 Forwarded, when there is no X-Forwarded-For.
    ("127.0.0.1", None, 'for=6.6.6.6, for=198.51.100.7;proto=https', "198.51.100.7"),
    ("127.0.0.1", None, 'for="[2001:db8:1:2:aa::5]:4711";proto=https;by=10.0.0.1', "2001:db8:1:2::/64"),
    ("127.0.0.1", None, 'For=198.51.100.7, for=10.1.1.1', "198.51.100.7"),
    ("127.0.0.1", None, 'for=unknown', "127.0.0.1"),
    ("127.0.0.1", None, 'proto=https', "127.0.0.1"),
    ("127.0.0.1", None, 'for="198.51.100.7', "127.0.0.1"),
    ("127.0.0.1", None, 'for=_hidden', "127.0.0.1"),
    # X-Forwarded-For wins over Forwarded: a proxy that appends the one need not police the other.
    ("127.0.0.1", "198.51.100.7", 'for=6.6.6.6', "198.51.100.7"),
    # IPv4-mapped IPv6 is IPv4, for the peer and for the hops alike.
    ("::ffff:127.0.0.1", "198.51.100.7", None, "198.51.100.7"),
    ("127.0.0.1", "::ffff:198.51.100.7", None, "198.51.100.7"),
    ("::ffff:203.0.113.9", None, None, "203.0.113.9"),
    # IPv6 clients per /64, a trusted IPv6 proxy among them.
    ("2001:db8:1:2:3:4:5:6", None, None, "2001:db8:1:2::/64"),
    ("fd00:1::7", "2001:db8:1:2::1, fd00:1::8", None, "2001:db8:1:2::/64"),
    ("fd00:2::7", "198.51.100.7", None, "fd00:2::/64"),  # fd00:2::/64 is not trusted
    # Not an IP address (a unix socket): as it is.
    ("", "198.51.100.7", None, ""),
])
def test_the_client_is_the_first_untrusted_hop_from_the_right(peer, xff, forwarded, client):
    assert client_identity(peer, xff, forwarded, TRUSTED) == client


def test_without_trusted_proxies_the_headers_are_ignored():
    assert client_identity("127.0.0.1", "198.51.100.7", "for=198.51.100.8", ()) == "127.0.0.1"


def test_two_addresses_of_one_64_are_one_client_and_the_next_64_another():
    same = {client_identity(f"2001:db8:1:2::{n:x}", None, None, ()) for n in range(1, 200)}
    assert same == {"2001:db8:1:2::/64"}
    assert client_identity("2001:db8:1:3::1", None, None, ()) == "2001:db8:1:3::/64"
    assert client_identity("192.0.2.1", None, None, ()) != client_identity("192.0.2.2", None, None, ())


@pytest.mark.parametrize(("entry", "message"), [
    ("proxy.internal", "TA_TRUSTED_PROXIES: 'proxy.internal' is neither an IP address nor a CIDR block"),
    ("10.0.0.1/8", "TA_TRUSTED_PROXIES: '10.0.0.1/8' has host bits set (did you mean 10.0.0.0/8?)"),
    ("10.0.0.0/33", "TA_TRUSTED_PROXIES: '10.0.0.0/33' is neither an IP address nor a CIDR block"),
])
def test_a_bad_trusted_proxy_is_refused_in_one_line(entry, message):
    with pytest.raises(BadTrustedProxy) as refused:
        parse_networks(["127.0.0.1", entry])
    assert str(refused.value) == message


def test_the_app_refuses_a_bad_trusted_proxy_when_it_is_created(make_app):
    with pytest.raises(BadTrustedProxy, match="'nginx' is neither"):
        make_app(TRUSTED_PROXIES=("10.0.0.2", "nginx"))


@pytest.mark.timeout(60)
def test_gunicorn_refuses_a_bad_trusted_proxy_in_one_line(redis_url, key_prefix):
    from devstack import devserve
    from devstack.devredis import free_port
    from tests.conftest import REPO_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix,
           "TA_BIND": f"127.0.0.1:{free_port()}", "TA_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.1/8"}
    server = subprocess.run(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env, capture_output=True,
                            text=True, timeout=45)
    assert server.returncode != 0
    assert server.stderr.strip().splitlines()[-1] == \
        "gunicorn: TA_TRUSTED_PROXIES: '10.0.0.1/8' has host bits set (did you mean 10.0.0.0/8?)"
    assert "Traceback" not in server.stderr


def client_of(app, remote_addr: str, **headers: str):  # noqa: ANN001, ANN201 - a test client
    client = app.test_client()
    client.environ_base = {**client.environ_base, "REMOTE_ADDR": remote_addr}
    client.environ_base.update({f"HTTP_{name.upper()}": value for name, value in headers.items()})
    return client


def test_a_trusted_proxy_s_clients_get_buckets_of_their_own(make_app):
    app = make_app(LIMIT_TABLE_CREATION="2/minute", TRUSTED_PROXIES=("10.0.0.2",))
    first = client_of(app, "10.0.0.2", x_forwarded_for="198.51.100.7")
    second = client_of(app, "10.0.0.2", x_forwarded_for="198.51.100.8")
    assert [first.post("/api/tables", json=TABLE).status_code for _ in range(2)] == [201, 201]
    assert_problem(first.post("/api/tables", json=TABLE), 429, "rate-limited")
    assert second.post("/api/tables", json=TABLE).status_code == 201
    # The first client forging a leftmost entry is still the first client.
    forged = client_of(app, "10.0.0.2", x_forwarded_for="203.0.113.1, 198.51.100.7")
    assert_problem(forged.post("/api/tables", json=TABLE), 429, "rate-limited")


def test_forwarded_headers_from_an_untrusted_peer_change_nothing(make_app):
    app = make_app(LIMIT_TABLE_CREATION="2/minute", TRUSTED_PROXIES=("10.0.0.2",))
    peer = "198.51.100.9"
    for n in range(2):
        client = client_of(app, peer, x_forwarded_for=f"203.0.113.{n}", forwarded=f"for=203.0.114.{n}")
        assert client.post("/api/tables", json=TABLE).status_code == 201
    assert_problem(client_of(app, peer, x_forwarded_for="203.0.113.77").post("/api/tables", json=TABLE),
                   429, "rate-limited")


def test_ipv6_clients_share_the_bucket_and_quota_of_their_64(make_app):
    app = make_app(LIMIT_TABLE_CREATION="2/minute", MAX_BOTS_PER_ADDRESS=1)
    one, other, elsewhere = (client_of(app, peer) for peer in ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9",
                                                              "2001:db8:1:3::1"))
    assert one.post("/api/tables", json=TABLE).status_code == 201
    assert other.post("/api/tables", json=TABLE).status_code == 201
    assert_problem(one.post("/api/tables", json=TABLE), 429, "rate-limited")
    assert elsewhere.post("/api/tables", json=TABLE).status_code == 201
    bot = {"games": ["spot-hearts"], "url": None}
    assert one.post("/api/bots", json={**bot, "name": "v6-one"}).status_code == 201
    assert_problem(other.post("/api/bots", json={**bot, "name": "v6-other"}), 409, "bot-quota-exceeded")
    assert elsewhere.post("/api/bots", json={**bot, "name": "v6-elsewhere"}).status_code == 201


addresses = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6)).map(str)
junk = st.text(alphabet="0123456789abcdef.:[]_ ;=x", max_size=20)


@given(forged=st.lists(st.one_of(addresses, junk), max_size=4), client=addresses,
       proxies=st.lists(st.sampled_from(["10.0.0.1", "10.200.3.4", "fd00:1::9"]), max_size=3))
def test_nothing_a_client_prepends_changes_who_it_is(forged, client, proxies):
    """Through any chain of trusted proxies, whatever a client (not itself a trusted proxy) wrote itself, left
    of what the first proxy appended, leaves its identity as it is; with no proxy trusted the headers count
    for nothing."""
    assume(not any(network.overlaps(n) for network in parse_networks([client]) for n in TRUSTED))
    honest = ", ".join([client, *proxies])
    expected = client_identity(client, None, None, ())
    assert client_identity("127.0.0.1", honest, None, TRUSTED) == expected
    assert client_identity("127.0.0.1", ", ".join([*forged, honest]), None, TRUSTED) == expected
    assert client_identity("127.0.0.1", ", ".join([*forged, honest]), None, ()) == "127.0.0.1"


def test_the_client_address_section_of_the_api_doc_names_what_exists():
    from tests.conftest import REPO_ROOT

    text = (REPO_ROOT / "docs" / "api.md").read_text()
    section = text[text.index("### Client address"):text.index("Bodies are capped")]
    for path in re.findall(r"`((?:api|core|deploy|tests)/[\w./-]+)`", section):
        assert (REPO_ROOT / path).exists(), path
    with pytest.raises(BadTrustedProxy) as refused:
        parse_networks(["10.0.0.1/8"])
    assert f"(`gunicorn: {refused.value}`)" in section.replace("\n  ", " ")
    assert "`2001:db8:1:2::/64`" in section and client_identity("2001:db8:1:2::7", None, None, ()) == \
        "2001:db8:1:2::/64"
