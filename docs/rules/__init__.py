"""The rule books as Markdown: ``docs/rules/*.md`` in the source tree, the package ``trick_rules`` installed.

``pyproject.toml`` maps the package ``trick_rules`` onto this directory, so the same files are the docs a
reader browses in the repository and the package data the service reads (web pages, ``GET /api/games/{id}``)
from a checkout or an installed wheel alike.

>>> "R-SH-BREAK" in text("spot-hearts")
True
>>> sorted(BOOKS)
['README', 'card-commons', 'sloppy-seconds', 'sore-spot', 'spot-hearts']
"""

from __future__ import annotations

from importlib.resources import files

#: Every rule book by name: one per game id, and ``README`` (the index and the rulings for all games).
BOOKS = frozenset(p.name.removesuffix(".md") for p in files(__name__).iterdir() if p.name.endswith(".md"))


def text(name: str) -> str:
    """The Markdown of one rule book: a game id (``"spot-hearts"``) or ``"README"``; KeyError if none."""
    if name not in BOOKS:
        raise KeyError(f"no rule book {name!r}; known: {', '.join(sorted(BOOKS))}")
    return files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8")
