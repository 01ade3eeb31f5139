"""`dicejack solve`: the exact solution of a game, as text, JSON, CSV or .npz."""

import sys
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
    size = formats.solution_bytes(game, fmt.value)
    confirm_large_outputs([(where, size)], force)
    streamed = fmt is SolveFormat.json and out is None
    formats.check_output_memory(where, formats.output_memory_bytes(size, fmt.value,
                                                                    streamed=streamed),
                                "--format json without --out prints it a row at a time")
    sol = solver.solve(game, method=method.value, exact=exact)
    if fmt is SolveFormat.npz:
        if out is None:
            raise UsageError("--format npz needs --out PATH")
        formats.save_solution_npz(out, sol)
        typer.echo(f"wrote {out}", err=True)
        return
    if fmt is SolveFormat.json and out is None:
        formats.write_json(formats.solution_dict(sol), sys.stdout)  # a row at a time
        sys.stdout.flush()
        return
    if fmt is SolveFormat.json:  # the text once (never as Python lists), then written atomically
        write_output("".join(formats.json_chunks(formats.solution_dict(sol))), out)
        return
    text = formatted(fmt.value, sol, formats.solution_text, formats.solution_dict,
                     formats.solution_csv)
    write_output(text, out)
