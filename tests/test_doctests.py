"""Every docstring example in core, the API, the arena, the command line and the dev stack runs, module by
module (the engine's run in tests/engine/test_engine_docs.py, on its interpreted modules)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "api", "arena", "clients/cli", "devstack")


def modules_with_examples() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>>" in path.read_text():
                parts = path.relative_to(ROOT).with_suffix("").parts
                names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_of_each_module_run(name: str) -> None:
    results = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert results.attempted > 0 and results.failed == 0, f"{name}: {results}"
