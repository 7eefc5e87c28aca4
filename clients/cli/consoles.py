"""The command line's consoles: a terminal's width, or a wide one when the output is piped or redirected."""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console

PIPED_WIDTH = 200  # a table piped to a file or another program keeps its columns whole (not rich's 80)


def wide_console(**options: Any) -> Console:
    """A rich console: the terminal's width on a terminal, else $COLUMNS or ``PIPED_WIDTH`` columns."""
    stream = sys.stderr if options.get("stderr") else sys.stdout
    if not stream.isatty() and "width" not in options:
        options["width"] = int(os.environ.get("COLUMNS") or PIPED_WIDTH)
    return Console(**options)
