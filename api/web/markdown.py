"""The Markdown subset the rule books are written in, rendered to escaped HTML (`render` lists the subset).

Design: docs/web.md, "Rules pages"
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markupsafe import Markup, escape

Linker = Callable[[str], str | None]

_HEADING = re.compile(r"(#{1,3}) +(.*)")
_BULLET = re.compile(r"[-*] +(.*)")
_NUMBERED = re.compile(r"\d+\. +(.*)")
_RULE_ROW = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")


def render(source: str, link: Linker = lambda target: None) -> Markup:
    """HTML for ``source``; ``link`` turns a link target into a URL, or None to keep just the text.

    Blocks: ``#``/``##``/``###`` headings, paragraphs, ``-``/``*`` and ``1.`` lists (an indented line
    continues the item above; an item that opens with a bold term is anchored as ``#term``), and pipe tables
    whose second row is the ``|---|`` rule. Inline: ``code``, ``**bold**``, ``*italic*`` and
    ``[text](target)`` links. Every character of the source is escaped; a link is written only when ``link``
    maps its target to a URL (the rule books link only to each other), otherwise its text stays. No attribute
    but ``href`` and ``id`` is ever written, so pages stay clean under a strict CSP.

    >>> print(render("# Spot *Hearts*\\n\\nThe **Q♠** scores `25` <b>."))
    <h1 id="spot-hearts">Spot <em>Hearts</em></h1>
    <p>The <strong>Q♠</strong> scores <code>25</code> &lt;b&gt;.</p>
    """
    blocks: list[str] = []
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if not line.strip():
            i += 1
            continue
        if heading := _HEADING.fullmatch(line):
            level, text = len(heading.group(1)), heading.group(2).strip()
            blocks.append(f'<h{level} id="{slug(text)}">{inline(text, link)}</h{level}>')
            i += 1
        elif line.lstrip().startswith("|"):
            i = _table(lines, i, blocks, link)
        elif _BULLET.fullmatch(line) or _NUMBERED.fullmatch(line):
            i = _list(lines, i, blocks, link)
        else:
            start = i
            while i < len(lines) and lines[i].strip() and not _starts_block(lines[i].rstrip()):
                i += 1
            i = max(i, start + 1)
            text = " ".join(part.strip() for part in lines[start:i])
            blocks.append(f"<p>{inline(text, link)}</p>")
    return Markup("\n".join(blocks))


def _starts_block(line: str) -> bool:
    return bool(_HEADING.fullmatch(line) or _BULLET.fullmatch(line) or _NUMBERED.fullmatch(line)
                or line.lstrip().startswith("|"))


def _list(lines: list[str], i: int, blocks: list[str], link: Linker) -> int:
    pattern = _BULLET if _BULLET.fullmatch(lines[i].rstrip()) else _NUMBERED
    tag = "ul" if pattern is _BULLET else "ol"
    items: list[str] = []
    while i < len(lines):
        line = lines[i].rstrip()
        item = pattern.fullmatch(line)
        if item:
            items.append(item.group(1).strip())
        elif line.strip() and line[:1].isspace() and items:
            items[-1] += " " + line.strip()  # an indented line continues the item
        else:
            break
        i += 1
    body = "".join(f"<li{_anchor(item)}>{inline(item, link)}</li>" for item in items)
    blocks.append(f"<{tag}>{body}</{tag}>")
    return i


def _anchor(item: str) -> str:
    """An item that opens with a bold term (a ruling id such as ``**R-SH-FIRST**``) is that term's anchor."""
    term = re.match(r"\*\*([^*]+)\*\*", item)
    return f' id="{slug(term.group(1))}"' if term else ""


def _table(lines: list[str], i: int, blocks: list[str], link: Linker) -> int:
    rows: list[list[str]] = []
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        if not _RULE_ROW.fullmatch(lines[i].strip()):
            rows.append([cell.strip() for cell in lines[i].strip().strip("|").split("|")])
        i += 1
    head, body = rows[0], rows[1:]
    html = ["<table>", "<thead><tr>" + "".join(f"<th>{inline(c, link)}</th>" for c in head) + "</tr></thead>"]
    if body:
        cells = ("".join(f"<td>{inline(c, link)}</td>" for c in row) for row in body)
        html.append("<tbody>" + "".join(f"<tr>{tr}</tr>" for tr in cells) + "</tbody>")
    html.append("</table>")
    blocks.append("".join(html))
    return i


def inline(text: str, link: Linker = lambda target: None) -> str:
    """Escaped HTML of one line: code spans first (nothing inside them is formatted), then the rest.

    >>> rules = {"sore-spot.md": "/rules/sore-spot"}.get
    >>> inline('[Sore Spot](sore-spot.md), [x](javascript:alert) "<i>"', rules)
    '<a href="/rules/sore-spot">Sore Spot</a>, x &#34;&lt;i&gt;&#34;'
    >>> inline("*a* **b** `*c*` [d](e.md)")
    '<em>a</em> <strong>b</strong> <code>*c*</code> d'
    """
    parts = text.split("`")
    out = []
    for n, part in enumerate(parts):
        if n % 2 and n < len(parts) - 1:
            out.append(f"<code>{escape(part)}</code>")
        else:
            out.append(_format(part if n % 2 == 0 else "`" + part, link))
    return "".join(out)


def _format(text: str, link: Linker) -> str:
    html = str(escape(text))

    def anchor(match: re.Match[str]) -> str:
        url = link(Markup(match.group(2)).unescape())
        return match.group(1) if url is None else f'<a href="{escape(url)}">{match.group(1)}</a>'

    html = _LINK.sub(anchor, html)
    html = _BOLD.sub(r"<strong>\1</strong>", html)
    return _ITALIC.sub(r"<em>\1</em>", html)


def slug(text: str) -> str:
    """A heading's anchor: lower case words joined by ``-`` (``"End of the game"`` → ``end-of-the-game``)."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"[`*]", "", text).lower())
    return "-".join(words) or "section"
