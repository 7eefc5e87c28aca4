"""`trick-arena replay FILE --open`: one self-contained HTML file holding engine.frames' frames and the web
viewer's script and stylesheet, forbidding every request, opened with webbrowser (recorded here, no browser).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from click.testing import CliRunner

import engine
from clients.cli import main
from clients.cli.viewer import POLICY
from engine.bots import make_bot, play_game
from engine.frames import replay_frames

ROOT = Path(__file__).resolve().parents[2]


class Page(HTMLParser):
    """What the written page holds: its tags' attributes, and the text of its scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline: dict[str, str] = {"script": "", "style": ""}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in self.inline else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.inline[self._in] += data

    def attr(self, tag_id: str, name: str) -> str:
        return next(str(attrs[name]) for _, attrs in self.tags if attrs.get("id") == tag_id)


@pytest.fixture(autouse=True)
def temporary_folder(tmp_path, monkeypatch) -> Path:
    """The pages are written under the test's own folder, removed with it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    urls: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *args, **kwargs: urls.append(url) or True)
    return urls


def record(game: str = "spot-hearts", players: int = 4, seed: int = 3) -> dict[str, Any]:
    options = {"target": 60} if game != "sore-spot" else {"rounds": 2}
    played = play_game(engine.new_game(game, players, options, seed=seed),
                       [make_bot("heuristic", seat) for seat in range(players)])
    return dict(played.record())


def read_page(url: str) -> tuple[Path, Page]:
    assert url.startswith("file://")
    path = Path(unquote(urlparse(url).path))
    page = Page()
    page.feed(path.read_text("utf-8"))
    return path, page


def test_a_file_opens_in_the_browser_as_a_page_that_makes_no_request(tmp_path, opened) -> None:
    game = record()
    source = tmp_path / "game.json"
    source.write_text(json.dumps(game))
    result = CliRunner().invoke(main, ["replay", str(source), "--open"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (url,) = opened
    path, page = read_page(url)
    assert "replay opened in the browser" in result.output and path.name in result.output
    assert path.parent.parent == tmp_path / "tmp" and path.parent.name.startswith("trick-arena-replay-")
    # The frames are the engine's, with every hand; the seats are named as the terminal replay names them.
    assert json.loads(page.attr("replay", "data-frames")) == json.loads(json.dumps(replay_frames(game)))
    assert json.loads(page.attr("replay", "data-seats")) == [f"seat {s}" for s in range(4)]
    # Everything is inside: the card table's script and the stylesheet, no file or address to fetch.
    assert "function startReplay" in page.inline["script"] and ".felt" in page.inline["style"]
    fetched = [(tag, attrs) for tag, attrs in page.tags if attrs.get("src") or attrs.get("href")]
    assert fetched == []
    policy = next(attrs["content"] for _, attrs in page.tags
                  if attrs.get("http-equiv") == "Content-Security-Policy")
    assert policy == POLICY and "default-src 'none'" in policy and "connect-src" not in policy


def test_the_file_option_and_a_match_export_line_open_too(tmp_path, opened) -> None:
    games = [record("sore-spot", 3, seed=1), record("sore-spot", 3, seed=2)]
    line = tmp_path / "export.json"
    line.write_text(json.dumps({"match_id": "m1", "records": games}))
    result = CliRunner().invoke(main, ["replay", "--file", str(line), "--game-no", "1", "--open"])
    assert result.exit_code == 0, result.output
    _, page = read_page(opened[0])
    assert json.loads(page.attr("replay", "data-frames")) == json.loads(json.dumps(replay_frames(games[1])))

    result = CliRunner().invoke(main, ["replay", str(line), "--game-no", "2", "--open"])
    assert result.exit_code == 2 and "holds 2 games" in result.output


def test_a_record_that_does_not_replay_opens_nothing(tmp_path, opened) -> None:
    game = record()
    game["moves"][5]["move"] = "ZZ"
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(game))
    result = CliRunner().invoke(main, ["replay", str(source), "--open"])
    assert result.exit_code == 1 and "not a replay record the engine can read" in result.output
    assert opened == []


def test_without_a_browser_the_path_is_printed(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("webbrowser.open", lambda url, *args, **kwargs: False)
    source = tmp_path / "game.json"
    source.write_text(json.dumps(record()))
    result = CliRunner().invoke(main, ["replay", "--file", str(source), "--open"])
    assert result.exit_code == 0 and "no browser to open; open this file in one:" in result.output
    assert Path(result.output.rsplit(": ", 1)[1].strip()).is_file()


# `replay --open` in a fresh interpreter, the browser replaced by a print: the modules it loaded.
OPEN_AND_LIST_MODULES = """
import json, sys, webbrowser
webbrowser.open = lambda url, *args, **kwargs: True
from clients.cli import main
try:
    main(["replay", sys.argv[1], "--open"])
except SystemExit as exit:
    assert not exit.code, exit.code
loaded = {name.partition(".")[0] for name in sys.modules}
print(json.dumps(sorted(loaded & {"flask", "werkzeug", "redis", "api"})))
"""


def test_opening_a_replay_loads_no_web_stack(tmp_path) -> None:
    source = tmp_path / "game.json"
    source.write_text(json.dumps(record("card-commons", 3)))
    done = subprocess.run([sys.executable, "-c", OPEN_AND_LIST_MODULES, str(source)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
