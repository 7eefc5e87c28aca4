"""Under CI=true a missing browser fails the browser tests; elsewhere it skips them with the reason."""

from __future__ import annotations

import pytest

from tests.web.browser_guard import find_browser


def nothing_installed(name: str) -> None:
    return None


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_missing_browser_fails_under_ci(ci: str) -> None:
    with pytest.raises(pytest.fail.Exception, match="CI=true but no headless browser here"):
        find_browser(which=nothing_installed, env={"CI": ci})


def test_a_missing_driver_fails_under_ci() -> None:
    only_chromium = {"chromium": "/usr/bin/chromium"}.get
    with pytest.raises(pytest.fail.Exception, match="no chromedriver"):
        find_browser(which=only_chromium, env={"CI": "true"})


@pytest.mark.parametrize("env", [{}, {"CI": "false"}])
def test_a_missing_browser_skips_elsewhere(env: dict[str, str]) -> None:
    with pytest.raises(pytest.skip.Exception, match="no headless browser here"):
        find_browser(which=nothing_installed, env=env)


def test_an_installed_browser_is_returned() -> None:
    installed = {"chromium": "/usr/bin/chromium", "chromedriver": "/usr/bin/chromedriver"}.get
    chromium, driver, webdriver = find_browser(which=installed, env={"CI": "true"})
    assert (chromium, driver) == ("/usr/bin/chromium", "/usr/bin/chromedriver")
    assert hasattr(webdriver, "Chrome")
