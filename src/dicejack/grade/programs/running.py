"""Building and running one student program in the sandbox (:mod:`dicejack.runtime.sandbox`):
compiled once in a jail whose folder comes back only as a tar stream on its output, unpacked by
:func:`dicejack.runtime.tree.extract_tar` (plain files and folders, within caps: no link, device
or special bit ever reaches the grader's disk); then every run in a jail of its own starting
from that folder, with its settings rendered by the input convention, and the convention itself
found by running a tiny game when the course named none (:func:`detect`). What a run printed is
graded elsewhere (:mod:`dicejack.grade.programs.joint`); here it is only run, and its size
read."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dicejack.formats.escape import safe_text
from dicejack.formats.submission import find_table_size, read_submission_text
from dicejack.grade.programs.conventions import CANDIDATES, Convention, Settings
from dicejack.grade.programs.languages import Program
from dicejack.grade.programs.pyenv import StudentPython
from dicejack.runtime import sandbox as sb
from dicejack.runtime import tree

__all__ = ["Runner", "Build", "TINY", "detect", "build", "run_once", "printed_size",
           "BUILD_LIMITS", "BUILD_CAPS", "DETECT_P", "GUESS_RATIO", "Detection", "read_printout",
           "Judge", "states_with_data"]

#: The tiny game conventions are tried on: six different numbers, so that a program reading
#: them in another order or layout gets another size of table (or an error), never LTarget 7.
#: The values differ so that giving them in another of the candidate orders puts another number
#: at LTarget (another size of table) or, for M and NGAMES swapped (the one swap of the orders
#: that keeps LTarget), plays 7 games at M 1500 instead of 1500 at M 7: tables of the right size
#: that the consistency test tells from the settings (most states unvisited).
TINY = Settings(sides=5, low=8, high=11, dice=3, m=7.0, games=1500)
#: Building (javac, gcc) needs more memory and time than a run of a small game; the build's
#: folder comes back as its output (a tar stream), hence the larger output cap.
BUILD_LIMITS = sb.Limits(cpu_seconds=120, memory_bytes=3 << 30, file_bytes=256 << 20,
                         disk_bytes=512 << 20, processes=64, open_files=256,
                         wall_seconds=180.0, output_bytes=256 << 20)
#: What a build may leave: files, bytes and folder depth (more is the build's failure).
BUILD_CAPS = tree.TreeCaps(files=20_000, bytes=256 << 20, depth=64)


@dataclass(frozen=True)
class Runner:
    """How programs are run: the sandbox, the limits of a run and of a build, and the Python
    that Python programs run on (:mod:`dicejack.grade.programs.pyenv`; None: the system's
    python3 alone)."""

    sandbox: sb.Sandbox
    limits: sb.Limits = field(default_factory=sb.Limits)
    build_limits: sb.Limits = BUILD_LIMITS
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)
    python: StudentPython | None = None

    def shown(self, program: Program) -> dict:
        """What a program's jails are shown beyond /usr: for a Python program, the Python
        environment (read-only, at its own path) with its bin first on PATH."""
        if self.python is None or program.language.name != "python":
            return {}
        return {"readonly": self.python.readonly, "path": self.python.path}


@dataclass(frozen=True)
class Build:
    """A program built (or not): the folder its runs start from (None on failure; the
    program's own intake folder when there is nothing to build), the build's result, and why
    it failed ("" when it did not)."""

    program: Program
    folder: Path | None
    error: str = ""
    result: sb.RunResult | None = None

    def discard(self) -> None:
        """Remove the build's folder (never the intake folder it may be: that is the batch's)."""
        if self.folder is not None and self.folder != self.program.folder:
            try:
                tree.remove_tree(self.folder.parent)
            except (tree.TreeError, OSError):  # left in the temporary folder; never fatal
                pass


def _tail(data: bytes, lines: int = 3, width: int = 300) -> str:
    text = data.decode("utf-8", "replace").strip().splitlines()
    return safe_text(" | ".join(line.strip() for line in text[:lines] if line.strip())[:width])


def build(program: Program, runner: Runner) -> Build:
    """Compile the program in the sandbox, starting from its intake folder, and unpack what the
    build's folder holds afterwards into a private folder (within BUILD_CAPS). A compiler's
    complaint is the Build's error (its first lines)."""
    cmd = program.build_command()
    if cmd is None:
        return Build(program, program.folder)
    try:
        result = sb.run_jailed(runner.sandbox, cmd, source=program.folder, export=True,
                               limits=runner.build_limits, cancel=runner.cancel,
                               **runner.shown(program))
    except OSError as exc:
        return Build(program, None, f"cannot run the {program.language.name} compiler "
                     f"({cmd[0]}): {exc.strerror or exc}")
    name = program.language.name
    if result.reason == "output-limit":
        return Build(program, None, f"the build left more than "
                     f"{runner.build_limits.output_bytes:,} bytes in its folder", result)
    if not result.ok:
        said = _tail(result.stderr) or safe_text(result.why())
        return Build(program, None, f"does not compile ({name}): {said}", result)
    folder = sb.private_folder("dicejack-build-") / "b"
    try:
        tree.extract_tar(result.stdout, folder, BUILD_CAPS)
    except tree.TreeError as exc:
        tree.remove_tree(folder.parent)
        return Build(program, None, f"the build's folder is refused: {exc}", result)
    return Build(program, folder, "", result)


def run_once(built: Build, runner: Runner, convention: Convention, settings: Settings,
             seed: int | None = None, *, limits: sb.Limits | None = None) -> sb.RunResult:
    """One run of a built program in a jail of its own, starting from the build's folder,
    given `settings` by `convention`."""
    assert built.folder is not None
    args, stdin, files = convention.render(settings, seed)
    return sb.run_jailed(runner.sandbox, [*built.program.run_command(), *args],
                         source=built.folder, files=files, stdin=stdin,
                         limits=limits or runner.limits, cancel=runner.cancel,
                         collect=(convention.output,) if convention.output else (),
                         **runner.shown(built.program))


def printed_size(stdout: bytes, n_dice: int) -> int | None:
    """The LTarget of the two tables a run printed (None: no tables read)."""
    if not stdout.strip():
        return None
    try:
        return find_table_size(stdout, n_dice)
    except Exception:  # noqa: BLE001 - hostile output never stops the batch
        return None


#: The consistency p-value at or above which a candidate's printout counts as the program
#: following that convention's settings. Measured at TINY (docs/running.md): M and NGAMES
#: swapped gave p of at most 2.3e-6 (75 runs); the right order, by faithful programs and by
#: programs with a print-only slip (which lowers the p at the tiny game), at least 5e-4 (85).
#: Low, so that a program's own slip is graded and named rather than held as input unknown.
DETECT_P = 1e-5
#: Runs that hit a limit (time, CPU, output) before detection gives up on a program.
DETECT_LIMIT_HITS = 2
#: When no candidate fits (a program whose own bug makes its tiny-game tables inconsistent in
#: every order), the order whose tables have data in at least this many times as many states as
#: any other order of the right size is guessed: 1,500 games against the 7 of M and NGAMES
#: swapped. Measured at TINY (Python, Java and C programs, faithful and with a wrong M, the last
#: J drawn printed, integer division; 5 runs each): 40-57 states with data in the right order,
#: 5-11 swapped (a ratio of 3.6 at least). A guess is graded but never a decided grade
#: (batch: verdict review, flag input-guessed, held from the LMS).
GUESS_RATIO = 2.0
#: A candidate's printout judged: its consistency p-value and a few words on it.
Judge = Callable[[bytes], tuple[float, str]]


@dataclass(frozen=True)
class Detection:
    """The convention found (None: none, or more than one, fits), what each try gave, the
    consistent candidates giving different settings (two or more: a tie), and the flag when
    the program prints one size whatever it is given (``ignores-settings``)."""

    convention: Convention | None
    tries: tuple[tuple[str, str], ...]
    flag: str = ""
    stopped: str = ""  # why detection stopped early (runs hit a limit)
    fits: tuple[Convention, ...] = ()
    guess: str = ""  # `convention` is a guess (none fitted): what it was guessed from

    def reason(self) -> str:
        if self.convention is not None:
            return ""
        if len(self.fits) > 1:
            options = " or ".join(f"--input '{c.describe()}'" for c in self.fits[:3])
            return (f"{len(self.fits)} input conventions fit the tiny game equally "
                    f"({TINY.describe()}): pass {options}")
        shown = "; ".join(f"{c}: {what}" for c, what in self.tries[:4])
        ask = ("; pass the program's convention with --input (e.g. --input "
               f"'argv: {CANDIDATES[0].template}')")
        if self.stopped:
            return f"{self.stopped}{ask}"
        if self.flag:
            return (f"it prints the same size of tables whatever it is given "
                    f"({self.flag}: hard-coded settings?){ask}: {shown}")
        return (f"no input convention gives tables consistent with the tiny game "
                f"({TINY.describe()}){ask}: {shown}")


def states_with_data(printed: bytes, settings: Settings) -> int:
    """The states a printout gives an estimate for (its probability table's cells other than
    -1): what the games played reached; 0 when its tables cannot be read at `settings`."""
    try:
        sub = read_submission_text(printed, settings.low, settings.dice)
    except Exception:  # noqa: BLE001 - hostile output never stops the batch
        return 0
    return int((~sub.no_data).sum())


def _guess(sized: Sequence[tuple[Convention, int]]) -> tuple[Convention | None, str]:
    """Of the candidates whose tables had the right size but were inconsistent, the order whose
    tables have data in GUESS_RATIO times as many states as any other order's (None: no order
    stands out); and the words saying so."""
    best: dict[tuple[str, ...], tuple[Convention, int]] = {}
    for convention, states in sized:
        if convention.order not in best or states > best[convention.order][1]:
            best[convention.order] = (convention, states)
    ranked = sorted(best.values(), key=lambda cs: -cs[1])
    if not ranked or ranked[0][1] == 0:
        return None, ""
    other = ranked[1][1] if len(ranked) > 1 else 0
    if ranked[0][1] < GUESS_RATIO * other:
        return None, ""
    convention, states = ranked[0]
    against = (f", against {other} for the next order of the right size" if len(ranked) > 1
               else ", the only order giving tables of the right size")
    return convention, (f"input guessed: no convention's tables were consistent with the tiny "
                        f"game ({TINY.describe()}); '{convention.describe()}' gave data in "
                        f"{states} states{against}; its grade is held for a look: confirm "
                        f"with --input '{convention.describe()}'")


def read_printout(result: sb.RunResult, convention: Convention) -> bytes:
    """What a run printed: its standard output, or the file its convention names."""
    if not convention.output:
        return result.stdout
    return sb.collected(result.stdout).get(convention.output, b"")


def detect(built: Build, runner: Runner, candidates: Sequence[Convention] = CANDIDATES,
           tiny: Settings = TINY, judge: Judge | None = None) -> Detection:
    """Which of `candidates` the program follows. Each is run at the tiny game; a run that
    fails, prints no tables or tables of another size than LTarget rules its candidate out;
    a run of the right size is then judged (`judge`: the grader's consistency against the
    tiny game's references; None: size alone, as before) and fits when its p-value is at
    least DETECT_P. Once a candidate fits, the candidates giving the same order are skipped
    (another layout of the same settings); two fitting candidates of different orders are a
    tie (no convention). When none fits, the order whose tables have data in many more states
    than any other right-sized order's is a guess (``guess`` says so; GUESS_RATIO): a program
    whose own bug makes every order inconsistent is graded in the order it reads. When every
    candidate's tables have one same size, the program ignores its settings."""
    quick = sb.Limits(**{**runner.limits.__dict__,
                         "wall_seconds": min(runner.limits.wall_seconds, 20.0)})
    tries: list[tuple[str, str]] = []
    sizes: list[int | None] = []
    fits: list[Convention] = []
    hits: list[str] = []
    sized: list[tuple[Convention, int]] = []  # right size, inconsistent: states with data
    for convention in candidates:
        if any(f.order == convention.order for f in fits):
            continue
        result = run_once(built, runner, convention, tiny, seed=1, limits=quick)
        printed = read_printout(result, convention)
        size = printed_size(printed, tiny.dice)
        sizes.append(size)
        if result.ok and size == tiny.low:
            p, said = judge(printed) if judge is not None else (1.0, "")
            if p >= DETECT_P:
                fits.append(convention)
                tries.append((convention.describe(), f"fits (consistency p {p:.3g})"))
                if judge is None:
                    break
                continue
            sized.append((convention, states_with_data(printed, tiny)))
            what = (f"right size, inconsistent with its settings (p {p:.2g}{said}; data in "
                    f"{sized[-1][1]} states)")
        else:
            what = (result.why() if not result.ok else
                    f"{size}x{size} tables" if size is not None else "no tables read")
        tries.append((convention.describe(), what))
        if result.reason == "cancelled":
            break
        if result.reason:  # timed out, out of CPU, too much output
            hits.append(what)
            if len(hits) >= DETECT_LIMIT_HITS:
                break
    if len(fits) == 1:
        return Detection(fits[0], tuple(tries), fits=tuple(fits))
    stopped = (f"on the tiny game {len(hits)} runs hit a limit ({hits[0]})"
               if len(hits) >= DETECT_LIMIT_HITS and not fits else "")
    if not fits and not stopped and judge is not None:
        guessed, why = _guess(sized)
        if guessed is not None:
            return Detection(guessed, tuple(tries), guess=why)
    printed_sizes = [s for s in sizes if s is not None]
    flag = ("ignores-settings" if not fits and len(printed_sizes) >= 2
            and len(set(printed_sizes)) == 1 else "")
    return Detection(None, tuple(tries), flag, stopped, tuple(fits))
