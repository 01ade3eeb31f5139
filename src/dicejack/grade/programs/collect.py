"""Student programs from what the instructor gives: a source file, a folder per student (or a
folder of them), or an LMS zip of code; each becomes one folder of that student's files and the
path it had in the download (for the LMS identity, as :mod:`dicejack.grade.intake.lms_names` reads
it).
Zip members are extracted within limits (count, size, no path leaving the folder, no links)."""

from __future__ import annotations

import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dicejack.grade.programs.languages import LANGUAGES, Language, find_program
from dicejack.grade.settings import GradeError

__all__ = ["Source", "collect_programs", "MAX_ZIP_MEMBERS", "MAX_ZIP_BYTES"]

MAX_ZIP_MEMBERS = 20_000
MAX_ZIP_BYTES = 512 << 20
#: Folders never part of a program (build output, version control, editors' files).
SKIP_DIRS = frozenset({"__pycache__", ".git", ".idea", ".vscode", "__MACOSX", "node_modules"})


@dataclass(frozen=True)
class Source:
    """One student's files: `folder` (a private copy), its label and its path in the download."""

    label: str
    folder: Path
    parts: tuple[str, ...]


def _extensions(extra: Mapping[str, Language] | None) -> set[str]:
    return {e for lang in {**LANGUAGES, **(extra or {})}.values() for e in lang.extensions}


def _has_source(folder: Path, exts: set[str]) -> bool:
    return any(p.is_file() and p.suffix in exts for p in folder.iterdir())


def _copy(src: Path, dest: Path) -> None:
    def ignore(_: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIP_DIRS}

    if src.is_dir():
        shutil.copytree(src, dest, symlinks=True, ignore=ignore)
        for p in list(dest.rglob("*")):  # links are the student's: never followed
            if p.is_symlink():
                p.unlink()
    else:
        dest.mkdir(parents=True)
        shutil.copy2(src, dest / src.name, follow_symlinks=False)


def _extract(archive: Path, dest: Path) -> None:
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
                if name.is_absolute() or ".." in name.parts or any(
                        p in SKIP_DIRS for p in name.parts):
                    continue
                target = dest.joinpath(*name.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(m) as f, open(target, "wb") as out:
                    shutil.copyfileobj(f, out, 1 << 20)
    except (zipfile.BadZipFile, OSError) as exc:
        raise GradeError(f"cannot read the archive {archive.name}: {exc}") from None


def _one(src: Path, parts: tuple[str, ...], work: Path, out: list[Source]) -> None:
    dest = work / f"p{len(out)}"
    _copy(src, dest)
    out.append(Source("/".join(parts) or src.name, dest, parts))


def _one_program(folder: Path, exts: set[str], extra: Mapping[str, Language] | None) -> bool:
    """Do the source files directly in `folder` make one program (not one file per student)?
    One file, or several with one main file in a compiled language."""
    direct = [p for p in folder.iterdir() if p.is_file() and p.suffix in exts]
    nested = [d for d in folder.iterdir() if d.is_dir() and d.name not in SKIP_DIRS
              and any(p.suffix in exts for p in d.rglob("*"))]
    if nested:
        return False
    if len(direct) <= 1:
        return True
    try:
        program = find_program(folder, folder.name, extra)
    except GradeError:
        return False
    return program.language.name != "python"


def _student(folder: Path, parts: tuple[str, ...], exts: set[str], work: Path,
             out: list[Source], extra: Mapping[str, Language] | None) -> None:
    """A student's folder is one program, unless it holds several students' (a section)."""
    subdirs = [p for p in folder.iterdir() if p.is_dir() and p.name not in SKIP_DIRS]
    if _has_source(folder, exts) or len(subdirs) <= 1:
        _one(folder, parts, work, out)
    else:
        _class(folder, parts, exts, work, out, extra)


def _class(folder: Path, parts: tuple[str, ...], exts: set[str], work: Path,
           out: list[Source], extra: Mapping[str, Language] | None) -> None:
    """A folder of submissions: each source file and each folder is one student's."""
    for child in sorted(folder.iterdir()):
        if child.name in SKIP_DIRS or child.is_symlink():
            continue
        if child.is_dir():
            _student(child, (*parts, child.name), exts, work, out, extra)
        elif child.suffix in exts:
            _one(child, (*parts, child.name), work, out)


def collect_programs(paths: Iterable[Path], work: Path,
                     extra: Mapping[str, Language] | None = None) -> list[Source]:
    """One Source per student program found in `paths`, copied under `work` (the caller's
    temporary folder). GradeError for a path that does not exist or an unreadable archive."""
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
            _class(unpacked, (path.name,), exts, work, out, extra)
        elif path.is_dir() and _has_source(path, exts) and _one_program(path, exts, extra):
            _one(path, (path.name,), work, out)
        elif path.is_dir():
            _class(path, (), exts, work, out, extra)
        else:
            _one(path, (path.name,), work, out)
    return out
