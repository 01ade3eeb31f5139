"""Signals as the commands see them: SIGTERM is an interrupt of its own kind, saves hold them."""

from __future__ import annotations

import os
import signal
import time

import pytest

from dicejack.runtime import interrupts


def test_exit_code_tells_sigterm_from_sigint():
    assert interrupts.exit_code(KeyboardInterrupt()) == 130
    assert interrupts.exit_code(interrupts.Terminated()) == 143
    wrapped = RuntimeError("abort")
    wrapped.__cause__ = interrupts.Terminated()
    assert interrupts.exit_code(wrapped) == 143


def test_deferred_holds_signals_until_the_save_is_done():
    with interrupts.deferred() as held:
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)
    assert held == [signal.SIGTERM, signal.SIGINT]


def test_as_interrupts_raises_terminated_for_sigterm():
    raised = None
    with interrupts.as_interrupts():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        except interrupts.Terminated as exc:
            raised = exc
    assert isinstance(raised, KeyboardInterrupt) and signal.SIGTERM in interrupts.UNREPORTED
    interrupts.UNREPORTED.clear()


def test_atomic_delivers_a_signal_after_the_block_not_inside_it():
    done = []
    with interrupts.as_interrupts():
        with pytest.raises(KeyboardInterrupt):
            with interrupts.atomic():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the handler would have run here
                done.append("block finished")
        assert done == ["block finished"]
        with pytest.raises(interrupts.Terminated):
            with interrupts.atomic():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.05)
        with interrupts.atomic():  # nothing held: nothing delivered
            pass



def test_a_signal_during_an_import_is_raised_after_the_import(tmp_path, monkeypatch):
    # A KeyboardInterrupt inside importlib's module locks can be swallowed and leave a lock held
    # (the next import of the module then hangs): the handler waits until the import is done.
    (tmp_path / "slow_to_import.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\nfinished = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import threading

    with interrupts.as_interrupts():
        with pytest.raises(KeyboardInterrupt):
            import slow_to_import  # noqa: F401
            threading.Event().wait(60)  # the interrupt, sent again once the import is done
    import sys

    assert sys.modules["slow_to_import"].finished is True
    interrupts.UNREPORTED.clear()
    del sys.modules["slow_to_import"]
