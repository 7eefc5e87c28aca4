"""Bot names the house keeps: its own bots' names, their families, and names made to look like them. Names are
compared by *skeleton* (:func:`skeleton`); a name whose skeleton is a house name's is reserved.

Design: docs/api.md#house-bots
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from core.arena.model import GRADED_HOUSE_BOTS, HOUSE_PREFIX, LADDER_SEARCH_BOTS
from engine.bots.names import HOUSE_BOT_FAMILIES, example_house_bot_names

# Letters that render like a Latin one in common fonts, after case folding (so lower case only). Small on
# purpose: the Cyrillic and Greek letters a name can be spelled with to pass for a Latin one, not all of
# Unicode's confusables. i and l (and 1, below) are one letter: they are told apart by the font alone.
CONFUSABLE_LETTERS = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "г": "r", "һ": "h", "н": "h", "і": "l", "ї": "l", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "с": "c", "ѕ": "s", "т": "t", "у": "y", "х": "x",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "п": "n", "и": "u", "ц": "u",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ω": "w", "μ": "u", "ς": "c", "σ": "o",
    # Latin letters that pass for another one
    "i": "l", "ı": "l",
})
# Digits that stand for a letter in a name meant to pass for another (l33t spelling).
DIGIT_LETTERS = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})
SEPARATORS = re.compile(r"[\s\-_.:]+")
LETTER_PAIRS = (("rn", "m"), ("vv", "w"))  # two letters that read as one
# A family's number, once look-alike letters are folded: digits, or the letters that stand for 0 and 1.
FAMILY_NUMBER = re.compile(r"[0-9ol]+")
HOUSE_STEM = HOUSE_PREFIX.rstrip(":")  # "house": names under the house prefix are the house's


def _fold(name: str) -> str:
    """Case folded, NFKC normalised, look-alike letters mapped; digits and separators as they are."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return folded.translate(CONFUSABLE_LETTERS)


def _join(text: str) -> str:
    text = SEPARATORS.sub("", text)
    for pair, letter in LETTER_PAIRS:
        text = text.replace(pair, letter)
    return text


def skeleton(name: str) -> str:
    """What `name` looks like: two names with the same skeleton pass for each other.

    >>> skeleton("Heur1stic") == skeleton("heuristic")
    True
    >>> [skeleton(n) for n in ("search-5", "Search_5", "SEARCH.5", "search-50", "search-10")]
    ['searchs', 'searchs', 'searchs', 'searchso', 'searchlo']
    """
    return _join(_fold(name).translate(DIGIT_LETTERS))


# The engine's house bot names (engine.bots.names) and what the ladders seat ("house" is their owner); a
# look-alike of one of these is reported as that name, a look-alike of another family member as the family.
HOUSE_NAMES = frozenset((*example_house_bot_names(), *GRADED_HOUSE_BOTS,
                         *LADDER_SEARCH_BOTS.values(), HOUSE_STEM))
HOUSE_FAMILIES = frozenset(family.stem for family in HOUSE_BOT_FAMILIES)  # search-MS and eps-X: any number


def _family_of(name: str, stems: Iterable[str]) -> str | None:
    # Digits kept (folded letters only), so a family needs a number: "searchbot" is not "search-<n>".
    joined = _join(_fold(name))
    wanted = {skeleton(stem): stem for stem in stems}
    for cut in range(1, len(joined)):
        if FAMILY_NUMBER.fullmatch(joined[cut:]) and skeleton(joined[:cut]) in wanted:
            return f"{wanted[skeleton(joined[:cut])]}-<n>"
    return None


def _under_house_prefix(name: str) -> bool:
    # "house:x", "house-x", "h0use_x": the house stem followed by a separator (but "household" is free).
    text = _fold(name).translate(DIGIT_LETTERS)
    stem = skeleton(HOUSE_STEM)
    return text.startswith(stem) and SEPARATORS.match(text, len(stem)) is not None


def resembles(name: str, reserved: Iterable[str] = HOUSE_NAMES,
              stems: Iterable[str] = HOUSE_FAMILIES) -> str | None:
    """The reserved name (or family, ``search-<n>``) that `name` passes for, else None.

    >>> resembles("ѕearch-77"), resembles("alice")
    ('search-<n>', None)
    """
    by_skeleton = {skeleton(house): house for house in sorted(reserved)}
    if skeleton(name) in by_skeleton:
        return by_skeleton[skeleton(name)]
    if _under_house_prefix(name):
        return HOUSE_PREFIX
    return _family_of(name, stems)


def is_reserved(name: str, reserved: Iterable[str] = HOUSE_NAMES,
                stems: Iterable[str] = HOUSE_FAMILIES) -> bool:
    """True if `name` reads as a reserved name or family member, or is under the house prefix."""
    return resembles(name, reserved, stems) is not None
