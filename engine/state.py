"""The game state: one object drives any :class:`~engine.rules.Rules` through its phases (``sore``, ``pass``,
``play``, ``over``), holding what every game has (a :class:`~engine.table.TableState`); simultaneous phases
collect one choice per seat (R-SIMUL).

Design: docs/engine.md#how-a-game-is-written
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypedDict

from . import deals
from .card_tables import CODES, INT_OF_CODE, codes
from .cards import Card, CardError
from .draws import dealt_v2
from .errors import GameOverError, IllegalMoveError, MalformedMoveError, NotYourTurnError, OptionsError
from .rules import DIRECTION_NAMES, HOLD, Rules, index_of
from .shapes import (
    Deal,
    Decision,
    Move,
    MoveEntry,
    Phase,
    Record,
    RoundSummary,
    SeatView,
    SpectatorView,
    TableView,
)
from .table import TableState, X

PLAY: Final = Phase.PLAY
PASS: Final = Phase.PASS
SORE: Final = Phase.SORE
OVER: Final = Phase.OVER


def deal_from_seed(
    seed: int | str, round_no: int, deck: Sequence[int], players: int, dealer: int
) -> list[list[int]]:
    """R-DEAL: shuffle ``deck`` from (seed, round) and deal one at a time starting left of the dealer.

    The algorithm is :mod:`engine.deals` (docs/deals.md), so anyone can re-deal a finished table.
    """
    return dealt_v2(seed, round_no, deck, players, dealer)


def first_dealer_from_seed(seed: int | str, players: int) -> int:
    """R-DEALER: "the first dealer is determined randomly", derived from the table's seed."""
    return deals.first_dealer(seed, players)


class IntDeal(TypedDict):
    """An explicit deal checked by :func:`engine.new_game`: the dealer and every hand as card ints."""

    dealer: int
    hands: list[list[int]]


class GameState(TableState[X]):
    """A game in progress.  Create one with :func:`engine.new_game`.

    >>> import engine
    >>> g = engine.new_game("spot-hearts", players=4, seed=7)
    >>> g.phase, g.to_act()
    (<Phase.PASS: 'pass'>, [0, 1, 2, 3])
    """

    #: The legal cards of the last seat asked in this position (:meth:`_legal`); -1: none kept.
    _legal_seat: int
    _legal_ints: list[int]

    def __init__(
        self,
        rules: Rules[X],
        players: int,
        options: dict[str, Any],
        seed: int | str | None,
        deals: list[IntDeal],
        *,
        copy_of: GameState[X] | None = None,
    ) -> None:
        if copy_of is not None:  # GameState.copy
            self._copy_from(copy_of)
            return
        self.rules = rules
        self.game_id = rules.info.id
        self.players = players
        self.options = options
        self.seed = seed
        self._given_deals = deals
        self.deck = sorted(rules.deck(players, options))
        self.totals = [0] * players
        self.history: list[RoundSummary] = []  # finished rounds: dealer, tricks, points, ...
        # Accepted moves in order, logged as two plain lists; :attr:`moves` builds their entries.
        self._move_seats: list[int] = []
        self._move_values: list[Move] = []  # canonical codes (R-CARD)
        self._moves: list[MoveEntry] = []  # the entries of ``moves`` built so far
        self.dealt: list[Deal] = []  # the deal of every round so far: {"dealer", "hands"}
        self.winners: list[int] = []
        self.over = False  # phase is OVER: the game has ended
        self.round_no = -1
        self._legal_seat = -1
        self._legal_ints = []
        if deals:
            self._first_dealer = deals[0]["dealer"]
        elif seed is not None and rules.first_dealer_from_seed():
            self._first_dealer = first_dealer_from_seed(seed, players)
        else:
            self._first_dealer = 0
        self._start_round()

    # ----- round setup ----------------------------------------------------
    def _start_round(self) -> None:
        self.round_no += 1
        n = self.players
        if self.round_no < len(self._given_deals):
            deal = self._given_deals[self.round_no]
            self.dealer = deal["dealer"]
            self.hands = [sorted(h) for h in deal["hands"]]
        elif self.seed is not None:
            self.dealer = (self._first_dealer + self.round_no) % n
            self.hands = deal_from_seed(self.seed, self.round_no, self.deck, n, self.dealer)
        else:
            raise OptionsError(f"round {self.round_no} has no explicit deal and the game has no seed")
        self.dealt.append({"dealer": self.dealer, "hands": [[CODES[c] for c in h] for h in self.hands]})
        self.leader: int | None = None
        self.turn = -1
        self.trick = []
        self.trick_seats = []
        self.tricks = []
        self.won = [[] for _ in range(n)]
        self.pending: dict[int, list[int]] = {}
        self.passed: list[list[int] | None] = [None] * n
        self.received: list[list[int] | None] = [None] * n
        self.extra = self.rules.new_extra(n)
        self._drop_legal()
        offset = self.rules.pass_offset(n, self.round_no)
        self.pass_offset = offset
        if self.rules.has_sore_phase:
            self.phase = SORE
        elif offset not in (None, HOLD):
            self.phase = PASS
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.leader = self.rules.first_leader(self)
        self.turn = self.leader

    # ----- queries --------------------------------------------------------

    @property
    def version(self) -> int:
        """Number of accepted moves: a client's handle for "has anything changed"."""
        return len(self._move_seats)

    @property
    def moves(self) -> list[MoveEntry]:
        """The accepted moves in order, ``{"seat", "move"}`` each, the move in canonical codes.

        A move is logged as its seat and its codes alone; the entries are built when first read
        (the list then grows with the game), so that play which never reads them makes no object
        per move for them.
        """
        built = self._moves
        seats = self._move_seats
        if len(built) < len(seats):
            values = self._move_values
            for i in range(len(built), len(seats)):
                built.append({"seat": seats[i], "move": values[i]})
        return built

    def to_act(self) -> list[int]:
        """Seats that must act now; several during a simultaneous phase, none once over."""
        if self.phase is PLAY:
            return [self.turn]
        if self.phase is OVER:
            return []
        return [s for s in range(self.players) if s not in self.pending]

    def _legal(self, seat: int) -> list[int]:
        """``seat``'s legal cards, computed once per position: kept for the last seat asked until a move
        is accepted (a caller asks ``decision`` and then applies, so the check of the move reuses them).
        The list is never changed in place."""
        if seat == self._legal_seat:
            return self._legal_ints
        phase = self.phase
        if phase is PLAY:
            ints = self.rules.legal_plays(self, seat) if seat == self.turn else []
        elif phase is OVER or seat in self.pending:
            ints = []
        else:
            ints = list(self.hands[seat])
        self._legal_seat = seat
        self._legal_ints = ints
        return ints

    def _drop_legal(self) -> None:
        """Forget the kept legal cards (a move was accepted or a round began); the stale list stays
        until the next is computed, so that nothing is allocated here."""
        self._legal_seat = -1

    # The public calls take ``object`` for what a caller passes in, so that a wrong type gets the
    # engine's own error (MalformedMoveError), compiled or not.
    def legal_moves(self, seat: object) -> list[str]:
        """Legal card codes for ``seat`` now.  In a pass phase: the cards to choose three of."""
        return [CODES[c] for c in self._legal(self._seat(seat))]

    def decision(self, seat: object) -> Decision | None:
        """What ``seat`` must decide now, or None: ``{"kind", "count", "legal"}``."""
        legal = self._legal(self._seat(seat))
        if not legal:
            return None
        phase = self.phase
        return {
            "kind": phase,
            "count": self.rules.pass_count if phase is PASS else 1,
            "legal": [CODES[c] for c in legal],
        }

    # ----- moves ----------------------------------------------------------
    def apply(self, seat: object, move: object) -> None:
        """Apply ``seat``'s move; on any error nothing changes.

        A play or sore card is a card code; a pass is a list of three codes (:data:`Move`).
        """
        if type(seat) is int and type(move) is str and self.phase is PLAY and seat == self.turn:
            # The common case, kept short: a canonical code among the legal cards.
            c = INT_OF_CODE.get(move, -1)
            if c >= 0 and index_of(self._legal(seat), c) >= 0:
                self._move_seats.append(seat)
                self._move_values.append(move)
                self._drop_legal()
                self._play(seat, c)
                return
        self._apply_checked(seat, move)

    def _apply_checked(self, given_seat: object, move: object) -> None:
        """Every check, in order, with the error that says what is wrong; then the move."""
        seat = self._seat(given_seat)
        if self.phase is OVER:
            raise GameOverError("the game is over", [])
        if seat not in self.to_act():
            who = " ".join(str(s) for s in self.to_act())
            raise NotYourTurnError(f"seat {seat} has nothing to decide now; waiting for seat(s) {who}", [])
        legal = self._legal(seat)
        try:
            cards = self._parse(move)
        except (CardError, MalformedMoveError) as exc:  # re-raised with the legal moves, for the caller
            raise MalformedMoveError(str(exc), codes(legal)) from None
        bad = [c for c in cards if c not in legal]
        if bad:
            raise IllegalMoveError(self._why_illegal(seat, bad[0], legal), codes(legal))
        self._move_seats.append(seat)
        self._move_values.append(_move_json(cards, self.phase))
        self._drop_legal()
        if self.phase is PLAY:
            self._play(seat, cards[0])
        else:
            self.pending[seat] = cards
            if len(self.pending) == self.players:
                self._resolve_simultaneous()

    def _seat(self, seat: object) -> int:
        """``seat`` if it is a seat number of this game, else MalformedMoveError."""
        if type(seat) is int and 0 <= seat < self.players:
            return seat
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise MalformedMoveError(f"seat must be an integer from 0 to {self.players - 1}, not {seat!r}")
        return seat

    def _parse(self, move: object) -> list[int]:
        """The move's cards, or MalformedMoveError / CardError saying what is wrong with its shape."""
        if self.phase == PASS:
            want = self.rules.pass_count
            if not isinstance(move, list | tuple) or len(move) != want:
                raise MalformedMoveError(f'a pass is a list of {want} card codes, e.g. ["2C", "3D", "QS"]')
            cards = [card_of(m) for m in move]
            if len(set(cards)) != want:
                raise MalformedMoveError(f"a pass names {want} different cards")
            return cards
        if not isinstance(move, str):
            what = "sore card" if self.phase == SORE else "play"
            raise MalformedMoveError(f'a {what} is one card code such as "QS", not {move!r}')
        return [card_of(move)]

    def _why_illegal(self, seat: int, bad: int, legal: list[int]) -> str:
        if bad not in self.hands[seat]:
            return f"{CODES[bad]} is not in seat {seat}'s hand"
        return f"{CODES[bad]} may not be played now: {self.rules.why_not(self, seat, bad)}"

    def _resolve_simultaneous(self) -> None:
        n = self.players
        if self.phase == SORE:
            laid = {}
            for seat, (c,) in self.pending.items():
                self.hands[seat].remove(c)
                laid[seat] = c
            self.rules.on_secret_cards(self, laid)
        else:
            offset = self.pass_offset or 0
            for seat, cards in self.pending.items():
                for c in cards:
                    self.hands[seat].remove(c)
                self.passed[seat] = sorted(cards)
            for seat in range(n):
                given = self.passed[seat] or []
                target = (seat + offset) % n
                self.received[target] = given
                self.hands[target].extend(given)
                self.hands[target].sort()
        self.pending = {}
        self._start_play()

    def _play(self, seat: int, c: int) -> None:
        hand = self.hands[seat]
        del hand[index_of(hand, c)]
        trick = self.trick
        trick.append(c)
        self.trick_seats.append(seat)
        self.rules.on_play(self, seat, c)
        if len(trick) < self.players:
            self.turn = (seat + 1) % self.players
            return
        winner = self.rules.trick_winner(self)
        leader = self.leader
        assert leader is not None  # a trick is being played
        self.tricks.append({"leader": leader, "cards": [CODES[c] for c in trick], "winner": winner})
        if winner is not None:
            self.won[winner].extend(trick)
            leader = self.leader = winner
        # winner None (Sore Spot, all Aces, R-SS-WIN): the cards leave play and the same seat leads.
        self.trick = []
        self.trick_seats = []
        self.turn = leader
        if not self.hands[leader]:
            self._end_round()

    def _end_round(self) -> None:
        points = self.rules.round_points(self)
        for seat in range(self.players):
            self.totals[seat] += points[seat]
        summary: RoundSummary = {"dealer": self.dealer, "tricks": list(self.tricks), "points": points}
        if self.pass_offset is not None:
            summary["pass_direction"] = DIRECTION_NAMES[self.pass_offset]
        self.rules.add_to_summary(self, summary)
        self.history.append(summary)
        if self.rules.game_over(self):
            self.phase = OVER
            self.over = True
            self.winners = self.rules.winners(self.totals)
        else:
            self._start_round()

    # ----- views ----------------------------------------------------------
    def _public(self) -> TableView:
        view: TableView = {
            "game": self.game_id,
            "players": self.players,
            "options": dict(self.options),
            "version": self.version,
            "round": self.round_no,
            "dealer": self.dealer,
            "phase": self.phase,
            "to_act": self.to_act(),
            "hand_sizes": [len(h) for h in self.hands],
            "trick": {
                "leader": self.leader if self.phase == PLAY else None,
                "cards": [
                    {"seat": s, "card": CODES[c]} for s, c in zip(self.trick_seats, self.trick, strict=True)
                ],
            },
            "tricks": list(self.tricks),
            "scores": list(self.totals),
            "rounds": [{"dealer": r["dealer"], "points": r["points"]} for r in self.history],
            "over": self.over,
            "winners": list(self.winners),
        }
        if self.pass_offset is not None:
            view["pass_direction"] = DIRECTION_NAMES[self.pass_offset]
        self.rules.add_public(self, view)
        return view

    def view(self, seat: object) -> SeatView:
        """What ``seat`` may see: its hand, its own pending choice and passes, and the public table."""
        return self._seat_view(self._seat(seat), self._public())

    def views(self) -> tuple[list[SeatView], SpectatorView]:
        """Every seat's :meth:`view` (in seat order) and the :meth:`spectator_view`, with the public table
        built once for all of them: what a service stores after each move. The views share the public
        table's lists and dicts, so treat them as read-only (encode them, say).

        >>> import engine
        >>> g = engine.new_game("spot-hearts", players=4, seed=1)
        >>> seats, spectator = g.views()
        >>> seats == [g.view(seat) for seat in range(4)], spectator == g.spectator_view()
        (True, True)
        """
        public = self._public()
        spectator: SpectatorView = {**public, "seat": None}
        return [self._seat_view(me, public) for me in range(self.players)], spectator

    def _seat_view(self, me: int, public: TableView) -> SeatView:
        decision = self.decision(me)
        view: SeatView = {
            **public,  # type: ignore[typeddict-item]  # chosen, passed, received are added below
            "seat": me,
            "hand": [CODES[c] for c in self.hands[me]],
            "decision": decision,
            "legal": decision["legal"] if decision else [],
        }
        if me in self.pending:
            view["chosen"] = codes(self.pending[me])
        passed, received = self.passed[me], self.received[me]
        if passed is not None:
            view["passed"] = codes(passed)
            view["received"] = codes(received or [])
        return view

    def spectator_view(self) -> SpectatorView:
        """The public table: no hands, no pending choices."""
        return {**self._public(), "seat": None}

    def copy(self) -> GameState[X]:
        """An independent copy of the game, for search: moves applied to one leave the other as it was.

        It copies only what moves change (hands, the trick, won cards, passes, scores, logs, the
        game's own state), so it costs far less than replaying the record.

        >>> import engine
        >>> g = engine.new_game("sore-spot", players=3, seed=1)
        >>> trial = g.copy()
        >>> for seat in trial.to_act():
        ...     trial.apply(seat, trial.legal_moves(seat)[0])
        >>> trial.phase, g.phase, g.version
        (<Phase.PLAY: 'play'>, <Phase.SORE: 'sore'>, 0)
        """
        return GameState(
            self.rules, self.players, self.options, self.seed, self._given_deals, copy_of=self
        )

    def _copy_from(self, other: GameState[X]) -> None:
        """Become an independent copy of ``other`` (see :meth:`copy`)."""
        # Shared: what no move changes (rules, options, deck, explicit deals).
        self.rules = other.rules
        self.game_id = other.game_id
        self.players = other.players
        self.options = other.options
        self.seed = other.seed
        self._given_deals = other._given_deals
        self.deck = other.deck
        self._first_dealer = other._first_dealer
        # Plain values.
        self.round_no = other.round_no
        self.dealer = other.dealer
        self.phase = other.phase
        self.over = other.over
        self.leader = other.leader
        self.turn = other.turn
        self.pass_offset = other.pass_offset
        # Containers that moves change, one level deep; what they hold is never changed in place
        # (completed tricks, round summaries, logged moves, a pending choice, cached legal lists).
        self.hands = [list(h) for h in other.hands]
        self.trick = list(other.trick)
        self.trick_seats = list(other.trick_seats)
        self.tricks = list(other.tricks)
        self.won = [list(w) for w in other.won]
        self.pending = dict(other.pending)
        self.passed = list(other.passed)
        self.received = list(other.received)
        self.totals = list(other.totals)
        self.winners = list(other.winners)
        self.history = list(other.history)
        self._move_seats = list(other._move_seats)
        self._move_values = list(other._move_values)
        self._moves = list(other._moves)
        self.dealt = list(other.dealt)
        self.extra = other.rules.copy_extra(other.extra)
        self._legal_seat = other._legal_seat
        self._legal_ints = other._legal_ints

    def record(self) -> Record:
        """The replay record: every hand dealt so far, the seed, and the moves.

        It holds every hand, so services show it only once the game is over.
        """
        rec: Record = {
            "game": self.game_id,
            "players": self.players,
            "options": dict(self.options),
            "deals": [{"dealer": d["dealer"], "hands": d["hands"]} for d in self.dealt],
            "moves": [
                {"seat": s, "move": m} for s, m in zip(self._move_seats, self._move_values, strict=True)
            ],
        }
        if self.seed is not None:
            rec["seed"] = self.seed
            rec["dealing"] = deals.CURRENT_VERSION
        return rec


def card_of(code: Any) -> int:
    """The card of a code: a canonical code ("QS") by lookup, anything else through
    :meth:`Card.parse`, which accepts "qs" or "10H" and raises :class:`CardError` for the rest."""
    if type(code) is str:
        c = INT_OF_CODE.get(code, -1)
        if c >= 0:
            return c
    return Card.parse(code)


def _move_json(cards: list[int], phase: Phase) -> Move:
    """The canonical form of an accepted move for the log (R-CARD codes)."""
    if phase == PASS:
        return codes(cards)
    return CODES[cards[0]]
