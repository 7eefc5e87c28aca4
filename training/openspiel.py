"""The four games as OpenSpiel Python games (``python_trickarena_<game>``): one deal per episode, chance nodes
for the dealer and each card, information-state and observation tensors from the one encoder, and
``resample_from_infostate`` through the engine's own world sampler (for ISMCTS).
Design: docs/training.md#openspiel
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]

import engine
from engine.bots.base import choose_random
from engine.card_tables import CODES, INT_OF_CODE
from engine.game import rules_for
from engine.games import card_commons, sloppy_seconds, sore_spot, spot_hearts
from engine.sampling import PASS_OFFSETS, played_this_round, sample_world

from .encoding import ACTIONS, layout
from .table import Table

PREFIX = "python_trickarena_"
#: The largest number of points a seat can score or lose in one deal, per game.
DEAL_BOUND = {
    "spot-hearts": sum(spot_hearts.POINTS),
    "card-commons": sum(card_commons.POINTS) + card_commons.MOON,
    "sloppy-seconds": sum(sloppy_seconds.VALUE) + sloppy_seconds.MIN_HAND_SCORE,
    "sore-spot": sum(sore_spot.NUMBER) + 52,
}
#: What seeds a resampled world's later rounds (never played: an episode is one deal).
WORLD_SEED = 0


def short_name(game: str) -> str:
    """OpenSpiel's name of ``game``: ``python_trickarena_spot_hearts`` for ``spot-hearts``."""
    return PREFIX + game.replace("-", "_")


def _parameters(game: str) -> dict[str, Any]:
    """OpenSpiel parameters: ``players`` and the engine's options that have a default (the episode is the
    game's first deal, so Sore Spot's ``rounds`` does not apply)."""
    info = engine.GAMES[game]
    params: dict[str, Any] = {"players": 4 if info.min_players <= 4 <= info.max_players else info.min_players}
    for name, spec in info.options.items():
        if spec.default is not None:
            params[name] = spec.default
    return params


def _game_type(game: str) -> Any:
    info = engine.GAMES[game]
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"Trick Arena {info.name} (one deal)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(game),
    )


class TrickArenaGame(pyspiel.Game):
    """One deal of a Trick Arena game; ``params``: ``players`` and the engine's options."""

    game_id = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        settings = {**_parameters(self.game_id), **given}
        players = int(settings.pop("players"))
        self.options = engine.validate_options(self.game_id, players, settings)
        self.players = players
        rules = rules_for(self.game_id)
        self.deck = sorted(rules.deck(players, self.options))
        bound = float(DEAL_BOUND[self.game_id])
        length = len(self.deck) + players * (rules.pass_count + int(rules.has_sore_phase))
        super().__init__(_game_type(self.game_id), pyspiel.GameInfo(
            num_distinct_actions=ACTIONS, max_chance_outcomes=ACTIONS, num_players=players,
            min_utility=-bound, max_utility=bound, utility_sum=None, max_game_length=length),
            given)

    def new_initial_state(self) -> TrickArenaState:
        return TrickArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return Observer(self.players)


class TrickArenaState(pyspiel.State):
    """A deal in progress: the dealer and cards dealt (chance), then the engine's game (:class:`Table`)."""

    def __init__(self, game: TrickArenaGame) -> None:
        super().__init__(game)
        self._spec = (game.game_id, game.players, game.options, tuple(game.deck))
        self._dealer = -1
        self._cards: list[int] = []
        self._table: Table | None = None

    # --- the game --------------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self._table is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self._over():
            return int(pyspiel.PlayerId.TERMINAL)
        return self._table.seat()

    def _over(self) -> bool:
        game = self._table.game if self._table is not None else None
        return game is not None and (game.over or game.round_no > 0)

    def _legal_actions(self, player: int) -> list[int]:
        assert self._table is not None
        return self._table.legal(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        game_id, players, _, deck = self._spec
        if self._dealer < 0:
            return [(s, 1.0 / players) for s in range(players)]
        left = sorted(set(deck) - set(self._cards))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        if self._table is not None:
            self._table.act(action)
            return
        game_id, players, options, deck = self._spec
        if self._dealer < 0:
            self._dealer = action
            return
        self._cards.append(action)
        if len(self._cards) == len(deck):
            self._table = Table(engine.new_game(game_id, players, options, seed=WORLD_SEED,
                                                deals=[{"dealer": self._dealer, "hands": self.hands()}]))

    def hands(self) -> list[list[str]]:
        """The hands dealt so far: card ``i`` goes to the ``i``-th seat from the dealer's left (R-DEAL)."""
        players = self._spec[1]
        hands: list[list[str]] = [[] for _ in range(players)]
        for i, c in enumerate(self._cards):
            hands[(self._dealer + 1 + i) % players].append(CODES[c])
        return hands

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self._dealer < 0 else f"deal {CODES[action]}"
        kind = "play"
        if self._table is not None and player == self._table.seat():
            decision = self._table.game.decision(player)
            kind = str(decision["kind"]) if decision else kind
        return f"{kind} {CODES[action]}"

    def is_terminal(self) -> bool:
        return self._over()

    def returns(self) -> list[float]:
        players = self._spec[1]
        if not self._over():
            return [0.0] * players
        assert self._table is not None
        return [float(p) for p in self._table.signed(self._table.game.history[0]["points"])]

    def record(self) -> engine.shapes.Record:
        """The engine's replay record of the deal (explicit hands, then the moves)."""
        assert self._table is not None, "the cards are still being dealt"
        return self._table.game.record()

    def __str__(self) -> str:
        if self._table is None:
            return f"dealer {self._dealer}; dealt {' '.join(CODES[c] for c in self._cards)}"
        game = self._table.game
        return json.dumps({"hands": [list(h) for h in (game.view(s)["hand"] for s in range(game.players))],
                           "table": game.spectator_view(), "picked": self._table.picked}, sort_keys=True)

    # --- what a seat knows ------------------------------------------------------------------------------
    def seat_string(self, player: int) -> str:
        """``player``'s information: the cards dealt to it so far, then its view and its picks as JSON."""
        if self._table is None:
            mine = [c for i, c in enumerate(self._cards) if (self._dealer + 1 + i) % self._spec[1] == player]
            return f"seat {player}; dealer {self._dealer}; dealt me {' '.join(CODES[c] for c in mine)}"
        view = self._table.view(player)
        picked = [CODES[c] for c in self._table.picks_of(player)]
        return json.dumps({"view": view, "picked": picked}, sort_keys=True, separators=(",", ":"))

    def seat_tensor(self, player: int, out: np.ndarray) -> None:
        if self._table is None:
            out.fill(0.0)
            players = self._spec[1]
            for i, c in enumerate(self._cards):
                if (self._dealer + 1 + i) % players == player:
                    out[c] = 1.0  # the hand's part comes first
            return
        out[:] = self._table.observe(player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TrickArenaState:
        """A state ``player_id`` cannot tell from this one: the hidden cards dealt by ``engine.sample_world``
        from its view, others' hidden choices (passes, sore cards, picks) drawn at random."""
        rng = random.Random(int(probability_sampler() * 2 ** 53))
        state: TrickArenaState = self.get_game().new_initial_state()
        game_id, players, options, deck = self._spec
        state._dealer = self._dealer
        if self._table is None:
            mine = {i for i in range(len(self._cards)) if (self._dealer + 1 + i) % players == player_id}
            known = {self._cards[i] for i in mine}
            others = [c for c in deck if c not in known]
            rng.shuffle(others)
            state._cards = [self._cards[i] if i in mine else others.pop() for i in range(len(self._cards))]
            return state
        table = world_table(self._table, player_id, rng)
        state._table = table
        state._cards = _deal_order(table.game.dealt[0]["hands"], self._dealer, players)
        return state


def _deal_order(hands: list[list[str]], dealer: int, players: int) -> list[int]:
    """A deal sequence (card ``i`` to the ``i``-th seat left of the dealer) that gives ``hands``."""
    left = [sorted(INT_OF_CODE[c] for c in h) for h in hands]
    return [left[(dealer + 1 + i) % players][i // players] for i in range(sum(len(h) for h in hands))]


def world_table(table: Table, seat: int, rng: random.Random) -> Table:
    """A table in the same position as ``table`` as far as ``seat`` can tell: its view and picks are the same,
    the other hands are ``engine.sample_world``'s, the others' hidden choices random."""
    view = table.view(seat)
    game_id, n = view["game"], view["players"]
    rules = rules_for(game_id)
    hands = sample_world(view, rng)  # current hands, seat order
    plays = played_this_round(view)
    start = [list(h) for h in hands]
    for _, s, c in plays:
        start[s].append(CODES[c])
    sore = [c for c in view.get("sore_cards") or [] if c is not None]
    if len(sore) == n:
        for s, code in enumerate(sore):
            start[s].append(code)
    passes: list[list[str]] | None = None
    if "passed" in view:  # undo the pass: what each seat gave, its own and the one it got known
        offset = PASS_OFFSETS[view["pass_direction"]]
        passes = [[] for _ in range(n)]
        passes[seat] = list(view["passed"])
        passes[(seat - offset) % n] = list(view["received"])
        for s in range(n):
            if s not in (seat, (seat - offset) % n):
                passes[s] = rng.sample(sorted(start[(s + offset) % n]), rules.pass_count)
        start = [[c for c in start[s] if c not in passes[(s - offset) % n]] + passes[s] for s in range(n)]
    world = engine.new_game(game_id, n, dict(view["options"]), seed=WORLD_SEED,
                            deals=[{"dealer": view["dealer"], "hands": start}])
    if passes is not None:
        for s in range(n):
            world.apply(s, passes[s])
    if len(sore) == n:
        for s in range(n):
            world.apply(s, sore[s])
    if view["phase"] in ("sore", "pass"):  # the seats that have chosen already
        for s in range(n):
            if s not in view["to_act"]:
                world.apply(s, view["chosen"] if s == seat and view["phase"] == "pass"
                            else view["chosen"][0] if s == seat else choose_random(rng, world.decision(s)))
    for _, s, c in plays:
        world.apply(s, CODES[c])
    out = Table(world)
    actor = table.seat()
    if table.picked:  # the seat to act's cards picked toward its pass: its own, or random to the others
        out.picked = list(table.picked) if actor == seat else rng.sample(out.legal(actor), len(table.picked))
    return out


class Observer:
    """OpenSpiel's Python observer: the encoder's array (``tensor``), its parts (``dict``), the seat's
    JSON (``string_from``)."""

    def __init__(self, players: int) -> None:
        lay = layout(players)
        self.tensor = np.zeros(lay.size, np.float32)
        self.dict = {name: self.tensor[start:start + length] for name, (start, length) in lay.parts.items()}

    def set_from(self, state: TrickArenaState, player: int) -> None:
        state.seat_tensor(player, self.tensor)

    def string_from(self, state: TrickArenaState, player: int) -> str:
        return state.seat_string(player)


def _register() -> list[str]:
    names = []
    for game in engine.GAMES:
        cls = type(f"TrickArenaGame_{game.replace('-', '_')}", (TrickArenaGame,), {"game_id": game})
        pyspiel.register_game(_game_type(game), cls)
        names.append(short_name(game))
    return names


#: The registered names, one per game (importing this module registers them).
GAME_NAMES: list[str] = _register()


def load(game: str, **params: Any) -> Any:
    """``pyspiel.load_game`` of ``game`` (an engine id such as ``spot-hearts``) with these parameters."""
    return pyspiel.load_game(short_name(game), params)
