"""Report speed: where the time of `dicejack report` goes, and metrics against a plain baseline.

1. The default study (the handout's game, 10 seeds, 100..1,000,000 games), split into solving,
   compile/warm-up, learning (CPU), metrics (CPU), statistics and figures, plus wall time; then
   the figures' time against the learning they show (measured in the same run): the ratio
   figures / learning should stay at or below 1.
2. Metrics of one checkpoint with the game's Truth prepared once (what the report does) against
   the baseline of comparing from scratch (solve, visit probabilities and state sets each time).

    python benchmarks/bench_report.py
    python benchmarks/bench_report.py --sides 6 --low 30 --high 35 --dice 4 --games 100..1e6
    python benchmarks/bench_report.py --learner handout,q-learning,mc-epsilon,ucb,thompson
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable

from dicejack import compare, report
from dicejack.game import Game
from dicejack.learners import handout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sides", type=int, default=6)
    ap.add_argument("--low", type=int, default=15)
    ap.add_argument("--high", type=int, default=17)
    ap.add_argument("--dice", type=int, default=2)
    ap.add_argument("--games", default="100..1000000")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--learner", default="handout", help="learners, a comma list (one curve each)")
    ap.add_argument("--param", action="append", default=[], help="as dicejack report --param")
    args = ap.parse_args()
    game = Game(args.sides, args.low, args.high, args.dice)
    cfg = report.ReportConfig(game=game, games=report.parse_games(args.games), seeds=args.seeds,
                              series=report.parse_series([args.learner], args.param))

    with tempfile.TemporaryDirectory() as tmp:
        result = report.make_report(cfg, f"{tmp}/r", workers=args.workers)
    t = result.study.timing
    print(f"study: {game}, {len(cfg.series)} series ({', '.join(s.label for s in cfg.series)}), "
          f"{cfg.seeds} seeds, {len(cfg.games)} checkpoints to {cfg.games[-1]:,}")
    print(f"  wall total           {t['total']:7.2f} s")
    print(f"  solve                {t['solve']:7.2f} s wall")
    print(f"  compile / warm-up    {t['warmup']:7.2f} s wall")
    print(f"  learner runs         {t['runs_wall']:7.2f} s wall")
    print(f"    learning           {t['learn_cpu']:7.2f} s CPU ({t['moves'] / t['learn_cpu']:,.0f} "
          "moves/s)")
    print(f"    metrics            {t['metrics_cpu']:7.2f} s CPU")
    print(f"  statistics           {t['statistics']:7.2f} s wall")
    print(f"  figures              {t['plot']:7.2f} s wall (5+ PNGs, matplotlib import included)")
    print(f"figures against learning: {t['plot']:.2f} s figures / {t['learn_cpu']:.2f} s learning "
          f"CPU = {t['plot'] / t['learn_cpu']:.2f}x; / {t['runs_wall']:.2f} s learner runs wall "
          f"= {t['plot'] / t['runs_wall']:.2f}x")

    truth = compare.truth(game)
    run = handout.learn(game, 100.0, 10_000, seed=1)
    learned = compare.as_learned(game, run)
    assert compare.compare(game, None, run).metrics == compare.metric_values(truth, learned)
    fast_s = _cpu(lambda: compare.metric_values(truth, learned), 200)
    base_s = _cpu(lambda: compare.compare(game, None, run), 20)
    print(f"metrics of one checkpoint (CPU): prepared Truth {fast_s * 1e3:.3f} ms, from scratch "
          f"{base_s * 1e3:.3f} ms: {base_s / fast_s:.1f}x")


def _cpu(fn: Callable[[], object], reps: int) -> float:
    """CPU seconds per call (process time: other jobs on the machine do not count)."""
    fn()
    t0 = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t0) / reps

if __name__ == "__main__":
    main()
