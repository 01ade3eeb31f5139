"""Grading student outputs: correct submissions pass in every layout; greedy, uniform, wrong-M,
wrong-p_J and transposed ones are flagged; the consistency test's false-alarm rate is nominal;
bad files become rows; nothing is written outside --out / --reports."""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import tempfile
from bisect import bisect_right
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack import formats, grade, learner
from dicejack.cli import main
from dicejack.game import Game

GAME = Game(n_sides=4, low=8, high=9, n_dice=2)
M = 100.0
GAMES = 20_000
CONFIG = grade.GradeConfig(GAME, M, GAMES)


@pytest.fixture(scope="module")
def refs() -> grade.References:
    return grade.reference_runs(CONFIG, cache_dir=False)


def tables(m: float = M, seed: int = 1, games: int = GAMES, **kw) -> tuple[np.ndarray, np.ndarray]:
    run = learner.learn(GAME, m, games, seed, **kw)
    return learner.learned_tables(run.win, run.lose)


def grade_of(refs, best, prob, **kw) -> grade.Grade:
    return grade.grade_tables(refs, best, prob, **kw)


# ------------------------------------------------------------------------------ layouts
def _f(v: float) -> str:
    return "-1" if v == -1 else f"{v:.4f}"


def _rows(a: np.ndarray, fmt, sep: str) -> str:
    return "\n".join(sep.join(fmt(v) for v in row) for row in a)


def layouts(best: np.ndarray, prob: np.ndarray) -> dict[str, str]:
    """The same tables printed five ways (probabilities to 4 decimals in all)."""
    p4 = np.where(prob >= 0, np.round(prob, 4), -1.0)
    return {
        "labelled": formats.format_table(best, "Best number of dice:", kind="int") + "\n"
        + formats.format_table(p4, "Win probability:"),
        "grid": f"Policy\n{_rows(best, str, ' ')}\n\nProbability\n{_rows(p4, _f, ' ')}\n",
        "csv": f"best dice\n{_rows(best, str, ',')}\nwin probability\n{_rows(p4, _f, ',')}\n",
        "list": f"{best.tolist()!r}\n{p4.tolist()!r}\n",
        "numpy": f"{best!r}\n\n{p4!r}\n",
    }


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


# ------------------------------------------------------------------------------ correct work
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_dicejacks_own_learner_passes(refs, seed):
    g = grade_of(refs, *tables(seed=seed))
    assert g.status == "ok" and g.verdict == "pass", (g.score, g.flags, g.consistency_p)
    assert g.score >= 90 and g.consistency_p >= 0.05 and g.flags == ()


def test_five_layouts_get_the_same_grade(refs, tmp_path):
    best, prob = tables(seed=5)
    texts = layouts(best, prob)
    paths = [write(tmp_path, f"{name}.txt", text) for name, text in texts.items()]
    grades = [grade.grade_file(refs, p) for p in paths]
    assert [g.status for g in grades] == ["ok"] * 5, [g.error for g in grades]
    assert len({g.layout for g in grades}) == 5
    first = grades[0]
    assert first.verdict == "pass"
    for g in grades[1:]:
        assert g.score == first.score and g.verdict == first.verdict
        assert g.consistency_p == pytest.approx(first.consistency_p, rel=1e-12)
        assert g.metrics == first.metrics


def test_random_tie_break_and_two_decimals_still_pass(refs):
    best, prob = tables(seed=6, tie_break="random")
    assert grade_of(refs, best, prob).verdict == "pass"
    for seed in (1, 2, 8):
        best, prob = tables(seed=seed)
        full = grade_of(refs, best, prob)
        rounded = grade_of(refs, best, np.where(prob >= 0, np.round(prob, 2), -1.0))
        # the references and the null are rounded likewise: the same verdict, a close p
        assert rounded.consistency.decimals == 2 and rounded.verdict == full.verdict == "pass"
        assert abs(np.log(rounded.consistency_p / full.consistency_p)) < 1.0


def test_no_data_conventions(refs):
    best, prob = tables(seed=8)
    unvisited = best == 0
    assert unvisited.any()
    as_printed = grade_of(refs, best, prob)
    # 0 / 0 for "nothing", NaN probability, or J = 1 beside -1: the same grade, no flags.
    zeros = grade_of(refs, best, np.where(unvisited, 0.0, prob))
    nans = grade_of(refs, best, np.where(unvisited, np.nan, prob), no_data=unvisited)
    ones = grade_of(refs, np.where(unvisited, 1, best), prob)
    for g in (zeros, nans, ones):
        assert g.score == as_printed.score and g.flags == as_printed.flags
        assert g.consistency_p == pytest.approx(as_printed.consistency_p)


# ------------------------------------------------------------------------------ wrong work
def test_transposed_tables_are_flagged_and_graded_as_found(refs):
    best, prob = tables(seed=9)
    g = grade_of(refs, best.T, prob.T)
    assert "transposed" in g.flags and g.verdict == "fail"
    assert g.consistency_p < 1e-3
    assert g.points["format"] == 0
    straight = grade_of(refs, best, prob)
    assert g.metrics["agreement_decisive"] < straight.metrics["agreement_decisive"]


def test_greedy_play_the_wrong_m_is_flagged(refs):
    g = grade_of(refs, *tables(m=0.0, seed=10))
    assert g.verdict == "fail" and g.consistency_p < 1e-3 and "inconsistent" in g.flags


def test_m_ten_times_too_small_is_flagged(refs):
    g = grade_of(refs, *tables(m=M / 10, seed=11))
    assert g.consistency_p < 0.05 and g.verdict != "pass"


def test_uniform_random_play_is_flagged(refs):
    g = grade_of(refs, *tables(m=1e12, seed=12))  # p_J = 1/K whatever the counts
    assert g.consistency_p < 0.05 and g.verdict != "pass"


def _learn_variant(game: Game, m: float, games: int, seed: int, wrong: bool):
    """The handout's learner in plain Python; `wrong` drops the (1 - p_B) factor from p_J."""
    rng = np.random.default_rng(seed)
    k, low, high = game.n_dice, game.low, game.high
    win = np.zeros(game.table_shape, dtype=np.int64).tolist()
    lose = np.zeros(game.table_shape, dtype=np.int64).tolist()
    cdf = game.sum_cdf_table.tolist()
    for _ in range(games):
        a = b = mover = 0
        moves = []
        while True:
            w, lo = win[a][b], lose[a][b]
            t = sum(w) + sum(lo)
            f = [0.0] * (k + 1)
            best = 1
            for j in range(1, k + 1):
                d = w[j] + lo[j]
                f[j] = w[j] / d if d else 0.5
                if f[j] > f[best]:
                    best = j
            pb = (t * f[best] + m) / (t * f[best] + k * m)
            g = sum(f[j] for j in range(1, k + 1) if j != best)
            rest = 1.0 if wrong else 1.0 - pb
            p = [0.0] + [pb if j == best else rest * (t * f[j] + m) / (g * t + (k - 1) * m)
                         for j in range(1, k + 1)]
            x, j, u = rng.random(), k, 0.0
            for i in range(1, k):
                u += p[i]
                if x < u:
                    j = i
                    break
            total = bisect_right(cdf[j], rng.random())
            moves.append((a, b, j))
            if a + total > high or a + total >= low:
                winner = mover if a + total <= high else 1 - mover
                break
            a, b, mover = b, a + total, 1 - mover
        for i, (x, y, j) in enumerate(moves):
            (win if i % 2 == winner else lose)[x][y][j] += 1
    return learner.learned_tables(np.array(win), np.array(lose))


def test_python_variant_matches_the_learner():
    best, prob = _learn_variant(GAME, M, 300, 13, wrong=False)
    b2, p2 = tables(seed=13, games=300)
    np.testing.assert_array_equal(best, b2)
    np.testing.assert_array_equal(prob, p2)


def test_wrong_p_j_formula_is_flagged(refs):
    g = grade_of(refs, *_learn_variant(GAME, M, GAMES, 14, wrong=True))
    assert g.consistency_p < 1e-3 and g.verdict == "fail"


def test_policy_off_by_one_is_flagged(refs):
    best, prob = tables(seed=15)
    g = grade_of(refs, np.where(best > 0, best - 1, 0), prob)
    assert "data-without-policy" in g.flags and g.verdict != "pass"


def test_probabilities_and_policy_out_of_range_are_flagged(refs):
    best, prob = tables(seed=16)
    bad_p = prob.copy()
    bad_p[0, 0] = 1.5
    bad_b = best.copy()
    bad_b[0, 1] = 7
    g = grade_of(refs, bad_b, bad_p)
    assert {"prob-out-of-range", "policy-out-of-range"} <= set(g.flags)
    assert g.verdict != "pass" and g.points["format"] < grade.FORMAT_POINTS


def test_empty_tables_are_no_data(refs):
    g = grade_of(refs, np.zeros(GAME.shape), -np.ones(GAME.shape))
    assert "no-data" in g.flags and g.verdict == "fail"


# ------------------------------------------------------------------------------ calibration
def test_false_alarm_rate_is_nominal_on_fresh_seeds():
    """10 reference sets x 60 fresh correct runs: P(p < 0.05) and P(p < 0.01) near nominal."""
    ps = []
    for s in range(10):
        cfg = grade.GradeConfig(GAME, M, GAMES, seed=10_000 + 100 * s)
        refs = grade.reference_runs(cfg, cache_dir=False)
        for seed in range(50_000 + 60 * s, 50_000 + 60 * (s + 1)):
            best, prob = tables(seed=seed)
            ps.append(grade.consistency(refs, best, prob).p_value)
    ps = np.array(ps)
    assert abs(np.mean(ps < 0.05) - 0.05) <= 0.02, np.mean(ps < 0.05)
    assert np.mean(ps < 0.01) <= 0.025


def test_null_is_the_held_out_calibration_runs(refs):
    c = CONFIG.calibration
    assert refs.null.shape == (c,) and np.all(np.isfinite(refs.null))
    mean, sd, n = refs.null_fit
    assert n == c and mean == pytest.approx(np.log(refs.null).mean())
    assert sd == pytest.approx(np.log(refs.null).std(ddof=1))
    # calibration run 0 is a faithful run at the seed after the references', scored like a
    # submission
    assert CONFIG.calibration_seeds[0] == CONFIG.seed + CONFIG.references
    tie = grade.reference_tie_break(CONFIG.references)
    best, prob = tables(seed=CONFIG.calibration_seeds[0], tie_break=tie)
    np.testing.assert_array_equal(refs.held_best[0], best)
    own = grade.consistency(refs, best, prob)
    assert own.statistic == pytest.approx(refs.null[0])
    # the references themselves are not in the null
    assert not np.any(np.isin(CONFIG.calibration_seeds, CONFIG.seeds))


# ------------------------------------------------------------------------------ rubric
def test_rubric_pieces():
    assert grade.consistency_points(0.5) == grade.CONSISTENCY_POINTS
    assert grade.consistency_points(0.0005) == 0
    assert 0 < grade.consistency_points(0.01) < grade.CONSISTENCY_POINTS
    assert grade.consistency_points(math.nan) == grade.CONSISTENCY_POINTS
    ref = np.linspace(0.8, 1.0, 30)
    assert grade.quality_fraction(0.95, ref, +1, 0.01) == 1.0
    assert grade.quality_fraction(0.0, ref, +1, 0.01) == 0.0
    assert 0 < grade.quality_fraction(0.7, ref, +1, 0.01) < 1
    assert grade.quality_fraction(math.nan, ref, +1, 0.01) == 0.0
    assert grade.quality_fraction(0.5, ref, -1, 0.01) == 1.0  # lower is better
    assert grade.quality_fraction(1.5, ref, -1, 0.01) == 0.0
    assert grade.verdict_for(95, 0.5, ()) == "pass"
    assert grade.verdict_for(95, 0.01, ()) == "review"
    assert grade.verdict_for(95, 0.5, ("transposed",)) == "review"
    assert grade.verdict_for(95, 0.5, ("unlabelled",)) == "pass"
    assert grade.verdict_for(95, 0.0001, ()) == "review"  # small, but chance can do it
    assert grade.verdict_for(95, 1e-6, ()) == "fail"  # evidence of another algorithm
    assert grade.verdict_for(40, 0.5, ()) == "review"  # low quality alone is never a fail
    assert grade.verdict_for(40, 0.5, ("no-data",)) == "fail"
    assert grade.verdict_for(95, 0.5, ("copied",)) == "review"


def test_bad_settings_raise_grade_error():
    for kw in ({"m": -1.0}, {"games": 0}, {"references": 2}, {"seed": -1}, {"games": 1.5}):
        args = {"game": GAME, "m": M, "games": GAMES, **kw}
        with pytest.raises(grade.GradeError):
            grade.GradeConfig(**args)


# ------------------------------------------------------------------------------ files
def test_bad_files_get_rows_and_the_batch_goes_on(refs, tmp_path):
    best, prob = tables(seed=17)
    good = layouts(best, prob)["labelled"]
    files = {
        "good.txt": good,
        "empty.txt": "",
        "blank.txt": "\n \n\t\n",
        "truncated.txt": good[: len(good) * 2 // 3],
        "garbage.txt": "Segmentation fault (core dumped)\n",
        "binary.bin": bytes(range(256)) * 40,
        "wrong-game.txt": layouts(np.ones((5, 5), int), np.full((5, 5), 0.5))["grid"],
    }
    paths = [write(tmp_path, name, text) for name, text in files.items()]
    big = tmp_path / "huge.txt"
    with open(big, "wb") as fh:
        fh.truncate(grade.MAX_SUBMISSION_BYTES + 1)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    paths += [big, fifo, tmp_path / "missing.txt", tmp_path]
    out = tmp_path / "book.csv"
    _, grades = grade.grade_files(CONFIG, paths, out=out, cache_dir=False)
    status = {Path(g.submission).name: g.status for g in grades}
    assert status.pop("good.txt") == "ok"
    assert set(status.values()) == {"error"}
    for g in grades[1:]:
        assert g.error and "\n" not in g.error and g.verdict == "fail" and g.score == 0
    assert "10 MiB" in grades[paths.index(big)].error
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == grade.GRADEBOOK_HEADER
    assert len(rows) == 1 + len(paths)
    assert [r[1] for r in rows[1:]].count("ok") == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(
    st.binary(max_size=2000),
    st.text(max_size=2000),
    st.text(alphabet="0123456789.-,; []\n\t|:eEnaN", max_size=3000),
))
def test_fuzz_no_input_crashes_grading(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sub.txt"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "replace"))
        g = grade.grade_file(_fuzz_refs(), path)
        assert g.status in ("ok", "error") and "internal error" not in g.error
        assert sorted(os.listdir(tmp)) == ["sub.txt"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cut=st.integers(0, 10_000), junk=st.text(max_size=40), where=st.integers(0, 10_000))
def test_fuzz_damaged_real_submissions(cut, junk, where):
    text = _fuzz_text()
    text = text[: cut % (len(text) + 1)]
    at = where % (len(text) + 1)
    text = text[:at] + junk + text[at:]
    g = grade.grade_file(_fuzz_refs(), _fuzz_file(text))
    assert g.status in ("ok", "error") and "internal error" not in g.error


_FUZZ: dict[str, object] = {}


def _fuzz_refs() -> grade.References:
    if "refs" not in _FUZZ:
        _FUZZ["refs"] = grade.reference_runs(CONFIG, cache_dir=False)
    return _FUZZ["refs"]  # type: ignore[return-value]


def _fuzz_text() -> str:
    if "text" not in _FUZZ:
        _FUZZ["text"] = layouts(*tables(seed=18))["labelled"]
    return _FUZZ["text"]  # type: ignore[return-value]


def _fuzz_file(text: str) -> Path:
    if "dir" not in _FUZZ:
        _FUZZ["dir"] = tempfile.mkdtemp(prefix="dicejack-fuzz-")
    path = Path(_FUZZ["dir"]) / "sub.txt"  # type: ignore[arg-type]
    path.write_text(text, encoding="utf-8", errors="replace")
    return path


# ------------------------------------------------------------------------------ outputs
def test_report_names_stay_inside_the_folder():
    subs = ["../../etc/passwd", "/abs/path/a.txt", "a/b.txt", "c/b.txt", "x\\..\\y.txt", ".hidden",
            "..", "", "ünï cødé.txt", "A/B.TXT", "a" * 300, "a" * 300 + "b"]
    names = grade.report_names(subs)
    assert len(set(n.lower() for n in names)) == len(names)
    for n in names:
        assert "/" not in n and "\\" not in n and not n.startswith(".") and 0 < len(n) <= 80
        assert set(n) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def test_reports_and_gradebook_are_the_only_outputs(refs, tmp_path, monkeypatch):
    work = tmp_path / "work"
    subs = work / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "bob").mkdir()
    best, prob = tables(seed=19)
    text = layouts(best, prob)["grid"]
    paths = [write(subs / "alice", "out.txt", text),
             write(subs / "bob", "out.txt", layouts(best.T, prob.T)["grid"]),
             write(subs, "=HYPERLINK(1).txt", text),
             write(subs, "bad.txt", "")]
    monkeypatch.chdir(subs)
    paths = [p.relative_to(subs) for p in paths]
    before = {p for p in tmp_path.rglob("*")}
    out = tmp_path / "book.csv"
    reports = tmp_path / "reports"
    _, grades = grade.grade_files(CONFIG, paths, out=out, reports=reports, cache_dir=False)
    created = {p for p in tmp_path.rglob("*")} - before
    assert all(p == out or p == reports or p.parent == reports for p in created), created
    mds = sorted(p.name for p in reports.glob("*.md"))
    assert len(mds) == 4 and len(list(reports.glob("*.png"))) == 3
    alice = (reports / "alice__out.txt.md").read_text()
    assert "![heatmap](alice__out.txt.png)" in alice
    # alice's and the =HYPERLINK file are the same tables: both flagged, naming each other
    assert "`copied`" in alice and "`=HYPERLINK(1).txt`" in alice
    assert grades[0].similar_to == ("=HYPERLINK(1).txt",) and grades[0].verdict == "review"
    assert grades[2].similar_to == ("alice/out.txt",) and grades[1].similar_to == ()
    assert "transposed" in (reports / "bob__out.txt.md").read_text()
    book = out.read_text()
    assert "'=HYPERLINK" in book and "\n=HYPERLINK" not in book and ",=HYPERLINK" not in book


def test_output_paths_are_checked_before_any_work(tmp_path):
    with pytest.raises(grade.GradeError, match="folder"):
        grade.grade_files(CONFIG, ["x"], out=tmp_path, cache_dir=False)
    with pytest.raises(grade.GradeError, match="does not exist"):
        grade.grade_files(CONFIG, ["x"], out=tmp_path / "no" / "book.csv", cache_dir=False)
    (tmp_path / "file").write_text("")
    with pytest.raises(grade.GradeError, match="not a folder"):
        grade.grade_files(CONFIG, ["x"], reports=tmp_path / "file", cache_dir=False)


# ------------------------------------------------------------------------------ cache
def test_references_are_cached_on_disk_and_in_memory(tmp_path, monkeypatch):
    cfg = grade.GradeConfig(GAME, M, 500, references=6, seed=77)
    grade._MEMO.pop(cfg.key(), None)
    first = grade.reference_runs(cfg, cache_dir=tmp_path)
    assert first.source == "computed" and (tmp_path / f"{cfg.key()}.npz").is_file()
    assert grade.reference_runs(cfg, cache_dir=tmp_path).source == "memory"
    grade._MEMO.pop(cfg.key())
    again = grade.reference_runs(cfg, cache_dir=tmp_path)
    assert again.source == "disk cache"
    np.testing.assert_array_equal(again.probability, first.probability)
    np.testing.assert_array_equal(again.metrics, first.metrics)
    np.testing.assert_array_equal(again.null, first.null)
    # A damaged cache file is recomputed; the environment variable moves the default folder.
    grade._MEMO.pop(cfg.key())
    (tmp_path / f"{cfg.key()}.npz").write_bytes(b"PK\x03\x04 not a zip")
    assert grade.reference_runs(cfg, cache_dir=tmp_path).source == "computed"
    monkeypatch.setenv("DICEJACK_CACHE", str(tmp_path / "env"))
    assert grade.default_cache_dir() == tmp_path / "env" / "grade"
    other = grade.GradeConfig(GAME, 10.0, 500, references=6, seed=77)
    assert other.key() != cfg.key()


def test_references_do_not_depend_on_the_executor():
    import concurrent.futures as cf

    cfg = grade.GradeConfig(GAME, M, 300, references=5, seed=5)
    inline = grade._compute(cfg, workers=1, dask=None, executor=None, progress=False)
    results = []
    with cf.ThreadPoolExecutor(2) as pool:
        results.append(grade._compute(cfg, workers=None, dask=None, executor=pool,
                                      progress=False))
    results.append(grade._compute(cfg, workers=2, dask=None, executor=None, progress=False))
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        results.append(grade._compute(cfg, workers=None, dask=cluster.scheduler_address,
                                      executor=None, progress=False))
    for other in results:
        np.testing.assert_array_equal(inline.best, other.best)
        np.testing.assert_array_equal(inline.probability, other.probability)
        np.testing.assert_array_equal(inline.metrics, other.metrics)


# ------------------------------------------------------------------------------ CLI
def test_cli_grade_writes_the_gradebook_and_reports(tmp_path, capsys):
    best, prob = tables(seed=20)
    a = write(tmp_path, "a.txt", layouts(best, prob)["csv"])
    b = write(tmp_path, "b.txt", "nothing here\n")
    out, reports = tmp_path / "g.csv", tmp_path / "r"
    code = main(["grade", str(a), str(b), "--sides", "4", "--low", "8", "--high", "9", "--dice",
                 "2", "-m", "100", "--games", str(GAMES), "--out", str(out), "--reports",
                 str(reports), "--cache", str(tmp_path / "cache")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "a.txt" in captured.out and "pass" in captured.out and "1 unreadable" in captured.out
    assert out.read_text().splitlines()[0] == ",".join(grade.GRADEBOOK_HEADER)
    assert (reports / "a.txt.md").is_file() and (reports / "b.txt.md").is_file()


@pytest.mark.parametrize("args, message", [
    (["-m", "100", "--games", "0"], "games"),
    (["-m", "-3", "--games", "10"], "M must be"),
    (["-m", "100", "--games", "10", "--references", "2"], "references"),
    (["-m", "100", "--games", "10", "--workers", "0"], "workers"),
    (["--games", "10"], "-m"),
])
def test_cli_grade_bad_settings_exit_2(capsys, tmp_path, args, message):
    code = main(["grade", str(tmp_path / "x.txt"), "--out", str(tmp_path / "g.csv"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "g.csv").exists()


# ------------------------------------------------------------------------------ free choices
def test_graded_tables_read_every_no_data_convention_as_zero():
    pol = np.array([[2, 0, 1, -1, 2, 1]]).repeat(6, axis=0)[:6, :6]
    prob = np.array([[0.6, 0.0, 0.0, -1.0, np.nan, 1.5]]).repeat(6, axis=0)
    game = Game(n_sides=3, low=6, high=7, n_dice=2)
    j, value, valid = grade.graded_tables(game, pol, prob, np.isnan(prob) | (prob == -1))
    # estimate 0.6 keeps its J; "0/0.0", "1/0.0", "-1/-1", "2/nan" and an out-of-range 1.5
    # are all value 0 with no graded J
    np.testing.assert_array_equal(j[0], [2, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(value[0], [0.6, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(valid[0], [True, False, True, False, True, True])


def _print_conventions(run, rng):
    """dicejack's tables printed in the ways the handout leaves open."""
    best, prob = learner.learned_tables(run.win, run.lose)
    tied = learner.tied_best(run.win, run.lose)
    random_tie = best.copy()
    for x, y in zip(*np.nonzero(tied.sum(axis=-1) > 1), strict=True):
        random_tie[x, y] = rng.choice(np.flatnonzero(tied[x, y]))
    none = best == 0
    lost = prob == 0
    return {
        "lowest J, -1": (best, prob),
        "random tied J": (random_tie, prob),
        "0 / 0": (np.where(none | lost, 0, best), np.where(none, 0.0, prob)),
        "random J / 0.0": (np.where(none, rng.integers(1, 3, best.shape), best),
                           np.where(none, 0.0, prob)),
        "J / nan": (np.where(none, 1, best), np.where(none, np.nan, prob)),
    }


def test_printing_conventions_get_the_same_grade(refs):
    """Every convention the handout leaves open gives exactly the same statistic and score."""
    rng = np.random.default_rng(3)
    for seed in (21, 22, 23):
        run = learner.learn(GAME, M, GAMES, seed, tie_break="random")
        grades = {name: grade_of(refs, b, p, no_data=np.isnan(p) | (p == -1))
                  for name, (b, p) in _print_conventions(run, rng).items()}
        first = grades["lowest J, -1"]
        for name, g in grades.items():
            assert g.consistency.statistic == pytest.approx(first.consistency.statistic), name
            assert g.score == first.score and g.flags == first.flags, name


def test_references_mix_both_tie_breaks():
    assert [grade.reference_tie_break(i) for i in range(4)] == ["lowest", "random"] * 2


def test_null_at_printed_precision_is_its_own_leave_one_out(refs):
    null2 = refs.null_at(2)
    assert null2.shape == refs.null.shape and not np.array_equal(null2, refs.null)
    best, prob = tables(seed=24)
    g = grade_of(refs, best, np.where(prob >= 0, np.round(prob, 2), -1.0))
    assert g.decimals == 2 and g.consistency.null_mean == pytest.approx(null2.mean())


# ------------------------------------------------------------------------------ copies
def test_copies_are_flagged_and_independent_runs_are_not(refs):
    outputs = [tables(seed=s) for s in range(30, 50)]
    grades = [grade_of(refs, b, p, submission=f"s{i}") for i, (b, p) in enumerate(outputs)]
    b, p = outputs[0]
    rounded = np.where(p >= 0, np.round(p, 3), -1.0)
    grades.append(grade_of(refs, b, rounded, submission="rounded copy of s0"))
    b, p = outputs[1]
    grades.append(grade_of(refs, b, p, submission="exact copy of s1"))
    marked = grade.mark_copies(refs, grades)
    by_name = {g.submission: g for g in marked}
    assert by_name["rounded copy of s0"].similar_to == ("s0",)
    assert by_name["s0"].similar_to == ("rounded copy of s0",)
    assert by_name["exact copy of s1"].similar_to == ("s1",)
    assert "copied" in by_name["s1"].flags and by_name["s1"].verdict == "review"
    assert all(not by_name[f"s{i}"].similar_to for i in range(2, 20))
    # the threshold is below the closest pair of independent reference runs
    assert 0 < grade.COPY_FACTOR * refs.copy_distance < refs.copy_distance


def test_copy_distance_is_calibrated_on_independent_runs(refs):
    values = np.round(refs.values, grade.COPY_DECIMALS)
    d = grade.pairwise_distances(values)
    assert d[0, 1] == pytest.approx(grade.table_distance(values[0], values[1]))
    assert refs.copy_distance == pytest.approx(np.nanmin(d[np.triu_indices(30, 1)]))
    assert np.isnan(d[0, 0]) or d[0, 0] == 0


# ------------------------------------------------------------------------------ reports
def test_reports_open_with_a_plain_paragraph_and_what_if_scores(refs):
    best, prob = tables(seed=25)
    t = grade_of(refs, best.T, prob.T, submission="t")
    assert "transposed back" in t.what_if and t.what_if["transposed back"] > t.score + 30
    md = grade.report_markdown(refs, t)
    assert "Check first:" in md and "would be" in md
    shifted = grade_of(refs, np.where(best > 0, best - 1, 0), prob, submission="z")
    assert "data-without-policy" in shifted.flags
    assert shifted.what_if["J shifted by one"] > shifted.score
    ok = grade_of(refs, best, prob, submission="ok")
    assert ok.verdict == "pass" and "Your tables look like" in grade.report_markdown(refs, ok)
    review = grade.plain_summary(dataclasses.replace(ok, verdict="review"))
    assert "5% of correct programs" in review
