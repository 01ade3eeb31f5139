"""The `dicejack` command line: thin. It parses options, calls the library, and prints.

Library errors (:class:`dicejack.game.DicejackError`) become one line ``error: ...`` on stderr and
exit code 2; so do typer/click usage errors. Nothing here computes game results.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer

from dicejack.game import DicejackError, Game

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


def fail(message: str) -> None:
    """Print a one-line error and exit 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


# Shared option definitions: the game's four parameters, with the handout's names in help text.
SidesOpt = typer.Option(6, "--sides", help="NSides: faces of each die, numbered 1..NSides.")
LowOpt = typer.Option(15, "--low", help="LTarget: lowest winning score.")
HighOpt = typer.Option(17, "--high", help="UTarget: highest winning score.")
DiceOpt = typer.Option(2, "--dice", help="NDice: most dice a player may roll per turn.")


def make_game(sides: int, low: int, high: int, dice: int) -> Game:
    """Build a validated Game from CLI options (errors surface as one-line messages)."""
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


class SolveFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"
    npz = "npz"


class SolveMethod(str, Enum):
    backward = "backward"
    value_iteration = "value-iteration"


@app.callback()
def _root() -> None:
    """Keep `dicejack COMMAND` a command group even while it has a single command."""


# ------------------------------------------------------------------------------------ solve
@app.command()
def solve(
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    exact: bool = typer.Option(False, "--exact", help="Exact rational arithmetic (small games)."),
    method: SolveMethod = typer.Option(SolveMethod.backward, "--method", help="Algorithm."),
    fmt: SolveFormat = typer.Option(SolveFormat.text, "--format", help="Output format."),
    out: Path | None = typer.Option(None, "--out", help="Write to this file instead of stdout."),
) -> None:
    """Solve the game exactly: optimal number of dice and win probability for every <X,Y>.

    Example: dicejack solve --sides 6 --low 15 --high 17 --dice 2 --exact
    """
    from dicejack import formats, solver

    game = make_game(sides, low, high, dice)
    sol = solver.solve(game, method=method.value, exact=exact)
    if fmt is SolveFormat.npz:
        if out is None:
            raise UsageError("--format npz needs --out PATH")
        formats.save_solution_npz(out, sol)
        typer.echo(f"wrote {out}", err=True)
        return
    text = {
        SolveFormat.text: formats.solution_text,
        SolveFormat.json: formats.solution_json,
        SolveFormat.csv: formats.solution_csv,
    }[fmt](sol)
    write_output(text, out)


# ------------------------------------------------------------------------------------ learn
# (issue 3: `dicejack learn` is defined below this line)


# ---------------------------------------------------------------------------------- compare
# (issue 4: `dicejack compare` and `dicejack report` are defined below this line)


# ------------------------------------------------------------------------------------ grade
# (issue 5: `dicejack grade` is defined below this line)


# ------------------------------------------------------------------------------------- main
def _usage_error_types() -> tuple[type[BaseException], ...]:
    """Typer's usage-error base: its own (typer >= 0.20 vendors click) and click's, if present."""
    found: list[type[BaseException]] = []
    if hasattr(typer, "TyperException"):
        found.append(typer.TyperException)
    try:
        import click

        found.append(click.ClickException)
    except ImportError:  # pragma: no cover
        pass
    return tuple(found)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: runs the app, mapping every error to one line and exit 2."""
    usage_errors = _usage_error_types()
    try:
        app(args=argv, standalone_mode=False, prog_name="dicejack")
    except typer.Exit as exc:
        return int(getattr(exc, "exit_code", 0) or 0)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("error: interrupted", err=True)
        return 130
    except DicejackError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    except usage_errors as exc:
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError":
            return 0  # typer has already printed the help
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        message = " ".join(str(message).split())
        command = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        typer.echo(f"error: {message}{command}", err=True)
        return 2
    except (OSError, MemoryError) as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
