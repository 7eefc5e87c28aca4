"""Trick Arena game service: a Flask JSON API over Redis. Entry point: `create_app(config)`."""

from __future__ import annotations

from api.app import create_app

__all__ = ["create_app"]
