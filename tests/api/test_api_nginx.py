"""The API behind a real nginx (deploy/nginx/trick-arena.conf, rendered with this test's ports and a
certificate it makes) over HTTPS, in front of a real gunicorn that trusts nginx's address alone
(TA_TRUSTED_PROXIES=127.0.0.1): clients on distinct loopback addresses get rate-limit buckets and bot quotas
of their own, and no forged X-Forwarded-For / Forwarded (through nginx or straight to gunicorn) moves a
client to another bucket.

Needs Debian's `nginx`: skipped without it on a laptop, failed under CI (`.ci/run` installs it).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from core import keys
from tests.ci import under_ci
from tests.conftest import REPO_ROOT, gunicorn_serving

SHIPPED = REPO_ROOT / "deploy" / "nginx" / "trick-arena.conf"
TABLE = {"game": "spot-hearts", "seats": ["open", "random", "random", "random"]}
TABLES_PER_MINUTE = 3
BOTS_PER_ADDRESS = 2
FORGED = "198.51.100.77"  # an address no client here has
PLACEHOLDERS = ("SERVER_NAME", "TLS_CERT", "TLS_KEY", "HTTPS_LISTEN", "HTTPS_LISTEN6", "HTTP_LISTEN",
                "HTTP_LISTEN6",
                "UPSTREAM")


def find_nginx(which: Callable[[str], str | None] = shutil.which, env: Mapping[str, str] = os.environ) -> str:
    """nginx's binary (also found in /usr/sbin when that is not on PATH); skip without it, fail under CI."""
    found = which("nginx") or which("/usr/sbin/nginx")
    if found is None:
        reason = "no nginx here: install Debian's `nginx` (apt-get install -y nginx)"
        if under_ci(env):
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)
    return found


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def free_port(host: str = "127.0.0.1") -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def render(template: str, values: dict[str, str]) -> str:
    """The shipped file with every placeholder replaced; a placeholder left over fails the test."""
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    left = re.findall(r"@[A-Z0-9_]+@", template)
    assert not left, f"deploy/nginx/trick-arena.conf placeholders not set: {left}"
    return template


@contextmanager
def nginx_serving(nginx: str, workdir: Path, site: str) -> Iterator[subprocess.CompletedProcess]:
    """nginx in the foreground with `site` (the rendered shipped file) in its http block; everything it
    writes stays in `workdir`. Yields the `nginx -t` run of the same configuration."""
    (workdir / "trick-arena.conf").write_text(site)
    temp = [f"{kind}_temp_path {workdir / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")]
    main = "\n".join([
        "daemon off;", "worker_processes 1;", f"pid {workdir / 'nginx.pid'};",
        f"error_log {workdir / 'error.log'} warn;",
        *(["user root;"] if os.geteuid() == 0 else []),  # workers must read this test's private directory
        "events { worker_connections 512; }",
        "http {", "access_log off;", *temp, f"include {workdir / 'trick-arena.conf'};", "}", ""])
    (workdir / "nginx.conf").write_text(main)
    command = [nginx, "-p", str(workdir), "-e", str(workdir / "error.log"), "-c", str(workdir / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield checked
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_listening(host: str, port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def rate_limit_keys(redis_conn: Any, key_prefix: str) -> str:
    """Every per-address rate-limit key of this test's app, one line each: each names the client it counts."""
    prefix = keys.rate_limit_prefix(key_prefix)
    return "\n".join(sorted(redis_conn.scan_iter(match=f"LIMITS:LIMITER/{prefix}*")))


@contextmanager
def nginx_in_front_of(upstream: str, workdir: Path) -> Iterator[dict[str, Any]]:
    """nginx with the shipped site on 127.0.0.1 (and ::1 when this host has it), TLS with a certificate made
    here, proxying to `upstream` ("host:port")."""
    nginx = find_nginx()
    import trustme

    ca = trustme.CA()
    leaf = ca.issue_cert("localhost", "127.0.0.1", "::1")
    leaf.cert_chain_pems[0].write_to_path(workdir / "cert.pem")
    for blob in leaf.cert_chain_pems[1:]:
        blob.write_to_path(workdir / "cert.pem", append=True)
    leaf.private_key_pem.write_to_path(workdir / "key.pem")
    ipv6 = has_ipv6_loopback()
    https, http = free_port(), free_port()
    # Without IPv6 the second pair of listen lines takes other IPv4 ports: the file stays as shipped.
    https6, http6 = (f"[::1]:{https}", f"[::1]:{http}") if ipv6 else \
        (f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}")
    site = render(SHIPPED.read_text(), {
        "SERVER_NAME": "localhost", "TLS_CERT": str(workdir / "cert.pem"),
        "TLS_KEY": str(workdir / "key.pem"),
        "HTTPS_LISTEN": f"127.0.0.1:{https}", "HTTPS_LISTEN6": https6, "HTTP_LISTEN": f"127.0.0.1:{http}",
        "HTTP_LISTEN6": http6, "UPSTREAM": upstream})
    with nginx_serving(nginx, workdir, site) as checked:
        wait_listening("127.0.0.1", https)
        trust = ssl.create_default_context()
        ca.configure_trust(trust)
        yield {"https": f"https://127.0.0.1:{https}", "http": f"http://127.0.0.1:{http}",
               "https6": f"https://[::1]:{https}" if ipv6 else None, "trust": trust, "checked": checked}


@pytest.fixture(scope="module")
def behind_nginx(redis_url: str, session_prefix: str, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[dict[str, Any]]:
    """gunicorn trusting 127.0.0.1 (its limits low), and nginx in front of it, for the whole module: each
    test plays from loopback source addresses of its own, so their buckets never meet."""
    find_nginx()  # before gunicorn starts: skip or fail at once
    prefix = f"{session_prefix}nginx:"
    env = {"TA_TRUSTED_PROXIES": "127.0.0.1", "TA_LIMIT_TABLE_CREATION": f"{TABLES_PER_MINUTE}/minute",
           "TA_LIMIT_REGISTRATION": "100/minute", "TA_MAX_BOTS_PER_ADDRESS": str(BOTS_PER_ADDRESS)}
    with gunicorn_serving(redis_url, prefix, "gevent", 1, env) as direct, \
            nginx_in_front_of(direct.removeprefix("http://"), tmp_path_factory.mktemp("nginx")) as proxy:
        yield {**proxy, "direct": direct, "prefix": prefix}


def client_from(source: str, trust: ssl.SSLContext | None = None) -> httpx.Client:
    """A client whose connections leave from loopback address `source`."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source, verify=trust or True), timeout=30)


def create_tables(client: httpx.Client, base: str, count: int, **headers: str) -> list[int]:
    return [client.post(f"{base}/api/tables", json=TABLE, headers=headers).status_code for _ in range(count)]


def register_bots(client: httpx.Client, base: str, names: list[str], **headers: str) -> list[int]:
    return [client.post(f"{base}/api/bots", headers=headers,
                        json={"name": name, "games": ["spot-hearts"], "url": None}).status_code
            for name in names]


@pytest.mark.timeout(90)
def test_clients_behind_nginx_get_their_own_limits_and_quotas_and_cannot_forge_another(
        behind_nginx, redis_conn):
    https, direct, trust = behind_nginx["https"], behind_nginx["direct"], behind_nginx["trust"]
    assert "syntax is ok" in behind_nginx["checked"].stderr  # the shipped file, as rendered, passes nginx -t
    with client_from("127.0.0.2", trust) as first, client_from("127.0.0.3", trust) as second:
        # Every request of both clients reaches gunicorn from nginx's one address: the buckets are still two.
        assert create_tables(first, https, TABLES_PER_MINUTE) == [201] * TABLES_PER_MINUTE
        assert create_tables(first, https, 1) == [429]
        assert create_tables(second, https, TABLES_PER_MINUTE) == [201] * TABLES_PER_MINUTE
        assert create_tables(second, https, 1) == [429]
        # ... and so are the bot quotas.
        assert register_bots(first, https, ["first-1", "first-2", "first-3"]) == [201, 201, 409]
        assert register_bots(second, https, ["second-1", "second-2", "second-3"]) == [201, 201, 409]
        # A forged leftmost X-Forwarded-For (or a Forwarded header) through nginx: still the same client.
        assert create_tables(first, https, 1, **{"X-Forwarded-For": FORGED}) == [429]
        assert create_tables(first, https, 1, Forwarded=f"for={FORGED}") == [429]
        assert register_bots(first, https, ["first-4"], **{"X-Forwarded-For": f"{FORGED}, {FORGED}"}) == [409]
    with client_from("127.0.0.2") as first_direct, client_from("127.0.0.4") as newcomer:
        # Straight to gunicorn (the peer is no trusted proxy): the forged header is ignored, the peer counts.
        assert create_tables(first_direct, direct, 1, **{"X-Forwarded-For": FORGED}) == [429]
        assert register_bots(first_direct, direct, ["first-5"], **{"X-Forwarded-For": FORGED}) == [409]
        # A third address is a third client (the limits are not simply spent for everyone).
        assert create_tables(newcomer, direct, 1, **{"X-Forwarded-For": "127.0.0.2"}) == [201]
    counted = rate_limit_keys(redis_conn, behind_nginx["prefix"])
    for client in ("127.0.0.2", "127.0.0.3", "127.0.0.4"):
        assert f"/{client}/" in counted, counted
    assert FORGED not in counted and "/127.0.0.1/" not in counted, counted


@pytest.mark.timeout(90)
def test_an_ipv6_client_behind_nginx_is_counted_by_its_64(behind_nginx, redis_conn):
    if behind_nginx["https6"] is None:
        pytest.skip("this host has no IPv6 loopback; the /64 grouping is covered by test_api_client_identity")
    with client_from("::1", behind_nginx["trust"]) as client:
        assert create_tables(client, behind_nginx["https6"], TABLES_PER_MINUTE + 1) == \
            [201] * TABLES_PER_MINUTE + [429]
    counted = rate_limit_keys(redis_conn, behind_nginx["prefix"])
    assert "/::/64/" in counted and "::1" not in counted, counted


@pytest.mark.timeout(90)
def test_a_long_poll_through_nginx_is_answered_when_the_table_moves(behind_nginx):
    https = behind_nginx["https"]
    with client_from("127.0.0.6", behind_nginx["trust"]) as client:
        table_id = client.post(f"{https}/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4}
                               ).json()["table_id"]
        tokens = [client.post(f"{https}/api/tables/{table_id}/seats/{seat}/join").json()["token"]
                  for seat in range(2)]
        polled: list[tuple[int, float]] = []

        def poll() -> None:
            answer = client.get(f"{https}/api/tables/{table_id}/seats/0", params={"after": 0, "wait": 25},
                                headers={"Authorization": f"Bearer {tokens[0]}"})
            polled.append((answer.json()["version"], time.monotonic()))

        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(1.0)  # parked in gunicorn, through nginx
        assert not polled
        auth = {"Authorization": f"Bearer {tokens[1]}"}
        legal = client.get(f"{https}/api/tables/{table_id}/seats/1", headers=auth).json()["view"]["legal"]
        moved = time.monotonic()
        assert client.post(f"{https}/api/tables/{table_id}/seats/1/moves", headers=auth,
                           json={"move": legal[:3], "expected_version": 0}).status_code == 200
        poller.join(timeout=30)
    assert polled and polled[0][0] == 1
    assert polled[0][1] - moved < 10  # woken by the move, not by the 25 s wait running out


def test_the_shipped_file_documents_every_placeholder_it_has():
    text = SHIPPED.read_text()
    documented = {name for line in text.splitlines() if line.startswith("#")
                  for name in re.findall(r"@([A-Z0-9_]+)@", line)}
    used = {name for line in text.splitlines() if not line.lstrip().startswith("#")
            for name in re.findall(r"@([A-Z0-9_]+)@", line)}
    assert documented == used == set(PLACEHOLDERS)


@pytest.mark.timeout(90)
def test_nginx_redirects_plain_http_and_refuses_oversized_bodies(behind_nginx):
    with httpx.Client(timeout=10) as plain:
        answer = plain.get(f"{behind_nginx['http']}/api/games")
    assert answer.status_code == 301
    assert answer.headers["Location"] == "https://127.0.0.1/api/games"
    with client_from("127.0.0.5", behind_nginx["trust"]) as client:
        assert client.get(f"{behind_nginx['https']}/api/games").status_code == 200
        too_big = client.post(f"{behind_nginx['https']}/api/tables", json={**TABLE, "pad": "x" * 17_000})
    assert too_big.status_code == 413
    assert too_big.headers["Content-Type"] == "application/problem+json"
    assert too_big.json() == {"type": "about:blank", "title": "Request Entity Too Large", "status": 413,
                              "detail": "the request body is over 16 KiB"}


@pytest.mark.timeout(60)
def test_nginx_answers_a_problem_when_the_api_does_not_answer(tmp_path):
    with nginx_in_front_of(f"127.0.0.1:{free_port()}", tmp_path) as proxy, \
            client_from("127.0.0.5", proxy["trust"]) as client:
        answer = client.get(f"{proxy['https']}/api/games")
    assert answer.status_code == 503
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.headers["Retry-After"] == "1"
    assert answer.json()["status"] == 503


@pytest.mark.parametrize("ci", ["true", "1"])
def test_without_nginx_the_tests_fail_under_ci(ci):
    with pytest.raises(pytest.fail.Exception, match="CI=true but no nginx here"):
        find_nginx(which=lambda name: None, env={"CI": ci})


@pytest.mark.parametrize("env", [{}, {"CI": "false"}])
def test_without_nginx_the_tests_skip_elsewhere(env):
    with pytest.raises(pytest.skip.Exception, match="no nginx here"):
        find_nginx(which=lambda name: None, env=env)
