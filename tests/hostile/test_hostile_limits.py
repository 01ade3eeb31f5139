"""Limits before work (issue 17): every command sizes what it was asked for and refuses absurd
work in one line within seconds; workers are capped at the machine; crafted run files cost what
a real run of their game costs (peak memory measured with tracemalloc, which sees numpy's
buffers); the Gymnasium env refuses what it cannot use with EnvError. Commands that could hang
run in a subprocess with a timeout."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from dicejack import formats, learners
from dicejack.cli import main
from dicejack.formats.learner_runs import load_run_npz
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.runtime import parallel
from tests.learners.legacy_runs import legacy_run_file

CLI = "import sys; from dicejack.cli import main; sys.exit(main(sys.argv[1:]))"


def cli(*args: object, timeout: float = 60, cwd: Path | None = None) -> tuple[int, str]:
    """Run `dicejack ARGS` in a subprocess: (exit code, stderr); fails on a hang."""
    done = subprocess.run([sys.executable, "-c", CLI, *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)
    return done.returncode, done.stderr


# ------------------------------------------------------------------ 1. sizes before work
@pytest.mark.slow
def test_too_many_workers_are_capped_with_a_note(tmp_path):
    code, err = cli("report", "--games", "10,20", "--seeds", "2", "--workers", "100000",
                       "--out", tmp_path / "r", timeout=120)
    assert code == 0, err
    assert "note: --workers 100,000: this machine has" in err and "Traceback" not in err
    assert (tmp_path / "r" / "report.md").is_file()


@pytest.mark.parametrize("args, message", [
    (["--learner", "ucb", "--games", "100..1e12", "--seeds", "1"],
     "1,000,000,000,000 games: games 1,000,000,000,000 is more than the limit of "
     "100,000,000,000 games"),
    (["--games", "100..1e9", "--seeds", "10000", "-m", "1,10,100"],
     "is more than the limit of 100,000,000,000 games"),
    (["--learner", "q-learning", "--param", "epsilon=" + ",".join(f"0.{i:02d}" for i in
                                                                  range(1, 100)),
      "--param", "alpha=" + ",".join(f"0.{i:03d}" for i in range(1, 151))],
     "--param and -m ask for 14,850 series (q-learning 99 x 150); the limit is 200"),
    (["--learner", "q-learning", "--param", "alpha=" + ",".join(f"0.{i:04d}" for i in
                                                                range(1, 10**4))],
     "--param alpha=...: 9,999 values; the limit is 200 series"),
    (["--learner", "q-learning"] + [x for k, n in (("epsilon", 100), ("alpha", 100),
                                                   ("q_init", 100), ("epsilon_min", 100))
                                    for x in ("--param", f"{k}=" + ",".join(
                                        f"0.{i:03d}" for i in range(1, n + 1)))],
     "ask for 100,000,000 series"),
])
def test_absurd_studies_are_refused_in_one_line_before_any_work(tmp_path, capsys, monkeypatch,
                                                                 args, message):
    def started(*args, **kwargs):
        raise AssertionError("the study started before the refusal")

    monkeypatch.setattr(parallel, "map_tasks", started)
    code = main(["report", *args, "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------- 2. run files cost what they claim
GAME = Game(n_sides=6, low=300, high=310, n_dice=2)
MARKS = list(range(100, 1300, 100))  # 12 checkpoints


def peak(fn, *args, **kw) -> tuple[object, int]:
    """fn's result (or the exception it raised) and the peak bytes allocated while it ran."""
    tracemalloc.start()
    try:
        result = fn(*args, **kw)
    except Exception as exc:  # noqa: BLE001 - a refusal is a result here
        result = exc
    finally:
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return result, top


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """A real handout run and a real UCB run of GAME with 12 checkpoints, saved, and the peak
    memory each took to learn; the handout run also in the old layout (handout-old.npz, count
    snapshots)."""
    folder = tmp_path_factory.mktemp("runs")
    handout_run, handout_peak = peak(handout.learn, GAME, 100.0, MARKS[-1], 1, checkpoints=MARKS)
    formats.save_learner_run(folder / "handout.npz", handout_run)
    legacy_run_file(folder / "handout-old.npz", GAME, 100.0, MARKS[-1], 1, checkpoints=MARKS)
    ucb, ucb_peak = peak(learners.learn, GAME, "ucb", MARKS[-1], seed=1, checkpoints=MARKS)
    formats.save_learner_run(folder / "ucb.npz", ucb)
    return folder, handout_peak, ucb_peak


def _members(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def test_real_runs_load_within_twice_the_memory_of_learning_them(real):
    folder, handout_peak, ucb_peak = real
    for name, learned in (("handout", handout_peak), ("ucb", ucb_peak)):
        run, used = peak(formats.load_learner_run, folder / f"{name}.npz")
        assert not isinstance(run, Exception), run
        assert used <= 2 * learned, (name, used, learned)
    # the old layout holds two count tables per checkpoint: it costs what the run cost to learn
    # when it was written (win, lose, f cache and two count tables per snapshot)
    run, used = peak(formats.load_learner_run, folder / "handout-old.npz")
    assert not isinstance(run, Exception), run
    assert used <= 2 * (3 + 2 * len(MARKS)) * GAME.table_bytes, (used, handout_peak)


@pytest.mark.slow
def test_junk_members_are_refused_unread(real, tmp_path):
    folder, _, ucb_peak = real
    data = _members(folder / "ucb.npz")
    table = np.zeros(GAME.table_shape)  # compresses to almost nothing, costs 2 MiB each
    crafted = tmp_path / "junk.npz"
    np.savez_compressed(crafted, **data, **{f"state__junk{i}": table for i in range(60)})
    assert crafted.stat().st_size < 5 * 2**20
    result, used = peak(formats.load_learner_run, crafted)
    assert isinstance(result, formats.FormatError)
    assert "unknown members 'state__junk0', 'state__junk1', 'state__junk10' and 57 more" in str(
        result)
    assert used < 2**20  # nothing of the 120 MiB declared was read
    handout = _members(folder / "handout-old.npz")
    crafted = tmp_path / "junk-handout.npz"
    np.savez_compressed(crafted, **handout, extra=table)
    result, used = peak(load_run_npz, crafted)
    assert "unknown members 'extra'" in str(result) and used < 2**20


def test_snapshots_are_checked_before_they_are_read(real, tmp_path):
    folder, handout_peak, _ = real
    data = _members(folder / "handout-old.npz")
    n = 40
    crafted = tmp_path / "many.npz"
    np.savez_compressed(crafted, **{
        **data, "snapshot_games": np.arange(n, dtype=np.int64) * 10**9,
        "snapshot_win": np.zeros((n, *GAME.table_shape), np.int64),
        "snapshot_lose": np.zeros((n, *GAME.table_shape), np.int64)})
    result, used = peak(load_run_npz, crafted)
    assert "snapshots not at increasing game counts within 0..1200" in str(result)
    assert used < 2**20
    # a game far larger than any real run may hold, with a few snapshots: refused by size
    big = Game(n_sides=6, low=20_000, high=20_010, n_dice=2)
    params = json.dumps(big.params())
    crafted = tmp_path / "big.npz"
    np.savez_compressed(crafted, **{**data, "params": np.array(params),
                                    "snapshot_games": np.arange(3, dtype=np.int64)})
    result, used = peak(load_run_npz, crafted)
    assert "game too large" in str(result) and "GiB" in str(result) and used < 2**20


def test_a_crafted_run_with_many_valid_snapshots_costs_what_that_real_run_costs(real, tmp_path):
    folder, handout_peak, _ = real
    run = load_run_npz(folder / "handout-old.npz")
    # what learning that run cost when the old layout was written: win, lose, f cache and two
    # count tables per checkpoint (the learner now keeps three LxL tables per checkpoint)
    learning_peak = (3 + 2 * len(MARKS)) * GAME.table_bytes
    data = _members(folder / "handout-old.npz")
    crafted = tmp_path / "twelve.npz"
    stacked = np.stack([run.win] * len(MARKS))
    np.savez_compressed(crafted, **{**data, "snapshot_win": stacked,
                                    "snapshot_lose": np.stack([run.lose] * len(MARKS))})
    result, used = peak(load_run_npz, crafted)
    assert used <= 2 * learning_peak, (used, learning_peak)


# --------------------------------------------------------------------------- 3. the env
def test_the_env_refuses_what_it_cannot_use():
    pytest.importorskip("gymnasium")
    from dicejack.compare import CompareError, greedy_tables
    from dicejack.envs.gym_env import DiceJackEnv, EnvError
    from dicejack.games.handout_rules import HANDOUT_GAME as game

    env = DiceJackEnv(game)
    for options in (1, "agent_first", [("agent_first", True)]):
        with pytest.raises(EnvError, match="reset options must be a dict"):
            env.reset(options=options)
    with pytest.raises(EnvError, match="must hold numbers"):
        DiceJackEnv(game, opponent=np.ones(game.shape, dtype=bool))
    with pytest.raises(EnvError, match="must hold numbers"):
        DiceJackEnv(game, opponent=np.ones(game.shape, dtype=object))
    for q in (np.full(game.table_shape, 0.5, dtype=object), np.ones(game.table_shape, bool)):
        with pytest.raises(CompareError, match="numeric array"):
            greedy_tables(game, q)
    with pytest.raises(CompareError, match="numeric array"):
        greedy_tables(game, np.full(game.table_shape, 0.5), np.ones(game.shape, dtype=object))
    holder: dict[str, DiceJackEnv] = {}

    def meddling(x, y, rng):
        holder["env"].step(1)
        return 1

    env = DiceJackEnv(game, opponent=meddling, agent_first=0.0)
    holder["env"] = env
    with pytest.raises(EnvError, match=r"step\(\) called while reset\(\) is running"):
        env.reset(seed=1)
    env = DiceJackEnv(game, opponent=lambda x, y, rng: holder["env"].reset() or 1)
    holder["env"] = env
    env.reset(seed=2)
    with pytest.raises(EnvError, match=r"reset\(\) called while step\(\) is running"):
        env.step(1)
    with pytest.raises(EnvError, match="call reset"):
        env.step(1)  # the interrupted episode cannot go on
