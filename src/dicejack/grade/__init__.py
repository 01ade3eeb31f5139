"""Grading student outputs: the handout's two printed arrays, against the truth and against
reference runs of the handout's own algorithm (docs/grading.md is the user's guide).

A student's answer is random, so "does it match mine" is the wrong question. Two right ones:
**quality** (the compare metrics of the printed tables, placed among R reference runs with the
same game, M and NGAMES) and **consistency** (could these tables have come from the handout's
algorithm at all? a statistic calibrated on held-out faithful runs, so its false-alarm rate is
known). Where things are:

=================  ==============================================================================
settings           GradeConfig (game, M, NGAMES, R, C, seed) and GradeError
printed            what a printed table means: graded values and J (the one rule for conventions)
consistency        the statistic T and its p-value (its docstring is the specification)
copies             distances between tables, the `copied` flag and similar_to
rubric             points, verdict, flags with help and hints
references         reference and calibration runs: computing, caching, what grading derives
diagnosis          the likely cause of a non-pass: bug models run and cached beside the references
lms_names          the LMS student identifier in file and folder names, Gradescope metadata
inputs             files, folders and zip archives -> entries with the LMS student identifier
writers            gradebook CSV, terminal summary and report, per-student Markdown reports
site               the HTML site of --html: a page for the class, one per submission
students           a batch's files by student: kept file (--keep), held grades (--lms-hold)
lms                grades back to an LMS: gradebook import CSV, Gradescope results.json
record             the Grade of one submission and its worst states (below all that use it)
grading            one output (arrays, text, file) -> Grade; a batch -> Gradebook + outputs
=================  ==============================================================================

Every public name of these modules is importable from ``dicejack.grade``.
"""

from __future__ import annotations

from dicejack.grade.batch import (
    Gradebook,
    check_inputs_exist,
    check_self_check_file,
    grade_files,
)
from dicejack.grade.evidence.calibration import Calibration, calibration
from dicejack.grade.evidence.consistency import Consistency, consistency, looks_transposed
from dicejack.grade.evidence.copies import (
    COPY_DECIMALS,
    COPY_FACTOR,
    COPY_MIN_STATES,
    pairwise_distances,
    table_distance,
)
from dicejack.grade.evidence.power import LOW_POWER, PROBE_RUNS, PROBES, SettingPower, setting_power
from dicejack.grade.evidence.print_model import (
    BANDWIDTH_FLOOR,
    CLIP,
    PRINT_RULES,
    SD_FLOOR,
    rule_tables,
)
from dicejack.grade.evidence.print_rules import PrintCheck, print_check, rule_statistics
from dicejack.grade.evidence.printed import graded_learned, graded_tables, printed_decimals
from dicejack.grade.evidence.references import (
    INLINE_GAMES,
    ROUNDING_MATTERS,
    USABLE_SHARE,
    USABLE_VISITS,
    References,
    compute_references,
    default_cache_dir,
    forget_references,
    reference_run,
    reference_runs,
    reference_tie_break,
    usable_states,
)
from dicejack.grade.evidence.statistic import (
    NULL_SD_FLOOR,
    POLICY_SMOOTHING,
    POLICY_WEIGHT,
    p_value,
    statistic_terms,
)
from dicejack.grade.intake.inputs import (
    MAX_ARCHIVE_BYTES,
    MAX_ARCHIVE_MEMBERS,
    MAX_FOLDER_FILES,
    MAX_NESTING,
    MAX_SUBMISSION_BYTES,
    SKIPPED_EXTENSIONS,
    SKIPPED_FILES,
    SKIPPED_FOLDERS,
    Entry,
    InputLimits,
    NotRegularFile,
    collect,
    display_name,
    html_text,
    is_one_file,
    read_regular,
    resolved_path,
    skip_reason,
    too_large,
)
from dicejack.grade.intake.lms_names import (
    GRADESCOPE_METADATA,
    LMS_NAMES,
    MAX_ID_CHARS,
    MAX_METADATA_BYTES,
    MAX_SUBMITTERS,
    MetadataError,
    Student,
    batch_lms,
    blackboard_match,
    canvas_student,
    deciding_name,
    gradescope_students,
    lms_student,
    moodle_student,
    name_matches,
    receipt_reason,
    resolve,
)
from dicejack.grade.outputs.lms import (
    BLACKBOARD_HEADER,
    CANVAS_HEADER,
    DEFAULT_LMS_HOLD,
    GENERIC_HEADER,
    GRADESCOPE_VISIBILITY,
    LMS_FORMATS,
    MAX_SCORE,
    MOODLE_HEADER,
    StudentScore,
    check_gradescope_path,
    check_lms_path,
    format_mismatch,
    gradescope_results,
    is_lms_csv,
    lms_csv,
    lms_format_name,
    lms_hold_reasons,
    student_scores,
    write_gradescope,
    write_lms_csv,
)
from dicejack.grade.outputs.writers import (
    GRADEBOOK_HEADER,
    REVIEW_BELOW,
    check_gradebook_path,
    check_output_path,
    gradebook_csv,
    gradebook_records,
    plain_summary,
    prepare_reports_folder,
    quality_rows,
    report_markdown,
    report_names,
    report_text,
    same_as_any,
    summary_text,
    write_gradebook,
    write_reports,
)
from dicejack.grade.scoring.copied import find_copies, mark_copies
from dicejack.grade.scoring.diagnosis import (
    MODELS,
    UNUSUAL,
    BugModel,
    Diagnosis,
    diagnose,
    mark_diagnosis,
    model_runs,
)
from dicejack.grade.scoring.grading import (
    batch_hint,
    grade_batch,
    grade_entry,
    grade_file,
    grade_tables,
    grade_text,
    worst_states,
)
from dicejack.grade.scoring.record import Grade, WorstState
from dicejack.grade.scoring.rubric import (
    ALPHA_PRINT,
    CONSISTENCY_POINTS,
    EVIDENCE_FLAGS,
    FAIL_FLAGS,
    FLAG_DEDUCTIONS,
    FLAG_HELP,
    FLAG_HINTS,
    FORMAT_POINTS,
    P_FAIL,
    P_INCONSISTENT,
    P_REVIEW,
    PRINT_RULE_FLAGS,
    QUALITY_METRICS,
    QUALITY_POINTS,
    REVIEW_FLAGS,
    SCORE_REVIEW,
    SCORE_STANDS,
    consistency_points,
    percentile_among,
    quality_fraction,
    verdict_for,
)
from dicejack.grade.scoring.students import (
    HOLD_REASONS,
    KEEP,
    file_owner,
    mark_held,
    mark_kept,
    owner_ids,
    parse_hold,
    same_student,
    student_ids,
)
from dicejack.grade.settings import (
    CACHE_VERSION,
    DEFAULT_CALIBRATION,
    DEFAULT_REFERENCES,
    MAX_REFERENCE_GAMES,
    MAX_REFERENCES,
    MIN_REFERENCES,
    REFERENCE_SEED,
    GradeConfig,
    GradeError,
    GradeWarning,
)
from dicejack.grade.site import (
    SITE_MARKER,
    copy_groups,
    index_html,
    page_names,
    prepare_site,
    submission_html,
    write_site,
)

__all__ = [
    "GradeError", "GradeConfig", "References", "Calibration", "calibration", "grade_batch",
    "Consistency", "WorstState", "Grade",
    "GRADEBOOK_HEADER", "MAX_SUBMISSION_BYTES", "DEFAULT_REFERENCES", "DEFAULT_CALIBRATION",
    "REFERENCE_SEED", "MIN_REFERENCES", "MAX_REFERENCES", "CACHE_VERSION", "QUALITY_METRICS",
    "MAX_REFERENCE_GAMES", "GradeWarning",
    "FLAG_HELP", "FLAG_HINTS", "FLAG_DEDUCTIONS", "REVIEW_FLAGS", "FAIL_FLAGS", "FORMAT_POINTS",
    "QUALITY_POINTS", "CONSISTENCY_POINTS", "P_REVIEW", "P_FAIL", "SCORE_REVIEW",
    "EVIDENCE_FLAGS", "SCORE_STANDS", "DEFAULT_LMS_HOLD", "lms_hold_reasons",
    "check_self_check_file", "MODELS", "UNUSUAL", "BugModel", "Diagnosis", "diagnose",
    "mark_diagnosis", "model_runs",
    "USABLE_SHARE", "USABLE_VISITS", "POLICY_SMOOTHING", "POLICY_WEIGHT", "NULL_SD_FLOOR",
    "COPY_DECIMALS", "COPY_MIN_STATES", "COPY_FACTOR", "INLINE_GAMES", "ROUNDING_MATTERS",
    "default_cache_dir", "compute_references", "forget_references", "reference_run",
    "reference_runs", "reference_tie_break",
    "consistency", "statistic_terms", "usable_states", "p_value", "looks_transposed",
    "consistency_points", "quality_fraction", "percentile_among", "verdict_for",
    "grade_tables", "grade_text", "grade_file", "grade_files", "worst_states", "display_name",
    "graded_tables", "graded_learned", "printed_decimals",
    "find_copies", "mark_copies", "pairwise_distances", "table_distance",
    "gradebook_csv", "write_gradebook", "report_markdown", "write_reports", "report_names",
    "summary_text", "plain_summary", "check_gradebook_path", "prepare_reports_folder",
    "Gradebook", "grade_entry", "gradebook_records", "report_text", "check_output_path",
    "MAX_ARCHIVE_BYTES", "MAX_ARCHIVE_MEMBERS", "MAX_FOLDER_FILES", "MAX_NESTING", "Entry",
    "InputLimits", "Student", "collect", "gradescope_students", "html_text", "is_one_file",
    "lms_student", "skip_reason", "SKIPPED_EXTENSIONS", "SKIPPED_FILES", "SKIPPED_FOLDERS",
    "NotRegularFile", "read_regular", "too_large", "same_as_any",
    "GRADESCOPE_VISIBILITY", "LMS_FORMATS", "StudentScore", "gradescope_results", "lms_csv",
    "student_scores", "write_gradescope", "write_lms_csv", "CANVAS_HEADER", "GENERIC_HEADER",
    "MAX_SCORE", "MOODLE_HEADER", "check_gradescope_path", "check_lms_path",
    "GRADESCOPE_METADATA", "receipt_reason", "resolved_path", "LMS_NAMES", "MAX_METADATA_BYTES",
    "MetadataError", "batch_lms", "deciding_name", "name_matches", "resolve",
    "check_inputs_exist", "is_lms_csv", "SITE_MARKER", "copy_groups", "index_html", "page_names",
    "prepare_site", "submission_html", "write_site", "quality_rows",
    "MAX_ID_CHARS", "MAX_SUBMITTERS", "canvas_student", "moodle_student", "blackboard_match",
    "file_owner",
    "HOLD_REASONS", "KEEP", "mark_held", "mark_kept", "owner_ids", "parse_hold", "same_student",
    "student_ids", "BLACKBOARD_HEADER", "lms_format_name", "format_mismatch", "batch_hint",
    "PRINT_RULES", "PrintCheck", "print_check", "rule_statistics", "rule_tables", "SD_FLOOR",
    "CLIP", "BANDWIDTH_FLOOR", "ALPHA_PRINT", "P_INCONSISTENT", "REVIEW_BELOW",
    "PRINT_RULE_FLAGS", "LOW_POWER", "PROBE_RUNS", "PROBES", "SettingPower",
    "setting_power",
]
