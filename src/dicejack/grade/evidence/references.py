"""The reference runs of the handout's learner that a submission is graded against, and the
held-out calibration runs: computing them (through :mod:`dicejack.runtime.parallel`), caching them
on disk and in memory, and what each run set gives directly (graded values, agreement counts,
usable states). What is calibrated from the held-out runs (the nulls, the copy distance) is
:class:`~dicejack.grade.evidence.calibration.Calibration`, an object of its own."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import json
import math
import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from dicejack.compare import METRIC_NAMES
from dicejack.compare.metrics import metric_values
from dicejack.compare.truth import Truth, truth_for
from dicejack.formats.atomic import savez_atomic
from dicejack.games.handout_rules import Game
from dicejack.grade.evidence.printed import graded_learned, graded_tables
from dicejack.grade.evidence.probes import probe_count, probe_plan
from dicejack.grade.settings import CACHE_VERSION, GradeConfig, GradeWarning
from dicejack.learners import formulas, handout
from dicejack.runtime import parallel
from dicejack.runtime.messages import DicejackError, one_line

__all__ = ["References", "reference_run", "reference_runs", "reference_tie_break",
           "compute_references", "forget_references",
           "default_cache_dir", "INLINE_GAMES", "ROUNDING_MATTERS", "USABLE_SHARE",
           "USABLE_VISITS", "usable_states"]

#: Printed with more decimals than this, rounding does not move the quality metrics measurably.
ROUNDING_MATTERS = 3
#: A state is usable when at least this share of the reference runs have data there ...
USABLE_SHARE = 0.8
#: ... and the reference runs visit it at least this often on average.
USABLE_VISITS = 10.0


def usable_states(n_with_data: np.ndarray, visits_total: np.ndarray, n: int) -> np.ndarray:
    """The states where enough of `n` runs have data and visit often enough for the statistics
    (:mod:`dicejack.grade.evidence.consistency`)."""
    need = max(3, math.ceil(USABLE_SHARE * n - 1e-9))
    return (n_with_data >= need) & (visits_total >= USABLE_VISITS * n)


def _policy_dtype(n_dice: int) -> np.dtype:
    return np.dtype(np.int16) if n_dice < 2**15 else np.dtype(np.int64)


def reference_tie_break(index: int) -> str:
    """How reference run `index` breaks ties of B in learning: the handout says "arbitrarily",
    so the reference family holds both choices a program makes: the lowest J (even runs) and a
    uniformly random tied J (odd runs)."""
    return "random" if index % 2 else "lowest"


def reference_run(
    params: tuple[int, int, int, int], m: float, games: int, seed: int,
    tie_break: str = "lowest",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
           float]:
    """One reference learner run: (best, probability, tied, visits, metrics, WinCount,
    LoseCount, CPU seconds).

    Top-level and given plain values only: this is what executors run. best is the lowest J of
    the tied set `tied` ((L, L, K + 1), :func:`formulas.tied_best`); visits[x, y] is T, the
    number of times any J was played in <x, y>; metrics follow compare.METRIC_NAMES, of the
    tables as graded (:func:`graded_tables`). The full counts are kept so that the run can be
    printed by any rule (:mod:`dicejack.grade.evidence.print_rules`).
    """
    t0 = time.thread_time()
    t = truth_for(tuple(params))
    run = handout.learn(t.game, m, games, seed, tie_break=tie_break)
    best, prob = formulas.learned_tables(run.win, run.lose)
    tied = formulas.tied_best(run.win, run.lose)
    visits = run.win.sum(axis=2) + run.lose.sum(axis=2)
    j, value, _ = graded_tables(t.game, best, prob)
    metrics = metric_values(t, graded_learned(t.game, j, value))
    return (
        best.astype(_policy_dtype(t.game.n_dice)), prob, tied, visits.astype(np.int64),
        np.array([metrics[name] for name in METRIC_NAMES]), run.win.astype(np.int64),
        run.lose.astype(np.int64), time.thread_time() - t0,
    )


@dataclass(frozen=True, eq=False)
class References:
    """R reference runs of the handout's learner, and what each gives directly (values, agreement
    counts, usable states, metrics at a printed precision).

    best (R, L, L): lowest best J per state, 0 where no data; probability (R, L, L): its
    estimate, -1 where no data; tied (R, L, L, K + 1): every J tied for best; visits (R, L, L):
    T per state; metrics (R, len(METRIC_NAMES)) of the graded tables; win and lose
    (R, L, L, K + 1): the runs' WinCount and LoseCount (the print-rule checks print them by
    other rules). held_best and
    held_probability (C, L, L): the held-out calibration runs' tables, whose statistics against
    the R references are the null distribution. probe_best and probe_probability: the probe runs
    with a wrong M of :mod:`dicejack.grade.evidence.probes` (PROBE_RUNS per probe, in PROBES
    order), whose
    catch rate is the setting's power. source says where they came from ("computed",
    "disk cache" or "memory"); cpu_seconds is what computing them cost; notice, when not empty,
    is one line for the user (a cache file that was invalid and was recomputed).
    """

    config: GradeConfig
    best: np.ndarray
    probability: np.ndarray
    tied: np.ndarray
    visits: np.ndarray
    metrics: np.ndarray
    win: np.ndarray
    lose: np.ndarray
    held_best: np.ndarray
    held_probability: np.ndarray
    probe_best: np.ndarray
    probe_probability: np.ndarray
    source: str = "computed"
    cpu_seconds: float = 0.0
    notice: str = ""

    @property
    def game(self) -> Game:
        return self.config.game

    @cached_property
    def truth(self) -> Truth:
        g = self.game
        return truth_for((g.n_sides, g.low, g.high, g.n_dice))

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
                m = metric_values(self.truth, graded_learned(self.game, j, value))
                rows.append([m[name] for name in METRIC_NAMES])
            self._by_decimals[key] = np.array(rows)
        return self._by_decimals[key]

    @cached_property
    def _by_decimals(self) -> dict[tuple[str, int | None], Any]:
        return {}

    @cached_property
    def run_set(self) -> object:
        """A token naming this set of runs: shared by the copies :func:`reference_runs` serves
        from memory (so they share one calibration), new for any other References."""
        return object()

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
        return usable_states(self.has_data.sum(axis=0), self.visits.sum(axis=0),
                             self.config.references)

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

    def quantile(self, name: str, q: float | Sequence[float], decimals: int | None = None
                 ) -> np.ndarray:
        values = self.metric(name, decimals)
        values = values[np.isfinite(values)]
        if values.size == 0:
            return np.full(np.shape(q), np.nan)
        return np.quantile(values, q)


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


_ARRAYS = ("best", "probability", "tied", "visits", "metrics", "win", "lose", "held_best",
           "held_probability", "probe_best", "probe_probability")


class _InvalidCache(Exception):
    """Why a cache file cannot be used (one line)."""


def _content_hash(arrays: dict[str, np.ndarray]) -> str:
    """sha256 over each array's name, dtype, shape and bytes, in :data:`_ARRAYS` order."""
    h = hashlib.sha256()
    for name in _ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _check_tables(config: GradeConfig, what: str, best: np.ndarray, prob: np.ndarray,
                  runs: int) -> None:
    """best (runs, L, L) whole numbers in 0..K; prob float, -1 exactly where best is 0, else
    in [0, 1]."""
    shape = (runs, *config.game.shape)
    k = config.game.n_dice
    if best.shape != shape or prob.shape != shape:
        raise _InvalidCache(f"{what} tables are not {'x'.join(map(str, shape))}")
    if best.dtype.kind not in "iu":
        raise _InvalidCache(f"{what} best J has dtype {best.dtype}, not integer")
    if prob.dtype.kind != "f":
        raise _InvalidCache(f"{what} estimates have dtype {prob.dtype}, not float")
    if best.size and (best.min() < 0 or best.max() > k):
        raise _InvalidCache(f"{what} best J outside 0..{k}")
    if not np.isfinite(prob).all():
        raise _InvalidCache(f"{what} estimates not finite")
    if np.any((prob != -1) & ((prob < 0) | (prob > 1))):
        raise _InvalidCache(f"{what} estimates outside -1 and [0, 1]")
    if np.any((best == 0) != (prob == -1)):
        raise _InvalidCache(f"{what} no-data markers (J 0, estimate -1) disagree")


def _validated(data: dict[str, np.ndarray], config: GradeConfig) -> References:
    """References from a cache file's arrays, or _InvalidCache saying what is wrong: metadata,
    content hash, shapes, dtypes and ranges are all checked (a crafted or damaged file must
    never crash grading nor move a grade)."""
    if "meta" not in data:
        raise _InvalidCache("no metadata")
    meta = json.loads(str(data["meta"]))
    if not isinstance(meta, dict):
        raise _InvalidCache("metadata is not a mapping")
    digest = meta.pop("sha256", None)
    if meta != _cache_meta(config):
        raise _InvalidCache("metadata does not match these settings")
    missing = [name for name in _ARRAYS if name not in data]
    if missing:
        raise _InvalidCache(f"missing {', '.join(missing)}")
    if digest != _content_hash(data):
        raise _InvalidCache("content hash does not match")
    r, c, k = config.references, config.calibration, config.game.n_dice
    _check_tables(config, "reference", data["best"], data["probability"], r)
    _check_tables(config, "held-out", data["held_best"], data["held_probability"], c)
    _check_tables(config, "probe", data["probe_best"], data["probe_probability"], probe_count())
    tied, visits, metrics = data["tied"], data["visits"], data["metrics"]
    if tied.shape != (*data["best"].shape, k + 1) or tied.dtype != np.bool_:
        raise _InvalidCache("tied sets are not boolean (R, L, L, K + 1)")
    if visits.shape != data["best"].shape or visits.dtype.kind not in "iu":
        raise _InvalidCache("visit counts are not whole numbers (R, L, L)")
    if visits.size and visits.min() < 0:
        raise _InvalidCache("negative visit counts")
    if np.any((visits == 0) != (data["best"] == 0)):
        raise _InvalidCache("visit counts disagree with the no-data markers")
    if metrics.shape != (r, len(METRIC_NAMES)) or metrics.dtype.kind != "f":
        raise _InvalidCache("metrics are not float (R, metrics)")
    if np.isinf(metrics).any():
        raise _InvalidCache("infinite metrics")
    best = data["best"].astype(np.int64)
    lowest = np.where(tied.any(axis=-1), tied.argmax(axis=-1), 0)
    if tied[..., 0].any() or np.any(lowest != best):
        raise _InvalidCache("tied sets disagree with best J")
    win, lose = data["win"], data["lose"]
    for name, counts in (("win", win), ("lose", lose)):
        if counts.shape != tied.shape or counts.dtype.kind not in "iu":
            raise _InvalidCache(f"{name} counts are not whole numbers (R, L, L, K + 1)")
        if counts.size and (counts.min() < 0 or counts[..., 0].any()):
            raise _InvalidCache(f"{name} counts negative or recorded for J = 0")
    win, lose = win.astype(np.int64), lose.astype(np.int64)
    if np.any((win + lose).sum(axis=-1) != visits):
        raise _InvalidCache("counts disagree with the visit counts")
    if any(np.any(formulas.tied_best(w, n) != t) for w, n, t in zip(win, lose, tied, strict=True)):
        raise _InvalidCache("counts disagree with the tied sets")
    return References(config, data["best"], data["probability"].astype(np.float64), tied,
                      visits.astype(np.int64), metrics.astype(np.float64), win, lose,
                      data["held_best"], data["held_probability"].astype(np.float64),
                      data["probe_best"], data["probe_probability"].astype(np.float64),
                      source="disk cache")


def _load_cached(path: Path, config: GradeConfig) -> tuple[References | None, str]:
    """(References from a cache file, "") or (None, why it cannot be used)."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            data = {key: npz[key] for key in npz.files}
        return _validated(data, config), ""
    except _InvalidCache as exc:
        return None, one_line(exc)
    except Exception as exc:  # noqa: BLE001 - any unreadable cache file is simply recomputed
        return None, f"unreadable: {one_line(exc)}"


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
        memo.run_set  # noqa: B018 - named before copying, so the copy shares it
        refs = References(config, *(getattr(memo, name) for name in _ARRAYS), source="memory")
        fields = {f.name for f in dataclasses.fields(References)}
        refs.__dict__.update({k: v for k, v in memo.__dict__.items() if k not in fields})
        return refs
    path = None
    notice = ""
    if cache_dir is not False:
        folder = default_cache_dir() if cache_dir is None or cache_dir is True else Path(cache_dir)
        path = folder / f"{key}.npz"
        if path.is_file():
            cached, reason = _load_cached(path, config)
            if cached is not None:
                _MEMO[key] = cached
                return cached
            notice = f"reference cache {path} was invalid ({reason}); recomputed"
        elif path.exists() or path.is_symlink():
            notice = f"reference cache {path} was invalid (not a regular file); recomputed"
    refs = compute_references(config, workers=workers, dask=dask, executor=executor,
                              progress=progress)
    if notice:
        refs = dataclasses.replace(refs, notice=notice)
        warnings.warn(notice, GradeWarning, stacklevel=2)
    if path is not None:
        arrays = {name: getattr(refs, name) for name in _ARRAYS}
        meta = {**_cache_meta(config), "sha256": _content_hash(arrays)}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            savez_atomic(path, meta=np.array(json.dumps(meta)), **arrays)
        except (OSError, DicejackError):
            pass  # a cache we cannot write only costs time
    _MEMO[key] = refs
    return refs


def compute_references(
    config: GradeConfig, *, workers: int | None, dask: str | None,
    executor: cf.Executor | None, progress: bool,
) -> References:
    """Compute the R reference and C calibration runs of `config` (no cache), through
    `executor`, else a local pool (`workers`) or Dask (`dask`), else in-process when small."""
    g = config.game
    params = (g.n_sides, g.low, g.high, g.n_dice)
    if executor is None and dask is None and workers is None:
        work = (config.references + config.calibration) * config.games
        workers = 1 if work <= INLINE_GAMES else None
    if executor is None and dask is None and workers != 1:
        reference_run(params, config.m, 1, 0)  # compile once before workers fork
    seeds = config.seeds + config.calibration_seeds
    tasks = [(params, config.m, config.games, s, reference_tie_break(i))
             for i, s in enumerate(seeds)]
    tasks += [(params, m, config.games, s, "lowest") for m, s in probe_plan(config)]
    rows = parallel.map_tasks(
        reference_run, tasks, workers=workers, dask=dask, executor=executor,
        label="reference runs", progress=progress,
    )
    r, c = config.references, config.calibration
    refs, held, probes = rows[:r], rows[r:r + c], rows[r + c:]
    return References(
        config, *(np.stack([row[i] for row in refs]) for i in range(7)),
        held_best=np.stack([row[0] for row in held]),
        held_probability=np.stack([row[1] for row in held]),
        probe_best=np.stack([row[0] for row in probes]),
        probe_probability=np.stack([row[1] for row in probes]),
        source="computed", cpu_seconds=float(sum(row[-1] for row in rows)),
    )


def forget_references(config: GradeConfig | None = None) -> None:
    """Drop the references of `config` (or all) from this process's memory cache."""
    if config is None:
        _MEMO.clear()
    else:
        _MEMO.pop(config.key(), None)
