"""Tests of dicejack.formats.npz: members of real .npz files (numpy's savez, savez_compressed)
read by key, and hostile members refused from their .npy header alone, before any data is read.
The run readers built on it are tested against crafted run files in test_learner_runs.py and
tests/hostile/test_hostile_files.py."""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np
import pytest
from numpy.lib import format as npy

from dicejack.formats import FormatError
from dicejack.formats.npz import SMALL_MEMBER_BYTES, NpzMembers, open_npz


def header_only(shape: tuple[int, ...], descr: str = "<f8", version: bytes = b"") -> bytes:
    """A .npy header declaring `shape` with no data behind it (or a made-up format `version`)."""
    out = io.BytesIO()
    npy.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    raw = out.getvalue()
    return raw[:6] + version + raw[8:] if version else raw


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_members_of_a_numpy_file_by_key(tmp_path, save) -> None:
    path = tmp_path / "arrays.npz"
    counts = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    save(path, counts=counts, kind=np.array("dicejack-learn-run"), m=np.array(2.5))
    with open_npz(path) as archive:
        members = NpzMembers(archive)
        assert sorted(members.infos) == ["counts", "kind", "m"]
        assert members.header("counts", "iu") == ((2, 3, 4), np.dtype("<i8"))
        assert members.header("kind", "U") == ((), np.dtype("<U18"))
        assert members.header("m") == ((), np.dtype("<f8"))
        assert np.array_equal(members.read("counts"), counts)
        assert members.read("kind").item() == "dicejack-learn-run"
        with pytest.raises(KeyError):
            members.header("win")


def test_hostile_headers_are_refused_before_any_data_is_read(tmp_path, monkeypatch) -> None:
    path = tmp_path / "hostile.npz"
    np.savez(path, objects=np.array([{"a": 1}, None], dtype=object))
    with zipfile.ZipFile(path, "a") as zf:
        zf.writestr("huge.npy", header_only((10**6, 10**6)))  # 8 TB declared in 128 bytes
        zf.writestr("future.npy", header_only((2,), version=b"\x09\x00") + bytes(16))
        zf.writestr("fields.npy", header_only((1,), descr=[("a", "<i8")]) + bytes(8))
    monkeypatch.setattr(npy, "read_array", lambda *a, **k: pytest.fail("data was read"))
    with open_npz(path) as archive:
        members = NpzMembers(archive)
        for key, message in [
            ("objects", "objects has dtype object, not plain numbers or text"),
            ("huge", "huge: its header and its size in the zip file disagree"),
            ("future", r"future: .npy version \(9, 0\)"),
            ("fields", r"fields has dtype \[\('a', '<i8'\)\], not plain numbers or text"),
        ]:
            with pytest.raises(ValueError, match=f"^{message}$"):
                members.header(key)


def test_kinds_and_item_sizes(tmp_path) -> None:
    path = tmp_path / "kinds.npz"
    np.savez(
        path, ints=np.zeros(3, np.int64), floats=np.zeros(3), wide=np.zeros(3, np.complex128),
        text=np.array("x" * (SMALL_MEMBER_BYTES // 4)),
        long_text=np.array("x" * (SMALL_MEMBER_BYTES // 4 + 1)),
    )
    with open_npz(path) as archive:
        members = NpzMembers(archive)
        assert members.header("ints", "iu")[0] == (3,)
        assert members.header("floats", "iuf")[0] == (3,)
        assert members.header("text", "U")[0] == ()
        for key, kinds in [("floats", "iu"), ("wide", "iufc"), ("long_text", "U"), ("text", "iu")]:
            with pytest.raises(ValueError, match=f"^{key} has dtype"):
                members.header(key, kinds)


def test_open_npz_opens_only_regular_zip_files(tmp_path) -> None:
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04" + b"\xff" * 100)
    (tmp_path / "folder.npz").mkdir()
    for name, message in [
        ("junk.npz", "not a valid .npz file"),
        ("folder.npz", "it is a folder, not a regular file"),
        ("missing.npz", "no such file"),
    ]:
        with pytest.raises(FormatError, match=f"^cannot read table .*{name}: {message}"):
            open_npz(tmp_path / name, "table")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.npz")
        with pytest.raises(FormatError, match="^cannot read run .*fifo.npz: not a regular file$"):
            open_npz(tmp_path / "fifo.npz")
