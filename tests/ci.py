"""Whether this run is CI: there a missing tool or an untested engine fails the run instead of skipping.

Every CI service sets ``CI`` (GitHub Actions and GitLab ``true``, others ``1`` or ``yes``); ``.ci/run`` sets
``CI=true`` when it is unset. Any non-empty value counts except ``0`` and ``false`` (any case), the values
someone sets to say "not CI" explicitly. Every CI check in the suite goes through :func:`under_ci`, so one
machine is never CI for one test and a workstation for the next.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

NOT_CI = frozenset({"", "0", "false"})


def under_ci(env: Mapping[str, str] = os.environ) -> bool:
    """True when ``CI`` is set to anything but empty, ``0`` or ``false``."""
    return env.get("CI", "").strip().lower() not in NOT_CI


def skip_or_fail(message: str, env: Mapping[str, str] = os.environ) -> None:
    """Skip the calling test when something it needs is missing here, or fail it under CI."""
    import pytest

    if under_ci(env):
        pytest.fail(f"CI={env.get('CI')!r} but {message}", pytrace=False)
    pytest.skip(message)


def untested_engine(env: Mapping[str, str], compiled_active: bool) -> str | None:
    """Why this run would leave the compiled engine untested under CI, or None.

    Without a build the comparison of the compiled engine with the source skips and every other test runs the
    source: a green run that never ran the engine ``make run`` serves. Under CI that is a broken machine (no C
    compiler or Python headers: ``.ci/run`` installs them), so the run stops before the first test.
    """
    if not under_ci(env) or compiled_active:
        return None
    return (f"CI={env.get('CI')!r} but the engine is not compiled: `make compiled` needs a C compiler and "
            f"Python's headers (.ci/run installs them; see its output), and TRICK_ARENA_ENGINE must not be "
            f"'interpreted' (it is {env.get('TRICK_ARENA_ENGINE', 'unset')!r})")
