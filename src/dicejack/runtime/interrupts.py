"""Signals as the commands see them: SIGINT raises KeyboardInterrupt and SIGTERM raises
:class:`Terminated` (a KeyboardInterrupt), so both stop a command the same clean way; a save that
must finish holds them (:func:`deferred`), a step that must not be cut holds them and delivers
them after (:func:`atomic`); and the exit code says which one came (130 / 143).
Used by the command line; library code only sees ordinary KeyboardInterrupts."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

__all__ = ["Terminated", "UNREPORTED", "exit_code", "handlers", "as_interrupts", "deferred",
           "atomic"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt, so that both stop a command the
    same clean way (exit 143 instead of 130)."""


#: Signals received during the command that no command reported itself (typer turns a
#: KeyboardInterrupt into a silent exit code 130, so main() reports them).
UNREPORTED: list[int] = []


#: Where Python's import machinery runs: a KeyboardInterrupt raised inside it can be swallowed
#: by a module lock's weakref callback ("Exception ignored in ... _get_module_lock") and leave the
#: lock held, so that the next import of that module waits for ever.
_IMPORT_FILES = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")


def _inside_import(frame: FrameType | None) -> bool:
    """Whether `frame` or any frame that called it runs Python's import machinery."""
    while frame is not None:
        if frame.f_code.co_filename in _IMPORT_FILES:
            return True
        frame = frame.f_back
    return False


_REDELIVERING: set[int] = set()


def _redeliver_after_import(signum: int) -> None:
    """Send `signum` again once the main thread has left the import machinery (a daemon thread
    watches its stack; the handler then runs where an exception is safe)."""
    if signum in _REDELIVERING:
        return
    _REDELIVERING.add(signum)
    main_id = threading.main_thread().ident

    def watch() -> None:
        try:
            while _inside_import(sys._current_frames().get(main_id)):
                time.sleep(0.002)
        finally:
            _REDELIVERING.discard(signum)
        os.kill(os.getpid(), signum)

    threading.Thread(target=watch, name=f"redeliver-{signum}", daemon=True).start()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    if _inside_import(frame):  # raise it once the import is done, never inside it
        _redeliver_after_import(signum)
        return
    UNREPORTED.append(signum)
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def exit_code(exc: BaseException | None) -> int:
    """143 for SIGTERM (also when click wrapped it in an Abort), else 130."""
    while exc is not None:
        if isinstance(exc, Terminated):
            return 143
        exc = exc.__cause__ or exc.__context__
    return 130


_HANDLED = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def handlers(handler: Callable[[int, object], None]) -> Iterator[None]:
    """SIGINT and SIGTERM go to `handler` inside (main thread only; restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.getsignal(sig) for sig in _HANDLED}
    for sig in _HANDLED:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, was in old.items():
            signal.signal(sig, was if was is not None else signal.SIG_DFL)


def as_interrupts() -> contextlib.AbstractContextManager[None]:
    """SIGINT -> KeyboardInterrupt, SIGTERM -> Terminated, for the command's duration."""
    return handlers(_raise_interrupt)


@contextlib.contextmanager
def deferred() -> Iterator[list[int]]:
    """Hold SIGINT/SIGTERM during a save that must finish; yields the list of signals held."""
    held: list[int] = []
    with handlers(lambda signum, frame: held.append(signum)):
        yield held


@contextlib.contextmanager
def atomic() -> Iterator[None]:
    """Run a block that must not be cut halfway, then deliver the SIGINT/SIGTERM that came
    meanwhile to the handlers of the time (so a command still stops, just after the block).

    For a compiled loop and the write-back of its generator's state (a signal between the two
    would leave tables and generator apart), and for imports (a KeyboardInterrupt inside
    importlib's module locks can leave a lock held and hang the next import of the module).
    Main thread only, as every signal handler; elsewhere the block simply runs.
    """
    held: list[int] = []
    with handlers(lambda signum, frame: held.append(signum)):
        yield
    for signum in dict.fromkeys(held):
        signal.raise_signal(signum)
