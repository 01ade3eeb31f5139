"""`dicejack compare`: learned tables (a run file or printed text) against the exact solution."""

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from dicejack import one_line
from dicejack.cli.common import app, write_output

if TYPE_CHECKING:
    from dicejack.game import Game


class CompareFormat(str, Enum):
    text = "text"
    json = "json"


def _game_from_options(
    given: dict[str, int | None], fallback: "Game | None"
) -> "Game | None":
    """The game named by --sides/--low/--high/--dice; unnamed ones come from `fallback` (or the
    handout's game); None when no option was given and there is no fallback."""
    from dicejack.game import Game

    if all(v is None for v in given.values()) and fallback is None:
        return None
    base = (fallback or Game(6, 15, 17, 2)).params()
    names = {"sides": "n_sides", "low": "low", "high": "high", "dice": "n_dice"}
    return Game(**{names[k]: (base[names[k]] if v is None else v) for k, v in given.items()})


def _read_text_tables(
    path: Path, given: dict[str, int | None]
) -> "tuple[Game, object, object]":
    """The two printed arrays of a text file, as (game, compare.Learned, formats.Submission).

    Any layout `formats.read_submission` understands (dicejack's own text output and what student
    programs print). A 'NSides=.. LTarget=.. UTarget=.. NDice=..' header, as `dicejack learn`
    prints, names the game; otherwise the options (or the handout's game) do. Tables of another
    size give an error that names the LTarget they fit.
    """
    from dicejack import compare as cmp
    from dicejack import formats
    from dicejack.formats.submission import find_table_size
    from dicejack.game import Game

    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        raise cmp.CompareError(f"cannot read {path}: {exc.strerror or exc}") from None
    header = formats.read_params_header(text)
    file_game = Game(**header) if header else None
    game = _game_from_options(given, file_game) or Game(6, 15, 17, 2)
    if file_game is not None and game != file_game:
        raise cmp.CompareError(f"{path} holds tables for {file_game}, not {game}")
    try:
        sub = formats.read_submission(path, game.low, game.n_dice)
    except formats.FormatError as exc:
        hint = cmp.size_hint(game, find_table_size(text, game.n_dice))
        raise cmp.CompareError(
            f"cannot read two {game.low}x{game.low} tables from {path}: {exc}"
            + (f"; {hint}" if hint else "")
        ) from None
    learned = cmp.learned_from_tables(
        game, sub.policy, sub.probability, no_data=sub.no_data, source=str(path)
    )
    return game, learned, sub


def _check_input_file(path: Path) -> None:
    """A regular file to read, or a one-line error saying what `path` is instead (only stat()ed:
    a FIFO is never opened, since opening one waits for a writer)."""
    import os
    import stat

    from dicejack import compare as cmp

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise cmp.CompareError(f"cannot read {path}: no such file") from None
    except OSError as exc:
        raise cmp.CompareError(f"cannot read {path}: {exc.strerror or one_line(exc)}") from None
    if stat.S_ISDIR(mode):
        raise cmp.CompareError(f"cannot read {path}: it is a folder, not a file")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a file")
        raise cmp.CompareError(f"cannot read {path}: it is {kind}, not a regular file")


@app.command("compare")
def compare_cmd(
    source: Path = typer.Argument(
        ..., metavar="SOURCE", help="A learner run (.npz from `dicejack learn --out`) or a text "
        "file with the two printed LxL arrays (best number of dice, then win probability; "
        "-1 = no data)."
    ),
    sides: int | None = typer.Option(
        None, "--sides", help="NSides, for text tables (a run file carries its game). Default 6."
    ),
    low: int | None = typer.Option(None, "--low", help="LTarget, for text tables. Default 15."),
    high: int | None = typer.Option(None, "--high", help="UTarget, for text tables. Default 17."),
    dice: int | None = typer.Option(None, "--dice", help="NDice, for text tables. Default 2."),
    fmt: CompareFormat = typer.Option(CompareFormat.text, "--format", help="Output format."),
) -> None:
    """Compare learned tables with the exact solution.

    Prints every metric of DESIGN.md, then the decisive states where the learned policy is
    wrong, worst regret first. For text tables, a hint on stderr when they look transposed or
    their J 0-based, and an error naming the LTarget they fit when they are another size.

    Examples: dicejack learn -m 100 --games 100000 --out run.npz && dicejack compare run.npz;
    dicejack compare TABLES.txt --sides 6 --low 15 --high 17 --dice 2 --format json
    """
    from dicejack import compare as cmp
    from dicejack import formats

    given = {"sides": sides, "low": low, "high": high, "dice": dice}
    _check_input_file(source)
    sub = None
    if source.suffix.lower() == ".npz":
        run = formats.load_run_npz(source)
        game = _game_from_options(given, run.game)
        if game != run.game:
            raise cmp.CompareError(f"{source} is a run of {run.game}, not of {game}")
        learned: object = run
    else:
        game, learned, sub = _read_text_tables(source, given)
    truth = cmp.truth(game)
    result = cmp.compare(game, truth, learned)
    if fmt is CompareFormat.json:
        write_output(cmp.json_text(result.as_dict()), None)
    else:
        write_output(cmp.format_comparison(result), None)
    if sub is not None:
        hints = cmp.table_hints(truth, sub.policy, sub.probability, no_data=sub.no_data)
        for line in hints.messages(game.n_dice):
            typer.echo(f"hint: {line}", err=True)
