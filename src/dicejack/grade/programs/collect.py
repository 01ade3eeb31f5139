"""Student programs from what the instructor gives: a source file, a folder per student (or a
folder of them), or an LMS zip of code; each becomes one folder of that student's files and the
path it had in the download (for the LMS identity, as :mod:`dicejack.grade.intake.lms_names` reads
it).

A submission is hostile data: its folders are walked without recursion and without following a
link, and copied by :func:`dicejack.runtime.tree.copy_tree` (plain files and folders only, modes
without special bits, within :data:`INTAKE_CAPS`); a submission that cannot be taken in (too
deep, too large, unreadable) is that student's :class:`Source` with an error, and the others go
on. Zip members are extracted within limits (count, size, depth, no path leaving the folder, no
links)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dicejack.formats.escape import safe_text
from dicejack.grade.intake.lms_names import LMS_LEVEL, one_folder
from dicejack.grade.programs.languages import LANGUAGES, Language, find_program
from dicejack.grade.settings import GradeError
from dicejack.runtime import tree

__all__ = ["Source", "collect_programs", "MAX_ZIP_MEMBERS", "MAX_ZIP_BYTES", "INTAKE_CAPS"]

MAX_ZIP_MEMBERS = 20_000
MAX_ZIP_BYTES = 512 << 20
#: What one student's submission may hold (files, bytes, folder depth).
INTAKE_CAPS = tree.TreeCaps(files=20_000, bytes=256 << 20, depth=64)
#: Folders never part of a program (build output, version control, editors' files).
SKIP_DIRS = frozenset({"__pycache__", ".git", ".idea", ".vscode", "__MACOSX", "node_modules"})


@dataclass(frozen=True)
class Source:
    """One student's files: `folder` (a private copy), its label and its path in the download
    (starting with the name of the path given); `error` says why the submission could not be
    taken in ("" when it was). `deepest`: the deepest of `parts` an LMS name may decide from
    (:func:`dicejack.grade.intake.lms_names.deciding_name`); `is_folder`: the last part is a
    folder, not a file."""

    label: str
    folder: Path
    parts: tuple[str, ...]
    error: str = ""
    deepest: int = LMS_LEVEL
    is_folder: bool = False

    def student_parts(self) -> tuple[str, ...]:
        """The parts as the LMS names are read: a folder's last part followed by a file."""
        return (*self.parts, "") if self.is_folder else self.parts


def _extensions(extra: Mapping[str, Language] | None) -> set[str]:
    return {e for lang in {**LANGUAGES, **(extra or {})}.values() for e in lang.extensions}


def _entries(folder: Path) -> list[os.DirEntry]:
    """A folder's entries, sorted by name ([] when it cannot be listed: its student's copy then
    says why)."""
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _files(folder: Path) -> list[os.DirEntry]:
    return [e for e in _entries(folder) if e.is_file(follow_symlinks=False)]


def _dirs(folder: Path) -> list[os.DirEntry]:
    return [e for e in _entries(folder) if e.is_dir(follow_symlinks=False)
            and e.name not in SKIP_DIRS]


def _has_source(folder: Path, exts: set[str]) -> bool:
    return any(Path(e.name).suffix in exts for e in _files(folder))


def _walk(folder: Path, depth: int = INTAKE_CAPS.depth,
          entries: int = INTAKE_CAPS.files) -> Iterator[os.DirEntry]:
    """Every plain file under `folder`, breadth first, without recursion or links, at most
    `depth` folders down and `entries` entries in all (a hostile tree is not walked to its
    end: its copy refuses it)."""
    stack = [(folder, 0)]
    seen = 0
    while stack:
        here, level = stack.pop()
        for e in _entries(here):
            seen += 1
            if seen > entries:
                return
            if e.is_file(follow_symlinks=False):
                yield e
            elif (level < depth and e.is_dir(follow_symlinks=False)
                  and e.name not in SKIP_DIRS):
                stack.append((Path(e.path), level + 1))


def _holds_source(folder: Path, exts: set[str]) -> bool:
    return any(Path(e.name).suffix in exts for e in _walk(folder))


def _copy(src: Path, dest: Path) -> None:
    """A student's file or folder copied into `dest`: plain files and folders only (links,
    fifos and devices left out, never followed or opened), modes without special bits."""
    if src.is_symlink():
        raise tree.TreeError("a link, not a file or folder")
    if src.is_dir():
        tree.copy_tree(src, dest, INTAKE_CAPS, skip_dirs=SKIP_DIRS)
        return
    dest.mkdir(mode=0o755)
    _copy_file(src, dest / src.name)


def _copy_file(src: Path, dest: Path) -> None:
    """One plain file, opened without following a link or blocking on a fifo, read within the
    intake's byte cap."""
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise tree.TreeError("not a plain file")
        with os.fdopen(os.dup(fd), "rb") as f, open(dest, "wb") as out:
            data = f.read(INTAKE_CAPS.bytes + 1)
            if len(data) > INTAKE_CAPS.bytes:
                raise tree.TreeError(f"larger than {INTAKE_CAPS.bytes:,} bytes")
            out.write(data)
    finally:
        os.close(fd)


def _extract(archive: Path, dest: Path) -> None:
    """Unpack an LMS zip: plain members only, none leaving `dest` or deeper than the intake's
    depth; a member that cannot be written is left out (its student's program then says what
    is missing)."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise GradeError(f"{archive.name}: more than {MAX_ZIP_MEMBERS:,} members")
            if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise GradeError(f"{archive.name}: more than {MAX_ZIP_BYTES:,} bytes unpacked")
            for m in members:
                name = PurePosixPath(m.filename)
                if m.is_dir() or stat.S_ISLNK(m.external_attr >> 16):
                    continue
                if (name.is_absolute() or ".." in name.parts or len(name.parts) >
                        INTAKE_CAPS.depth or any(p in SKIP_DIRS for p in name.parts)):
                    continue
                target = dest.joinpath(*name.parts)
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(m) as f, open(target, "xb") as out:
                        shutil.copyfileobj(f, out, 1 << 20)
                except (OSError, ValueError, NotImplementedError, zipfile.BadZipFile,
                        EOFError):
                    continue  # a member we cannot write: not the batch's failure
    except (zipfile.BadZipFile, OSError) as exc:
        raise GradeError(f"cannot read the archive {archive.name}: {exc}") from None


@dataclass(frozen=True)
class _Given:
    """What every student found under one path given shares: the parts of the label to leave
    out (a class folder's own name) and the deepest level an LMS name may decide from."""

    skip: int = 0
    deepest: int = LMS_LEVEL


def _one(src: Path, parts: tuple[str, ...], work: Path, out: list[Source],
         given: _Given = _Given()) -> None:
    """One student's submission taken in; whatever goes wrong is that student's error."""
    dest = work / f"p{len(out)}"
    label = "/".join(parts[given.skip:]) or src.name
    folder = src.is_dir() and not src.is_symlink()
    try:
        _copy(src, dest)
    except (tree.TreeError, OSError) as exc:
        tree.remove_tree(dest)
        why = str(exc) if isinstance(exc, tree.TreeError) else (exc.strerror or str(exc))
        out.append(Source(label, dest, parts, f"cannot take the submission in: "
                          f"{safe_text(why)}", given.deepest, folder))
        return
    out.append(Source(label, dest, parts, "", given.deepest, folder))


def _level(folder: Path, given: str) -> int:
    """The deepest level an LMS name may decide from under a folder given (or a zip unpacked):
    one deeper when it holds nothing but the one folder an LMS or a packer wrote."""
    top = [(e.name, e.is_dir(follow_symlinks=False)) for e in _entries(folder)
           if e.name not in SKIP_DIRS]
    return LMS_LEVEL + 1 if one_folder(top, given) else LMS_LEVEL


def _one_program(folder: Path, exts: set[str], extra: Mapping[str, Language] | None) -> bool:
    """Do the source files directly in `folder` make one program (not one file per student)?
    One file, or several with one main file in a compiled language."""
    direct = [e for e in _files(folder) if Path(e.name).suffix in exts]
    if any(_holds_source(Path(d.path), exts) for d in _dirs(folder)):
        return False
    if len(direct) <= 1 or any(e.name.startswith("-") for e in direct):
        return True  # (a name like an option: one program, whose row then says so)
    try:
        program = find_program(folder, folder.name, extra)
    except (GradeError, OSError, RecursionError):
        return False
    return program.language.name != "python"


def _student(folder: Path, parts: tuple[str, ...], exts: set[str], work: Path,
             out: list[Source], extra: Mapping[str, Language] | None, given: _Given) -> None:
    """A student's folder is one program, unless it holds several students' (a section)."""
    if _has_source(folder, exts) or len(_dirs(folder)) <= 1:
        _one(folder, parts, work, out, given)
    else:
        _class(folder, parts, exts, work, out, extra, given)


def _class(folder: Path, parts: tuple[str, ...], exts: set[str], work: Path,
           out: list[Source], extra: Mapping[str, Language] | None,
           given: _Given = _Given()) -> None:
    """A folder of submissions: each source file and each folder is one student's (links,
    fifos and devices are no one's)."""
    for child in _entries(folder):
        if child.name in SKIP_DIRS:
            continue
        path = Path(child.path)
        if child.is_dir(follow_symlinks=False):
            _student(path, (*parts, child.name), exts, work, out, extra, given)
        elif child.is_file(follow_symlinks=False) and path.suffix in exts:
            _one(path, (*parts, child.name), work, out, given)


def collect_programs(paths: Iterable[Path], work: Path,
                     extra: Mapping[str, Language] | None = None) -> list[Source]:
    """One Source per student program found in `paths`, copied under `work` (the caller's
    temporary folder). GradeError for a path that does not exist or an unreadable archive;
    a submission that cannot be taken in is its Source's error."""
    exts = _extensions(extra)
    work.mkdir(parents=True, exist_ok=True)
    out: list[Source] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise GradeError(f"no such file or folder: {path}")
        if path.is_file() and path.suffix.lower() == ".zip":
            unpacked = Path(tempfile.mkdtemp(prefix="zip-", dir=work))
            _extract(path, unpacked)
            _class(unpacked, (path.name,), exts, work, out, extra,
                   _Given(0, _level(unpacked, path.name)))
        elif path.is_dir() and _has_source(path, exts) and _one_program(path, exts, extra):
            _one(path, (path.name,), work, out)
        elif path.is_dir():  # a class folder: its name starts the parts, not the labels
            _class(path, (path.name,), exts, work, out, extra,
                   _Given(1, _level(path, path.name)))
        else:
            _one(path, (path.name,), work, out)
    return out
