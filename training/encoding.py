"""The one encoder: a seat's view (as the engine builds it and the arena sends it) as a fixed-size array, its
legal cards as a mask over the 52 card actions. The environments and the policy bot both call it.
Design: docs/training.md#the-observation
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from engine.card_tables import CODES, INT_OF_CODE
from engine.rules import DIRECTION_NAMES, MAX_TARGET

if TYPE_CHECKING:
    from engine.shapes import TableView
    from engine.state import GameState

#: The action space: one card, ``suit * 13 + rank_index`` (clubs, diamonds, hearts, spades; 2 up to the Ace).
ACTIONS = 52
PHASES = ("sore", "pass", "play", "over")
DIRECTIONS = ("hold", "left", "right", "across")
SUITS = "CDHS"
SCORE_SCALE = 100.0  # scores and round points are given in hundreds
CARDS_PER_SEAT_SCALE = 13.0
SCORE_BOUND = 2.0 * MAX_TARGET / SCORE_SCALE  # a total never passes the largest target by that much
ROUND_BOUND = float(MAX_TARGET)


@dataclass(frozen=True)
class Layout:
    """Where each part of the observation sits: ``parts[name] = (start, length)``, in order."""

    players: int
    parts: dict[str, tuple[int, int]]
    size: int

    def slice(self, name: str) -> slice:
        start, length = self.parts[name]
        return slice(start, start + length)


def _parts(players: int) -> list[tuple[str, int]]:
    """The parts of the observation in order (docs/training.md has the table); ``r`` counts seats from the
    observing seat (0 = itself, 1 = the seat to its left, ...)."""
    n = players
    parts: list[tuple[str, int]] = [("hand", 52), ("picked", 52), ("passed", 52), ("received", 52)]
    parts += [(f"played/{r}", 52) for r in range(n)]
    parts += [(f"trick/{r}", 52) for r in range(n)]
    parts += [(f"won/{r}", 52) for r in range(n)]
    parts += [(f"sore/{r}", 52) for r in range(n)]
    parts += [("phase", len(PHASES)), ("pass_direction", len(DIRECTIONS)), ("to_pick", 1),
              ("leader", n), ("dealer", n), ("hand_sizes", n), ("scores", n),
              ("trump", 4), ("broken", 4), ("hearts_broken", 1), ("tricks_done", 1), ("round", 1),
              ("seat", n)]
    return parts


@cache
def layout(players: int) -> Layout:
    """The observation's layout for ``players`` seats (the same for every game).

    >>> layout(4).size, layout(4).parts["hand"], layout(3).size
    (1080, (0, 52), 867)
    """
    parts: dict[str, tuple[int, int]] = {}
    at = 0
    for name, length in _parts(players):
        parts[name] = (at, length)
        at += length
    return Layout(players, parts, at)


def bounds(players: int) -> tuple[np.ndarray, np.ndarray]:
    """Each element's low and high: 0 and 1, except the picks left (0-3), hand sizes and tricks done (0-4),
    scores (within ``SCORE_BOUND``) and the round (0 up)."""
    lay = layout(players)
    low = np.zeros(lay.size, np.float32)
    high = np.ones(lay.size, np.float32)
    high[lay.slice("to_pick")] = 3.0
    high[lay.slice("hand_sizes")] = 52 / CARDS_PER_SEAT_SCALE
    high[lay.slice("tricks_done")] = 52 / CARDS_PER_SEAT_SCALE
    low[lay.slice("scores")] = -SCORE_BOUND
    high[lay.slice("scores")] = SCORE_BOUND
    high[lay.slice("round")] = ROUND_BOUND
    return low, high


def encode(view: Mapping[str, Any], picked: Iterable[int] = ()) -> np.ndarray:
    """``view`` (a seat's view: engine ``GameState.view`` or the JSON the arena sends) as a float32 array of
    ``layout(players).size``; ``picked``: the cards (ints) already chosen toward a multi-card decision.

    >>> import engine
    >>> g = engine.new_game("spot-hearts", 4, seed=1)
    >>> obs = encode(g.view(0))
    >>> int(obs[layout(4).slice("hand")].sum()), int(obs[layout(4).slice("phase")].argmax())
    (13, 1)
    """
    n: int = view["players"]
    me: int = view["seat"]
    lay = layout(n)
    parts = lay.parts
    obs = np.zeros(lay.size, np.float32)
    ones: list[int] = []
    code = INT_OF_CODE
    ones.extend(code[c] for c in view["hand"])
    chosen = list(picked)
    chosen.extend(code[c] for c in view.get("chosen") or ())
    at = parts["picked"][0]
    ones.extend(at + c for c in chosen)
    if "passed" in view:
        at = parts["passed"][0]
        ones.extend(at + code[c] for c in view["passed"])
        at = parts["received"][0]
        ones.extend(at + code[c] for c in view["received"] or ())
    played = parts["played/0"][0]
    won = parts["won/0"][0]
    for trick in view["tricks"]:
        seat = trick["leader"]
        winner = trick["winner"]
        won_at = won + ((winner - me) % n) * 52 if winner is not None else -1
        for c in trick["cards"]:
            card = code[c]
            ones.append(played + ((seat - me) % n) * 52 + card)
            if won_at >= 0:
                ones.append(won_at + card)
            seat = (seat + 1) % n
    at = parts["trick/0"][0]
    current = view["trick"]
    ones.extend(at + ((e["seat"] - me) % n) * 52 + code[e["card"]] for e in current["cards"])
    sore = view.get("sore_cards")
    if sore:
        at = parts["sore/0"][0]
        ones.extend(at + ((s - me) % n) * 52 + code[c] for s, c in enumerate(sore) if c is not None)
    phase = view["phase"]
    ones.append(parts["phase"][0] + PHASES.index(phase))
    direction = view.get("pass_direction")
    if direction is not None:
        ones.append(parts["pass_direction"][0] + DIRECTIONS.index(direction))
    leader = current["leader"]
    if leader is not None:
        ones.append(parts["leader"][0] + (leader - me) % n)
    ones.append(parts["dealer"][0] + (view["dealer"] - me) % n)
    trump = view.get("trump")
    if trump:
        ones.append(parts["trump"][0] + SUITS.index(trump))
    at = parts["broken"][0]
    ones.extend(at + SUITS.index(s) for s in view.get("broken") or ())
    if view.get("hearts_broken"):
        ones.append(parts["hearts_broken"][0])
    ones.append(parts["seat"][0] + me)
    obs[ones] = 1.0
    decision = view.get("decision")
    if decision is not None:
        obs[parts["to_pick"][0]] = decision["count"] - len(chosen)
    sizes = view["hand_sizes"]
    scores = view["scores"]
    hs, sc = parts["hand_sizes"][0], parts["scores"][0]
    for r in range(n):
        s = (me + r) % n
        obs[hs + r] = sizes[s] / CARDS_PER_SEAT_SCALE
        obs[sc + r] = scores[s] / SCORE_SCALE
    obs[parts["tricks_done"][0]] = len(view["tricks"]) / CARDS_PER_SEAT_SCALE
    obs[parts["round"][0]] = view["round"]
    return obs


def legal_actions(view: Mapping[str, Any], picked: Iterable[int] = ()) -> list[int]:
    """The legal actions now: the seat's legal cards (ints) not already picked, in card order."""
    skip = set(picked)
    return sorted(c for c in (INT_OF_CODE[x] for x in view["legal"]) if c not in skip)


def action_mask(view: Mapping[str, Any], picked: Iterable[int] = ()) -> np.ndarray:
    """1 for every legal action (:func:`legal_actions`), 0 elsewhere; int8, as PettingZoo's card games.

    >>> import engine
    >>> g = engine.new_game("sore-spot", 3, seed=2)
    >>> int(action_mask(g.view(0)).sum()) == len(g.view(0)["legal"])
    True
    """
    mask = np.zeros(ACTIONS, np.int8)
    legal = legal_actions(view, picked)
    if legal:
        mask[legal] = 1
    return mask


def card_code(action: int) -> str:
    """The card code of an action (``0`` is ``2C``, ``51`` is ``AS``).

    >>> card_code(0), card_code(49)
    ('2C', 'QS')
    """
    return CODES[action]


class GameEncoder:
    """:func:`encode` and :func:`action_mask` of every seat of one engine game, read from the game's state
    instead of a view: ``encode(game.view(seat), picked)`` array for array, without building the view
    (tests/training/test_training_encoding.py compares the two at every step of seeded games).

    The environments encode a seat at every step, and :func:`encode` walks every trick of the round each
    time. Here each seat's array is kept from one call to the next and only what changed since the seat's
    last call is written: while a round's play goes on, the cards played since (a card in the trick sets one
    element; a finished trick moves its cards to ``played`` and ``won`` and clears ``trick``) and the few
    numbers that change on the way; in a pass or sore phase, the cards chosen. A new round or phase rebuilds
    the seat's array from the state. The game must only move forward (no undo), as an engine game does.
    Every index is precomputed per observing seat.
    Elements are written through a ``memoryview`` of the array: the same float32 conversion as numpy's,
    at half the cost per element.
    """

    def __init__(self, game: GameState[Any]) -> None:
        self.game = game
        n = self.players = game.players
        lay = layout(n)
        start = {name: at for name, (at, _) in lay.parts.items()}
        self._picked = start["picked"]
        self._passed = start["passed"]
        self._received = start["received"]
        self._phase = start["phase"]
        self._direction = start["pass_direction"]
        self._to_pick = start["to_pick"]
        self._trump = start["trump"]
        self._broken = start["broken"]
        self._hearts_broken = start["hearts_broken"]
        self._tricks_done = start["tricks_done"]
        self._round = start["round"]
        self._seat = start["seat"]
        #: ``_order[s]``: the seats from ``s`` on, in play order.
        self._order = [tuple((s + r) % n for r in range(n)) for s in range(n)]

        def rows(part: str, me: int) -> tuple[int, ...]:
            """Where each seat's element of a per-seat part starts in ``me``'s array (counted from ``me``)."""
            first, length = lay.parts[f"{part}/0"] if f"{part}/0" in lay.parts else lay.parts[part]
            width = length if f"{part}/0" in lay.parts else 1
            return tuple(first + ((s - me) % n) * width for s in range(n))

        self._played_at = [rows("played", me) for me in range(n)]
        self._trick_at = [rows("trick", me) for me in range(n)]
        self._won_at = [rows("won", me) for me in range(n)]
        self._sore_at = [rows("sore", me) for me in range(n)]
        self._leader_at = [rows("leader", me) for me in range(n)]
        self._dealer_at = [rows("dealer", me) for me in range(n)]
        self._size_at = [rows("hand_sizes", me) for me in range(n)]
        self._score_at = [rows("scores", me) for me in range(n)]
        rules = game.rules
        self._pass_count: int = rules.pass_count
        probe: dict[str, Any] = {}
        rules.add_public(game, cast("TableView", probe))
        #: The game's own public facts that a card played can change (trump, broken suits, hearts broken).
        self._public_in_play = bool({"trump", "broken", "hearts_broken"} & probe.keys())
        self._obs = [np.zeros(lay.size, np.float32) for _ in range(n)]
        self._cells = [_floats(obs) for obs in self._obs]
        #: Per seat: the (round, phase) its array was built in (None: never), the round's finished tricks
        #: and the current trick's cards already in it, and the public facts written.
        self._built: list[tuple[int, str] | None] = [None] * n
        self._tricks_in = [0] * n
        self._cards_in = [0] * n
        self._leader_in: list[int | None] = [None] * n
        self._facts_in: list[TableView | None] = [None] * n
        #: To clear a part: a slice of a memoryview copies fastest.
        self._zeros = _floats(np.zeros(52, np.float32))

    def encode(self, seat: int, picked: list[int]) -> np.ndarray:
        """``encode(game.view(seat), picked)``: a new array (the kept one is copied)."""
        game = self.game
        phase = game.phase
        if self._built[seat] != (game.round_no, phase):
            self._rebuild(seat, picked)
        elif phase == "play" and not picked:
            self._catch_up(seat)
        else:
            self._choices(seat, picked)
        return self._obs[seat].copy()

    def mask(self, seat: int, picked: list[int]) -> np.ndarray:
        """``action_mask(game.view(seat), picked)``."""
        mask = np.zeros(ACTIONS, np.int8)
        cells = mask.data
        code = INT_OF_CODE
        for legal in self.game.legal_moves(seat):
            cells[code[legal]] = 1
        for c in picked:
            cells[c] = 0
        return mask

    def _catch_up(self, me: int) -> None:
        """Add the cards played since ``me``'s last call in this round's play."""
        game = self.game
        cells = self._cells[me]
        tricks = game.tricks
        done = len(tricks)
        if done > self._tricks_in[me]:
            code = INT_OF_CODE
            played_at, won_at = self._played_at[me], self._won_at[me]
            trick_at = self._trick_at[me]
            for trick in tricks[self._tricks_in[me]:]:
                winner = trick["winner"]
                won = won_at[winner] if winner is not None else -1
                for seat, shown in zip(self._order[trick["leader"]], trick["cards"], strict=True):
                    card = code[shown]
                    cells[played_at[seat] + card] = 1.0
                    cells[trick_at[seat] + card] = 0.0  # off the table (if it was on it)
                    if won >= 0:
                        cells[won + card] = 1.0
                    if seat == me:
                        cells[card] = 0.0  # out of the hand
            leader = game.leader
            if leader != self._leader_in[me]:  # not when the leader won the trick, or nobody did
                leader_at = self._leader_at[me]
                for at in leader_at:
                    cells[at] = 0.0
                if leader is not None:
                    cells[leader_at[leader]] = 1.0
                self._leader_in[me] = leader
            cells[self._tricks_done] = done / CARDS_PER_SEAT_SCALE
            self._tricks_in[me] = done
            self._cards_in[me] = 0
        cards_now = game.trick
        if len(cards_now) > self._cards_in[me]:
            seats = game.trick_seats
            trick_at = self._trick_at[me]
            for i in range(self._cards_in[me], len(cards_now)):
                seat = seats[i]
                card = cards_now[i]
                cells[trick_at[seat] + card] = 1.0
                if seat == me:
                    cells[card] = 0.0
            self._cards_in[me] = len(cards_now)
        cells[self._to_pick] = 1.0 if game.legal_moves(me) else 0.0  # a play is one card
        hands = game.hands
        for seat, at in enumerate(self._size_at[me]):
            cells[at] = len(hands[seat]) / CARDS_PER_SEAT_SCALE
        if self._public_in_play:
            facts = self._facts()
            if facts != self._facts_in[me]:
                self._public(me, facts)

    def _choices(self, me: int, picked: list[int]) -> None:
        """In a pass or sore phase (or once over) only ``me``'s choice changes: its cards, those to pick."""
        self._cells[me][self._picked:self._passed] = self._zeros
        self._chosen(me, picked)

    def _chosen(self, me: int, picked: list[int]) -> None:
        """The cards ``me`` picked (``picked``) or chose (the engine's pending choice), and those to pick."""
        game = self.game
        cells = self._cells[me]
        chosen = list(picked)
        pending = game.pending.get(me)
        if pending is not None:
            chosen.extend(pending)
        at = self._picked
        for c in chosen:
            cells[at + c] = 1.0
        if game.legal_moves(me):  # the view's decision
            count = self._pass_count if game.phase == "pass" else 1
            cells[self._to_pick] = count - len(chosen)
        else:
            cells[self._to_pick] = 0.0

    def _facts(self) -> TableView:
        facts = cast("TableView", {})
        game = self.game
        game.rules.add_public(game, facts)
        return facts

    def _public(self, me: int, facts: TableView) -> None:
        """The game's own public facts that play changes: trump, broken suits, hearts broken."""
        self._facts_in[me] = facts
        known = cast("dict[str, Any]", facts)
        cells = self._cells[me]
        cells[self._trump:self._hearts_broken + 1] = self._zeros[:9]  # the three parts are contiguous
        trump = known.get("trump")
        if trump:
            cells[self._trump + SUITS.index(trump)] = 1.0
        for s in known.get("broken") or ():
            cells[self._broken + SUITS.index(s)] = 1.0
        if known.get("hearts_broken"):
            cells[self._hearts_broken] = 1.0

    def _rebuild(self, me: int, picked: list[int]) -> None:
        """``me``'s whole array from the game's state, as :func:`encode` builds it from the view."""
        game = self.game
        self._obs[me].fill(0.0)
        cells = self._cells[me]
        for c in game.hands[me]:
            cells[c] = 1.0
        self._chosen(me, picked)
        passed = game.passed[me]
        if passed is not None:
            for c in passed:
                cells[self._passed + c] = 1.0
            for c in game.received[me] or ():
                cells[self._received + c] = 1.0
        code = INT_OF_CODE
        played_at, won_at = self._played_at[me], self._won_at[me]
        tricks = game.tricks
        for trick in tricks:
            winner = trick["winner"]
            for seat, shown in zip(self._order[trick["leader"]], trick["cards"], strict=True):
                card = code[shown]
                cells[played_at[seat] + card] = 1.0
                if winner is not None:
                    cells[won_at[winner] + card] = 1.0
        trick_at = self._trick_at[me]
        for seat, card in zip(game.trick_seats, game.trick, strict=True):
            cells[trick_at[seat] + card] = 1.0
        facts = self._facts()
        sore = cast("dict[str, Any]", facts).get("sore_cards")
        if sore:
            sore_at = self._sore_at[me]
            for seat, c in enumerate(sore):
                if c is not None:
                    cells[sore_at[seat] + code[c]] = 1.0
        phase = game.phase
        cells[self._phase + PHASES.index(phase)] = 1.0
        if game.pass_offset is not None:
            cells[self._direction + DIRECTIONS.index(DIRECTION_NAMES[game.pass_offset])] = 1.0
        leader = game.leader if phase == "play" else None
        if leader is not None:
            cells[self._leader_at[me][leader]] = 1.0
        cells[self._dealer_at[me][game.dealer]] = 1.0
        self._public(me, facts)
        cells[self._seat + me] = 1.0
        hands, totals = game.hands, game.totals
        for seat, at in enumerate(self._size_at[me]):
            cells[at] = len(hands[seat]) / CARDS_PER_SEAT_SCALE
        for seat, at in enumerate(self._score_at[me]):
            cells[at] = totals[seat] / SCORE_SCALE
        cells[self._tricks_done] = len(tricks) / CARDS_PER_SEAT_SCALE
        cells[self._round] = game.round_no
        self._built[me] = (game.round_no, phase)
        self._tricks_in[me] = len(tricks)
        self._cards_in[me] = len(game.trick)
        self._leader_in[me] = leader


def _floats(array: np.ndarray) -> memoryview[float]:
    """A memoryview of a float32 ``array``'s elements (typed as floats: through bytes, as ``cast`` wants)."""
    return array.data.cast("B").cast("f")
