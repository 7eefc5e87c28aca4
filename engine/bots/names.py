"""Which house bots exist: the one registry every place that takes a house-bot name asks. A fixed name
(``random``, ``heuristic``, ``search``) or a numbered family member (``eps-X``, ``search-MS``).

Design: docs/engine.md#house-bots
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class BotFamily:
    """House bots named ``{stem}-{number}``: `number` is any text matching `number_pattern`."""

    stem: str
    number_pattern: str  # a regular expression over ASCII digits only
    number_meaning: str
    examples: tuple[str, ...]

    @property
    def pattern(self) -> str:
        """The whole name, as a regular expression (no anchors)."""
        return f"{re.escape(self.stem)}-{self.number_pattern}"

    def describe(self) -> str:
        """
        >>> HOUSE_BOT_FAMILIES[1].describe()
        'search-MS (MS: 1..999 ms per decision, e.g. search-5, search-10)'
        """
        placeholder = self.number_meaning.split(":")[0]
        return f"{self.stem}-{placeholder} ({self.number_meaning}, e.g. {', '.join(self.examples)})"


#: House bots with a name of their own.
FIXED_HOUSE_BOT_NAMES: Final = ("random", "heuristic", "search")
#: House bots with a number in their name: any number in the range is a house bot.
HOUSE_BOT_FAMILIES: Final = (
    BotFamily("eps", r"(0(\.[0-9]+)?|1(\.0+)?)", "X: 0..1, the chance of a random move",
              ("eps-0.2", "eps-0.5")),
    # search-1 .. search-999: stays inside a 1 s deadline
    BotFamily("search", r"[1-9][0-9]{0,2}", "MS: 1..999 ms per decision", ("search-5", "search-10")),
)
#: Every house bot name, as one regular expression (no anchors): the OpenAPI document's seat pattern.
HOUSE_BOT_NAME_PATTERN: Final = "|".join(
    [*(re.escape(name) for name in FIXED_HOUSE_BOT_NAMES), *(family.pattern for family in HOUSE_BOT_FAMILIES)]
)
_NAME = re.compile(HOUSE_BOT_NAME_PATTERN)


def is_house_bot_name(name: object) -> bool:
    """True if `name` names a house bot (``make_bot`` builds it).

    >>> [is_house_bot_name(n) for n in ("heuristic", "search-7", "eps-0.35", "search-0", "eps-2", "alice")]
    [True, True, True, False, False, False]
    """
    return parse_house_bot_name(name) is not None


def parse_house_bot_name(name: object) -> tuple[str, str | None] | None:
    """``(stem, number)`` of a house bot name (number None for a fixed name), or None if it names none.

    >>> parse_house_bot_name("search-7"), parse_house_bot_name("random")
    (('search', '7'), ('random', None))
    """
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        return None
    if name in FIXED_HOUSE_BOT_NAMES:
        return name, None
    stem, _, number = name.partition("-")
    return stem, number


def describe_house_bot_names() -> str:
    """The house bot names in words, for error messages and the API documentation.

    >>> describe_house_bot_names()  # doctest: +NORMALIZE_WHITESPACE
    'random, heuristic, search, eps-X (X: 0..1, the chance of a random move, e.g. eps-0.2, eps-0.5) or
     search-MS (MS: 1..999 ms per decision, e.g. search-5, search-10)'
    """
    families = [family.describe() for family in HOUSE_BOT_FAMILIES]
    return f"{', '.join((*FIXED_HOUSE_BOT_NAMES, *families[:-1]))} or {families[-1]}"


def example_house_bot_names() -> tuple[str, ...]:
    """The fixed names and every family's examples: a few names of each kind, for tests and documents."""
    return (*FIXED_HOUSE_BOT_NAMES, *(name for family in HOUSE_BOT_FAMILIES for name in family.examples))
