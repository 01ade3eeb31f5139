"""The handout's game through the protocol (HandoutGame), enumerated through its Python (one call
per state and action) against its compiled arrays (HandoutGame.compiled_space, issue 45), in
one run: the enumeration alone, the solver's per-row view of the handout's Solution
(``solver.solve(Game(...)).generic()``, which enumerates HandoutGame) and the generic solver on
HandoutGame, each timed both ways; the spaces checked equal (states, rows, probabilities bit
for bit) and the values of the two ways checked to agree.

    python benchmarks/bench_handout_enumeration.py                  # 6,150,160,4 (42,845 states)
    python benchmarks/bench_handout_enumeration.py --game 6,40,45,5

Times are CPU seconds (time.process_time; the machine may be shared), the best of `--repeat`
runs. Numba's compile (or cache load) is paid once, on a tiny game first, and printed apart.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import numpy as np

from dicejack import solver
from dicejack.games import HandoutGame, enumerate_game
from dicejack.games.handout_rules import Game
from dicejack.solver.generic import solve_game


@contextmanager
def python_path() -> Any:
    """HandoutGame without its compiled_space for a while: the protocol's own enumeration."""
    saved = HandoutGame.compiled_space
    HandoutGame.compiled_space = lambda self, limit: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        HandoutGame.compiled_space = saved  # type: ignore[method-assign]


def best_cpu(run: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    best, out = float("inf"), None
    for _ in range(repeat):
        started = time.process_time()
        out = run()
        best = min(best, time.process_time() - started)
    return out, best


def same(fast: Any, slow: Any) -> bool:
    t, u = fast.transitions, slow.transitions
    return (fast.states == slow.states and list(fast.actions) == slow.actions
            and all(np.array_equal(getattr(fast, a), getattr(slow, a))
                    for a in ("player", "payoff", "row_start", "row_state"))
            and all(np.array_equal(getattr(t, a), getattr(u, a))
                    for a in ("indptr", "indices", "data")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="6,150,160,4", help="sides,low,high,dice")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sides, low, high, dice = (int(v) for v in args.game.split(","))
    rules, game = Game(sides, low, high, dice), HandoutGame(sides, low, high, dice)
    started = time.process_time()
    enumerate_game(HandoutGame(6, 15, 17, 2))
    print(f"numba compile or cache load, once per process (a tiny game): "
          f"{time.process_time() - started:.2f} CPU s")
    tables = solver.solve(rules)
    cases = {"enumerate_game(HandoutGame)": lambda: enumerate_game(game),
             "solver.solve(Game).generic()": lambda: solver.solve(rules).generic(),
             "solve_game(HandoutGame)": lambda: solve_game(game)}
    slow_ref = {}
    for name, run in cases.items():
        with python_path():
            slow, slow_cpu = best_cpu(run, 1)
        fast, fast_cpu = best_cpu(run, args.repeat)
        slow_ref[name] = (slow, fast)
        print(f"{args.game} {name}: python "
              f"{slow_cpu:7.3f} CPU s, compiled {fast_cpu:7.3f} CPU s, ratio "
              f"{slow_cpu / fast_cpu:6.1f}x")
    slow, fast = slow_ref["enumerate_game(HandoutGame)"]
    print(f"{fast.n_states:,} states, {fast.n_rows:,} rows, {fast.transitions.nnz:,} outcomes "
          f"({slow.enumeration} vs {fast.enumeration}); spaces equal: {same(fast, slow)}")
    slow, fast = slow_ref["solve_game(HandoutGame)"]
    view = slow_ref["solver.solve(Game).generic()"][1]
    gap = max(float(np.abs(fast.values - slow.values).max()),
              float(np.abs(view.values - slow.values).max()))
    print(f"values: generic solver python vs compiled vs the tables' view within {gap:.1e}; "
          f"P[0, 0] = {tables.p00:.12f}")


if __name__ == "__main__":
    main()
