"""Grading student outputs: the handout's two printed arrays, against the truth and against
reference runs of the handout's own algorithm.

A student's answer is random, so "does it match mine" is the wrong question. Two right ones:

* **Quality.** The compare metrics of the printed tables (agreement on decisive states, probability
  error on-path, score of the greedy policy against the optimal one), each placed among the same
  metric of R reference learner runs with the same game, M and NGAMES.
* **Consistency.** Could these tables have come from the handout's algorithm at these settings?
  A single statistic measures how far the submission sits from the reference runs; it is
  calibrated on held-out faithful runs scored exactly as a submission is, so its false-alarm
  rate is known.

The statistic (see docs/grading.md). For each *usable* state s (at least 80% of the reference
runs have data there and they visit it at least 10 times on average), with n reference runs:

* the submission's estimate v (-1 when it has none) is ranked among the n reference estimates
  (also -1 where they have none; ties count half): u = (#below + #equal/2 + 1/2) / (n + 1), and
  w = Phi^-1(u) is its normal score, bounded by about 2.1 at n = 30, so no state can dominate;
* the submission's best J (0 = no policy) gets the smoothed reference frequency
  f = (#runs choosing it + 1/2) / (n + (K + 1)/2);
* the state contributes w**2 / 2 + 0.25 * (-log f).

T is the mean contribution over the usable states. Rank scores need no model of the estimates'
distribution (they are discrete where visits are few, and their spread differs from state to state),
and a printed precision coarser than the references' is handled by rounding the references to it.

Calibration: C more faithful runs (held out: seeds after the references') are printed as dicejack
prints and scored against the R references exactly as a submission is, giving C draws of T under
the null hypothesis "a faithful program", given this very reference set (leave-one-out on the
references was measured to underestimate T's spread by 15-25% on some games: their ranks among
each other are constrained, a fresh run's are not). T is positive and right-skewed (its skewness
is close to that of a log-normal with its coefficient of variation), so the p-value is the
Student-t predictive tail of log T: p = P(t_{C-1} > (log T - mean) / (sd * sqrt(1 + 1/C))), mean
and sd of the C values of log T. The rank p-value (1 + #{null >= T}) / (C + 1) is also reported.
Measured on an independent corpus of student programs, the false-alarm rate is nominal
(docs/grading.md).

Submissions are data, never code: they are read as text by :func:`formats.read_submission`;
files over 10 MiB and anything but regular files are refused; every problem with one file becomes
that file's row in the gradebook (status ``error``) while the batch goes on. Output goes only to
the gradebook path and into the reports folder, under sanitised names (and to the reference cache).
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import dataclasses
import functools
import io
import json
import math
import os
import re
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from dicejack import compare, formats, learner, report
from dicejack.compare import METRIC_NAMES, Truth
from dicejack.game import DicejackError, Game

__all__ = [
    "GradeError",
    "GradeConfig",
    "References",
    "Consistency",
    "WorstState",
    "Grade",
    "GRADEBOOK_HEADER",
    "MAX_SUBMISSION_BYTES",
    "DEFAULT_REFERENCES",
    "REFERENCE_SEED",
    "QUALITY_METRICS",
    "FLAG_HELP",
    "default_cache_dir",
    "reference_run",
    "reference_runs",
    "consistency",
    "consistency_points",
    "quality_fraction",
    "verdict_for",
    "grade_tables",
    "graded_tables",
    "graded_learned",
    "reference_tie_break",
    "find_copies",
    "mark_copies",
    "pairwise_distances",
    "table_distance",
    "FLAG_HINTS",
    "grade_file",
    "grade_text",
    "grade_files",
    "gradebook_csv",
    "write_gradebook",
    "report_markdown",
    "write_reports",
    "report_names",
    "summary_text",
]

#: The gradebook's header, exactly as in DESIGN.md.
GRADEBOOK_HEADER: tuple[str, ...] = (
    "submission", "status", "score", "verdict", "consistency_p", "agreement_decisive",
    "rmse_onpath", "score_vs_optimal", "layout", "flags", "error", "similar_to",
)
#: Larger submission files are refused unread.
MAX_SUBMISSION_BYTES = 10 * 2**20
DEFAULT_REFERENCES = 30
#: Held-out faithful runs that calibrate the statistic (scored against the references exactly as
#: a submission is): the null distribution of T given this reference set.
DEFAULT_CALIBRATION = 60
#: Reference run i uses seed REFERENCE_SEED + i (far from the small seeds people try first).
REFERENCE_SEED = 1_000_000
#: Fewer reference runs cannot calibrate anything.
MIN_REFERENCES = 5
MAX_REFERENCES = 10_000
#: Bump when the reference cache's content or meaning changes.
CACHE_VERSION = 3

# ---- the consistency statistic (docs/grading.md, "Consistency")
#: A state is usable when at least this share of the reference runs have data there ...
USABLE_SHARE = 0.8
#: ... and the reference runs visit it at least this often on average.
USABLE_VISITS = 10.0
#: Additive smoothing of the reference policy frequencies.
POLICY_SMOOTHING = 0.5
#: Weight of the policy surprisal against the estimate's w**2 / 2.
POLICY_WEIGHT = 0.25
#: Smallest standard deviation of log T under the null (all reference runs identical).
NULL_SD_FLOOR = 0.02
#: Printed with more decimals than this, rounding does not move the quality metrics measurably.
ROUNDING_MATTERS = 3

# ---- copies (docs/grading.md, "Copies")
#: Tables are compared with their estimates rounded to this many decimals ...
COPY_DECIMALS = 3
#: ... over at least this many states where either has an estimate above 0 ...
COPY_MIN_STATES = 5
#: ... and flagged `copied` when closer than this share of the closest two reference runs.
COPY_FACTOR = 0.5

# ---- the rubric (docs/grading.md, "Score")
FORMAT_POINTS = 10.0
QUALITY_POINTS = 45.0
CONSISTENCY_POINTS = 45.0
P_REVIEW = 0.05
#: Consistency points reach 0 at this p-value ...
P_ZERO = 0.001
#: ... and only below this one is the algorithm judged different (fail): a faithful program
#: essentially never gets there by chance (docs/grading.md, measured).
P_FAIL = 1e-5
SCORE_FAIL = 50.0
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
    "prob-out-of-range": 4.0,
    "policy-out-of-range": 4.0,
    "data-without-policy": 4.0,
    "no-data": 10.0,
    "policy-not-integer": 4.0,
    "labels-swapped": 2.0,
}
#: Flags that send a submission to review even when everything else passes.
REVIEW_FLAGS = frozenset(
    {"transposed", "prob-out-of-range", "policy-out-of-range", "data-without-policy", "no-data",
     "policy-not-integer", "untestable", "inconsistent", "low-quality", "copied"}
)
#: Flags that fail a submission: nothing in the tables can be graded.
FAIL_FLAGS = frozenset({"no-data"})
#: One line per flag dicejack itself raises (the reader may add its own).
FLAG_HELP: dict[str, str] = {
    "transposed": "the tables fit markedly better transposed (columns = mover's score); "
    "graded as printed",
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
    "inconsistent": f"consistency p-value below {P_REVIEW}",
    "low-quality": "a quality metric earns less than half its points against the reference runs",
    "copied": "the tables are closer to another submission's than independent runs ever are",
}
#: What to check first, per flag (the per-student report).
FLAG_HINTS: dict[str, str] = {
    "transposed": "print rows as the mover's score X and columns as the opponent's score Y "
    "(table[X][Y]); check that the state you record is <your score, opponent's score>.",
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
    "low-quality": "the learned policy or estimates are worse than the handout's algorithm gets at "
    "these settings; look at the worst states below.",
    "copied": "the instructor should compare the submissions named under similar_to.",
}


class GradeError(DicejackError):
    """Grading cannot start: bad settings, reports folder or gradebook path."""


# ------------------------------------------------------------------------------ settings
@dataclass(frozen=True)
class GradeConfig:
    """What the submissions were asked to do (game, M, NGAMES) and how to grade them (R runs)."""

    game: Game
    m: float
    games: int
    references: int = DEFAULT_REFERENCES
    seed: int = REFERENCE_SEED
    calibration: int = DEFAULT_CALIBRATION

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise GradeError(f"game must be a Game, got {type(self.game).__name__}")
        try:
            object.__setattr__(self, "m", learner.check_m(self.m, self.game.n_dice))
        except learner.LearnerError as exc:
            raise GradeError(str(exc)) from None
        for name, low, high in (
            ("games", 1, 10**12),
            ("references", MIN_REFERENCES, MAX_REFERENCES),
            ("calibration", MIN_REFERENCES, MAX_REFERENCES),
            ("seed", 0, 2**62),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise GradeError(f"{name} must be a whole number, got {value!r}")
            if not low <= value <= high:
                raise GradeError(f"{name} must be in {low}..{high}, got {value}")
            object.__setattr__(self, name, int(value))

    @property
    def seeds(self) -> tuple[int, ...]:
        """The reference runs' seeds (the held-out calibration runs follow them)."""
        return tuple(range(self.seed, self.seed + self.references))

    @property
    def calibration_seeds(self) -> tuple[int, ...]:
        """The held-out calibration runs' seeds."""
        first = self.seed + self.references
        return tuple(range(first, first + self.calibration))

    def key(self) -> str:
        """File-name-safe cache key: game, M, NGAMES, R, C, base seed, cache version."""
        m = re.sub(r"[^0-9A-Za-z.+-]", "_", format(self.m, ".17g"))
        return (f"refs-{self.game.label()}-m{m}-n{self.games}-r{self.references}"
                f"-c{self.calibration}-s{self.seed}-v{CACHE_VERSION}")

    def describe(self) -> str:
        last = self.seed + self.references + self.calibration - 1
        return (f"{self.game}, M={self.m:g}, NGAMES={self.games:,}; {self.references} reference "
                f"runs and {self.calibration} held-out calibration runs (seeds "
                f"{self.seed}..{last})")


# ------------------------------------------------------------------------------ references
@functools.lru_cache(maxsize=4)
def _truth(params: tuple[int, int, int, int]) -> Truth:
    """The Truth of a game, once per process (executors' workers solve for themselves)."""
    n_sides, low, high, n_dice = params
    return compare.truth(Game(n_sides=n_sides, low=low, high=high, n_dice=n_dice))


def _policy_dtype(n_dice: int) -> np.dtype:
    return np.dtype(np.int16) if n_dice < 2**15 else np.dtype(np.int64)


def reference_tie_break(index: int) -> str:
    """How reference run `index` breaks ties of B in learning: the handout says "arbitrarily",
    so the reference family holds both choices a program makes: the lowest J (even runs) and a
    uniformly random tied J (odd runs)."""
    return "random" if index % 2 else "lowest"


def graded_tables(
    game: Game, policy: Any, probability: Any, no_data: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The printed tables as graded: (J, value, J is valid), each (L, L).

    This is the one rule that makes the grade independent of how a program prints what the
    handout leaves open (docs/grading.md, "What is graded"):

    * value: the printed estimate where it is a number in [0, 1] and not a no-data marker
      (`no_data`: the reader's mask of -1, nan, n/a, ...); **0 everywhere else**. "No data" and
      "estimate 0" (every J lost: handout caveat A) are one graded value, because programs print
      either one as "0 / 0", "J / 0.0" or "-1" and the tables cannot tell them apart;
    * J: the printed number of dice where the value is above 0 and the J is a whole number in
      1..NDice; 0 elsewhere: beside "no data or estimate 0" any J may be printed (the handout's
      tie-break J, a random J, 0, -1), so it carries no information and is not graded;
    * valid: the printed J is a whole number in 1..NDice (for the format flags).
    """
    prob = np.asarray(probability, dtype=np.float64)
    pol = np.asarray(policy, dtype=np.float64)
    mask = (prob == -1) if no_data is None else np.asarray(no_data, dtype=bool)
    valid = np.isfinite(pol) & (pol == np.round(pol)) & (pol >= 1) & (pol <= game.n_dice)
    est = ~mask & np.isfinite(prob) & (prob >= 0) & (prob <= 1)
    value = np.where(est, prob, 0.0)
    j = np.where(valid & (value > 0), pol, 0).astype(np.int64)
    return j, value, valid


def graded_learned(game: Game, policy: np.ndarray, value: np.ndarray, source: str = ""
                   ) -> compare.Learned:
    """Graded tables (:func:`graded_tables`) as compare's Learned: a state has data where its
    value is above 0 and its J is valid, so the quality metrics obey the same rule."""
    has = (policy >= 1) & (value > 0)
    return compare.learned_from_tables(game, np.where(has, policy, 0),
                                       np.where(has, value, -1.0), source=source)


def reference_run(
    params: tuple[int, int, int, int], m: float, games: int, seed: int,
    tie_break: str = "lowest",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """One reference learner run: (best, probability, tied, visits, metrics, CPU seconds).

    Top-level and given plain values only: this is what executors run. best is the lowest J of
    the tied set `tied` ((L, L, K + 1), :func:`learner.tied_best`); visits[x, y] is T, the
    number of times any J was played in <x, y>; metrics follow compare.METRIC_NAMES, of the
    tables as graded (:func:`graded_tables`).
    """
    t0 = time.thread_time()
    t = _truth(tuple(params))
    run = learner.learn(t.game, m, games, seed, tie_break=tie_break)
    best, prob = learner.learned_tables(run.win, run.lose)
    tied = learner.tied_best(run.win, run.lose)
    visits = run.win.sum(axis=2) + run.lose.sum(axis=2)
    j, value, _ = graded_tables(t.game, best, prob)
    metrics = compare.metric_values(t, graded_learned(t.game, j, value))
    return (
        best.astype(_policy_dtype(t.game.n_dice)), prob, tied, visits.astype(np.int64),
        np.array([metrics[name] for name in METRIC_NAMES]), time.thread_time() - t0,
    )


@dataclass(frozen=True, eq=False)
class References:
    """R reference runs of the handout's learner, and what grading derives from them.

    best (R, L, L): lowest best J per state, 0 where no data; probability (R, L, L): its
    estimate, -1 where no data; tied (R, L, L, K + 1): every J tied for best; visits (R, L, L):
    T per state; metrics (R, len(METRIC_NAMES)) of the graded tables. held_best and
    held_probability (C, L, L): the held-out calibration runs' tables, whose statistics against
    the R references are the null distribution. source says where they came from ("computed",
    "disk cache" or "memory"); cpu_seconds is what computing them cost.
    """

    config: GradeConfig
    best: np.ndarray
    probability: np.ndarray
    tied: np.ndarray
    visits: np.ndarray
    metrics: np.ndarray
    held_best: np.ndarray
    held_probability: np.ndarray
    source: str = "computed"
    cpu_seconds: float = 0.0

    @property
    def game(self) -> Game:
        return self.config.game

    @cached_property
    def truth(self) -> Truth:
        g = self.game
        return _truth((g.n_sides, g.low, g.high, g.n_dice))

    def metric(self, name: str, decimals: int | None = None) -> np.ndarray:
        """The R reference values of one metric, with the estimates printed to `decimals`."""
        return self.metrics_at(decimals)[:, METRIC_NAMES.index(name)]

    def metrics_at(self, decimals: int | None) -> np.ndarray:
        """(R, metrics) of the reference tables rounded to `decimals` as a submission printed
        them (coarse printing moves the probability error; finer than 4 decimals does not)."""
        if decimals is None or decimals > ROUNDING_MATTERS:
            return self.metrics
        key = ("metrics", decimals)
        if key not in self._by_decimals:
            rows = []
            for r in range(self.best.shape[0]):
                value = self.values_at(decimals)[r]
                j = np.where(value > 0, self.best[r], 0).astype(np.int64)
                m = compare.metric_values(self.truth, graded_learned(self.game, j, value))
                rows.append([m[name] for name in METRIC_NAMES])
            self._by_decimals[key] = np.array(rows)
        return self._by_decimals[key]

    @cached_property
    def _by_decimals(self) -> dict[tuple[str, int | None], Any]:
        return {}

    @cached_property
    def has_data(self) -> np.ndarray:
        return self.best >= 1

    @cached_property
    def values(self) -> np.ndarray:
        """Graded values: the estimate, 0 where a run has no data (:func:`graded_tables`)."""
        return np.where(self.has_data, self.probability, 0.0)

    def values_at(self, decimals: int | None) -> np.ndarray:
        """Graded values rounded to `decimals` (as printed with that many decimals)."""
        if decimals is None:
            return self.values
        key = ("values", decimals)
        if key not in self._by_decimals:
            self._by_decimals[key] = np.round(self.values, decimals)
        return self._by_decimals[key]

    @cached_property
    def usable(self) -> np.ndarray:
        """(L, L) states with enough reference data for the consistency statistic."""
        return _usable(self.has_data.sum(axis=0), self.visits.sum(axis=0), self.config.references)

    @cached_property
    def policy_counts(self) -> np.ndarray:
        """(L, L, K + 1): number of runs whose lowest best J is each J (index 0: no data)."""
        k = self.game.n_dice
        return np.stack([(self.best == j).sum(axis=0) for j in range(k + 1)], axis=-1)

    def agree_counts(self, decimals: int | None = None) -> np.ndarray:
        """(L, L, K + 1): number of runs a printed J agrees with: runs whose tied best set holds
        J, and runs whose graded value is 0 (no data or every J lost: any J is allowed there).
        Index 0 (an invalid J beside an estimate) counts only the latter."""
        key = ("agree", decimals)
        if key not in self._by_decimals:
            free = self.values_at(decimals) == 0
            self._by_decimals[key] = (self.tied | free[..., None]).sum(axis=0)
        return self._by_decimals[key]

    @cached_property
    def mean(self) -> np.ndarray:
        """(L, L) mean estimate over the runs with data (NaN where none has data)."""
        n = self.has_data.sum(axis=0)
        total = np.where(self.has_data, self.probability, 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, total / np.maximum(n, 1), np.nan)

    @property
    def null(self) -> np.ndarray:
        """The null statistics at full precision; see :meth:`null_at`."""
        return self.null_at(None)

    def null_at(self, decimals: int | None) -> np.ndarray:
        """T of each held-out calibration run, printed as dicejack prints (lowest tied J) with
        `decimals` decimals, scored against the R references exactly as a submission is: draws
        of T under "a faithful program", given this reference set."""
        key = ("null", decimals)
        if key not in self._by_decimals:
            out = np.empty(self.held_best.shape[0])
            for c in range(out.size):
                value = np.where(self.held_best[c] >= 1, self.held_probability[c], 0.0)
                if decimals is not None:
                    value = np.round(value, decimals)
                policy = np.where(value > 0, self.held_best[c], 0).astype(np.int64)
                per, _ = statistic_terms(self, policy, value, decimals)
                out[c] = per[self.usable].mean() if self.usable.any() else np.nan
            self._by_decimals[key] = out
        return self._by_decimals[key]

    @property
    def null_fit(self) -> tuple[float, float, int]:
        return self.null_fit_at(None)

    def null_fit_at(self, decimals: int | None) -> tuple[float, float, int]:
        """(mean, sd, count) of log T over the finite null statistics."""
        null = self.null_at(decimals)
        null = null[np.isfinite(null) & (null > 0)]
        if null.size < 2:
            return (math.nan, math.nan, int(null.size))
        logs = np.log(null)
        return (float(logs.mean()), max(float(logs.std(ddof=1)), NULL_SD_FLOOR), int(null.size))

    def quantile(self, name: str, q: float | Sequence[float], decimals: int | None = None
                 ) -> np.ndarray:
        values = self.metric(name, decimals)
        values = values[np.isfinite(values)]
        if values.size == 0:
            return np.full(np.shape(q), np.nan)
        return np.quantile(values, q)

    @cached_property
    def copy_distance(self) -> float:
        """The smallest :func:`table_distance` between two independent reference runs (their
        estimates printed to 3 decimals): learned tables are random, so no two honest outputs
        come closer than independent runs ever do."""
        values = np.round(self.values, COPY_DECIMALS)
        d = pairwise_distances(values)
        upper = d[np.triu_indices(d.shape[0], 1)]
        upper = upper[np.isfinite(upper)]
        return float(upper.min()) if upper.size else math.nan


def _usable(n_with_data: np.ndarray, visits_total: np.ndarray, n: int) -> np.ndarray:
    need = max(3, math.ceil(USABLE_SHARE * n - 1e-9))
    return (n_with_data >= need) & (visits_total >= USABLE_VISITS * n)


def _contributions(
    less: np.ndarray, equal: np.ndarray, agreeing: np.ndarray, has_estimate: np.ndarray, n: int
) -> np.ndarray:
    """Per-state w**2/2 + POLICY_WEIGHT * (-log f): w the normal score of the value's rank,
    f = (agreeing + 1/2) / (n + 1) the smoothed share of runs the printed J agrees with; the
    policy term only where the submission has an estimate above 0 (elsewhere any J is allowed)."""
    from scipy.special import ndtri

    u = (less + 0.5 * equal + 0.5) / (n + 1)
    w = ndtri(u)
    f = (agreeing + POLICY_SMOOTHING) / (n + 2 * POLICY_SMOOTHING)
    return 0.5 * w * w - POLICY_WEIGHT * np.where(has_estimate, np.log(f), 0.0)


def pairwise_distances(values: np.ndarray) -> np.ndarray:
    """(N, N) :func:`table_distance` between N graded value tables (N, L, L), in blocks."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    out = np.full((n, n), np.nan)
    step = max(1, 2_000_000 // max(1, n * flat.shape[1]))
    for start in range(0, n, step):
        a = flat[start:start + step, None, :]
        either = (a > 0) | (flat[None, :, :] > 0)
        count = either.sum(axis=-1)
        diff = np.where(either, np.abs(a - flat[None, :, :]), 0.0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start:start + step] = np.where(count >= COPY_MIN_STATES, diff / count, np.nan)
    return out


def table_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean |a - b| of two graded value tables over the states where either has an estimate
    above 0 (NaN when fewer than COPY_MIN_STATES such states)."""
    return float(pairwise_distances(np.stack([a, b]))[0, 1])


def default_cache_dir() -> Path:
    """$DICEJACK_CACHE/grade, else $XDG_CACHE_HOME/dicejack/grade, else ~/.cache/dicejack/grade."""
    root = os.environ.get("DICEJACK_CACHE")
    if root:
        return Path(root) / "grade"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "dicejack" / "grade"


#: References computed or loaded in this process, by GradeConfig.key().
_MEMO: dict[str, References] = {}

_ARRAYS = ("best", "probability", "tied", "visits", "metrics", "held_best", "held_probability")


def _load_cached(path: Path, config: GradeConfig) -> References | None:
    """References from a cache file, or None when it is missing, corrupt or for other settings."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            data = {key: npz[key] for key in npz.files}
        meta = json.loads(str(data["meta"]))
        shape = (config.references, *config.game.shape)
        if (meta != _cache_meta(config) or data["best"].shape != shape
                or data["probability"].shape != shape or data["visits"].shape != shape
                or data["tied"].shape != (*shape, config.game.n_dice + 1)
                or data["metrics"].shape != (config.references, len(METRIC_NAMES))
                or data["held_best"].shape != (config.calibration, *config.game.shape)
                or data["held_probability"].shape != data["held_best"].shape):
            return None
        return References(config, data["best"], data["probability"].astype(np.float64),
                          data["tied"].astype(bool), data["visits"].astype(np.int64),
                          data["metrics"].astype(np.float64), data["held_best"],
                          data["held_probability"].astype(np.float64), source="disk cache")
    except Exception:  # noqa: BLE001 - any unreadable cache file is simply recomputed
        return None


def _cache_meta(config: GradeConfig) -> dict[str, Any]:
    return {"params": config.game.params(), "m": config.m, "games": config.games,
            "references": config.references, "calibration": config.calibration,
            "seed": config.seed, "version": CACHE_VERSION, "metrics": list(METRIC_NAMES)}


#: Reference work (runs x games) up to which the runs are played in-process by default: a
#: process pool costs more to start than these take (the handout's game at 100,000 games plays
#: about 8 million games a second per core).
INLINE_GAMES = 5_000_000


def reference_runs(
    config: GradeConfig,
    *,
    cache_dir: str | os.PathLike[str] | None | bool = None,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> References:
    """The R reference runs of `config`: from memory, from the disk cache, or computed.

    cache_dir: a folder, None for :func:`default_cache_dir`, or False for no disk cache.
    Computed runs go through `executor`, else :func:`dicejack.report.open_executor` (workers,
    dask); by default in-process when the work is small (:data:`INLINE_GAMES`).
    """
    key = config.key()
    if key in _MEMO and _MEMO[key].config == config:
        memo = _MEMO[key]
        refs = References(config, *(getattr(memo, name) for name in _ARRAYS), source="memory")
        fields = {f.name for f in dataclasses.fields(References)}
        refs.__dict__.update({k: v for k, v in memo.__dict__.items() if k not in fields})
        return refs
    path = None
    if cache_dir is not False:
        folder = default_cache_dir() if cache_dir is None or cache_dir is True else Path(cache_dir)
        path = folder / f"{key}.npz"
        if path.is_file():
            cached = _load_cached(path, config)
            if cached is not None:
                _MEMO[key] = cached
                return cached
    refs = _compute(config, workers=workers, dask=dask, executor=executor, progress=progress)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            formats.savez_atomic(path, meta=np.array(json.dumps(_cache_meta(config))),
                                 **{name: getattr(refs, name) for name in _ARRAYS})
        except (OSError, DicejackError):
            pass  # a cache we cannot write only costs time
    _MEMO[key] = refs
    return refs


def _compute(
    config: GradeConfig, *, workers: int | None, dask: str | None,
    executor: cf.Executor | None, progress: bool,
) -> References:
    g = config.game
    params = (g.n_sides, g.low, g.high, g.n_dice)
    if executor is None and dask is None and workers is None:
        workers = 1 if config.references * config.games <= INLINE_GAMES else None
    if executor is None and dask is None and workers != 1:
        reference_run(params, config.m, 1, 0)  # compile once before workers fork
    seeds = config.seeds + config.calibration_seeds
    rows = report.map_tasks(
        reference_run,
        [(params, config.m, config.games, s, reference_tie_break(i)) for i, s in enumerate(seeds)],
        workers=workers, dask=dask, executor=executor, label="reference runs", progress=progress,
    )
    refs, held = rows[: config.references], rows[config.references:]
    return References(
        config, *(np.stack([r[i] for r in refs]) for i in range(5)),
        held_best=np.stack([r[0] for r in held]), held_probability=np.stack([r[1] for r in held]),
        source="computed", cpu_seconds=float(sum(r[-1] for r in rows)),
    )


# ------------------------------------------------------------------------------ consistency
@dataclass(frozen=True, eq=False)
class Consistency:
    """How far a submission sits from the reference runs (module docstring).

    statistic: T; p_value: from the log-t fit of the leave-one-out null; p_rank: the rank
    p-value (1 + #{null >= T}) / (R + 1); usable: number of usable states; per_state: (L, L)
    contributions (NaN off the usable set); score: (L, L) signed normal score w of the estimate
    (NaN off the usable set); decimals: the printed precision the references were rounded to.
    """

    statistic: float
    p_value: float
    p_rank: float
    usable: int
    null_mean: float
    null_sd: float
    per_state: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    decimals: int | None = None


def printed_decimals(values: np.ndarray, limit: int = 6) -> int | None:
    """The fewest decimals that reproduce every value (None when more than `limit` are used)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    for d in range(limit + 1):
        scaled = v * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1.0, np.abs(scaled))):
            return d
    return None


def statistic_terms(
    refs: References, policy: np.ndarray, value: np.ndarray, decimals: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """(contribution c(s), normal score w) per state of graded tables against the R references
    (every state; the statistic uses the usable ones). The one place the statistic is computed,
    for submissions and for the calibration runs alike."""
    from scipy.special import ndtri

    n = refs.best.shape[0]
    values = refs.values_at(decimals)
    less = (values < value).sum(axis=0)
    equal = (values == value).sum(axis=0)
    agreeing = np.take_along_axis(refs.agree_counts(decimals), policy[..., None], axis=-1)[..., 0]
    per = _contributions(less, equal, agreeing, value > 0, n)
    return per, ndtri((less + 0.5 * equal + 0.5) / (n + 1))


def consistency(
    refs: References, policy: np.ndarray, value: np.ndarray, decimals: int | None = None
) -> Consistency:
    """Score graded tables (:func:`graded_tables`: policy J per state, 0 = none; value: the
    estimate, 0 = none; a -1 is read as 0) against all R reference runs. With `decimals`, the
    reference estimates are rounded to that many decimals first, as the submission's were when
    printed, and the null is that of the calibration runs printed likewise."""
    value = np.maximum(np.asarray(value, dtype=np.float64), 0.0)
    policy = np.where(value > 0, np.asarray(policy), 0).astype(np.int64)
    policy = np.where((policy >= 0) & (policy <= refs.game.n_dice), policy, 0)
    per, score = statistic_terms(refs, policy, value, decimals)
    usable = refs.usable
    score = np.where(usable, score, np.nan)
    per = np.where(usable, per, np.nan)
    null = refs.null_at(decimals)
    null = null[np.isfinite(null)]
    if not usable.any() or null.size < 2:
        t = p = p_rank = math.nan
    else:
        t = float(np.nanmean(per))
        p = _p_value(t, refs.null_fit_at(decimals))
        p_rank = float((1 + np.sum(null >= t)) / (null.size + 1))
    return Consistency(
        statistic=t, p_value=p, p_rank=p_rank, usable=int(usable.sum()),
        null_mean=float(null.mean()) if null.size else math.nan,
        null_sd=float(null.std(ddof=1)) if null.size > 1 else math.nan,
        per_state=per, score=score, decimals=decimals,
    )


def _p_value(t: float, fit: tuple[float, float, int]) -> float:
    """Student-t predictive tail of log T (module docstring)."""
    from scipy import stats

    mean, sd, n = fit
    if not (np.isfinite(t) and t > 0 and n >= 2):
        return math.nan
    return float(stats.t.sf((math.log(t) - mean) / (sd * math.sqrt(1.0 + 1.0 / n)), n - 1))


def _looks_transposed(
    refs: References, policy: np.ndarray, value: np.ndarray, decimals: int | None,
    as_printed: Consistency,
) -> bool:
    """True when the transposed tables fit the reference runs (or, without usable states, the
    truth) markedly better than the tables as printed: T's excess over the null mean at most
    half as large, and smaller by more than 4 null standard deviations."""
    c = as_printed
    if np.isfinite(c.statistic) and np.isfinite(c.null_mean):
        flipped = consistency(refs, policy.T, value.T, decimals).statistic
        sd = max(c.null_sd if np.isfinite(c.null_sd) else 0.0, NULL_SD_FLOOR * c.null_mean)
        excess, flipped_excess = c.statistic - c.null_mean, flipped - c.null_mean
        return bool(flipped_excess < 0.5 * excess and excess - flipped_excess > 4 * sd)
    p_star = refs.truth.solution.p
    reach = refs.truth.reachable

    def error(v: np.ndarray) -> float:
        mask = (v > 0) & reach
        return float(np.abs(v - p_star)[mask].mean()) if mask.any() else math.nan

    straight, flipped = error(value), error(value.T)
    return bool(np.isfinite(straight) and np.isfinite(flipped) and flipped < 0.5 * straight
                and straight - flipped > 0.05)
# ------------------------------------------------------------------------------ the rubric
def consistency_points(p: float) -> float:
    """Points of the consistency part: all at p >= P_REVIEW, none at p <= P_ZERO, linear in
    log p between; all when the test cannot be run (p is NaN; the submission goes to review)."""
    if not np.isfinite(p):
        return CONSISTENCY_POINTS
    if p >= P_REVIEW:
        return CONSISTENCY_POINTS
    if p <= P_ZERO:
        return 0.0
    return CONSISTENCY_POINTS * math.log(p / P_ZERO) / math.log(P_REVIEW / P_ZERO)


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


def _percentile(value: float, reference: np.ndarray, sign: int) -> float:
    """Share (0..100) of reference runs the value is at least as good as."""
    ref = np.asarray(reference, dtype=float)
    ref = ref[np.isfinite(ref)]
    if ref.size == 0 or not np.isfinite(value):
        return math.nan
    return float(100.0 * np.mean(ref * sign <= value * sign))


def verdict_for(score: float, p: float, flags: Iterable[str]) -> str:
    """fail only on evidence: p < P_FAIL (a different algorithm) or a fail flag (no usable
    table); review: p < P_REVIEW, score < SCORE_REVIEW or a review flag; else pass.

    A low score alone is never a fail: a correct learner sometimes lands in the tail of the
    reference runs (e.g. settles on a wrong J at <0,0>), and chance must not fail anyone."""
    flags = set(flags)
    if (np.isfinite(p) and p < P_FAIL) or FAIL_FLAGS & flags:
        return "fail"
    if (np.isfinite(p) and p < P_REVIEW) or score < SCORE_REVIEW or REVIEW_FLAGS & flags:
        return "review"
    return "pass"


# ------------------------------------------------------------------------------ one grade
@dataclass(frozen=True)
class WorstState:
    """A usable state where the submission is least like the reference runs."""

    x: int
    y: int
    contribution: float
    estimate: float  # graded value: 0 = no data or estimate 0
    reference_mean: float
    reference_low: float  # 5th percentile of the reference estimates with data
    reference_high: float  # 95th percentile
    policy: int  # 0 = none graded
    policy_share: float  # share of reference runs the printed J agrees with
    optimal: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Grade:
    """The grade of one submission (a gradebook row, plus what its report shows).

    policy / probability: the tables as graded (:func:`graded_tables`). similar_to: the other
    submissions of the batch it looks copied from or to (flag ``copied``). what_if: the score
    the tables would get if fixed (``"transposed back"``, ``"J shifted by one"``), when a flag
    suggests it.
    """

    submission: str
    status: str  # "ok" | "error"
    score: float = 0.0
    verdict: str = "fail"
    consistency: Consistency | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    points: dict[str, float] = field(default_factory=dict)
    percentiles: dict[str, float] = field(default_factory=dict)
    layout: str = ""
    flags: tuple[str, ...] = ()
    error: str = ""
    notes: str = ""
    worst: tuple[WorstState, ...] = ()
    policy: np.ndarray | None = field(default=None, repr=False)
    probability: np.ndarray | None = field(default=None, repr=False)
    similar_to: tuple[str, ...] = ()
    what_if: dict[str, float] = field(default_factory=dict)
    decimals: int | None = None

    @property
    def consistency_p(self) -> float:
        return self.consistency.p_value if self.consistency is not None else math.nan


def _as_table(game: Game, name: str, a: Any) -> np.ndarray:
    arr = np.asarray(a, dtype=np.float64)
    if arr.shape != game.shape:
        raise GradeError(f"the {name} table is {'x'.join(map(str, arr.shape))}, "
                         f"not {game.low}x{game.low}")
    return arr


def grade_tables(
    refs: References,
    policy: Any,
    probability: Any,
    *,
    no_data: Any = None,
    layout: str = "",
    flags: Sequence[str] = (),
    submission: str = "",
    notes: str = "",
    worst: int = 10,
    what_if: bool = True,
) -> Grade:
    """Grade the two printed arrays (policy, probability), as found, against `refs`.

    no_data: the reader's mask of probability cells that are no-data markers (-1 where None).
    flags: the reader's flags; grading adds its own (:data:`FLAG_HELP`). what_if: for a
    `transposed` or 0-based-looking submission, also grade the tables fixed (Grade.what_if).
    """
    game = refs.game
    pol = _as_table(game, "policy", policy)
    prob = _as_table(game, "probability", probability)
    mask = (prob == -1) if no_data is None else np.asarray(no_data, dtype=bool)
    if mask.shape != game.shape:
        raise GradeError("the no-data mask does not match the tables")
    flags_out = list(dict.fromkeys(str(f) for f in flags))

    def flag(name: str) -> None:
        if name not in flags_out:
            flags_out.append(name)

    j, value, valid_j = graded_tables(game, pol, prob, mask)
    if np.any(~mask & ~np.isnan(prob) & ((prob < 0) | (prob > 1))) or np.any(
        ~mask & np.isnan(prob)
    ):
        flag("prob-out-of-range")
    no_policy = np.isfinite(pol) & ((pol == 0) | (pol == -1))
    if np.any(~valid_j & ~no_policy):
        flag("policy-out-of-range")
    if np.any((value > 0) & ~valid_j):
        flag("data-without-policy")
    if not np.any(j >= 1):
        flag("no-data")

    decimals = printed_decimals(value[value > 0])
    cons = consistency(refs, j, value, decimals)
    if _looks_transposed(refs, j, value, decimals, cons):
        flag("transposed")
    if not np.isfinite(cons.p_value):
        flag("untestable")
    elif cons.p_value < P_REVIEW:
        flag("inconsistent")

    metrics = compare.metric_values(refs.truth, graded_learned(game, j, value, submission))
    quality = 0.0
    percentiles: dict[str, float] = {}
    per_metric = QUALITY_POINTS / len(QUALITY_METRICS)
    for name, sign, floor in QUALITY_METRICS:
        reference = refs.metric(name, decimals)
        frac = quality_fraction(metrics[name], reference, sign, floor)
        quality += per_metric * frac
        percentiles[name] = _percentile(metrics[name], reference, sign)
        if frac < 0.5:
            flag("low-quality")
    fmt = max(0.0, FORMAT_POINTS - sum(FLAG_DEDUCTIONS.get(f, 0.0) for f in flags_out))
    cpoints = consistency_points(cons.p_value)
    score = round(fmt + quality + cpoints, 1)
    points = {"format": fmt, "quality": quality, "consistency": cpoints}
    fixes: dict[str, float] = {}
    if what_if and "transposed" in flags_out:
        fixes["transposed back"] = grade_tables(
            refs, pol.T, prob.T, no_data=mask.T, what_if=False, worst=0).score
    if what_if and "data-without-policy" in flags_out:
        shifted = np.where(np.isfinite(pol), pol + 1, pol)
        fixes["J shifted by one"] = grade_tables(
            refs, shifted, prob, no_data=mask, what_if=False, worst=0).score
    return Grade(
        submission=submission, status="ok", score=score,
        verdict=verdict_for(score, cons.p_value, flags_out), consistency=cons, metrics=metrics,
        points=points, percentiles=percentiles, layout=layout, flags=tuple(flags_out),
        notes=notes, worst=_worst_states(refs, j, value, cons, worst), policy=j, probability=value,
        what_if=fixes, decimals=decimals,
    )


def _worst_states(
    refs: References, policy: np.ndarray, value: np.ndarray, cons: Consistency, limit: int
) -> tuple[WorstState, ...]:
    per = np.where(np.isfinite(cons.per_state), cons.per_state, -np.inf)
    order = np.argsort(-per, axis=None, kind="stable")[:limit]
    rows = []
    optimal = refs.truth.solution.optimal
    values = refs.values_at(cons.decimals)
    for flat in order:
        x, y = (int(v) for v in np.unravel_index(flat, per.shape))
        if not np.isfinite(per[x, y]):
            break
        with_data = refs.has_data[:, x, y]
        est = refs.probability[with_data, x, y]
        lo, hi = (np.quantile(est, [0.05, 0.95]) if est.size else (math.nan, math.nan))
        j = int(policy[x, y])
        agree = (values[:, x, y] == 0) | (refs.tied[:, x, y, j] if j >= 1 else False)
        rows.append(WorstState(
            x=x, y=y, contribution=float(per[x, y]), estimate=float(value[x, y]),
            reference_mean=float(refs.mean[x, y]), reference_low=float(lo),
            reference_high=float(hi), policy=j,
            policy_share=float(np.mean(agree)) if j >= 1 else math.nan,
            optimal=tuple(int(v) for v in np.flatnonzero(optimal[x, y])),
        ))
    return tuple(rows)


# ------------------------------------------------------------------------------ copies
def find_copies(refs: References, grades: Sequence[Grade]) -> list[tuple[str, ...]]:
    """For each graded submission, the others whose tables are closer to it than any two
    independent reference runs are to each other (COPY_FACTOR x refs.copy_distance), with the
    estimates of both rounded to COPY_DECIMALS (or the coarser printed precision of the two)."""
    names = [g.submission for g in grades]
    out: list[list[str]] = [[] for _ in grades]
    ok = [i for i, g in enumerate(grades) if g.status == "ok" and g.probability is not None]
    threshold = COPY_FACTOR * refs.copy_distance
    if len(ok) < 2 or not np.isfinite(threshold) or threshold <= 0:
        return [tuple(s) for s in out]
    level = {i: COPY_DECIMALS if grades[i].decimals is None
             else min(grades[i].decimals, COPY_DECIMALS) for i in ok}
    for d in sorted(set(level.values())):
        group = [i for i in ok if level[i] >= d]  # each pair at the coarser of its two precisions
        dist = pairwise_distances(np.stack([np.round(grades[i].probability, d) for i in group]))
        levels = np.array([level[i] for i in group])
        close = np.triu((dist < threshold) & (np.minimum.outer(levels, levels) == d), 1)
        for a, b in zip(*np.nonzero(close), strict=True):
            if names[group[a]] == names[group[b]]:
                continue  # the same file given twice
            out[group[a]].append(names[group[b]])
            out[group[b]].append(names[group[a]])
    return [tuple(dict.fromkeys(s)) for s in out]


def mark_copies(refs: References, grades: Sequence[Grade]) -> list[Grade]:
    """The grades with `copied` flagged and `similar_to` filled (:func:`find_copies`); a copied
    submission goes to review (the verdict is the instructor's)."""
    out = []
    for g, similar in zip(grades, find_copies(refs, grades), strict=True):
        if similar:
            flags = (*g.flags, "copied") if "copied" not in g.flags else g.flags
            g = dataclasses.replace(g, flags=flags, similar_to=similar,
                                    verdict=verdict_for(g.score, g.consistency_p, flags))
        out.append(g)
    return out


# ------------------------------------------------------------------------------ files
def _one_line(text: object) -> str:
    line = " ".join(str(text).split())
    return line[:500] if line else "unknown error"


def grade_file(refs: References, path: str | os.PathLike[str], *, name: str | None = None
               ) -> Grade:
    """Grade one submission file. Never raises for a bad file: its Grade says why (status
    error). Only regular files of at most MAX_SUBMISSION_BYTES are read, and only as data."""
    label = str(path) if name is None else name
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        return _error(label, f"cannot read {label}: {exc.strerror or 'no such file'}")
    except ValueError as exc:  # e.g. a NUL byte in the name
        return _error(label, f"cannot read {label}: {exc}")
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        return _error(label, f"cannot read {label}: {kind}")
    if st.st_size > MAX_SUBMISSION_BYTES:
        return _error(label, f"refused {label}: {st.st_size / 2**20:.1f} MiB, over the "
                             f"{MAX_SUBMISSION_BYTES // 2**20} MiB limit")
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_SUBMISSION_BYTES + 1)
    except OSError as exc:
        return _error(label, f"cannot read {label}: {exc.strerror or exc}")
    return grade_text(refs, data, name=label)


def grade_text(refs: References, text: str | bytes, *, name: str = "submission") -> Grade:
    """Grade a submission's printed output (text, or undecoded bytes) as :func:`grade_file`
    does a file's. Never raises for bad content: its Grade says why (status error)."""
    label = name
    try:
        sub = formats.read_submission_text(text, refs.game.low, refs.game.n_dice)
        return grade_tables(
            refs, sub.policy, sub.probability, no_data=sub.no_data, layout=sub.layout,
            flags=sub.flags, submission=label, notes=sub.notes,
        )
    except DicejackError as exc:
        return _error(label, _one_line(exc))
    except (KeyboardInterrupt, SystemExit):
        raise
    except MemoryError:
        return _error(label, f"cannot read {label}: out of memory")
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the batch
        return _error(label, f"cannot grade {label}: internal error "
                             f"({type(exc).__name__}: {_one_line(exc)})")


def _error(label: str, message: str) -> Grade:
    return Grade(submission=label, status="error", score=0.0, verdict="fail",
                 error=_one_line(message))


def _check_out(out: Path | None) -> None:
    if out is None:
        return
    if out.is_dir():
        raise GradeError(f"--out {out} is a folder; give a file name such as gradebook.csv")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise GradeError(f"cannot write {out}: folder {folder} does not exist")


def _check_reports(folder: Path | None) -> None:
    if folder is None:
        return
    if folder.exists() and not folder.is_dir():
        raise GradeError(f"--reports {folder} exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GradeError(f"cannot create the reports folder {folder}: "
                         f"{exc.strerror or exc}") from None


def grade_files(
    config: GradeConfig,
    paths: Sequence[str | os.PathLike[str]],
    *,
    out: str | os.PathLike[str] | None = None,
    reports: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None | bool = None,
    workers: int | None = None,
    dask: str | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
) -> tuple[References, list[Grade]]:
    """Grade every file of `paths` (in order; duplicates graded once each), then write the
    gradebook to `out` and one report per submission into `reports`, when given.

    Bad settings or output paths raise GradeError before any work; bad files become rows.
    """
    out_path = Path(out) if out is not None else None
    report_dir = Path(reports) if reports is not None else None
    _check_out(out_path)
    _check_reports(report_dir)
    if not paths:
        raise GradeError("no submissions to grade")
    refs = reference_runs(config, cache_dir=cache_dir, workers=workers, dask=dask,
                          executor=executor, progress=progress)
    refs.null  # noqa: B018 - the null at full precision, once, before the batch
    grades: list[Grade] = []
    advance, stop = report.progress_bar("grading", len(paths), progress)
    try:
        for path in paths:
            grades.append(grade_file(refs, path))
            advance()
    finally:
        stop()
    grades = mark_copies(refs, grades)
    if out_path is not None:
        write_gradebook(out_path, grades)
    if report_dir is not None:
        write_reports(refs, grades, report_dir, progress=progress)
    return refs, grades


# ------------------------------------------------------------------------------ gradebook
def _csv_text(text: str) -> str:
    """A text cell a spreadsheet will not run as a formula."""
    text = " ".join(str(text).split())
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _num(value: float, fmt: str) -> str:
    return format(value, fmt) if value is not None and np.isfinite(value) else ""


def gradebook_csv(grades: Iterable[Grade]) -> str:
    """The gradebook: DESIGN.md's header, one row per submission."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(GRADEBOOK_HEADER)
    for g in grades:
        ok = g.status == "ok"
        writer.writerow([
            _csv_text(g.submission), g.status, _num(g.score, ".1f"), g.verdict,
            _num(g.consistency_p, ".4g") if ok else "",
            _num(g.metrics.get("agreement_decisive", math.nan), ".4f"),
            _num(g.metrics.get("rmse_onpath", math.nan), ".4f"),
            _num(g.metrics.get("score_vs_optimal", math.nan), ".4f"),
            _csv_text(g.layout), _csv_text(";".join(g.flags)), _csv_text(g.error),
            _csv_text(";".join(g.similar_to)),
        ])
    return buffer.getvalue()


def write_gradebook(path: str | os.PathLike[str], grades: Iterable[Grade]) -> None:
    """Write the gradebook atomically."""
    formats.write_atomic(path, gradebook_csv(grades))


def summary_text(grades: Sequence[Grade]) -> str:
    """A plain table for the terminal: one line per submission, then the counts."""
    width = min(max([len(g.submission) for g in grades] + [10]), 48)
    lines = [f"{'submission':<{width}}  {'score':>5}  {'verdict':<7}  {'p':>8}  flags / error"]
    for g in grades:
        name = g.submission if len(g.submission) <= width else "..." + g.submission[-width + 3:]
        p = _num(g.consistency_p, ".2g") if g.status == "ok" else ""
        tail = ";".join(g.flags) if g.status == "ok" else f"error: {g.error}"
        lines.append(f"{name:<{width}}  {g.score:5.1f}  {g.verdict:<7}  {p:>8}  {tail}")
    counts = {v: sum(1 for g in grades if g.status == "ok" and g.verdict == v)
              for v in ("pass", "review", "fail")}
    errors = sum(1 for g in grades if g.status == "error")
    lines.append(f"{len(grades)} submissions: {counts['pass']} pass, {counts['review']} review, "
                 f"{counts['fail']} fail, {errors} unreadable")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ reports
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def report_names(submissions: Sequence[str]) -> list[str]:
    """A distinct, safe file stem per submission: its file name, with its folder's name in front
    when two submissions share a file name (alice/out.txt -> alice__out.txt); only
    [A-Za-z0-9._-], no leading dot, at most 80 characters (a hash keeps long names apart), so no
    name can leave the reports folder."""
    import hashlib

    parts = [[p for p in re.split(r"[\\/]+", str(sub)) if p not in ("", ".", "..")]
             for sub in submissions]
    base_count: dict[str, int] = {}
    for p in parts:
        key = p[-1].lower() if p else ""
        base_count[key] = base_count.get(key, 0) + 1
    names: list[str] = []
    taken: set[str] = set()
    for sub, p in zip(submissions, parts, strict=True):
        keep = p[-2:] if p and base_count[p[-1].lower()] > 1 else p[-1:]
        stem = _SAFE.sub("_", "__".join(keep)).strip("._-") or "submission"
        if len(stem) > 80:
            digest = hashlib.sha256(str(sub).encode("utf-8", "replace")).hexdigest()[:8]
            stem = f"{stem[:71]}-{digest}"
        name, n = stem, 2
        while name.lower() in taken:
            name = f"{stem}-{n}"
            n += 1
        taken.add(name.lower())
        names.append(name)
    return names


def _fmt(v: float, spec: str = ".4f") -> str:
    return format(v, spec) if v is not None and np.isfinite(v) else "n/a"


_VERDICT_MEANING = {
    "pass": "Your tables look like what the handout's algorithm produces at these settings: "
    "as good as it gets, and statistically consistent with it.",
    "review": "Something deserves a human look: the tables are unusual for the handout's "
    "algorithm at these settings (see the flags), but this is not proof of an error. About "
    f"{P_REVIEW:.0%} of correct programs land here by chance at the default level "
    f"(p < {P_REVIEW}).",
    "fail": "The tables show evidence of a different algorithm or an unusable output "
    "(a consistency p-value a correct program essentially never reaches, or no usable table).",
}


def plain_summary(g: Grade) -> str:
    """A plain-language paragraph: what the verdict means and what to check first."""
    text = _VERDICT_MEANING.get(g.verdict, "")
    first = next((f for f in g.flags if f in FLAG_HINTS), None)
    if first is not None:
        text += f" Check first: {FLAG_HINTS[first]}"
    elif g.verdict != "pass" and g.worst:
        w = g.worst[0]
        text += (f" Check first: state <{w.x},{w.y}>, where your estimate is least like the "
                 "reference runs (the worst states are listed below).")
    return text


def report_markdown(refs: References, g: Grade, image: str | None = None) -> str:
    """One submission's report: score, verdict, flags, metrics against the reference runs'
    percentiles, the consistency test, the worst states and the heatmap."""
    cfg = refs.config
    lines = [f"# Grade: `{g.submission}`", ""]
    if g.status != "ok":
        lines += ["**Could not be graded: score 0 / 100, fail.**", "", f"Reason: {g.error}", ""]
        return "\n".join(lines)
    lines += [
        f"**Score {g.score:.1f} / 100 — {g.verdict}.**", "",
        plain_summary(g), "",
        f"Graded against {cfg.describe()}.", "",
        f"Layout read: `{g.layout or 'unknown'}`."
        + (f" Reader's notes: {g.notes}." if g.notes else ""), "",
    ]
    if g.flags:
        lines.append("Flags, and what to check first:")
        for f in g.flags:
            hint = FLAG_HINTS.get(f, "")
            lines.append(f"- `{f}`: {FLAG_HELP.get(f, 'reported by the reader')}."
                         + (f" {hint}" if hint else ""))
            if f == "copied" and g.similar_to:
                lines.append("  Similar to: " + ", ".join(f"`{n}`" for n in g.similar_to) + ".")
        for fix, score in g.what_if.items():
            lines.append(f"- With the tables {fix}, the score would be {score:.1f} / 100.")
        lines.append("")
    c = g.consistency
    assert c is not None
    lines += [
        "## Points", "",
        "| part | points | out of |", "|---|---:|---:|",
        f"| format | {g.points['format']:.1f} | {FORMAT_POINTS:.0f} |",
        f"| quality | {g.points['quality']:.1f} | {QUALITY_POINTS:.0f} |",
        f"| consistency | {g.points['consistency']:.1f} | {CONSISTENCY_POINTS:.0f} |",
        f"| **total** | **{g.score:.1f}** | 100 |", "",
        "## Quality against the reference runs", "",
        "| metric | submission | reference median | reference 5%..95% | as good as |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, _, _ in QUALITY_METRICS:
        lo, med, hi = refs.quantile(name, [0.05, 0.5, 0.95], g.decimals)
        pct = g.percentiles.get(name, math.nan)
        lines.append(f"| {name} | {_fmt(g.metrics[name])} | {_fmt(med)} | {_fmt(lo)}..{_fmt(hi)} "
                     f"| {_fmt(pct, '.0f')}% of runs |")
    lines += [
        "", "## Consistency with the handout's algorithm", "",
        f"Statistic T = {_fmt(c.statistic)} over {c.usable} usable states; reference runs "
        f"(held-out calibration runs): mean {_fmt(c.null_mean)}, sd {_fmt(c.null_sd)}.",
        f"p-value {_fmt(c.p_value, '.3g')} (log-t fit of the calibration runs), rank p-value "
        f"{_fmt(c.p_rank, '.3g')} (cannot go below 1/{cfg.calibration + 1}).",
    ]
    if c.decimals is not None:
        lines.append(f"The probabilities are printed with {c.decimals} decimals; the reference "
                     "estimates were rounded likewise.")
    lines += ["", "## Worst states", "",
              "States where the submission is least like the reference runs (estimate 0: no "
              "data or every J lost; J -: not graded there, any J may be printed).", "",
              "| <X,Y> | contribution | estimate | reference mean | reference 5%..95% | J | "
              "runs agreeing with this J | optimal J |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for w in g.worst:
        est = f"{w.estimate:.4f}"
        share = "any" if w.policy == 0 else f"{100 * w.policy_share:.0f}%"
        j = "-" if w.policy == 0 else str(w.policy)
        lines.append(
            f"| <{w.x},{w.y}> | {w.contribution:.2f} | {est} | {_fmt(w.reference_mean)} | "
            f"{_fmt(w.reference_low)}..{_fmt(w.reference_high)} | {j} | "
            f"{share} | {','.join(map(str, w.optimal))} |")
    if image:
        lines += ["", "## Where it differs", "",
                  "Left: the printed policy against the optimal one (with the handout's caveats). "
                  "Right: where the estimate sits among the reference runs (normal score; grey: "
                  "not enough reference data).", "", f"![heatmap]({image})"]
    return "\n".join(lines) + "\n"


class _Heatmaps:
    """Two heatmaps per submission: policy vs optimal (compare.state_classes) and estimate vs
    references. One figure is drawn once and only its data and title change per submission:
    building a matplotlib figure costs more than rendering one."""

    def __init__(self, refs: References) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import BoundaryNorm, ListedColormap
        from matplotlib.patches import Patch

        from dicejack.report import CLASS_COLORS

        self.refs = refs
        self.plt = plt
        game = refs.game
        blank = np.zeros(game.shape)
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
        cmap = ListedColormap(list(CLASS_COLORS))
        norm = BoundaryNorm(np.arange(-0.5, len(CLASS_COLORS) + 0.5), cmap.N)
        self.classes = axes[0].imshow(blank, cmap=cmap, norm=norm, interpolation="nearest")
        axes[0].legend(
            handles=[Patch(color=color, label=compare.STATE_CLASSES[c])
                     for c, color in enumerate(CLASS_COLORS)],
            loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False,
        )
        axes[0].set_title("Printed policy vs optimal", fontsize=10)
        self.scores = axes[1].imshow(
            np.ma.masked_invalid(blank), cmap=plt.get_cmap("RdBu_r").with_extremes(bad="#d9d9d9"),
            vmin=-2.5, vmax=2.5, interpolation="nearest",
        )
        bar = fig.colorbar(self.scores, ax=axes[1], fraction=0.046, pad=0.04)
        bar.set_label("estimate's normal score among reference runs")
        axes[1].set_title("Estimate vs reference runs (red: higher, blue: lower)", fontsize=10)
        step = 1 if game.low <= 20 else 5
        for ax in axes:
            ax.set_xlabel("Y (opponent's score)")
            ax.set_ylabel("X (mover's score)")
            ax.set_xticks(range(0, game.low, step))
            ax.set_yticks(range(0, game.low, step))
            ax.tick_params(labelsize=7)
        self.title = fig.suptitle("", fontsize=11)
        fig.subplots_adjust(left=0.05, right=0.94, bottom=0.12, top=0.86, wspace=0.75)
        self.fig = fig

    def draw(self, g: Grade, path: Path) -> None:
        """Write the heatmaps of one graded submission to `path` (PNG, atomically)."""
        if g.policy is None or g.probability is None or g.consistency is None:
            raise GradeError(f"{g.submission} was not graded; nothing to draw")
        learned = compare.learned_from_tables(self.refs.game, g.policy, g.probability)
        self.classes.set_data(compare.state_classes(self.refs.truth, learned))
        self.scores.set_data(np.ma.masked_invalid(g.consistency.score))
        self.title.set_text(f"{g.submission}: {g.score:.1f} / 100, {g.verdict}")
        buffer = io.BytesIO()
        self.fig.savefig(buffer, format="png", dpi=90, pil_kwargs={"compress_level": 3})
        formats.write_atomic(path, buffer.getvalue())

    def close(self) -> None:
        self.plt.close(self.fig)


def write_reports(
    refs: References, grades: Sequence[Grade], folder: str | os.PathLike[str], *,
    progress: bool = False,
) -> list[Path]:
    """One Markdown report (and, when graded, one PNG heatmap) per submission into `folder`,
    under :func:`report_names`; returns the Markdown paths."""
    folder = Path(folder)
    _check_reports(folder)
    paths = []
    advance, stop = report.progress_bar("reports", len(grades), progress)
    heatmaps = _Heatmaps(refs) if any(g.status == "ok" for g in grades) else None
    try:
        for g, stem in zip(grades, report_names([g.submission for g in grades]), strict=True):
            image = None
            if g.status == "ok" and heatmaps is not None:
                image = f"{stem}.png"
                heatmaps.draw(g, folder / image)
            md = folder / f"{stem}.md"
            formats.write_atomic(md, report_markdown(refs, g, image))
            paths.append(md)
            advance()
    finally:
        if heatmaps is not None:
            heatmaps.close()
        stop()
    return paths
