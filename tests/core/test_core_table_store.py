"""The Redis table store: atomic version-checked moves, hidden seed, rebuild from the log."""

from __future__ import annotations

import hashlib
import threading

import pytest

import engine
import engine.bots
from core import keys
from core.errors import MoveConflict, StaleVersion, TableOver, TooManyMovePosts, UnknownDealing
from core.tables import cache as gamecache
from core.tables import store
from core.tables.store import SeatKind, SeatSpec, TableStatus, TableStore
from engine import deals

OPEN4 = [SeatSpec(SeatKind.OPEN)] * 4


@pytest.fixture
def tables(redis_conn, key_prefix) -> TableStore:
    return TableStore(redis_conn, key_prefix)


def first_pass(tables: TableStore, table_id: str, seat: int) -> list[str]:
    return tables.seat_view(table_id, seat).view["legal"][:3]


def test_create_and_load_round_trip(tables):
    record = tables.create_table("spot-hearts", 4, {"target": 100}, OPEN4, seed=42)
    loaded = tables.load_table(record.table_id)
    assert loaded.game == "spot-hearts" and loaded.options == {"target": 100}
    assert loaded.status == TableStatus.PLAYING and loaded.version == 0 and loaded.to_act == [0, 1, 2, 3]
    assert loaded.seed == 42
    assert loaded.commitment == hashlib.sha256(f"{loaded.nonce}:42".encode()).hexdigest()


def test_unfinished_tables_expire_when_idle(tables, redis_conn, key_prefix):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=23)
    table_key = keys.table(key_prefix, record.table_id)
    assert 0 < redis_conn.ttl(table_key) <= store.IDLE_TABLE_TTL
    redis_conn.expire(table_key, 60)
    tables.apply_move(record.table_id, 0, first_pass(tables, record.table_id, 0), 0)
    for key in (keys.table, keys.table_moves, keys.table_views):  # each move restarts the idle clock
        ttl = redis_conn.ttl(key(key_prefix, record.table_id))
        assert store.IDLE_TABLE_TTL - 60 < ttl <= store.IDLE_TABLE_TTL


def test_live_tables_get_distinct_secret_seeds(tables):
    seeds = {tables.create_table("spot-hearts", 4, {}, OPEN4).seed for _ in range(5)}
    assert len(seeds) == 5
    assert all(0 <= seed < 2**53 for seed in seeds)  # exact as a JSON number in JavaScript / jq clients


def test_twenty_threads_same_move_exactly_one_applied(tables, redis_conn, key_prefix):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=3)
    move = first_pass(tables, record.table_id, 0)
    barrier = threading.Barrier(20)
    outcomes: list[str] = []
    lock = threading.Lock()

    def post() -> None:
        # Each thread has its own store object, as separate requests would.
        mine = TableStore(redis_conn, key_prefix)
        barrier.wait()
        try:
            mine.apply_move(record.table_id, 0, move, expected_version=0)
            outcome = "ok"
        except MoveConflict as conflict:
            outcome = type(conflict).__name__
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=post) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 1
    assert len(outcomes) == 20  # the 19 others lost with a MoveConflict (anything else is not counted)
    assert tables.load_table(record.table_id).version == 1
    assert len(tables.moves(record.table_id)) == 1


def test_lua_commit_refuses_a_stale_base_version(tables, redis_conn, key_prefix):
    """Two processes computing on the same version: only the first commit lands (no half-write)."""
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=5)
    game_a = engine.new_game("spot-hearts", 4, record.options, seed=5)
    game_b = engine.new_game("spot-hearts", 4, record.options, seed=5)
    game_a.apply(0, game_a.legal_moves(0)[:3])
    game_b.apply(1, game_b.legal_moves(1)[:3])
    assert tables._commit_move(record, game_a, 0) is not None
    views_before = redis_conn.hgetall(keys.table_views(key_prefix, record.table_id))
    assert tables._commit_move(record, game_b, 1) is None
    assert redis_conn.hgetall(keys.table_views(key_prefix, record.table_id)) == views_before
    assert tables.moves(record.table_id) == [{"seat": 0, "move": game_a.moves[0]["move"]}]


def test_simultaneous_pass_other_seats_do_not_make_you_stale(tables):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=9)
    passes = {seat: first_pass(tables, record.table_id, seat) for seat in range(4)}
    # Everybody read version 0; they submit one after the other with expected_version 0.
    for seat in range(4):
        result = tables.apply_move(record.table_id, seat, passes[seat], expected_version=0)
    assert result.version == 4
    loaded = tables.load_table(record.table_id)
    assert len(loaded.to_act) == 1  # play phase: the holder of the 2 of clubs leads
    leader = loaded.to_act[0]
    with pytest.raises(StaleVersion) as stale:
        tables.apply_move(record.table_id, leader, "2C", expected_version=0)
    assert stale.value.fields() == {"version": 4}
    tables.apply_move(record.table_id, leader, "2C", expected_version=4)


def test_illegal_move_changes_nothing(tables, redis_conn, key_prefix):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=11)
    table_key = keys.table(key_prefix, record.table_id)
    views_key = keys.table_views(key_prefix, record.table_id)
    before = (redis_conn.hgetall(table_key), redis_conn.hgetall(views_key))
    hand = tables.seat_view(record.table_id, 0).view["hand"]
    not_mine = next(code for code in (f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA") if code not in hand)
    with pytest.raises(engine.IllegalMoveError) as illegal:
        tables.apply_move(record.table_id, 0, [hand[0], hand[1], not_mine], expected_version=0)
    assert sorted(illegal.value.legal) == sorted(hand)
    with pytest.raises(engine.MalformedMoveError):
        tables.apply_move(record.table_id, 0, "QS", expected_version=0)  # a pass needs three cards
    after = (redis_conn.hgetall(table_key), redis_conn.hgetall(views_key))
    assert after == before


def test_a_fresh_process_rebuilds_the_game_from_the_log(tables, monkeypatch):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=13)
    for seat in range(4):
        tables.apply_move(record.table_id, seat, first_pass(tables, record.table_id, seat), 0)
    # As if another process served the next move:
    monkeypatch.setattr(gamecache, "games", gamecache.GameCache())
    leader = tables.load_table(record.table_id).to_act[0]
    result = tables.apply_move(record.table_id, leader, "2C", expected_version=4)
    replayed = engine.new_game("spot-hearts", 4, record.options, seed=13)
    for entry in tables.moves(record.table_id):
        replayed.apply(entry["seat"], entry["move"])
    assert result.version == replayed.version == 5
    assert tables.seat_view(record.table_id, 2).view == replayed.view(2)


@pytest.mark.parametrize("dealing", ["1", "3", None])
def test_a_table_of_another_dealing_version_is_refused_clearly(tables, redis_conn, key_prefix, monkeypatch,
                                                              dealing):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=13)
    table_key = keys.table(key_prefix, record.table_id)
    assert redis_conn.hget(table_key, "dealing") in (b"2", "2")
    if dealing is None:
        redis_conn.hdel(table_key, "dealing")
    else:
        redis_conn.hset(table_key, "dealing", dealing)
    monkeypatch.setattr(gamecache, "games", gamecache.GameCache())
    with pytest.raises(UnknownDealing) as refused:
        tables.load_table(record.table_id)
    assert "this service deals version 2 only" in str(refused.value)
    with pytest.raises(UnknownDealing):
        tables.apply_move(record.table_id, 0, first_pass(tables, record.table_id, 0), 0)


def test_a_cached_game_behind_redis_catches_up_from_the_log(tables):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=17)
    tables.apply_move(record.table_id, 0, first_pass(tables, record.table_id, 0), 0)  # cached at version 1
    # Another process commits seat 1's pass (version 2) without touching this process's cache.
    elsewhere = engine.new_game("spot-hearts", 4, record.options, seed=17)
    for entry in tables.moves(record.table_id):
        elsewhere.apply(entry["seat"], entry["move"])
    elsewhere.apply(1, elsewhere.legal_moves(1)[:3])
    assert tables._commit_move(tables.load_table(record.table_id), elsewhere, 1)
    tables.apply_move(record.table_id, 2, first_pass(tables, record.table_id, 2), 2)
    elsewhere.apply(2, tables.moves(record.table_id)[2]["move"])
    assert tables.seat_view(record.table_id, 3).view == elsewhere.view(3)
    assert tables.load_table(record.table_id).version == elsewhere.version == 3


def test_optimistic_move_on_a_cached_state_falls_back_when_another_process_moved(tables):
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=19)
    tables.apply_move(record.table_id, 0, first_pass(tables, record.table_id, 0), 0)  # cached here at v1
    elsewhere = engine.new_game("spot-hearts", 4, record.options, seed=19)
    for entry in tables.moves(record.table_id):
        elsewhere.apply(entry["seat"], entry["move"])
    elsewhere.apply(1, elsewhere.legal_moves(1)[:3])
    assert tables._commit_move(tables.load_table(record.table_id), elsewhere, 1) is not None  # now v2
    # Seat 2 answers version 1, which is still valid for its decision: the cached game (v1) loses the
    # commit race, and the move is redone on the real state.
    seat2_pass = first_pass(tables, record.table_id, 2)
    result = tables.apply_move(record.table_id, 2, seat2_pass, expected_version=1)
    elsewhere.apply(2, seat2_pass)
    assert result.version == elsewhere.version == 3
    assert [m["seat"] for m in tables.moves(record.table_id)] == [0, 1, 2]
    assert tables.seat_view(record.table_id, 3).view == elsewhere.view(3)


def test_finished_game_publishes_record_and_reveals_seed(tables, redis_conn, key_prefix):
    record = tables.create_table("spot-hearts", 4, {"target": 1}, OPEN4, seed=21)
    bot = engine.bots.make_bot("random", 1)
    while True:
        loaded = tables.load_table(record.table_id)
        if loaded.over:
            break
        for seat in loaded.to_act:
            snapshot = tables.seat_view(record.table_id, seat)
            tables.apply_move(record.table_id, seat, bot.choose(snapshot.view), snapshot.version)
    replay = tables.replay_record(record.table_id)
    assert replay["seed"] == 21 and replay["dealing"] == deals.CURRENT_VERSION
    assert (replay["seed_nonce"], replay["seed_commitment"]) == (record.nonce, record.commitment)
    assert deals.verify_record(replay, draws_dealer=True) == []
    for key in (keys.table, keys.table_moves, keys.table_views):  # kept for a while, then gone
        assert 0 < redis_conn.ttl(key(key_prefix, record.table_id)) <= store.FINISHED_TABLE_TTL
    assert engine.load(replay).over
    with pytest.raises(TableOver) as over:
        tables.apply_move(record.table_id, 0, "2C", loaded.version)
    assert over.value.fields() == {"legal": []}


def test_the_seat_limit_counted_in_the_commit_refuses_the_eleventh_post_and_commits_nothing(
        tables, redis_conn, key_prefix):
    """The per-seat move limit rides in the move's first Lua call: the record read when the move takes the
    authoritative path, the commit itself on the common path (this process made the table's last commit).
    Ten refused posts at one version, then a legal one that goes straight to the commit: refused, and the
    table does not move; another token on the same seat has its own budget."""
    record = tables.create_table("spot-hearts", 4, {}, OPEN4, seed=11)
    table_id = record.table_id
    tokens = [tables.join(table_id, seat) for seat in range(4)]
    limit = store.PostLimit(limit=10, window_s=60)
    tables.apply_move(table_id, 0, first_pass(tables, table_id, 0), 0, authenticate=True, token=tokens[0],
                      post_limit=limit)  # version 1, committed by this process
    syncs = []
    real_run = tables._lane.run

    def counting_run(script, keys, args, *wait_ms):
        if script is tables._sync_script:
            syncs.append(keys)
        return real_run(script, keys, args, *wait_ms)
    tables._lane.run = counting_run
    for _ in range(10):
        with pytest.raises(StaleVersion):
            tables.apply_move(table_id, 1, first_pass(tables, table_id, 1), 5, authenticate=True,
                              token=tokens[1], post_limit=limit)
    assert len(syncs) == 10  # each refusal decided on a fresh read, which counted it
    with pytest.raises(TooManyMovePosts) as refused:
        tables.apply_move(table_id, 1, first_pass(tables, table_id, 1), 1, authenticate=True,
                          token=tokens[1], post_limit=limit)
    assert len(syncs) == 10  # the eleventh went straight to the commit, which counted and refused it
    assert 0 < refused.value.retry_after <= 60 and refused.value.limit == 10
    assert tables.load_table(table_id).version == 1
    assert redis_conn.llen(keys.table_moves(key_prefix, table_id)) == 1
    # A post without the limit (the arena's own moves) and a post by another seat still go through.
    assert tables.apply_move(table_id, 2, first_pass(tables, table_id, 2), 1, authenticate=True,
                             token=tokens[2], post_limit=limit).version == 2
    outcomes = []  # seat 1's count is per version: the table moved on, so a fresh budget of ten
    for _ in range(11):
        try:
            tables.apply_move(table_id, 1, first_pass(tables, table_id, 1), 7, authenticate=True,
                              token=tokens[1], post_limit=limit)
        except (StaleVersion, TooManyMovePosts) as error:
            outcomes.append(type(error))
    assert outcomes == [StaleVersion] * 10 + [TooManyMovePosts]
    assert tables.apply_move(table_id, 1, first_pass(tables, table_id, 1), 2, authenticate=True,
                             token=tokens[1]).version == 3


def test_a_checked_out_game_goes_back_only_at_a_version_redis_holds():
    key = ("test:", "t-cache")
    game = engine.new_game("spot-hearts", 4, seed=3)
    gamecache.games.put(key, 0, game)
    with gamecache.checked_out(key) as out:
        assert out.game is game and out.version == 0 and gamecache.games.take(key) is None  # out while used
    assert gamecache.games.take(key) == (0, game, None)  # untouched: back at its version
    gamecache.games.put(key, 0, game)
    with gamecache.checked_out(key) as out:
        game.apply(0, game.legal_moves(0)[:3])  # moved, never committed: ahead of Redis
    assert gamecache.games.take(key) is None
    with pytest.raises(RuntimeError), gamecache.checked_out(key) as out:
        out.hold(game, game.version)
        game.apply(1, game.legal_moves(1)[:3])
        raise RuntimeError("a failure after the move")
    assert gamecache.games.take(key) is None
    with gamecache.checked_out(key) as out:
        out.hold(game, game.version)  # e.g. just committed at that version
    assert gamecache.games.take(key) == (2, game, None)
