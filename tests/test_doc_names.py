"""Every name a doc gives exists: repository paths (and the tests and functions after `::`), Python modules
and their attributes, `make` targets, and the commands and flags of every CLI the docs show (`trick-arena`,
`python -m arena|engine|loadtest|tools.*|devstack.*`, `python tools/benchmarks.py`).

The docs are README.md, docs/*.md, docs/rules/README.md, tests/README.md and clients/*/README.md. Names are
read from code: `backtick spans` and fenced blocks. One test collects every missing name of every doc and
fails once, with all of them: a doc that names a path another branch adds shows up with everything else that
is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted({"README.md", "docs/rules/README.md", "tests/README.md",
               *(str(p.relative_to(ROOT)) for pattern in ("docs/*.md", "clients/*/README.md")
                 for p in ROOT.glob(pattern))})
TOP = ("api", "arena", "core", "engine", "clients", "devstack", "loadtest", "tools", "tests", "docs",
       "deploy", "training")
PATH = re.compile(rf"(?<![\w/.$-])((?:{'|'.join(TOP)})/[\w./@-]*(?:::\w+)?)")
MODULE = re.compile(rf"(?<![\w/.$-])((?:{'|'.join(t for t in TOP if t not in ('docs', 'deploy', 'tests'))})"
                    r"(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
MAKE = re.compile(r"(?:^|[\s`(])make ((?:[\w.-]+/?)+)(?=$|[\s`);])")
# (`sudo -u trick-arena`, `install -o trick-arena` name the service's user, not the command)
COMMAND = re.compile(r"(?<!-\w )(?<![\w@/-])(trick-arena|python -m [\w.]+|python tools/benchmarks\.py)"
                     r"((?:\s+[^\s|;&#`]+)*)")
# The JavaScript SDK's command line: its commands and flags are the words its sources compare arguments to.
JS_COMMAND = re.compile(r"(?:npx trickarena|node clients/js/bin/trickarena\.js)((?:\s+[^\s|;&#`]+)*)")
JS_SOURCES = ("clients/js/bin", "clients/js/src")


def code_of(text: str) -> Iterator[tuple[bool, str]]:
    """The doc's code: each line of a fenced block, and each `span` outside them (True: a span)."""
    for n, block in enumerate(re.split(r"^```[^\n]*\n", text, flags=re.M)):
        if n % 2:
            yield from ((False, line) for line in block.splitlines())
        else:
            yield from ((True, span) for span in re.findall(r"`([^`\n]+)`", block))


# --- paths and modules --------------------------------------------------------------------------------------


def missing_path(name: str) -> str | None:
    path, _, member = name.partition("::")
    path = path.rstrip("./")
    if not (ROOT / path).exists():
        return f"path {path}"
    defined = rf"^\s*(?:async )?(?:def|class) {member}\b"
    if member and (ROOT / path).is_file() and not re.search(defined, (ROOT / path).read_text(), re.M):
        return f"{member} in {path}"
    return None


def missing_module(name: str) -> str | None:
    """A dotted name is a module, or a module's attribute (a function, a class, a class's method)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        if importlib.util.find_spec(parts[0]) is None:
            return f"module {name}"
        try:
            target: Any = importlib.import_module(module_name)
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return f"{attribute} in {'.'.join(parts[:parts.index(attribute)])}"
            target = getattr(target, attribute)
        return None
    return f"module {name}"


# --- make ---------------------------------------------------------------------------------------------------


def make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    variables = dict(re.findall(r"^([A-Z_]+)\s*[:?]?=\s*(.*)$", text, re.M))
    targets = set()
    for line in re.findall(r"^([^\s#=][^=\n]*?):(?!=)", text, re.M):
        for target in line.split():
            while (var := re.search(r"\$\((\w+)\)", target)):
                target = target.replace(var.group(0), variables.get(var.group(1), ""))
            targets.add(target)
    return targets - {".PHONY"}


# --- command lines ------------------------------------------------------------------------------------------


class _Parsed(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def argparse_parser(module: Any) -> argparse.ArgumentParser:
    """The argument parser `module.main()` builds, caught as it is about to parse (nothing runs)."""
    def catch(parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise _Parsed(parser)

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = catch  # type: ignore[assignment,method-assign]
    argv = sys.argv
    sys.argv = [module.__name__]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module.main(*([[]] if "argv" in module.main.__code__.co_varnames[:1] else []))
    except _Parsed as parsed:
        return parsed.parser
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
        sys.argv = argv
    raise AssertionError(f"{module.__name__}.main() parsed no arguments")


class Cli:
    """One program's commands: a click command/group or an argparse parser, walked by the words of a line."""

    def __init__(self, root: Any) -> None:
        self.root = root

    def resolve(self, words: list[str]) -> tuple[str, set[str], list[str]] | str:
        """(the command path, the options it takes, the words after it), or what is missing."""
        node, path, options = self.root, [], set()
        rest = list(words)
        while True:
            options |= self._options(node)
            children = self._children(node)
            # Skip the options (and a value of an option that takes one) before a subcommand.
            while rest and rest[0].startswith("-") and children:
                takes_value = self._takes_value(node, rest.pop(0).split("=")[0])
                if takes_value and rest:
                    rest.pop(0)
            if not children or not rest or not re.fullmatch(r"[a-z][a-z-]*", rest[0]):
                return " ".join(path), options, rest
            if rest[0] not in children:
                return f"command {' '.join([*path, rest[0]])}"
            path.append(rest.pop(0))
            node = children[path[-1]]

    @staticmethod
    def _children(node: Any) -> dict[str, Any]:
        if isinstance(node, click.Group):
            return dict(node.commands)
        if isinstance(node, argparse.ArgumentParser):
            return {name: sub for action in node._actions if isinstance(action, argparse._SubParsersAction)
                    for name, sub in action.choices.items()}
        return {}

    @staticmethod
    def _options(node: Any) -> set[str]:
        if isinstance(node, click.Command):
            return {opt for param in node.params for opt in [*param.opts, *param.secondary_opts]} | {"--help"}
        return {opt for action in node._actions for opt in action.option_strings}

    @staticmethod
    def _takes_value(node: Any, flag: str) -> bool:
        if isinstance(node, click.Command):
            return any(flag in p.opts and not getattr(p, "is_flag", False) for p in node.params)
        return any(flag in a.option_strings and a.nargs != 0 for a in node._actions)


def cli_of(program: str) -> Cli | None:
    if program == "trick-arena":
        from clients.cli import main
        return Cli(main)
    module_name = "tools.benchmarks" if program.startswith("python tools/") else program.split()[-1]
    if module_name.split(".")[0] not in TOP or module_name.startswith("tests"):
        return None
    try:
        module = importlib.import_module(f"{module_name}.__main__")
    except ModuleNotFoundError:
        module = importlib.import_module(module_name)
    commands = [value for value in vars(module).values()
                if isinstance(value, click.Command) and value.callback is not None
                and value.callback.__module__ == module.__name__]
    if commands:  # click: read, never run (a tool's main may start a whole stack)
        groups = [c for c in commands if isinstance(c, click.Group)]
        return Cli((groups or commands)[0])
    if "ArgumentParser(" in Path(module.__file__).read_text():
        return Cli(argparse_parser(module))
    return None


def missing_in_command(program: str, words: list[str], clis: dict[str, Cli | None]) -> list[str]:
    if program not in clis:
        try:
            clis[program] = cli_of(program)
        except ModuleNotFoundError as exc:
            return [f"program {program} ({exc})"]
    cli = clis[program]
    if cli is None:
        return []
    resolved = cli.resolve([w.strip("'\"") for w in words])
    if isinstance(resolved, str):
        return [f"{resolved} of {program}"]
    path, options, rest = resolved
    flags = {w.split("=")[0] for w in rest if re.fullmatch(r"--?[a-zA-Z][\w-]*(=.*)?", w)}
    return [f"{flag} of {' '.join([program, path]).strip()}" for flag in sorted(flags - options)]


def missing_in_js_command(words: list[str]) -> list[str]:
    sources = "".join(path.read_text() for folder in JS_SOURCES for path in (ROOT / folder).rglob("*.js"))
    named = [w for w in words if re.fullmatch(r"--?[a-z][\w-]*|[a-z][a-z-]+", w.split("=")[0])]

    def known(word: str) -> bool:
        """A command is a key of the CLI's command table (`record: {`) or a string; a flag is its name as an
        option key (`"owner-token"`) or a string (`"--seat"`)."""
        bare = word.split("=")[0]
        names = {bare, bare.lstrip("-")}
        return any(f'"{n}"' in sources or f"'{n}'" in sources
                   or re.search(rf"(?m)^\s*{re.escape(n)}: ", sources) for n in names)

    return [f"{w} of npx trickarena" for w in named[:1] + [w for w in named[1:] if w.startswith("-")]
            if not known(w)]


def missing_names(doc: str, clis: dict[str, Cli | None], targets: set[str]) -> list[str]:
    missing = []
    for in_span, code in code_of((ROOT / doc).read_text()):
        if "<" in code or "{" in code or "*" in code:
            code = re.sub(r"\S*[<{*]\S*", "", code)
        missing += filter(None, (missing_path(name) for name in PATH.findall(code)))
        if in_span:  # in a code block, `api.register_bot(...)` is a variable's method
            missing += filter(None, (missing_module(name) for name in MODULE.findall(code)
                                     if not name.endswith((".py", ".md", ".json", ".txt"))))
        missing += [f"make target {t}" for t in MAKE.findall(code) if t not in targets and "=" not in t]
        for program, words in COMMAND.findall(code):
            missing += missing_in_command(program, words.split(), clis)
        for words in JS_COMMAND.findall(code):
            missing += missing_in_js_command(words.split())
    return [f"{doc}: {name}" for name in dict.fromkeys(missing)]


def test_every_name_a_doc_mentions_exists() -> None:
    clis: dict[str, Cli | None] = {}
    targets = make_targets()
    missing = [name for doc in DOCS for name in missing_names(doc, clis, targets)]
    assert not missing, "names the docs mention that do not exist:\n" + "\n".join(missing)


def test_the_checks_find_what_is_missing() -> None:
    """The test above cannot pass by reading nothing: each kind of name is read, and a wrong one caught."""
    clis: dict[str, Cli | None] = {}
    text = ("`core/nowhere.py` `core/keys.py::no_such_key` `core.keys.no_such` `make no-such-target` "
            "`trick-arena no-such-command` `trick-arena register --no-such-flag` "
            "`python -m engine play --no-such-flag` `python -m arena worker --no-such-flag` "
            "`npx trickarena no-such-js-command`")
    found = []
    for _, code in code_of(text):
        found += filter(None, (missing_path(n) for n in PATH.findall(code)))
        found += filter(None, (missing_module(n) for n in MODULE.findall(code)))
        found += [t for t in MAKE.findall(code) if t not in make_targets()]
        for program, words in COMMAND.findall(code):
            found += missing_in_command(program, words.split(), clis)
        for words in JS_COMMAND.findall(code):
            found += missing_in_js_command(words.split())
    assert found == ["path core/nowhere.py", "no_such_key in core/keys.py", "no_such in core.keys",
                     "no-such-target", "command no-such-command of trick-arena",
                     "--no-such-flag of trick-arena register", "--no-such-flag of python -m engine play",
                     "--no-such-flag of python -m arena worker",
                     "no-such-js-command of npx trickarena"], found
    assert missing_in_js_command(["verify-deals", "game.json"]) == []
    for doc_text, kind in [("`make run`", "make"), ("`trick-arena games`", "command"),
                           ("`core/keys.py`", "path")]:
        assert list(code_of(doc_text)), kind


def test_the_ladders_search_bots_are_named_where_the_docs_list_search_bots() -> None:
    from core.arena.model import LADDER_SEARCH_BOTS

    engine_doc = (ROOT / "docs" / "engine.md").read_text()
    listed = re.search(r"every name `engine/bots/names.py` accepts: ([^)]*)\)", engine_doc.replace("\n", " "))
    arena_doc = (ROOT / "docs" / "arena.md").read_text()
    assert listed, "engine.md lists the search bots a table takes"
    for game, bot in LADDER_SEARCH_BOTS.items():
        assert f"`{bot}`" in listed.group(1), (bot, listed.group(1))
        assert re.search(rf"^\| [^|]*{game}[^|]* \| `{bot}, ", arena_doc, re.M), (game, bot)


def test_the_lease_and_the_graceful_timeout_the_docs_give_are_the_codes() -> None:
    from arena.jobs import lease_seconds

    times = lease_seconds(1000, 0) - 1  # the deadlines a lease covers
    graceful = re.search(r'TA_GRACEFUL_TIMEOUT", "(\d+)"', (ROOT / "api" / "gunicorn_conf.py").read_text())
    assert graceful
    for doc in DOCS:
        text = (ROOT / doc).read_text().replace("\n", " ")
        for stated in re.findall(r"max\(10 s, (\d+) ?× ?deadline", text):
            assert float(stated) == times, (doc, stated, times)
        for stated in re.findall(r"`graceful_timeout` = (\d+) s", text):
            assert stated == graceful.group(1), (doc, stated)
