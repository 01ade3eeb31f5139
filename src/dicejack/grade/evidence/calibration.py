"""The calibration built from a reference set: what the held-out faithful runs (and the reference
runs among themselves) say a faithful program looks like. The consistency statistic's null, the
print-rule checks' model and null, and the copy distance, each computed once per printed
precision and kept with the :class:`Calibration`, an object of its own beside the
:class:`~dicejack.grade.evidence.references.References` it is built from."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from dicejack.grade.evidence.copies import COPY_DECIMALS, pairwise_distances
from dicejack.grade.evidence.print_model import PRINT_RULES, PrintModel
from dicejack.grade.evidence.printed import as_printed
from dicejack.grade.evidence.references import References
from dicejack.grade.evidence.statistic import NULL_SD_FLOOR, statistic_terms

__all__ = ["Calibration", "calibration", "CALIBRATIONS_KEPT"]

#: How many calibrations this process keeps (the most recently used; one per reference set).
CALIBRATIONS_KEPT = 16


@dataclass(frozen=True, eq=False)
class Calibration:
    """What the held-out runs of `refs` calibrate, per printed precision (`decimals`, None =
    full precision), computed on first use and kept."""

    refs: References
    _nulls: dict[int | None, np.ndarray] = field(default_factory=dict, init=False, repr=False)
    _models: dict[int | None, PrintModel] = field(default_factory=dict, init=False, repr=False)
    _print_nulls: dict[int | None, np.ndarray] = field(default_factory=dict, init=False,
                                                       repr=False)

    def held_out(self, decimals: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The C held-out runs as dicejack prints them at `decimals`: (J, value), each
        (C, L, L) (:func:`~dicejack.grade.evidence.printed.as_printed`)."""
        return as_printed(self.refs.held_best, self.refs.held_probability, decimals)

    @property
    def null(self) -> np.ndarray:
        """The null statistics at full precision; see :meth:`null_at`."""
        return self.null_at(None)

    def null_at(self, decimals: int | None) -> np.ndarray:
        """T of each held-out calibration run, printed as dicejack prints (lowest tied J) with
        `decimals` decimals, scored against the R references exactly as a submission is: draws
        of T under "a faithful program", given this reference set."""
        if decimals not in self._nulls:
            refs = self.refs
            policy, value = self.held_out(decimals)
            out = np.empty(policy.shape[0])
            for c in range(out.size):
                per, _ = statistic_terms(refs, policy[c], value[c], decimals)
                out[c] = per[refs.usable].mean() if refs.usable.any() else np.nan
            self._nulls[decimals] = out
        return self._nulls[decimals]

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

    def print_model(self, decimals: int | None) -> PrintModel:
        """The print-rule checks' model of the reference runs at `decimals`."""
        if decimals not in self._models:
            self._models[decimals] = PrintModel(self.refs, decimals)
        return self._models[decimals]

    def print_null(self, decimals: int | None) -> np.ndarray:
        """(C, 3) print-rule sums of the held-out runs, printed as dicejack prints at
        `decimals`: the print-rule checks' null."""
        if decimals not in self._print_nulls:
            model = self.print_model(decimals)
            policy, value = self.held_out(decimals)
            rows = [model.statistics(policy[c], value[c]) for c in range(policy.shape[0])]
            self._print_nulls[decimals] = np.array(rows).reshape(-1, len(PRINT_RULES))
        return self._print_nulls[decimals]

    @cached_property
    def copy_distance(self) -> float:
        """The smallest :func:`~dicejack.grade.evidence.copies.table_distance` between two
        independent reference runs (their estimates printed to 3 decimals): learned tables are
        random, so no two honest outputs come closer than independent runs ever do."""
        values = np.round(self.refs.values, COPY_DECIMALS)
        d = pairwise_distances(values)
        upper = d[np.triu_indices(d.shape[0], 1)]
        upper = upper[np.isfinite(upper)]
        return float(upper.min()) if upper.size else math.nan


#: The calibrations of this process, by their reference set (:attr:`References.run_set`: a set
#: served again from memory is the same set), most recent last.
_KEPT: OrderedDict[int, Calibration] = OrderedDict()


#: grade --run grades runs in threads: the kept calibrations change under this lock.
_LOCK = threading.Lock()


def calibration(refs: References) -> Calibration:
    """The calibration of `refs`, built once and kept (the last CALIBRATIONS_KEPT)."""
    key = id(refs.run_set)
    with _LOCK:
        cal = _KEPT.get(key)
        if cal is None or cal.refs.run_set is not refs.run_set:
            cal = Calibration(refs)
            _KEPT[key] = cal
            while len(_KEPT) > CALIBRATIONS_KEPT:
                _KEPT.popitem(last=False)
        _KEPT.move_to_end(key)
    return cal
