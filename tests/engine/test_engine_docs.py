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


def test_docs_sample_world_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    example = next(b for b in blocks if "sample_world" in b)
    exec(compile(example, str(DOC), "exec"), {})


MODULES = [
    m.name for m in pkgutil.walk_packages(engine.__path__, "engine.") if not m.name.endswith("__main__")
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
