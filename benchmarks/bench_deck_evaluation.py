"""The deck divide-the-dollar game's exact evaluator (solver.deck_evaluation) beside a seeded
simulation (games.deck_dollar.simulate): seconds per policy, the peak memory of the arrays, and
the four baselines' exact values (12 digits) with the simulation's mean and 95% interval.

Usage: python benchmarks/bench_deck_evaluation.py [--games 1000000] [--passing]
                                                 [--counts 16,28,16] [--hand 5] [--seed 0]
                                                 [--search] [--dense] [--memory-gib 2]
                                                 [--only 0,1,2,3] [--no-bound]
                                                 [--bound both|lean|dense|none] [--spill]
                                                 [--repeat 1]

Also the full-information upper bound (solver.deck_evaluation.full_information_bound): the lean
one (solver.deck_bound; ``--spill``: earlier rounds in temporary files) and the dense one as the
baseline of the ratio where it fits (``--bound both``, the default), each with its seconds, CPU
seconds and peak MB, ``--repeat`` times; ``--only ''`` values no policy. With ``--search``,
the local search from "always largest" (solver.deck_search: about 250 evaluations, some ten
minutes at the study's deck), its policy evaluated and simulated too.

Default: the study's deck (60 cards: 16, 28, 16; hands of 5; 26 rounds) under the evident
intent (``passing=False``). ``--passing`` takes the quoted code's passing follower (millions of
states per round: the lean evaluator, solver.deck_lean, within ``--memory-gib``; the
full-information bound's dense values do not fit there, but it finds so only after many
CPU-minutes of its forward pass, so take ``--bound lean`` there; the lean bound fits).
``--dense``: the evaluator's dense rows instead (bit-identical, refused at the study's deck under
passing).
"peak MB" is tracemalloc's peak of the evaluation (numpy's arrays included).
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import numpy as np

from dicejack.games.deck_dollar import DeckDollar, fixed_policy, simulate, uniform_policy
from dicejack.solver.deck_bound import lean_bound
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
    parser.add_argument("--no-bound", action="store_true", help="the same as --bound none")
    parser.add_argument("--bound", choices=("both", "lean", "dense", "none"), default="both")
    parser.add_argument("--spill", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
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
    rows = [BASELINES[int(k)] for k in args.only.split(",") if k]
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
    states = max(exact.states) if rows else None
    if args.no_bound or args.bound == "none":
        print("full-information upper bound: not asked")
    else:
        states = _bounds(game, args, limit) or states
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(f"largest round: {states:,} states; process peak RSS {rss:.0f} MB")


def _measure(run):
    """(result, seconds, CPU seconds, tracemalloc's peak MB) of run(), or the SolverError."""
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        out = run()
    except SolverError as error:
        out = error
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return out, seconds, cpu, peak


def _bounds(game, args, limit):
    """The lean and/or dense full-information bounds timed, with the lean/dense ratios."""
    full_information_bound(DeckDollar((2, 2, 2), 2, passing=args.passing))  # compile
    full_information_bound(DeckDollar((2, 2, 2), 2, passing=args.passing), lean=False)
    kinds = ("lean", "dense") if args.bound == "both" else (args.bound,)
    print(f"{'bound':6} {'value':>16} {'s':>8} {'cpu s':>8} {'peak MB':>8}")
    states = None
    for _ in range(args.repeat):
        got = {}
        for kind in kinds:
            if kind == "lean":
                run = lambda: lean_bound(game, True, limit, args.spill)  # noqa: E731
            else:
                run = lambda: full_information_bound(game, memory_limit=limit,  # noqa: E731
                                                     lean=False)
            out, seconds, cpu, peak = _measure(run)
            if isinstance(out, SolverError):
                print(f"{kind:6} refused ({out})")
                continue
            value = out.value if kind == "lean" else out
            states = max(out.states) if kind == "lean" else states
            got[kind] = (value, seconds, cpu, peak)
            print(f"{kind:6} {value:16.12f} {seconds:8.2f} {cpu:8.1f} {peak:8.0f}")
        if len(got) == 2:
            (lv, ls, lc, lp), (dv, ds, dc, dp) = got["lean"], got["dense"]
            print(f"lean / dense: time {ls / ds:.2f}, CPU {lc / dc:.2f}, peak {lp / dp:.2f}; "
                  f"{'bit-identical' if lv == dv else f'DIFFERENT by {lv - dv:.3e}'}")
    return states

if __name__ == "__main__":
    main()
