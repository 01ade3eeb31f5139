"""`dicejack solve`: the exact solution of a game, as text, JSON, CSV or .npz."""

import sys
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from dicejack.cli.common import (
    BUNDLED_GAMES,
    GAME_PARAMS_HELP,
    HANDOUT_OPTIONS,
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
    handout_named,
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
    policy_iteration = "policy-iteration"  # --game only


GameOpt = typer.Option(
    None, "--game", metavar="NAME|FILE.py:Class", help="Solve another game through the game "
    f"protocol: {BUNDLED_GAMES} (handout: the default, its parameters --sides --low --high "
    "--dice or --game-param), or your own FILE.py:Class / MODULE:Class (docs/games.md)."
)
GameParamOpt = typer.Option(
    None, "--game-param", metavar="KEY=VALUE", help="A parameter of --game; repeat for more, "
    "e.g. --game pig --game-param goal=100 --game-param die=6 "
    f"({GAME_PARAMS_HELP})."
)
TOLERANCE_HELP = ("--game: value iteration stops a cyclic level when no value changes by more "
                  "than this (default 1e-13).")


@app.command()
def solve(
    ctx: typer.Context,
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    exact: bool = typer.Option(False, "--exact", help="Exact rational arithmetic (small games)."),
    method: SolveMethod = typer.Option(
        SolveMethod.backward, "--method", help="Algorithm: backward induction, or value "
        "iteration (small games; the text output gives its sweep count); with --game, backward "
        "means backward induction where the game has no cycle and value iteration where it has, "
        "and policy-iteration is offered too."
    ),
    fmt: SolveFormat = typer.Option(SolveFormat.text, "--format", help="Output format."),
    out: Path | None = typer.Option(None, "--out", help="Write to this file instead of stdout."),
    force: bool = ForceOpt,
    game_spec: str | None = GameOpt,
    game_param: list[str] | None = GameParamOpt,
    tolerance: float | None = typer.Option(None, "--tolerance", help=TOLERANCE_HELP),
) -> None:
    """Solve the game exactly: optimal number of dice and win probability for every <X,Y>.

    Examples: dicejack solve --sides 6 --low 15 --high 17 --dice 2 --exact;
    dicejack solve --low 4000 --high 4010 --dice 10 --format npz --out big.npz --force;
    dicejack solve --game pig --game-param goal=100 (Neller and Presser's Pig)
    """
    from dicejack import solver
    from dicejack.formats.json_output import json_chunks, write_json
    from dicejack.formats.sizes import check_output_memory, output_memory_bytes, solution_bytes
    from dicejack.formats.tables import (
        save_solution_npz,
        solution_csv,
        solution_dict,
        solution_text,
    )

    check_out_path(out)
    game = None
    if game_spec is not None or game_param or tolerance is not None:
        game = _handout_named(ctx, game_spec, game_param, tolerance)
        if game is None:
            _solve_protocol_game(ctx, game_spec, game_param, tolerance, exact, method, fmt, out)
            return
    if method is SolveMethod.policy_iteration:
        raise UsageError("--method policy-iteration is for games with cycles (the handout's "
                         "game has none: backward induction solves it)")
    if fmt is SolveFormat.npz and out is None:
        raise UsageError("--format npz needs --out PATH")
    if game is None:
        game = make_game(sides, low, high, dice)
    where = str(out) if out is not None else "the output"
    size = solution_bytes(game, fmt.value)
    confirm_large_outputs([(where, size)], force)
    streamed = fmt is SolveFormat.json and out is None
    check_output_memory(where, output_memory_bytes(size, fmt.value, streamed=streamed),
                        "--format json without --out prints it a row at a time")
    sol = solver.solve(game, method=method.value, exact=exact)
    if fmt is SolveFormat.npz:
        if out is None:
            raise UsageError("--format npz needs --out PATH")
        save_solution_npz(out, sol)
        typer.echo(f"wrote {out}", err=True)
        return
    if fmt is SolveFormat.json and out is None:
        write_json(solution_dict(sol), sys.stdout)  # a row at a time
        sys.stdout.flush()
        return
    if fmt is SolveFormat.json:  # the text once (never as Python lists), then written atomically
        write_output("".join(json_chunks(solution_dict(sol))), out)
        return
    text = formatted(fmt.value, sol, solution_text, solution_dict, solution_csv)
    write_output(text, out)


def _handout_named(ctx: typer.Context, spec: str | None, items: list[str] | None,
                   tolerance: float | None) -> object | None:
    """`--game handout`: the handout's game (its rules) with --game-param's parameters, or
    --sides --low --high --dice's (:func:`~dicejack.cli.common.handout_named`), solved and
    written as `dicejack solve` without --game; None for any other game."""
    if spec is None:
        raise UsageError("--game-param and --tolerance need --game NAME")
    given = {name: (ctx.params[name] if getattr(ctx.get_parameter_source(name), "name", "")
                    == "COMMANDLINE" else None) for name in HANDOUT_OPTIONS}
    options = handout_named(spec, items, given)
    if options is None:
        return None
    if tolerance is not None:
        raise UsageError("--tolerance is for value iteration of games with cycles; the "
                         "handout's game has none")
    return make_game(*(ctx.params[name] if options[name] is None else options[name]
                       for name in HANDOUT_OPTIONS))


def _solve_protocol_game(ctx: typer.Context, spec: str | None, items: list[str] | None,
                         tolerance: float | None, exact: bool, method: SolveMethod,
                         fmt: SolveFormat, out: Path | None) -> None:
    """`solve --game`: any protocol game but the handout's, by the generic solver;
    the summary (text, JSON) or every state's value (CSV); times on stderr."""
    import time

    from dicejack import solver
    from dicejack.games import enumerate_game, make_game
    from dicejack.games.information import is_information_game
    from dicejack.games.registry import parse_game_params
    from dicejack.solver import generic, generic_output

    given = [f"--{name}" for name in ("sides", "low", "high", "dice")
             if getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"]
    if given:
        raise UsageError(f"{', '.join(given)} set the handout's game; with --game give "
                         "parameters as --game-param KEY=VALUE (e.g. --game handout "
                         "--game-param low=15)")
    if fmt is SolveFormat.npz:
        raise UsageError("--format npz is the handout's solution file; with --game use text, "
                         "json or csv")
    game = make_game(spec, parse_game_params(items))
    if is_information_game(game):
        _solve_hidden(game, method, tolerance, fmt, out)
        return
    started = time.perf_counter()
    space = enumerate_game(game, exact=exact)
    enumerated = time.perf_counter() - started
    chosen = {"backward": "auto", "value-iteration": "value-iteration",
              "policy-iteration": "policy-iteration"}[method.value]
    sol = solver.solve(space, method=chosen, exact=exact,
                             tolerance=generic.DEFAULT_TOLERANCE if tolerance is None
                             else tolerance)
    how = "as arrays (compiled)" if space.enumeration == "compiled" else \
        "through the game's Python, one call per state and action (the slow path)"
    typer.echo(f"note: enumerated {space.n_states:,} states in {enumerated:.1f} s {how}, "
               f"solved in {sol.seconds:.1f} s", err=True)
    text = formatted(fmt.value, sol, generic_output.game_solution_text,
                     generic_output.game_solution_dict, generic_output.game_solution_csv)
    write_output(text, out)


def _solve_hidden(game: Any, method: SolveMethod, tolerance: float | None, fmt: SolveFormat,
                  out: Path | None) -> None:
    """`solve --game kuhn`: a game with hidden information by its sequence-form programme: the
    value (exact where the rounded equilibrium checks exactly) and an equilibrium policy, one
    line per decision key (text), the same as JSON, or one row per key and action (CSV)."""
    from dicejack import solver
    from dicejack.formats.json_output import json_text
    from dicejack.games.protocol import game_label

    if method is not SolveMethod.backward or tolerance is not None:
        raise UsageError(f"{game.name} has hidden information: the sequence-form programme "
                         "solves it; drop --method and --tolerance")
    sol = solver.solve(game)
    exact = None if sol.exact_value is None else str(sol.exact_value)
    if fmt is SolveFormat.json:
        text = json_text({"game": str(game.name), "value": sol.value,
                          "value_exact": exact, "exploitability": sol.exploitability,
                          "policy": sol.policy()}, compact=True)
    elif fmt is SolveFormat.csv:
        text = "key,action,probability\n" + "".join(
            f"{key},{action},{p!r}\n" for key, acts in sol.policy().items()
            for action, p in acts.items())
    else:
        lines = [f"# {game_label(game)} (hidden information; sequence-form LP, HiGHS)",
                 f"value for player 0: {sol.value:.12g}" + (f" (exactly {exact})" if exact
                                                            else ""),
                 f"exploitability of the equilibrium: {sol.exploitability:.3g}",
                 "equilibrium policy (decision key: action probability ...):"]
        lines += [f"  {key}: " + " ".join(f"{a} {p:.6f}" for a, p in acts.items())
                  for key, acts in sol.policy().items()]
        text = "\n".join(lines) + "\n"
    write_output(text, out)
