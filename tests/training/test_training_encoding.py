"""The one encoder: its layout is the documented one, every part holds what the view shows, a view read back
from JSON (what the arena sends) encodes exactly as the engine's own view, and the environments' encoding
kept card by card from the game's state (GameEncoder) is the view's at every step."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

import engine
from engine.bots import choose_random
from tests.training.cases import CASES, IDS
from training.encoding import PHASES, action_mask, bounds, encode, layout, legal_actions
from training.table import Table

DOC = Path(__file__).resolve().parents[2] / "docs" / "training.md"


def test_the_layout_is_contiguous_and_the_doc_gives_it() -> None:
    lay = layout(4)
    at = 0
    for start, length in lay.parts.values():
        assert start == at
        at += length
    assert at == lay.size == 20 * 52 + 20 + 5 * 4  # 20 card parts, 20 fixed numbers, 5 one per seat
    text = DOC.read_text()
    documented = re.findall(r"^\| `([\w/{}]+)` \| (\d+|n) \|", text, re.M)
    names = [re.sub(r"/\d+$", "/{r}", name) for name in lay.parts]
    unique = list(dict.fromkeys(names))
    assert [name for name, _ in documented] == unique
    for players in (3, 5, 6):
        parts = layout(players).parts
        for name, length in documented:
            assert parts[name.replace("{r}", "0")][1] == (players if length == "n" else int(length)), name
        per_seat = sum(name.endswith("/{r}") for name, _ in documented)
        assert per_seat * (players - 1) + len(documented) == len(parts)


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_a_view_from_json_encodes_as_the_engines_view_in_every_phase(game: str, players: int) -> None:
    g = engine.new_game(game, players, seed=21)
    rng = random.Random(21)
    low, high = bounds(players)
    phases = set()
    while not g.over and g.round_no < 2:
        for seat in g.to_act():
            for s in range(players):
                view = g.view(s)
                obs = encode(view)
                assert np.array_equal(obs, encode(json.loads(json.dumps(view))))
                assert np.all(obs >= low) and np.all(obs <= high)
                phases.add(view["phase"])
            g.apply(seat, choose_random(rng, g.decision(seat)))
    assert {"play"} <= phases <= set(PHASES)


def test_each_part_holds_what_the_view_shows() -> None:
    g = engine.new_game("sloppy-seconds", 4, seed=5)
    rng = random.Random(5)
    while g.extra.trump is None or len(g.tricks) < 4 or len(g.trick) != 2:
        for seat in g.to_act():
            g.apply(seat, choose_random(rng, g.decision(seat)))
    seat = g.to_act()[0]
    view = g.view(seat)
    obs = encode(view)
    lay = layout(4)

    def cards(name: str) -> set[str]:
        return {engine.Card(int(c)).code for c in np.flatnonzero(obs[lay.slice(name)])}

    assert cards("hand") == set(view["hand"])
    for r in range(4):
        s = (seat + r) % 4
        assert cards(f"trick/{r}") == {e["card"] for e in view["trick"]["cards"] if e["seat"] == s}
        assert cards(f"won/{r}") == {c for t in view["tricks"] if t["winner"] == s for c in t["cards"]}
        assert cards(f"played/{r}") == {c for t in view["tricks"] for i, c in enumerate(t["cards"])
                                        if (t["leader"] + i) % 4 == s}
    assert obs[lay.slice("leader")].argmax() == (view["trick"]["leader"] - seat) % 4
    assert obs[lay.slice("trump")].argmax() == "CDHS".index(view["trump"])
    assert obs[lay.slice("tricks_done")][0] == pytest.approx(len(view["tricks"]) / 13)
    assert list(obs[lay.slice("seat")]) == [float(s == seat) for s in range(4)]
    assert np.flatnonzero(action_mask(view)).tolist() == sorted(engine.Card.parse(c) for c in view["legal"])


def same_as_the_views(table: Table, seats: list[int], where: str) -> None:
    for seat in seats:
        view, picked = table.game.view(seat), table.picks_of(seat)
        assert table.observe(seat).tobytes() == encode(view, picked).tobytes(), f"{where}, seat {seat}"
        assert table.mask(seat).tobytes() == action_mask(view, picked).tobytes(), f"{where}, seat {seat}"
        assert table.legal(seat) == legal_actions(view, picked), f"{where}, seat {seat}"


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_the_kept_encoding_is_the_views_at_every_step_of_whole_games(game: str, players: int) -> None:
    """Whole games with the game's own options, random legal actions: every seat after every step; then one
    seat now and then (a catch-up over several cards, tricks, phases or rounds), and a table copied
    mid-game (what OpenSpiel's clone does) going on from the copy."""
    for seed in range(3):
        table = Table.new(game, players, None, seed)
        rng = random.Random(seed)
        sparse = seed > 0
        step = 0
        while True:
            where = f"seed {seed}, step {step}, round {table.game.round_no}, {table.game.phase}"
            if not sparse:
                same_as_the_views(table, list(range(players)), where)
            elif rng.random() < 0.2:
                same_as_the_views(table, [rng.randrange(players)], where)
            if table.game.over:
                same_as_the_views(table, list(range(players)), where)
                break
            if seed == 2 and step == 90:
                table = copy.deepcopy(table)
            legal = table.legal(table.seat())
            table.act(legal[int(rng.random() * len(legal))])
            step += 1
