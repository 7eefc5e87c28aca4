"""The newcomer docs do not rot: their links resolve, the starter bots stay short (the paths, commands and
flags every doc names: tests/test_doc_names.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.clients.starters import EXAMPLES, STARTERS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "docs/sdk.md", "docs/cli.md", "docs/web.md", "docs/benchmarks.md",
        "docs/rules/README.md"]


def relative_links(doc: str) -> list[str]:
    text = (ROOT / doc).read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    return [t for t in targets if not t.startswith(("http://", "https://", "/"))]


# Only docs that link somewhere: a link check over a doc without links passes whatever it says.
ALL_DOCS = sorted({*DOCS, *(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))})
LINKING_DOCS = [doc for doc in ALL_DOCS if relative_links(doc)]


def test_the_docs_link_to_each_other() -> None:
    assert "README.md" in LINKING_DOCS and len(LINKING_DOCS) >= 2, LINKING_DOCS


@pytest.mark.parametrize("doc", LINKING_DOCS)
def test_relative_links_resolve(doc: str) -> None:
    for target in relative_links(doc):
        assert (ROOT / doc).parent.joinpath(target).exists(), f"{doc} links to missing {target}"


@pytest.mark.parametrize("doc", ALL_DOCS)
def test_no_table_is_broken_by_a_blank_line(doc: str) -> None:
    """A row after a blank line starts a new table (or, without its `|---|` line, is shown as text)."""
    lines = (ROOT / doc).read_text().splitlines()
    for n, line in enumerate(lines[1:-1], start=1):
        if line.startswith("|") and not lines[n - 1].strip():
            assert lines[n + 1].startswith(("|-", "| -")), f"{doc}:{n + 1}: {line[:60]}"


def test_starter_bots_are_under_sixty_lines() -> None:
    for filename, _ in STARTERS.values():
        lines = (EXAMPLES / filename).read_text().splitlines()
        assert len(lines) < 60, f"{filename}: {len(lines)} lines"


def test_the_readme_bot_plays_a_legal_game() -> None:
    import engine

    code = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    namespace: dict = {"__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - our own README
    bot = namespace["MyBot"]()
    game = engine.new_game("card-commons", 4, {"target": 20}, seed=2)
    while not game.over:
        for seat in game.to_act():
            game.apply(seat, bot.choose(game.view(seat)))  # raises if the README's bot breaks a rule
    assert game.winners


def test_the_deploy_and_troubleshoot_page_is_linked_where_bot_authors_start() -> None:
    assert "docs/bot-tips.md" in relative_links("README.md")
    assert "bot-tips.md" in relative_links("docs/bot-protocol.md")
    text = (ROOT / "docs" / "bot-tips.md").read_text()
    for topic in ("HTTPS", "core/arena/netguard.py", "deadline_ms", "strike", "benched", "presence_s",
                  "GET /api/bots/{bot_id}/matches", "trick-arena ladder"):
        assert topic in text, topic
