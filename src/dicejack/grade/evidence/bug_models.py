"""The bug models: programs the harness runs so that diagnosis
(:mod:`dicejack.grade.scoring.diagnosis`) can ask which bug explains an output. This docstring
is their specification (docs/grading.md, "Likely cause").

A **bug model** (:data:`MODELS`) is a program the harness can run: a learner variant (the
handout's learner with one bug students make: a wrong M on a log grid, M = 0, too few games, x
and y swapped in recording, f = 0 for an untried J, integer division, B by raw WinCount, the
(1 - p_B) factor dropped; :func:`bug_learn`) and a printer (as the handout prints, by another
rule: the print-only slips of :mod:`dicejack.grade.evidence.print_rules`, the last J drawn,
integer ratios). MODEL_RUNS runs of each are played (:func:`model_runs`; seeds after the probe
runs of :mod:`dicejack.grade.evidence.power`), cached on disk beside the reference runs and in
memory with them. The print-only slips (:data:`SLIPS`) need no runs: they are the reference
runs' own counts printed by the slip's rule. Every family is played for the same number of runs
(MODEL_RUNS, the reference runs' count), so that diagnosis fits every family's density alike.
"""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np
from numba import njit

from dicejack import formats
from dicejack.formats.atomic import savez_atomic
from dicejack.grade.evidence.calibration import Calibration, calibration
from dicejack.grade.evidence.print_model import rule_tables
from dicejack.grade.evidence.references import References, default_cache_dir

__all__ = ["BugModel", "MODELS", "BY_NAME", "SLIPS", "MODEL_RUNS", "MODEL_SEED_OFFSET",
           "MODELS_VERSION", "ModelRuns", "model_runs", "bug_learn"]

#: Runs per bug model: as many as the reference runs (grade.settings.DEFAULT_REFERENCES), so
#: that every family's density is estimated alike.
MODEL_RUNS = 30
#: The model runs' seeds start this far after the calibration runs' last seed (the probe runs
#: of grade.power take the seeds from 1,000 on).
MODEL_SEED_OFFSET = 5_000
#: Bumped whenever a model's runs change (the disk cache is keyed by it).
MODELS_VERSION = 1

# learner variants (bug codes of :func:`bug_learn`)
_FAITHFUL, _PB_FACTOR, _XY, _RAW_WINS, _FJ_ZERO, _INT_DIV = 0, 1, 2, 4, 5, 6


@dataclass(frozen=True)
class BugModel:
    """One bug a student program may have: a learner variant (`bug` code, M and NGAMES scaled)
    and a printer (``faithful``, a print rule of
    :data:`~dicejack.grade.evidence.print_model.PRINT_RULES`, ``integer-ratio``,
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
#: Every model by its name.
BY_NAME: Mapping[str, BugModel] = MappingProxyType({m.name: m for m in MODELS})
#: The names of the print-only slips (models with no runs of their own).
SLIPS = frozenset(m.name for m in MODELS if m.from_references)


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
class ModelRuns:
    """A model's runs as grading sees them: the graded values (n, L, L), the sets of J each run
    may print (n, L, L, K + 1), the visits per state (n, L, L)."""

    values: np.ndarray
    sets: np.ndarray
    visits: np.ndarray


def _model_seed(refs: References, index: int, run: int) -> int:
    c = refs.config
    return c.seed + c.references + c.calibration + MODEL_SEED_OFFSET + 100 * index + run


def _run_model(refs: References, index: int, model: BugModel) -> ModelRuns:
    if model.from_references:
        sets, values = _printed(model, refs.win, refs.lose, None, None)
        return ModelRuns(values, sets, refs.visits.astype(np.int64))
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
    return ModelRuns(np.stack(values), np.stack(sets), np.stack(visits).astype(np.int64))


def _cache_path(refs: References, cache_dir: str | os.PathLike[str] | None | bool
                ) -> Path | None:
    if cache_dir is False:
        return None
    folder = default_cache_dir() if cache_dir is None or cache_dir is True else Path(cache_dir)
    return folder / f"{refs.config.key()}-models-v{MODELS_VERSION}.npz"


def _load(path: Path, refs: References) -> dict[str, ModelRuns] | None:
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
            out[model.name] = ModelRuns(v, s, n.astype(np.int64))
        return out
    except Exception:  # noqa: BLE001 - any unreadable cache is simply recomputed
        return None


def _meta(refs: References) -> dict[str, object]:
    return {"key": refs.config.key(), "runs": MODEL_RUNS, "version": MODELS_VERSION,
            "models": [m.name for m in MODELS]}


#: The models' runs of a reference set, kept as long as the set's calibration is.
_MEMOS: weakref.WeakKeyDictionary[Calibration, dict[str, ModelRuns]] = (
    weakref.WeakKeyDictionary())


def model_runs(refs: References, cache_dir: str | os.PathLike[str] | None | bool = False
               ) -> dict[str, ModelRuns]:
    """Every model's runs at `refs`' settings: from memory, from the disk cache beside the
    reference runs' (`cache_dir` as :func:`~dicejack.grade.evidence.references.reference_runs` takes
    it; False: none), or played (and cached)."""
    key = calibration(refs)
    if key in _MEMOS:
        return _MEMOS[key]
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
    _MEMOS[key] = runs
    return runs

