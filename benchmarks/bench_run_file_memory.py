"""Peak memory of loading run files against the peak of learning them (issue 17), measured with
tracemalloc (which sees numpy's buffers): a handout run and a UCB run of a 300x300 game with 12
checkpoints. Prints each loader's peak beside the baseline (learning the same run) and the ratio;
the promise is a ratio of at most 2.

    python benchmarks/bench_run_file_memory.py
"""

from __future__ import annotations

import tempfile
import tracemalloc
from pathlib import Path

from dicejack import formats, learners
from dicejack.formats.learner_runs import load_run_npz, save_run_npz
from dicejack.games.handout_rules import Game
from dicejack.learners import handout

GAME = Game(n_sides=6, low=300, high=310, n_dice=2)
MARKS = list(range(100, 1300, 100))


def peak(fn, *args, **kw):
    tracemalloc.start()
    try:
        result = fn(*args, **kw)
    finally:
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return result, top


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        handout_run, handout_peak = peak(
            handout.learn, GAME, 100.0, MARKS[-1], 1, checkpoints=MARKS
        )
        save_run_npz(folder / "handout.npz", handout_run)
        ucb, ucb_peak = peak(learners.learn, GAME, "ucb", MARKS[-1], seed=1, checkpoints=MARKS)
        formats.save_learner_run(folder / "ucb.npz", ucb)
        print(f"{'file / loader':<34} {'load MiB':>9} {'learn MiB':>10} {'ratio':>6}")
        for name, loader, learned in (
                ("handout.npz / load_run_npz", load_run_npz, handout_peak),
                ("handout.npz / load_learner_run", formats.load_learner_run, handout_peak),
                ("ucb.npz / load_learner_run", formats.load_learner_run, ucb_peak)):
            _, used = peak(loader, folder / name.split(" ")[0])
            print(f"{name:<34} {used / 2**20:>9.1f} {learned / 2**20:>10.1f} "
                  f"{used / learned:>6.2f}")


if __name__ == "__main__":
    main()
