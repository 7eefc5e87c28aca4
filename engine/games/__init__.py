"""One module per game, each a :class:`~engine.rules.Rules` over the shared core."""
