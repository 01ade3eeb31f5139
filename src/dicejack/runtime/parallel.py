"""Running many independent tasks: executors and the progress bar.

Owns how work is spread, not what the work is. :func:`open_executor` gives an in-process
executor (``--workers 1``), a local process pool, or a Dask cluster's executor (``--dask``; its
workers need dicejack installed); :func:`map_tasks` runs ``fn(*task)`` for every task through one
and returns the results in task order, with :func:`progress_bar` on stderr. A task's result must
not depend on which executor ran it: tasks get plain, picklable values (each process solves the
game it needs once, through :func:`dicejack.compare.truth.truth_for`, rather than receiving arrays).

rich and dask are imported only when a progress bar is shown or a cluster is used.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from dicejack.runtime.messages import DicejackError, one_line

__all__ = [
    "ExecutorError",
    "DASK_CONNECT_TIMEOUT",
    "InlineExecutor",
    "open_executor",
    "progress_bar",
    "games_progress_bar",
    "map_tasks",
]

#: Seconds to wait for a Dask scheduler before giving up: bounds the whole handshake (a server that
#: accepts the connection and never answers, or answers garbage, gives an ExecutorError in time).
DASK_CONNECT_TIMEOUT = 10


class WorkersWarning(UserWarning):
    """More workers were asked for than the machine has: fewer are used."""


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
        client = _dask_client(distributed, dask, DASK_CONNECT_TIMEOUT)
        try:
            yield client.get_executor(pure=False)
        finally:
            client.close()
        return
    workers = worker_count(workers)
    if workers == 1:
        yield InlineExecutor()
        return
    pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_ignore_interrupts)
    try:
        yield pool
    except BaseException:
        _stop_pool(pool)  # interrupted or failed: stop the workers now, leave no orphans
        raise
    else:
        pool.shutdown(wait=True)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system says, else the count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_count(workers: int | None) -> int:
    """The local worker processes to start for `workers` (None: one per CPU): never more than
    the CPUs available (more only queue, and thousands would exhaust the process table); a
    WorkersWarning says so when `workers` is capped. ExecutorError below 1."""
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ExecutorError(f"workers must be >= 1, got {workers}")
    cpus = available_cpus()
    if workers is None:
        return cpus
    if workers > cpus:
        warnings.warn(f"--workers {workers:,}: this machine has {cpus} CPU"
                      f"{'s' * (cpus != 1)}; using {cpus} worker{'s' * (cpus != 1)}",
                      WorkersWarning, stacklevel=3)
        return cpus
    return int(workers)


def _ignore_interrupts() -> None:
    """Worker start-up: Ctrl-C (sent to the whole process group) is the parent's to handle; the
    parent then stops the workers itself (:func:`_stop_pool`, SIGTERM)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, if forked


def _stop_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Cancel pending work and terminate the pool's worker processes, without waiting for the
    tasks they run (a learner run can take minutes)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.terminate()
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()


def _dask_client(distributed: Any, address: str, timeout: float) -> Any:
    """A connected ``distributed.Client``, or ExecutorError within about `timeout` seconds.

    Client(timeout=) alone does not bound the handshake (a server that accepts and never answers
    kept it waiting for good), so the connection is made in a daemon thread given up on after
    `timeout` (plus a second's grace); any failure, even a MemoryError from a garbage reply,
    becomes one line."""
    import threading

    box: dict[str, Any] = {}

    def connect() -> None:
        try:
            box["client"] = distributed.Client(address, timeout=timeout, set_as_default=False)
        except BaseException as exc:  # noqa: BLE001 - reported below, in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=connect, name="dicejack-dask-connect", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    if thread.is_alive():
        raise ExecutorError(
            f"cannot connect to the Dask scheduler {address}: no answer within {timeout:g} s"
        )
    if "error" in box:
        exc = box["error"]
        if isinstance(exc, MemoryError):
            reason = "its answer is not a Dask scheduler's (is it one?)"
        else:
            reason = one_line(exc)
        raise ExecutorError(f"cannot connect to the Dask scheduler {address}: {reason}")
    return box["client"]


def stderr_is_terminal() -> bool:
    """True when stderr is a terminal: progress bars are drawn only there (redirected into a
    file or a pipe, rich would still write the bar's last frame into it)."""
    try:
        return bool(sys.stderr is not None and sys.stderr.isatty())
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


def progress_bar(
    label: str, total: int, enabled: bool
) -> tuple[Callable[[], None], Callable[[], None]]:
    """(advance, stop) callbacks of a rich progress bar on stderr (no-ops when disabled, or when
    stderr is not a terminal)."""
    if not enabled or total <= 0 or not stderr_is_terminal():
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


def games_progress_bar(
    total: int, start: int
) -> tuple[Callable[[Any], None], Callable[[], None]]:
    """(update(session), stop) of `dicejack learn`'s bar on stderr: games played of `total`
    (from `start`) and games per second; it appears only once the run has lasted 1 s, and only
    on a terminal.

    The rate counts from the first update (after the first chunk of games): the time before it
    (compiling the learner's loop, a --trace) is not games being played, and counted in, it made
    a run of millions of games per second read "2 games/s"."""
    import time

    if not stderr_is_terminal():
        return (lambda _session: None), (lambda: None)

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    began = time.perf_counter()
    state: dict[str, Any] = {}

    def update(session: Any) -> None:
        now = time.perf_counter()
        elapsed = now - began
        first_time, first_played = state.setdefault("first", (now, session.played))
        if "bar" not in state:
            if elapsed <= 1.0:
                return
            bar = Progress(
                TextColumn("learning"), BarColumn(bar_width=24), MofNCompleteColumn(),
                TextColumn("games, {task.fields[rate]} games/s"), TimeRemainingColumn(),
                console=Console(stderr=True), transient=False,
            )
            bar.start()
            state["bar"] = bar
            state["task"] = bar.add_task("learn", total=total, completed=start, rate="-")
        played = session.played - first_played
        rate = f"{played / (now - first_time):,.0f}" if played > 0 and now > first_time else "-"
        state["bar"].update(state["task"], completed=session.played, rate=rate)

    def close() -> None:
        if "bar" in state:
            state["bar"].stop()

    return update, close


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
