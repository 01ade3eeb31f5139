"""`dicejack grade`: student outputs graded into a gradebook (and reports)."""

import sys
from pathlib import Path

import typer

from dicejack import one_line
from dicejack.cli.common import (
    DaskOpt,
    DiceOpt,
    HighOpt,
    LowOpt,
    SidesOpt,
    WorkersOpt,
    app,
    make_game,
    write_output,
)


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
