"""The RQ job catalogue names real entry points, and nothing enqueues a job outside it."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from core.queues import CATALOGUE, Entry

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda entry: entry.function)
def test_each_entry_names_a_function_of_the_arena(entry: Entry) -> None:
    module, _, name = entry.function.rpartition(".")
    function = getattr(importlib.import_module(module), name)
    assert module.startswith("arena.") and inspect.isfunction(function)
    assert entry.timeout_s is None or entry.timeout_s > 0


def test_only_the_catalogue_enqueues_jobs() -> None:
    enqueuing = re.compile(r"\.enqueue(_call|_at|_in|_many)?\(")
    found = [f"{path.relative_to(ROOT)}:{number}"
             for package in ("api", "arena", "core", "devstack")
             for path in sorted((ROOT / package).rglob("*.py")) if path != ROOT / "core" / "queues.py"
             for number, line in enumerate(path.read_text().splitlines(), 1) if enqueuing.search(line)]
    assert not found, f"jobs enqueued outside core/queues.py: {found}"
