"""How a program takes its settings: an input convention is where (the command line, standard
input, a file in its folder) and in what order and layout the six numbers go. The handout leaves
this open, so the course may name its own (``--input "argv: {sides} {low} {high} {dice} {m}
{games}"``) and otherwise :data:`CANDIDATES`, the common ones, are tried on a tiny game
(:mod:`dicejack.grade.programs.running` decides by the size of the tables printed)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from dicejack.grade.settings import GradeError

__all__ = ["Convention", "Settings", "parse_convention", "CANDIDATES", "FIELDS", "HANDOUT_ORDER",
           "DICE_FIRST_ORDER", "INPUT_FILE"]

#: The placeholders a convention may use (seed: a fresh seed per run, for programs taking one).
FIELDS = ("sides", "low", "high", "dice", "m", "games", "seed")
#: The handout's order (NSides LTarget UTarget NDice M NGAMES) and the other common one.
HANDOUT_ORDER = "{sides} {low} {high} {dice} {m} {games}"
DICE_FIRST_ORDER = "{dice} {sides} {low} {high} {m} {games}"
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
        return f"{where}: {self.template}"


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
    template = template.strip()
    used = _FIELD.findall(template)
    unknown = sorted(set(used) - set(FIELDS))
    if unknown:
        raise GradeError(f"--input: unknown placeholder {{{unknown[0]}}}; use "
                         + " ".join(f"{{{f}}}" for f in FIELDS))
    missing = [f for f in FIELDS[:6] if f not in used]
    if missing:
        raise GradeError(f"--input: the template lacks {{{missing[0]}}}")
    return Convention(kind, template, name)


def _candidates() -> tuple[Convention, ...]:
    out: list[Convention] = []
    for order in (HANDOUT_ORDER, DICE_FIRST_ORDER):
        per_line = order.replace(" ", " | ")
        out += [Convention("argv", order), Convention("stdin", order),
                Convention("stdin", per_line), Convention("file", order, INPUT_FILE),
                Convention("file", per_line, INPUT_FILE)]
    return tuple(out)


#: The conventions tried, in order, when the course names none.
CANDIDATES = _candidates()
