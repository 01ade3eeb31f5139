"""Executors, map_tasks, the progress bar and the per-process truth cache."""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from types import SimpleNamespace

import numpy as np
import pytest

from dicejack import compare
from dicejack.compare.truth import truth_for
from dicejack.games.handout_rules import Game
from dicejack.runtime import parallel


def slow_square(i: int, n: int) -> tuple[int, int]:
    """i * i, finishing later the smaller i is (so completion order is not task order)."""
    time.sleep(0.02 * (n - i))
    return i * i, os.getpid()


def fail_on(i: int, bad: int) -> int:
    if i == bad:
        raise ValueError(f"task {i} failed")
    return i


def test_map_tasks_gives_the_same_results_inline_and_on_a_process_pool():
    tasks = [(i, 6) for i in range(6)]
    inline = parallel.map_tasks(slow_square, tasks, workers=1)
    pooled = parallel.map_tasks(slow_square, tasks, workers=2)
    assert [r for r, _ in inline] == [r for r, _ in pooled] == [i * i for i in range(6)]
    assert {pid for _, pid in inline} == {os.getpid()}
    assert os.getpid() not in {pid for _, pid in pooled}


def test_map_tasks_raises_the_first_task_error():
    with pytest.raises(ValueError, match="task 2 failed"):
        parallel.map_tasks(fail_on, [(i, 2) for i in range(4)], workers=1)
    with pytest.raises(ValueError, match="task 2 failed"):
        parallel.map_tasks(fail_on, [(i, 2) for i in range(4)], workers=2)


def test_map_tasks_uses_a_given_executor_and_leaves_it_open():
    with cf.ThreadPoolExecutor(2) as ex:
        assert parallel.map_tasks(fail_on, [(i, -1) for i in range(5)], executor=ex) == [
            0, 1, 2, 3, 4]
        assert ex.submit(fail_on, 7, -1).result() == 7


def test_inline_executor_runs_at_submit_and_delivers_errors_through_the_future():
    calls = []
    with parallel.open_executor(workers=1) as ex:
        assert isinstance(ex, parallel.InlineExecutor)
        fut = ex.submit(calls.append, "ran")
        assert calls == ["ran"] and fut.done()
        bad = ex.submit(fail_on, 1, 1)
        with pytest.raises(ValueError):
            bad.result()


def test_bad_worker_counts_and_unreachable_schedulers_are_executor_errors(monkeypatch):
    with pytest.raises(parallel.ExecutorError, match="workers must be >= 1"):
        with parallel.open_executor(workers=0):
            pass
    pytest.importorskip("distributed")
    monkeypatch.setattr(parallel, "DASK_CONNECT_TIMEOUT", 1)
    with pytest.raises(parallel.ExecutorError, match="cannot connect"):
        with parallel.open_executor(dask="tcp://127.0.0.1:9"):
            pass


def test_progress_bar_is_a_no_op_when_disabled(capsys):
    for enabled, total in ((False, 3), (True, 0)):
        advance, stop = parallel.progress_bar("work", total, enabled)
        advance()
        stop()
    assert capsys.readouterr() == ("", "")


def test_progress_bar_counts_on_stderr(capsys, monkeypatch):
    monkeypatch.setattr(parallel, "stderr_is_terminal", lambda: True)
    advance, stop = parallel.progress_bar("work", 3, True)
    for _ in range(3):
        advance()
    stop()
    out, err = capsys.readouterr()
    assert out == "" and "work" in err and "3/3" in err


def test_progress_bars_draw_only_on_a_terminal(capsys):
    """stderr redirected (here: captured, not a terminal): no bar, not even its last frame."""
    assert not parallel.stderr_is_terminal()
    advance, stop = parallel.progress_bar("work", 3, True)
    for _ in range(3):
        advance()
    stop()
    update, close = parallel.games_progress_bar(100, 0)
    update(SimpleNamespace(played=100))
    close()
    assert capsys.readouterr() == ("", "")


def test_learn_bar_rate_leaves_out_the_time_before_the_first_chunk(capsys, monkeypatch):
    """The first chunk pays for compiling the loop (and a --trace): 10 games in 5 s. The rate
    counts from there: 1,000,000 games in the next second read 1,000,000 games/s, not the
    166,668 of all the games over all the time."""
    clock = iter([0.0, 5.0, 6.0])
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(parallel, "stderr_is_terminal", lambda: True)
    update, close = parallel.games_progress_bar(2_000_000, 0)
    update(SimpleNamespace(played=10))
    update(SimpleNamespace(played=1_000_010))
    close()
    err = capsys.readouterr().err
    assert "1,000,000 games/s" in err and "166,668" not in err


def test_truth_for_solves_once_per_process():
    game = Game(n_sides=3, low=6, high=7, n_dice=2)
    t = truth_for((3, 6, 7, 2))
    assert truth_for([3, 6, 7, 2]) is t
    assert truth_for(tuple(np.int64(v) for v in (3, 6, 7, 2))) is t
    assert t.game == game and t.p00 == compare.truth(game).p00
    assert truth_for((3, 6, 8, 2)) is not t
