"""The docs' example runs, and the engine's docstring examples hold."""

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import engine

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"


def test_docs_example_runs(capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    exec(compile(code, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("pass [0, 1, 2, 3]") and "waiting for seat(s) 1 2 3" in out


def _has_examples(name: str) -> bool:
    return any(test.examples for test in doctest.DocTestFinder().find(importlib.import_module(name)))


ALL_MODULES = [
    m.name for m in pkgutil.walk_packages(engine.__path__, "engine.") if not m.name.endswith("__main__")
]
# Only modules that have examples: doctest over one without any passes whatever the code does.
MODULES = [name for name in ALL_MODULES if _has_examples(name)]


def test_the_engine_has_docstring_examples():
    assert len(MODULES) >= 3, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
