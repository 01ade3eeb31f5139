"""Hostile files against the file layer (dicejack.formats): crafted run files, writes over things
that are not regular files, stale temporaries, odd things to read, hostile numbers and names.

The promise tested everywhere: a one-line FormatError (or a correct result), never another
exception, never a hang, never a replaced device/FIFO/socket, nothing lost.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dicejack import formats
from dicejack.formats import FormatError, atomic, learner_runs, submission
from dicejack.learners import handout
from tests.games import HANDOUT as GAME
from tests.learners.legacy_runs import legacy_run_file

FAST = settings(
    max_examples=60, deadline=None, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
MORE = settings(FAST, max_examples=150)


def one_line_error(excinfo: pytest.ExceptionInfo[FormatError]) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message and len(message) < 2000
    message.encode("utf-8")  # printable, whatever the file's name
    return message


@pytest.fixture(scope="module")
def run_arrays(tmp_path_factory) -> dict[str, np.ndarray]:
    """The members of a valid run file of the old handout layout, the one with count tables to
    craft (with one checkpoint)."""
    path = tmp_path_factory.mktemp("run") / "good.npz"
    legacy_run_file(path, GAME, 2.0, 40, 3, checkpoints=(20,))
    with np.load(path) as npz:
        return {key: npz[key] for key in npz.files}


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> tuple[object, handout.HandoutRun]:
    """A valid run file (old layout) and the run it holds."""
    path = tmp_path_factory.mktemp("valid") / "valid.npz"
    return path, legacy_run_file(path, GAME, 2.0, 40, 3, checkpoints=(20,))


def still_reads_a_valid_file(good_run) -> None:
    """The loader under test still reads a valid run file back exactly: a property that only
    says "an error or no crash" would also hold for a loader that refuses everything."""
    path, run = good_run
    loaded = learner_runs.load_run_npz(path)
    assert (loaded.game, loaded.m, loaded.games, loaded.seed, loaded.moves, loaded.tie_break) == (
        run.game, run.m, run.games, run.seed, run.moves, run.tie_break)
    assert np.array_equal(loaded.win, run.win) and np.array_equal(loaded.lose, run.lose)
    assert dict(loaded.rng_state) == dict(run.rng_state)
    assert sorted(loaded.snapshots) == sorted(run.snapshots)
    for games, tables in run.snapshots.items():
        assert loaded.snapshots[games].equals(tables)


def load_or_format_error(path) -> None:
    """load_run_npz gives a run or a one-line FormatError, nothing else."""
    try:
        learner_runs.load_run_npz(path)
    except FormatError as exc:
        message = str(exc)
        assert message and "\n" not in message
        message.encode("utf-8")


# ================================================================== 1. crafted run files
@FAST
@given(
    key=st.sampled_from(["params", "rng_state"]),
    opener=st.sampled_from(["[", "{\"a\":"]),
    depth=st.integers(2, 200_000),
)
def test_deeply_nested_json_is_a_one_line_error(tmp_path, run_arrays, key, opener, depth):
    closer = "]" if opener == "[" else "}"
    raw = opener * depth + "1" + closer * depth
    path = tmp_path / "nested.npz"
    np.savez(path, **{**run_arrays, key: np.array(raw)})
    with pytest.raises(FormatError) as excinfo:
        learner_runs.load_run_npz(path)
    one_line_error(excinfo)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                   max_size=4),
    max_leaves=20,
)


@FAST
@given(key=st.sampled_from(["params", "rng_state"]), value=JSON | st.text(max_size=50))
def test_json_fields_of_any_shape(tmp_path, run_arrays, good_run, key, value):
    raw = value if isinstance(value, str) else json.dumps(value)
    path = tmp_path / "shape.npz"
    np.savez(path, **{**run_arrays, key: np.array(raw)})
    load_or_format_error(path)
    still_reads_a_valid_file(good_run)


DTYPES = st.sampled_from(
    ["int8", "uint8", "int64", "uint64", "float64", "float16", "complex128", "bool", "U5", "S3",
     "object", "datetime64[s]", "V8", "i4,f8"]
)
SPECIAL = st.sampled_from(
    [0, 1, -1, 2**63 - 1, -(2**63), 2**64 - 1, float("nan"), float("inf"), -float("inf"), 1e300]
)


@FAST
@given(
    key=st.sampled_from(["kind", "version", "params", "m", "games", "moves", "seed", "tie_break",
                         "rng_state", "win", "lose", "snapshot_games", "snapshot_win",
                         "snapshot_lose"]),
    dtype=DTYPES,
    shape=st.sampled_from([(), (0,), (1,), (3,), (15, 15, 3), (15, 15, 2), (1, 15, 15, 3)]),
    fill=SPECIAL,
    drop=st.booleans(),
)
def test_any_member_replaced_by_any_array(tmp_path, run_arrays, good_run, key, dtype, shape,
                                           fill, drop):
    data = dict(run_arrays)
    if drop:
        del data[key]
    else:
        try:
            with np.errstate(all="ignore"):
                data[key] = np.full(shape, fill).astype(dtype)
        except (ValueError, TypeError, OverflowError):
            data[key] = np.zeros(shape, dtype=dtype)
    path = tmp_path / "member.npz"
    np.savez(path, **data)
    load_or_format_error(path)
    still_reads_a_valid_file(good_run)


@example(key="snapshot_win", where=(0, 0, 1), value=-1, unsigned=True)  # 2**64 - 1
@FAST
@given(
    key=st.sampled_from(["win", "lose", "snapshot_win"]),
    where=st.tuples(st.integers(0, 14), st.integers(0, 14), st.integers(0, 2)),
    value=st.sampled_from([-1, -(2**63), 2**63 - 1, 5]),
    unsigned=st.booleans(),
)
def test_bad_counts_are_refused(tmp_path, run_arrays, good_run, key, where, value, unsigned):
    table = run_arrays[key].copy()
    table[(0, *where) if key.startswith("snapshot") else where] = value
    if unsigned:
        table = table.astype(np.uint64)  # -1 becomes 2**64 - 1
    path = tmp_path / "counts.npz"
    np.savez(path, **{**run_arrays, key: table})
    load_or_format_error(path)
    still_reads_a_valid_file(good_run)
    if value < 0 or where[2] == 0:  # negative or in column J=0: always wrong
        with pytest.raises(FormatError):
            learner_runs.load_run_npz(path)


def npy_bytes(shape: tuple[int, ...], dtype: str, data: bytes = b"") -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": dtype, "fortran_order": False, "shape": shape}
    )
    return out.getvalue() + data


def test_a_huge_declared_array_is_refused_before_it_is_read(tmp_path, run_arrays):
    # 3 GiB declared in a file of a few kilobytes: the header and the zip sizes disagree.
    path = tmp_path / "declares-3gib.npz"
    with zipfile.ZipFile(path, "w") as zf:
        for key, value in run_arrays.items():
            if key != "win":
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, value)
                zf.writestr(f"{key}.npy", buffer.getvalue())
        zf.writestr("win.npy", npy_bytes((2**14, 2**14, 3), "<i4", b"\0" * 4096))
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="win") as excinfo:
            learner_runs.load_run_npz(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20  # refused from the header: the 3 GiB are never allocated
    one_line_error(excinfo)


def test_an_array_larger_than_the_game_is_refused_unread(tmp_path, run_arrays, monkeypatch):
    # 96 MB of zeros compress to a small member, consistent sizes, but not this game's shape.
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for key, value in run_arrays.items():
            if key != "lose":
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, value)
                zf.writestr(f"{key}.npy", buffer.getvalue())
        with zf.open("lose.npy", "w", force_zip64=True) as fh:
            fh.write(npy_bytes((4000, 1000, 3), "<i8"))
            zeros = bytes(2**22)
            for _ in range(96_000_000 // len(zeros)):
                fh.write(zeros)
            fh.write(bytes(96_000_000 % len(zeros)))
    assert path.stat().st_size < 2_000_000
    reads: list[int] = []
    original = np.lib.format.read_array
    monkeypatch.setattr(
        np.lib.format, "read_array",
        lambda fp, *a, **k: reads.append(1) or original(fp, *a, **k),  # noqa: B023
    )
    with pytest.raises(FormatError, match=r"lose has shape \(4000, 1000, 3\)"):
        learner_runs.load_run_npz(path)
    assert len(reads) < 12  # the small members and win, never lose


@FAST
@given(data=st.data())
def test_truncated_and_corrupted_bytes(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("bytes")
    good = tmp / "good.npz"
    if not good.exists():
        legacy_run_file(good, GAME, 2.0, 40, 3, checkpoints=(20,))
    raw = bytearray(good.read_bytes())
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    else:
        for _ in range(data.draw(st.integers(1, 8))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    path = tmp / "bad.npz"
    path.write_bytes(bytes(raw))
    load_or_format_error(path)
    if len(raw) == good.stat().st_size and bytes(raw) == good.read_bytes():
        learner_runs.load_run_npz(path)  # nothing changed after all: it must still read


@pytest.mark.parametrize("broken", ["refuses everything", "reads the counts wrong"])
def test_the_properties_catch_a_broken_loader(tmp_path, run_arrays, good_run, monkeypatch,
                                              broken):
    # Each property above must fail for a loader that refuses every file or reads a file
    # wrongly: "an error or no crash" alone would hold for both.
    real = learner_runs.load_run_npz

    def refuses(path):
        raise FormatError("not a run file")

    def misreads(path):
        run = real(path)
        swapped = {**run.state, "win": run.state["lose"], "lose": run.state["win"]}
        return dataclasses.replace(run, state=swapped)

    monkeypatch.setattr(learner_runs, "load_run_npz",
                        refuses if broken == "refuses everything" else misreads)
    fixtures = {"tmp_path": tmp_path, "run_arrays": run_arrays, "good_run": good_run}
    examples = [  # one example each, run without Hypothesis (no shrinking of a failure)
        (test_json_fields_of_any_shape, {"key": "params", "value": "{}"}),
        (test_any_member_replaced_by_any_array, {"key": "moves", "dtype": "int64", "shape": (),
                                                 "fill": 1, "drop": False}),
        (test_bad_counts_are_refused, {"key": "win", "where": (1, 2, 1), "value": 5,
                                       "unsigned": False}),
    ]
    for prop, one in examples:
        with pytest.raises((AssertionError, FormatError)):  # the property fails, loudly
            prop.hypothesis.inner_test(**fixtures, **one)


def fifo_path(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def without_hang(call, path) -> BaseException | None:
    """call(path) in a thread; fails if it is still running after 5 s (then unblocks it)."""
    caught: list[BaseException | None] = [None]

    def target() -> None:
        try:
            call(path)
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            caught[0] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # release the blocked reader
        pytest.fail(f"{call.__name__} blocked on {path}")
    return caught[0]


def test_zero_byte_junk_folder_and_fifo_run_files(tmp_path):
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04" + b"\xff" * 100)
    (tmp_path / "folder.npz").mkdir()
    for name, message in [("empty.npz", "not a valid .npz"), ("junk.npz", "not a valid .npz"),
                          ("folder.npz", "is a folder"), ("missing.npz", "no such file")]:
        with pytest.raises(FormatError, match=message) as excinfo:
            learner_runs.load_run_npz(tmp_path / name)
        one_line_error(excinfo)
    error = without_hang(learner_runs.load_run_npz, fifo_path(tmp_path))
    assert isinstance(error, FormatError) and "not a regular file" in str(error)


# ================================================================== 2. writing over non-files
WRITERS = {
    "write_atomic": lambda path: formats.write_atomic(path, "x\n"),
    "savez_atomic": lambda path: atomic.savez_atomic(path, a=np.ones(2)),
    "check_output_file": atomic.check_output_file,
}


@pytest.fixture
def short_tmp():
    """A short folder (a socket's path must be under ~100 bytes)."""
    with tempfile.TemporaryDirectory(prefix="dj") as folder:
        yield folder


def special_files(short_tmp) -> dict[str, str]:
    found = {}
    # A private copy of /dev/null (root only): a regression must not replace the real one.
    try:
        os.mknod(os.path.join(short_tmp, "null"), stat.S_IFCHR | 0o666, os.makedev(1, 3))
        found["device"] = os.path.join(short_tmp, "null")
    except (AttributeError, OSError):
        pass
    if hasattr(os, "mkfifo"):
        found["fifo"] = os.path.join(short_tmp, "fifo")
        os.mkfifo(found["fifo"])
    if hasattr(socket, "AF_UNIX"):
        found["socket"] = os.path.join(short_tmp, "sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(found["socket"])
        server.close()  # the socket file stays
    found["link-to-fifo"] = os.path.join(short_tmp, "link")
    os.symlink(found.get("fifo", "/dev/null"), found["link-to-fifo"])
    return found


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_writes_never_replace_devices_fifos_or_sockets(short_tmp, writer):
    files = special_files(short_tmp)
    assert len(files) >= 3
    if writer == "check_output_file" and os.path.exists("/dev/null"):
        files["/dev/null"] = "/dev/null"  # only checked, never written
    for kind, path in files.items():
        before = os.lstat(path)
        with pytest.raises(FormatError, match="is not a regular file") as excinfo:
            WRITERS[writer](path)
        one_line_error(excinfo)
        after = os.lstat(path)
        assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode), kind
        assert after.st_ino == before.st_ino, kind
    assert not [n for n in os.listdir(short_tmp) if n.endswith(".tmp")]


def test_check_output_file_names_the_option(short_tmp):
    fifo = special_files(short_tmp).get("fifo", "/dev/null")
    with pytest.raises(FormatError, match=r"^--out .* is not a regular file"):
        atomic.check_output_file(fifo, option="--out")


def test_a_symlink_is_written_through(tmp_path):
    real = tmp_path / "real" / "out.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    formats.write_atomic(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(real) and real.read_text() == "new\n"
    atomic.savez_atomic(link, a=np.arange(3))
    assert link.is_symlink() and np.load(real)["a"].tolist() == [0, 1, 2]
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "real" / "created.txt")
    formats.write_atomic(dangling, "made\n")
    assert dangling.is_symlink() and (tmp_path / "real" / "created.txt").read_text() == "made\n"
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(FormatError) as excinfo:
        formats.write_atomic(loop, "x")
    one_line_error(excinfo)
    assert sorted(os.listdir(tmp_path / "real")) == ["created.txt", "out.txt"]


NAMES = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1,
    max_size=300,
) | st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b).map(
    os.fsdecode
)


@FAST
@given(name=NAMES)
def test_any_file_name_is_written_or_refused_in_one_line(tmp_path_factory, name):
    folder = tmp_path_factory.mktemp("names")
    if name in (".", ".."):
        name += "x"
    try:
        formats.write_atomic(folder / name, "data\n")
    except FormatError as exc:
        str(exc).encode("utf-8")
        assert "\n" not in str(exc)
    else:
        assert (folder / name).read_text() == "data\n"
    assert not [n for n in os.listdir(folder) if n.endswith(".tmp")]


# ================================================================== 3. stale temporaries
def test_stale_temporaries_of_the_same_target_are_removed(tmp_path):
    old = time.time() - 2 * atomic.STALE_TEMPORARY_SECONDS
    names = {
        ".out.txt.ab12cd_9.tmp": True,  # ours, stale: removed
        ".out.txt.zz99zz99.tmp": False,  # ours, fresh (maybe a write in progress): kept
        ".other.txt.ab12cd_9.tmp": False,  # another target's: kept
        ".out.txt.notes.tmp": False,  # not a temporary's name: kept
        "out.txt.ab12cd_9.tmp": False,  # not hidden: kept
    }
    for name in names:
        (tmp_path / name).write_text("partial")
        if name != ".out.txt.zz99zz99.tmp":
            os.utime(tmp_path / name, (old, old))
    (tmp_path / ".out.txt.abcdefgh.tmp").mkdir()  # a folder of that name: never removed
    os.utime(tmp_path / ".out.txt.abcdefgh.tmp", (old, old))
    formats.write_atomic(tmp_path / "out.txt", "new\n")
    left = set(os.listdir(tmp_path))
    assert left == {"out.txt", ".out.txt.abcdefgh.tmp"} | {n for n, s in names.items() if not s}


def test_a_killed_write_leaves_a_temporary_the_next_write_removes(tmp_path):
    target = tmp_path / "run.npz"
    target.write_bytes(b"old")
    code = (
        "import os, signal, sys, numpy as np\n"
        "from dicejack.formats.atomic import savez_atomic\n"
        "class Die:\n"
        "    def __reduce__(self):\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "savez_atomic(sys.argv[1], big=np.zeros(100000), die=np.array([Die()], dtype=object))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(target)], timeout=60)
    assert done.returncode == -signal.SIGKILL
    temporaries = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert len(temporaries) == 1 and target.read_bytes() == b"old"  # nothing lost
    formats.write_atomic(target, b"newer")  # fresh: still there (could be in progress)
    assert (tmp_path / temporaries[0]).exists()
    old = time.time() - 2 * atomic.STALE_TEMPORARY_SECONDS
    os.utime(tmp_path / temporaries[0], (old, old))
    formats.write_atomic(target, b"newest")
    assert os.listdir(tmp_path) == ["run.npz"] and target.read_bytes() == b"newest"


# ================================================================== 4. reading odd things
TABLES = "1 2\n2 1\n\n0.5 0.25\n0.75 1\n"


def test_read_submission_of_a_fifo_folder_device_or_missing_file(tmp_path):
    error = without_hang(lambda p: formats.read_submission(p, 2, 2), fifo_path(tmp_path))
    assert isinstance(error, FormatError) and "not a regular file" in str(error)
    (tmp_path / "folder").mkdir()
    with pytest.raises(FormatError, match="is a folder"):
        formats.read_submission(tmp_path / "folder", 2, 2)
    if os.path.exists("/dev/null"):
        with pytest.raises(FormatError, match="not a regular file"):
            formats.read_submission("/dev/null", 2, 2)
    with pytest.raises(FormatError, match="No such file"):
        formats.read_submission(tmp_path / "missing.txt", 2, 2)


@pytest.mark.parametrize(
    "name", ["学生提交.txt", "élève — résultat.txt", os.fsdecode(b"bad-\xff\xfe-name.txt")]
)
def test_odd_file_names_in_messages(tmp_path, name):
    path = tmp_path / name
    try:
        path.write_text(TABLES)
    except (UnicodeEncodeError, OSError):
        pytest.skip("this file system refuses the name")
    assert formats.read_submission(path, 2, 2).policy.tolist() == [[1, 2], [2, 1]]
    for call in (lambda: formats.read_submission(path, 3, 2),
                 lambda: learner_runs.load_run_npz(path),
                 lambda: formats.write_atomic(tmp_path / name / "x", "y")):
        with pytest.raises(FormatError) as excinfo:
            call()
        message = one_line_error(excinfo)
        if "bad" not in name:
            assert name in message or "3x3" in message


# ================================================================== 5. hostile numbers
HUGE = "9" * 5000
HOSTILE = st.sampled_from(
    ["inf", "-inf", "+inf", "Infinity", "1e309", "-1e309", "1e-400", HUGE, "-" + HUGE,
     HUGE + ".5", "nan", "NaN", "-", "n/a", "0", "1", "2", "-1", "0.5", "1.0", "3", "1e308",
     "99999999999999999999", "50%", "1e309%"]
)


@MORE
@given(
    low=st.integers(1, 4),
    cells=st.lists(HOSTILE, min_size=32, max_size=32),
    layout=st.sampled_from(["grid", "labelled", "csv", "pairs", "long", "numpy", "huge-labels"]),
)
def test_hostile_numbers_are_data_never_a_traceback(low, cells, layout):
    policy = [cells[i * low : (i + 1) * low] for i in range(low)]
    prob = [cells[16 + i * low : 16 + (i + 1) * low] for i in range(low)]
    if layout == "grid":
        text = "\n".join(" ".join(r) for r in policy) + "\n\n" + "\n".join(
            " ".join(r) for r in prob)
    elif layout in ("labelled", "huge-labels"):
        label = (lambda x: HUGE) if layout == "huge-labels" else str
        text = "\n".join(f"{label(x)} | " + " ".join(r) for x, r in enumerate(policy))
        text += "\n\n" + "\n".join(f"{label(x)} | " + " ".join(r) for x, r in enumerate(prob))
    elif layout == "csv":
        text = "\n".join(",".join(r) for r in policy) + "\n\n" + "\n".join(
            ",".join(r) for r in prob)
    elif layout == "pairs":
        text = "\n".join(
            " ".join(f"{d}:{p}" for d, p in zip(dr, pr, strict=True))
            for dr, pr in zip(policy, prob, strict=True)
        )
    elif layout == "long":
        text = "x y best prob\n" + "\n".join(
            f"{x} {y} {policy[x][y]} {prob[x][y]}" for x in range(low) for y in range(low))
    else:
        text = "[" + ",\n ".join("[" + ", ".join(r) + "]" for r in policy) + "]\n"
        text += "[" + ",\n ".join("[" + ", ".join(r) + "]" for r in prob) + "]\n"
    try:
        sub = submission.read_submission_text(text, low, 2)
    except FormatError as exc:
        assert "\n" not in str(exc)
        return
    assert sub.policy.shape == sub.probability.shape == (low, low)
    assert sub.policy.dtype == np.int64
    finite = sub.probability[~sub.no_data]
    if np.any(~np.isfinite(finite) | (finite < 0) | (finite > 1)):
        assert "prob-out-of-range" in sub.flags
    if np.any((sub.policy < -1) | (sub.policy > 2)):
        assert "policy-out-of-range" in sub.flags


def test_hostile_numbers_examples():
    sub = submission.read_submission_text(f"1 {HUGE}\ninf 2\n\n0.5 1e309\n-inf 0.25\n", 2, 2)
    assert "policy-out-of-range" in sub.flags and "prob-out-of-range" in sub.flags
    sub = submission.read_submission_text(f"0 | 1 2\n1 | 2 1\n\n0 | 0.5 {HUGE}\n1 | 0 1\n", 2, 2)
    assert "prob-out-of-range" in sub.flags
    with pytest.raises(FormatError):
        submission.read_submission_text(f"{HUGE} | 1 2\n1 | 2 1\n\n[{HUGE}] = [1, 2]\n", 2, 2)
