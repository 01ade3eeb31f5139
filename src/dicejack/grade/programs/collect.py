"""Student programs from what the instructor gives: a source file, a folder per student (or a
folder of them), or an LMS zip of code; each becomes one folder of that student's files and the
path it had in the download (for the LMS identity, as :mod:`dicejack.grade.lms_names` reads it).
Zip members are extracted within limits (count, size, no path leaving the folder, no links)."""

from __future__ import annotations

import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dicejack.grade.programs.languages import LANGUAGES, Language
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


def _programs_in(folder: Path, parts: tuple[str, ...], exts: set[str], work: Path,
                 out: list[Source]) -> None:
    """A folder holding source files is one program; otherwise each entry is one."""
    if _has_source(folder, exts) or not any(p.is_dir() for p in folder.iterdir()):
        if _has_source(folder, exts) or parts:
            dest = work / f"p{len(out)}"
            _copy(folder, dest)
            out.append(Source("/".join(parts) or folder.name, dest, parts))
        return
    for child in sorted(folder.iterdir()):
        if child.name in SKIP_DIRS or child.is_symlink():
            continue
        if child.is_dir():
            _programs_in(child, (*parts, child.name), exts, work, out)
        elif child.suffix in exts:
            dest = work / f"p{len(out)}"
            _copy(child, dest)
            out.append(Source("/".join((*parts, child.name)), dest, (*parts, child.name)))


def collect_programs(paths: Iterable[Path], work: Path,
                     extra: Mapping[str, Language] | None = None) -> list[Source]:
    """One Source per student program found in `paths`, copied under `work` (the caller's
    temporary folder). GradeError for a path that does not exist or an unreadable archive."""
    exts = _extensions(extra)
    out: list[Source] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise GradeError(f"no such file or folder: {path}")
        if path.is_file() and path.suffix.lower() == ".zip":
            unpacked = Path(tempfile.mkdtemp(prefix="zip-", dir=work))
            _extract(path, unpacked)
            _programs_in(unpacked, (path.name,), exts, work, out)
        elif path.is_dir():
            _programs_in(path, (path.name,) if _has_source(path, exts) else (), exts, work, out)
        else:
            dest = work / f"p{len(out)}"
            _copy(path, dest)
            out.append(Source(path.name, dest, (path.name,)))
    return out
