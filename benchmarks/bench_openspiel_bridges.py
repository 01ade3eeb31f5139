"""Seconds of the OpenSpiel bridges (dicejack.envs.openspiel), keyed by information state, beside
OpenSpiel's own ways to the same things, measured in the same run:

* ``openspiel_policy`` (a TabularPolicy over the 2 L^2 decision states, built directly) beside
  OpenSpiel's ``TabularPolicy(os_game, to_string=str)`` (a walk of the game that merges states by
  their string; ``TabularPolicy(os_game)``, keyed by history, walks every history: about 1.3e10
  on the handout's game, so it never returns and is not run);
* ``policy_table`` (reads any OpenSpiel policy, both seats) and
  ``dicejack.envs.openspiel.exploitability`` (exact, by backward induction) beside OpenSpiel's
  ``exploitability`` on a small game, where it finishes (it walks every history, so its time
  grows with their number: issue 37 measured 16 s on (3, 6, 7, 2) and no end within 200 s on
  the handout's game).

Usage: python benchmarks/bench_openspiel_bridges.py [--small 3,6,7,2] [--skip-openspiel]
Wall seconds (time.perf_counter), best of --repeat runs. Needs the openspiel extra.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def best_of(repeat: int, fn) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", default="2,4,5,2", help="sides,low,high,dice of the game "
                        "where OpenSpiel's exploitability is timed (default 2,4,5,2)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-openspiel", action="store_true",
                        help="leave out OpenSpiel's own walks (the baselines)")
    args = parser.parse_args()

    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    import dicejack.envs.openspiel as dos
    from dicejack import solver
    from dicejack.games.handout_rules import HANDOUT_GAME, Game

    games = [HANDOUT_GAME, Game(6, 30, 35, 4)]
    print(f"{'game':<42} {'what':<52} {'seconds':>9}")
    for game in games:
        os_game = dos.load(game)
        sol = solver.solve(game)
        t_pol, policy = best_of(args.repeat, lambda: dos.openspiel_policy(os_game, sol))  # noqa: B023
        t_tab, _ = best_of(args.repeat, lambda: dos.policy_table(os_game, policy))  # noqa: B023
        t_exp, value = best_of(args.repeat, lambda: dos.exploitability(os_game, policy))  # noqa: B023
        print(f"{str(game):<42} {'dicejack openspiel_policy (optimal)':<52} {t_pol:>9.3f}")
        print(f"{'':<42} {'dicejack policy_table (both seats)':<52} {t_tab:>9.3f}")
        print(f"{'':<42} {f'dicejack exploitability (= {value:.1e})':<52} {t_exp:>9.3f}")
        if not args.skip_openspiel and game == HANDOUT_GAME:
            walk = lambda g=os_game: policy_lib.TabularPolicy(g, to_string=str)  # noqa: E731
            t_os, theirs = best_of(1, walk)
            print(f"{'':<42} {'OpenSpiel TabularPolicy(to_string=str) (baseline)':<52} "
                  f"{t_os:>9.3f}   openspiel_policy {t_os / t_pol:,.0f}x faster "
                  f"({len(theirs.state_lookup)} vs {len(policy.state_lookup)} states)")
    small = Game(*(int(v) for v in args.small.split(",")))
    os_small = dos.load(small)
    rng = np.random.default_rng(1)
    table = rng.integers(1, small.n_dice + 1, size=small.shape)
    policy = dos.openspiel_policy(os_small, table)
    t_ours, ours = best_of(args.repeat, lambda: dos.exploitability(os_small, policy))
    print(f"{str(small):<42} {'dicejack exploitability (a random table)':<52} {t_ours:>9.4f}")
    if not args.skip_openspiel:
        t_theirs, theirs = best_of(1, lambda: exploitability.exploitability(os_small, policy))
        print(f"{'':<42} {'OpenSpiel exploitability (baseline)':<52} {t_theirs:>9.4f}   "
              f"{t_theirs / t_ours:,.0f}x; |difference| {abs(ours - theirs):.1e}")


if __name__ == "__main__":
    main()
