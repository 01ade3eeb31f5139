"""Moves per second of the game through each interface: the Gymnasium env (self-play), the
PettingZoo AEC env, the OpenSpiel game (a player move plus its chance node count as one move),
beside the baseline, a plain Python loop of the same rules (``Game.outcome`` and
``roll_total``), in the same run.

Usage: python benchmarks/bench_envs.py [--games 2000] [--sides 6 --low 15 --high 17 --dice 2]

Uniformly random J in every interface; CPU seconds (time.process_time). Needs the gym,
pettingzoo and openspiel extras (the test extra installs all three).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dicejack.games.handout_rules import CONTINUES, Game, roll_total


def plain_loop(game: Game, games: int, rng: np.random.Generator) -> int:
    cdf = [list(row) for row in game.sum_cdf_table.tolist()]
    moves = 0
    for _ in range(games):
        scores, mover = [0, 0], 0
        while True:
            j = int(rng.integers(1, game.n_dice + 1))
            score = scores[mover] + roll_total(cdf[j], float(rng.random()))
            moves += 1
            if game.outcome(score) != CONTINUES:
                break
            scores[mover] = score
            mover = 1 - mover
    return moves


def gymnasium_env(game: Game, games: int, rng: np.random.Generator) -> int:
    from dicejack.envs.gym_env import DiceJackEnv

    env = DiceJackEnv(game, "self")
    env.reset(seed=int(rng.integers(2**31)))
    moves = 0
    for _ in range(games):
        env.reset()
        done = False
        while not done:
            done = env.step(int(rng.integers(1, game.n_dice + 1)))[2]
            moves += 1
    return moves


def pettingzoo_env(game: Game, games: int, rng: np.random.Generator) -> int:
    from dicejack.envs import dicejack_v0

    env = dicejack_v0.env(game=game)
    env.reset(seed=int(rng.integers(2**31)))
    moves = 0
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(int(rng.integers(game.n_dice)))
                moves += 1
    return moves


def openspiel_game(game: Game, games: int, rng: np.random.Generator) -> int:
    import dicejack.envs.openspiel as dos

    os_game = dos.load(game)
    moves = 0
    for _ in range(games):
        state = os_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                totals, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(totals, p=probs)))
            else:
                state.apply_action(int(rng.integers(game.n_dice)))
                moves += 1
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--sides", type=int, default=6)
    parser.add_argument("--low", type=int, default=15)
    parser.add_argument("--high", type=int, default=17)
    parser.add_argument("--dice", type=int, default=2)
    args = parser.parse_args()
    game = Game(args.sides, args.low, args.high, args.dice)
    print(f"{game}: {args.games:,} random games per interface")
    print(f"{'interface':<28} {'moves/s':>12} {'vs plain loop':>14}")
    base = None
    for name, run in (("plain Python loop (baseline)", plain_loop),
                      ("Gymnasium DiceJackEnv", gymnasium_env),
                      ("PettingZoo dicejack_v0", pettingzoo_env),
                      ("OpenSpiel python_dicejack", openspiel_game)):
        rng = np.random.default_rng(1)
        start = time.process_time()
        moves = run(game, args.games, rng)
        rate = moves / (time.process_time() - start)
        base = base or rate
        print(f"{name:<28} {rate:>12,.0f} {rate / base:>13.2f}x")


if __name__ == "__main__":
    main()
