"""How a program takes its settings: an input convention is where (the command line, standard
input, a file in its folder) and in what order and layout the six numbers go. The handout leaves
this open, so the course may name its own (``--input "argv: {sides} {low} {high} {dice} {m}
{games}"``) and otherwise :data:`CANDIDATES`, the common ones, are tried on a tiny game
(:mod:`dicejack.grade.programs.running` judges each by whether what it printed is consistent
with the settings it gave: the grader's own statistics, not only the tables' size).

The candidates: the settings in each of :data:`ORDERS` (the orders students use), on the
command line, on standard input (one line, or one a line) or in ``input.txt``; and, proposed
from the program's own source text (:func:`source_candidates`, which only proposes: identity
and grade never come from the student's text), each value passed by its flag when the program
declares flags (``--NDice 2 --NSides 6 ...``, ``-ND 2 -NS 6 ...``) and the printout read from
a ``.txt`` file the program writes (``output.txt``) instead of standard output."""

from __future__ import annotations

import re
from dataclasses import dataclass

from dicejack.grade.settings import GradeError

__all__ = ["Convention", "Settings", "parse_convention", "CANDIDATES", "FIELDS", "HANDOUT_ORDER",
           "DICE_FIRST_ORDER", "INPUT_FILE", "ORDERS", "OUTPUT_FILE", "source_candidates",
           "flag_candidates"]

#: The placeholders a convention may use (seed: a fresh seed per run, for programs taking one).
FIELDS = ("sides", "low", "high", "dice", "m", "games", "seed")
#: The handout's order (NSides LTarget UTarget NDice M NGAMES) and the other common one.
HANDOUT_ORDER = "{sides} {low} {high} {dice} {m} {games}"
DICE_FIRST_ORDER = "{dice} {sides} {low} {high} {m} {games}"
#: The orders students use: the handout's, NDice first, and each with NGAMES before M (the
#: order the handout's own sentence "play NGAMES games ... with M" suggests to some). Kept
#: small: every order is tried in every place, and the tiny game must tell each from the rest.
ORDERS = (HANDOUT_ORDER, DICE_FIRST_ORDER, "{sides} {low} {high} {dice} {games} {m}",
          "{dice} {sides} {low} {high} {games} {m}")
#: The printout file tried when a program's source names it (its tables are not on stdout).
OUTPUT_FILE = "output.txt"
#: The input file name of the file conventions when none is named.
INPUT_FILE = "input.txt"
_KINDS = ("argv", "stdin", "file")
_FIELD = re.compile(r"\{([a-z]*)\}")
_SAFE_FILE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class Settings:
    """One game's settings as a program is given them (NSides LTarget UTarget NDice M NGAMES)."""

    sides: int
    low: int
    high: int
    dice: int
    m: float
    games: int

    def values(self, seed: int | None = None) -> dict[str, str]:
        m = f"{self.m:g}" if float(self.m).is_integer() else repr(float(self.m))
        return {"sides": str(self.sides), "low": str(self.low), "high": str(self.high),
                "dice": str(self.dice), "m": m, "games": str(self.games),
                "seed": "" if seed is None else str(seed)}

    def describe(self) -> str:
        return (f"NSides={self.sides} LTarget={self.low} UTarget={self.high} NDice={self.dice} "
                f"M={self.m:g} NGAMES={self.games:,}")


@dataclass(frozen=True)
class Convention:
    """Where the settings go (kind: argv, stdin or file; file: its name) and the template of
    what is written there. In stdin and file templates ``|`` starts a new line."""

    kind: str
    template: str
    file: str = ""
    output: str = ""  # the file the program writes its tables to ("" standard output)

    @property
    def takes_seed(self) -> bool:
        return "{seed}" in self.template

    def text(self, settings: Settings, seed: int | None = None) -> str:
        values = settings.values(seed)
        return _FIELD.sub(lambda mt: values[mt.group(1)], self.template)

    def render(self, settings: Settings, seed: int | None = None
               ) -> tuple[list[str], bytes, dict[str, bytes]]:
        """(extra command-line arguments, standard input, files to write in the folder)."""
        filled = self.text(settings, seed)
        if self.kind == "argv":
            return filled.split(), b"", {}
        body = "\n".join(part.strip() for part in filled.split("|")) + "\n"
        if self.kind == "stdin":
            return [], body.encode(), {}
        return [], b"", {self.file: body.encode()}

    def describe(self) -> str:
        where = f"file {self.file}" if self.kind == "file" else self.kind
        out = f" > {self.output}" if self.output else ""
        return f"{where}: {self.template}{out}"

    @property
    def order(self) -> tuple[str, ...]:
        """The fields in the order this convention gives them (what two conventions must
        share to give a program the same settings)."""
        return tuple(_FIELD.findall(self.template))


def parse_convention(spec: str) -> Convention:
    """``argv: ...``, ``stdin: ...`` or ``file NAME: ...`` with placeholders {sides} {low} {high}
    {dice} {m} {games} (and {seed}); ``|`` separates lines of stdin or a file."""
    head, sep, template = spec.partition(":")
    words = head.split()
    if not sep or not words or words[0] not in _KINDS:
        raise GradeError(f"--input must start with argv:, stdin: or file NAME:, got {spec!r}")
    kind = words[0]
    name = ""
    if kind == "file":
        name = words[1] if len(words) == 2 else INPUT_FILE if len(words) == 1 else ""
        if not _SAFE_FILE.match(name):
            raise GradeError(f"--input file name must be a plain file name, got {head!r}")
    elif len(words) != 1:
        raise GradeError(f"--input: unexpected words before ':' in {spec!r}")
    template, _, output = template.strip().partition(" > ")
    template, output = template.strip(), output.strip()
    if output and not _SAFE_FILE.match(output):
        raise GradeError(f"--input: the output after '>' must be a plain file name, got "
                         f"{output!r}")
    used = _FIELD.findall(template)
    unknown = sorted(set(used) - set(FIELDS))
    if unknown:
        raise GradeError(f"--input: unknown placeholder {{{unknown[0]}}}; use "
                         + " ".join(f"{{{f}}}" for f in FIELDS))
    missing = [f for f in FIELDS[:6] if f not in used]
    if missing:
        raise GradeError(f"--input: the template lacks {{{missing[0]}}}")
    return Convention(kind, template, name, output)


def _candidates() -> tuple[Convention, ...]:
    out: list[Convention] = []
    for order in ORDERS:
        per_line = order.replace(" ", " | ")
        out += [Convention("argv", order), Convention("stdin", order),
                Convention("stdin", per_line), Convention("file", order, INPUT_FILE),
                Convention("file", per_line, INPUT_FILE)]
    return tuple(out)


#: The conventions tried, in order, when the course names none.
CANDIDATES = _candidates()

#: A flag's name for each field, as students spell them (lower-cased, "-" and "_" dropped):
#: the handout's names and their initials (``--NDice``, ``-ND``, ``--n_sides``, ``-lt``).
_FLAG_NAMES = {
    "sides": ("nsides", "ns", "sides"), "low": ("ltarget", "lt", "low"),
    "high": ("utarget", "ut", "high"), "dice": ("ndice", "nd", "dice"),
    "m": ("m",), "games": ("ngames", "ng", "games"),
}
_FLAG = re.compile(r"""["'](--?[A-Za-z][A-Za-z_-]{0,15})["']""")
_TXT = re.compile(r"""["']([A-Za-z0-9][A-Za-z0-9._-]{0,59}\.txt)["']""")


def _key(flag: str) -> str:
    return flag.lstrip("-").replace("-", "").replace("_", "").lower()


def flag_candidates(source: str) -> tuple[Convention, ...]:
    """Conventions passing each value by its flag, from the flag-looking string literals of a
    program's source (``add_argument("-ND", "--ndice")``, ``"--NSides".equals(...)``): one
    per spelling style found (long, short) that names all six fields; none otherwise."""
    found = [f for f in dict.fromkeys(_FLAG.findall(source))]
    out: list[Convention] = []
    for style in (lambda f: f.startswith("--"), lambda f: not f.startswith("--")):
        by_field: dict[str, str] = {}
        for flag in found:
            if not style(flag):
                continue
            for field_, names in _FLAG_NAMES.items():
                if _key(flag) in names and field_ not in by_field:
                    by_field[field_] = flag
        if len(by_field) == 6:
            out.append(Convention("argv", " ".join(
                f"{by_field[f]} {{{f}}}" for f in FIELDS[:6])))
    return tuple(out)


def source_candidates(source: str, candidates: tuple[Convention, ...] = CANDIDATES
                      ) -> tuple[Convention, ...]:
    """The candidates for a program whose source text is `source`: its flag conventions first,
    then `candidates`; and, when the source names a ``.txt`` file it may print to (not
    ``input.txt``), each of those again reading that file as the printout."""
    base = (*flag_candidates(source), *candidates)
    outputs = [n for n in dict.fromkeys(_TXT.findall(source)) if n != INPUT_FILE][:2]
    return base + tuple(Convention(c.kind, c.template, c.file, n) for n in outputs
                        for c in base)
