"""A module's docstring says what the module is in five lines or fewer; why it is built that way is in the
docs, and a docstring's `Design:` pointer names a doc, and a heading of it, that exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("api", "arena", "core", "engine", "devstack", "clients", "tools", "loadtest", "training")
MAX_LINES = 5
# "Design: docs/arena.md#bot-calls", "Design: README.md#architecture", "Design: docs/web.md, ..."
POINTER = re.compile(r"Design: ([\w./-]+\.md)(?:#([\w-]+))?")


def modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                  if "__pycache__" not in path.parts)


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text()), clean=False) or ""


def lines(doc: str) -> int:
    """The docstring's lines, blank lines between its paragraphs included."""
    return len(doc.strip("\n").splitlines())


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, every character but letters, digits, `_`, `-` and
    spaces dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a `#` line inside a fenced block is no heading)."""
    text = re.sub(r"^```.*?^```", "", doc.read_text(), flags=re.M | re.S)
    return {slug(heading) for heading in re.findall(r"^#{1,6} +(.+?)\s*$", text, re.M)}


def test_every_module_docstring_is_five_lines_or_fewer() -> None:
    long = {str(path.relative_to(ROOT)): lines(doc) for path in modules()
            if lines(doc := docstring(path)) > MAX_LINES}
    offenders = sorted(long)
    assert not offenders, (
        f"module docstrings over {MAX_LINES} lines: say what the module is, move the reasoning to the doc a "
        "user of that part reads and point to it (\"Design: docs/arena.md#bot-calls\")\n"
        + "\n".join(f"{name}: {long[name]} lines" for name in offenders))


def test_every_design_pointer_names_a_doc_and_a_heading_that_exist() -> None:
    pointers = [(path, doc, anchor) for path in modules() for doc, anchor in POINTER.findall(docstring(path))]
    missing = [f"{path.relative_to(ROOT)}: {doc}#{anchor}".rstrip("#") for path, doc, anchor in pointers
               if not (ROOT / doc).is_file() or (anchor and anchor not in anchors(ROOT / doc))]
    assert len(pointers) > 50, pointers  # the pointers are read, so the test cannot pass by reading none
    assert not missing, "Design: pointers to a doc or heading that does not exist:\n" + "\n".join(missing)


def test_anchors_are_the_ones_github_gives_headings() -> None:
    assert slug("Does remembering pay? — `python -m arena memory-gain`") == (
        "does-remembering-pay--python--m-arena-memory-gain")  # README.md links to this one
    assert slug("The scheduler's tick") == "the-schedulers-tick"
    arena = anchors(ROOT / "docs" / "arena.md")
    assert {"bot-calls", "retention", "measured-live--python--m-toolslive_ladder---minutes-15"} <= arena
    fenced = "# 1. Stop the writers and the failover: on every API and arena machine, then on redis1..redis3"
    assert fenced in (ROOT / "docs" / "deploy.md").read_text()  # a shell comment in a fenced block
    assert slug(fenced.lstrip("# ")) not in anchors(ROOT / "docs" / "deploy.md")
