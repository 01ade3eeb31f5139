"""What every command shares: the typer app, the game options, output helpers, UsageError."""

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from dicejack import DicejackError

if TYPE_CHECKING:
    from dicejack.game import Game

app = typer.Typer(
    name="dicejack",
    help=(
        "An exact solver beside the handout's counting learner for the two-player dice game "
        "(NSides, LTarget, UTarget, NDice).\n\n"
        "Example: dicejack solve --sides 6 --low 15 --high 17 --dice 2"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class UsageError(DicejackError):
    """A command-line usage problem found after parsing (e.g. an option that needs another)."""


# Shared option definitions: the game's four parameters, with the handout's names in help text.
SidesOpt = typer.Option(6, "--sides", help="NSides: faces of each die, numbered 1..NSides.")
LowOpt = typer.Option(15, "--low", help="LTarget: lowest winning score.")
HighOpt = typer.Option(17, "--high", help="UTarget: highest winning score.")
DiceOpt = typer.Option(2, "--dice", help="NDice: most dice a player may roll per turn.")
# Where learner runs go (report, grade): a local process pool, in-process, or a Dask cluster.
WorkersOpt = typer.Option(
    None, "--workers", help="Local worker processes for the learner runs (1 = in-process; "
    "default: CPU count, or in-process when the work is small)."
)
DaskOpt = typer.Option(
    None, "--dask", help="Run the learner runs on a Dask cluster instead, e.g. tcp://host:8786 "
    "(pip install 'dicejack[cluster]'; the workers need dicejack installed too)."
)


def make_game(sides: int, low: int, high: int, dice: int) -> "Game":
    """Build a validated Game from CLI options (errors surface as one-line messages)."""
    from dicejack.game import Game

    return Game(n_sides=sides, low=low, high=high, n_dice=dice)


def write_output(text: str | bytes, out: Path | None) -> None:
    """Print text to stdout, or write it atomically to `out`."""
    from dicejack.formats import write_atomic

    if out is None:
        if isinstance(text, bytes):
            raise UsageError("binary output needs --out PATH")
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        return
    write_atomic(out, text)
    typer.echo(f"wrote {out}", err=True)


@app.callback()
def _root() -> None:
    """Keep `dicejack COMMAND` a command group even while it has a single command."""


def free_path(name: str) -> Path:
    """`name` in the current folder, or name-2, name-3, ... if it exists."""
    path = Path(name)
    n = 2
    while path.exists():
        path = Path(f"{Path(name).stem}-{n}{Path(name).suffix}")
        n += 1
    return path


def check_out_path(out: Path | None) -> None:
    """Fail before the work, not after it, when --out cannot be written: a folder, a missing or
    read-only folder, or something other than a regular file (a FIFO, a device)."""
    import os

    from dicejack import formats

    if out is None:
        return
    formats.check_output_file(out, option="--out")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {out}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {out}: folder {folder} is not writable")
