"""The deck divide-the-dollar game's exact evaluator (solver.deck_evaluation) beside a seeded
simulation (games.deck_dollar.simulate): seconds per policy, the peak memory of the arrays, and
the four baselines' exact values (12 digits) with the simulation's mean and 95% interval.

Usage: python benchmarks/bench_deck_evaluation.py [--games 1000000] [--passing]
                                                 [--counts 16,28,16] [--hand 5] [--seed 0]
                                                 [--search] [--dense] [--memory-gib 2]
                                                 [--only 0,1,2,3] [--no-bound]

Also the full-information upper bound (solver.deck_evaluation.full_information_bound) and its
seconds; with ``--search``, the local search from "always largest" (solver.deck_search: about
250 evaluations, some ten minutes at the study's deck), its policy evaluated and simulated too.

Default: the study's deck (60 cards: 16, 28, 16; hands of 5; 26 rounds) under the evident
intent (``passing=False``). ``--passing`` takes the quoted code's passing follower (millions of
states per round: the lean evaluator, solver.deck_lean, within ``--memory-gib``; the
full-information bound's dense values do not fit there, and it says so). ``--dense``: the
evaluator's dense rows instead (bit-identical, refused at the study's deck under passing).
"peak MB" is tracemalloc's peak of the evaluation (numpy's arrays included).
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from dicejack.games.deck_dollar import DeckDollar, fixed_policy, simulate, uniform_policy
from dicejack.solver.deck_evaluation import (
    MEMORY_LIMIT,
    evaluate_deck_policy,
    full_information_bound,
)
from dicejack.solver.deck_search import local_search
from dicejack.solver.solution import SolverError

BASELINES = [("always smallest", fixed_policy(0)), ("always median", fixed_policy(1)),
             ("always largest", fixed_policy(2)), ("uniform", uniform_policy())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--passing", action="store_true")
    parser.add_argument("--counts", default="16,28,16")
    parser.add_argument("--hand", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--search", action="store_true")
    parser.add_argument("--dense", action="store_true")
    parser.add_argument("--only", default="0,1,2,3", help="which baselines (0..3) to run")
    parser.add_argument("--no-bound", action="store_true")
    parser.add_argument("--memory-gib", type=float, default=MEMORY_LIMIT / 2**30)
    args = parser.parse_args()
    limit = int(args.memory_gib * 2**30)
    counts = tuple(int(c) for c in args.counts.split(","))
    game = DeckDollar(counts, args.hand, passing=args.passing)
    # compile (or load numba's cache) outside the timings
    tiny = DeckDollar((2, 2, 2), 2, passing=args.passing)
    evaluate_deck_policy(tiny, uniform_policy())
    simulate(tiny, uniform_policy(), 10, np.random.default_rng(0))
    print(f"{game}: {game.deck_size} cards, {args.games:,} simulated games per policy")
    print(f"{'policy':16} {'exact E[reward]':>16} {'P(win)':>15} {'P(draw)':>15} "
          f"{'exact s':>8} {'cpu s':>7} {'peak MB':>8} {'states':>10} {'simulated':>10} "
          f"{'+-95%':>8} {'sim s':>6}")
    rows = [BASELINES[int(k)] for k in args.only.split(",")]
    if args.search:
        start = time.perf_counter()
        found = local_search(game, np.full(40, 2), sweeps=20)
        print(f"local search: {found.evaluations} evaluations, "
              f"{time.perf_counter() - start:.0f} s, converged {found.converged}; "
              f"actions {''.join(map(str, found.actions))}")
        rows.append(("local search", found.actions))
    for name, policy in rows:
        k = next(i for i, row in enumerate(BASELINES) if row[0] == name) if name in dict(
            BASELINES) else len(BASELINES)  # the seed of the baseline's own simulation
        tracemalloc.start()
        start, cpu = time.perf_counter(), time.process_time()
        exact = evaluate_deck_policy(game, policy, memory_limit=limit, lean=not args.dense)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        start = time.perf_counter()
        tally = simulate(game, policy, args.games, np.random.default_rng([args.seed, k]))
        sim_seconds = time.perf_counter() - start
        inside = "" if abs(tally.mean - exact.expected) <= tally.half_width else "  OUTSIDE"
        print(f"{name:16} {exact.expected:16.12f} {exact.win:15.12f} {exact.draw:15.12f} "
              f"{seconds:8.2f} {cpu:7.1f} {peak:8.0f} {exact.total_states:10,} {tally.mean:10.6f} "
              f"{tally.half_width:8.6f} {sim_seconds:6.2f}{inside}")
    start = time.perf_counter()
    try:
        if args.no_bound:
            raise SolverError("not asked (--no-bound)")
        bound = full_information_bound(game, memory_limit=limit)
        print(f"full-information upper bound {bound:.12f} ({time.perf_counter() - start:.2f} s)")
    except SolverError as error:
        print(f"full-information upper bound: refused ({error})")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(f"largest round: {max(exact.states):,} states; process peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
