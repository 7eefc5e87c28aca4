"""Shared by the API and the arena, with no web framework: settings, Redis keys, domain errors, tokens and the
jobs the API hands to the arena by name; ``core.redis`` (the transport), ``core.tables`` (API tables),
``core.arena`` (bots, ladders, ratings) and ``core.analysis`` (game analyses).

Design: README.md#architecture
"""
