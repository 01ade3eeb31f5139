"""The `dicejack` command line: thin. It parses options, calls the library, and prints.

Library errors (:class:`dicejack.DicejackError`) become one line ``error: ...`` on stderr and
exit code 2; so do typer/click usage errors. Nothing here computes game results.

Start-up time matters (``dicejack solve`` is a blink of work): heavy modules load inside the
commands that use them, and annotations stay objects (no ``from __future__ import annotations``):
typer reads them on every start, and strings would cost a compile and an eval each.
"""

import _signal  # the C module, built in: `signal` itself takes ~30 ms to import
import os
import sys


def _quiet_exit(signum: int, frame: object) -> None:  # pragma: no cover - timing dependent
    """Ctrl-C or SIGTERM while the command line is still loading: nothing to save or clean yet."""
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()
    os._exit(128 + signum)


# Run as the `dicejack` console script (not imported by a program): a signal that arrives while
# the modules below load ends the process quietly instead of with a KeyboardInterrupt traceback.
# main() installs the handlers the commands run under.
if os.path.basename(sys.argv[0] if sys.argv else "") == "dicejack":  # pragma: no cover
    _signal.signal(_signal.SIGINT, _quiet_exit)
    _signal.signal(_signal.SIGTERM, _quiet_exit)

import contextlib  # noqa: E402
import signal  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import typer  # noqa: E402

from dicejack.cli import compare, grade, learn, report, solve, study_command  # noqa: E402,F401  (registers commands)
from dicejack.cli.common import UsageError, app  # noqa: E402,F401
from dicejack.cli.play_session import INTERRUPTED_RUN  # noqa: E402,F401
from dicejack.runtime import interrupts  # noqa: E402
from dicejack.runtime.messages import DicejackError, one_line  # noqa: E402


def _usage_error_types() -> tuple[type[BaseException], ...]:
    """Typer's usage-error base: its own (typer >= 0.20 vendors click) and click's, if loaded.

    Older typer imports click itself, so click is in sys.modules exactly when its exceptions can
    be raised; importing it here would only cost start-up time.
    """
    found: list[type[BaseException]] = []
    if hasattr(typer, "TyperException"):
        found.append(typer.TyperException)
    click = sys.modules.get("click")
    if click is not None:
        found.append(click.ClickException)
    return tuple(found)


@contextlib.contextmanager
def _notes() -> Iterator[None]:
    """The library's warnings (dicejack's own categories: fewer workers than asked, a report
    renamed...) as one line ``note: ...`` each on stderr, not Python's two-line format."""
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *args: object, **kw: object
             ) -> None:
        if category.__module__.startswith("dicejack"):
            typer.echo(f"note: {one_line(message)}", err=True)
        else:
            shown(message, category, *args, **kw)  # type: ignore[arg-type]

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: runs the app, mapping every error to one line and exit 2.

    Signals: Ctrl-C (SIGINT) and SIGTERM stop a command the same clean way (what can be saved is
    saved, temporaries are removed, worker processes are stopped), print ``interrupted`` on
    stderr and exit 130 (SIGINT) or 143 (SIGTERM).
    """
    usage_errors = _usage_error_types()
    try:
        interrupts.UNREPORTED.clear()
        with interrupts.as_interrupts(), _notes():
            # Without standalone mode, click returns (not raises) the code of a typer.Exit.
            result = app(args=argv, standalone_mode=False, prog_name="dicejack")
        if interrupts.UNREPORTED:
            typer.echo("error: interrupted", err=True)
            return 143 if signal.SIGTERM in interrupts.UNREPORTED else 130
        if isinstance(result, int) and not isinstance(result, bool):
            return result
    except typer.Exit as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # typer's own Exit(130) for Ctrl-C
            typer.echo("error: interrupted", err=True)
            return interrupts.exit_code(exc.__cause__)
        return int(getattr(exc, "exit_code", 0) or 0)
    except (typer.Abort, KeyboardInterrupt) as exc:
        typer.echo("error: interrupted", err=True)
        return interrupts.exit_code(exc)
    except DicejackError as exc:
        typer.echo(f"error: {one_line(exc)}", err=True)
        return 2
    except usage_errors as exc:
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError":
            # `dicejack` alone: its message is the help (Rich help would have printed itself)
            text = exc.format_message() if hasattr(exc, "format_message") else ""
            if text.strip():
                typer.echo(text.rstrip("\n"))
            return 0
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        message = one_line(message)
        command = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        typer.echo(f"error: {message}{command}", err=True)
        return 2
    except MemoryError as exc:
        detail = one_line(exc)
        detail = "" if detail == "MemoryError" else f" ({detail})"
        typer.echo(f"error: out of memory{detail}; try a smaller game or fewer games/seeds",
                   err=True)
        return 2
    except OSError as exc:
        reason = exc.strerror or one_line(exc)
        where = f": {exc.filename}" if exc.filename else ""
        typer.echo(f"error: {one_line(f'{reason}{where}')}", err=True)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
