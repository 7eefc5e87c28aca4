"""The engine's rule modules compiled with mypyc: the same source, about twice as fast.

``python -m engine compile`` (``make compiled``) builds :data:`MODULES` with mypyc into
``build/engine-mypyc/`` and records a fingerprint of every ``engine/`` source file.  At import,
:func:`activate` puts that build ahead of the source only if the fingerprint still matches, so a
compiled module never runs in place of a source that has changed since: edit any engine file and
the engine runs interpreted until the next build.  Without a build, a C compiler or mypy, or with
``TRICK_ARENA_ENGINE=interpreted`` in the environment, the engine is the interpreted source,
which stays the reference (``engine.COMPILED`` says which runs).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
BUILD = PACKAGE.parent / "build" / "engine-mypyc"
FINGERPRINT = BUILD / "fingerprint.txt"
#: The modules that do the work of every move, the house bots' policies, the search (sampling, worlds,
#: rollouts) and version 2's draws (engine/draws.py). The rest of the dealing (engine/deals.py: record
#: checks), the analysis, duels, the bench loop and the CLI stay interpreted.
MODULES = (
    "engine/card_tables.py",
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
ENV = "TRICK_ARENA_ENGINE"


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


def package_path(package: str) -> list[str]:
    """The build's directory for ``package`` (``engine``, ``engine.games``), to go first on its path."""
    return [str(BUILD.joinpath(*package.split(".")))] if ACTIVE else []


def activate() -> bool:
    """Make the build importable (its shared runtime library is a top-level module) when usable."""
    if not usable():
        return False
    if str(BUILD) not in sys.path:
        sys.path.append(str(BUILD))
    return True


ACTIVE = activate()


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
