"""Speed of the learners of protocol games (learners/game_learners.py) in one run: moves per
CPU-second of each learner's compiled loop against a plain C loop of the same update
(benchmarks/game_loop.c, built with the system's C compiler, cc -O2: the same row arrays, the
same float operations and numpy's PCG64 stream, so both end with the same tables, checked here
before the speeds are compared), and against its plain Python loop, on Pig; beside the bundled
compiled q-learning on the handout's game (its specialised, table-indexed loop).

    python benchmarks/bench_game_learners.py --rounds 15      # Pig to 50, 20,000 games
    python benchmarks/bench_game_learners.py --goal 100 --rounds 7

Against C, each line gives the ratio of the rounds' median speeds and, as the machine is shared,
a round's ratio (C and dicejack run one after the other from the same state): its median and
the middle half of the rounds.

CPU time (time.process_time) of play() alone: enumeration, building the learner and numba's
start-up (every kernel is run once before timing) are excluded. The plain loops play a tenth of
the games. Ratios: compiled over plain (what numba buys), and generic compiled over the bundled
compiled q-learning (what the generality costs per move; Pig's and the handout's moves differ, so
this ratio is indicative).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from dicejack import learners
from dicejack.games import Pig
from dicejack.games.handout_rules import Game
from dicejack.learners import pcg
from dicejack.learners.game_learners import GAME_LEARNERS

HERE = Path(__file__).resolve().parent
#: The learners game_loop.c has a loop for.
IN_C = ("q-learning", "counting")


def rate(learner, games: int) -> tuple[float, int]:
    """(moves per CPU second, moves) of learner.play(games)."""
    before = learner.moves
    started = time.process_time()
    learner.play(games)
    took = max(time.process_time() - started, 1e-9)
    return (learner.moves - before) / took, learner.moves - before


def build_c(folder: Path) -> Path | None:
    """game_loop.c compiled into `folder`; None when there is no C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    exe = folder / "game_loop"
    subprocess.run([compiler, "-O2", "-o", str(exe), str(HERE / "game_loop.c")], check=True)
    return exe


def write_arrays(learner, path: Path) -> None:
    """What game_loop.c reads (its header comment): the learner's rows, parameters and its
    generator's state now."""
    a, p = learner.arrays, learner.params
    alpha = p.get("alpha")
    with open(path, "wb") as f:
        f.write(np.array([len(a["terminal"]), len(a["row_state"]), len(a["succ"])],
                         dtype="<i8").tobytes())
        for key, dtype in (("row_start", "<i8"), ("indptr", "<i8"), ("succ", "<i8"),
                           ("cum", "<f8"), ("sign", "<f8"), ("payoff", "<f8"),
                           ("terminal", "u1")):
            f.write(np.ascontiguousarray(a[key], dtype=dtype).tobytes())
        f.write(learner.space.player.astype("<i8").tobytes())
        f.write(np.array([p.get("epsilon", 0.0), p.get("epsilon_min", 0.0),
                          p.get("epsilon_decay", 1.0), 0.0 if alpha is None else alpha,
                          p.get("m", 0.0), p.get("q_init", 0.0)], dtype="<f8").tobytes())
        f.write(np.array([p["max_moves"]], dtype="<i8").tobytes())
        f.write(pcg.state_of(learner.rng).astype("<u8").tobytes())


def same_tables(learner, path: Path) -> bool:
    """Whether the tables game_loop.c wrote to `path` are the learner's, exactly."""
    rows, states = len(learner.n), len(learner.visits)
    data = path.read_bytes()
    q = np.frombuffer(data, "<f8", rows)
    counts = np.frombuffer(data, "<i8", 2 * rows + states, offset=8 * rows)
    n, lose, visits = counts[:rows], counts[rows:2 * rows], counts[2 * rows:]
    if not np.array_equal(visits, learner.visits) or not np.array_equal(n, learner.n):
        return False
    if learner.name == "counting":
        return np.array_equal(lose, learner.lose)
    return np.array_equal(q, learner.q)


def against_c(exe: Path, folder: Path, name: str, game, games: int, rounds: int) -> str:
    """One line: the compiled loop and the C loop from one state each round (interleaved),
    same tables, and the median of the rounds' speeds."""
    cls = GAME_LEARNERS[name]
    cls(game, 1).play(10)  # numba: compile or load
    ours_rates, c_rates, same = [], [], True
    for seed in range(1, rounds + 1):
        ours = cls(game, seed)
        write_arrays(ours, folder / "arrays.bin")
        out = subprocess.run([str(exe), name, str(folder / "arrays.bin"), str(games),
                              str(folder / "tables.bin")],
                             capture_output=True, text=True, check=True).stdout.split()
        c_moves, c_secs = int(out[0]), float(out[1])
        fast, moves = rate(ours, games)
        same = same and moves == c_moves and same_tables(ours, folder / "tables.bin")
        ours_rates.append(fast)
        c_rates.append(c_moves / max(c_secs, 1e-9))
    fast, slow = statistics.median(ours_rates), statistics.median(c_rates)
    paired = sorted(o / c for o, c in zip(ours_rates, c_rates, strict=True))
    middle = paired[len(paired) // 4], paired[(3 * len(paired)) // 4]
    return (f"{name}, Pig to {game.goal}: dicejack compiled {fast:,.0f} moves/CPU-s, C loop "
            f"{slow:,.0f} (median of {rounds} rounds of {games:,} games); dicejack/C "
            f"{fast / slow:.2f}x (a round's ratio: median {statistics.median(paired):.2f}, "
            f"middle half {middle[0]:.2f}-{middle[1]:.2f}); same tables in every round: "
            f"{'yes' if same else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--goal", type=int, default=50)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5, help="C / dicejack rounds (median)")
    args = parser.parse_args()
    game = Pig(goal=args.goal)
    bundled = learners.make(Game(6, 15, 17, 2), "q-learning", seed=1)
    bundled.play(10)  # numba: compile or load
    base, base_moves = rate(bundled, 50 * args.games)  # its games are short: time as many moves
    print(f"bundled compiled q-learning, handout's game: {base:,.0f} moves/CPU-s "
          f"({base_moves:,} moves)")
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_c(Path(tmp))
        for name in IN_C:
            print(against_c(exe, Path(tmp), name, game, args.games, args.rounds)
                  if exe is not None
                  else f"{name}: no C compiler here, the C loop skipped")
    for name, cls in GAME_LEARNERS.items():
        compiled = cls(game, 1, engine="numba")
        compiled.play(10)
        fast, moves = rate(compiled, args.games)
        plain = cls(game, 1, engine="python")
        slow, plain_moves = rate(plain, max(1, args.games // 10))
        print(f"{name}, Pig to {args.goal}: compiled {fast:,.0f} moves/CPU-s ({moves:,} moves); "
              f"plain Python {slow:,.0f} ({plain_moves:,}); compiled/plain {fast / slow:.1f}x; "
              f"compiled/bundled {fast / base:.2f}x")


if __name__ == "__main__":
    main()
