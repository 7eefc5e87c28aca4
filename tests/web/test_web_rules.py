"""The rules: a rule book per game in docs/rules/, served as a page linked from its ladder and by the API.

Also: every ruling id (R-...) cited anywhere in the repository is defined in docs/rules/, and the Markdown
renderer escapes what it is given.
"""

from __future__ import annotations

import doctest
import html
import re
from pathlib import Path

import pytest

import engine
import trick_rules
from api.web import markdown
from core.arena.model import default_ladders
from core.arena.store import ArenaStore

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "docs" / "rules"
RULING = re.compile(r"\bR-[A-Z]+(?:-[A-Z0-9]+)*\b(?!-\*)")
DEFINITION = re.compile(r"^- \*\*(R-[A-Z0-9-]+)\*\* ", re.M)
CITING = {".py", ".md", ".html", ".js", ".css", ".toml", ".txt"}
SKIP_DIRS = {".git", ".venv", "var", "build", "dist", "node_modules", "__pycache__", ".pytest_cache",
             ".ruff_cache"}


def defined_rulings() -> dict[str, str]:
    """Ruling id -> the rule book that defines it (a list item that opens with the bold id)."""
    defined: dict[str, str] = {}
    for path in sorted(RULES_DIR.glob("*.md")):
        for ruling in DEFINITION.findall(path.read_text()):
            assert ruling not in defined, f"{ruling} defined in {defined[ruling]} and {path.name}"
            defined[ruling] = path.name
    return defined


def repository_files(suffixes: set[str]) -> list[Path]:
    """The repository's own files (not this test, whose examples are not citations)."""
    return [path for path in ROOT.rglob("*")
            if path.suffix in suffixes and not SKIP_DIRS & set(path.relative_to(ROOT).parts)
            and path.is_file() and path != Path(__file__).resolve()]


def cited_rulings() -> dict[str, set[str]]:
    cited: dict[str, set[str]] = {}
    for path in repository_files(CITING):
        for ruling in RULING.findall(path.read_text(errors="replace")):
            cited.setdefault(ruling, set()).add(str(path.relative_to(ROOT)))
    return cited


def test_every_ruling_cited_in_the_repository_is_defined_in_the_rule_books() -> None:
    defined, cited = defined_rulings(), cited_rulings()
    missing = {ruling: sorted(where) for ruling, where in cited.items() if ruling not in defined}
    assert not missing, f"cited but not defined in docs/rules/: {missing}"
    # The engine cites the rulings that decide its behaviour; every game's book defines its own.
    for prefix, book in {"R-SS-": "sore-spot.md", "R-CC-": "card-commons.md", "R-SL-": "sloppy-seconds.md",
                         "R-SH-": "spot-hearts.md"}.items():
        own = {ruling for ruling, where in defined.items() if ruling.startswith(prefix)}
        assert own and all(defined[ruling] == book for ruling in own)
    assert {"R-SEAT", "R-DEALER", "R-DEAL", "R-CARD", "R-TIE-WIN", "R-SIMUL"} <= set(defined)
    in_code = {ruling for ruling, where in cited.items() if any(w.endswith(".py") for w in where)}
    assert len(in_code) >= 10, in_code  # the scan does find the code's citations


def test_a_rule_book_per_game_shipped_as_package_data() -> None:
    assert set(engine.GAMES) | {"README"} == trick_rules.BOOKS
    for game_id, info in engine.GAMES.items():
        text = trick_rules.text(game_id)
        assert text == (RULES_DIR / f"{game_id}.md").read_text()
        assert text.startswith(f"# {info.name}\n") and f"`{game_id}`" in text
        for option in info.options:  # every table option is documented
            assert f"`{option}`" in text, (game_id, option)
    with pytest.raises(KeyError):
        trick_rules.text("../README")


def test_no_doc_or_docstring_points_outside_the_repository() -> None:
    for path in repository_files({".py", ".md", ".html", ".js"}):
        text = path.read_text(errors="replace")
        assert "../shared" not in text and "shared/rules" not in text, path
        for game_id in engine.GAMES:  # the rules are docs/rules/<game>.md, not an outside text file
            assert f"{game_id}.txt" not in text, path


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_rules_page_per_game_renders_the_rule_book(client, game_id: str) -> None:
    response = client.get(f"/rules/{game_id}")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    info = engine.GAMES[game_id]
    assert f'<h1 id="{game_id}">{info.name}</h1>' in page
    for ruling in DEFINITION.findall(trick_rules.text(game_id)):  # each ruling is linkable: #r-sh-first
        assert f'<li id="{ruling.lower()}"><strong>{ruling}</strong>' in page
    assert "<table>" in page and "<script>" not in page and " style=" not in page
    assert 'href="/rules"' in page and 'href="/rules#rulings-for-all-games"' in page  # the shared rulings
    article = page[page.index('<article class="card rules"'):page.index("</article>")]
    assert article.count("<a href=") == trick_rules.text(game_id).count("](")  # every link resolves


def test_rules_index_links_every_game_and_defines_the_common_rulings(client) -> None:
    page = client.get("/rules").get_data(as_text=True)
    for game_id, info in engine.GAMES.items():
        assert f'<a href="/rules/{game_id}">{info.name}</a>' in page  # sore-spot.md became the page's URL
    assert "<strong>R-TIE-WIN</strong>" in page
    assert client.get("/rules/chess").status_code == 404


def test_every_ladder_page_links_its_games_rules(make_app, redis_url: str, key_prefix: str) -> None:
    app = make_app()
    store = ArenaStore.from_url(redis_url, key_prefix)
    ladders = default_ladders()
    for ladder in ladders:
        store.save_ladder(ladder)
    client = app.test_client()
    for ladder in ladders:
        page = client.get(f"/ladders/{ladder.ladder_id}").get_data(as_text=True)
        assert re.search(rf'<a class="rules-link" href="/rules/{ladder.game}">', page), ladder.ladder_id
        rules = client.get(f"/rules/{ladder.game}").get_data(as_text=True)
        assert f'href="/ladders/{ladder.ladder_id}"' in rules  # and back


def test_api_game_carries_its_rules(client) -> None:
    for game_id in engine.GAMES:
        game = client.get(f"/api/games/{game_id}").get_json()
        assert game["rules"] == trick_rules.text(game_id)
        assert game["rules_url"] == f"/rules/{game_id}"
    listed = client.get("/api/games").get_json()
    assert {g["rules_url"] for g in listed} == {f"/rules/{g}" for g in engine.GAMES}
    schema = client.get("/api/openapi.json").get_json()["components"]["schemas"]["Game"]["properties"]
    assert {"rules", "rules_url"} <= set(schema)


# --- the Markdown subset ----------------------------------------------------------------------------------

def test_markdown_escapes_everything_and_links_only_what_the_linker_maps() -> None:
    source = ("# A <script>alert(1)</script>\n\n"
              "Text with <img src=x onerror=alert(1)> and [bad](javascript:alert(1)) and [ok](b.md#x).\n\n"
              "| a | `<b>` |\n|---|---|\n| [c](\"onmouseover=x) | **d** |\n")
    out = str(markdown.render(source, link=lambda t: "/rules/b#x" if t == "b.md#x" else None))
    assert "<script>" not in out and "<img" not in out and "javascript:" not in out
    assert "&lt;script&gt;" in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    assert '<a href="/rules/b#x">ok</a>' in out and out.count("<a ") == 1
    assert "<code>&lt;b&gt;</code>" in out and "<strong>d</strong>" in out
    tags = re.findall(r"<(/?[a-z0-9]+)([^>]*)>", out)  # escaped text holds no "<": these are all the tags
    allowed = {"h1", "p", "a", "table", "thead", "tbody", "tr", "th", "td", "code", "strong"}
    assert {name.lstrip("/") for name, _ in tags} <= allowed
    attributes = {name for _, attrs in tags for name in re.findall(r' ([a-z-]+)="', attrs)}
    assert attributes <= {"id", "href"}  # no style, no event handler


def test_markdown_blocks() -> None:
    out = str(markdown.render("## Play\n\n1. one\n   still one\n2. two\n\n- **R-X** a\n- *b*\npara\ngraph"))
    assert out == ('<h2 id="play">Play</h2>\n<ol><li>one still one</li><li>two</li></ol>\n'
                   '<ul><li id="r-x"><strong>R-X</strong> a</li><li><em>b</em></li></ul>\n<p>para graph</p>')


def test_markdown_renders_every_rule_book_whole() -> None:
    for book in trick_rules.BOOKS:
        text = trick_rules.text(book)
        out = str(markdown.render(text))
        visible = html.unescape(re.sub(r"<[^>]+>", " ", out))
        for word in re.findall(r"[A-Za-z0-9♠♥♦♣−]+", re.sub(r"\]\([^)]*\)", "", text)):
            assert word in visible, (book, word)  # nothing of the text is lost
        assert "**" not in out and "](" not in out


@pytest.mark.parametrize("module", [markdown, trick_rules])
def test_docstring_examples(module) -> None:
    assert doctest.testmod(module).failed == 0
