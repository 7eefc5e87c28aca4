"""One module per game, each a :class:`~engine.rules.Rules` over the shared core."""

from .. import compiled as _compiled

# The mypyc build of the game modules, when it exists and matches the source (engine/compiled.py).
__path__ = _compiled.package_path(__name__) + __path__
