"""`dicejack grade --run`: the submissions are programs; each is built and run in a sandbox on a
run plan and graded from all its runs (:mod:`dicejack.grade.programs`, docs/running.md). Thin:
reads the options, prints the header (which sandbox, which Python, which plan), calls the
library, prints the summary."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from dicejack.cli.common import write_output


def runs_path(out: Path) -> Path:
    """runs.csv beside the gradebook: gradebook.csv -> gradebook.runs.csv."""
    return out.with_name(f"{out.stem}.runs.csv")


def grade_run_cmd(
    *, submissions: list[Path], sides: int, low: int, high: int, dice: int, m: float,
    games: int, out: Path | None, reports: Path | None, html: Path | None,
    lms_csv: Path | None, lms_format: str, lms_hold: tuple[str, ...] | None, keep: str,
    lms_assignment: str, references: int, seed: int, workers: int | None,
    probe_secret: str | None,
    cache: Path | None, plan: Path | None, runs: int | None, input_spec: str | None,
    unsafe_sandbox: str | None, timeout: float, python: str | None = None,
) -> None:
    """Run and grade student programs (the --run branch of `dicejack grade`)."""
    from dicejack import grade as gr
    from dicejack.formats.escape import safe_text
    from dicejack.games.handout_rules import Game
    from dicejack.grade import programs as pg
    from dicejack.grade.outputs.terminal import summary_text
    from dicejack.grade.programs import pyenv
    from dicejack.runtime import sandbox as sb

    if workers is not None and workers < 1:
        raise gr.GradeError(f"--workers must be >= 1, got {workers}")
    config = gr.GradeConfig(Game(sides, low, high, dice), m, games, references, seed)
    assigned = pg.Settings(sides, low, high, dice, float(m), games)
    if plan is not None:
        run_plan = pg.load_plan(plan, assigned=assigned, runs=runs, secret=probe_secret)
    else:  # probes drawn with the secret (a fresh one if none given); the plan: line says it
        run_plan = pg.default_plan(assigned, runs if runs is not None else pg.DEFAULT_RUNS,
                                   secret=probe_secret)
    conventions = (pg.parse_convention(input_spec),) if input_spec else ()
    limits = sb.Limits(wall_seconds=timeout, cpu_seconds=max(1, int(timeout)))
    box = sb.choose_sandbox(weaker=unsafe_sandbox)
    typer.echo(f"sandbox: {box.description}", err=True)
    student_python = pyenv.resolve_python(python, box,  # built on first use: a line says so
                                          notify=lambda line: typer.echo(line, err=True))
    runner = pg.Runner(box, limits, python=student_python)
    out = out if out is not None else Path("gradebook.csv")
    typer.echo(f"python: {student_python.description}", err=True)
    typer.echo(f"plan: {run_plan.describe()}", err=True)
    typer.echo("input: " + (conventions[0].describe() if conventions else
                            "detected per program on a tiny game"), err=True)
    show = sys.stderr.isatty()
    try:
        batch = pg.grade_programs(
            config, run_plan, submissions, runner, conventions=conventions, out=out,
            runs_out=runs_path(out), reports=reports, site=html, lms_csv=lms_csv,
            lms_format=lms_format, lms_assignment=lms_assignment, keep=keep, lms_hold=lms_hold,
            cache_dir=cache, workers=workers, progress=show,
            notify=lambda line: typer.echo(line, err=True) if show else None)
    except KeyboardInterrupt:
        typer.echo("stopped: every run killed, nothing written", err=True)
        raise
    write_output(summary_text(batch.grades), None)
    for s in batch.students:  # names and reasons are a student's words: escaped, one line
        g = s.grade  # the gradebook's words: its verdict (a program that could not run: fail)
        typer.echo(safe_text(f"{s.label}: {s.language or '?'}, input {s.convention or '-'}, "
                             f"{len(s.runs)} runs, {g.verdict or g.status}"
                             + (f", likely: {g.cause}" if g.cause else "")
                             + (f" (error: {g.error})" if g.error else "")), err=True)
    written = [str(out), str(runs_path(out))] + [str(p) for p in (lms_csv,) if p is not None]
    if reports is not None:
        written.append(f"reports in {reports}/")
    if html is not None:
        written.append(f"the site {html}/index.html")
    typer.echo(f"wrote {', '.join(written)}", err=True)
    if not any(g.status == "ok" for g in batch.grades):
        typer.echo(f"error: none of the {len(batch.grades)} programs could be graded", err=True)
        raise typer.Exit(1)
