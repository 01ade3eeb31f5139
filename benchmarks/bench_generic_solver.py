"""The generic solver's default path (compiled enumeration, strongly connected components,
Gauss-Seidel to a fixed point with an error bound) against a plain numpy value iteration
written from each game's rules, in one run (issue 45): Pig to 100 and PigReset to 100 (two-dice
Pig where two 1s reset the banked score: one strongly connected component, 867,376 states).

    python benchmarks/bench_generic_solver.py            # both games, goal 100 (about a minute)
    python benchmarks/bench_generic_solver.py --goal 50  # quicker

Times are CPU seconds (time.process_time; the machine may be shared); memory is the
tracemalloc peak of enumerating and solving (numpy's arrays and numba's allocations included;
a second run, as tracemalloc slows allocations) divided by the game's reachable states (both
players' views, as the generic solver counts them), and, as a check from the operating
system, the growth of the process's peak resident set over the timed run (Linux: the peak
reset through /proc/self/clear_refs, then VmHWM less the VmRSS before; pages the run only
reserved and never touched do not count, pages freed but not returned do). The goals (issue
45): Pig 100 at least 5x faster than its baseline; PigReset no slower than its baseline and
under 200 bytes per state. The baselines are Neller and Presser's
mover's-view equations P[i, j, k] swept synchronously over the whole (goal, goal, goal) array
until no value changes by more than 1e-13 (the issue's baseline). Numba's compile (or cache
load) is paid once per process, on a tiny game first, and printed apart. Last, the exact
value and exploitability of a policy that is not optimal ("hold at 20" for the first seat,
optimal for the second; a seeded random one) at Pig's goal, timed.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from dicejack.games import Pig, enumerate_game  # noqa: E402
from dicejack.games.pig import PigReset  # noqa: E402
from dicejack.solver.generic import (  # noqa: E402
    evaluate_policy,
    game_exploitability,
    policy_from_actions,
    solve_game,
)


def numpy_value_iteration(goal: int, faces: list[tuple[int, float]], pig: float,
                          reset: float, tolerance: float = 1e-13) -> tuple[float, int]:
    """(P[0, 0, 0], sweeps): the mover wins with P[i, j, k] (banked i, opponent j, turn total
    k); rolling: a pig passes the turn (1 - P[j, i, 0]), a reset passes it with i lost
    (1 - P[j, 0, 0]), a face adds its points (won at the goal); holding (k > 0): 1 - P[j, i + k,
    0]. Synchronous sweeps until no value changes by more than `tolerance`."""
    top = max(points for points, _ in faces)
    width = goal + top + 1
    p = np.zeros((goal, goal, width))
    i = np.arange(goal)[:, None, None]
    kk = np.arange(goal)[None, None, :]
    jj = np.arange(goal)[None, :, None]
    p[np.broadcast_to(i + np.arange(width)[None, None, :] >= goal, p.shape)] = 1.0
    won = i + kk >= goal
    sweeps = 0
    while True:
        start = p[:, :, 0]
        roll = (pig * (1.0 - start.T))[:, :, None] + sum(
            q * p[:, :, f:f + goal] for f, q in faces)
        if reset:
            roll = roll + reset * (1.0 - start[:, 0])[None, :, None]
        hold = np.where(kk == 0, -1.0, 1.0 - start[jj, np.minimum(i + kk, goal - 1)])
        new = np.where(won, 1.0, np.maximum(roll, hold))
        change = float(np.abs(new - p[:, :, :goal]).max())
        p[:, :, :goal] = new
        sweeps += 1
        if change <= tolerance:
            return float(p[0, 0, 0]), sweeps


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak_rss() -> int | None:
    """The resident set now (bytes), the kernel's peak reset to it (Linux); None elsewhere."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return None
    rss = _status_kb("VmRSS")
    return None if rss is None else rss * 1024


def measured(run: Callable[[], Any]) -> tuple[Any, float, int, int | None]:
    """(result, CPU seconds, tracemalloc peak bytes, peak resident set growth in bytes or
    None) of run(): timed (and the resident set's peak growth), then run again under
    tracemalloc (which slows allocations) for the memory."""
    before = _reset_peak_rss()
    started = time.process_time()
    out = run()
    cpu = time.process_time() - started
    peak_kb = _status_kb("VmHWM")
    grown = None if before is None or peak_kb is None else peak_kb * 1024 - before
    del out
    tracemalloc.start()
    try:
        out = run()
        return out, cpu, tracemalloc.get_traced_memory()[1], grown
    finally:
        tracemalloc.stop()


def baseline(game: Any) -> tuple[float, int]:
    faces = [(points, float(q)) for points, q in game.faces if points > 0]
    return numpy_value_iteration(game.goal, faces, float(game.pig), float(game.reset))


def generic(game: Any) -> Any:
    return solve_game(enumerate_game(game))


def _rss(grown: int | None, n: int) -> str:
    return "   n/a" if grown is None else f"{grown / n:6.0f}"


def compare(game: Any, goal_ratio: float, goal_bytes: float | None) -> None:
    """One game's generic solve against its baseline, each timed and measured in this run,
    and the issue's goals for it checked."""
    sol, cpu, peak, grown = measured(lambda: generic(game))
    (value, sweeps), base_cpu, base_peak, base_grown = measured(lambda: baseline(game))
    n = sol.space.n_states
    print(f"{sol.space.label}: {n:,} states ({sol.space.enumeration} enumeration); bytes per "
          "state: tracemalloc peak, peak RSS growth")
    print(f"  generic  {cpu:6.2f} CPU s  {peak / n:6.0f} B/state {_rss(grown, n)} RSS  "
          f"value {sol.value:.12f}  ({sol.sweeps:,} component sweeps; error bound "
          f"{sol.error_bound:.1g})")
    print(f"  numpy VI {base_cpu:6.2f} CPU s  {base_peak / n:6.0f} B/state "
          f"{_rss(base_grown, n)} RSS  value {value:.12f}  ({sweeps:,} sweeps to a change "
          "of 1e-13)")
    ratio = base_cpu / cpu
    goals = [f"ratio {'met' if ratio >= goal_ratio else 'NOT met'} (goal >= {goal_ratio:g}x)"]
    if goal_bytes is not None:
        goals.append(f"memory {'met' if peak / n < goal_bytes else 'NOT met'} "
                     f"(goal < {goal_bytes:g} B/state)")
    print(f"  baseline / generic: {ratio:.2f}x; values differ by "
          f"{abs(sol.value - value):.1e}; {'; '.join(goals)}")


def exploitability(goal: int) -> None:
    """The exact value and exploitability of two policies that are not optimal: "hold at 20"
    in the first seat against optimal play, and a seeded random deterministic policy (what a
    learner with little data plays), each timed (CPU s, value and exploitability together)."""
    space = enumerate_game(Pig(goal=goal))
    sol = solve_game(space)
    hold = policy_from_actions(space, lambda s: "hold" if s[2] >= 20 else "roll")
    rng = np.random.default_rng(45)
    live = np.flatnonzero(~space.terminal)
    pick = space.row_start[live] + rng.integers(0, np.diff(space.row_start)[live])
    chaos = np.zeros(space.n_rows)
    chaos[pick] = 1.0
    policies = {"'hold at 20' first, optimal second":
                np.where(space.player[space.row_state] == 0, hold, sol.policy()),
                "random deterministic (seed 45)": chaos}
    for name, policy in policies.items():
        started = time.process_time()
        value = evaluate_policy(space, policy)[0]
        gap = game_exploitability(space, policy)
        cpu = time.process_time() - started
        print(f"pig goal={goal}, {name}: value {value:.12f}, exploitability {gap:.12f}; "
              f"{cpu:.2f} CPU s for both")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=100)
    args = parser.parse_args()
    started = time.process_time()
    generic(PigReset(goal=6))
    warm = time.process_time() - started
    print(f"numba compile or cache load, once per process (a tiny game): {warm:.2f} CPU s")
    compare(Pig(goal=args.goal), 5.0, None)
    compare(PigReset(goal=args.goal), 1.0, 200.0)
    exploitability(args.goal)


if __name__ == "__main__":
    main()
