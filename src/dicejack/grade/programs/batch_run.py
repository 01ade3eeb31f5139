"""`grade --run` as a library call: every student's program found, built, its input convention
found, run on the plan in the sandbox (in parallel up to the CPUs), every run graded against the
reference runs of its setting and the runs joined into one verdict per student
(:mod:`dicejack.grade.programs.joint`); then the gradebook, the LMS CSV, reports and site through
the grading's own writers, and ``runs.csv`` (one row per run) and ``runs.html`` (a section per
student: the family and every run) beside the gradebook. Ctrl-C stops
cleanly: pending runs are cancelled, running ones killed, temporary folders removed."""

from __future__ import annotations

import concurrent.futures as cf
import csv
import dataclasses
import io
import math
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dicejack import formats
from dicejack.formats.escape import safe_text
from dicejack.formats.escape import spreadsheet_cell as cell
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.references import References, reference_runs
from dicejack.grade.intake.lms_names import lms_student
from dicejack.grade.outputs.gradebook import check_gradebook_path, write_gradebook
from dicejack.grade.outputs.lms import check_lms_path, lms_hold_reasons, write_lms_csv
from dicejack.grade.outputs.output_paths import check_output_path, prepare_reports_folder
from dicejack.grade.outputs.site import prepare_site, write_site
from dicejack.grade.outputs.student_reports import write_reports
from dicejack.grade.programs.collect import Source, collect_programs
from dicejack.grade.programs.conventions import Convention, Settings, source_candidates
from dicejack.grade.programs.joint import (
    ProgramRun,
    StudentResult,
    failed_grade,
    grade_run,
    joint_grade,
    tied_causes,
)
from dicejack.grade.programs.languages import Language, Program, find_program
from dicejack.grade.programs.pages import runs_html
from dicejack.grade.programs.plan import PlannedSetting, RunPlan
from dicejack.grade.programs.running import (
    TINY,
    Build,
    Detection,
    Judge,
    Runner,
    build,
    detect,
    read_printout,
    run_once,
)
from dicejack.grade.programs.tiebreak import TIEBREAK_RUNS, separating_setting, settle
from dicejack.grade.programs.wrong_m import mark_wrong_m, scaled
from dicejack.grade.scoring.diagnosis import UNUSUAL
from dicejack.grade.scoring.grading import grade_text
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.students import mark_held, mark_kept
from dicejack.grade.settings import GradeConfig, GradeError, Verdict
from dicejack.runtime import parallel, tree

__all__ = ["ProgramBatch", "grade_programs", "runs_csv", "RUNS_HEADER",
           "SEED_BASE"]

#: The first seed given to programs that take one ({seed} in the convention): run i of a
#: setting gets SEED_BASE + 1000 * setting + i, fresh per run and the same in every batch.
SEED_BASE = 20_250_000
RUNS_HEADER = ("student", "submission", "role", "settings", "run", "seed", "input", "command",
               "seconds", "cpu_seconds", "exit_code", "outcome", "score", "verdict",
               "consistency_p", "print_p", "print_flag", "flags", "stderr_tail")


@dataclass(frozen=True)
class ProgramBatch:
    """What :func:`grade_programs` returns: the sandbox used, the plan, the assigned setting's
    references and one result per student program."""

    sandbox: str
    plan: RunPlan
    refs: References
    students: tuple[StudentResult, ...]

    @property
    def grades(self) -> list[Grade]:
        return [s.grade for s in self.students]


def _config(setting: PlannedSetting, references: int, seed: int) -> GradeConfig:
    s = setting.settings
    return GradeConfig(Game(s.sides, s.low, s.high, s.dice), s.m, s.games, references, seed)


def _fmt(value: float, spec: str) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else (
        format(value, spec))


def runs_csv(students: Sequence[StudentResult]) -> str:
    """One CSV row per run (RUNS_HEADER), names escaped for spreadsheets."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RUNS_HEADER)
    for s in students:
        for r in s.runs:
            g, res = r.grade, r.result
            pc = g.print_check if g is not None else None
            w.writerow([cell(s.grade.student), cell(s.label), r.setting.role,
                        r.setting.settings.describe(), r.index + 1,
                        "" if r.seed is None else r.seed, cell(s.convention),
                        cell(r.command), _fmt(res.seconds if res else math.nan, ".3f"),
                        _fmt(res.cpu_seconds if res else math.nan, ".3f"),
                        "" if res is None else res.exit_code, cell(r.failed or "graded"),
                        _fmt(g.score if g else math.nan, ".1f"), g.verdict if g else "fail",
                        _fmt(g.consistency_p if g else math.nan, ".4g"),
                        _fmt(pc.p_value if pc and pc.runs else math.nan, ".4g"),
                        pc.flag if pc else "", ";".join(g.flags) if g else "",
                        cell(r.stderr_tail)])
    return buf.getvalue()


class _Stop:
    """Set on Ctrl-C: nothing new starts, running jails are killed."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event

    def check(self) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt


def _prepare(source: Source, runner: Runner, conventions: Sequence[Convention],
             fixed: bool, languages: Mapping[str, Language] | None, stop: _Stop,
             judge: Judge | None = None) -> tuple[Build | None, Detection | None, str]:
    """Find, build and detect one student's program. Whatever goes wrong is that student's
    row, never the batch's end (only Ctrl-C stops the batch)."""
    stop.check()
    if source.error:
        return None, None, source.error
    try:
        program = find_program(source.folder, source.label, languages, source.parts)
    except GradeError as exc:
        return None, None, str(exc)
    except (OSError, RecursionError) as exc:  # an unreadable file: this student's row
        return None, None, f"cannot read the submission: {_reason(exc)}"
    try:
        return _build_and_detect(program, runner, conventions, fixed, stop, judge)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - one student's program never stops the batch
        return None, None, f"cannot build or run: {_reason(exc)}"


def _reason(exc: BaseException) -> str:
    """An exception as a row's reason: one printable line."""
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return safe_text(" ".join((text or type(exc).__name__).split()))[:300]


def _build_and_detect(program: Program, runner: Runner, conventions: Sequence[Convention],
                      fixed: bool, stop: _Stop, judge: Judge | None = None
                      ) -> tuple[Build | None, Detection | None, str]:
    built = build(program, runner)
    if built.error:
        return built, None, built.error
    if fixed:
        return built, Detection(conventions[0], ()), ""
    stop.check()
    found = detect(built, runner, source_candidates(_source_text(program), tuple(conventions)),
                   judge=judge)
    return built, found, found.reason()


def _source_text(program: Program, cap: int = 1 << 20) -> str:
    """The program's source files as one text (capped), to propose flag and output-file
    conventions from: only proposals, each judged by running it."""
    parts: list[str] = []
    for name in program.sources[:50]:
        try:
            with open(program.folder / name, "rb") as f:
                parts.append(f.read(cap).decode("utf-8", "replace"))
        except OSError:
            continue
    return "\n".join(parts)[:cap]


def _tiny_judge(config: GradeConfig, say: Callable[[str], None], cache_dir: Path | None,
                workers: int | None, progress: bool) -> Judge:
    """Detection's judge: a printout graded against the reference runs of the tiny game
    (computed once, cached like every setting's); its consistency p-value (0 when it cannot
    be graded)."""
    say("reference runs: the tiny game of input detection")
    tiny = GradeConfig(Game(TINY.sides, TINY.low, TINY.high, TINY.dice), TINY.m, TINY.games,
                       config.references, config.seed)
    refs = reference_runs(tiny, cache_dir=cache_dir, workers=workers, progress=progress)

    def judge(printed: bytes) -> tuple[float, str]:
        g = grade_text(refs, printed, name="input detection")
        p = g.consistency_p if g.status == "ok" else 0.0
        return (0.0 if math.isnan(p) else p), ("" if g.status == "ok" else f": {g.error}")

    return judge


def _one_run(built: Build, runner: Runner, convention: Convention, setting: PlannedSetting,
             index: int, seed: int | None, refs: References, stop: _Stop) -> ProgramRun:
    stop.check()
    command = " ".join([*built.program.run_command(), *convention.render(
        setting.settings, seed)[0]])
    try:
        result = run_once(built, runner, convention, setting.settings, seed)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - cannot start, no room: this run's row only
        return ProgramRun(setting, index, seed, command, None, None,
                          f"cannot start: {_reason(exc)}")
    if convention.output:  # the printout is the file it wrote
        result = dataclasses.replace(result, stdout=read_printout(result, convention))
    return grade_run(refs, setting, index, seed, command, result, built.program.label)


def grade_programs(
    config: GradeConfig,
    plan: RunPlan,
    paths: Sequence[Path],
    runner: Runner,
    *,
    conventions: Sequence[Convention] = (),
    languages: Mapping[str, Language] | None = None,
    out: Path | None = None,
    runs_out: Path | None = None,
    reports: Path | None = None,
    site: Path | None = None,
    lms_csv: Path | None = None,
    lms_format: str = "generic",
    lms_assignment: str = "dicejack",
    keep: str = "latest",
    lms_hold: Sequence[str] | None = None,
    cache_dir: Path | None = None,
    workers: int | None = None,
    progress: bool = False,
    notify: Callable[[str], None] | None = None,
) -> ProgramBatch:
    """Grade student programs by running them (module docstring). `conventions`: the course's
    one (a single entry) or the candidates to detect among (empty: the common ones). The
    references of each setting come from :func:`reference_runs` (cached like `grade`'s)."""
    from dicejack.grade.programs.conventions import CANDIDATES

    # as grade's: review, copied and unreadable rows held unless told (the LMS gets decided grades)
    hold = lms_hold_reasons(lms_hold)
    _check_outputs(list(paths), out, runs_out, lms_csv, reports)
    site_tmp = prepare_site(site) if site is not None else None
    fixed = len(conventions) == 1
    candidates = tuple(conventions) or CANDIDATES
    say = notify or (lambda _: None)
    refs_by = _setting_references(plan, config, say, cache_dir, workers, progress)
    assigned = next(s for s in plan.settings if s.role == "assigned")
    refs_at = _scaled_references(config, say, cache_dir, workers, progress)
    judge = None if fixed else _tiny_judge(config, say, cache_dir, workers, progress)
    n_workers = parallel.worker_count(workers)
    stop = _Stop(runner.cancel)
    work = Path(tempfile.mkdtemp(prefix="dicejack-programs-"))
    builds: list[tuple[Source, Build | None, Detection | None, str]] = []
    try:
        sources = collect_programs(paths, work, languages)
        if not sources:
            raise GradeError("no student program found (source files: .py .java .c .cpp ...)")
        by_program = _build_and_run(
            sources, builds, plan, runner, refs_by, stop,
            prepare=(candidates, fixed, languages, judge), n_workers=n_workers, progress=progress)
        students = [_student_result(source, built, found, error, by_program.get(k, []), refs_at)
                    for k, (source, built, found, error) in enumerate(builds)]
        students = _break_ties(students, builds, runner, stop, plan, _Ties(
            config, say, cache_dir, workers, progress), n_workers=n_workers, progress=progress)
    finally:
        for _, built, _, _ in builds:
            if built is not None:
                built.discard()
        tree.remove_tree(work)
        if site_tmp is not None and site_tmp.exists():  # checked early; write_site makes its own
            shutil.rmtree(site_tmp, ignore_errors=True)
            site_tmp = None
    grades = mark_held(mark_kept([s.grade for s in students], keep), hold)
    students = [dataclasses.replace(s, grade=g) for s, g in zip(students, grades, strict=True)]
    refs = refs_by[assigned.label]
    if out is not None:
        write_gradebook(out, grades)
    if runs_out is not None:
        formats.write_atomic(runs_out, runs_csv(students))
        formats.write_atomic(runs_out.with_suffix(".html"), runs_html(
            students, runner.sandbox.description, plan.describe(),
            runner.python.description if runner.python is not None else ""))
    _write_grade_outputs(refs, grades, reports=reports, site=site, lms_csv=lms_csv,
                         lms=(lms_format, lms_assignment, keep), progress=progress)
    return ProgramBatch(runner.sandbox.description, plan, refs, tuple(students))


def _check_outputs(inputs: list[Path], out: Path | None, runs_out: Path | None,
                   lms_csv: Path | None, reports: Path | None) -> None:
    """Refuse, before any work, output paths that would overwrite what the run did not make."""
    check_gradebook_path(out, inputs=inputs)
    check_output_path(runs_out, option="--out", what="a dicejack runs CSV", inputs=inputs,
                      ours=((",".join(RUNS_HEADER) + "\n").encode(),))
    if runs_out is not None:
        check_output_path(runs_out.with_suffix(".html"), option="--out",
                          what="a dicejack runs page", inputs=inputs, ours=(b"<!DOCTYPE html>",))
    check_lms_path(lms_csv, inputs=inputs)
    prepare_reports_folder(reports)


def _setting_references(plan: RunPlan, config: GradeConfig, say: Callable[[str], None],
                        cache_dir: Path | None, workers: int | None,
                        progress: bool) -> dict[str, References]:
    """The reference runs of each of the plan's settings, by label (once per label)."""
    refs_by: dict[str, References] = {}
    for setting in plan.settings:
        if setting.label not in refs_by:
            say(f"reference runs: {setting.label}")
            cfg = _config(setting, config.references, config.seed)
            refs_by[setting.label] = reference_runs(cfg, cache_dir=cache_dir, workers=workers,
                                                    progress=progress)
    return refs_by


def _scaled_references(config: GradeConfig, say: Callable[[str], None],
                       cache_dir: Path | None, workers: int | None,
                       progress: bool) -> Callable[[PlannedSetting, float], References]:
    """A lookup of reference runs at a setting with M scaled (the wrong-M diagnosis), each
    computed on first use only."""
    scaled_refs: dict[tuple[str, float], References] = {}

    def refs_at(setting: PlannedSetting, factor: float) -> References:
        key = (setting.label, factor)
        if key not in scaled_refs:
            say(f"reference runs for the wrong-M diagnosis: {setting.label}, M x {factor:g}")
            scaled_refs[key] = reference_runs(
                _config(scaled(setting, factor), config.references, config.seed),
                cache_dir=cache_dir, workers=workers, progress=progress)
        return scaled_refs[key]

    return refs_at


class _Ties:
    """The reference runs of the tie-break candidates (:mod:`dicejack.grade.programs.tiebreak`),
    each computed on first use, and the separating setting of each tied pair (once a batch)."""

    def __init__(self, config: GradeConfig, say: Callable[[str], None], cache_dir: Path | None,
                 workers: int | None, progress: bool) -> None:
        self.config, self.say, self.cache_dir = config, say, cache_dir
        self.workers, self.progress = workers, progress
        self._refs: dict[Settings, References] = {}
        self._chosen: dict[tuple[str, str], tuple[PlannedSetting, float]] = {}

    def refs(self, s: Settings) -> References:
        if s not in self._refs:
            self.say(f"reference runs for a tie-break: {s.describe()}")
            cfg = GradeConfig(Game(s.sides, s.low, s.high, s.dice), s.m, s.games,
                              self.config.references, self.config.seed)
            self._refs[s] = reference_runs(cfg, cache_dir=self.cache_dir, workers=self.workers,
                                           progress=self.progress)
        return self._refs[s]

    def setting(self, pair: tuple[str, str]) -> tuple[PlannedSetting, float]:
        if pair not in self._chosen:
            self._chosen[pair] = separating_setting(
                pair, self.refs, cache_dir=self.cache_dir if self.cache_dir else False)
        return self._chosen[pair]


def _break_ties(students: list[StudentResult], builds: Sequence[tuple], runner: Runner,
                stop: _Stop, plan: RunPlan, ties: _Ties, *, n_workers: int,
                progress: bool) -> list[StudentResult]:
    """Run again, at the setting that separates them best, every student whose runs leave two
    causes tied and who did not pass (:mod:`dicejack.grade.programs.tiebreak`); their rows get
    the cause the extra runs name, and the extra runs join their runs (never their verdict)."""
    tied: dict[int, tuple[str, str]] = {}
    for k, s in enumerate(students):
        g = s.grade
        if (s.joint is None or g.status != "ok" or g.verdict == "pass"
                or (g.cause and g.cause != UNUSUAL) or builds[k][1] is None):
            continue
        pair = tied_causes(s.runs, s.joint.named_slip)
        if pair is not None:
            tied[k] = pair
    if not tied:
        return students
    ties.say(f"tie-break: {len(tied)} student(s) with two likely causes tied, "
             f"{TIEBREAK_RUNS} more runs each")
    first_seed = SEED_BASE + 1000 * len(plan.settings)
    with cf.ThreadPoolExecutor(n_workers) as pool:
        try:
            jobs = []
            for k, pair in tied.items():
                setting, _ = ties.setting(pair)
                built, found = builds[k][1], builds[k][2]
                for i in range(setting.runs):
                    seed = first_seed + i if found.convention.takes_seed else None
                    jobs.append((k, pool.submit(_one_run, built, runner, found.convention,
                                                setting, i, seed, ties.refs(setting.settings),
                                                stop)))
            _wait_all([f for _, f in jobs], "tie-break", progress)
        except BaseException:
            stop.event.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    extra: dict[int, list[ProgramRun]] = {}
    for k, fut in jobs:
        extra.setdefault(k, []).append(fut.result())
    out = list(students)
    for k, pair in tied.items():
        setting, separation = ties.setting(pair)
        g = settle(out[k].grade, pair, setting, separation, extra[k])
        out[k] = dataclasses.replace(out[k], grade=g, runs=(*out[k].runs, *extra[k]))
    return out


def _wait_all(futures: Sequence[cf.Future], label: str, progress: bool) -> None:
    """Wait for every future (raising the first error met), a progress bar ticking."""
    advance, close = parallel.progress_bar(label, len(futures), progress)
    try:
        for fut in cf.as_completed(futures):
            fut.result()
            advance()
    finally:
        close()


def _run_tasks(plan: RunPlan, builds: Sequence[tuple[Source, Build | None, Detection | None,
                                                     str]]) -> list[tuple]:
    """Every run to make, in run-major order: (program index, setting, run, seed, convention).

    A student's runs of one setting start far apart, so that programs seeding from the clock
    in seconds do not print one table twice."""
    tasks = []
    for si, setting in enumerate(plan.settings):
        for i in range(setting.runs):
            for k, (_, built, found, error) in enumerate(builds):
                if error or built is None or found is None or found.convention is None:
                    continue
                seed = SEED_BASE + 1000 * si + i if found.convention.takes_seed else None
                tasks.append((k, setting, i, seed, found.convention))
    return tasks


def _build_and_run(sources: Sequence[Source], builds: list, plan: RunPlan, runner: Runner,
                   refs_by: Mapping[str, References], stop: _Stop, *,
                   prepare: tuple, n_workers: int,
                   progress: bool) -> dict[int, list[ProgramRun]]:
    """Build every program and detect its convention, then make every run, in a thread pool;
    `builds` gets the builds once all are done (for the caller to discard). On any error
    (Ctrl-C too) pending work is cancelled and running programs stopped. Returns the graded
    runs by program index."""
    candidates, fixed, languages, judge = prepare
    with cf.ThreadPoolExecutor(n_workers) as pool:
        try:
            futures = [pool.submit(_prepare, s, runner, candidates, fixed, languages, stop, judge)
                       for s in sources]
            _wait_all(futures, "building", progress)
            builds.extend((s, *f.result()) for s, f in zip(sources, futures, strict=True))
            tasks = _run_tasks(plan, builds)
            run_futures = [pool.submit(_one_run, builds[k][1], runner, conv, setting, i,
                                       seed, refs_by[setting.label], stop)
                           for k, setting, i, seed, conv in tasks]
            _wait_all(run_futures, "running", progress)
        except BaseException:
            stop.event.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    by_program: dict[int, list[ProgramRun]] = {}
    for (k, *_), fut in zip(tasks, run_futures, strict=True):
        by_program.setdefault(k, []).append(fut.result())
    return by_program


def _student_result(source: Source, built: Build | None, found: Detection | None, error: str,
                    runs: list[ProgramRun],
                    refs_at: Callable[[PlannedSetting, float], References]) -> StudentResult:
    """One student's result: the failure if the program did not build or show a convention,
    else its runs joined into one grade (with the wrong-M diagnosis when inconsistent); the
    student named from the LMS-written part of the file name."""
    program = built.program if built is not None else None
    language = program.language.name if program is not None else ""
    conv = found.convention.describe() if found and found.convention else ""
    if error and found is not None and found.convention is None:
        # detection's guess is never a fail: the row is held for a person to name the input
        flags = tuple(f for f in (found.flag, "input-unknown") if f)
        g = dataclasses.replace(failed_grade(source.label, error, flags), verdict="review")
        joint = None
    elif error:
        flags = (found.flag,) if found is not None and found.flag else ()
        g, joint = failed_grade(source.label, error, flags), None
    else:
        g, joint = joint_grade(source.label, runs, conv)
        g = mark_wrong_m(g, runs, refs_at)
        if found is not None and found.guess:  # graded in a guessed order: never decided
            g = dataclasses.replace(g, verdict=Verdict.REVIEW, flags=(*g.flags, "input-guessed"),
                                    notes="; ".join(n for n in (g.notes, found.guess) if n))
    if source.notes:  # what taking the submission in decided (a renamed file kept, ...)
        g = dataclasses.replace(g, notes="; ".join(n for n in (g.notes, *source.notes) if n))
    s = (lms_student(source.student_parts(), deepest=source.deepest) if source.parts
         else None)
    if s is not None:
        g = dataclasses.replace(g, student=s.id, student_name=s.name, lms=s.lms,
                                late=s.late, order=s.order)
    return StudentResult(source.label, language, conv, tuple(runs), g, joint)


def _write_grade_outputs(refs: References, grades: list[Grade], *, reports: Path | None,
                         site: Path | None, lms_csv: Path | None, lms: tuple[str, str, str],
                         progress: bool) -> None:
    """Write the reports, the site and the LMS CSV asked for, through grading's own writers."""
    lms_format, lms_assignment, keep = lms
    if reports is not None:
        write_reports(refs, grades, reports, progress=progress)
    if site is not None:
        write_site(refs, grades, site, progress=progress)
    if lms_csv is not None:
        write_lms_csv(lms_csv, grades, lms_format, assignment=lms_assignment, keep=keep)
