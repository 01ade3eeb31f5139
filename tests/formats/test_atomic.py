"""Tests of dicejack.formats.atomic: atomic writes and the output-path checks of every command."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from dicejack.formats import FormatError, write_atomic
from dicejack.formats.atomic import check_output_file, ensure_output_folder, savez_atomic
from dicejack.runtime.messages import DicejackError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ------------------------------------------------------------------------------ atomic writes
def test_write_atomic_text_and_bytes_replace_the_file(tmp_path) -> None:
    path = tmp_path / "out.txt"
    write_atomic(path, "first\n")
    assert path.read_text() == "first\n"
    write_atomic(str(path), b"\x00second")
    assert path.read_bytes() == b"\x00second"
    assert os.listdir(tmp_path) == ["out.txt"]  # no temporary file left behind
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()  # as open() would make it


def test_write_atomic_in_the_current_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic("plain.txt", "x")
    assert (tmp_path / "plain.txt").read_text() == "x"


def test_savez_atomic_keeps_the_name_and_arrays(tmp_path) -> None:
    path = tmp_path / "table.bin"  # no '.npz' is added
    savez_atomic(path, a=np.arange(6).reshape(2, 3), b=np.array("text"))
    savez_atomic(tmp_path / "plain.npz", compressed=False, a=np.ones(3))
    assert sorted(os.listdir(tmp_path)) == ["plain.npz", "table.bin"]
    with np.load(path) as npz:
        assert npz["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and str(npz["b"]) == "text"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path) -> None:
    path = tmp_path / "run.npz"
    write_atomic(path, b"old")
    with pytest.raises(Exception):  # noqa: B017 - whatever pickling raises
        savez_atomic(path, bad=np.array([lambda: 0], dtype=object))
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["run.npz"]


def test_writes_check_the_path_first(tmp_path) -> None:
    with pytest.raises(FormatError, match=r"folder .*missing does not exist"):
        write_atomic(tmp_path / "missing" / "out.txt", "x")
    with pytest.raises(FormatError, match="it is a folder"):
        savez_atomic(tmp_path, a=np.ones(1))
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------ path checks
def test_check_output_file(tmp_path) -> None:
    out = tmp_path / "gradebook.csv"
    assert check_output_file(str(out)) == out  # need not exist yet
    out.write_text("old")
    assert check_output_file(out) == out  # may exist: it is replaced
    assert not issubclass(FormatError, OSError) and issubclass(FormatError, DicejackError)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "cannot write {dir}: it is a folder"),
        ({"option": "--out"}, "--out {dir} is a folder"),
        (  # grade's wording
            {"option": "--out", "hint": "give a file name such as gradebook.csv"},
            "--out {dir} is a folder; give a file name such as gradebook.csv",
        ),
    ],
)
def test_check_output_file_messages_for_a_folder(tmp_path, kwargs, message) -> None:
    with pytest.raises(FormatError) as info:
        check_output_file(tmp_path, **kwargs)
    assert str(info.value) == message.format(dir=tmp_path)


def test_check_output_file_message_for_a_missing_folder(tmp_path) -> None:
    out = tmp_path / "no" / "such" / "run.npz"
    for kwargs in ({}, {"option": "--out", "hint": "a hint"}):
        with pytest.raises(FormatError) as info:
            check_output_file(out, **kwargs)
        assert str(info.value) == f"cannot write {out}: folder {out.parent} does not exist"


def test_ensure_output_folder(tmp_path) -> None:
    folder = tmp_path / "reports" / "week1"
    assert ensure_output_folder(str(folder)) == folder and folder.is_dir()
    assert ensure_output_folder(folder) == folder  # already there: fine


def test_ensure_output_folder_messages(tmp_path) -> None:
    file = tmp_path / "taken"
    file.write_text("")
    with pytest.raises(FormatError) as info:
        ensure_output_folder(file, option="--reports")
    assert str(info.value) == f"--reports {file} exists and is not a folder"  # grade's wording
    with pytest.raises(FormatError) as info:
        ensure_output_folder(file)
    assert str(info.value) == f"cannot create the folder {file}: it exists and is not a folder"
    below = file / "sub"
    with pytest.raises(FormatError) as info:
        ensure_output_folder(below, option="--reports", what="reports folder")
    message = str(info.value)
    assert message.startswith(f"cannot create the reports folder {below}: ")
    assert "\n" not in message and len(message) > len(f"cannot create the reports folder {below}: ")
