"""Speed of the handout's learner: the compiled self-play loop beside the plain Python reference.

Usage: python benchmarks/bench_learner.py [--quick]

For each game (M = 100, seed 1, from empty tables):
- `compiled`: one long run, for the absolute rate;
- `compiled` again on exactly the reference's workload (its first games, repeated from scratch so
  the time is measurable) and `reference` once: the ratio compares like with like, because the
  rate changes as learning concentrates play.
Rates are per CPU-second (time.process_time) of the self-play loop alone (Session.play: not the
set-up of empty tables nor the copy of the result). numba start-up is excluded: every kernel is run
(compiled or loaded from numba's cache) before timing. Both loops give identical tables.
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np

from dicejack.games.handout_rules import Game
from dicejack.learners import handout

GAMES = [
    # game, compiled long run, reference run (games)
    (Game(6, 15, 17, 2), 2_000_000, 30_000),
    (Game(6, 100, 105, 6), 200_000, 3_000),
]
M = 100.0
SEED = 1
TARGET_MOVES_PER_S = 25e6  # on the first game
TARGET_RATIO = 70.0


def timed(game: Game, games: int, engine: str, repeats: int = 1) -> tuple[float, int, int]:
    """CPU seconds, games and moves of `repeats` runs of `games` games from empty tables.

    Only the self-play loop is timed (Handout.play), not setting up or copying the tables.
    """
    seconds = 0.0
    played = moves = 0
    for _ in range(repeats):
        session = handout.Handout(game, SEED, engine=engine, m=M)
        started = time.process_time()
        session.play(games)
        seconds += time.process_time() - started
        played += session.played
        moves += session.moves
    return seconds, played, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="10x fewer games (a smoke test; ratios not meaningful)"
    )
    args = parser.parse_args()
    scale = 10 if args.quick else 1

    for game, _, _ in GAMES:  # compile or load from cache, and warm the reference
        handout.learn(game, M, 10, SEED)
        handout.learn(game, M, 10, SEED, engine="python")

    print(f"dicejack learner benchmark: M={M:g}, seed {SEED}, numba {numba.__version__}, "
          f"numpy {np.__version__}, {os.cpu_count()} CPUs; rates per CPU-second")
    header = f"{'game':<18} {'impl':<10} {'games':>13} {'moves':>12} {'seconds':>8} " \
             f"{'moves/s':>12} {'games/s':>12}"
    print(header)
    print("-" * len(header))
    verdicts = []
    for i, (game, long_games, ref_games) in enumerate(GAMES):
        long_games //= scale
        ref_games //= scale
        name = f"{game.n_sides},{game.low},{game.high},{game.n_dice} M={M:g}"

        def row(
            impl: str, games_label: str, secs: float, games: int, moves: int, name: str = name
        ) -> float:
            print(f"{name:<18} {impl:<10} {games_label:>13} {moves:>12,} {secs:>8.3f} "
                  f"{moves / secs:>12,.0f} {games / secs:>12,.0f}")
            return moves / secs

        secs, g, mv = timed(game, long_games, "numba")
        long_rate = row("compiled", f"{long_games:,}", secs, g, mv)
        ref_secs, ref_g, ref_mv = timed(game, ref_games, "python")
        # The same games on the compiled loop, repeated until it takes a measurable time.
        once = max(timed(game, ref_games, "numba")[0], 1e-4)
        repeats = max(3, int(0.5 / once))
        secs, g, mv = timed(game, ref_games, "numba", repeats)
        fast = row("compiled", f"{repeats}x{ref_games:,}", secs, g, mv)
        slow = row("reference", f"{ref_games:,}", ref_secs, ref_g, ref_mv)
        ratio = fast / slow
        print(f"{'':<18} ratio compiled/reference on the same {ref_games:,} games: {ratio:.0f}x")
        if i == 0:
            verdicts.append(("moves/s on the first game, long run", long_rate / 1e6,
                             TARGET_MOVES_PER_S / 1e6, "M"))
        verdicts.append((f"ratio on {name}", ratio, TARGET_RATIO, "x"))
    print()
    if args.quick:
        print("(--quick: runs too short for the targets; run without --quick to judge them)")
    for what, value, target, unit in verdicts:
        status = "ok" if value >= target else "BELOW TARGET"
        print(f"{what}: {value:.1f}{unit} (target >= {target:g}{unit}) {status}")


if __name__ == "__main__":
    main()
