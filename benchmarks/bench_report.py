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

3. With --command: the whole `dicejack report` command as a user runs it after a fresh install,
   each in a fresh process: cold (an empty numba cache, so the learner and solver loops
   compile) and then --repeat warm runs (the cache the cold run left), beside the baseline
   `python -c "import numpy"` timed in the same run; wall and CPU seconds (CPU counts only this
   command's work, so it varies less on a busy machine), the compile/warm-up seconds from each
   run's timing.json, and the load average (a busy machine stretches wall times).

    python benchmarks/bench_report.py --command --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dicejack import compare, report
from dicejack.cli.report_options import parse_games, parse_series
from dicejack.compare.metrics import metric_values
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.report.contents import TIMING_FILE


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
    ap.add_argument("--command", action="store_true",
                    help="time the whole `dicejack report` command, cold and warm (see 3.)")
    ap.add_argument("--repeat", type=int, default=3, help="warm runs with --command")
    args = ap.parse_args()
    if args.command:
        command_times(args)
        return
    game = Game(args.sides, args.low, args.high, args.dice)
    cfg = report.ReportConfig(game=game, games=parse_games(args.games), seeds=args.seeds,
                              series=parse_series([args.learner], args.param))

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
    assert compare.compare(game, None, run).metrics == metric_values(truth, learned)
    fast_s = _cpu(lambda: metric_values(truth, learned), 200)
    base_s = _cpu(lambda: compare.compare(game, None, run), 20)
    print(f"metrics of one checkpoint (CPU): prepared Truth {fast_s * 1e3:.3f} ms, from scratch "
          f"{base_s * 1e3:.3f} ms: {base_s / fast_s:.1f}x")


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process running `argv` (output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def command_times(args: argparse.Namespace) -> None:
    """3.: `dicejack report` (with the game, --games, --seeds, --learner and --workers given)
    cold and warm, beside `python -c "import numpy"`."""
    exe = Path(sys.executable).with_name("dicejack")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "dicejack.cli"]
    command += ["report", "--sides", str(args.sides), "--low", str(args.low), "--high",
                str(args.high), "--dice", str(args.dice), "--games", args.games, "--seeds",
                str(args.seeds), "--learner", args.learner, *(f"--param={p}" for p in args.param)]
    if args.workers is not None:
        command += ["--workers", str(args.workers)]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=f"{tmp}/numba-cache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        base = min(_timed([sys.executable, "-c", "import numpy"], env)[0] for _ in range(3))
        rows = []
        for i in range(1 + args.repeat):
            out = f"{tmp}/report-{i}"
            wall, cpu = _timed([*command, "--out", out], env)
            seconds = json.loads(Path(out, TIMING_FILE).read_text())["seconds"]
            rows.append((wall, cpu, seconds["compile_warmup"], seconds["figures"]))
    print(f"{' '.join(command[1:] if exe.exists() else command[3:])}  (load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    print(f"  baseline python -c 'import numpy'   {base:6.2f} s wall")
    for name, (wall, cpu, warm, figs) in zip(
            ["cold (empty numba cache)", *(f"warm {i}" for i in range(1, len(rows)))], rows,
            strict=True):
        print(f"  {name:<34} {wall:6.2f} s wall ({wall / base:5.1f}x the baseline), "
              f"{cpu:6.2f} s CPU; compile/warm-up {warm:5.2f} s, figures {figs:5.2f} s")
    warm_walls = sorted(r[0] for r in rows[1:])
    if warm_walls:
        print(f"  cold / best warm wall: {rows[0][0] / warm_walls[0]:.2f}x")


def _cpu(fn: Callable[[], object], reps: int) -> float:
    """CPU seconds per call (process time: other jobs on the machine do not count)."""
    fn()
    t0 = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t0) / reps

if __name__ == "__main__":
    main()
