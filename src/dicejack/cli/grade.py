"""`dicejack grade`: student outputs graded into a gradebook (and reports, LMS grades, a
Gradescope results.json); one file alone gets its report on the terminal."""

import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from dicejack.cli.common import (
    DaskOpt,
    DiceOpt,
    HighOpt,
    LowOpt,
    SidesOpt,
    UsageError,
    WorkersOpt,
    app,
    count_parser,
    make_game,
    write_output,
)
from dicejack.runtime.messages import one_line

#: The grade library's parameters as this command says them (the library's errors name the
#: former: GradeError.naming).
FLAGS = {"out": "--out", "reports": "--reports", "site": "--html", "lms_csv": "--lms-csv",
         "lms_format": "--lms-format", "lms_hold": "--lms-hold", "keep": "--keep",
         "gradescope": "--gradescope", "gradescope_visibility": "--gradescope-visibility",
         "secret": "--probe-secret"}


@contextmanager
def flag_names() -> Iterator[None]:
    """Say the grade library's errors in this command's flags (`keep` -> `--keep`)."""
    from dicejack.grade import GradeError

    try:
        yield
    except GradeError as exc:
        if not exc.parameters:
            raise
        raise GradeError(exc.naming(FLAGS)) from None


def parse_hold(values: list[str] | None) -> tuple[str, ...] | None:
    """--lms-hold's text as the library's lms_hold: None when not given (the library's default),
    ``none`` alone () (every grade goes out), else the reasons of the comma lists, any case,
    each once; a one-line error naming the choices for anything else."""
    from dicejack.grade.scoring.students import HOLD_REASONS

    if values is None:
        return None
    words = [w.strip().lower() for item in values for w in str(item).split(",") if w.strip()]
    if "none" in words:
        if len(words) > 1:
            raise UsageError("--lms-hold none sends every grade; give it alone, or a list of "
                             f"{', '.join(HOLD_REASONS)}")
        return ()
    bad = [w for w in words if w not in HOLD_REASONS]
    if bad:
        raise UsageError(f"--lms-hold takes {', '.join(HOLD_REASONS)} (comma-separated), got "
                         f"{bad[0]!r}")
    return tuple(dict.fromkeys(words))


# The command's arguments and options (its CLI), named so that its signature stays short.
_SUBMISSIONS_OPT = typer.Argument(
    ..., metavar="SUBMISSION",
    help="What student programs printed (the two LxL arrays: best number of dice, win "
    "probability; -1 = no data, in any common layout): files, folders (searched "
    "recursively) and .zip archives such as the bulk downloads of Canvas, Moodle, "
    "Gradescope and Blackboard (student identifiers read from the file names)."
)
_M_OPT = typer.Option(..., "-m", "--m", help="M the students were asked to use.")
_GAMES_OPT = typer.Option(..., "--games", parser=count_parser("--games"),
                          help="NGAMES the students were asked to play (100000, 1e5, ...).")
_OUT_OPT = typer.Option(
    None, "--out", help="Gradebook CSV, one row per file (default: gradebook.csv when "
    "grading a batch; none for one file, whose report is printed instead)."
)
_REPORTS_OPT = typer.Option(
    None, "--reports", help="Folder for one Markdown report (and heatmap) per submission."
)
_HTML_OPT = typer.Option(
    None, "--html", help="Folder for a web site to open in a browser, from disk: index.html "
    "(the class: verdicts, score histogram, copy groups, flags, a table to sort and filter) "
    "and one page per submission. Replaces only an empty folder or an earlier site."
)
_LMS_CSV_OPT = typer.Option(
    None, "--lms-csv", help="Also write the grades as a CSV a gradebook imports, one row "
    "per student (columns: see --lms-format; docs/grading.md)."
)
_LMS_FORMAT_OPT = typer.Option(
    "generic", "--lms-format", help="Columns of --lms-csv (any case): generic "
    "(student,score,...), canvas (Student,ID,SIS User ID,SIS Login ID,Section,<assignment>), "
    "moodle (the grading worksheet: Identifier,Full name,Grade,...) or blackboard (Grade "
    "Center upload: Username,...,<assignment> [Total Pts: 100 Score])."
)
_LMS_HOLD_OPT = typer.Option(
    None, "--lms-hold", metavar="VERDICT[,VERDICT...]",
    help="Leave these grades out of --lms-csv for a look first (comma "
    "list): review, fail, copied, late, unreadable; default review,copied,unreadable (only "
    "decided grades go out); 'none' sends every grade (after a look). The gradebook's held "
    "column and the terminal list them all."
)
_KEEP_OPT = typer.Option(
    "latest", "--keep", help="Which of a student's files is graded for the LMS: latest "
    "(the last submitted, as the LMS does) or best. The gradebook's kept column says which."
)
_LMS_ASSIGNMENT_OPT = typer.Option(
    "dicejack", "--lms-assignment", help="Name of the grade column in --lms-format canvas "
    "(an existing assignment's, e.g. 'Lab 3 (12345)', or a new one)."
)
_GRADESCOPE_OPT = typer.Option(
    None, "--gradescope", help="Write a Gradescope autograder results.json for the one "
    "submission given (docs/autograder.md)."
)
_GRADESCOPE_VISIBILITY_OPT = typer.Option(
    "visible", "--gradescope-visibility", help="When students see the results: visible, "
    "hidden, after_due_date or after_published."
)
_REFERENCES_OPT = typer.Option(
    30, "--references", parser=count_parser("--references"),
    help="Reference learner runs (R) that calibrate the grading."
)
_SEED_OPT = typer.Option(
    1_000_000, "--seed", help="Seed of the first reference run; run i uses seed + i."
)
_CACHE_OPT = typer.Option(
    None, "--cache", help="Reference-run cache folder (default: $DICEJACK_CACHE/grade or "
    "~/.cache/dicejack/grade)."
)
_RUN_OPT = typer.Option(
    False, "--run", help="The submissions are programs (Python, Java, C, C++): build and "
    "run each in a sandbox on a run plan and grade every run (docs/running.md)."
)
_PLAN_OPT = typer.Option(
    None, "--plan", help="With --run: the run plan as TOML (default: the assigned "
    "settings and two probe settings drawn with --probe-secret)."
)
_RUNS_OPT = typer.Option(
    None, "--runs", help="With --run: runs per setting (default 2)."
)
_PROBE_SECRET_OPT = typer.Option(
    None, "--probe-secret", metavar="TEXT", help="With --run: the secret the probe settings "
    "are drawn from (default: a fresh one, printed in the header and runs.html); give the "
    "same secret to reproduce a batch."
)
_INPUT_SPEC_OPT = typer.Option(
    None, "--input", help="With --run: how programs take their settings, e.g. 'argv: "
    "{sides} {low} {high} {dice} {m} {games}', 'stdin: ...', 'file input.txt: ...' "
    "(default: detected per program); end with '> output.txt' when the tables go to a file."
)
_UNSAFE_SANDBOX_OPT = typer.Option(
    None, "--unsafe-sandbox", metavar="unshare|none", help="With --run: the weaker jail you "
    "accept when bubblewrap does not work here: 'unshare' (no network, own process tree; "
    "the host's files stay readable) or 'none' (resource limits only). Never needed where "
    "bubblewrap works (docs/running.md)."
)
_PYTHON_OPT = typer.Option(
    None, "--python", metavar="system|FOLDER|REQUIREMENTS.txt", help="With --run: the Python "
    "that Python programs run on: by default an environment with numpy, colorama, tabulate and "
    "tqdm, built once and cached (the header's python: line names the versions); 'system' (the "
    "system's python3 alone), a Python environment's folder made from /usr/bin/python3, or a "
    "requirements file (an environment built from it, once)."
)
_RUN_TIMEOUT_OPT = typer.Option(
    60.0, "--timeout", help="With --run: seconds one run may take (wall clock; also its "
    "CPU-time limit)."
)


@app.command("grade")
def grade_cmd(
    submissions: list[Path] = _SUBMISSIONS_OPT,
    sides: int = SidesOpt,
    low: int = LowOpt,
    high: int = HighOpt,
    dice: int = DiceOpt,
    m: float = _M_OPT,
    games: int = _GAMES_OPT,
    out: Path | None = _OUT_OPT,
    reports: Path | None = _REPORTS_OPT,
    html: Path | None = _HTML_OPT,
    lms_csv: Path | None = _LMS_CSV_OPT,
    lms_format: str = _LMS_FORMAT_OPT,
    lms_hold: list[str] | None = _LMS_HOLD_OPT,
    keep: str = _KEEP_OPT,
    lms_assignment: str = _LMS_ASSIGNMENT_OPT,
    gradescope: Path | None = _GRADESCOPE_OPT,
    gradescope_visibility: str = _GRADESCOPE_VISIBILITY_OPT,
    references: int = _REFERENCES_OPT,
    seed: int = _SEED_OPT,
    workers: int | None = WorkersOpt,
    dask: str | None = DaskOpt,
    cache: Path | None = _CACHE_OPT,
    # grade --run (cli/grade_run.py, docs/running.md): the submissions are programs
    run: bool = _RUN_OPT,
    plan: Path | None = _PLAN_OPT,
    runs: int | None = _RUNS_OPT,
    probe_secret: str | None = _PROBE_SECRET_OPT,
    input_spec: str | None = _INPUT_SPEC_OPT,
    unsafe_sandbox: str | None = _UNSAFE_SANDBOX_OPT,
    python: str | None = _PYTHON_OPT,
    run_timeout: float = _RUN_TIMEOUT_OPT,
) -> None:
    """Grade student outputs against the truth and against the handout's algorithm.

    A batch (several files, a folder, a zip): a summary table, and the gradebook CSV (--out,
    default gradebook.csv): score /100, verdict, consistency p-value, flags, student, one row per
    file. With --reports DIR: one Markdown report and heatmap per student; with --html DIR: the
    same as web pages, and one page for the whole class; with --lms-csv: the grades to import
    into Canvas, Moodle or any gradebook. Rubric: docs/grading.md.

    One file (a student checking their own output): the report is printed; no gradebook unless
    --out is given.

    Examples: dicejack grade submissions.zip -m 100 --games 100000 --lms-csv grades.csv

    dicejack grade submissions.zip -m 100 --games 100000 --html site (then open
    site/index.html)

    dicejack grade my_output.txt -m 100 --games 100000

    dicejack grade --run programs.zip -m 100 --games 100000 --lms-csv grades.csv (the
    programs themselves, built and run in a bubblewrap jail: docs/running.md)
    """
    options = dict(locals())
    options["lms_hold"] = parse_hold(lms_hold)
    if run:  # programs, not printouts: cli/grade_run.py
        return _grade_run(options)
    _refuse_run_flags(plan, runs, input_spec, unsafe_sandbox, probe_secret, run_timeout, python)
    refs, grades, single, out = _grade_printouts(options)
    graded = [g for g in grades if g.status != "skipped"]
    hint = _say_grades(refs, grades, graded, single)
    _say_students(grades)
    _say_held(grades, lms_csv)
    _say_written(refs, graded, (out, lms_csv, gradescope), reports, html)
    if graded and not any(g.status == "ok" for g in graded):
        n = len(graded)
        typer.echo(f"error: none of the {n} file{'s' * (n != 1)} could be graded"
                   + (f" ({hint})" if hint else ""), err=True)
        raise typer.Exit(1)


def _grade_run(options: dict) -> None:
    """The --run branch: hand the options to cli/grade_run.py (no --dask, no --gradescope)."""
    from dicejack.cli.grade_run import grade_run_cmd

    if options["dask"] is not None or options["gradescope"] is not None:
        raise typer.BadParameter("--dask and --gradescope do not go with --run")
    dropped = ("run", "dask", "gradescope", "gradescope_visibility", "run_timeout")
    given = {k: v for k, v in options.items() if k not in dropped}
    with flag_names():
        return grade_run_cmd(**given, timeout=options["run_timeout"])


def _refuse_run_flags(plan: Path | None, runs: int | None, input_spec: str | None,
                      unsafe_sandbox: str | None, probe_secret: str | None,
                      run_timeout: float, python: str | None = None) -> None:
    """Refuse the options that only go with --run when grading printouts."""
    if any(v is not None for v in (plan, runs, input_spec, unsafe_sandbox, probe_secret,
                                   python)) or run_timeout != 60.0:
        raise typer.BadParameter("--plan, --runs, --input, --timeout, --unsafe-sandbox, "
                                 "--python and --probe-secret go with --run")


def _grade_printouts(o: dict) -> tuple:
    """Grade the printouts as the options say; the library's notices as one `note:` line each.

    Returns the reference runs, the grades, whether one file was graded alone, and the
    gradebook path (gradebook.csv by default for a batch)."""
    import warnings

    from dicejack import grade as gr
    from dicejack.grade.batch import check_self_check_file
    from dicejack.grade.intake.inputs import is_one_file

    workers, gradescope, submissions, out = (o["workers"], o["gradescope"], o["submissions"],
                                             o["out"])
    if workers is not None and workers < 1:
        raise gr.GradeError(f"--workers must be >= 1, got {workers}")
    config = gr.GradeConfig(make_game(o["sides"], o["low"], o["high"], o["dice"]), o["m"],
                            o["games"], o["references"], o["seed"])
    single = gradescope is not None or is_one_file(submissions)
    if single and gradescope is None:
        check_self_check_file(submissions[0])
    if out is None and not single:
        out = Path("gradebook.csv")
    show = sys.stderr.isatty()
    with warnings.catch_warnings(record=True) as notices, flag_names():
        warnings.simplefilter("always", gr.GradeWarning)
        refs, grades = gr.grade_files(
            config, submissions, out=out, reports=o["reports"], site=o["html"],
            lms_csv=o["lms_csv"], lms_format=o["lms_format"],
            lms_assignment=o["lms_assignment"], gradescope=gradescope, keep=o["keep"],
            lms_hold=o["lms_hold"], gradescope_visibility=o["gradescope_visibility"],
            cache_dir=o["cache"], workers=workers, dask=o["dask"], progress=show,
        )
    for notice in notices:  # the library's notices (cache recomputed, report renamed): one line
        typer.echo(f"note: {one_line(notice.message)}", err=True)
    return refs, grades, single, out


def _say_grades(refs, grades: list, graded: list, single: bool) -> str:
    """Print the batch hint, then one file's report or the batch's summary; return the hint."""
    from dicejack.grade.outputs.terminal import report_text, summary_text
    from dicejack.grade.scoring.grading import batch_hint

    hint = batch_hint(refs, grades)
    if hint:
        typer.echo(f"hint: {hint}", err=True)
    if single and len(graded) <= 1:
        for g in graded or grades[:1]:
            write_output(report_text(refs, g), None)
    else:
        write_output(summary_text(grades), None)
    return hint


def _say_students(grades: list) -> None:
    """Say whose LMS names the files carried, and how many identities were ambiguous."""
    named = Counter(g.lms for g in grades if g.lms)
    ambiguous = sum("identity-ambiguous" in g.flags for g in grades)
    if named or ambiguous:
        which = ", ".join(f"{lms} names for {n} file{'s' * (n != 1)}" for lms, n in
                          named.most_common())
        doubt = f"; {ambiguous} ambiguous (flagged identity-ambiguous)" if ambiguous else ""
        typer.echo(f"students: {which or 'none'}{doubt}", err=True)


def _say_held(grades: list, lms_csv: Path | None) -> None:
    """List the kept grades held back from the LMS file, and how to send them after a look."""
    held = [g for g in grades if g.held and g.kept == "yes"]
    if held and lms_csv is not None:
        typer.echo(f"held back from {lms_csv} for a look first ({len(held)}; their cells are "
                   "empty): " + ", ".join(f"{g.student or g.submission} ({g.held})"
                                          for g in held), err=True)
        typer.echo("after a look, re-run with --lms-hold none to send them too (or enter them "
                   "by hand)", err=True)


def _say_written(refs, graded: list, files: tuple, reports: Path | None,
                 html: Path | None) -> None:
    """Say what the run wrote and where the reference runs came from."""
    written = [str(p) for p in files if p is not None]
    if reports is not None:
        written.append(f"{len(graded)} reports in {reports}/")
    if html is not None:
        written.append(f"the site {html}/index.html")
    what = f"wrote {', '.join(written)}; " if written else ""
    typer.echo(f"{what}reference runs: {refs.source}", err=True)
