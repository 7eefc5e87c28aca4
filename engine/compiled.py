"""The engine's rule modules compiled with mypyc: the same source, about twice as fast. :func:`activate` runs
the build when its fingerprint matches every engine source; otherwise the interpreted source runs.

Design: docs/engine.md#compiled-or-interpreted
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).parent  # absolute already: no file-system call at import
BUILD = PACKAGE.parent / "build" / "engine-mypyc"
FINGERPRINT = BUILD / "fingerprint.txt"
#: The modules that do the work of every move, the house bots' policies, the search (sampling, worlds,
#: rollouts) and version 2's draws (engine/draws.py). The rest of the dealing (engine/deals.py: record
#: checks), the analysis, duels, the bench loop and the CLI stay interpreted.
MODULES = (
    "engine/card_tables.py",
    "engine/table.py",
    "engine/rules.py",
    "engine/draws.py",
    "engine/state.py",
    "engine/games/hearts.py",
    "engine/games/card_commons.py",
    "engine/games/spot_hearts.py",
    "engine/games/sloppy_seconds.py",
    "engine/games/sore_spot.py",
    "engine/bots/base.py",
    "engine/bots/heuristics.py",
    "engine/bots/rollout.py",
    "engine/bots/search.py",
    "engine/sampling.py",
    "engine/worlds.py",
)
#: The packages holding those modules: each gets the build's directory first on its ``__path__``.
PACKAGES = ("engine", "engine.games", "engine.bots")
ENV = "TRICK_ARENA_ENGINE"

_active = False


def fingerprint() -> str:
    """A hash of every engine source file and the interpreter version."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def usable() -> bool:
    """True when a build exists, matches every current source, and is not switched off."""
    if os.environ.get(ENV) == "interpreted":
        return False
    try:
        return FINGERPRINT.read_text().strip() == fingerprint()
    except OSError:
        return False


def module_names() -> list[str]:
    """The dotted names of :data:`MODULES` (``engine.games.hearts``, ...)."""
    return [path.removesuffix(".py").replace("/", ".") for path in MODULES]


def active() -> bool:
    """True once :func:`activate` put the build in place: the rule modules then import compiled.

    >>> from engine import compiled
    >>> compiled.active()  # until activate() succeeds, the interpreted source runs
    False
    """
    return _active


def activate() -> bool:
    """Run the compiled build from now on when it is usable; True if it is in place.

    Call it before anything imports a rule module: one already imported from the source would stay
    interpreted beside the others, so that raises :class:`RuntimeError` rather than doing nothing.
    With an unusable build (none, out of date, or switched off) it returns False and changes nothing.
    """
    global _active
    if _active:
        return True
    if not usable():
        return False
    early = [name for name in module_names() if name in sys.modules]
    if early:
        raise RuntimeError(f"engine.compiled.activate() must run before the rule modules are imported: "
                           f"{', '.join(early)} already imported from the source")
    if str(BUILD) not in sys.path:
        sys.path.append(str(BUILD))  # the build's shared mypyc runtime is a top-level module
    for package in PACKAGES:
        importlib.import_module(package).__path__.insert(0, str(BUILD.joinpath(*package.split("."))))
    _active = True
    return True


def build() -> int:
    """Compile :data:`MODULES` into :data:`BUILD` and record the fingerprint; 0 on success."""
    import shutil
    import tempfile

    from mypyc.build import mypycify  # a dev tool (mypy), not a runtime dependency
    from setuptools import setup  # type: ignore[import-untyped]

    root = PACKAGE.parent
    source = fingerprint()  # before compiling: a source edited meanwhile leaves the build unused
    shutil.rmtree(BUILD, ignore_errors=True)
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(root)
        try:
            setup(
                name="trick-arena-engine-compiled",
                ext_modules=mypycify(list(MODULES), opt_level="3", target_dir=work),
                script_args=["-q", "build_ext", "--build-lib", str(BUILD), "--build-temp", work],
            )
        finally:
            os.chdir(cwd)
    FINGERPRINT.write_text(source + "\n")
    return 0
