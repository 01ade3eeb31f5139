"""Playing a learner's session to a number of games on the command line: under the progress
bar, the run saved to --out, and on Ctrl-C or SIGTERM the partial run saved and the resume
command said (`learn` for the handout's game and for protocol games alike)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from dicejack.cli.common import free_path
from dicejack.runtime import interrupts

__all__ = ["INTERRUPTED_RUN", "play_saving_on_interrupt"]

#: Where an interrupted run is saved when there is no --out (never over an existing file).
INTERRUPTED_RUN = "dicejack-learn-interrupted.npz"


def play_saving_on_interrupt(
    session: Any,
    games: int,
    out: Path | None,
    resume: Path | None,
    save: Callable[[Path, Any], None],
    first: Callable[[], None] | None = None,
    resume_args: str = "",
) -> Any:
    """Play `session` (a :class:`dicejack.learners.Session`) to `games` games under the progress
    bar, then save(out, run) when --out is given; returns the run.

    `first` runs before the games (the trace); `resume_args` go before --resume in the hint
    (``--game ...`` for a protocol game's run). Ctrl-C or SIGTERM saves the partial run with
    `save` to --out (when it is new or the resumed file) or to a free INTERRUPTED_RUN name, says
    how to resume, and exits 130 / 143; a signal during a save waits for the save to finish.
    """
    from dicejack.runtime import parallel

    update, close = parallel.games_progress_bar(games, session.played)
    try:
        if first is not None:
            first()
        run = session.run_to(games, progress=update, chunk_seconds=0.25)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated): save what was played
        code = interrupts.exit_code(exc)
        interrupts.UNREPORTED.clear()  # reported below, with where the run was saved
        with interrupts.deferred():  # a second signal must not lose the partial run
            close()
            partial = session.result()
            keep = out is not None and (not out.exists() or (resume is not None and out.exists()
                                                              and out.samefile(resume)))
            target = out if keep else free_path(INTERRUPTED_RUN)
            save(target, partial)
        typer.echo(
            f"interrupted after {partial.games:,} of {games:,} games; saved the run to {target}.\n"
            f"Resume with: dicejack learn{resume_args} --resume {target} --games {games} "
            f"--out {target}",
            err=True,
        )
        raise typer.Exit(code) from None
    close()
    if out is not None:
        with interrupts.deferred() as held:  # the finished run is saved whatever arrives now
            save(out, run)
        typer.echo(f"wrote {out}", err=True)
        if held:
            typer.echo(f"interrupted; the finished run of {run.games:,} games is saved in {out}",
                       err=True)
            raise typer.Exit(143 if signal.SIGTERM in held else 130)
    return run
