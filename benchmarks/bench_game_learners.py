"""Speed of the learners of protocol games (learners/game_learners.py) in one run: moves per
CPU-second of each learner's compiled loop and of its plain Python loop on Pig, beside the
bundled compiled q-learning on the handout's game (its specialised, table-indexed loop).

    python benchmarks/bench_game_learners.py                 # Pig to 50, 20,000 games
    python benchmarks/bench_game_learners.py --goal 100 --games 50000

CPU time (time.process_time) of play() alone: enumeration, building the learner and numba's
start-up (every kernel is run once before timing) are excluded. The plain loops play a tenth of
the games. Ratios: compiled over plain (what numba buys), and generic compiled over the bundled
compiled q-learning (what the generality costs per move; Pig's and the handout's moves differ, so
this ratio is indicative).
"""

from __future__ import annotations

import argparse
import time

from dicejack import learners
from dicejack.game import Game
from dicejack.games import Pig
from dicejack.learners.game_learners import GAME_LEARNERS


def rate(learner, games: int) -> tuple[float, int]:
    """(moves per CPU second, moves) of learner.play(games)."""
    before = learner.moves
    started = time.process_time()
    learner.play(games)
    took = max(time.process_time() - started, 1e-9)
    return (learner.moves - before) / took, learner.moves - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=50)
    parser.add_argument("--games", type=int, default=20_000)
    args = parser.parse_args()
    game = Pig(goal=args.goal)
    bundled = learners.make(Game(6, 15, 17, 2), "q-learning", seed=1)
    bundled.play(10)  # numba: compile or load
    base, base_moves = rate(bundled, 50 * args.games)  # its games are short: time as many moves
    print(f"bundled compiled q-learning, handout's game: {base:,.0f} moves/CPU-s "
          f"({base_moves:,} moves)")
    for name, cls in GAME_LEARNERS.items():
        if "numba" not in cls.ENGINES:  # the counting rule: plain Python only
            plain = cls(game, 1, engine="python")
            slow, plain_moves = rate(plain, max(1, args.games // 10))
            print(f"{name}, Pig to {args.goal}: plain Python {slow:,.0f} moves/CPU-s "
                  f"({plain_moves:,} moves); plain/bundled {slow / base:.3f}x")
            continue
        compiled = cls(game, 1, engine="numba")
        compiled.play(10)
        fast, moves = rate(compiled, args.games)
        plain = cls(game, 1, engine="python")
        slow, plain_moves = rate(plain, max(1, args.games // 10))
        print(f"{name}, Pig to {args.goal}: compiled {fast:,.0f} moves/CPU-s ({moves:,} moves); "
              f"plain Python {slow:,.0f} ({plain_moves:,}); compiled/plain {fast / slow:.1f}x; "
              f"compiled/bundled {fast / base:.2f}x")


if __name__ == "__main__":
    main()
