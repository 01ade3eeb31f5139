"""The print-rule checks' model of the reference runs: each print rule applied to the runs' full
counts (:func:`rule_tables`) and the three sums of graded tables (:class:`PrintModel`); the
specification is :mod:`dicejack.grade.evidence.print_rules`. Kept below the calibration, which
scores the held-out runs with it."""

from __future__ import annotations

import math
import warnings

import numpy as np

from dicejack.grade.evidence.references import References

__all__ = ["PRINT_RULES", "PrintModel", "rule_tables", "SD_FLOOR", "CLIP", "BANDWIDTH_FLOOR"]

#: The print-only slips, by flag name, in the order of the statistics.
PRINT_RULES = ("printed-by-wins", "printed-by-plays", "printed-prob-of-most-played")
#: Smallest spread of a J's ratio over the reference runs (all runs alike at many games).
SD_FLOOR = 0.002
#: A state's log likelihood ratio is cut below at -CLIP: one state where a faithful program's
#: estimate happens to be high cannot hide the slip in the others.
CLIP = 1.0
#: Smallest kernel bandwidth of the printed value.
BANDWIDTH_FLOOR = 0.001



def _ratios(win: np.ndarray, lose: np.ndarray) -> np.ndarray:
    """(..., K) WinCount / (WinCount + LoseCount) per J = 1..K, NaN without data."""
    w = win[..., 1:].astype(np.float64)
    n = w + lose[..., 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, w / np.where(n > 0, n, 1.0), np.nan)


def rule_tables(win: np.ndarray, lose: np.ndarray, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """What a program that learned these counts prints by `rule` ("faithful" or one of
    :data:`PRINT_RULES`): (the set of J it may print, (..., K + 1) bool, ties left open;
    the printed estimate, 0 where the state has no data)."""
    w = win[..., 1:].astype(np.float64)
    plays = w + lose[..., 1:]
    has = plays > 0
    ratio = _ratios(win, lose)
    key = {"faithful": ratio, "printed-by-wins": w, "printed-by-plays": plays,
           "printed-prob-of-most-played": ratio}[rule]
    keyed = np.where(has, key, -np.inf)
    chosen = has & (keyed == keyed.max(axis=-1, keepdims=True))
    source = chosen
    if rule == "printed-prob-of-most-played":
        played = np.where(has, plays, -np.inf)
        source = has & (played == played.max(axis=-1, keepdims=True))
    first = source.argmax(axis=-1)
    value = np.take_along_axis(np.nan_to_num(ratio), first[..., None], axis=-1)[..., 0]
    sets = np.zeros(win.shape, dtype=bool)
    sets[..., 1:] = chosen
    return sets, np.where(has.any(axis=-1), value, 0.0)



class PrintModel:
    """What the statistics need from the reference runs at one printed precision, kept for the
    usable states only (flattened): nothing else enters a sum."""

    def __init__(self, refs: References, decimals: int | None) -> None:
        r, k = refs.best.shape[0], refs.game.n_dice
        rnd = (lambda a: a) if decimals is None else (lambda a: np.round(a, decimals))
        self.r, self.k = r, k
        self.states = np.flatnonzero(refs.usable)  # flat indices of the usable states
        u = self.states.size

        def usable(a: np.ndarray, lead: int = 0) -> np.ndarray:
            """a's usable states, flattened: a is (lead..., L, L, rest...)."""
            shape = a.shape[:lead] + (-1,) + a.shape[lead + 2:]
            return a.reshape(shape)[(slice(None),) * lead + (self.states,)]

        win, lose = usable(refs.win, 1), usable(refs.lose, 1)  # (R, U, K + 1)
        ratio = rnd(_ratios(win, lose))  # (R, U, K)
        self.n = np.sum(~np.isnan(ratio), axis=0)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a J no reference run played
            self.mean = np.nanmean(ratio, axis=0)
            sd = np.nanstd(ratio, axis=0, ddof=1)
        floor = SD_FLOOR if decimals is None else max(SD_FLOOR, 0.5 * 10.0**-decimals)
        sd = np.where(np.isfinite(sd), np.maximum(sd, floor), floor)
        self.scale = sd * np.sqrt(1.0 + 1.0 / np.maximum(self.n, 1))
        self.df = np.maximum(self.n - 1, 1).astype(np.float64)
        self.mean = np.where(self.n >= 2, self.mean, 0.0)
        self.picks = {rule: rule_tables(win, lose, rule)[0].sum(axis=0)  # (U, K + 1)
                      for rule in PRINT_RULES[:2]}
        faithful_sets, faithful_values = rule_tables(win, lose, "faithful")
        _, mixed_values = rule_tables(win, lose, PRINT_RULES[2])
        faithful_values, mixed_values = rnd(faithful_values), rnd(mixed_values)
        # The kernel ratio is exactly 0 where no reference run prints another value: skip those.
        self.mixed = np.flatnonzero((faithful_values != mixed_values).any(axis=0))
        self.mixed_sets = faithful_sets[:, self.mixed]  # (R, D, K + 1)
        self.mixed_values = (faithful_values[:, self.mixed], mixed_values[:, self.mixed])
        spread = faithful_values[:, self.mixed].std(axis=0)
        self.bandwidth = np.maximum(1.06 * spread * r ** -0.2, BANDWIDTH_FLOOR)
        self.rows = np.arange(u)

    def statistics(self, policy: np.ndarray, value: np.ndarray) -> np.ndarray:
        """The three sums (one per rule of PRINT_RULES) for graded tables."""
        from scipy.special import stdtr  # the t CDF as a ufunc: 20x faster than scipy.stats

        v = value.reshape(-1)[self.states]
        ok = (v > 0) & (policy.reshape(-1)[self.states] >= 1)
        j = np.clip(policy.reshape(-1)[self.states], 1, self.k)
        with np.errstate(divide="ignore"):
            cdf = stdtr(self.df, (v[:, None] - self.mean) / self.scale)
        log_cdf = np.where(self.n >= 2, np.log(np.maximum(cdf, 1e-300)), 0.0)
        others = log_cdf.sum(axis=-1) - log_cdf[self.rows, j - 1]
        out = np.empty(len(PRINT_RULES))
        for i, rule in enumerate(PRINT_RULES[:2]):
            picked = self.picks[rule][self.rows, j]
            term = np.log((picked + 1.0) / (self.r + self.k)) - others
            out[i] = float(np.maximum(term, -CLIP)[ok].sum())
        d = self.mixed
        holds = self.mixed_sets[:, np.arange(d.size), j[d]]  # (R, D)
        floor = 1.0 / ((self.r + 1) * self.k)
        dens = []
        for values in self.mixed_values:
            w = (v[d][None] - values) / self.bandwidth[None]
            kernel = np.exp(-0.5 * w * w) / (math.sqrt(2 * math.pi) * self.bandwidth[None])
            dens.append(np.log((holds * kernel).sum(axis=0) / self.r + floor))
        out[2] = float((dens[1] - dens[0])[ok[d]].sum())
        return out

