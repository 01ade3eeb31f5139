"""Speed of the CFR learner (learners/cfr.py) in one run, on Kuhn poker, for each variant:
iterations and infoset updates per CPU-second of its compiled kernel (learners/cfr_kernel.py),
of its plain Python reference (learners/cfr_reference.py), of OpenSpiel's Python solver
(``open_spiel.python.algorithms.cfr.CFRPlusSolver`` / ``CFRSolver``,
``outcome_sampling_mccfr.OutcomeSamplingSolver``) and, for scale, of OpenSpiel's C++ one
(``pyspiel.CFRPlusSolver`` / ``CFRSolver`` / ``OutcomeSamplingMCCFRSolver``). Before the speeds:
that the compiled and plain tables are identical and, for the deterministic variants, how far
the average policy is from OpenSpiel's Python one (the tests hold it within 1e-9).

    python benchmarks/bench_cfr.py                          # 20,000 compiled CFR iterations
    python benchmarks/bench_cfr.py --iterations 50000 --rounds 5 --variant cfr+

CPU time (time.process_time) of the iterations alone: enumeration, building the learner and
numba's start-up (every kernel is run once before timing) are excluded. The Python engines run
a 100th of the iterations (at least 20); outcome sampling runs 20 times as many (an iteration
is one sampled play per player, not a pass over the tree). An infoset update is one decision
key's regrets updated once (CFR on Kuhn poker: 12 per iteration; outcome sampling: the
updating player's keys on its sampled play, counted by our learner, and OpenSpiel's counted at
our rate per iteration). Speeds are the median of the rounds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from dicejack.games.kuhn import Kuhn
from dicejack.learners.cfr import CFR, VARIANTS

#: OpenSpiel's solvers by variant: (Python module, class, C++ class, its step method).
SOLVERS = {
    "cfr+": ("cfr", "CFRPlusSolver", "CFRPlusSolver"),
    "cfr": ("cfr", "CFRSolver", "CFRSolver"),
    "outcome-sampling": ("outcome_sampling_mccfr", "OutcomeSamplingSolver",
                         "OutcomeSamplingMCCFRSolver"),
}


def seconds(step, iterations: int) -> float:
    """CPU seconds of step(iterations)."""
    started = time.process_time()
    step(iterations)
    return max(time.process_time() - started, 1e-9)


def openspiel(variant: str, iterations: int, cpp: bool) -> tuple[float, object]:
    """(iterations per CPU-second, the solver) of OpenSpiel's solver for `variant`."""
    import importlib

    import pyspiel

    module, python_class, cpp_class = SOLVERS[variant]
    game = pyspiel.load_game("kuhn_poker")
    if cpp:
        solver = getattr(pyspiel, cpp_class)(game)
    else:
        solver = getattr(importlib.import_module(f"open_spiel.python.algorithms.{module}"),
                         python_class)(game)
    one = (solver.run_iteration if cpp and variant == "outcome-sampling"
           else solver.iteration if variant == "outcome-sampling"
           else solver.evaluate_and_update_policy)

    def step(n: int) -> None:
        for _ in range(n):
            one()

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


def bench(variant: str, iterations: int, rounds: int) -> None:
    """Print one variant's lines."""
    if variant == "outcome-sampling":
        iterations *= 20
    slow = max(20, iterations // 100)
    CFR(Kuhn(), 0, variant=variant).play(2)  # numba: compile or load
    names = ("compiled", "plain", "OpenSpiel Python", "OpenSpiel C++")
    rates: dict[str, list[float]] = {name: [] for name in names}
    same, worst, per = True, 0.0, 0.0
    for seed in range(rounds):
        compiled = CFR(Kuhn(), seed, variant=variant)
        rates["compiled"].append(iterations / seconds(compiled.play, iterations))
        per = compiled.moves / compiled.played
        plain = CFR(Kuhn(), seed, engine="python", variant=variant)
        rates["plain"].append(slow / seconds(plain.play, slow))
        os_rate, solver = openspiel(variant, slow, cpp=False)
        rates["OpenSpiel Python"].append(os_rate)
        rates["OpenSpiel C++"].append(openspiel(variant, iterations, cpp=True)[0])
        check = CFR(Kuhn(), seed, variant=variant)
        check.play(slow)
        same = same and check.tables().equals(plain.tables())
        if VARIANTS[variant] is not None:
            worst = max(worst, gap(check, solver))
    versus = (f"; largest gap to OpenSpiel's Python average policy {worst:.1e}"
              if VARIANTS[variant] is not None else "")
    print(f"Kuhn poker, {variant}: compiled {iterations:,} iterations, the Python engines "
          f"{slow:,}; median of {rounds} rounds; {per:.2f} infoset updates per iteration; "
          f"compiled = plain (identical tables): {'yes' if same else 'NO'}{versus}")
    base = statistics.median(rates["compiled"])
    for name, values in rates.items():
        r = statistics.median(values)
        print(f"  {name:17s} {r:>13,.0f} iterations/CPU-s  {r * per:>14,.0f} infoset "
              f"updates/CPU-s  compiled/this {base / r:7.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=tuple(SOLVERS), action="append",
                        help="one variant (repeatable); default all")
    parser.add_argument("--iterations", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for variant in args.variant or tuple(SOLVERS):
        bench(variant, args.iterations, args.rounds)


if __name__ == "__main__":
    main()
