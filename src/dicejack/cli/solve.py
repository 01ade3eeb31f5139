"""`dicejack solve`: the exact solution of a game, as text, JSON, CSV or .npz."""

from enum import Enum
from pathlib import Path

import typer

from dicejack.cli.common import (
    DiceOpt,
    ForceOpt,
    HighOpt,
    LowOpt,
    SidesOpt,
    UsageError,
    app,
    check_out_path,
    confirm_large_outputs,
    formatted,
    make_game,
    write_output,
)


class SolveFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"
    npz = "npz"


class SolveMethod(str, Enum):
    backward = "backward"
    value_iteration = "value-iteration"


@app.command()
def solve(
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    exact: bool = typer.Option(False, "--exact", help="Exact rational arithmetic (small games)."),
    method: SolveMethod = typer.Option(
        SolveMethod.backward, "--method", help="Algorithm: backward induction, or value "
        "iteration (small games; the text output gives its sweep count)."
    ),
    fmt: SolveFormat = typer.Option(SolveFormat.text, "--format", help="Output format."),
    out: Path | None = typer.Option(None, "--out", help="Write to this file instead of stdout."),
    force: bool = ForceOpt,
) -> None:
    """Solve the game exactly: optimal number of dice and win probability for every <X,Y>.

    Examples: dicejack solve --sides 6 --low 15 --high 17 --dice 2 --exact;
    dicejack solve --low 4000 --high 4010 --dice 10 --format npz --out big.npz --force
    """
    from dicejack import formats, solver

    check_out_path(out)
    if fmt is SolveFormat.npz and out is None:
        raise UsageError("--format npz needs --out PATH")
    game = make_game(sides, low, high, dice)
    where = str(out) if out is not None else "the output"
    confirm_large_outputs([(where, formats.solution_bytes(game, fmt.value))], force)
    sol = solver.solve(game, method=method.value, exact=exact)
    if fmt is SolveFormat.npz:
        if out is None:
            raise UsageError("--format npz needs --out PATH")
        formats.save_solution_npz(out, sol)
        typer.echo(f"wrote {out}", err=True)
        return
    text = formatted(fmt.value, sol, formats.solution_text, formats.solution_dict,
                     formats.solution_csv)
    write_output(text, out)
