"""The test suite on an oversubscribed machine: does it still pass when CI's machine is busy?

Usage: python benchmarks/suite_under_load.py [--rounds 5] [--burners-per-core 2] [--fast]
                                            [--ci] [-- PYTEST ARGS...]

Starts `--burners-per-core` CPU-bound processes per core (busy loops at normal priority) beside
the README's pytest command (`pytest -q -n auto --dist loadfile`, or `-m "not slow"` with
`--fast`), runs it `--rounds` times in a row, and prints each round's exit code, wall seconds and
the machine's load average beside one round on the quiet machine measured first (the baseline),
so the slowdown is a ratio. With `--ci` every round is CI's whole run instead: a fresh clone of
the repository's HEAD and `CI=true bash .ci/run` in it (a new virtual environment, the install,
ruff, lint-imports and the README's pytest command). `--burners-per-core 0` adds no busy loops:
use it when other CPU-bound work already oversubscribes the machine (the load average printed per
round says how busy it was). The burners are stopped however the script ends. A round that fails
prints pytest's summary lines. Exit code: 0 when every round passed, 1 otherwise.

Tests must never assert wall-clock time (CI machines are busy); this script is how that promise
is checked: the suite must pass every round with the machine oversubscribed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BURN = "while True:\n    pass\n"


def _finished(done: subprocess.CompletedProcess[str], started: float, log: Path
              ) -> tuple[int, float, str]:
    """A round's (exit code, wall seconds, its summary lines); its whole output kept in `log`."""
    took = time.perf_counter() - started
    log.write_text(done.stdout + done.stderr)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
    return done.returncode, took, f"{tail}\n(whole output: {log})"


def run_suite(pytest_args: list[str], log: Path) -> tuple[int, float, str]:
    """One run of pytest in the repository (see :func:`_finished`)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT,
                          capture_output=True, text=True)
    return _finished(done, started, log)


def run_ci(log: Path) -> tuple[int, float, str]:
    """CI's whole run on a fresh clone of HEAD (see :func:`_finished`)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ci-round-") as folder:
        clone = Path(folder) / "repo"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, text=True,
                                capture_output=True).stdout.strip()
        print(f"{'':>10} (a fresh clone of {commit})", flush=True)
        done = subprocess.run(["bash", ".ci/run"], cwd=clone, capture_output=True, text=True,
                              env={**os.environ, "CI": "true"})
    return _finished(done, started, log)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--burners-per-core", type=int, default=2)
    parser.add_argument("--fast", action="store_true", help='only -m "not slow"')
    parser.add_argument("--ci", action="store_true",
                        help="each round: a fresh clone of HEAD and CI=true bash .ci/run")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the quiet round measured first")
    parser.add_argument("--logs", default=tempfile.gettempdir(),
                        help="folder for each round's whole pytest output (default: temp)")
    parser.add_argument("pytest_args", nargs="*", help="instead of the README's pytest arguments")
    args = parser.parse_args()
    pytest_args = args.pytest_args or ["-q", "-n", "auto", "--dist", "loadfile", "-p",
                                       "no:cacheprovider"]
    if args.fast:
        pytest_args = [*pytest_args, "-m", "not slow"]
    cores = os.cpu_count() or 1
    def one_round(log: Path) -> tuple[int, float, str]:
        return run_ci(log) if args.ci else run_suite(pytest_args, log)

    what = "CI=true bash .ci/run on a fresh clone" if args.ci else f"pytest {' '.join(pytest_args)}"
    print(f"{what}; {cores} cores")
    print(f"{'round':>10} {'load':>8} {'exit':>5} {'seconds':>9} {'vs quiet':>9}")
    quiet = None
    if not args.no_baseline:
        code, quiet, tail = one_round(Path(args.logs) / "quiet.log")
        print(f"{'quiet':>10} {os.getloadavg()[0]:8.1f} {code:5d} {quiet:9.1f} {1:9.2f}")
        if code:
            print(tail)
    burners = [subprocess.Popen([sys.executable, "-c", BURN])
               for _ in range(args.burners_per_core * cores)]
    failed = 0
    try:
        for i in range(1, args.rounds + 1):
            code, took, tail = one_round(Path(args.logs) / f"busy-{i}.log")
            ratio = f"{took / quiet:9.2f}" if quiet else f"{'-':>9}"
            print(f"{f'busy {i}':>10} {os.getloadavg()[0]:8.1f} {code:5d} {took:9.1f} {ratio}",
                  flush=True)
            if code:
                failed += 1
                print(tail, flush=True)
    finally:
        for proc in burners:
            proc.kill()
        for proc in burners:
            proc.wait()
    print(f"{args.rounds - failed} of {args.rounds} rounds passed with "
          f"{len(burners)} busy loops beside the suite")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
