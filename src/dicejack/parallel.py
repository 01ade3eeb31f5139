"""Running many independent tasks: executors, the progress bar, and the per-process truth cache.

Owns how work is spread, not what the work is. :func:`open_executor` gives an in-process
executor (``--workers 1``), a local process pool, or a Dask cluster's executor (``--dask``; its
workers need dicejack installed); :func:`map_tasks` runs ``fn(*task)`` for every task through one
and returns the results in task order, with :func:`progress_bar` on stderr. A task's result must
not depend on which executor ran it: tasks get plain, picklable values, and each process solves
the game it needs once through :func:`truth_for` rather than receiving arrays.

rich and dask are imported only when a progress bar is shown or a cluster is used.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from dicejack import compare, one_line
from dicejack.compare import Truth
from dicejack.game import DicejackError, Game

__all__ = [
    "ExecutorError",
    "DASK_CONNECT_TIMEOUT",
    "InlineExecutor",
    "open_executor",
    "progress_bar",
    "map_tasks",
    "truth_for",
]

#: Seconds to wait for a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT = 10


class ExecutorError(DicejackError):
    """No executor to run on: a bad worker count or an unreachable Dask scheduler."""


class InlineExecutor(cf.Executor):
    """Runs each task at submit time, in this thread (``--workers 1``; handy in tests)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        future: cf.Future = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - delivered through the future
            if isinstance(exc, KeyboardInterrupt):
                raise
            future.set_exception(exc)
        return future


@contextlib.contextmanager
def open_executor(workers: int | None = None, dask: str | None = None) -> Iterator[cf.Executor]:
    """A Dask client's executor when `dask` is a scheduler address, in-process when
    workers == 1, else a local process pool of `workers` (default: CPU count)."""
    if dask:
        try:
            import distributed
        except ImportError:
            raise ExecutorError(
                "--dask needs dask.distributed: pip install 'dicejack[cluster]'"
            ) from None
        try:
            client = distributed.Client(dask, timeout=DASK_CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError(
                f"cannot connect to the Dask scheduler {dask}: {one_line(exc)}"
            ) from None
        try:
            yield client.get_executor(pure=False)
        finally:
            client.close()
        return
    if workers is not None and workers < 1:
        raise ExecutorError(f"workers must be >= 1, got {workers}")
    if workers == 1:
        yield InlineExecutor()
        return
    with cf.ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        yield pool


def progress_bar(
    label: str, total: int, enabled: bool
) -> tuple[Callable[[], None], Callable[[], None]]:
    """(advance, stop) callbacks of a rich progress bar on stderr (no-ops when disabled)."""
    if not enabled or total <= 0:
        return (lambda: None), (lambda: None)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=False,
    )
    task = bar.add_task(label, total=total)
    bar.start()
    return (lambda: bar.advance(task)), bar.stop


def map_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple],
    *,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    label: str = "runs",
    progress: bool = False,
) -> list[Any]:
    """fn(*task) for every task through an executor (`executor`, or :func:`open_executor`),
    with a progress bar; results in task order. Pending work is cancelled on any error."""
    results: dict[int, Any] = {}
    with contextlib.ExitStack() as stack:
        ex = executor if executor is not None else stack.enter_context(
            open_executor(workers, dask)
        )
        futures = {ex.submit(fn, *task): i for i, task in enumerate(tasks)}
        advance, stop = progress_bar(label, len(tasks), progress)
        try:
            for fut in cf.as_completed(futures):
                results[futures[fut]] = fut.result()
                advance()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        finally:
            stop()
    return [results[i] for i in range(len(tasks))]


def truth_for(params: Sequence[int]) -> Truth:
    """The :class:`~dicejack.compare.Truth` of the game (n_sides, low, high, n_dice), once per
    process: workers solve for themselves (cheap, and cheaper than shipping arrays; it also keeps
    the array types numba sees the same in every process). The same object on every call."""
    n_sides, low, high, n_dice = (int(v) for v in params)
    return _solved(n_sides, low, high, n_dice)


@functools.lru_cache(maxsize=4)
def _solved(n_sides: int, low: int, high: int, n_dice: int) -> Truth:
    return compare.truth(Game(n_sides=n_sides, low=low, high=high, n_dice=n_dice))
