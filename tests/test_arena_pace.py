"""The arena's steady pace (`tools/arena_pace.py`): how tables are drawn and labelled, and how a quantile is
read from the workers' histogram, without running a worker."""

from __future__ import annotations

from tools.arena_pace import field_tables, quantile, uniform_tables


def test_a_table_with_a_bad_bot_is_labelled_mixed_and_the_others_near() -> None:
    field = {"near": [f"http://near/{i}" for i in range(28)], "late": ["http://late/0", "http://late/1"]}
    tables = field_tables(field, 300, lambda group: group == "late", seed=3)
    assert len(tables) == 300 and all(len(t.bots) == 4 and len(set(t.bots)) == 4 for t in tables)
    for table in tables:
        has_bad = any(bot.startswith("late") for bot, _url in table.bots)
        assert table.ladder == ("mixed" if has_bad else "near")
    labels = {t.ladder for t in tables}
    assert labels == {"near", "mixed"}  # 300 draws of 4 from 30: both kinds
    assert field_tables(field, 300, lambda group: group == "late", seed=3) == tables  # seeded: the same draw
    assert [t.ladder for t in field_tables({"near": field["near"]}, 50, lambda group: False)] == ["near"] * 50


def test_uniform_tables_seat_the_same_four_bots() -> None:
    tables = uniform_tables(["http://a", "http://b", "http://c", "http://d"], 3)
    assert [t.bots for t in tables] == [[("bot0", "http://a"), ("bot1", "http://b"), ("bot2", "http://c"),
                                         ("bot3", "http://d")]] * 3


def test_quantile_interpolates_within_a_bucket_as_prometheus_does() -> None:
    buckets = {0.001: 90.0, 0.01: 99.0, 0.1: 100.0, float("inf"): 100.0}
    assert quantile(buckets, 0.5) == round(0.001 * 50 / 90, 6)
    assert quantile(buckets, 0.99) == 0.01
    assert quantile(buckets, 0.995) == round(0.01 + 0.09 * 0.5, 6)
    assert quantile({0.001: 0.0, float("inf"): 0.0}, 0.99) is None  # nothing observed
    assert quantile({0.001: 0.0, float("inf"): 10.0}, 0.99) == 0.001  # all beyond the last finite bound
