"""Stable-Baselines3's PPO and DQN on the Gymnasium environment (flat, 0-based options), each
policy measured exactly with dicejack's compare and exploitability.

Not run in CI (Stable-Baselines3 needs torch): ``pip install stable-baselines3`` then
``python benchmarks/measure_sb3.py [--steps N]``. docs/ecosystem.md quotes its output.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dicejack import compare, solver
from dicejack.envs.gym_env import DiceJackEnv
from dicejack.games.handout_rules import Game


def greedy_table(model, game: Game) -> np.ndarray:
    """The model's deterministic J in every state <x, y> (its action + 1)."""
    states = np.array([(x, y) for x in range(game.low) for y in range(game.low)], dtype=np.int64)
    actions, _ = model.predict(states, deterministic=True)
    return (np.asarray(actions).reshape(game.shape) + 1).astype(np.int64)


def main() -> None:
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.env_checker import check_env

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = Game(6, 15, 17, 2)
    sol = solver.solve(game)
    check_env(DiceJackEnv(game, zero_based=True, flat=True))
    print(f"game {game}; {args.steps:,} environment steps each, against the optimal opponent, "
          f"agent first half the time; seed {args.seed}")
    print(f"{'agent':<6} {'seconds':>8} {'agree(dec)':>11} {'score_vs_opt':>13} "
          f"{'exploitability':>15}")
    for name, cls in (("PPO", PPO), ("DQN", DQN)):
        env = DiceJackEnv(game, "optimal", zero_based=True, flat=True, zero_sum=True,
                          agent_first=0.5)
        start = time.perf_counter()
        model = cls("MlpPolicy", env, seed=args.seed, verbose=0, device="cpu")
        model.learn(total_timesteps=args.steps)
        seconds = time.perf_counter() - start
        table = greedy_table(model, game)
        c = compare.compare(game, sol, table)
        print(f"{name:<6} {seconds:>8.1f} {c.metrics['agreement_decisive']:>11.3f} "
              f"{c.metrics['score_vs_optimal']:>13.4f} {c.metrics['exploitability']:>15.4f}")


if __name__ == "__main__":
    main()
