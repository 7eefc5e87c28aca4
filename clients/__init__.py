"""Tools for bot authors: the ``trick-arena`` CLI (``clients.cli``), the SDK (``clients/python``, import name
``trickarena``) and the starter bots (``clients/examples``)."""
