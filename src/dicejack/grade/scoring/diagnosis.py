"""Diagnosis: which known bug most likely explains an output that did not pass. This docstring
is its specification (docs/grading.md, "Likely cause").

A **bug model** (:data:`MODELS`) is a program the harness can run: a learner variant (the
handout's learner with one bug students make: a wrong M on a log grid, M = 0, too few games, x
and y swapped in recording, f = 0 for an untried J, integer division, B by raw WinCount, the
(1 - p_B) factor dropped) and a printer (as the handout prints, by another rule: the print-only
slips of :mod:`dicejack.grade.evidence.print_rules`, the last J drawn, integer ratios). MODEL_RUNS
runs of
each are played (:func:`model_runs`; seeds after the probe runs of
:mod:`dicejack.grade.evidence.power`),
cached on disk beside the reference runs and in memory with them. The print-only slips need no
runs: they are the reference runs' own counts printed by the slip's rule.

**How well a model explains an output**: the log likelihood of its graded tables (the graded
values and J of :mod:`dicejack.grade.evidence.printed`, the model runs rounded to the output's
decimals)
under the model's runs, summed over the states: per state, a kernel density of the runs' values
(Silverman's width, at least SD_FLOOR and the rounding) mixed with a uniform share
POLICY_SMOOTHING / (n + 1) (a value no run came near costs a bounded amount: no single state
decides), plus, where the output has an estimate, the log of the smoothed share of runs that may
print its J. The handout's algorithm is one more model: the reference runs (its own runs scored:
the held-out calibration runs). T itself (:mod:`dicejack.grade.evidence.consistency`) was tried
first:
it measures distance from a family's centre, so a family with a wide spread (NGAMES / 100, the
last sampled J) "explained" nearly everything; a likelihood pays for a family's spread.

**Naming a cause**: the model of highest likelihood (a print-only slip only when its own
print-rule check flagged it) is named when it beats every model of another family (the handout's
algorithm included; M values of one grid are one family, the three print-only slips another) by
more than it ever beat that model on that model's own runs (each scored as an output is: the
handout's held-out runs, the other models' runs each left out of its fit; at least
MARGIN_FAITHFUL over the handout's algorithm, MARGIN_RUNNER over the others), and the output is at
most Z_FIT sd below its own runs; otherwise the cause is :data:`UNUSUAL`: no known bug explains it.
These margins are calibrated per setting: where two bugs play alike, neither is named. Every
family is fitted from the same number of runs (MODEL_RUNS, the reference runs' count): a kernel
density from fewer runs scores lower, which once let the handout's 30 runs outscore a bug's 12 on
the bug's own outputs. Tables graded transposed or with J shifted back (flags `transposed`,
`zero-based-j`) are diagnosed as corrected; when no bug is named and they are consistent with
the handout's algorithm, that printing slip is the cause.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from dicejack import formats
from dicejack.formats.atomic import savez_atomic
from dicejack.grade.evidence.calibration import Calibration, calibration
from dicejack.grade.evidence.levels import P_INCONSISTENT
from dicejack.grade.evidence.print_model import rule_tables
from dicejack.grade.evidence.printed import as_printed
from dicejack.grade.evidence.references import References, default_cache_dir
from dicejack.grade.scoring.record import Grade
from dicejack.grade.scoring.rubric import PRINT_RULE_FLAGS
from dicejack.grade.settings import Status, Verdict

__all__ = ["BugModel", "MODELS", "MODEL_RUNS", "Z_FIT", "MARGIN_FAITHFUL", "MARGIN_RUNNER",
           "UNUSUAL", "Diagnosis", "diagnose", "model_runs", "mark_diagnosis", "cause_sentence",
           "bug_learn"]

#: Runs per bug model: as many as the reference runs (grade.settings.DEFAULT_REFERENCES), so
#: that every family's density is estimated alike.
MODEL_RUNS = 30
#: The model runs' seeds start this far after the calibration runs' last seed (the probe runs
#: of grade.power take the seeds from 1,000 on).
MODEL_SEED_OFFSET = 5_000
#: A model explains an output only when the output's log likelihood under it is at most this
#: many sd below its own runs' ...
Z_FIT = 4.0
#: ... and above the handout algorithm's by this much (nats) ...
MARGIN_FAITHFUL = 10.0
#: ... and above the best model's of another family by this much.
MARGIN_RUNNER = 5.0
#: Smallest sd of a state's graded value in a family's model (all runs alike there).
SD_FLOOR = 0.01
#: Additive smoothing of the share of runs a printed J agrees with.
POLICY_SMOOTHING = 0.5
#: The cause of an output no known bug explains.
UNUSUAL = "unusual"
#: Bumped whenever a model's runs change (the disk cache is keyed by it).
MODELS_VERSION = 1

# learner variants (bug codes of :func:`bug_learn`)
_FAITHFUL, _PB_FACTOR, _XY, _RAW_WINS, _FJ_ZERO, _INT_DIV = 0, 1, 2, 4, 5, 6


@dataclass(frozen=True)
class BugModel:
    """One bug a student program may have: a learner variant (`bug` code, M and NGAMES scaled)
    and a printer (``faithful``, a print rule of :data:`PRINT_RULE_FLAGS`, ``integer-ratio``,
    ``last-sampled``); `from_references`: a print-only slip, the reference runs' counts printed
    by `printer` (no runs of its own). `family` groups models one cause (an M grid)."""

    name: str
    family: str
    cause: str
    hint: str
    bug: int = _FAITHFUL
    m_factor: float = 1.0
    games_factor: float = 1.0
    printer: str = "faithful"
    from_references: bool = False


_M_HINT = ("check that M is the one asked for (read from the input, not a constant) and that "
           "p_B = (T f_B + M) / (T f_B + K M) uses it")
MODELS: tuple[BugModel, ...] = (
    BugModel("m-hundredth", "wrong-m", "M a hundred times too small", _M_HINT, m_factor=0.01),
    BugModel("m-tenth", "wrong-m", "M ten times too small", _M_HINT, m_factor=0.1),
    BugModel("m-tenfold", "wrong-m", "M ten times too large", _M_HINT, m_factor=10.0),
    BugModel("m-hundredfold", "wrong-m", "M a hundred times too large", _M_HINT,
             m_factor=100.0),
    BugModel("greedy", "wrong-m", "M = 0: always the current best J, no exploration",
             "check that M enters p_B and p_J (with M = 0 the learner never explores)",
             m_factor=0.0),
    BugModel("games-tenth", "too-few-games", "about ten times too few games",
             "check that the program plays NGAMES games (the loop bound, and that the counts "
             "are not reset between games)", games_factor=0.1),
    BugModel("games-hundredth", "too-few-games", "about a hundred times too few games",
             "check that the program plays NGAMES games (the loop bound, and that the counts "
             "are not reset between games)", games_factor=0.01),
    BugModel("xy-swapped", "xy-swapped", "the second player's moves recorded as <opponent, own>",
             "record every move as <mover's score, opponent's score, J>: for the second player "
             "the state is (its own score, the first player's)", bug=_XY),
    BugModel("fj-zero", "fj-zero", "f_J = 0 for an untried J (the handout says 0.5)",
             "an untried J (WinCount + LoseCount = 0) has f_J = 0.5", bug=_FJ_ZERO),
    BugModel("integer-division", "integer-division", "f_J computed by integer division",
             "compute WinCount / (WinCount + LoseCount) in floating point (not // or int / int "
             "in C or Java)", bug=_INT_DIV, printer="integer-ratio"),
    BugModel("raw-wincount", "raw-wincount", "B (and the printed J) by the most WinCount, not "
             "the best ratio", "B is the J with the highest WinCount / (WinCount + LoseCount), "
             "not the highest WinCount", bug=_RAW_WINS, printer="printed-by-wins"),
    BugModel("pb-factor-misplaced", "pb-factor-misplaced", "the (1 - p_B) factor of p_J dropped",
             "p_J = (1 - p_B) (T f_J + M) / (sum over J' != B of T f_J' + (K - 1) M): the "
             "factor (1 - p_B) makes the p_J sum to 1", bug=_PB_FACTOR),
    BugModel("last-sampled", "last-sampled", "the last J drawn in each state printed (and its "
             "p_J), not the best estimate", "print, per state, the J with the highest "
             "WinCount / (WinCount + LoseCount) after learning, and that ratio",
             printer="last-sampled"),
    BugModel("printed-by-wins", "print-rule", "learned right, but printed the J with the "
             "most wins", "print the J with the highest WinCount / (WinCount + LoseCount)",
             printer="printed-by-wins", from_references=True),
    BugModel("printed-by-plays", "print-rule", "learned right, but printed the J played "
             "most", "print the best estimate's J, not the most played",
             printer="printed-by-plays", from_references=True),
    BugModel("printed-prob-of-most-played", "print-rule", "learned right, but "
             "printed the most-played J's estimate beside the best J", "print the probability "
             "of the same J you print as best", printer="printed-prob-of-most-played",
             from_references=True),
)
_BY_NAME = {m.name: m for m in MODELS}
_SLIPS = frozenset(m.name for m in MODELS if m.from_references)
#: Printing slips the grader corrects itself (rubric flags), named when the corrected tables
#: are consistent with the handout's algorithm.
_CORRECTED = {"transposed": "the tables printed transposed (rows Y, columns X)",
              "zero-based-j": "J printed 0-based (0..NDice-1)"}


# ------------------------------------------------------------------------------ the learner
@njit(cache=True, inline="always")
def _weights(win, lose, me, opp, k, m, bug, f, w):  # pragma: no cover - compiled
    """The handout's p_J in state (me, opp), with `bug`, into w[1..K]; their sum."""
    t = 0
    for j in range(1, k + 1):
        c = win[me, opp, j] + lose[me, opp, j]
        t += c
        if c == 0:
            f[j] = 0.0 if bug == 5 else 0.5
        else:
            f[j] = float(win[me, opp, j] // c) if bug == 6 else win[me, opp, j] / c
    b = 1
    for j in range(2, k + 1):
        if (win[me, opp, j] > win[me, opp, b]) if bug == 4 else (f[j] > f[b]):
            b = j
    g = 0.0
    for j in range(1, k + 1):
        w[j] = 0.0
        g += f[j] if j != b else 0.0
    w[b] = (t * f[b] + m) / (t * f[b] + k * m) if t * f[b] + k * m > 0 else 1.0
    rest = g * t + (k - 1) * m
    factor = 1.0 if bug == 1 else 1.0 - w[b]
    total = 0.0
    for j in range(1, k + 1):
        if j != b and rest > 0:
            w[j] = factor * (t * f[j] + m) / rest
        total += w[j]
    return total


@njit(cache=True, inline="always")
def _record(win, lose, log, n, winner, bug):  # pragma: no cover - compiled
    """Every move of a finished game counted for its mover (x and y swapped with bug 2)."""
    for i in range(n):
        mover = log[i, 2]
        x, y = (log[i, 0], log[i, 1]) if bug == 2 else (log[i, mover], log[i, 1 - mover])
        if mover == winner:
            win[x, y, log[i, 3]] += 1
        else:
            lose[x, y, log[i, 3]] += 1


@njit(cache=True)
def bug_learn(n_sides, low, high, k, m, games, bug, rng):  # pragma: no cover - compiled
    """The handout's learner with one bug (code: 0 none, 1 the (1 - p_B) factor dropped (the
    weights normalised when drawn), 2 x and y swapped in recording, 4 B by raw WinCount, 5 f_J
    = 0 untried, 6 integer division), ties to the lowest J; (WinCount, LoseCount, the last J
    drawn per state, its probability). Written from the handout as a student would, apart from
    dicejack's own learner."""
    win = np.zeros((low, low, k + 1), np.int64)
    lose = np.zeros((low, low, k + 1), np.int64)
    last_j = np.zeros((low, low), np.int64)
    last_p = np.zeros((low, low))
    log = np.zeros((2 * low + 2, 4), np.int64)
    f = np.zeros(k + 1)
    w = np.zeros(k + 1)
    score = np.zeros(2, np.int64)
    for _ in range(games):
        score[0] = 0
        score[1] = 0
        turn = 0
        n = 0
        while True:
            me = score[turn]
            opp = score[1 - turn]
            total = _weights(win, lose, me, opp, k, m, bug, f, w)
            u = rng.random() * total
            jj = k
            acc = 0.0
            for j in range(1, k + 1):
                acc += w[j]
                if u < acc:
                    jj = j
                    break
            last_j[me, opp] = jj
            last_p[me, opp] = w[jj] / total
            log[n, 0] = score[0]
            log[n, 1] = score[1]
            log[n, 2] = turn
            log[n, 3] = jj
            n += 1
            for _d in range(jj):
                score[turn] += int(rng.random() * n_sides) + 1
            if score[turn] >= low:
                _record(win, lose, log, n, turn if score[turn] <= high else 1 - turn, bug)
                break
            turn = 1 - turn
    return win, lose, last_j, last_p


def _printed(model: BugModel, win: np.ndarray, lose: np.ndarray, last_j: np.ndarray | None,
             last_p: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(the set of J the model's program may print, (..., K + 1); the graded value, 0 where
    none) of one or more runs' counts."""
    if model.printer == "last-sampled":
        assert last_j is not None and last_p is not None
        k = win.shape[-1] - 1
        sets = np.zeros(win.shape, dtype=bool)
        j = np.clip(last_j, 0, k)
        np.put_along_axis(sets, j[..., None], True, axis=-1)
        sets[..., 0] = False
        return sets, np.where(last_j >= 1, last_p, 0.0)
    if model.printer == "integer-ratio":
        plays = win[..., 1:] + lose[..., 1:]
        has = plays > 0
        ratio = np.where(has, win[..., 1:] // np.maximum(plays, 1), -1)
        top = ratio.max(axis=-1)
        sets = np.zeros(win.shape, dtype=bool)
        sets[..., 1:] = has & (ratio == top[..., None])
        return sets, np.where(has.any(axis=-1), np.maximum(top, 0).astype(np.float64), 0.0)
    return rule_tables(win, lose, model.printer)


# ------------------------------------------------------------------------------ model runs
@dataclass(frozen=True, eq=False)
class _Family:
    """A model's runs as grading sees them: values (n, L, L), sets (n, L, L, K + 1) of J each
    may print, visits (n, L, L)."""

    values: np.ndarray
    sets: np.ndarray
    visits: np.ndarray


def _model_seed(refs: References, index: int, run: int) -> int:
    c = refs.config
    return c.seed + c.references + c.calibration + MODEL_SEED_OFFSET + 100 * index + run


def _run_model(refs: References, index: int, model: BugModel) -> _Family:
    if model.from_references:
        sets, values = _printed(model, refs.win, refs.lose, None, None)
        return _Family(values, sets, refs.visits.astype(np.int64))
    c, g = refs.config, refs.game
    games = max(1, int(round(c.games * model.games_factor)))
    values, sets, visits = [], [], []
    for r in range(MODEL_RUNS):
        rng = np.random.default_rng(_model_seed(refs, index, r))
        win, lose, last_j, last_p = bug_learn(g.n_sides, g.low, g.high, g.n_dice,
                                              float(c.m * model.m_factor), games, model.bug, rng)
        s, v = _printed(model, win, lose, last_j, last_p)
        sets.append(s)
        values.append(v)
        visits.append((win + lose).sum(axis=-1))
    return _Family(np.stack(values), np.stack(sets), np.stack(visits).astype(np.int64))


def _cache_path(refs: References, cache_dir: str | os.PathLike[str] | None | bool
                ) -> Path | None:
    if cache_dir is False:
        return None
    folder = default_cache_dir() if cache_dir is None or cache_dir is True else Path(cache_dir)
    return folder / f"{refs.config.key()}-models-v{MODELS_VERSION}.npz"


def _load(path: Path, refs: References) -> dict[str, _Family] | None:
    """The cached model runs, or None when the file is missing or not exactly what these
    settings make (checked: names, shapes, dtypes, ranges; a bad file is recomputed)."""
    shape = refs.game.shape
    k = refs.game.n_dice
    try:
        with np.load(path, allow_pickle=False) as npz:
            data = {key: npz[key] for key in npz.files}
        meta = json.loads(str(data.pop("meta")))
        if meta != _meta(refs):
            return None
        out = {}
        for model in MODELS:
            if model.from_references:
                continue
            v, s, n = (data[f"{model.name}.{part}"] for part in ("values", "sets", "visits"))
            if (v.shape != (MODEL_RUNS, *shape) or s.shape != (MODEL_RUNS, *shape, k + 1)
                    or n.shape != v.shape or v.dtype != np.float64 or s.dtype != np.bool_
                    or n.dtype.kind not in "iu" or not np.all(np.isfinite(v))
                    or v.min(initial=0) < 0 or v.max(initial=0) > 1 or n.min(initial=0) < 0):
                return None
            out[model.name] = _Family(v, s, n.astype(np.int64))
        return out
    except Exception:  # noqa: BLE001 - any unreadable cache is simply recomputed
        return None


def _meta(refs: References) -> dict[str, object]:
    return {"key": refs.config.key(), "runs": MODEL_RUNS, "version": MODELS_VERSION,
            "models": [m.name for m in MODELS]}


#: What the diagnosis derives from a reference set (the models' runs, the fits by printed
#: precision), kept as long as the set's calibration is.
_MEMOS: weakref.WeakKeyDictionary[Calibration, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _memo(refs: References) -> dict[Any, Any]:
    return _MEMOS.setdefault(calibration(refs), {})


def model_runs(refs: References, cache_dir: str | os.PathLike[str] | None | bool = False
               ) -> dict[str, _Family]:
    """Every model's runs at `refs`' settings: from memory, from the disk cache beside the
    reference runs' (`cache_dir` as :func:`~dicejack.grade.evidence.references.reference_runs` takes
    it; False: none), or played (and cached)."""
    memo = _memo(refs)
    if "runs" in memo:
        return memo["runs"]
    path = _cache_path(refs, cache_dir)
    runs = _load(path, refs) if path is not None and path.is_file() else None
    if runs is None:
        runs = {m.name: _run_model(refs, i, m) for i, m in enumerate(MODELS)
                if not m.from_references}
        if path is not None:
            arrays = {f"{name}.{part}": getattr(fam, part) for name, fam in runs.items()
                      for part in ("values", "sets", "visits")}
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                savez_atomic(path, meta=np.array(json.dumps(_meta(refs))), **arrays)
            except (OSError, formats.FormatError):
                pass  # a cache we cannot write only costs time
    for i, m in enumerate(MODELS):
        if m.from_references:
            runs[m.name] = _run_model(refs, i, m)
    memo["runs"] = runs
    return runs


# ------------------------------------------------------------------------------ the fit
def _rounded(values: np.ndarray, decimals: int | None) -> np.ndarray:
    return values if decimals is None else np.round(values, decimals)


@dataclass(frozen=True, eq=False)
class _Fit:
    """A family's per-state model at one printed precision: its runs' graded values and the
    kernel width per state, the log of the smoothed share of runs each J agrees with; and the
    log likelihoods of its own runs (each left out in turn, or held-out runs): how well the
    family explains its own outputs."""

    values: np.ndarray
    width: np.ndarray
    log_share: np.ndarray
    own: np.ndarray
    own_values: np.ndarray
    own_policies: np.ndarray


def _floor(decimals: int | None) -> float:
    return math.sqrt(SD_FLOOR ** 2 + (0.0 if decimals is None else (10.0 ** -decimals) ** 2 / 12))


def _stats(values: np.ndarray, each: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """(kernel width per state, log share per J) of runs (Silverman's rule, floored)."""
    n = values.shape[0]
    sd = values.std(axis=0, ddof=1) if n > 1 else np.zeros(values.shape[1:])
    width = np.maximum(1.06 * sd * n ** -0.2, floor)
    share = np.log((each.sum(axis=0) + POLICY_SMOOTHING) / (n + 2 * POLICY_SMOOTHING))
    return width, share


def _loglik(values: np.ndarray, width: np.ndarray, log_share: np.ndarray, policy: np.ndarray,
            value: np.ndarray) -> float:
    """Log likelihood of graded tables under a family's per-state model (module docstring): a
    kernel density of the runs' values per state, and the share of runs the printed J agrees
    with where the tables have an estimate."""
    n = values.shape[0]
    d = (value - values) / width
    kde = np.exp(-0.5 * d * d).mean(axis=0) / (width * math.sqrt(2 * math.pi))
    # a value none of the n runs came near keeps the chance of an unseen one (smoothed like the
    # J shares: uniform on [0, 1]), so no single state decides
    outlier = POLICY_SMOOTHING / (n + 2 * POLICY_SMOOTHING)
    ll = np.log((1 - outlier) * kde + outlier)
    j = np.take_along_axis(log_share, policy[..., None], axis=-1)[..., 0]
    return float(ll.sum() + np.where(value > 0, j, 0.0).sum())


def _first_j(sets: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.where(values > 0, sets.argmax(axis=-1), 0).astype(np.int64)


def _fit(values: np.ndarray, sets: np.ndarray, decimals: int | None,
         held: tuple[np.ndarray, np.ndarray] | None = None) -> _Fit:
    """The per-state model of runs (`values` (n, L, L), `sets` of J each may print); own: the
    held-out runs' log likelihoods when given (the reference runs' calibration runs), else
    each run's left out of the others."""
    values = _rounded(values, decimals)
    floor = _floor(decimals)
    each = sets | (values == 0)[..., None]
    width, share = _stats(values, each, floor)
    own, own_values, own_policies = [], [], []
    if held is not None:
        for v, s in zip(*held, strict=True):
            v = _rounded(v, decimals)
            own_values.append(v)
            own_policies.append(_first_j(s, v))
            own.append(_loglik(values, width, share, own_policies[-1], v))
    else:
        for i in range(values.shape[0]):
            rest = np.delete(values, i, axis=0)
            w_i, s_i = _stats(rest, np.delete(each, i, axis=0), floor)
            own_values.append(values[i])
            own_policies.append(_first_j(sets[i], values[i]))
            own.append(_loglik(rest, w_i, s_i, own_policies[-1], values[i]))
    return _Fit(values, width, share, np.array(own), np.stack(own_values),
                np.stack(own_policies))


def _faithful_fit(refs: References, decimals: int | None) -> _Fit:
    memo = _memo(refs)
    if ("handout", decimals) not in memo:
        held_sets = np.zeros((*refs.held_best.shape, refs.game.n_dice + 1), dtype=bool)
        np.put_along_axis(held_sets, refs.held_best.astype(np.int64)[..., None], True, axis=-1)
        held_sets[..., 0] = False
        _, held_values = as_printed(refs.held_best, refs.held_probability)
        memo["handout", decimals] = _fit(refs.values, refs.tied, decimals,
                                         (held_values, held_sets))
    return memo["handout", decimals]


def _model_fit(refs: References, name: str, fam: _Family, decimals: int | None) -> _Fit:
    memo = _memo(refs)
    if (name, decimals) not in memo:
        memo[name, decimals] = _fit(fam.values, fam.sets, decimals)
    return memo[name, decimals]


def _fits(refs: References, decimals: int | None, cache_dir: str | os.PathLike[str] | None | bool
          ) -> dict[str, _Fit]:
    """Every model's fit at one printed precision, the handout's algorithm first."""
    runs = model_runs(refs, cache_dir)
    fits = {"handout": _faithful_fit(refs, decimals)}
    fits.update({name: _model_fit(refs, name, fam, decimals) for name, fam in runs.items()})
    return fits


def _margins(refs: References, decimals: int | None, fits: dict[str, _Fit]
             ) -> dict[tuple[str, str], float]:
    """(B, A) -> how far A's likelihood ever rose above B's on B's own runs (each scored as an
    output is; the handout's: its held-out runs): a margin A must beat B by, so that an output
    B made is named A no more often than B's own runs would be."""
    memo = _memo(refs)
    if ("margins", decimals) not in memo:
        out = {}
        for b, fb in fits.items():
            for a, fa in fits.items():
                if _family(a) == _family(b):
                    continue
                gain = [_loglik(fa.values, fa.width, fa.log_share, pol, v) - own
                        for v, pol, own in zip(fb.own_values, fb.own_policies, fb.own,
                                               strict=True)]
                out[b, a] = float(max(gain))
        memo["margins", decimals] = out
    return memo["margins", decimals]


@dataclass(frozen=True)
class Diagnosis:
    """cause: a model's name, a corrected printing slip's flag, :data:`UNUSUAL`, or "" (nothing
    to diagnose); loglik: each model's log likelihood of the output ("handout": the handout's
    algorithm), best first; z: how far below its own runs' the best model's is (in sd)."""

    cause: str
    loglik: dict[str, float]
    z: float = math.nan
    text: str = ""


def _m_value(refs: References, model: BugModel) -> str:
    return f"{refs.config.m * model.m_factor:g}"


def cause_sentence(refs: References, cause: str, alike: Sequence[str] = ()) -> str:
    """The likely cause in words, with what to check (a student's page and report); `alike`:
    other M of the same grid that explain the output nearly as well (said as a range)."""
    if cause == UNUSUAL:
        return ("unusual: no known bug explains these tables better than the handout's "
                "algorithm; compare your program with the handout step by step.")
    if cause in _CORRECTED:
        return f"{_CORRECTED[cause]}; the tables were graded corrected."
    model = _BY_NAME.get(cause)
    if model is None:
        return ""
    what = model.cause
    if model.family == "wrong-m":
        values = " or ".join(_m_value(refs, _BY_NAME[n]) for n in (cause, *alike))
        what = f"looks like M = {values}, asked {refs.config.m:g} ({what})"
    return f"{what}. {model.hint[:1].upper()}{model.hint[1:]}."


def _needs_diagnosis(g: Grade) -> bool:
    if (g.status != Status.OK or g.verdict == Verdict.PASS or g.policy is None
            or g.consistency is None):
        return False
    reasons = {"inconsistent", "low-quality", *PRINT_RULE_FLAGS, *_CORRECTED}
    return g.verdict == Verdict.FAIL or bool(reasons & set(g.flags))


def diagnose(refs: References, g: Grade, cache_dir: str | os.PathLike[str] | None | bool = False
             ) -> Diagnosis:
    """The likely cause of a graded output that did not pass (module docstring); cause "" for
    a pass, an unreadable file, or a review that no statistical evidence raised (a copy)."""
    if not _needs_diagnosis(g):
        return Diagnosis("", {})
    assert g.policy is not None and g.probability is not None and g.consistency is not None
    policy = np.asarray(g.policy, dtype=np.int64)
    value = np.asarray(g.probability, dtype=np.float64)
    decimals = g.consistency.decimals
    fits = _fits(refs, decimals, cache_dir)
    ll = {name: _loglik(f.values, f.width, f.log_share, policy, value)
          for name, f in fits.items()}
    ranked = dict(sorted(ll.items(), key=lambda kv: -kv[1]))
    best = _best(g, ranked)
    own = fits[best].own
    z = float((own.mean() - ll[best]) / max(own.std(ddof=1), 1.0)) if own.size > 2 else math.nan
    cause = _decide(g, ranked, best, z, _margins(refs, decimals, fits))
    alike = tuple(k for k, v in ranked.items() if k != cause and cause in _BY_NAME
                  and _family(k) == _family(cause) and ranked[cause] - v < MARGIN_RUNNER)
    return Diagnosis(cause, ranked, z, cause_sentence(refs, cause, alike))


def _family(name: str) -> str:
    return _BY_NAME[name].family if name in _BY_NAME else name


def _slip_flag(g: Grade) -> str:
    return g.print_check.flag if g.print_check is not None else ""


def _best(g: Grade, ranked: dict[str, float]) -> str:
    """The model of highest likelihood that may be named: a print-only slip only when its own
    print-rule check flagged it (that check is the more powerful test for it; unflagged, a
    slip model fits any output that exploits early nearly as well)."""
    slip = _slip_flag(g)
    return next(k for k in ranked if k not in _SLIPS or k == slip)


def _decide(g: Grade, ranked: dict[str, float], best: str, z: float,
            margins: dict[tuple[str, str], float]) -> str:
    consistent = g.consistency_p >= P_INCONSISTENT if np.isfinite(g.consistency_p) else False
    corrected = [f for f in _CORRECTED if f in g.flags]
    slip = _slip_flag(g)
    # every model of another family (print-only slips included) must be beaten by more than
    # the best model ever beat it on that model's own runs
    clear = all(ranked[best] - v >= max(margins[b, best],
                                        MARGIN_FAITHFUL if b == "handout" else MARGIN_RUNNER)
                for b, v in ranked.items() if _family(b) != _family(best))
    if best != "handout" and z <= Z_FIT and clear:
        return best
    if slip and slip == best:
        return slip
    if corrected and consistent:
        return corrected[0]
    return UNUSUAL


def mark_diagnosis(refs: References, grades: Sequence[Grade],
                   cache_dir: str | os.PathLike[str] | None | bool = False) -> list[Grade]:
    """The grades with their likely cause (Grade.cause, Grade.cause_text). A print-rule flag
    that names another bug than the diagnosis is dropped (the flag would send the student to
    the wrong line); a slip the diagnosis names is flagged (a review: no points)."""
    out = []
    for g in grades:
        d = diagnose(refs, g, cache_dir)
        if not d.cause:
            out.append(g)
            continue
        flags = list(g.flags)
        if d.cause in _BY_NAME:
            flags = [f for f in flags if f not in PRINT_RULE_FLAGS or f == d.cause]
            if d.cause in PRINT_RULE_FLAGS and d.cause not in flags:
                flags.append(d.cause)
        out.append(dataclasses.replace(g, flags=tuple(flags), cause=d.cause,
                                       cause_text=d.text))
    return out
