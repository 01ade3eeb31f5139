"""Speed of the CFR learner (learners/cfr.py) in one run, on Kuhn poker: iterations and infoset
updates per CPU-second of its compiled kernel (learners/cfr_kernel.py), of its plain Python
reference (learners/cfr_reference.py), of OpenSpiel's Python CFR
(``open_spiel.python.algorithms.cfr.CFRPlusSolver`` / ``CFRSolver``) and, for scale, of
OpenSpiel's C++ one (``pyspiel.CFRPlusSolver`` / ``CFRSolver``); before the speeds, that the
compiled and plain average policies are identical and within 1e-9 of OpenSpiel's Python one.

    python benchmarks/bench_cfr.py                          # CFR+, 20,000 compiled iterations
    python benchmarks/bench_cfr.py --variant cfr --iterations 50000 --rounds 5

CPU time (time.process_time) of the iterations alone: enumeration, building the learner and
numba's start-up (every kernel is run once before timing) are excluded. The slower engines run
a 100th of the iterations (at least 20). An infoset update is one decision key's regrets and
policy sums updated once (Kuhn poker: 12 per iteration). Speeds are the median of the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from dicejack.games.kuhn import Kuhn
from dicejack.learners.cfr import CFR

#: OpenSpiel's solver class names by variant.
SOLVERS = {"cfr+": "CFRPlusSolver", "cfr": "CFRSolver"}


def seconds(step, iterations: int) -> float:
    """CPU seconds of `iterations` calls of step() (or one call of step(iterations))."""
    started = time.process_time()
    step(iterations)
    return max(time.process_time() - started, 1e-9)


def ours(variant: str, engine: str, iterations: int) -> tuple[float, CFR]:
    learner = CFR(Kuhn(), 0, engine=engine, variant=variant)
    return iterations / seconds(learner.play, iterations), learner


def openspiel(variant: str, iterations: int, cpp: bool) -> tuple[float, object]:
    import pyspiel
    from open_spiel.python.algorithms import cfr as os_cfr

    game = pyspiel.load_game("kuhn_poker")
    solver = getattr(pyspiel if cpp else os_cfr, SOLVERS[variant])(game)

    def step(n: int) -> None:
        for _ in range(n):
            solver.evaluate_and_update_policy()

    return iterations / seconds(step, iterations), solver


def gap(learner: CFR, solver) -> float:
    """The largest difference between our average policy and OpenSpiel's Python solver's."""
    table = solver.average_policy()
    worst = 0.0
    for key, row in learner.policy().items():
        ospiel_key = str("JQK".index(key[0])) + key[1:]
        theirs = table.action_probability_array[table.state_lookup[ospiel_key]]
        worst = max(worst, abs(row["pass"] - theirs[0]), abs(row["bet"] - theirs[1]))
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=tuple(SOLVERS), default="cfr+")
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    slow = max(20, args.iterations // 100)
    CFR(Kuhn(), 0).play(2)  # numba: compile or load
    per = CFR(Kuhn(), 0).per_iteration
    rates: dict[str, list[float]] = {"compiled": [], "plain": [], "OpenSpiel Python": [],
                                     "OpenSpiel C++": []}
    same, worst = True, 0.0
    for _ in range(args.rounds):
        fast, compiled = ours(args.variant, "numba", args.iterations)
        rates["compiled"].append(fast)
        plain_rate, plain = ours(args.variant, "python", slow)
        rates["plain"].append(plain_rate)
        os_rate, solver = openspiel(args.variant, slow, cpp=False)
        rates["OpenSpiel Python"].append(os_rate)
        rates["OpenSpiel C++"].append(openspiel(args.variant, args.iterations, cpp=True)[0])
        check = CFR(Kuhn(), 0, variant=args.variant)
        check.play(slow)
        same = same and check.tables().equals(plain.tables())
        worst = max(worst, gap(check, solver))
    print(f"Kuhn poker, {args.variant}: {per} infoset updates per iteration; compiled "
          f"{args.iterations:,} iterations, the Python engines {slow:,}; median of "
          f"{args.rounds} rounds")
    print(f"compiled = plain reference (identical tables): {'yes' if same else 'NO'}; "
          f"largest gap to OpenSpiel's Python average policy: {worst:.1e}")
    base = statistics.median(rates["compiled"])
    for name, values in rates.items():
        r = statistics.median(values)
        print(f"  {name:17s} {r:>13,.0f} iterations/CPU-s  {r * per:>15,.0f} infoset updates/"
              f"CPU-s  compiled/this {base / r:8.1f}x")


if __name__ == "__main__":
    main()
