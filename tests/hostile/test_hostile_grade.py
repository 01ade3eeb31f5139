"""Hostile inputs to `dicejack grade`: crafted reference caches, unreadable submission files,
outputs that would overwrite inputs, absurd settings. No traceback, no hang, nothing lost."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack import grade
from dicejack.grade.evidence.references import forget_references
from dicejack.grade.intake.inputs import MAX_SUBMISSION_BYTES
from dicejack.grade.outputs.gradebook import GRADEBOOK_HEADER, gradebook_csv
from dicejack.grade.outputs.terminal import summary_text
from dicejack.grade.settings import MAX_REFERENCE_GAMES
from tests.games import SMALL as GAME
from tests.hostile.support import submission_text

CFG = grade.GradeConfig(GAME, 100.0, 3000, references=10, calibration=10, seed=4242)
ARRAYS = ("best", "probability", "tied", "visits", "metrics", "win", "lose", "held_best",
          "held_probability", "probe_best", "probe_probability")
HYP = settings(max_examples=40, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """The true references and the bytes of their cache file."""
    folder = tmp_path_factory.mktemp("cache")
    forget_references(CFG)
    refs = grade.reference_runs(CFG, cache_dir=folder)
    path = folder / f"{CFG.key()}.npz"
    with np.load(path, allow_pickle=False) as npz:
        data = {k: npz[k] for k in npz.files}
    return refs, data


def rehash(data: dict) -> dict:
    """What an attacker who knows the scheme does: recompute the content hash."""
    h = hashlib.sha256()
    for name in ARRAYS:
        a = np.ascontiguousarray(data[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    meta = json.loads(str(data["meta"]))
    meta["sha256"] = h.hexdigest()
    return {**data, "meta": np.array(json.dumps(meta))}


def load_crafted(folder: Path, data: dict) -> grade.References:
    np.savez(folder / f"{CFG.key()}.npz", **data)
    forget_references(CFG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", grade.GradeWarning)
        return grade.reference_runs(CFG, cache_dir=folder)


def assert_true_refs(refs: grade.References, truth: grade.References) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(refs, name), getattr(truth, name))
        assert getattr(refs, name).dtype == getattr(truth, name).dtype or name in (
            "best", "held_best")


# ------------------------------------------------------------------- 1. the reference cache
def test_intact_cache_is_used(tmp_path, pristine):
    truth, data = pristine
    refs = load_crafted(tmp_path, data)
    assert refs.source == "disk cache" and refs.notice == ""
    assert_true_refs(refs, truth)


HOSTILE_VALUES = [99, -7, -1, 0, 1, 2, 3, 0.5, -0.5, 2.0, np.nan, np.inf, -np.inf, True, 1e300]


@HYP
@given(name=st.sampled_from(ARRAYS), where=st.floats(0, 1, exclude_max=True),
       value=st.sampled_from(HOSTILE_VALUES), fix_hash=st.booleans())
def test_any_edited_cache_is_recomputed_or_equal(tmp_path, pristine, name, where, value,
                                                 fix_hash):
    """One cell of any array set to a hostile value (with the hash recomputed or not): what
    grading uses is always the true references, and never a crash."""
    truth, data = pristine
    arr = data[name].copy()
    flat = arr.reshape(-1)
    i = int(where * flat.size)
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            flat[i] = value
        except (ValueError, OverflowError):
            return
    crafted = {**data, name: arr}
    refs = load_crafted(tmp_path, rehash(crafted) if fix_hash else crafted)
    changed = not np.array_equal(arr, data[name], equal_nan=arr.dtype.kind == "f")
    if not changed:
        assert refs.source == "disk cache"
    elif not fix_hash:
        assert refs.source == "computed" and "hash" in refs.notice
    if refs.source == "computed":
        assert_true_refs(refs, truth)
    if refs.source == "disk cache" and fix_hash and changed:
        # A consistent, in-range edit with a forged hash is indistinguishable from a real run;
        # only in-range values can get here.
        assert np.isfinite(refs.probability).all() and refs.best.max() <= GAME.n_dice
        assert refs.best.min() >= 0 and refs.visits.min() >= 0


def _crafts(data: dict) -> dict[str, dict]:
    k = GAME.n_dice
    out: dict[str, dict] = {}

    def put(label, **arrays):
        out[label] = rehash({**data, **arrays})

    best = data["best"].copy()
    visited = np.argwhere(best >= 1)[0]
    for v in (99, -7, k + 1):
        b = best.copy()
        b[tuple(visited)] = v
        put(f"best {v}", best=b)
    for v in (np.nan, np.inf, -np.inf, 1.5, -0.25):
        p = data["probability"].copy()
        p[tuple(visited)] = v
        put(f"probability {v}", probability=p)
        h = data["held_probability"].copy()
        h[0, 0, 0] = v
        put(f"held probability {v}", held_probability=h)
    v = data["visits"].copy()
    v[tuple(visited)] = -3
    put("negative visits", visits=v)
    put("visits float", visits=data["visits"].astype(float))
    put("best float", best=data["best"].astype(float) + 0.5)
    put("best bool", best=data["best"].astype(bool))
    put("tied int8", tied=data["tied"].astype(np.int8))
    put("probability int", probability=data["probability"].astype(np.int64))
    put("probability object-free strings", probability=data["probability"].astype("U8"))
    t = data["tied"].copy()
    t[tuple(visited)] = False
    put("tied empty where best", tied=t)
    t = data["tied"].copy()
    t[(*visited, 0)] = True
    put("tied holds J 0", tied=t)
    put("identical runs", best=np.repeat(best[:1], best.shape[0], axis=0))
    m = data["metrics"].copy()
    m[0, 0] = np.inf
    put("metrics inf", metrics=m)
    put("metrics wrong shape", metrics=data["metrics"][:, :3])
    hb = data["held_best"].copy()
    hb[0, 0, 0] = 99
    put("held best 99", held_best=hb)
    put("no-data marker mismatch",
        probability=np.where(data["best"] == 0, 0.0, data["probability"]))
    meta = json.loads(str(data["meta"]))
    out["meta list"] = {**data, "meta": np.array(json.dumps([meta]))}
    out["meta garbage"] = {**data, "meta": np.array("{not json")}
    out["meta missing"] = {k2: v2 for k2, v2 in data.items() if k2 != "meta"}
    out["array missing"] = {k2: v2 for k2, v2 in data.items() if k2 != "tied"}
    out["hash absent"] = {**data, "meta": np.array(json.dumps(
        {k2: v2 for k2, v2 in meta.items() if k2 != "sha256"}))}
    return out


@pytest.mark.slow
def test_crafted_caches_are_recomputed_with_a_notice(tmp_path, pristine):
    """Out-of-range, wrongly typed or inconsistent contents, even with a forged hash: each is
    recomputed, with a one-line notice naming the file and the reason, and grading gives the
    grade it gives with the true references."""
    truth, data = pristine
    text = submission_text(seed=7)
    expected = grade.grade_text(truth, text, name="s")
    for label, crafted in _crafts(data).items():
        if label == "identical runs" and np.array_equal(crafted["best"], data["best"]):
            continue
        np.savez(tmp_path / f"{CFG.key()}.npz", **crafted)
        forget_references(CFG)
        with pytest.warns(grade.GradeWarning, match="was invalid") as rec:
            refs = grade.reference_runs(CFG, cache_dir=tmp_path)
        message = str(rec[0].message)
        assert "\n" not in message and CFG.key() in message and "recomputed" in message, label
        assert refs.source == "computed" and refs.notice == message, label
        assert_true_refs(refs, truth)
        got = grade.grade_text(refs, text, name="s")
        assert (got.score, got.verdict) == (expected.score, expected.verdict), label
        # The recomputed file was written back and is trusted next time.
        forget_references(CFG)
        assert grade.reference_runs(CFG, cache_dir=tmp_path).source == "disk cache"


def test_cache_path_that_is_a_fifo_or_folder_never_hangs(tmp_path):
    for make in (os.mkfifo, os.mkdir):
        folder = tmp_path / make.__name__
        folder.mkdir()
        make(folder / f"{CFG.key()}.npz")
        forget_references(CFG)
        with pytest.warns(grade.GradeWarning, match="not a regular file"):
            assert grade.reference_runs(CFG, cache_dir=folder).source == "computed"


# ------------------------------------------------------------- 2. one bad file, one row
def _bad_files(tmp_path: Path, monkeypatch) -> list:
    ok = tmp_path / "ok.txt"
    ok.write_text(submission_text(seed=11))
    cjk = tmp_path / "学生答案.txt"
    cjk.write_text(submission_text(seed=12))
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    locked = tmp_path / "locked.txt"
    locked.write_text(submission_text(seed=13))
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads chmod 000 files: make opening it fail as it would
        real_open = os.open

        def guarded(path, *args, **kw):
            if os.fspath(path) == str(locked):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, *args, **kw)

        monkeypatch.setattr(os, "open", guarded)
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(MAX_SUBMISSION_BYTES + 1)
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)) * 40)
    (tmp_path / "empty.txt").write_bytes(b"")
    bad_utf8 = os.fsencode(str(tmp_path)) + b"/bad\xff\xfename.txt"
    with open(bad_utf8, "wb") as fh:
        fh.write(submission_text(seed=14).encode())
    return [ok, tmp_path / "folder", tmp_path / "fifo", locked, big,
            tmp_path / "binary.bin", tmp_path / "empty.txt", str(tmp_path / "nul\x00name.txt"),
            os.fsdecode(bad_utf8), bad_utf8, cjk]


@pytest.mark.filterwarnings("ignore:Glyph")  # the CJK name in a heatmap title
def test_every_bad_file_gets_its_own_row(tmp_path, monkeypatch):
    paths = _bad_files(tmp_path, monkeypatch)
    out, reports = tmp_path / "gradebook.csv", tmp_path / "reports"
    refs, grades = grade.grade_files(CFG, paths, out=out, reports=reports, cache_dir=tmp_path)
    status = [g.status for g in grades]
    assert len(grades) == len(paths)
    assert status == ["ok", "error", "error", "error", "error", "error", "error",
                      "error", "ok", "ok", "ok"]
    for g in grades:
        assert g.submission.isprintable() and g.submission.encode("utf-8")
        assert g.status == "ok" or (g.error and "\n" not in g.error), g
    errors = dict((g.submission.rsplit("/", 1)[-1], g.error) for g in grades)
    assert "not a regular file" in errors["fifo"] and "folder" in errors["folder"]
    assert "Permission denied" in errors["locked.txt"] and "MiB" in errors["big.txt"]
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0] == list(GRADEBOOK_HEADER) and len(rows) == len(paths) + 1
    assert len(summary_text(grades).splitlines()) == len(paths) + 2
    assert len(list(reports.glob("*.md"))) == len(paths)
    # a path that does not exist is refused before any work, in one printable line
    with pytest.raises(grade.GradeError) as refused:
        grade.grade_files(CFG, [*paths, tmp_path / "newline\nname.txt"], out=out,
                          cache_dir=tmp_path)
    assert str(refused.value) == f"no such file or folder: {tmp_path}/newline\\x0aname.txt"


@HYP
@given(name=st.text(min_size=1, max_size=30))
def test_any_name_gives_one_printable_row(tmp_path, name):
    g = grade.grade_file(None, tmp_path / name.replace("/", "_"))  # never reaches grading
    assert g.status == "error" and g.error and "\n" not in g.error
    assert g.submission.isprintable()
    gradebook_csv([g]).encode("utf-8")
    summary_text([g]).encode("utf-8")


@HYP
@given(raw=st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b
                                                     and b not in (b".", b"..")))
def test_any_byte_name_with_any_content_gives_one_row(tmp_path, pristine, raw):
    truth, _ = pristine
    path = os.fsencode(str(tmp_path)) + b"/" + raw
    with open(path, "wb") as fh:
        fh.write(raw * 3)
    for given_as in (path, os.fsdecode(path)):
        g = grade.grade_file(truth, given_as)
        assert g.status == "error" and g.error and "\n" not in g.error
        assert g.submission.isprintable()
        gradebook_csv([g]).encode("utf-8")


# ------------------------------------------------------------- 3. never overwrite inputs
def test_out_equal_to_a_submission_is_refused_before_any_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    precious = "student's own file"
    Path("gradebook.csv").write_text(precious)
    Path("alice.txt").write_text(submission_text(seed=3))
    os.symlink("gradebook.csv", "link.csv")
    os.link("alice.txt", "hard.txt")
    cache = tmp_path / "cache"
    cases = [
        (["gradebook.csv", "alice.txt"], "gradebook.csv"),
        (["./gradebook.csv"], "gradebook.csv"),
        (["gradebook.csv"], str(tmp_path / "sub" / ".." / "gradebook.csv")),
        (["link.csv"], "gradebook.csv"),
        (["gradebook.csv"], "link.csv"),
        (["alice.txt"], "hard.txt"),
        ([Path("sub/../alice.txt")], Path(tmp_path / "alice.txt")),
    ]
    for subs, out in cases:
        with pytest.raises(grade.GradeError, match="submission") as info:
            grade.grade_files(CFG, subs, out=out, cache_dir=cache)
        assert str(info.value) and "\n" not in str(info.value)
    assert Path("gradebook.csv").read_text() == precious
    assert not cache.exists()  # refused before any work


def test_out_that_is_not_a_gradebook_is_refused(tmp_path):
    sub = tmp_path / "a.txt"
    sub.write_text(submission_text(seed=3))
    foreign = tmp_path / "marks.csv"
    foreign.write_text("name,mark\nalice,17\n")
    with pytest.raises(grade.GradeError, match="not a dicejack gradebook"):
        grade.grade_files(CFG, [sub], out=foreign, cache_dir=tmp_path)
    assert foreign.read_text() == "name,mark\nalice,17\n"
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(grade.GradeError, match="not a regular file"):
        grade.grade_files(CFG, [sub], out=tmp_path / "pipe.csv", cache_dir=tmp_path)
    # Empty files and previous gradebooks are replaced.
    for name in ("empty.csv", "previous.csv"):
        (tmp_path / name).write_text("")
    grade.grade_files(CFG, [sub], out=tmp_path / "previous.csv", cache_dir=tmp_path)
    grade.grade_files(CFG, [sub], out=tmp_path / "empty.csv", cache_dir=tmp_path)
    grade.grade_files(CFG, [sub], out=tmp_path / "previous.csv", cache_dir=tmp_path)
    assert (tmp_path / "previous.csv").read_text().startswith(",".join(GRADEBOOK_HEADER))


def test_reports_never_replace_a_file_they_did_not_write(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    bob = tmp_path / "bob.txt"
    bob.write_text(submission_text(seed=5))
    # A submission inside the reports folder: refused before any work, in one line.
    inside = reports / "bob.txt.md"
    inside.write_text("# Grade: `fake`\n" + submission_text(seed=6))
    with pytest.raises(grade.GradeError, match=r"^reports .*reports holds the submission .*"
                       r"bob\.txt\.md; give a folder outside what is graded$"):
        grade.grade_files(CFG, [bob, inside], out=tmp_path / "g.csv", reports=reports,
                          cache_dir=tmp_path)
    assert not (tmp_path / "g.csv").exists()
    inside.unlink()
    # A foreign file named like alice's report and heatmap: the reports take other names.
    alice = tmp_path / "alice.txt"
    alice.write_text(submission_text(seed=8))
    (reports / "alice.txt.md").write_text("my notes")
    (reports / "alice.txt-2.png").write_bytes(b"not ours")
    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    with pytest.warns(grade.GradeWarning, match="written as") as rec:
        grade.grade_files(CFG, [bob, alice], out=tmp_path / "g.csv", reports=reports,
                          cache_dir=tmp_path)
    assert all("\n" not in str(w.message) for w in rec)
    for name, content in before.items():
        assert (reports / name).read_bytes() == content, name
    assert (reports / "bob.txt.md").is_file() and (reports / "alice.txt-3.md").is_file()
    # A second run replaces its own reports and creates no new names.
    names = sorted(p.name for p in reports.iterdir())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", grade.GradeWarning)
        grade.grade_files(CFG, [bob, alice], out=tmp_path / "g.csv", reports=reports,
                          cache_dir=tmp_path)
    assert sorted(p.name for p in reports.iterdir()) == names


# ------------------------------------------------------------------- 4. absurd settings
def test_days_of_reference_work_is_refused_with_its_size():
    with pytest.raises(grade.GradeError, match=r"= 9,000,000,000,000 games") as info:
        grade.GradeConfig(GAME, 100.0, 10**11)
    assert "core-days" in str(info.value)
    with pytest.raises(grade.GradeError, match="10000000000000"):
        grade.GradeConfig(GAME, 100.0, 10**13)
    with pytest.raises(grade.GradeError, match="reference work"):
        grade.GradeConfig(GAME, 100.0, 10**9, references=10_000)


ANY = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
                st.sampled_from([1, 5, 30, 1000, 10**6]))


@HYP
@given(m=ANY, games=ANY, references=ANY, calibration=ANY, seed=ANY)
def test_any_settings_are_accepted_or_refused_in_one_line(m, games, references, calibration,
                                                          seed):
    try:
        cfg = grade.GradeConfig(GAME, m, games, references=references, seed=seed,
                                calibration=calibration)
    except grade.GradeError as exc:
        assert str(exc).strip() and "\n" not in str(exc)
    else:
        assert (cfg.references + cfg.calibration) * cfg.games <= MAX_REFERENCE_GAMES


def test_cli_prints_a_recomputed_cache_as_one_note_line(tmp_path, capsys):
    """A damaged cache file is recomputed, and the command line says so in one line."""
    from dicejack.cli import main

    sub = tmp_path / "a.txt"
    sub.write_text("nothing here\n")
    args = ["grade", str(sub), "--sides", "4", "--low", "8", "--high", "9", "--dice", "2",
            "-m", "100", "--games", "300", "--references", "6", "--out",
            str(tmp_path / "g.csv"), "--cache", str(tmp_path / "cache")]
    assert main(args) == 1  # an unreadable file alone: nothing graded
    forget_references()
    for f in (tmp_path / "cache").glob("*.npz"):
        f.write_bytes(b"PK\x03\x04 damaged")
    capsys.readouterr()
    assert main(args) == 1
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "recomputed" in notes[0]
