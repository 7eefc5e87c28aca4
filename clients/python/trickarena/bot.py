"""``Bot``: subclass it and write ``choose(view) -> move``. Then ``serve()`` it or ``practice()`` with it."""

from __future__ import annotations

from typing import Any, ClassVar

from trickarena.api import ArenaClient
from trickarena.ladder import play_ladder
from trickarena.poll import practice
from trickarena.server import BotServer
from trickarena.types import GAME_IDS, Move, SeatState, View


class Bot:
    """A trick-taking bot.

    ``choose`` gets the seat's view (own hand, public table, ``decision`` = ``{kind, count, legal}``) and
    returns a card code for a ``play`` or ``sore`` decision, or a list of ``count`` cards for a ``pass``.
    Set ``concurrent = True`` if ``choose`` is safe to call from several threads at once (several matches
    at a time); by default the server calls it one decision at a time.
    """

    name: ClassVar[str] = "my-bot"
    author: ClassVar[str] = "anonymous"
    version: ClassVar[str] = "1"
    games: ClassVar[tuple[str, ...]] = GAME_IDS
    concurrent: ClassVar[bool] = False

    def choose(self, view: View) -> Move:
        raise NotImplementedError("write choose(view) -> move in your Bot subclass")

    def on_start(self, info: dict[str, Any]) -> None:
        """A game starts (``{game, table, match, seat, players, options}``). Optional."""

    def on_end(self, info: dict[str, Any]) -> None:
        """A game ended (``{game, table, match, seat, totals, winners}``). Optional."""

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "author": self.author, "version": self.version, "games": list(self.games)}

    # --- ways to run it ---------------------------------------------------------------------------------

    def serve(self, host: str = "127.0.0.1", port: int = 9001) -> None:
        """Serve the bot protocol until Ctrl-C (register http://HOST:PORT with the arena)."""
        server = BotServer(self, host, port)
        print(f"bot {self.name!r} listening on {server.url}  (Ctrl-C stops)", flush=True)
        server.serve_forever()

    def play_ladder(self, api_url: str, bot_id: str, owner_token: str) -> None:
        """As a polling bot (registered without a URL): play every ladder seat it is given; Ctrl-C stops."""
        print(f"bot {self.name!r} ({bot_id}) playing its ladder seats at {api_url}  (Ctrl-C stops)",
              flush=True)
        try:
            play_ladder(api_url, bot_id, owner_token, self)
        except KeyboardInterrupt:
            print("stopped", flush=True)

    def practice(self, api_url: str, game: str, opponents: list[str] | None = None,
                 options: dict[str, Any] | None = None) -> SeatState | None:
        """Play one game against house bots through the move API; None if stopped with Ctrl-C."""
        with ArenaClient(api_url) as api:
            try:
                table_id, final = practice(api, self, game, opponents, options)
            except KeyboardInterrupt:
                print("stopped", flush=True)
                return None
        view = final.view
        print(f"table {table_id} over: totals {view.get('scores')}, winners {view.get('winners')}",
              flush=True)
        return final
