"""Where ``trick-arena`` keeps an account's API key: ``$TRICK_ARENA_KEY`` when set, else a file readable by
its owner alone (``$TRICK_ARENA_KEY_FILE``, default ``$XDG_CONFIG_HOME/trick-arena/key``, i.e.
``~/.config/trick-arena/key``). The key is written there when the account is opened or the key rotated and is
never printed again."""

from __future__ import annotations

import os
from pathlib import Path

KEY_ENV = "TRICK_ARENA_KEY"
KEY_FILE_ENV = "TRICK_ARENA_KEY_FILE"


def default_key_file(environ: dict[str, str] | None = None) -> Path:
    """The key file's path.

    >>> str(default_key_file({"XDG_CONFIG_HOME": "/cfg"}))
    '/cfg/trick-arena/key'
    >>> str(default_key_file({"TRICK_ARENA_KEY_FILE": "/k", "XDG_CONFIG_HOME": "/cfg"}))
    '/k'
    """
    env = os.environ if environ is None else environ
    if env.get(KEY_FILE_ENV):
        return Path(env[KEY_FILE_ENV])
    config = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "trick-arena" / "key"


def read_key(path: Path) -> tuple[str | None, str]:
    """The key and where it came from ("$TRICK_ARENA_KEY" or the file's path); (None, "") without one."""
    from_env = os.environ.get(KEY_ENV, "").strip()
    if from_env:
        return from_env, f"${KEY_ENV}"
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        return None, ""
    return (text or None), str(path)


def write_key(path: Path, key: str) -> None:
    """Write `key` to `path` readable and writable by its owner alone (mode 0600; its directory 0700)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # an existing file keeps its old mode through O_CREAT
        os.write(fd, (key + "\n").encode())
    finally:
        os.close(fd)
