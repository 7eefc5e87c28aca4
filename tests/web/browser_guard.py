"""Finding a headless browser for the browser tests: skip on a laptop without one, fail under CI.

A skipped browser test looks green. Where the run is CI (tests/ci.py: `CI` set, as every CI service sets it) a
missing Chromium, chromedriver or selenium is a broken machine, so it fails the run instead.
"""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Callable, Mapping
from types import ModuleType

import pytest

from tests.ci import under_ci

INSTALL = "install Debian's `chromium` and `chromium-driver` (apt-get install -y chromium chromium-driver)"


def no_browser(reason: str, env: Mapping[str, str] = os.environ) -> None:
    """Skip the calling test module, or fail it under CI."""
    if under_ci(env):
        pytest.fail(f"CI=true but {reason}: {INSTALL}", pytrace=False)
    pytest.skip(f"{reason}: {INSTALL}", allow_module_level=True)


def find_browser(which: Callable[[str], str | None] = shutil.which,
                 env: Mapping[str, str] = os.environ) -> tuple[str, str, ModuleType]:
    """(chromium binary, chromedriver binary, selenium.webdriver), or skip/fail saying what is missing."""
    chromium = next(filter(None, map(which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = which("chromedriver")
    try:
        webdriver = importlib.import_module("selenium.webdriver")
    except ImportError:
        no_browser("selenium is missing (pip install -e .[dev])", env)
    if chromium is None or driver is None:
        no_browser("no headless browser here" if chromium is None else "no chromedriver here", env)
    return chromium, driver, webdriver
