"""`python -m tools.growth`: measure the growth curves, print their table, plot them, end with one JSON line.

    python -m tools.growth --curves ladder,history --quick  # some curves, at tiny sizes (seconds)
    python -m tools.growth --output growth.json --plot docs/growth.png
Design: docs/scaling.md#how-each-curve-is-measured
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from tools.growth.fit import Curve

CURVES = ("ladder", "history", "longpoll", "watchers", "inflight")
Measure = Callable[..., list[Curve]]


def load(name: str) -> Measure:
    """The ``measure`` of curve module `name` (tools/growth/NAME.py)."""
    module: ModuleType = importlib.import_module(f"tools.growth.{name}")
    measure: Measure = module.measure
    return measure


def table(curves: Sequence[Curve]) -> str:
    """The readable table: one line per curve."""
    lines = [f"{'curve':<32} {'sizes':<22} {'values':<34} {'exponent':>8} {'goal':<18} met"]
    for curve in curves:
        goal = []
        if curve.max_exponent is not None:
            goal.append(f"k ≤ {curve.max_exponent:g}")
        if curve.limit is not None:
            goal.append(f"≤ {curve.limit:g} {curve.unit}")
        values = ", ".join(f"{v:,.4g}" for v in curve.values)
        sizes = ", ".join(f"{n:,}" for n in curve.sizes)
        met = "yes" if curve.goal_met else "NO"
        lines.append(f"{curve.key:<32} {sizes:<22} {values:<34} {curve.exponent:>8.3f} "
                     f"{'; '.join(goal) or '—':<18} {met}")
    return "\n".join(lines)


def plot(curves: Sequence[Curve], path: Path) -> None:
    """Log-log PNG: one panel per axis (bots, matches, polls, watchers), each cost over its smallest size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes_names = list(dict.fromkeys(curve.axis for curve in curves))
    figure, panels = plt.subplots(len(axes_names), 1, figsize=(9, 3.6 * len(axes_names)), squeeze=False)
    for panel, axis in zip(panels[:, 0], axes_names, strict=True):
        for curve in (c for c in curves if c.axis == axis):
            base = next((v for v in curve.values if v > 0), 1.0)
            ratios = [max(v, base * 1e-3) / base for v in curve.values]
            panel.plot(curve.sizes, ratios, marker="o", label=f"{curve.title} (k={curve.exponent:.2f})")
        panel.set_xscale("log")
        panel.set_yscale("log")
        panel.set_xlabel(axis)
        panel.set_ylabel("cost ÷ cost at the smallest size")
        panel.grid(True, which="both", alpha=0.3)
        panel.legend(fontsize=7, loc="upper left")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=90)
    plt.close(figure)


class OneLineParser(argparse.ArgumentParser):
    """A wrong option is answered with one line (no usage block, no traceback) and exit status 2."""

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(prog="python -m tools.growth", description=__doc__.splitlines()[0])
    parser.add_argument("--curves", default=",".join(CURVES),
                        help=f"comma-separated curves to measure ({', '.join(CURVES)}); default all")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a check that it runs, in seconds")
    parser.add_argument("--output", type=Path, help="also write the JSON to this file")
    parser.add_argument("--plot", type=Path, help="write a log-log PNG of the curves to this file")
    options = parser.parse_args(argv)
    chosen = [name.strip() for name in options.curves.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in CURVES]
    if unknown or not chosen:
        parser.error(f"unknown curve(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(CURVES)}")
    options.chosen = chosen
    return options


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    started = time.monotonic()
    curves: list[Curve] = []
    for name in options.chosen:
        print(f"[{name}] measuring...", file=sys.stderr, flush=True)
        curves += load(name)(None, quick=options.quick)
    print(table(curves))
    if options.plot is not None and curves:
        plot(curves, options.plot)
    result: dict[str, Any] = {"curves": [curve.as_json() for curve in curves],
                              "goals_met": all(curve.goal_met for curve in curves),
                              "quick": options.quick,
                              "seconds": round(time.monotonic() - started, 1)}
    line = json.dumps(result)
    if options.output is not None:
        options.output.write_text(json.dumps(result, indent=1))
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
