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

import signal  # noqa: E402
from enum import Enum  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING  # noqa: E402

import typer  # noqa: E402

from dicejack import DicejackError, interrupts, one_line  # noqa: E402

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
    from dicejack import compare, formats, solver

    _check_out_path(out)
    if fmt is SolveFormat.npz and out is None:
        raise UsageError("--format npz needs --out PATH")
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
        SolveFormat.json: lambda sol: compare.json_text(formats.solution_dict(sol), compact=True),
        SolveFormat.csv: formats.solution_csv,
    }[fmt](sol)
    write_output(text, out)


# ------------------------------------------------------------------------------------ learn
class LearnFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


class TieBreak(str, Enum):
    lowest = "lowest"
    random = "random"


#: Where an interrupted run is saved when there is no --out (never over an existing file).
INTERRUPTED_RUN = "dicejack-learn-interrupted.npz"


def _free_path(name: str) -> Path:
    """`name` in the current folder, or name-2, name-3, ... if it exists."""
    path = Path(name)
    n = 2
    while path.exists():
        path = Path(f"{Path(name).stem}-{n}{Path(name).suffix}")
        n += 1
    return path


def _check_out_path(out: Path | None) -> None:
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
    tie_break: TieBreak | None = typer.Option(
        None, "--tie-break", help="Best J among equal estimates: lowest (default) or random."
    ),
) -> None:
    """Learn by self-play with the handout's counting learner; print its two LxL arrays.

    Example: dicejack learn --sides 6 --low 15 --high 17 --dice 2 -m 100 --games 100000
    """
    from dicejack import compare, formats, learner, parallel

    if games < 0:
        raise UsageError(f"--games must be >= 0, got {games}")
    learner.check_games_limit(games, "--games")
    if trace < 0:
        raise UsageError(f"--trace must be >= 0, got {trace}")
    _check_out_path(out)
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
    session = learner.Session(
        game, 100.0 if m is None else m, 1 if seed is None else seed,
        tie_break=given["--tie-break"] or "lowest", start=start,
    )
    update, close = parallel.games_progress_bar(games, session.played)
    try:
        if trace:
            traced = learner.trace(game, session.m, min(trace, games - session.played),
                                   session.seed, tie_break=session.tie_break, start=start)
            typer.echo(formats.trace_text(traced), err=fmt is not LearnFormat.text, nl=False)
        run = session.run_to(games, progress=update, chunk_seconds=0.25)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated): save what was played
        code = interrupts.exit_code(exc)
        interrupts.UNREPORTED.clear()  # reported below, with where the run was saved
        with interrupts.deferred():  # a second signal must not lose the partial run
            close()
            partial = session.result()
            keep = out is not None and (not out.exists() or (resume is not None and out.exists()
                                                              and out.samefile(resume)))
            target = out if keep else _free_path(INTERRUPTED_RUN)
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



# ---------------------------------------------------------------------------------- compare
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


def _read_text_tables(path: Path, given: dict[str, int | None]) -> "tuple[Game, object]":
    """The two printed arrays of a text file, as (game, compare.Learned).

    Any layout `formats.read_submission` understands (dicejack's own text output and what student
    programs print). A 'NSides=.. LTarget=.. UTarget=.. NDice=..' header, as `dicejack learn`
    prints, names the game; otherwise the options (or the handout's game) do.
    """
    from dicejack import compare as cmp
    from dicejack import formats
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
        raise cmp.CompareError(
            f"cannot read two {game.low}x{game.low} tables from {path}: {exc}"
        ) from None
    return game, cmp.learned_from_tables(
        game, sub.policy, sub.probability, no_data=sub.no_data, source=str(path)
    )


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
        ..., help="A learner run (.npz from `dicejack learn --out`) or a text file with the two "
        "printed LxL arrays (best number of dice, then win probability; -1 = no data)."
    ),
    sides: int | None = typer.Option(
        None, "--sides", help="NSides, for text tables (a run file carries its game). Default 6."
    ),
    low: int | None = typer.Option(None, "--low", help="LTarget, for text tables. Default 15."),
    high: int | None = typer.Option(None, "--high", help="UTarget, for text tables. Default 17."),
    dice: int | None = typer.Option(None, "--dice", help="NDice, for text tables. Default 2."),
    fmt: CompareFormat = typer.Option(CompareFormat.text, "--format", help="Output format."),
) -> None:
    """Compare learned tables with the exact solution: every metric of DESIGN.md, then the
    decisive states where the learned policy is wrong, worst regret first.

    Examples: dicejack learn -m 100 --games 100000 --out run.npz && dicejack compare run.npz;
    dicejack compare TABLES.txt --sides 6 --low 15 --high 17 --dice 2 --format json
    """
    from dicejack import compare as cmp
    from dicejack import formats

    given = {"sides": sides, "low": low, "high": high, "dice": dice}
    _check_input_file(source)
    if source.suffix.lower() == ".npz":
        run = formats.load_run_npz(source)
        game = _game_from_options(given, run.game)
        if game != run.game:
            raise cmp.CompareError(f"{source} is a run of {run.game}, not of {game}")
        learned: object = run
    else:
        game, learned = _read_text_tables(source, given)
    result = cmp.compare(game, None, learned)
    if fmt is CompareFormat.json:
        write_output(cmp.json_text(result.as_dict()), None)
    else:
        write_output(cmp.format_comparison(result), None)


@app.command("report")
def report_cmd(
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    m: list[str] | None = typer.Option(
        None, "-m", "--m", help="M, the explore/exploit hyperparameter; repeat the option or give "
        "a comma list for one curve per M. Default 100."
    ),
    games: str | None = typer.Option(
        None, "--games", help="Checkpoints (NGAMES): a strictly increasing comma list, e.g. "
        "100,1000,10000, or A..B for 1-2-5 steps from A to B. Default 100..1000000. At most "
        "10^12 games per run, and 10^12 in all (seeds x M values x the last count)."
    ),
    seeds: int = typer.Option(10, "--seeds", help="Learner runs (seeds) per M (at most 10000)."),
    seed: int = typer.Option(1, "--seed", help="First seed; run i uses seed + i."),
    out: Path | None = typer.Option(
        None, "--out", help="Report folder (replaced as a whole when complete; an existing folder "
        "only if dicejack wrote it, i.e. it holds .dicejack-report, or it is empty). "
        "Default reports/<game>, e.g. reports/s6-l15-h17-d2."
    ),
    workers: int | None = WorkersOpt,
    dask: str | None = DaskOpt,
) -> None:
    """Convergence report: how the learner approaches optimal play as games accumulate.

    For each M and seed, one learner run measured at every checkpoint; writes report.md,
    figures/*.png, metrics.csv and metrics.json to --out.

    Examples: dicejack report (the handout's game, 10 seeds, 100..1,000,000 games);
    dicejack report --sides 6 --low 30 --high 35 --dice 4 -m 10,100,1000 --games 100..1e7
    """
    from dicejack import report as rep

    game = make_game(sides, low, high, dice)
    config = rep.ReportConfig(
        game=game,
        ms=rep.parse_ms(m) if m else rep.DEFAULT_M,
        games=rep.parse_games(games) if games is not None else rep.DEFAULT_GAMES,
        seeds=seeds,
        first_seed=seed,
    )
    if workers is not None and workers < 1:
        raise rep.ReportError(f"--workers must be >= 1, got {workers}")
    result = rep.make_report(config, out, workers=workers, dask=dask, progress=True)
    t = result.study.timing
    typer.echo(
        f"wrote {result.path}/ (report.md, figures/, metrics.csv, metrics.json) in "
        f"{t['total']:.1f} s: solve {t['solve']:.2f} s, compile/warm-up {t['warmup']:.2f} s, "
        f"learner runs {t['runs_wall']:.1f} s "
        f"(learning {t['learn_cpu']:.1f} s CPU, metrics {t['metrics_cpu']:.1f} s CPU), "
        f"figures {t['plot']:.1f} s",
        err=True,
    )


# ------------------------------------------------------------------------------------ grade
@app.command("grade")
def grade_cmd(
    submissions: list[Path] = typer.Argument(
        ..., help="Files holding what student programs printed: the two LxL arrays (best number "
        "of dice, win probability; -1 = no data), in any common layout."
    ),
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    m: float = typer.Option(..., "-m", "--m", help="M the students were asked to use."),
    games: int = typer.Option(..., "--games", help="NGAMES the students were asked to play."),
    out: Path = typer.Option(
        Path("gradebook.csv"), "--out", help="Gradebook CSV, one row per submission."
    ),
    reports: Path | None = typer.Option(
        None, "--reports", help="Folder for one Markdown report (and heatmap) per submission."
    ),
    references: int = typer.Option(
        30, "--references", help="Reference learner runs (R) that calibrate the grading."
    ),
    seed: int = typer.Option(
        1_000_000, "--seed", help="Seed of the first reference run; run i uses seed + i."
    ),
    workers: int | None = WorkersOpt,
    dask: str | None = DaskOpt,
    cache: Path | None = typer.Option(
        None, "--cache", help="Reference-run cache folder (default: $DICEJACK_CACHE/grade or "
        "~/.cache/dicejack/grade)."
    ),
) -> None:
    """Grade student outputs against the truth and against the handout's algorithm.

    Gradebook CSV (--out): score /100, verdict, consistency p-value, flags, one row per file.

    With --reports DIR: one Markdown report and heatmap per student. Rubric: docs/grading.md.

    Example: dicejack grade subs/*.txt -m 100 --games 100000 --reports grades
    """
    from dicejack import grade as gr

    if workers is not None and workers < 1:
        raise gr.GradeError(f"--workers must be >= 1, got {workers}")
    config = gr.GradeConfig(make_game(sides, low, high, dice), m, games, references, seed)
    show = sys.stderr.isatty()
    import warnings

    with warnings.catch_warnings(record=True) as notices:
        warnings.simplefilter("always", gr.GradeWarning)
        refs, grades = gr.grade_files(
            config, submissions, out=out, reports=reports, cache_dir=cache, workers=workers,
            dask=dask, progress=show,
        )
    for notice in notices:  # the library's notices (cache recomputed, report renamed): one line
        typer.echo(f"note: {one_line(notice.message)}", err=True)
    write_output(gr.summary_text(grades), None)
    where = f" and {len(grades)} reports in {reports}/" if reports is not None else ""
    typer.echo(f"wrote {out}{where}; reference runs: {refs.source}", err=True)


# ------------------------------------------------------------------------------------- main
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


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: runs the app, mapping every error to one line and exit 2.

    Signals: Ctrl-C (SIGINT) and SIGTERM stop a command the same clean way (what can be saved is
    saved, temporaries are removed, worker processes are stopped), print ``interrupted`` on
    stderr and exit 130 (SIGINT) or 143 (SIGTERM).
    """
    usage_errors = _usage_error_types()
    try:
        interrupts.UNREPORTED.clear()
        with interrupts.as_interrupts():
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
            return 0  # typer has already printed the help
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
