"""Secrets: hidden information over every endpoint, tokens hashed at rest, seed commitment.

The property test plays whole short games through the HTTP API (Flask test client: the full WSGI stack,
no socket) and, at every version, reads every endpoint that can mention a table as every party (each seat
with its own token, a spectator, a seat with a foreign token). The auditor mirrors the game with the engine
from the seed it reads out of Redis (the test is the only party allowed to), so it knows exactly which cards
each party must not see at that moment.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import SHORT_GAMES, cards_in_body, random_move, secret_cards

import engine
from core import keys
from core.tokens import hash_token
from engine import deals
from tests.api.api_helpers import bearer


class Auditor:
    """Plays one table through the API and checks every answer against the engine mirror."""

    def __init__(
        self, client: Any, redis_conn: Any, prefix: str, game: str, players: int, options: dict[str, Any]
    ) -> None:
        self.client = client
        answer = client.post(
            "/api/tables", json={"game": game, "seats": ["open"] * players, "options": options}
        )
        assert answer.status_code == 201, answer.get_json()
        self.table = answer.get_json()
        self.table_id = self.table["table_id"]
        raw = redis_conn.hgetall(keys.table(prefix, self.table_id))
        self.seed, self.nonce = raw["seed"], raw["nonce"]
        self.mirror = engine.new_game(
            game, players=players, options=self.table["options"], seed=int(self.seed)
        )
        self.tokens: list[str] = []
        self.checked = 0
        for seat in range(players):
            joined = client.post(f"/api/tables/{self.table_id}/seats/{seat}/join")
            self.check(joined, seat, "join")
            self.tokens.append(joined.get_json()["token"])

    def check(self, response: Any, seat: int | None, what: str) -> None:
        """No seed, no nonce, no card this party may not know, in this answer (before the end)."""
        if self.mirror.over:
            return
        text = response.get_data(as_text=True)
        assert self.seed not in text and self.nonce not in text, f"{what}: seed revealed before the end"
        leaked = cards_in_body(response.headers.get("Content-Type", ""), text) & secret_cards(
            self.mirror, seat
        )
        assert not leaked, f"{what} (seat {seat}) at version {self.mirror.version} shows {sorted(leaked)}"
        self.checked += 1

    def sweep(self) -> None:
        """Every table-related endpoint, as every party."""
        tid = self.table_id
        for path in (
            f"/api/tables/{tid}",
            "/api/tables",
            f"/api/tables/{tid}/replay",
            f"/tables/{tid}",
            f"/tables/{tid}/replay",
            "/",
        ):
            self.check(self.client.get(path), None, f"GET {path}")
        for seat, token in enumerate(self.tokens):
            state = f"/api/tables/{tid}/seats/{seat}"
            self.check(self.client.get(state, headers=bearer(token)), seat, "own seat state")
            other = (seat + 1) % len(self.tokens)
            foreign = self.client.get(f"/api/tables/{tid}/seats/{other}", headers=bearer(token))
            assert foreign.status_code == 403
            self.check(foreign, seat, "another seat's state with my token")
            self.check(self.client.get(state), None, "seat state without a token")

    def play(self, rng: random.Random, sweep_every: int) -> None:
        while not self.mirror.over:
            if self.mirror.version % sweep_every == 0:
                self.sweep()
            seat = rng.choice(self.mirror.to_act())
            token = self.tokens[seat]
            path = f"/api/tables/{self.table_id}/seats/{seat}/moves"
            version = self.mirror.version
            if rng.random() < 0.2:  # a refused move: its problem lists the legal moves, which are ours
                refused = self.client.post(
                    path, json={"move": "ZZ", "expected_version": version}, headers=bearer(token)
                )
                assert refused.status_code == 400
                self.check(refused, seat, "malformed move problem")
            move = random_move(self.mirror.decision(seat), rng)
            answer = self.client.post(
                path, json={"move": move, "expected_version": version}, headers=bearer(token)
            )
            assert answer.status_code == 200, answer.get_json()
            self.mirror.apply(seat, move)
            self.check(answer, seat, "move answer")


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(game_index=st.integers(0, len(SHORT_GAMES) - 1), play_seed=st.integers(0, 2**32))
def test_no_answer_before_the_end_reveals_the_seed_or_a_card_the_reader_may_not_know(
    make_app, redis_url, key_prefix, game_index, play_seed
):
    import redis

    app = make_app(KEY_PREFIX=f"{key_prefix}{play_seed}:{game_index}:")
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    game, players, options = SHORT_GAMES[game_index]
    auditor = Auditor(app.test_client(), conn, app.config["KEY_PREFIX"], game, players, options)
    auditor.play(random.Random(play_seed), sweep_every=7)
    assert auditor.checked > 50
    # Once over, the seed is revealed and the replay published (and it is the mirror's game).
    final = app.test_client().get(f"/api/tables/{auditor.table_id}").get_json()
    assert final["seed"] == int(auditor.seed) and final["status"] == "over"
    replay = app.test_client().get(f"/api/tables/{auditor.table_id}/replay").get_json()
    assert replay["moves"] == auditor.mirror.record()["moves"]
    for key in conn.scan_iter(match=f"{app.config['KEY_PREFIX']}*"):
        conn.delete(key)
    conn.close()


def test_the_auditor_would_catch_a_leak(make_app, redis_conn, key_prefix):
    """The hidden-card check is not vacuous: another seat's hand, shown to a seat, is flagged."""
    auditor = Auditor(make_app().test_client(), redis_conn, key_prefix, "spot-hearts", 4, {"target": 1})

    class Leaky:
        headers = {"Content-Type": "application/json"}

        def get_data(self, as_text: bool) -> str:
            return json.dumps({"hand": [engine.cards.CODES[c] for c in auditor.mirror.hands[1]]})

    with pytest.raises(AssertionError, match="shows"):
        auditor.check(Leaky(), 0, "leaky")
    # Undealt cards are covered by secret_cards too, but every game here deals its whole (rule-reduced)
    # deck, so the only hidden cards are other hands: say so, so that a future kitty is not missed silently.
    for game, players, options in SHORT_GAMES:
        mirror = engine.new_game(game, players=players, options=options, seed=1)
        assert sum(len(hand) for hand in mirror.dealt[-1]["hands"]) == len(mirror.deck), game


def test_a_seat_token_can_neither_read_nor_act_for_another_seat_or_table(client):
    tables = []
    for _ in range(2):
        table = client.post("/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4}).get_json()
        tokens = [
            client.post(f"/api/tables/{table['table_id']}/seats/{s}/join").get_json()["token"]
            for s in range(4)
        ]
        tables.append((table["table_id"], tokens))
    (tid, tokens), (other_tid, other_tokens) = tables
    owner = client.post("/api/bots", json={"name": "owner-bot", "games": ["spot-hearts"]}).get_json()
    own_view = client.get(f"/api/tables/{tid}/seats/1", headers=bearer(tokens[1])).get_json()
    their_move = own_view["view"]["decision"]["legal"][:3]
    wrong_credentials = [
        bearer(tokens[0]),
        bearer(other_tokens[1]),
        bearer(owner["owner_token"]),
        bearer(tokens[1] + "x"),
        bearer(tokens[1][:-1]),
        {"Authorization": tokens[1]},
        {"Authorization": f"Basic {tokens[1]}"},
        {},
    ]
    for headers in wrong_credentials:
        read = client.get(f"/api/tables/{tid}/seats/1", headers=headers)
        assert read.status_code in (401, 403), headers
        assert read.headers["Content-Type"].startswith("application/problem+json")
        assert not set(their_move) & cards_in_body("application/json", read.get_data(as_text=True))
        act = client.post(
            f"/api/tables/{tid}/seats/1/moves",
            headers=headers,
            json={"move": their_move, "expected_version": 0},
        )
        assert act.status_code in (401, 403), headers
    # Nothing happened: seat 1 still has to pass, and the table is at version 0.
    assert client.get(f"/api/tables/{tid}").get_json()["version"] == 0
    assert client.get(f"/api/tables/{tid}/seats/1", headers=bearer(tokens[1])).get_json()["your_turn"]


def _every_value(conn: Any, prefix: str) -> str:
    """Every key name and value under `prefix`, as one string (strings, hashes, lists, sets, zsets)."""
    parts = []
    for key in conn.scan_iter(match=f"{prefix}*"):
        kind = conn.type(key)
        parts.append(key)
        if kind == "string":
            parts.append(conn.get(key))
        elif kind == "hash":
            parts.extend(f"{k}={v}" for k, v in conn.hgetall(key).items())
        elif kind == "list":
            parts.extend(conn.lrange(key, 0, -1))
        elif kind == "set":
            parts.extend(conn.smembers(key))
        elif kind == "zset":
            parts.extend(conn.zrange(key, 0, -1))
    return "\n".join(parts)


def test_seat_and_owner_tokens_are_stored_only_as_hashes(client, redis_conn, key_prefix):
    table = client.post("/api/tables", json={"game": "sore-spot", "seats": ["open"] * 3}).get_json()
    seat_tokens = [
        client.post(f"/api/tables/{table['table_id']}/seats/{s}/join").get_json()["token"] for s in range(3)
    ]
    bot = client.post("/api/bots", json={"name": "hashed-bot", "games": ["sore-spot"]}).get_json()
    stored = _every_value(redis_conn, key_prefix)
    for token in [*seat_tokens, bot["owner_token"]]:
        assert len(token) >= 40
        assert token not in stored  # never at rest in clear
        assert hash_token(token) in stored  # only its sha256
    table_hash = redis_conn.hgetall(keys.table(key_prefix, table["table_id"]))
    assert [table_hash[f"token:{s}"] for s in range(3)] == [
        hashlib.sha256(t.encode()).hexdigest() for t in seat_tokens
    ]
    # And no answer ever shows a token hash back.
    public = client.get(f"/api/tables/{table['table_id']}").get_data(as_text=True)
    assert not any(hash_token(t) in public for t in seat_tokens)


def test_live_deal_uses_secrets_commitment_verifies_and_the_revealed_seed_redeals(client, monkeypatch):
    import core.tables.store

    drawn: list[int] = []
    real_randbits = core.tables.store.secrets.randbits

    def recording_randbits(bits: int) -> int:
        value = real_randbits(bits)
        drawn.append(value)
        return value

    monkeypatch.setattr(core.tables.store.secrets, "randbits", recording_randbits)
    created = client.post(
        "/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4, "options": {"target": 1}}
    ).get_json()
    monkeypatch.undo()
    assert created["seed"] is None and created["seed_nonce"] is None
    commitment = created["seed_commitment"]
    assert len(commitment) == 64
    tid = created["table_id"]
    tokens = [client.post(f"/api/tables/{tid}/seats/{s}/join").get_json()["token"] for s in range(4)]
    rng = random.Random(7)
    while True:
        states = [
            client.get(f"/api/tables/{tid}/seats/{s}", headers=bearer(tokens[s])).get_json() for s in range(4)
        ]
        if states[0]["status"] == "over":
            break
        for seat, state in enumerate(states):
            if state["your_turn"]:
                move = random_move(state["view"]["decision"], rng)
                answer = client.post(
                    f"/api/tables/{tid}/seats/{seat}/moves",
                    headers=bearer(tokens[seat]),
                    json={"move": move, "expected_version": state["version"]},
                )
                assert answer.status_code == 200
                break
    final = client.get(f"/api/tables/{tid}").get_json()
    seed, nonce = final["seed"], final["seed_nonce"]
    assert final["seed_commitment"] == commitment
    # The commitment published at the start opens to the revealed seed ...
    assert hashlib.sha256(f"{nonce}:{seed}".encode()).hexdigest() == commitment
    # ... the seed came from the `secrets` module ...
    assert drawn == [seed]
    # ... and anyone can re-deal every round from it and replay the published moves.
    replay = client.get(f"/api/tables/{tid}/replay").get_json()
    redealt = engine.load(
        {
            "game": "spot-hearts",
            "players": 4,
            "options": final["options"],
            "seed": seed,
            "dealing": replay["dealing"],
            "moves": replay["moves"],
        }
    )
    assert redealt.over and redealt.record()["deals"] == replay["deals"]
    # The replay record alone proves its deals (docs/deals.md): current dealing, commitment opened.
    assert replay["dealing"] == deals.CURRENT_VERSION
    assert (replay["seed_commitment"], replay["seed_nonce"]) == (commitment, nonce)
    assert deals.verify_record(replay, draws_dealer=True) == []
    assert redealt.totals == engine.load(replay).totals
