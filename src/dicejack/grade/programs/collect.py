"""Student programs from what the instructor gives: a source file, a folder per student (or a
folder of them), or an LMS zip of code; each becomes one folder of that student's files and the
path it had in the download (for the LMS identity, as :mod:`dicejack.grade.intake.lms_names` reads
it).

A submission is hostile data: its folders are walked without recursion and without following a
link, and copied by :func:`dicejack.runtime.tree.copy_tree` (plain files and folders only, modes
without special bits, within :data:`INTAKE_CAPS`); a submission that cannot be taken in (too
deep, too large, unreadable) is that student's :class:`Source` with an error, and the others go
on. Zip members are extracted within limits (count, size, depth, no path leaving the folder, no
links).

Where an LMS names files (a flat download: Canvas, Moodle's files, Blackboard), the files at the
LMS's level are grouped by the student their names give, each student's one program, and each is
put back under the name its code needs (:func:`_restore`: Java's public class, C and C++ local
includes, Python imports, else the student's own name without the LMS's prefix); a student's own
.zip there is unpacked as that student's files (a zip inside it is not). Identity never moves:
it stays the LMS name's, at the LMS's level (`parts`)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dicejack.formats.escape import safe_text
from dicejack.grade.intake.lms_names import (
    LMS_LEVEL,
    MOODLE_FILE,
    Student,
    blackboard_match,
    deciding_name,
    one_folder,
)
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
    #: What taking it in changed, for its row: files put back under the names their code needs
    #: when two of them wanted one name (the LMS's latest kept).
    notes: tuple[str, ...] = ()

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


def _extract(archive: Path, dest: Path, members_cap: int = MAX_ZIP_MEMBERS,
             bytes_cap: int = MAX_ZIP_BYTES, name: str = "") -> None:
    """Unpack an LMS zip (or a student's own, within `members_cap` and `bytes_cap`, named
    `name` in what is said): plain members only, none leaving `dest` or deeper than the
    intake's depth; a member that cannot be written is left out (its student's program then
    says what is missing). A zip among the members stays a file (never unpacked)."""
    name = name or archive.name
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > members_cap:
                raise GradeError(f"{safe_text(name)}: more than {members_cap:,} members")
            if sum(m.file_size for m in members) > bytes_cap:
                raise GradeError(f"{safe_text(name)}: more than {bytes_cap:,} bytes unpacked")
            for m in members:
                member = PurePosixPath(m.filename)
                if m.is_dir() or stat.S_ISLNK(m.external_attr >> 16):
                    continue
                if (member.is_absolute() or ".." in member.parts or len(member.parts) >
                        INTAKE_CAPS.depth or any(p in SKIP_DIRS for p in member.parts)):
                    continue
                target = dest.joinpath(*member.parts)
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(m) as f, open(target, "xb") as out:
                        shutil.copyfileobj(f, out, 1 << 20)
                except (OSError, ValueError, NotImplementedError, zipfile.BadZipFile,
                        EOFError):
                    continue  # a member we cannot write: not the batch's failure
    except GradeError:
        raise
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        raise GradeError(f"cannot read the archive {safe_text(name)}: "
                         f"{safe_text(str(exc))}") from None


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
        out.append(Source(label, dest, parts, _cannot(exc), given.deepest, folder))
        return
    out.append(Source(label, dest, parts, "", given.deepest, folder))


def _cannot(exc: Exception) -> str:
    """Why a submission could not be taken in, as its row's reason."""
    why = (str(exc) if isinstance(exc, (tree.TreeError, GradeError))
           else (getattr(exc, "strerror", None) or str(exc)))
    return f"cannot take the submission in: {safe_text(why)}"


# ------------------------------------------------------------------ files an LMS renamed

_CANVAS_DUPLICATE = re.compile(r"(?P<stem>.+)-[0-9]{1,4}(?P<ext>\.[^.]*)?", re.ASCII | re.DOTALL)
#: Comments and literals, each ending at its end or the text's (the line's for a literal):
#: every start matches, so a text of unclosed ones costs one pass.
_JAVA_NOISE = re.compile(rb'"(?:\\.|[^"\\\n])*(?:"|$)|\'(?:\\.|[^\'\\\n])*(?:\'|$)|//[^\n]*'
                         rb"|/\*.*?(?:\*/|\Z)", re.DOTALL | re.MULTILINE)
_JAVA_TYPE = re.compile(rb"[{}]|\b(?:class|interface|enum|record)\s+(?P<name>[A-Za-z_$][\w$]*)")
_JAVA_MODIFIERS = frozenset({b"public", b"abstract", b"final", b"sealed", b"non-sealed",
                             b"strictfp", b"static", b"@"})
_C_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n/\\]+)"', re.MULTILINE)
_PY_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)|import[ \t]+([A-Za-z_]\w*"
                        rb"(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*))", re.MULTILINE)
_JAVA_CLASS_NAME = re.compile(r"[A-Za-z_$][\w$]*", re.ASCII)
#: How much of a file is read for the names its code needs.
_READ = 1 << 20


def _lms_file(name: str) -> tuple[Student, str] | None:
    """The student and the student's own file name of one file name an LMS wrote (Canvas:
    after `<name>_<user id>_<attachment id>_`; Moodle: after `..._assignsubmission_<plugin>_`;
    Blackboard: after `..._attempt_<date>_`), when exactly one LMS's pattern matches it; None
    otherwise (a text entry, a receipt, a name two LMSs read)."""
    found = deciding_name((name,), deepest=0)[1]
    if len(found) != 1:
        return None
    ((lms, student),) = found.items()
    own = ""
    if lms == "canvas" and student.order:
        tokens = name.split("_")
        if student.id.startswith("anon_"):
            at = 1 if tokens[0] == "LATE" else 0
            own = "_".join(tokens[at + 3:])
        else:
            k = next(i for i, t in enumerate(tokens)
                     if t == "LATE" or (t.isascii() and t.isdigit()))
            k += tokens[k] == "LATE"
            own = "_".join(tokens[k + 2:])
    elif lms == "moodle":
        m = MOODLE_FILE.fullmatch(name)
        own = m["file"] if m else ""
    elif lms == "blackboard":
        m = blackboard_match(name)
        own = (m["file"] or "") if m else ""
    return student, own


def _plain(name: str) -> bool:
    """A name a file may be put back under: one plain name in the folder, never an option."""
    return (bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name
            and not name.startswith("-") and len(os.fsencode(name)) <= 255
            and name not in SKIP_DIRS)


def _head(path: Path, size: int = _READ) -> bytes:
    """The start of a plain file (b"" when it cannot be read; never a link followed)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read(size) if stat.S_ISREG(os.fstat(f.fileno()).st_mode) else b""
    except OSError:
        return b""


def _java_type(text: bytes) -> str | None:
    """The name a Java file must have: its public top-level type's, else its only top-level
    type's; None when the text does not tell (comments and literals are not read)."""
    text = _JAVA_NOISE.sub(b" ", text)
    depth, public, every = 0, [], []
    for m in _JAVA_TYPE.finditer(text):
        token = m.group(0)
        if token == b"{":
            depth += 1
        elif token == b"}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            name = m["name"].decode("ascii", "replace")
            every.append(name)
            words = text[max(m.start() - 200, 0):m.start()].split()
            mods = []
            while words and words[-1] in _JAVA_MODIFIERS:
                mods.append(words.pop())
            if b"public" in mods:
                public.append(name)
    names = public or (every if len(every) == 1 else [])
    return names[0] if len(names) == 1 and _JAVA_CLASS_NAME.fullmatch(names[0]) else None


def _needed(texts: Iterable[tuple[str, bytes]]) -> set[str]:
    """The plain file names a program's code asks for: C and C++ local includes, Python
    modules imported."""
    wanted: set[str] = set()
    for name, text in texts:
        suffix = Path(name).suffix
        if suffix == ".py":
            for m in _PY_IMPORT.finditer(text):
                for module in (m[1] or m[2] or b"").split(b","):
                    if module.strip():
                        wanted.add(module.strip().decode("ascii") + ".py")
        elif suffix not in (".java",):
            wanted.update(i.decode("utf-8", "replace").strip() for i in _C_INCLUDE.findall(text))
    return wanted


def _original(own: str, path: Path, needed: set[str]) -> str:
    """The name a renamed file goes back under: a Java file its class's; else the student's own
    name, or that name without the `-1` an LMS adds to a name uploaded again when the code asks
    for that one (``util-1.h`` for ``#include "util.h"``)."""
    if Path(own).suffix == ".java":
        cls = _java_type(_head(path))
        if cls is not None:
            return f"{cls}.java"
    m = _CANVAS_DUPLICATE.fullmatch(own)
    if own not in needed and m is not None:
        plain = m["stem"] + (m["ext"] or "")
        if plain in needed:
            return plain
    return own


def _restore(staged: Path, dest: Path) -> tuple[str, ...]:
    """Move the files an LMS renamed, copied into `staged` under the LMS's names, into `dest`
    (a new folder) under the names their code needs (:func:`_original`); a name that is not a
    plain file name keeps the LMS's. Two files wanting one name: the LMS's latest (its larger
    attachment id or later attempt) is kept, and the notes say so."""
    files = [e.name for e in _files(staged)]
    owns: dict[str, tuple[str, str]] = {}  # LMS name -> (own name, order)
    for name in files:
        found = _lms_file(name)
        own = found[1] if found is not None else ""
        owns[name] = (own if _plain(own) else name, found[0].order if found else "")
    needed = _needed((owns[n][0], _head(staged / n)) for n in files
                     if Path(owns[n][0]).suffix not in (".zip",))
    wanted: dict[str, list[tuple[str, str]]] = {}
    for name in files:
        own, order = owns[name]
        target = _original(own, staged / name, needed) if own != name else name
        if not _plain(target):
            target = name
        wanted.setdefault(target, []).append((order, name))
    dest.mkdir(mode=0o755)
    notes = []
    for target, claims in sorted(wanted.items()):
        claims.sort()
        os.rename(staged / claims[-1][1], dest / target)
        if len(claims) > 1:
            dropped = ", ".join(n for _, n in claims[:-1])
            notes.append(f"{len(claims)} files are {target}: kept the latest, "
                         f"{claims[-1][1]}, not {dropped}")
    return tuple(safe_text(n) for n in notes)


def _group(files: list[Path], parts: tuple[str, ...], work: Path, out: list[Source],
           given: _Given) -> None:
    """One student's files an LMS named (their names at the LMS's level, `parts` the path of the
    folder holding them) as one program: copied, put back under the names their code needs
    (:func:`_restore`), and the student's own zips unpacked beside them (within the intake's
    caps; a zip inside one stays a file). Its path in the download is its latest file's, whose
    LMS name gives its identity; whatever goes wrong is that student's error."""
    n = len(out)
    dest, staged = work / f"p{n}", work / f"p{n}-lms"
    latest = max(files, key=lambda f: ((_lms_file(f.name) or (Student(""), ""))[0].order, f.name))
    me = (*parts, latest.name)
    label = "/".join(me[given.skip:]) or latest.name
    zips = [f for f in files if f.suffix.lower() == ".zip"]
    try:
        staged.mkdir(mode=0o755)
        for f in files:
            _copy_file(f, staged / f.name)
        for z in zips:  # a zip is unpacked, never put back
            os.rename(staged / z.name, work / f"p{n}-{zips.index(z)}.zip")
        notes = _restore(staged, dest)
        for k, z in enumerate(zips):
            inner = work / f"p{n}-{k}.zip"
            _extract(inner, dest, INTAKE_CAPS.files, INTAKE_CAPS.bytes, z.name)
            inner.unlink()
    except (tree.TreeError, OSError, GradeError) as exc:
        tree.remove_tree(dest)
        out.append(Source(label, dest, me, _cannot(exc), given.deepest))
        return
    finally:
        tree.remove_tree(staged)
        for k in range(len(zips)):
            (work / f"p{n}-{k}.zip").unlink(missing_ok=True)
    out.append(Source(label, dest, me, "", given.deepest, notes=notes))


def _lms_key(parts: tuple[str, ...], given: _Given) -> tuple[tuple[str, str], ...] | None:
    """Whose a file is when its own name (the last of `parts`) is the LMS name deciding it, at
    the LMS's level: the LMSs it matches and the student each names; None otherwise."""
    i, found = deciding_name(parts, deepest=given.deepest)
    if i != len(parts) - 1 or not found:
        return None
    return tuple(sorted((lms, s.id) for lms, s in found.items()))


def _lms_named(folder: Path, parts: tuple[str, ...], exts: set[str], given: _Given) -> bool:
    """Does `folder` (its path `parts`) hold, directly, a source file or a zip whose own name an
    LMS wrote at its level (a flat download)?"""
    return any((Path(e.name).suffix in exts or e.name.lower().endswith(".zip"))
               and _lms_key((*parts, e.name), given) is not None for e in _files(folder))


def _level(folder: Path, given: str) -> int:
    """The deepest level an LMS name may decide from under a folder given (or a zip unpacked):
    one deeper when it holds nothing but the one folder an LMS or a packer wrote."""
    top = [(e.name, e.is_dir(follow_symlinks=False)) for e in _entries(folder)
           if e.name not in SKIP_DIRS]
    return LMS_LEVEL + 1 if one_folder(top, given) else LMS_LEVEL


_JAVA_PACKAGE = re.compile(rb"^[ \t\f\r]*package\s+([A-Za-z_][\w.]{0,200})\s*;", re.MULTILINE)
_JAVA_IMPORT = re.compile(rb"^[ \t\f\r]*import\s+(?:static\s+)?([A-Za-z_][\w.]{0,200})",
                          re.MULTILINE)


def _imported_library(direct: list[os.DirEntry], folders: list[Path], exts: set[str]
                      ) -> bool:
    """Are `folders` a vendored Java library of the Java files `direct` (one program, not a
    class): every source file in them a .java file declaring a package, and each folder
    holding a package those files import?"""
    imports: set[bytes] = set()
    for e in direct:
        if e.name.endswith(".java"):
            imports.update(m.rsplit(b".", 1)[0] for m in _JAVA_IMPORT.findall(_head(Path(e.path))))
    if not imports:
        return False
    for folder in folders:
        packages = set()
        for e in _walk(folder):
            if e.name.endswith(".java"):
                m = _JAVA_PACKAGE.search(_head(Path(e.path), 1 << 16))
                if m is None:
                    return False
                packages.add(m[1])
            elif Path(e.name).suffix in exts:
                return False
        if not packages & imports:
            return False
    return True


def _one_program(folder: Path, exts: set[str], extra: Mapping[str, Language] | None) -> bool:
    """Do the source files directly in `folder` make one program (not one file per student)?
    One file, or several with one main file in a compiled language; folders of source files
    beside them make a class folder, unless they are the library the Java files import
    (:func:`_imported_library`)."""
    direct = [e for e in _files(folder) if Path(e.name).suffix in exts]
    holding = [Path(d.path) for d in _dirs(folder) if _holds_source(Path(d.path), exts)]
    if holding and not _imported_library(direct, holding, exts):
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
    """A student's folder is one program, unless it holds several students' (a section, or
    the files of a flat download packed in one folder)."""
    if len(parts) <= given.deepest and _lms_named(folder, parts, exts, given):
        _class(folder, parts, exts, work, out, extra, given)
    elif _has_source(folder, exts) or len(_dirs(folder)) <= 1:
        _one(folder, parts, work, out, given)
    else:
        _class(folder, parts, exts, work, out, extra, given)


def _class(folder: Path, parts: tuple[str, ...], exts: set[str], work: Path,
           out: list[Source], extra: Mapping[str, Language] | None,
           given: _Given = _Given()) -> None:
    """A folder of submissions: each source file and each folder is one student's (links,
    fifos and devices are no one's); at the LMS's level, the files an LMS named (any kind: a
    header, a student's own zip) are grouped by the student their names give, one program
    each (:func:`_group`)."""
    at_lms = len(parts) <= given.deepest
    todo: list[tuple[str, object]] = []
    groups: dict[tuple[tuple[str, str], ...], list[Path]] = {}
    for child in _entries(folder):
        if child.name in SKIP_DIRS:
            continue
        path = Path(child.path)
        if child.is_dir(follow_symlinks=False):
            todo.append(("folder", path))
        elif child.is_file(follow_symlinks=False):
            key = _lms_key((*parts, child.name), given) if at_lms else None
            if key is not None:
                if key not in groups:
                    todo.append(("group", key))
                groups.setdefault(key, []).append(path)
            elif path.suffix in exts:
                todo.append(("file", path))
    for kind, what in todo:
        if kind == "folder":
            assert isinstance(what, Path)
            _student(what, (*parts, what.name), exts, work, out, extra, given)
        elif kind == "file":
            assert isinstance(what, Path)
            _one(what, (*parts, what.name), work, out, given)
        else:
            files = groups[what]  # type: ignore[index]
            if any(f.suffix in exts or f.suffix.lower() == ".zip" for f in files):
                _group(files, parts, work, out, given)


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
        elif (path.is_dir() and not path.is_symlink()
              and _lms_named(path, (path.name,), exts, _Given())):
            # a flat download: one student per LMS name (the folder's name starts the parts)
            _class(path, (path.name,), exts, work, out, extra,
                   _Given(1, _level(path, path.name)))
        elif path.is_dir() and _has_source(path, exts) and _one_program(path, exts, extra):
            _one(path, (path.name,), work, out)
        elif path.is_dir():  # a class folder: its name starts the parts, not the labels
            _class(path, (path.name,), exts, work, out, extra,
                   _Given(1, _level(path, path.name)))
        elif _lms_key((path.name,), _Given()) is not None and path.is_file():
            _group([path], (), work, out, _Given())  # one file an LMS named, put back
        else:
            _one(path, (path.name,), work, out)
    return out
