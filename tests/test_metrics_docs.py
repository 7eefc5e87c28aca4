"""docs/metrics.md documents exactly the metrics the code defines (name, type, labels), and the paths,
commands and flags it names exist."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import redis
from prometheus_client.metrics import MetricWrapperBase

import core.metrics
from arena.__main__ import main as arena_cli

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "metrics.md").read_text()


def documented() -> dict[str, tuple[str, tuple[str, ...]]]:
    """name -> (type, label names) from the doc's table; a label's value list in parentheses is skipped."""
    rows = {}
    for name, kind, labels in re.findall(r"^\| `(trickarena_\w+)` \| (\w+) \| ([^|]*) \|", DOC, re.M):
        rows[name] = (kind, tuple(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", labels))))
    return rows


def defined(redis_url: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    out = {}
    for metric in vars(core.metrics).values():
        if isinstance(metric, MetricWrapperBase):
            name = metric._name + ("_total" if metric._type == "counter" else "")
            out[name] = (metric._type, tuple(metric._labelnames))
    collector = core.metrics.QueueCollector(redis.Redis.from_url(redis_url), {"arena": "docs-check"})
    for family in collector.collect():
        out[family.name] = (family.type, ("queue",))
    return out


def test_every_metric_is_documented_with_its_type_and_labels(redis_url):
    assert documented() == defined(redis_url)


def test_the_paths_commands_and_flags_named_exist():
    for path in re.findall(r"`((?:core|api|arena|devstack|tools|docs)/[\w./-]+)`", DOC):
        assert (ROOT / path).exists(), path
    for name in re.findall(r"python -m arena ([a-z-]+)", DOC):
        assert name in arena_cli.commands, name
    flags = {opt for command in arena_cli.commands.values() for param in command.params for opt in param.opts}
    assert set(re.findall(r"`(--[a-z-]+)", DOC)) <= flags
    assert "--bind" in {opt for param in arena_cli.commands["metrics"].params for opt in param.opts}


def test_the_module_examples_hold():
    result = doctest.testmod(core.metrics)
    assert result.attempted and not result.failed
