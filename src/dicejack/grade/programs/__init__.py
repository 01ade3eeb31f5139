"""Grading the program, not one printout (`dicejack grade --run`, docs/running.md): each student
program built and run in a sandbox on a run plan, every run graded by the grading pipeline and
the runs joined into one verdict per student. Where things are:

=============  ==================================================================================
languages      Python, Java, C, C++ and command templates: finding the main file, build and run
conventions    how a program takes its settings (argv, stdin, a file) and the common ones tried
plan           the run plan: assigned settings and probes drawn from a secret; TOML (--plan)
pyenv          the Python that Python programs run on (numpy by default; --python)
running        building once, running in a fresh folder, detecting the input convention
collect        programs from files, folders and LMS zips, with the path that names the student
joint          a run's grade; the runs as one family (Holm); the student's row
diagnosis      a wrong M named: inconsistent runs graded again at M x 0.1 and M x 10
pages          runs.html: per student the family and every run
batch          the whole batch: parallel runs, progress, Ctrl-C, the writers; runs.csv
=============  ==================================================================================

The sandbox itself is :mod:`dicejack.runtime.sandbox`. This package imports the grade modules
below it and none of them imports it.
"""

from __future__ import annotations

from dicejack.grade.programs.batch_run import (
    RUNS_HEADER,
    ProgramBatch,
    grade_programs,
    runs_csv,
)
from dicejack.grade.programs.collect import Source, collect_programs
from dicejack.grade.programs.conventions import (
    CANDIDATES,
    Convention,
    Settings,
    parse_convention,
)
from dicejack.grade.programs.joint import (
    Joint,
    ProgramRun,
    StudentResult,
    holm,
    joint_grade,
    print_flag_p,
)
from dicejack.grade.programs.languages import (
    LANGUAGES,
    Language,
    Program,
    find_program,
    parse_language,
)
from dicejack.grade.programs.plan import (
    DEFAULT_RUNS,
    PROBE_REGIONS,
    PlannedSetting,
    ProbeRegion,
    RunPlan,
    default_plan,
    draw_probes,
    load_plan,
    new_secret,
    parse_plan,
)
from dicejack.grade.programs.running import TINY, Build, Runner, build, detect, run_once

__all__ = ["RUNS_HEADER", "ProgramBatch", "StudentResult", "grade_programs", "runs_csv",
           "Source", "collect_programs", "CANDIDATES", "Convention", "Settings",
           "parse_convention", "Joint", "ProgramRun", "holm", "joint_grade", "print_flag_p",
           "LANGUAGES", "Language", "Program", "find_program", "parse_language",
           "DEFAULT_RUNS", "PROBE_REGIONS", "PlannedSetting", "ProbeRegion", "RunPlan",
           "default_plan", "draw_probes", "load_plan", "new_secret", "parse_plan",
           "TINY", "Build", "Runner", "build", "detect", "run_once"]
