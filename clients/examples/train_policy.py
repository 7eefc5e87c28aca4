"""Train a small policy on the CPU, serve it as a bot, register it and watch it play a ladder match: a linear
softmax policy (numpy only) trained by REINFORCE against random play, one deal per episode. Needs the
`training` extra and, for the ladder, a running arena (`make run`). Design: docs/training.md

    python clients/examples/train_policy.py [--game sore-spot] [--seconds 40] [--api URL] [--no-ladder]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from trickarena import ApiError, ApiUnavailable, ArenaClient, BotServer

from engine import compiled

compiled.activate()  # the compiled rules when built: more deals per second of training

from training.encoding import layout  # noqa: E402
from training.policy import policy_bot  # noqa: E402
from training.single import SeatEnv  # noqa: E402

ONE_DEAL = {"sore-spot": {"rounds": 1}, "card-commons": {"target": 1}, "sloppy-seconds": {"target": 1},
            "spot-hearts": {"target": 1}}
PLAYERS = 4


class LinearPolicy:
    """Logits ``obs @ weights`` over the legal actions; ``greedy`` picks the best, else it samples."""

    def __init__(self, size: int, seed: int) -> None:
        self.weights = np.zeros((size, 52), np.float64)
        self.rng = np.random.default_rng(seed)
        self.greedy = False

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        nonzero = np.flatnonzero(obs)
        logits = obs[nonzero] @ self.weights[nonzero]
        logits = np.where(mask > 0, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum(), nonzero

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        p, _ = self.probabilities(obs, mask)
        return int(p.argmax()) if self.greedy else int(self.rng.choice(52, p=p))


def train(policy: LinearPolicy, game: str, seconds: float, seed: int, lr: float = 0.02) -> dict[str, float]:
    """REINFORCE with a running baseline, one deal per episode, for ``seconds`` of wall time."""
    env = SeatEnv(game, PLAYERS, ONE_DEAL[game], seat=0, opponents="random")
    scale = 26.0
    baseline = 0.0
    started = time.perf_counter()
    episodes = steps = 0
    while time.perf_counter() - started < seconds:
        obs, info = env.reset(seed=seed + episodes)
        trail: list[tuple[np.ndarray, np.ndarray, int, np.ndarray, float]] = []
        done = False
        while not done:
            mask = info["action_mask"]
            p, nonzero = policy.probabilities(obs, mask)
            action = int(policy.rng.choice(52, p=p))
            obs_next, reward, done, _, info = env.step(action)
            trail.append((obs[nonzero], nonzero, action, p, reward / scale))
            obs = obs_next
            steps += 1
        ret = 0.0
        for values, nonzero, action, p, reward in reversed(trail):
            ret += reward
            advantage = ret - baseline
            grad = -p
            grad[action] += 1.0
            policy.weights[nonzero] += lr * advantage * np.outer(values, grad)
        baseline += 0.01 * (ret - baseline)
        episodes += 1
    return {"episodes": episodes, "steps": steps, "seconds": round(time.perf_counter() - started, 1)}


def evaluate(policy: LinearPolicy | None, game: str, opponents: str, deals: int, seed: int) -> float:
    """Mean points per deal of seat 0 (signed: more is better) over ``deals`` one-deal games; None: random."""
    env = SeatEnv(game, PLAYERS, ONE_DEAL[game], seat=0, opponents=opponents)
    rng = np.random.default_rng(seed)
    total = 0.0
    for deal in range(deals):
        obs, info = env.reset(seed=10_000_000 + seed + deal)  # deals the training never saw
        done = False
        while not done:
            mask = info["action_mask"]
            action = policy(obs, mask) if policy else int(rng.choice(np.flatnonzero(mask)))
            obs, reward, done, _, info = env.step(action)
            total += reward
    return total / deals


def watch_ladder(api: ArenaClient, bot_id: str, timeout: float) -> dict | None:
    """Wait for the bot's first rated ladder match; its line of the bot's record (place, rating delta,
    strikes), or None after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            page = api.bot_matches(bot_id)
        except ApiError as error:
            if error.status != 404:  # 404: nothing played yet
                raise
        else:
            rated = [m for m in page["matches"] if m["status"] == "rated"]
            if rated:
                return rated[0]
        time.sleep(1.0)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--game", choices=sorted(ONE_DEAL), default="sore-spot")
    parser.add_argument("--seconds", type=float, default=40.0, help="training wall time")
    parser.add_argument("--eval-deals", type=int, default=200, help="deals per evaluation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="the bot server's port (0: any free port)")
    parser.add_argument("--name", default="trained-policy")
    parser.add_argument("--watch-timeout", type=float, default=300.0, help="seconds to wait for a match")
    parser.add_argument("--no-ladder", action="store_true", help="train and evaluate only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    policy = LinearPolicy(layout(PLAYERS).size, args.seed)
    trained = train(policy, args.game, args.seconds, args.seed)
    print(f"trained {trained['episodes']} deals ({trained['steps']} decisions) in {trained['seconds']} s",
          flush=True)
    policy.greedy = True
    report: dict = {"game": args.game, "training": trained, "eval_deals": args.eval_deals, "mean_points": {}}
    for opponents in ("random", "heuristic"):
        mine = evaluate(policy, args.game, opponents, args.eval_deals, args.seed)
        untrained = evaluate(None, args.game, opponents, args.eval_deals, args.seed)
        report["mean_points"][opponents] = {"trained": round(mine, 2), "random_play": round(untrained, 2)}
        print(f"against {opponents}: {mine:.2f} points per deal (random play in the same seat: "
              f"{untrained:.2f})", flush=True)
    if not args.no_ladder:
        server = BotServer(policy_bot(policy, args.name, games=[args.game]), args.host, args.port).start()
        try:
            with ArenaClient(args.api) as api:
                bot = api.register_bot(args.name, [args.game], url=server.url)
                print(f"serving {server.url}; registered {bot.name} as {bot.bot_id}; "
                      "waiting for a ladder match", flush=True)
                report["bot_id"] = bot.bot_id
                report["ladder_match"] = watch_ladder(api, bot.bot_id, args.watch_timeout)
        except (ApiError, ApiUnavailable) as error:
            print(f"train_policy: the arena at {args.api} refused or did not answer: {error}",
                  file=sys.stderr)
            return 1
        finally:
            server.stop()
        if report["ladder_match"] is None:
            print(f"train_policy: no ladder match within {args.watch_timeout:.0f} s", file=sys.stderr)
            return 1
        match = report["ladder_match"]
        print(f"ladder match {match['match']} on {match['ladder']}: place {match['place']}, "
              f"rating {match['rating']} ({match['delta']:+.1f}), strikes {len(match['strikes'])}",
              flush=True)
    report["wall_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
