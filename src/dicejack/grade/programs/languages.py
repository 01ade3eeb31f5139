"""Which language a submitted program is in, and how to build and run it: Python, Java, C and C++
out of the box, any other by a command template. Only file names and a submission's own words
(``public static void main``, ``__main__``) are looked at, never run here; building and running
happen in the sandbox (:mod:`dicejack.grade.programs.running`). A file name is never an option
to a compiler: every file is passed as ``./NAME`` (so ``-specs=x.c`` or ``@args.java`` are
files, not options), a source file whose name starts with ``-`` is the row's reason, and javac
runs no annotation processor (``-proc:none``: a class file of the submission's could otherwise
run inside javac). A program of many source files (a vendored library) gets them in an argument
file the grader writes beside them (``@./NAME``, every name in it ``./``-prefixed and quoted),
never one of the submission's own."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dicejack.formats.escape import safe_text
from dicejack.grade.settings import GradeError

__all__ = ["Language", "LANGUAGES", "Program", "parse_language", "find_program",
           "JAVA_OPTIONS", "MAX_SOURCE_FILES", "ARGFILE_OVER"]

#: JVM options that let Java start inside the address-space limit (the JVM reserves far more
#: virtual memory than it uses) and keep its threads few (the process limit counts them).
JAVA_OPTIONS = ("-Xmx256m", "-Xss2m", "-XX:CompressedClassSpaceSize=64m",
                "-XX:ReservedCodeCacheSize=32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:CICompilerCount=1", "-Xshare:auto")
#: A submission with more source files than this is refused (a row says so): room for a
#: program shipped with its vendored library (a thousand files and more), well within the
#: intake's 20,000 files (:data:`dicejack.grade.programs.collect.INTAKE_CAPS`).
MAX_SOURCE_FILES = 5_000
#: Source names longer than this in all (bytes) go to the compiler in an argument file the
#: grader writes (javac, gcc and g++ read ``@FILE``), not on its command line.
ARGFILE_OVER = 32 << 10


@dataclass(frozen=True)
class Language:
    """A language: its source extensions, its build command (None: nothing to build) and its run
    command, as templates over ``{main}`` (the main file), ``{stem}`` (its name without the
    extension, e.g. a Java class) and ``{sources}`` (every source file, one argument each)."""

    name: str
    extensions: tuple[str, ...]
    run: tuple[str, ...]
    build: tuple[str, ...] | None = None
    #: How its compiler reads an argument file (``@FILE``): "javac" or "gcc" quoting; "" when
    #: it reads none (the sources then always go on the command line).
    argfile: str = ""

    def command(self, template: Sequence[str], main: str, sources: Sequence[str],
                stem: str | None = None) -> list[str]:
        stem = Path(main).stem if stem is None else stem
        out: list[str] = []
        for part in template:
            if part == "{sources}":
                out.extend(sources)
            else:
                out.append(part.replace("{main}", main).replace("{stem}", stem))
        return out


LANGUAGES: dict[str, Language] = {
    "python": Language("python", (".py",), ("python3", "-I", "{main}")),
    "java": Language("java", (".java",), ("java", *JAVA_OPTIONS, "-cp", ".", "{stem}"),
                     ("javac", *(f"-J{o}" for o in JAVA_OPTIONS[:5]), "-proc:none",
                      "-encoding", "UTF-8", "-d", ".", "{sources}"), "javac"),
    "c": Language("c", (".c",), ("./program",),
                  ("gcc", "-O2", "-std=gnu11", "-o", "program", "{sources}", "-lm"), "gcc"),
    "c++": Language("c++", (".cpp", ".cc", ".cxx", ".C"), ("./program",),
                    ("g++", "-O2", "-std=gnu++17", "-o", "program", "{sources}"), "gcc"),
}


def parse_language(spec: str) -> Language:
    """A language from a command template ``NAME EXT[,EXT]: RUN`` or ``NAME EXT: BUILD && RUN``,
    e.g. ``ruby .rb: ruby {main}`` or ``rust .rs: rustc -O -o program {main} && ./program``."""
    head, sep, commands = spec.partition(":")
    words = head.split()
    if not sep or len(words) != 2 or not commands.strip():
        raise GradeError(f"language template must be 'NAME .EXT: RUN' or 'NAME .EXT: BUILD && "
                         f"RUN', got {spec!r}")
    name, exts = words
    extensions = tuple(e if e.startswith(".") else f".{e}" for e in exts.split(",") if e)
    build, _, run = commands.rpartition("&&")
    if not run.split():
        raise GradeError(f"language template {spec!r} has no run command")
    return Language(name, extensions, tuple(run.split()),
                    tuple(build.split()) if build.strip() else None)


@dataclass(frozen=True)
class Program:
    """One student's program: its files (relative to `folder`), language and main file."""

    label: str
    folder: Path
    language: Language
    main: str
    sources: tuple[str, ...]
    parts: tuple[str, ...] = ()  # its path in the download, for the LMS identity
    stem: str | None = None  # the main class with its package (Java), else the main file's stem
    argfile: str = ""  # the grader's argument file in `folder` naming the sources ("": none)

    def build_command(self) -> list[str] | None:
        if self.language.build is None:
            return None
        style = self.language.argfile
        sources = ([f"@{_here(self.argfile)}",
                    *(_here(s) for s in self.sources if not _in_argfile(s, style))]
                   if self.argfile else [_here(s) for s in self.sources])
        return self.language.command(self.language.build, _here(self.main), sources, self.stem)

    def run_command(self) -> list[str]:
        return self.language.command(self.language.run, _here(self.main),
                                     [_here(s) for s in self.sources], self.stem)


def _here(name: str) -> str:
    """A file name as a path that no command reads as an option (``./-x.c``, ``./@args``)."""
    return name if name.startswith("./") else f"./{name}"


_JAVA_MAIN = re.compile(rb"public\s+static\s+(?:final\s+)?void\s+main\s*\(")
_PY_MAIN = re.compile(rb"""__name__\s*==\s*['"]__main__['"]""")
_C_MAIN = re.compile(rb"\bint\s+main\s*\(")
_JAVA_PACKAGE = re.compile(rb"^[ \t\f\r]*package\s+([A-Za-z_][\w.]*)\s*;", re.MULTILINE)
_JAVA_CLASS = re.compile(r"[A-Za-z_$][\w$]*")


def _main_of(language: Language, folder: Path, sources: list[str]) -> str:
    """The main file: the only one with a main; among several, the only one nearest the top (a
    vendored library's own tools and examples lie deeper than the student's main)."""
    pattern = {"java": _JAVA_MAIN, "python": _PY_MAIN, "c": _C_MAIN, "c++": _C_MAIN}.get(
        language.name)
    if len(sources) == 1 or pattern is None:
        return sources[0]
    hits = [s for s in sources if pattern.search((folder / s).read_bytes()[:1 << 20])]
    if len(hits) > 1:
        top = min(s.count("/") for s in hits)
        if sum(s.count("/") == top for s in hits) == 1:
            return next(s for s in hits if s.count("/") == top)
    if len(hits) == 1:
        return hits[0]
    if language.name in ("c", "c++") and not hits:
        return sources[0]
    many = ", ".join(hits or sources)
    raise GradeError(f"cannot tell the main file among {many}")


def find_program(folder: Path, label: str, extra: Mapping[str, Language] | None = None,
                 parts: Sequence[str] = ()) -> Program:
    """The program in `folder` (its files, searched recursively): the language most of its
    source files are in, and the main file. GradeError (one line: the row's reason) when there
    is no source file or the main file is ambiguous."""
    languages = {**LANGUAGES, **(extra or {})}
    by_ext = {ext: lang for lang in languages.values() for ext in lang.extensions}
    found: dict[str, list[str]] = {}
    count = 0
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        lang = by_ext.get(path.suffix)
        if lang is not None:
            relative = path.relative_to(folder)
            if any(part.startswith("-") for part in relative.parts):
                raise GradeError(f"a file name starts with '-' ({safe_text(relative.as_posix())}"
                                 "): rename it, a compiler would read it as an option")
            count += 1
            if count > MAX_SOURCE_FILES:
                raise GradeError(f"more than {MAX_SOURCE_FILES} source files")
            found.setdefault(lang.name, []).append(path.relative_to(folder).as_posix())
    if not found:
        known = ", ".join(sorted(by_ext))
        raise GradeError(f"no program found (source files: {known})")
    name = max(found, key=lambda n: len(found[n]))
    language = languages[name]
    sources = found[name]
    main = _main_of(language, folder, sources)
    stem = None
    if language.name == "java":
        package = _JAVA_PACKAGE.search((folder / main).read_bytes()[:1 << 20])
        if not _JAVA_CLASS.fullmatch(Path(main).stem):
            raise GradeError(f"the main class's file name {safe_text(Path(main).name)} is not "
                             "a Java class name")
        stem = Path(main).stem if package is None else (
            f"{package.group(1).decode()}.{Path(main).stem}")
    argfile = ""
    if (language.argfile and language.build is not None
            and sum(len(os.fsencode(s)) + 3 for s in sources) > ARGFILE_OVER):
        argfile = _write_argfile(folder, language.argfile, sources)
    return Program(label, folder, language, main, tuple(sources), tuple(parts), stem, argfile)


def _in_argfile(name: str, style: str) -> bool:
    """Does a source go in the argument file? javac reads it in the platform's charset (ASCII in
    a jail without a locale): a name beyond ASCII stays on the command line."""
    return style != "javac" or name.isascii()


def _quoted(name: str, style: str) -> bytes:
    """One source as its compiler reads it from an argument file: ``./NAME`` (never an option
    nor another argument file), quoted so that no character of the name is read as a
    separator, a quote or a comment (javac: double quotes, ``\\`` escapes, no raw line break;
    gcc: every blank, quote and backslash escaped)."""
    path = _here(name)
    if style == "javac":
        escaped = (path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
                   .replace("\r", "\\r").replace("\f", "\\f"))
        return f'"{escaped}"'.encode("utf-8", "surrogateescape")
    return re.sub(r"""([\s'"\\])""", r"\\\1", path).encode("utf-8", "surrogateescape")


def _write_argfile(folder: Path, style: str, sources: Sequence[str]) -> str:
    """Write the argument file naming `sources` into `folder` under a name no file there has
    (created afresh, never a file of the submission's), and return that name."""
    text = b"".join(_quoted(s, style) + b"\n" for s in sources if _in_argfile(s, style))
    for k in range(100):
        name = f"dicejack-sources-{k}.args"
        try:
            fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(text)
        return name
    raise GradeError("cannot write the list of source files (dicejack-sources-*.args taken)")
