"""How often a faithful run is flagged by the print-rule check against one fixed reference set:
the rate the joint family's count test must expect of the runs that share that set
(grade/programs/joint.py, print_flag_p). Over reference sets it is 1/61 by construction (a
run tops all 60 held-out runs); given one set it is the set's own q ~ Beta(1, 60). Faithful
runs here are dicejack's own learner (fresh seeds), printed as it prints and graded by
``grade_text`` against the default reference set of the setting, the consistency test's rate
beside it.

    python benchmarks/bench_print_flag_rate.py                      # the handout's settings
    python benchmarks/bench_print_flag_rate.py --low 10 --high 12 -m 1 --games 2000 --runs 500
"""

from __future__ import annotations

import argparse
import time

from dicejack import learners
from dicejack.formats.tables import learn_text
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.levels import ALPHA_PRINT, P_INCONSISTENT
from dicejack.grade.evidence.references import reference_runs
from dicejack.grade.scoring.grading import grade_text
from dicejack.grade.settings import GradeConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", type=int, default=6)
    parser.add_argument("--low", type=int, default=15)
    parser.add_argument("--high", type=int, default=17)
    parser.add_argument("--dice", type=int, default=2)
    parser.add_argument("-m", type=float, default=100.0)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--first-seed", type=int, default=10_000)
    args = parser.parse_args()
    cfg = GradeConfig(Game(args.sides, args.low, args.high, args.dice), args.m, args.games)
    refs = reference_runs(cfg)
    started = time.process_time()
    flagged = low = 0
    for seed in range(args.first_seed, args.first_seed + args.runs):
        run = learners.learn(cfg.game, m=args.m, games=args.games, seed=seed)
        g = grade_text(refs, learn_text(run))
        flagged += bool(g.print_check is not None and g.print_check.flag)
        low += g.consistency_p < P_INCONSISTENT
    print(f"{cfg.game} M={args.m:g} NGAMES={args.games:,}: {args.runs} faithful runs against "
          f"the default reference set ({time.process_time() - started:.1f} CPU s)")
    print(f"  print-rule flag: {flagged} ({flagged / args.runs:.1%}; over sets {ALPHA_PRINT:.1%})")
    print(f"  consistency p < {P_INCONSISTENT:.4f}: {low} ({low / args.runs:.1%}; over sets "
          f"{P_INCONSISTENT:.1%})")


if __name__ == "__main__":
    main()
