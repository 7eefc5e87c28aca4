"""Reserved house names: skeletons fold look-alikes; house names and their numbered families are reserved."""

from __future__ import annotations

import doctest

import pytest

import core.arena.names
from core.arena.names import HOUSE_NAMES, is_reserved, resembles, skeleton

RESERVED = [
    ("heuristic", "heuristic"),
    ("HEURISTIC", "heuristic"),
    ("HeuristiC", "heuristic"),
    ("heur1stic", "heuristic"),
    ("h\u0435uristic", "heuristic"),  # Cyrillic е
    ("\u0455earch-5", "search-5"),  # Cyrillic ѕ
    ("rand\u03bfm", "random"),  # Greek ο
    ("\uff48euristic", "heuristic"),  # fullwidth h: NFKC
    ("search-5", "search-5"),
    ("Search_5", "search-5"),
    ("search.5", "search-5"),
    ("search-1O", "search-10"),  # letter O for the zero
    ("search-77", "search-<n>"),
    ("\u0455earch-123", "search-<n>"),
    ("search", "search"),
    ("eps-0.2", "eps-0.2"),
    ("EPS_0.25", "eps-<n>"),
    ("eps-1", "eps-<n>"),
    ("random", "random"),
    ("rand0m", "random"),
    ("house", "house"),
    ("house:x", "house:"),
    ("House-bots", "house:"),
    ("h0use_x", "house:"),
]

# Ordinary names stay free, also those with a house name inside: only whole names pass for one.
FREE = ["alice", "deep-trick", "my-search-bot", "heuristic-killer", "searchbot", "searches", "household",
        "epsilon", "randomizer", "bob", "x2"]


@pytest.mark.parametrize(("name", "house"), RESERVED)
def test_house_names_and_look_alikes_are_reserved(name, house):
    assert resembles(name) == house
    assert is_reserved(name)


@pytest.mark.parametrize("name", FREE)
def test_ordinary_names_are_free(name):
    assert resembles(name) is None
    assert not is_reserved(name)


def test_skeleton_folds_case_separators_and_look_alikes():
    assert skeleton("Search_5") == skeleton("search-5") == skeleton("\u0455EARCH 5")
    assert skeleton("heur1stic") == skeleton("heuristic") == skeleton("HEUR\u0406STIC")  # Cyrillic І
    assert skeleton("search-5") != skeleton("search-10")
    assert skeleton("alice") != skeleton("a1ice-bot")


def test_every_house_bot_of_the_engine_and_the_ladders_is_reserved():
    from core.arena.model import house_bots_for
    from engine.bots import is_house_bot_name, make_bot
    from engine.bots.names import example_house_bot_names

    for name in (*example_house_bot_names(), *(b for game in ("spot-hearts", "sore-spot")
                                               for b in house_bots_for(game))):
        assert is_house_bot_name(name), name
        assert is_reserved(name), name
    for name in ("search-7", "search-999", "eps-0.35", "eps-1"):  # any member of a family is a house bot
        make_bot(name)
        assert is_house_bot_name(name) and is_reserved(name), name


def test_an_explicit_reserved_list_replaces_the_house_one():
    assert is_reserved("B0b", reserved=["bob"], stems=[])
    assert not is_reserved("heuristic", reserved=["bob"], stems=[])
    assert is_reserved("bot-42", reserved=[], stems=["bot"])
    assert "heuristic" in HOUSE_NAMES


def test_doctests():
    import engine.bots.names

    for module in (core.arena.names, engine.bots.names):
        result = doctest.testmod(module)
        assert result.attempted >= 3 and result.failed == 0, module.__name__
