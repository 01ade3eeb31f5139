"""Start-up speed: whole-process times of the command line beside `python -c "import numpy"`.

Timed, each in a fresh process (subprocess, output discarded): `python -c "import numpy"` (the
baseline), `dicejack solve`, `dicejack compare RUN.npz` and `dicejack --help`, on the handout's
game (6 sides, 15..17, 2 dice). RUN.npz is made first, untimed, by `dicejack learn --games N
--out RUN.npz` (or pass --run). One untimed warm-up round (it leaves Python's bytecode cache and
numba's cache, if any, in place), then --repeat rounds, each running every command once in turn;
best and median wall time per command, and the ratio of bests to the baseline's.

The commands go through the installed `dicejack` console script (next to this Python), or
`python -m dicejack.cli` with --module. The children get this environment without
PYTHONDONTWRITEBYTECODE (as after `pip install`, where modules load from bytecode; numpy's always
do); --env-as-is keeps it.

    python benchmarks/bench_startup.py
    python benchmarks/bench_startup.py --repeat 20 --module
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cli(module: bool) -> list[str]:
    """The command that runs dicejack: the console script beside this Python, else on PATH."""
    if not module:
        script = Path(sys.executable).with_name("dicejack")
        found = str(script) if script.exists() else shutil.which("dicejack")
        if found:
            return [found]
    return [sys.executable, "-m", "dicejack.cli"]


def _run(cmd: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one run of `cmd`."""
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _time(commands: list[list[str]], env: dict[str, str], repeat: int) -> list[list[float]]:
    """Wall seconds of each command, `repeat` rounds after one warm-up round.

    Rounds run every command once in turn, so that a busy spell of the machine slows all of
    them alike rather than one command's whole series.
    """
    for cmd in commands:
        _run(cmd, env)
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for series, cmd in zip(times, commands, strict=True):
            series.append(_run(cmd, env))
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20, help="best of N runs per command")
    ap.add_argument("--games", type=int, default=100_000, help="NGAMES of the compared run")
    ap.add_argument("--run", type=Path, default=None, help="compare this run (.npz) instead")
    ap.add_argument("--module", action="store_true", help="python -m dicejack.cli, not the script")
    ap.add_argument("--env-as-is", action="store_true", help="keep PYTHONDONTWRITEBYTECODE")
    args = ap.parse_args()

    env = dict(os.environ)
    if not args.env_as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    cli = _cli(args.module)
    with tempfile.TemporaryDirectory() as tmp:
        run = args.run
        if run is None:
            run = Path(tmp) / "run.npz"
            subprocess.run(
                [*cli, "learn", "--games", str(args.games), "--out", str(run)], env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
            )
        commands = [
            ('python -c "import numpy"', [sys.executable, "-c", "import numpy"]),
            ("dicejack solve", [*cli, "solve"]),
            (f"dicejack compare {run.name}", [*cli, "compare", str(run)]),
            ("dicejack --help", [*cli, "--help"]),
        ]
        times = _time([cmd for _, cmd in commands], env, args.repeat)

    rows = []
    for (name, _), series in zip(commands, times, strict=True):
        series = sorted(series)
        rows.append((name, series[0], series[len(series) // 2]))
    base = rows[0][1]
    how = " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cli))
    print(f"dicejack start-up: {how}; Python {sys.version.split()[0]}; best of {args.repeat} "
          f"runs (after one warm-up); bytecode cache {'as-is' if args.env_as_is else 'on'}")
    header = f"{'command':<28} {'best s':>7} {'median s':>9} {'x numpy':>8}"
    print(header)
    print("-" * len(header))
    for name, best, median in rows:
        print(f"{name:<28} {best:7.3f} {median:9.3f} {best / base:8.2f}")
    print("whole-process wall time; x numpy: best over the best of `python -c \"import numpy\"`")


if __name__ == "__main__":
    main()
