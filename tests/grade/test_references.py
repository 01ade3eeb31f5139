"""Reference and calibration runs: settings, tie-break mix, cache, executors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dicejack import grade
from dicejack.grade.evidence.calibration import calibration
from dicejack.grade.evidence.references import (
    compute_references,
    default_cache_dir,
    forget_references,
    reference_tie_break,
)

from .support import GAME, GAMES, M


def test_bad_settings_raise_grade_error():
    for kw in ({"m": -1.0}, {"games": 0}, {"references": 2}, {"seed": -1}, {"games": 1.5}):
        args = {"game": GAME, "m": M, "games": GAMES, **kw}
        with pytest.raises(grade.GradeError):
            grade.GradeConfig(**args)


def test_references_mix_both_tie_breaks():
    assert [reference_tie_break(i) for i in range(4)] == ["lowest", "random"] * 2


def test_references_are_cached_on_disk_and_in_memory(tmp_path, monkeypatch):
    cfg = grade.GradeConfig(GAME, M, 500, references=6, seed=77)
    forget_references(cfg)
    first = grade.reference_runs(cfg, cache_dir=tmp_path)
    assert first.source == "computed" and (tmp_path / f"{cfg.key()}.npz").is_file()
    assert grade.reference_runs(cfg, cache_dir=tmp_path).source == "memory"
    forget_references(cfg)
    again = grade.reference_runs(cfg, cache_dir=tmp_path)
    assert again.source == "disk cache"
    np.testing.assert_array_equal(again.probability, first.probability)
    np.testing.assert_array_equal(again.metrics, first.metrics)
    np.testing.assert_array_equal(calibration(again).null,
                                  calibration(first).null)
    # A damaged cache file is recomputed; the environment variable moves the default folder.
    forget_references(cfg)
    (tmp_path / f"{cfg.key()}.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.warns(grade.GradeWarning, match="was invalid"):
        assert grade.reference_runs(cfg, cache_dir=tmp_path).source == "computed"
    monkeypatch.setenv("DICEJACK_CACHE", str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env" / "grade"
    other = grade.GradeConfig(GAME, 10.0, 500, references=6, seed=77)
    assert other.key() != cfg.key()


def test_references_do_not_depend_on_the_executor():
    import concurrent.futures as cf

    cfg = grade.GradeConfig(GAME, M, 300, references=5, seed=5)
    inline = compute_references(cfg, workers=1, dask=None, executor=None, progress=False)
    results = []
    with cf.ThreadPoolExecutor(2) as pool:
        results.append(compute_references(cfg, workers=None, dask=None, executor=pool,
                                      progress=False))
    results.append(compute_references(cfg, workers=2, dask=None, executor=None,
                                            progress=False))
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        results.append(compute_references(cfg, workers=None, dask=cluster.scheduler_address,
                                      executor=None, progress=False))
    for other in results:
        np.testing.assert_array_equal(inline.best, other.best)
        np.testing.assert_array_equal(inline.probability, other.probability)
        np.testing.assert_array_equal(inline.metrics, other.metrics)


def test_a_calibration_is_kept_per_reference_set_and_shared_by_memory_copies(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from dicejack.grade.evidence.calibration import CALIBRATIONS_KEPT

    cfg = grade.GradeConfig(GAME, M, 500, references=6, seed=91)
    forget_references(cfg)
    first = grade.reference_runs(cfg, cache_dir=False)
    again = grade.reference_runs(cfg, cache_dir=False)
    assert again is not first and again.source == "memory"
    assert calibration(again) is calibration(first)  # one reference set, one calibration
    fresh = grade.References(*(getattr(first, f.name) for f in dataclasses.fields(first)))
    assert calibration(fresh) is not calibration(first)  # another object: its own
    sets = [dataclasses.replace(first) for _ in range(2 * CALIBRATIONS_KEPT)]
    with ThreadPoolExecutor(4) as pool:  # many sets from threads: no lost or broken entry
        cals = list(pool.map(calibration, sets * 3))
    assert all(c.refs is s for c, s in zip(cals, sets * 3, strict=True))
    assert calibration(first).refs is first
