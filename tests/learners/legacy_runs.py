"""The old layout of the handout learner's run files (kind "dicejack-learn-run"), written as
`dicejack learn --out` wrote it before every learner ran in one harness: dicejack still reads
such files (converted on load, :func:`dicejack.formats.load_learner_run`) and no longer writes
them, so tests of that reader make them here."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from dicejack.formats.atomic import savez_atomic
from dicejack.games.handout_rules import Game
from dicejack.learners import handout


def save_legacy_run(path: Path, run: handout.HandoutRun,
                    snapshots: dict[int, tuple[np.ndarray, np.ndarray]] | None = None) -> None:
    """`run` in the old layout: kind, version, params (JSON), m, games, moves, seed, tie_break,
    rng_state (JSON of ``bit_generator.state``), win, lose (int64 LxLx(K+1)), snapshot_games,
    snapshot_win, snapshot_lose (count snapshots, stacked; empty when none)."""
    snapshots = snapshots or {}
    shape = run.game.table_shape
    marks = sorted(snapshots)
    snap_win = np.zeros((len(marks), *shape), dtype=np.int64)
    snap_lose = np.zeros((len(marks), *shape), dtype=np.int64)
    for i, n in enumerate(marks):
        snap_win[i], snap_lose[i] = snapshots[n]
    savez_atomic(
        path,
        kind=np.array("dicejack-learn-run"),
        version=np.array(1),
        params=np.array(json.dumps(run.game.params())),
        m=np.array(float(run.m)),
        games=np.array(int(run.games), dtype=np.int64),
        moves=np.array(int(run.moves or 0), dtype=np.int64),
        seed=np.array(int(run.seed), dtype=np.int64),
        tie_break=np.array(run.tie_break),
        rng_state=np.array(json.dumps(run.rng_state)),
        win=np.asarray(run.win, dtype=np.int64),
        lose=np.asarray(run.lose, dtype=np.int64),
        snapshot_games=np.array(marks, dtype=np.int64),
        snapshot_win=snap_win,
        snapshot_lose=snap_lose,
    )


def legacy_run_file(path: Path, game: Game, m: float, games: int, seed: int, *,
                    checkpoints: Iterable[int] = (), tie_break: str = "lowest"
                    ) -> handout.HandoutRun:
    """Learn a handout run (count snapshots at `checkpoints`, from runs that stop there) and
    save it in the old layout at `path`; the run (its snapshots as tables)."""
    run = handout.learn(game, m, games, seed, checkpoints=checkpoints, tie_break=tie_break)
    counts = {}
    for mark in checkpoints:
        short = handout.learn(game, m, mark, seed, tie_break=tie_break)
        counts[mark] = (short.win, short.lose)
    save_legacy_run(path, run, counts)
    return run
