"""Trick Arena game service: a Flask JSON API over Redis. Entry point: `create_app(config)`."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # Lazy, so that importing one api module (say api.problems) does not build the whole app first.
    if name == "create_app":
        from api.app import create_app

        return create_app
    raise AttributeError(f"module 'api' has no attribute {name!r}")
