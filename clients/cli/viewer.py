"""`trick-arena replay --open`: a replay as one self-contained HTML file in a temporary folder, opened in the
browser. Its frames come from engine.frames here, drawn by the web viewer's own card table (script and
stylesheet inlined); a Content-Security-Policy in the file forbids every request, so the record goes nowhere.
"""

from __future__ import annotations

import html
import importlib.util
import json
import tempfile
import webbrowser
from pathlib import Path
from typing import Any

import jinja2

import engine
from engine.frames import replay_frames

# No request of any kind: inline script and style only, images only as data: URLs.
POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Replay · {title} · Trick Arena</title>
<style>{css}</style>
<script>{script}</script>
</head>
<body>
<main>
<section class="hero"><div>
  <h1>{game} <span class="hero-sub">replay</span></h1>
  <p class="muted">{title} · every hand face up · {steps} steps · a file on this computer, made by
    trick-arena replay --open: nothing is sent anywhere</p>
</div></section>
<section class="card replay" id="replay" data-frames="{frames}" data-seats="{seats}">
  {controls}
  <h3 id="frame-label" class="frame-label"></h3>
  <div class="replay-body"><div class="felt" id="felt"></div></div>
</section>
</main>
</body>
</html>
"""


def web_folder() -> Path:
    """The web page's folder (api/web), found without importing the web stack."""
    spec = importlib.util.find_spec("api")  # a top-level package: found, not imported
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the web viewer is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "web"


def static_file(name: str) -> str:
    """A file of the web page's static folder (api/web/static)."""
    return (web_folder() / "static" / name).read_text("utf-8")


def replay_controls(steps: int) -> str:
    """The replay's controls as the web pages draw them (the macro in api/web/templates/_macros.html)."""
    loader = jinja2.FileSystemLoader(web_folder() / "templates")
    templates = jinja2.Environment(loader=loader, autoescape=True)
    return str(templates.get_template("_macros.html").module.replay_controls(steps))  # type: ignore[attr-defined]


def viewer_html(record: dict[str, Any], names: list[str], title: str) -> str:
    """The page: the record's frames (engine.frames) in the web replay viewer, every asset inlined."""
    frames = replay_frames(record)
    script = static_file("cardtable.js").replace("</", "<\\/")  # no "</script>" can end the inline script
    css = static_file("arena.css").replace("</", "<\\/")
    return PAGE.format(policy=POLICY, title=html.escape(title), css=css, script=script,
                       game=html.escape(engine.GAMES[record["game"]].name), steps=len(frames),
                       controls=replay_controls(len(frames)),
                       frames=html.escape(json.dumps(frames)), seats=html.escape(json.dumps(names)))


def open_in_browser(record: dict[str, Any], names: list[str] | None, title: str) -> tuple[Path, bool]:
    """Write the page into a new temporary folder and open it: its path, and whether a browser took it."""
    seats = names or [f"seat {seat}" for seat in range(record["players"])]
    page = viewer_html(record, seats, title)  # first: a record that does not replay leaves no folder
    path = Path(tempfile.mkdtemp(prefix="trick-arena-replay-")) / "replay.html"
    path.write_text(page, encoding="utf-8")
    return path, webbrowser.open(path.as_uri())
