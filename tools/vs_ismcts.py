"""The search house bot against OpenSpiel's ISMCTS at Card Commons: an outside yardstick. Needs ``open_spiel``
(``pip install '.[yardstick]'``); ends with one JSON line.
Design: docs/engine.md#against-an-outside-yardstick-python--m-toolsvs_ismcts

    python -m tools.vs_ismcts [--deals 120] [--ms 100]   # 100 ms per decision: about 18 minutes
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import click

from engine import compiled

compiled.activate()  # the search bot with the compiled rules when built, as the house-bot worker plays

from engine.bots.base import choose_random  # noqa: E402
from engine.bots.search import SearchBot  # noqa: E402
from engine.cards import CODES, Card  # noqa: E402
from engine.game import new_game  # noqa: E402
from engine.rules import MAX_TARGET  # noqa: E402
from engine.state import GameState  # noqa: E402

GAME = "card-commons"
PLAYERS = 4
#: OpenSpiel's ``hearts`` parameters that make it Card Commons (docs/rules/card-commons.md).
OPENSPIEL_PARAMS: dict[str, bool] = {
    "pass_cards": True,  # R-CC-PASS: left, right, across, hold (the pass direction is given per deal)
    "no_pts_on_first_trick": False,  # R-CC-FIRST: a void seat may throw anything on the first trick
    "can_lead_any_club": False,  # R-CC-LEAD: the 2♣ leads
    "must_break_hearts": False,  # hearts may be led any time after the first trick
    "qs_breaks_hearts": True,  # moot with hearts free to lead
    "can_lead_hearts_instead_of_qs": False,  # moot with hearts free to lead
    "jd_bonus": False,
    "avoid_all_tricks_bonus": False,
}
UCT_C = 2.0  # OpenSpiel's own examples' exploration constant
PASS_CARDS = 3
INSTALL_HINT = "open_spiel is not installed: pip install '.[yardstick]'"


def to_action(card: int) -> int:
    """Our card int (``suit * 13 + rank``) as OpenSpiel's Hearts action (``rank * 4 + suit``).

    >>> to_action(Card.parse("2C")), to_action(Card.parse("QS")), to_action(Card.parse("AS"))
    (0, 43, 51)
    """
    return card % 13 * 4 + card // 13


def to_card(action: int) -> int:
    """OpenSpiel's Hearts action as our card int (the inverse of :func:`to_action`).

    >>> CODES[to_card(43)]
    'QS'
    """
    return action % 4 * 13 + action // 4


def sign_test(wins: int, losses: int) -> float:
    """One-sided exact sign test, as ``python -m engine duel``'s: the chance of at least ``wins`` of the
    ``wins + losses`` deals that differ if neither side were better.

    >>> sign_test(0, 0), round(sign_test(9, 1), 4), round(sign_test(5, 5), 4)
    (1.0, 0.0107, 0.623)
    """
    n = wins + losses
    if n == 0:
        return 1.0
    return sum(math.comb(n, i) for i in range(wins, n + 1)) / 2 ** n


def deal_game(seed: int | str, index: int) -> GameState[Any]:
    """Deal ``index``: round ``index % 4`` of a Card Commons game seeded ``seed/index``, ready to pass.

    The earlier rounds of that game are played at random (seeded) only to reach the round whose pass
    direction is wanted; the target is out of reach, so the game goes on.
    """
    game = new_game(GAME, PLAYERS, {"target": MAX_TARGET}, seed=f"{seed}/{index}")
    rng = random.Random(f"{seed}/{index}")
    while game.round_no < index % PLAYERS:
        for seat in game.to_act():
            game.apply(seat, choose_random(rng, game.decision(seat)))
    return game


class OutOfStep(RuntimeError):
    """Our engine and OpenSpiel disagree about a position: the yardstick would measure nothing."""


@dataclass
class Clock:
    """Decisions and the seconds they took, per side."""

    decisions: dict[str, int] = field(default_factory=lambda: {"ours": 0, "ismcts": 0})
    seconds: dict[str, float] = field(default_factory=lambda: {"ours": 0.0, "ismcts": 0.0})

    def add(self, side: str, decisions: int, seconds: float) -> None:
        self.decisions[side] += decisions
        self.seconds[side] += seconds

    def ms_per_decision(self, side: str) -> float:
        return 1000 * self.seconds[side] / max(1, self.decisions[side])


class Duel:
    """Plays hands between the two bots on one OpenSpiel game (docs/engine.md, "Against an outside
    yardstick")."""

    def __init__(self, pyspiel: Any, ms: int, seed: int, uct_c: float = UCT_C) -> None:
        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("hearts", dict(OPENSPIEL_PARAMS))
        self.play_bot = SearchBot(budget_ms=ms, seed=f"{seed}/play")
        self.pass_bot = SearchBot(budget_ms=PASS_CARDS * ms, seed=f"{seed}/pass")
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self.evaluator = evaluator  # the bot holds it by reference: keep it alive as long as the bot
        policy = pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
        self.ismcts = pyspiel.ISMCTSBot(seed, evaluator, uct_c, 2 ** 31 - 1, -1, policy, False, False,
                                        ms / 1000)
        # ISMCTS fails a search that the clock ended before its second simulation (the first only expands
        # the root): a tiny budget, a stalled machine. That decision is then two simulations, and counted.
        self.ismcts_two = pyspiel.ISMCTSBot(seed, evaluator, uct_c, 2, -1, policy, False, False, -1.0)
        self.empty_searches = 0
        self.clock = Clock()

    def _ismcts_step(self, state: Any) -> int:
        started = time.perf_counter()
        try:
            action = int(self.ismcts.step(state))
        except self.pyspiel.SpielError as error:
            if "total_visits" not in str(error):
                raise
            self.empty_searches += 1
            action = int(self.ismcts_two.step(state))
        self.clock.add("ismcts", 1, time.perf_counter() - started)
        return action

    def _dealt(self, direction: int, hands: list[list[int]]) -> Any:
        """OpenSpiel's state after its chance nodes: this pass direction, seat ``s`` holding ``hands[s]``."""
        state = self.game.new_initial_state()
        state.apply_action(direction)
        for i in range(13 * PLAYERS):  # OpenSpiel deals card i to seat i % 4
            state.apply_action(to_action(hands[i % PLAYERS][i // PLAYERS]))
        return state

    def _ismcts_pass(self, direction: int, hands: list[list[int]], seat: int) -> list[int]:
        """ISMCTS's three pass cards for ``seat``, chosen with the deal turned so that it sits in seat 0."""
        turned = self._dealt(direction, [hands[(s + seat) % PLAYERS] for s in range(PLAYERS)])
        chosen: list[int] = []
        for _ in range(PASS_CARDS):
            action = self._ismcts_step(turned)
            turned.apply_action(action)
            chosen.append(action)
        return chosen

    def play_hand(self, game: GameState[Any], ours: set[int]) -> list[int]:
        """Play ``game``'s current round (at its pass) in lockstep with OpenSpiel; Card Commons points."""
        round_no = game.round_no
        hands = [list(h) for h in game.hands]
        direction = (game.rules.pass_offset(PLAYERS, round_no) or 0) % PLAYERS  # hold 0, left 1, ...
        state = self._dealt(direction, hands)
        while not state.is_terminal():
            seat = state.current_player()
            legal = sorted(to_card(a) for a in state.legal_actions())
            decision = game.decision(seat)
            if decision is None or sorted(Card.parse(c) for c in decision["legal"]) != legal:
                raise OutOfStep(f"seat {seat}: OpenSpiel allows {[CODES[c] for c in legal]}, "
                                f"our engine {decision and decision['legal']}")
            if decision["kind"] == "pass":
                if seat in ours:
                    started = time.perf_counter()
                    move = self.pass_bot.choose(game.view(seat))
                    self.clock.add("ours", PASS_CARDS, time.perf_counter() - started)
                    actions = [to_action(Card.parse(c)) for c in move]
                else:
                    actions = self._ismcts_pass(direction, hands, seat)
                for action in actions:
                    state.apply_action(action)
                game.apply(seat, [CODES[to_card(a)] for a in actions])
                continue
            if seat in ours:
                started = time.perf_counter()
                card = self.play_bot.choose(game.view(seat))
                self.clock.add("ours", 1, time.perf_counter() - started)
                action = to_action(Card.parse(card))  # type: ignore[arg-type]
            else:
                action = self._ismcts_step(state)
            state.apply_action(action)
            game.apply(seat, CODES[to_card(action)])
        if game.round_no == round_no:
            raise OutOfStep("OpenSpiel's hand is over, our engine's round is not")
        points = list(game.history[round_no]["points"])
        theirs = [26 - r for r in state.returns()]  # OpenSpiel's returns are 26 minus the points
        shift = {t - p for t, p in zip(theirs, points, strict=True)}
        if shift not in ({0}, {26}):
            raise OutOfStep(f"points: OpenSpiel {theirs}, our engine {points}")
        return points


@dataclass
class Tally:
    """Points per side over the hands played, and won deals for the sign test."""

    ours: int = 0
    ismcts: int = 0
    hands: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0

    def add_deal(self, first: list[int], second: list[int]) -> None:
        """One deal's two hands: ours in seats 0 and 2 (``first``), then in 1 and 3 (``second``)."""
        ours = first[0] + first[2] + second[1] + second[3]
        theirs = first[1] + first[3] + second[0] + second[2]
        self.ours += ours
        self.ismcts += theirs
        self.hands += 2
        if ours < theirs:
            self.wins += 1
        elif ours > theirs:
            self.losses += 1
        else:
            self.ties += 1

    def per_hand(self, points: int) -> float:
        """Points per seat and hand (each side holds two seats of every hand)."""
        return points / max(1, 2 * self.hands)


def run(deals: int, ms: int, seed: int, uct_c: float = UCT_C, out: Any = None) -> dict[str, Any]:
    """Play ``deals`` duplicate deals; progress lines go to ``out``; the summary as a dict."""
    import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]  # the yardstick extra

    duel = Duel(pyspiel, ms, seed, uct_c)
    tally = Tally()
    started = time.perf_counter()
    for index in range(deals):
        first = duel.play_hand(deal_game(seed, index), {0, 2})
        second = duel.play_hand(deal_game(seed, index), {1, 3})
        tally.add_deal(first, second)
        if out is not None:
            print(f"deal {index + 1}/{deals}: ours {first[0] + first[2]}+{second[1] + second[3]}, "
                  f"ismcts {first[1] + first[3]}+{second[0] + second[2]}  "
                  f"(won {tally.wins}, lost {tally.losses}, tied {tally.ties})", file=out, flush=True)
    elapsed = time.perf_counter() - started
    clock = duel.clock
    decisions = clock.decisions["ours"] + clock.decisions["ismcts"]
    return {
        "deals": deals,
        "ms_per_decision": ms,
        "ours_points_per_hand": round(tally.per_hand(tally.ours), 3),
        "ismcts_points_per_hand": round(tally.per_hand(tally.ismcts), 3),
        "p_value": round(sign_test(tally.wins, tally.losses), 6),
        "decisions_per_s": round(decisions / elapsed, 2),
        "deals_won": tally.wins,
        "deals_lost": tally.losses,
        "deals_tied": tally.ties,
        "ours_ms_per_decision": round(clock.ms_per_decision("ours"), 1),
        "ismcts_ms_per_decision": round(clock.ms_per_decision("ismcts"), 1),
        "ismcts_empty_searches": duel.empty_searches,
        "uct_c": uct_c,
        "seed": seed,
    }


@click.command(help=__doc__)
@click.option("--deals", type=click.IntRange(min=1), default=120, show_default=True,
              help="duplicate deals (each played twice, seats swapped)")
@click.option("--ms", type=click.IntRange(min=1, max=999), default=100, show_default=True,
              help="wall time per decision for both bots, in milliseconds")
@click.option("--seed", type=click.IntRange(min=0, max=2 ** 31 - 1), default=1, show_default=True,
              help="the deals' seed, and both bots'")
@click.option("--uct-c", type=click.FloatRange(min=0), default=UCT_C, show_default=True,
              help="ISMCTS's exploration constant")
def command(deals: int, ms: int, seed: int, uct_c: float) -> None:
    try:
        import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]  # noqa: F401
    except ImportError:
        raise click.ClickException(INSTALL_HINT) from None
    report = run(deals, ms, seed, uct_c, out=sys.stdout)
    print(f"ours:   {report['ours_points_per_hand']:.2f} points per hand, "
          f"{report['ours_ms_per_decision']:.0f} ms per decision")
    print(f"ismcts: {report['ismcts_points_per_hand']:.2f} points per hand, "
          f"{report['ismcts_ms_per_decision']:.0f} ms per decision")
    print(f"deals won {report['deals_won']}, lost {report['deals_lost']}, tied {report['deals_tied']}: "
          f"sign test p = {report['p_value']:.4g}; {report['decisions_per_s']:.1f} decisions/s")
    print(json.dumps(report))


def main(argv: list[str] | None = None) -> int:
    """Run the command; a wrong option or a missing open_spiel is one line on stderr (exit 2)."""
    try:
        command.main(args=argv, prog_name="python -m tools.vs_ismcts", standalone_mode=False)
    except click.ClickException as error:
        print(f"vs_ismcts: {error.format_message()}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, click.exceptions.Abort):
        print("vs_ismcts: interrupted", file=sys.stderr)
        return 130
    except OutOfStep as error:
        print(f"vs_ismcts: our engine and OpenSpiel disagree: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
