"""The rubric: points out of 100 (format, quality, consistency), the verdict and the flags with
their help and hints (docs/grading.md, "Score out of 100", "Flags"). Pure functions of numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from dicejack.grade.evidence.levels import ALPHA_PRINT, P_INCONSISTENT, P_REVIEW
from dicejack.grade.evidence.print_model import PRINT_RULES
from dicejack.grade.settings import Verdict

__all__ = ["FORMAT_POINTS", "QUALITY_POINTS", "CONSISTENCY_POINTS", "P_REVIEW", "ALPHA_PRINT",
           "P_INCONSISTENT", "PRINT_RULE_FLAGS", "EVIDENCE_FLAGS", "SCORE_STANDS",
           "P_FAIL", "SCORE_REVIEW", "QUALITY_METRICS", "FLAG_DEDUCTIONS", "REVIEW_FLAGS",
           "FAIL_FLAGS", "FLAG_HELP", "FLAG_HINTS", "consistency_points", "quality_fraction",
           "percentile_among", "verdict_for"]

FORMAT_POINTS = 10.0
QUALITY_POINTS = 45.0
CONSISTENCY_POINTS = 45.0
#: Only below this p-value is the algorithm judged different (fail, and the consistency points
#: are lost): a faithful program essentially never gets there by chance (docs/grading.md,
#: measured: 0 of 9,500+ faithful outputs).
P_FAIL = 1e-5
SCORE_REVIEW = 80.0
#: (metric, +1 if higher is better else -1, smallest spread): quality metrics of the rubric.
QUALITY_METRICS: tuple[tuple[str, int, float], ...] = (
    ("agreement_decisive", +1, 0.02),
    ("rmse_onpath", -1, 0.005),
    ("score_vs_optimal", +1, 0.005),
)
#: Points taken off the format part per flag; flags not listed here cost nothing.
FLAG_DEDUCTIONS: dict[str, float] = {
    "transposed": 10.0,
    "zero-based-j": 10.0,
    "prob-out-of-range": 4.0,
    "policy-out-of-range": 4.0,
    "data-without-policy": 4.0,
    "no-data": 10.0,
    "policy-not-integer": 4.0,
    "labels-swapped": 2.0,
}
#: The print-only slips' flags (:mod:`dicejack.grade.evidence.print_rules` tests them, in this
#: order).
PRINT_RULE_FLAGS = PRINT_RULES
#: Flags that send a submission to review even when everything else passes.
REVIEW_FLAGS = frozenset(
    {"transposed", "zero-based-j", "prob-out-of-range", "policy-out-of-range",
     "data-without-policy", "no-data",
     "policy-not-integer", "untestable", "inconsistent", "low-quality", "copied",
     "identity-ambiguous", *PRINT_RULE_FLAGS}
)
#: Flags that fail a submission: nothing in the tables can be graded.
FAIL_FLAGS = frozenset({"no-data"})
#: Review flags raised on statistical evidence below the fail level: they never cost points (a
#: correct program gets them by chance), they only ask for a human look.
EVIDENCE_FLAGS = frozenset({"inconsistent", *PRINT_RULE_FLAGS})
#: The rule, as the student reads it (reports and pages) when such evidence sent them to review.
SCORE_STANDS = ("Your score stands; a person will look because {why}. This is not proof of an "
                "error: about 5% of correct programs land in review by chance, and such "
                "evidence never lowers a score.")
#: One line per flag dicejack itself raises (the reader may add its own).
FLAG_HELP: dict[str, str] = {
    "transposed": "the tables fit markedly better transposed (columns = mover's score); "
    "graded transposed back, less the format points",
    "zero-based-j": "J is printed 0-based (0..NDice-1 for 1..NDice dice) and fits markedly "
    "better shifted by one; graded shifted back, less the format points",
    "prob-out-of-range": "probabilities outside [0, 1] that are not a no-data marker",
    "policy-out-of-range": "numbers of dice outside 1..NDice (other than 0 / -1 for no data)",
    "data-without-policy": "states with a probability estimate but no valid number of dice",
    "no-data": "no state has both an estimate and a number of dice",
    "labels-swapped": "the heading above each array names the other one",
    "unlabelled": "neither array has a recognised heading",
    "rows-reordered": "row labels were a permutation of 0..L-1; rows were put in label order",
    "policy-not-integer": "fractional numbers of dice (rounded)",
    "prob-percent": "probabilities printed as percentages (divided by 100)",
    "untestable": "no state has enough reference data for the consistency test",
    "inconsistent": f"consistency p-value below {P_INCONSISTENT:.4f}",
    "low-power": "at these settings probe runs with a wrong M are rarely told from faithful "
    "play: a pass does not rule such bugs out (not a review by itself)",
    "printed-by-wins": "learned like the handout's algorithm, but the printed J looks like the "
    "one with the most wins, not the best estimate",
    "printed-by-plays": "learned like the handout's algorithm, but the printed J looks like the "
    "one played most, not the best estimate",
    "printed-prob-of-most-played": "the printed J looks right, but its probability looks like "
    "the estimate of the J played most",
    "low-quality": "a quality metric earns less than half its points against the reference runs",
    "copied": "the tables are closer to another submission's than independent runs ever are",
    "identity-ambiguous": "the file's name matches two LMSs' patterns and the batch does not "
    "say which LMS it came from (no student is assumed), or two spellings of one id that differ "
    "only in letter case were merged into one student",
    "fixed-output": "grade --run: two runs at the same settings printed identical tables; a "
    "learner playing random games prints different ones every run",
    "m-tenth": "grade --run: every inconsistent run fits the handout's algorithm with M ten "
    "times smaller than the one given",
    "m-tenfold": "grade --run: every inconsistent run fits the handout's algorithm with M ten "
    "times larger than the one given",
    "ignores-settings": "grade --run: a run printed tables of another size than the LTarget it "
    "was given: the program does not use the settings it is run with",
}
#: What to check first, per flag (the per-student report).
FLAG_HINTS: dict[str, str] = {
    "transposed": "print rows as the mover's score X and columns as the opponent's score Y "
    "(table[X][Y]); check that the state you record is <your score, opponent's score>.",
    "zero-based-j": "print J as the number of dice rolled, 1..NDice: if your arrays are "
    "indexed from 0, print index + 1 (and never J = 0, which is never played).",
    "prob-out-of-range": "print WinCount/(WinCount+LoseCount) of the best J, a number in [0, 1], "
    "and -1 where that J has no data.",
    "policy-out-of-range": "print a number of dice 1..NDice (J = 0 is never played).",
    "data-without-policy": "a state with an estimate needs its J in 1..NDice: an argmax over a "
    "row that starts at index 0, or J printed 0-based, gives this.",
    "no-data": "no state has both an estimate and a number of dice: check that the counts are "
    "updated after each game and that the right arrays are printed.",
    "policy-not-integer": "print the number of dice as a whole number.",
    "labels-swapped": "the heading above each array names the other one; swap the headings.",
    "untestable": "too few games for the consistency test; grade by hand or ask for more games.",
    "inconsistent": "compare your p_B and p_J with the handout's worked example (NDice 3, M 4, "
    "state <2,3>: p = 0.1481, 0.5556, 0.2963); check f_J = 0.5 for untried J, float division, "
    "that M is the one asked for, and that every move of both players is recorded as <mover's "
    "score, opponent's score, J> and credited to the game's winner or loser.",
    "printed-by-wins": "print, per state, the J with the highest WinCount/(WinCount+LoseCount), "
    "not the highest WinCount: a J played more often wins more games without being better.",
    "printed-by-plays": "print, per state, the J with the highest WinCount/(WinCount+LoseCount), "
    "not the J played most (the learner plays its current best most, but not always the best "
    "at the end).",
    "printed-prob-of-most-played": "print the probability WinCount/(WinCount+LoseCount) of the "
    "same J you print as best: if the two tables are filled in two loops, check both use the "
    "highest estimate.",
    "low-quality": "the learned policy or estimates are worse than the handout's algorithm gets at "
    "these settings; look at the worst states below.",
    "copied": "the instructor should compare the submissions named under similar_to.",
    "identity-ambiguous": "the instructor should enter this grade by hand: the file's name does "
    "not say whose it is.",
    "fixed-output": "compute the tables from the games played on every run: do not print tables "
    "saved beforehand, and do not seed the random generator with a constant.",
    "m-tenth": "check that M is the one given (read from the input, not a constant) and is not "
    "divided by ten where it is read or used in p_B = (T f_B + M) / (T f_B + K M).",
    "m-tenfold": "check that M is the one given (read from the input, not a constant) and is "
    "not multiplied by ten where it is read or used in p_B = (T f_B + M) / (T f_B + K M).",
    "ignores-settings": "read NSides, LTarget, UTarget, NDice, M and NGames from the input on "
    "every run, and size the tables by the LTarget given, not by constants.",
}


def consistency_points(p: float) -> float:
    """Points of the consistency part: all of them unless p < P_FAIL (strong evidence of a
    different algorithm: none). Evidence below the fail level (P_FAIL <= p < P_INCONSISTENT)
    sends the tables to review but never costs points: the score is what it would be without
    that evidence, since about 5% of correct programs land there by chance. All when the test
    cannot be run (p is NaN; the submission goes to review)."""
    if np.isfinite(p) and p < P_FAIL:
        return 0.0
    return CONSISTENCY_POINTS


def quality_fraction(value: float, reference: np.ndarray, sign: int, floor: float) -> float:
    """Share of one quality metric's points: 1 when the value is no worse than the reference
    runs' 5th percentile (on the bad side), 0 when it falls short of their median by three
    times median - p5 (at least `floor`), linear between. NaN value: 0; no references: 1."""
    ref = np.asarray(reference, dtype=float)
    ref = ref[np.isfinite(ref)]
    if ref.size == 0:
        return 1.0
    if not np.isfinite(value):
        return 0.0
    median = float(np.median(ref))
    p5 = float(np.quantile(ref, 0.05 if sign > 0 else 0.95))
    spread = max(abs(median - p5), floor)
    shortfall = (median - value) * sign / spread
    return float(np.clip((3.0 - shortfall) / 2.0, 0.0, 1.0))


def percentile_among(value: float, reference: np.ndarray, sign: int) -> float:
    """Share (0..100) of reference runs the value is at least as good as."""
    ref = np.asarray(reference, dtype=float)
    ref = ref[np.isfinite(ref)]
    if ref.size == 0 or not np.isfinite(value):
        return math.nan
    return float(100.0 * np.mean(ref * sign <= value * sign))


def verdict_for(score: float, p: float, flags: Iterable[str]) -> Verdict:
    """fail only on evidence: p < P_FAIL (a different algorithm) or a fail flag (no usable
    table); review: p < P_INCONSISTENT, score < SCORE_REVIEW or a review flag (among them the
    print-rule flags, which take the rest of the P_REVIEW level); else pass.

    A low score alone is never a fail: a correct learner sometimes lands in the tail of the
    reference runs (e.g. settles on a wrong J at <0,0>), and chance must not fail anyone."""
    flags = set(flags)
    if (np.isfinite(p) and p < P_FAIL) or FAIL_FLAGS & flags:
        return Verdict.FAIL
    if (np.isfinite(p) and p < P_INCONSISTENT) or score < SCORE_REVIEW or REVIEW_FLAGS & flags:
        return Verdict.REVIEW
    return Verdict.PASS
