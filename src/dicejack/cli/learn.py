"""`dicejack learn`: self-play with the handout's learner; Ctrl-C saves a resumable run."""

import signal
from enum import Enum
from pathlib import Path

import typer

from dicejack import interrupts
from dicejack.cli.common import (
    ForceOpt,
    UsageError,
    app,
    check_out_path,
    confirm_large_outputs,
    free_path,
    make_game,
    write_output,
)


class LearnFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


class TieBreak(str, Enum):
    lowest = "lowest"
    random = "random"


#: Where an interrupted run is saved when there is no --out (never over an existing file).
INTERRUPTED_RUN = "dicejack-learn-interrupted.npz"


@app.command()
def learn(
    sides: int | None = typer.Option(
        None, "--sides", help="NSides (default 6, or the resumed run's)."
    ),
    low: int | None = typer.Option(None, "--low", help="LTarget (default 15)."),
    high: int | None = typer.Option(None, "--high", help="UTarget (default 17)."),
    dice: int | None = typer.Option(None, "--dice", help="NDice (default 2)."),
    m: float | None = typer.Option(
        None, "-m", "--m", help="M: explore/exploit hyperparameter, a float >= 0 (default 100)."
    ),
    games: int = typer.Option(
        100_000, "--games", help="NGAMES: games to play in all (with --resume, the new total); "
        "at most 10^12."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Random seed (default 1)."),
    out: Path | None = typer.Option(None, "--out", help="Save the run (.npz, resumable) here."),
    resume: Path | None = typer.Option(
        None, "--resume", help="Continue this saved run (its game, M and seed) to --games games."
    ),
    fmt: LearnFormat = typer.Option(LearnFormat.text, "--format", help="Output format."),
    trace: int = typer.Option(
        0, "--trace", help="Print the first N games move by move (stderr unless --format text)."
    ),
    explain: bool = typer.Option(
        False, "--explain", help="With --trace N: at every move the handout's computation "
        "(WinCount, LoseCount, f_J, B, g, T, every p_J, the draw and the J chosen) and after "
        "each game the counts it updates, with the numbers the learner used. Without --trace: "
        "the first game (--trace 1)."
    ),
    tie_break: TieBreak | None = typer.Option(
        None, "--tie-break", help="Best J among equal estimates: lowest (default) or random."
    ),
    force: bool = ForceOpt,
) -> None:
    """Learn by self-play with the handout's counting learner; print its two LxL arrays.

    --trace N prints the first N games move by move; --explain adds the handout's formulas with
    the numbers the learner used, to follow its worked example or find where a program differs.

    Examples: dicejack learn --sides 6 --low 15 --high 17 --dice 2 -m 100 --games 100000;
    dicejack learn --games 1000 --trace 2 --explain
    """
    from dicejack import compare, formats, learner, parallel

    if games < 0:
        raise UsageError(f"--games must be >= 0, got {games}")
    learner.check_games_limit(games, "--games")
    if trace < 0:
        raise UsageError(f"--trace must be >= 0, got {trace}")
    if explain and trace == 0:
        trace = 1
    check_out_path(out)
    given = {"--sides": sides, "--low": low, "--high": high, "--dice": dice, "-m": m,
             "--seed": seed, "--tie-break": tie_break.value if tie_break else None}
    start = None
    if resume is not None:
        start = formats.load_run_npz(resume)
        has = {"--sides": start.game.n_sides, "--low": start.game.low, "--high": start.game.high,
               "--dice": start.game.n_dice, "-m": start.m, "--seed": start.seed,
               "--tie-break": start.tie_break}
        clash = [f"{k} {v}" for k, v in given.items() if v is not None and v != has[k]]
        if clash:
            raise UsageError(
                f"{resume} is a different run ({start.game}, M={start.m:g}, seed {start.seed}, "
                f"tie-break {start.tie_break}): {', '.join(clash)} disagrees; omit it to resume"
            )
        if games < start.games:
            raise UsageError(f"{resume} already has {start.games} games; --games must be >= that")
        game = start.game
    else:
        game = make_game(6 if sides is None else sides, 15 if low is None else low,
                         17 if high is None else high, 2 if dice is None else dice)
    sizes = [("the printed tables", formats.run_bytes(game, fmt.value, games))]
    if out is not None:
        snapshots = len(start.snapshots) if start is not None else 0
        sizes.insert(0, (str(out), formats.run_bytes(game, "npz", games, snapshots)))
    confirm_large_outputs(sizes, force)
    session = learner.Session(
        game, 100.0 if m is None else m, 1 if seed is None else seed,
        tie_break=given["--tie-break"] or "lowest", start=start,
    )
    update, close = parallel.games_progress_bar(games, session.played)
    try:
        if trace:
            traced = learner.trace(game, session.m, min(trace, games - session.played),
                                   session.seed, tie_break=session.tie_break, start=start)
            if explain:
                from dicejack.explain import explain_text

                shown = explain_text(game, session.m, traced, tie_break=session.tie_break)
            else:
                shown = formats.trace_text(traced)
            typer.echo(shown, err=fmt is not LearnFormat.text, nl=False)
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
            formats.save_run_npz(target, partial)
        typer.echo(
            f"interrupted after {partial.games:,} of {games:,} games; saved the run to {target}.\n"
            f"Resume with: dicejack learn --resume {target} --games {games} --out {target}",
            err=True,
        )
        raise typer.Exit(code) from None
    close()
    if out is not None:
        with interrupts.deferred() as held:  # the finished run is saved whatever arrives now
            formats.save_run_npz(out, run)
        typer.echo(f"wrote {out}", err=True)
        if held:
            typer.echo(f"interrupted; the finished run of {run.games:,} games is saved in {out}",
                       err=True)
            raise typer.Exit(143 if signal.SIGTERM in held else 130)
    text = {
        LearnFormat.text: formats.learn_text,
        LearnFormat.json: lambda run: compare.json_text(formats.learn_dict(run), compact=True),
        LearnFormat.csv: formats.learn_csv,
    }[fmt](run)
    write_output(text, None)
