"""Sizes and speeds of the deck game between two players (games/deck_information.py, DeckDuel)
at small decks, in one run: the tree's histories and decision keys, the seconds to count it
(count_histories) and to enumerate it, the sequence-form LP's seconds (solve_sequence_form,
HiGHS) and the game value, then CFR+ and outcome-sampling iterations per CPU-second of the
compiled kernel and of the plain reference (engine "python", learners/cfr_reference.py) with
their ratio measured in the same run (the machine is shared: read ratios, not speeds).

    python benchmarks/bench_deck_duel.py
    python benchmarks/bench_deck_duel.py --decks 2,3,2:2 3,4,3:2 --rounds 3

CPU time (time.process_time); the learner is built and each kernel run once before timing.
Speeds are the median of the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from dicejack.games.deck_information import DeckDuel
from dicejack.games.information import enumerate_information
from dicejack.learners.cfr import CFR
from dicejack.solver.sequence_form import solve_sequence_form


def cpu(step) -> float:
    started = time.process_time()
    step()
    return time.process_time() - started


def speed(tree, variant: str, engine: str, iterations: int, rounds: int) -> float:
    """Iterations per CPU-second, the median of `rounds`."""
    learner = CFR(tree, 1, engine=engine, variant=variant)
    learner.play(1)  # compile / warm up
    rates = [iterations / max(cpu(lambda: learner.play(iterations)), 1e-9)
             for _ in range(rounds)]
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", nargs="+", default=["1,2,1:1", "2,2,2:2", "2,3,2:2",
                                                       "2,3,2:1", "3,4,3:2"],
                        help="COUNTS:HAND_SIZE, e.g. 2,3,2:2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=200,
                        help="compiled CFR+ iterations per round (python: a 20th, at least 2; "
                             "outcome sampling: 50 times as many)")
    args = parser.parse_args()
    print("deck              rounds histories  keys  count_s  enum_s   lp_s  value")
    for spec in args.decks:
        counts, hand = spec.split(":")
        count_s = cpu(lambda c=counts, h=hand: DeckDuel(c, int(h)))
        game = DeckDuel(counts, int(hand))
        enum_s = cpu(lambda g=game: enumerate_information(g))
        tree = enumerate_information(game)
        lp_s = cpu(lambda g=game: solve_sequence_form(g))
        value = solve_sequence_form(game).value
        print(f"{counts}:{hand:<12} {game.rounds:>6} {tree.n_nodes:>9,} "
              f"{len(tree.decisions()):>5} {count_s:>8.3f} {enum_s:>7.2f} {lp_s:>6.2f}  "
              f"{value + 0.0:.12g}")
        for variant, scale in (("cfr+", 1), ("outcome-sampling", 50)):
            n = args.iterations * scale
            fast = speed(tree, variant, "numba", n, args.rounds)
            slow = speed(tree, variant, "python", max(2, n // 20), args.rounds)
            print(f"    {variant:<17} compiled {fast:>12,.0f} it/CPU-s   plain {slow:>10,.0f}"
                  f"   ratio {fast / slow:6.1f}x")


if __name__ == "__main__":
    main()
