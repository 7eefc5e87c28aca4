"""Find the Bot to run from what a user types: a file path (``my_bot.py``) or ``module:Class``."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path

import click
from trickarena import Bot


def load_bot(spec: str) -> Bot:
    """``path/to/bot.py``, ``path/to/bot.py:ClassName``, ``pkg.module`` or ``pkg.module:ClassName``."""
    if spec.startswith(("http://", "https://")):
        raise click.BadParameter(f"{spec} is a bot behind a URL: play it with `trick-arena match URL "
                                 "URL ...` (a local match) or `trick-arena challenge` (on the service); BOT "
                                 "here is a Python file or module with a trickarena.Bot subclass")
    target, _, class_name = spec.partition(":")
    if target.endswith(".py") or Path(target).is_file():
        path = Path(target).resolve()
        if not path.is_file():
            raise click.BadParameter(f"no such file: {target}")
        module_name = f"trick_arena_user_bot_{path.stem}"
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise click.BadParameter(f"cannot import {target}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        loader_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    if class_name:
        cls = getattr(module, class_name, None)
        if not (inspect.isclass(cls) and issubclass(cls, Bot)):
            raise click.BadParameter(f"{class_name} in {target} is not a trickarena.Bot subclass")
        return cls()
    found = [obj for obj in vars(module).values()
             if inspect.isclass(obj) and issubclass(obj, Bot) and obj is not Bot
             and obj.__module__ == module.__name__]
    if len(found) != 1:
        names = ", ".join(c.__name__ for c in found) or "none"
        raise click.BadParameter(f"{target} defines {len(found)} Bot subclasses ({names}); name one: "
                                 f"{target}:ClassName")
    return found[0]()
