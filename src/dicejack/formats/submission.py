"""Reading a submission: the two tables a student program printed, from whatever else it printed.

After NGAMES games a program prints two LTarget x LTarget arrays: the best number of dice per
state <X,Y> and the estimated win probability. `read_submission` (a file) and
`read_submission_text` (text or bytes) find them and return a `Submission`. Submissions are
data, never code: nothing here evaluates the text, every pass is linear in its size, and every
failure is a FormatError with a one-line message.

How, in the order of this module:
1. Tokens. Each line is split by one regex into numbers, no-data words and lone dashes, `d:p`
   pairs, brackets, parentheses, separators, label marks and words.
2. Cells. The values of a line: a `_Cell` (one number) or a `_PairCell` (`d:p`, `(d, p)` or
   `d (p)`: both arrays' values for one state). A row may read more than one way (a row of
   `n/a` is plain or combined); a `_Reading` is one way, its `_RunKey` its width and kind.
3. Headings: what a prose line above a table names (the policy or the probability).
4. Bracketed arrays (`[[...]]`, `array([...])`), followed across lines (numpy wraps long rows).
5. The scanner. A line with ordinary words is prose (heading, banner, trace, prompt); other
   lines are numeric rows or pieces of bracketed arrays. Consecutive rows of one width form
   runs (a row that reads two ways is read the way that continues the run); runs and bracketed
   2-D arrays yield L x L blocks (a run of `x y best prob` lines listing every state yields
   both arrays; a copy double-spaced after a table in the same run is not another block).
6. Choosing. The arrays are the last two blocks that fit by content (or the last combined
   block: `d:p` cells or one line per state), told apart by content, with the heading above
   each as a cross-check; then the Submission is built, with flags and notes.
"""

from __future__ import annotations

import codecs
import functools
import math
import os
import re
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from dicejack.formats import FormatError

__all__ = [
    "SUBMISSION_FLAGS",
    "SUBMISSION_LAYOUTS",
    "SUBMISSION_NO_DATA_WORDS",
    "SUBMISSION_SIZE_LIMIT",
    "Submission",
    "find_table_size",
    "read_submission",
    "read_submission_text",
]

#: Largest submission read: 10 MiB (bytes of a file, or characters of text already read).
SUBMISSION_SIZE_LIMIT = 10 * 2**20

#: Layout names a Submission may report (two different ones are joined by '+').
SUBMISSION_LAYOUTS = (
    "grid",  # whitespace or tab separated rows
    "csv",  # comma or semicolon separated rows
    "labelled-grid",  # grid rows with row labels (`3 | ...`, `3: ...`, `Row 3: ...`, pandas,
    #                   TAB-separated under an `X\Y` corner and a header row of column numbers)
    "labelled-csv",  # csv rows with row labels
    "list-repr",  # Python lists: [[0, 1], [2, 3]], or one [..] per line; numpy 2 items np.int64(2)
    "numpy-repr",  # array([[0., 1.], ...]) or a list of row arrays (rows may wrap over lines)
    "numpy-str",  # print(array): [[0. 1.]\n [2. 3.]], no commas (rows may wrap over lines)
    "combined",  # one table of `d:p` (or `(d, p)`, `d (p)`) cells giving both arrays; padded,
    #              centred or TAB-separated; a state without data may be a bare `n/a`, `-`, `-1`
    "long",  # one line per state: `x y best prob ...` (as dicejack's own CSV output)
)

#: Flags a Submission may carry, in the order they are reported.
SUBMISSION_FLAGS = (
    "labels-swapped",  # the heading above the policy (by content) names probabilities, or v.v.
    "unlabelled",  # neither array has a recognised heading
    "rows-reordered",  # row labels were a permutation of 0..L-1; rows were put in label order
    "policy-not-integer",  # the policy has fractional values (rounded to the nearest integer)
    "policy-out-of-range",  # policy values outside -1..NDice, or not finite (read as -1)
    "prob-out-of-range",  # probability values outside [0, 1] other than the -1 marker
    "prob-percent",  # probabilities printed with '%' (divided by 100)
)

#: Words read as "no data" (case-insensitive), besides the number -1 in the probability array.
SUBMISSION_NO_DATA_WORDS = frozenset({"nan", "none", "null", "n/a", "na", "nil"})


@dataclass(frozen=True, eq=False)
class Submission:
    """The two arrays read from a submission, and how they were read (arrays are read-only).

    policy: (L, L) int64 as printed: J, or 0 / -1 / any J for unvisited states; a no-data word
      (SUBMISSION_NO_DATA_WORDS), a lone dash (`-`, `--`) or a non-finite value reads as -1, and
      so does a state printed as one bare no-data cell among the `d:p` cells of a combined
      table (`n/a`, `-`, `-1`, ...).
    probability: (L, L) float64; NaN exactly where no_data is True.
    no_data: (L, L) bool, True where the probability was printed as -1 (any spelling: -1, -1.,
      -1.0000), as a word of SUBMISSION_NO_DATA_WORDS (nan, None, null, n/a, NA, nil; any
      case) or as a lone dash (`-`, `--`, en or em dash), or where a combined table has a bare
      no-data cell. A printed 0 or 0.0 stays 0.0 with no_data False: it may be a real estimate
      of 0 or "no data"; the grader decides.
    layout: one of SUBMISSION_LAYOUTS, or the policy's and the probability's joined by '+'.
    flags: words of SUBMISSION_FLAGS; notes: free text on what was skipped or assumed.
    """

    policy: np.ndarray
    probability: np.ndarray
    no_data: np.ndarray
    layout: str
    flags: tuple[str, ...]
    notes: str


# ================================================================================ reading
def read_submission(path: str | os.PathLike[str], low: int, n_dice: int) -> Submission:
    """Read a submission file (at most 10 MiB; never written to); see read_submission_text."""
    path = Path(path)
    try:
        info = path.stat()  # a missing file raises here, with the system's reason
        size = info.st_size
        if stat.S_ISDIR(info.st_mode):
            raise FormatError(f"cannot read submission {path}: it is a folder, not a regular file")
        if not stat.S_ISREG(info.st_mode):  # a FIFO, device or socket: never opened
            raise FormatError(f"cannot read submission {path}: not a regular file")
        if size > SUBMISSION_SIZE_LIMIT:
            raise FormatError(
                f"submission {path.name} is {size / 2**20:.1f} MiB, over the "
                f"{SUBMISSION_SIZE_LIMIT // 2**20} MiB limit"
            )
        # O_NONBLOCK: should a FIFO have taken the file's place since stat(), opening it does
        # not wait for a writer, and fstat() below refuses it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise FormatError(f"cannot read submission {path}: not a regular file")
            data = fh.read(SUBMISSION_SIZE_LIMIT + 1)
    except OSError as exc:
        raise FormatError(f"cannot read submission {path}: {exc.strerror or exc}") from None
    return read_submission_text(data, low, n_dice)


def read_submission_text(text: str | bytes, low: int, n_dice: int) -> Submission:
    """Read the two L x L arrays (L = low) from a submission's text (or undecoded bytes).

    See this module's docstring and Submission for what is read and how. Raises FormatError
    (one line) for empty, binary or over-10-MiB input, a summarised ('...') array, or fewer
    than two L x L arrays.
    """
    return _read_text(text, low, n_dice)[0]


def _read_text(text: str | bytes, low: int, n_dice: int) -> tuple[Submission, int]:
    """read_submission_text, and how many other L x L blocks the text held (ignored)."""
    _check_params(low, n_dice)
    if len(text) > SUBMISSION_SIZE_LIMIT:
        raise FormatError(
            f"submission is {len(text) / 2**20:.1f} MiB, over the "
            f"{SUBMISSION_SIZE_LIMIT // 2**20} MiB limit"
        )
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = _decode(bytes(text))
    if not text.strip():
        raise FormatError("submission is empty")
    text = _clean_text(text)
    scanner = _Scanner(int(low), int(n_dice))
    for number, line in enumerate(text.splitlines(), start=1):
        scanner.feed_line(number, line)
    scanner.finish()

    chosen = _choose_arrays(scanner.blocks, n_dice)
    summarised = scanner.summarised_line
    if chosen is None or (summarised and summarised >= chosen[0].line):
        if summarised:
            raise FormatError(
                "array is summarised with '...' (incomplete); print with "
                "numpy.set_printoptions(threshold=sys.maxsize)"
            )
        raise FormatError(f"found {_describe_found(scanner)}, need 2 arrays of {low}x{low}")
    ignored = len(scanner.blocks) + scanner.blocks_dropped - len(chosen)
    return _build_submission(scanner, chosen, n_dice), ignored


#: Reading budget of find_table_size, in characters read (tries x text length), and its bounds.
_SIZE_BUDGET = 2_000_000
_SIZE_TRIES = (6, 16)
#: Flags of a read that suggest the size is wrong (a table's rows or corner read as another).
_SIZE_DOUBTS = frozenset({"unlabelled", "policy-not-integer", "policy-out-of-range",
                          "prob-out-of-range"})
_INNER_BRACKETS_RE = re.compile(r"\[([^\[\]]*)\]")


def _value_count(text: str) -> int:
    return sum(1 for kind, _ in _tokenize(text) if kind in _VALUE_KINDS)


def find_table_size(text: str | bytes, n_dice: int) -> int | None:
    """The L at which two L x L arrays read from `text` (a submission), or None.

    For a message when the tables are not the size expected ("the tables are 10x10:
    LTarget=10?"). Candidates, each confirmed by reading the text at that size: first the sizes
    the text's shape suggests, most frequent first (values per line, with or without a row
    label, one or two per cell; values per innermost bracket, across wrapped lines; the number
    of lines listing a state each), then sizes near the square root of its count of values over
    2, 3, 4, ... (two tables, printed once or twice, labelled or one line per state); at most
    16 of them, fewer for a long text (one above 2 MB). Of the sizes that read, the one whose
    reading has the fewest doubtful flags (values out of range, no headings), then the fewest
    other blocks of its size left over, then the largest: a wrong size reads pieces of tables.
    """
    try:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = _decode(bytes(text[:SUBMISSION_SIZE_LIMIT]))
        text = _clean_text(text[:SUBMISSION_SIZE_LIMIT])
    except FormatError:
        return None
    support: dict[int, int] = {}

    def vote(*sizes: int) -> None:
        for size in set(sizes):
            if size >= 2:
                support[size] = support.get(size, 0) + 1

    survey = text[:_SIZE_BUDGET]  # the shape of a huge text is clear from its start
    scale = len(text) / max(len(survey), 1)
    values = state_lines = 0
    for line in survey.splitlines():
        count = _value_count(line)
        values += count
        state_lines += count >= 4
        vote(count, count - 1, count // 2, (count - 1) // 2)
    for group in _INNER_BRACKETS_RE.finditer(survey):
        vote(_value_count(group.group(1)))
    values, state_lines = int(values * scale), int(state_lines * scale)
    vote(math.isqrt(state_lines), math.isqrt(state_lines // 2))
    ranked = sorted(support, key=lambda size: (-support[size], -size))
    near = [math.isqrt(values // d) + e for d in (2, 4, 3, 6, 8, 5) for e in (0, 1, -1)]
    candidates = [size for size in dict.fromkeys(ranked[:8] + near) if size >= 2]
    low_tries, high_tries = _SIZE_TRIES
    tries = min(high_tries, max(low_tries, _SIZE_BUDGET // max(len(text), 1)))
    if len(text) > _SIZE_BUDGET:
        tries = 1  # a huge text: its most likely size only
    reads = []
    for size in candidates[:tries]:
        try:
            sub, ignored = _read_text(text, size, n_dice)
        except FormatError:
            continue
        reads.append((len(_SIZE_DOUBTS.intersection(sub.flags)), ignored, -size))
    return -min(reads)[2] if reads else None


def _check_params(low: int, n_dice: int) -> None:
    for name, value in (("low", low), ("n_dice", n_dice)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise FormatError(f"{name} must be an integer >= 1, got {value!r}")


def _decode(data: bytes) -> str:
    """Text of a submission's bytes: BOMs honoured, utf-8, else latin-1; binary data refused."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", "replace")
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", "replace")  # PowerShell's `>` writes UTF-16
    if b"\x00" in data:
        half = len(data) // 2
        even, odd = data[0::2].count(0), data[1::2].count(0)
        if half >= 8 and odd >= 0.9 * half and even == 0:
            return data.decode("utf-16-le", "replace")
        if half >= 8 and even >= 0.9 * half and odd == 0:
            return data.decode("utf-16-be", "replace")
        raise FormatError("submission is binary data (NUL bytes), not printed text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


#: Control characters that printed text does not contain (tab, newlines, \f, \v, ESC allowed);
#: bell and backspace (progress bars) are tolerated, but replaced like the others.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_TOLERATED_CONTROLS = "\x07\x08"
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def _clean_text(text: str) -> str:
    """The text without ANSI colour codes and stray control characters; binary data refused."""
    if "\x1b" in text:
        text = _ANSI_RE.sub("", text)
    found = sum(1 for _ in _CONTROL_RE.finditer(text))
    bad = found - sum(text.count(c) for c in _TOLERATED_CONTROLS)
    if found:
        if bad * 100 > len(text):
            raise FormatError(
                f"submission looks like binary data ({bad} control characters in "
                f"{len(text)}), not printed text"
            )
        text = _CONTROL_RE.sub(" ", text)
    return text


# ================================================================================ 1. tokens
#: A token: (kind, text). Kinds, as _tokenize gives them:
#:   values       number (`0.53`, `-1`, `53%`), infinity, pair (`d:p`), no_data (a word of
#:                SUBMISSION_NO_DATA_WORDS, nan), dash (a lone `-`, `--`, en or em dash)
#:   punctuation  open_bracket, close_bracket, open_paren, close_paren, separator (`,` `;`),
#:                label_mark (`|` `:` `=`), ellipsis (`...`), other
#:   words        wrapper (numpy/torch names and dtypes: `array`, `dtype`, `np.float64(`), word
_Token = tuple[str, str]

_NUMBER_PATTERN = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: A dash standing alone (between blanks, separators or quotes; `|-` too, but not `|--|`, a
#: markdown rule): `-`, `--`, en or em dash.
_DASH_PATTERN = r"(?<![^\s,;|'\"])(?:--?|\u2013|\u2014)(?![^\s,;'\"])"
_TOKEN_RE = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<ellipsis>\.\.\.+|\u2026)"
    rf"|(?P<pair>{_NUMBER_PATTERN}:(?:{_NUMBER_PATTERN}|[-+]?nan|none|null|n/a|na|nil)(?![\w/.:]))"
    rf"|(?P<number>{_NUMBER_PATTERN}%?)"
    r"|(?P<special>[-+]?(?:inf(?:inity)?|nan)(?![\w/]))"
    rf"|(?P<dash>{_DASH_PATTERN})"
    r"|(?P<word>[^\W\d][\w.]*(?:/[\w.]+)*)"
    r"|(?P<open_bracket>\[)|(?P<close_bracket>\])|(?P<open_paren>\()|(?P<close_paren>\))"
    r"|(?P<separator>[,;])"
    r"|(?P<label_mark>[|:=])"
    r"|(?P<other>.)",
    re.IGNORECASE,
)
#: Words that may stand in a numeric line: numpy / torch wrappers and dtypes.
_WRAPPER_RE = re.compile(
    r"(?:np\.|numpy\.|torch\.)?(?:array|matrix|tensor|dtype|u?int\d*|float\d*|object|bool_?)",
    re.IGNORECASE,
)
#: Wrappers that make a bracketed array a numpy (or torch) repr.
_ARRAY_WORDS = frozenset({"array", "np.array", "numpy.array", "matrix", "tensor"})
#: Token kinds that are values; a dash is a no-data cell (`-`, `--` where a state has no data).
_VALUE_KINDS = frozenset({"number", "infinity", "pair", "no_data", "dash"})
_NUMERIC_KINDS = _VALUE_KINDS - {"dash"}


def _tokenize(line: str) -> list[_Token]:
    """Tokens of one line as (kind, text).

    Besides the regex's kinds: a `special` token is `no_data` (nan) or `infinity`; a word is
    `no_data` (SUBMISSION_NO_DATA_WORDS), `wrapper` (numpy/torch names and dtypes, and any
    word called like a function: `np.float64(`) or stays a `word`.
    """
    tokens: list[_Token] = []
    for match in _TOKEN_RE.finditer(line):
        kind = match.lastgroup or "other"
        if kind == "space":
            continue
        text = match.group()
        if kind == "word":
            lowered = text.lower().rstrip(".")
            if lowered in SUBMISSION_NO_DATA_WORDS:
                kind = "no_data"
            elif _WRAPPER_RE.fullmatch(lowered):
                kind = "wrapper"
        elif kind == "special":
            kind = "no_data" if "nan" in text.lower() else "infinity"
        if kind == "open_paren" and tokens and tokens[-1][0] == "word":
            tokens[-1] = ("wrapper", tokens[-1][1])  # a call such as np.float64( wraps a value
        tokens.append((kind, text))
    return tokens


def _is_integer_token(token: _Token) -> bool:
    kind, text = token
    digits = text.lstrip("+-")
    # A label or index has few digits; a longer one is a (huge) value, never int()ed (Python
    # refuses to convert strings of over 4300 digits).
    return kind == "number" and digits.isdigit() and len(digits) <= 18


def _joined(tokens: list[_Token]) -> str:
    return " ".join(text for _, text in tokens)


def _has_percent(tokens: list[_Token]) -> bool:
    return any(kind == "number" and text.endswith("%") for kind, text in tokens)


def _style(tokens: list[_Token]) -> str:
    """'csv' if a row's cells are separated by commas or semicolons, else 'grid'."""
    return "csv" if any(kind == "separator" for kind, _ in tokens) else "grid"


def _split_row_label(tokens: list[_Token]) -> tuple[int | None, list[_Token]]:
    """An explicit row label `N |`, `N:` or `N =` at the start, and the remaining tokens.

    The label mark must not occur again in the row (in `| 3 | 0.1 | 0.2 |` pipes separate cells).
    """
    i = 0
    while i < len(tokens) and tokens[i][0] in ("label_mark", "separator", "other"):
        i += 1
    if i + 1 < len(tokens) and _is_integer_token(tokens[i]) and tokens[i + 1][0] == "label_mark":
        mark, rest = tokens[i + 1][1], tokens[i + 2 :]
        if all(text != mark for _, text in rest):
            return int(tokens[i][1]), rest
    return None, tokens[i:]


def _index_label(tokens: list[_Token], i: int) -> tuple[int, int] | None:
    """`[3] = [` at i: an index used as a row label; (label, index of the second '[')."""
    kinds = [kind for kind, _ in tokens[i : i + 5]]
    expected = ["open_bracket", "number", "close_bracket", "label_mark", "open_bracket"]
    if kinds == expected and _is_integer_token(tokens[i + 1]):
        return int(tokens[i + 1][1]), i + 4
    return None


# ================================================================================ 2. cells
class _Cell(NamedTuple):
    """One printed value: the number (NaN if printed as a no-data word or a dash), and whether
    it was printed as no data (a word of SUBMISSION_NO_DATA_WORDS, nan, or a lone dash)."""

    value: float
    no_data: bool

    @property
    def is_integer(self) -> bool:
        """A finite whole number, printed as a number."""
        return not self.no_data and math.isfinite(self.value) and self.value == int(self.value)

    @property
    def is_fraction(self) -> bool:
        """A finite number that is not whole, printed as a number."""
        return not self.no_data and math.isfinite(self.value) and self.value != int(self.value)

    @property
    def is_bare_no_data(self) -> bool:
        """What may stand alone for a state without data in a table of `d:p` cells: a no-data
        word, nan, a dash or -1."""
        return self.no_data or self.value == -1


class _PairCell(NamedTuple):
    """A cell of a combined table, both arrays' values for one state: `d:p`, `(d, p)`, `d (p)`."""

    dice: _Cell
    prob: _Cell

    @classmethod
    def of_state(cls, cell: _Cell | _PairCell) -> _PairCell:
        """A cell of a combined table as a pair: a bare no-data cell is policy -1, no data."""
        return cell if isinstance(cell, _PairCell) else cls(_Cell(-1.0, False), cell)


_AnyCell = _Cell | _PairCell


#: The cell of a no-data word, nan or a dash.
_NO_DATA_CELL = _Cell(math.nan, True)


def _number_cell(text: str) -> _Cell:
    """The cell of a number token ('53%' is 0.53); never raises on what the regex matched."""
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    return _Cell(value, math.isnan(value))


@functools.lru_cache(maxsize=2**14)  # cells are immutable; tables repeat their values a lot
def _token_cell(kind: str, text: str) -> _AnyCell:
    """The cell of one value token: a _PairCell for a `pair` token, else a _Cell."""
    if kind == "pair":
        dice, prob = text.split(":", 1)
        no_data = prob.lower().lstrip("+-") in SUBMISSION_NO_DATA_WORDS
        return _PairCell(_number_cell(dice), _NO_DATA_CELL if no_data else _number_cell(prob))
    if kind in ("no_data", "dash"):
        return _NO_DATA_CELL
    return _number_cell(text)  # a number or infinity


def _first_value(cell: _AnyCell) -> float:
    """The first number printed in a cell (of `d:p`, the d)."""
    return cell.dice.value if isinstance(cell, _PairCell) else cell.value


def _cells(tokens: list[_Token]) -> list[_AnyCell] | None:
    """Cells of a row's tokens: numbers, `d:p`, `(d, p)`, `d (p)` and wrapped `f(x)` values.

    Separators, wrappers and stray punctuation are skipped. None if a parenthesised group holds
    more than two values or a `d:p` cell (it is then no cell of either array).
    """
    cells: list[_AnyCell] = []
    group: list[_Cell] | None = None  # the values inside an open parenthesis
    after_number = False  # the previous token was a plain value outside parentheses
    pair_with_previous = False  # that value before '(' may be the d of `d (p)`
    for kind, text in tokens:
        if kind in _VALUE_KINDS:
            cell = _token_cell(kind, text)
            if group is None:
                cells.append(cell)
                after_number = isinstance(cell, _Cell)
            elif isinstance(cell, _Cell):
                group.append(cell)
            else:
                return None  # `(2:0.5)`
        elif kind == "open_paren":
            if group is not None:
                return None
            group, pair_with_previous = [], after_number
        elif kind == "close_paren":
            if group is None:
                continue  # a stray ')'
            if len(group) > 2:
                return None
            previous = cells[-1] if cells else None
            if len(group) == 1 and pair_with_previous and isinstance(previous, _Cell):
                cells[-1] = _PairCell(previous, group[0])  # `d (p)`
            elif len(group) == 1:
                cells.append(group[0])  # `np.float64(0.5)`
            elif len(group) == 2:
                cells.append(_PairCell(*group))  # `(d, p)`
            group, after_number = None, False
        else:
            after_number = False
    return None if group else cells  # an unclosed '(' with values in it: no row


def _is_integer_cell(cell: _AnyCell) -> bool:
    return isinstance(cell, _Cell) and cell.is_integer


def _is_column_numbers(cells: list[_AnyCell]) -> bool:
    """True for cells 0, 1, 2, ... or 1, 2, 3, ... (at least two): a header of column numbers."""
    values = [_first_value(c) for c in cells]
    return (
        len(values) >= 2
        and values[0] in (0, 1)
        and values == list(range(int(values[0]), int(values[0]) + len(values)))
    )


class _RunKey(NamedTuple):
    """What rows of one run share: width, whether they are labelled, whether combined."""

    width: int
    labelled: bool
    combined: bool


class _Reading(NamedTuple):
    """One way to read a row: its cells (all PairCells if combined, else all Cells), label."""

    cells: list[Any]
    label: int | None
    combined: bool

    @property
    def key(self) -> _RunKey:
        return _RunKey(len(self.cells), self.label is not None, self.combined)


def _row_readings(cells: list[_AnyCell], label: int | None) -> list[_Reading]:
    """The ways to read a row, the likeliest first; [] if none.

    A row of a combined table may mix `d:p` cells and bare no-data cells (`n/a`, `-`, `-1`);
    a row of bare no-data cells alone reads either way (the rows around it decide).
    """
    if not cells:
        return []
    types = {type(c) for c in cells}
    if types == {_PairCell}:
        return [_Reading(cells, label, True)]
    readings: list[_Reading] = []
    if types == {_Cell}:
        readings.append(_Reading(cells, label, False))
        if not all(c.is_bare_no_data for c in cells[1:]):
            return readings  # the usual row of numbers: no other reading
    first, rest = cells[0], cells[1:]
    if label is None and rest:
        if (
            isinstance(first, _PairCell)
            and first.dice.is_integer
            and all(isinstance(c, _Cell) for c in rest)
        ):
            first_label = int(first.dice.value)
            readings.append(_Reading([first.prob, *rest], first_label, False))  # `3:0.5 0.4 ...`
        if _is_integer_cell(first) and all(_is_state_cell(c) for c in rest):
            states = [_PairCell.of_state(c) for c in rest]
            readings.append(_Reading(states, int(first.value), True))  # `3  2:0.5 n/a 1:0.4`
    if all(_is_state_cell(c) for c in cells):
        states = [_PairCell.of_state(c) for c in cells]
        readings.append(_Reading(states, label, True))  # `2:0.5 n/a ...`
    return readings


def _is_state_cell(cell: _AnyCell) -> bool:
    """A cell that may stand for one state of a combined table: `d:p` or a bare no-data cell."""
    return isinstance(cell, _PairCell) or cell.is_bare_no_data


# ================================================================================ 3. headings
_PROB_HEADING_RE = re.compile(
    r"prob|chance|likel|odds|percent|win\s*(?:rate|%|pct)|win_rate|winrate", re.IGNORECASE
)
_POLICY_HEADING_RE = re.compile(
    r"(?<![a-z])(?:play|moves?|actions?|choices?|decisions?)(?![a-z])"
    r"|polic|strateg|(?<![a-z])dice|(?<![a-z])best",
    re.IGNORECASE,
)
_PROMPT_RE = re.compile(r"\s*(?:enter|input|please|type)\b", re.IGNORECASE)
_TRACE_RE = re.compile(r"comes? up|rolled|\bwins\b|\bloses\b", re.IGNORECASE)


def _heading_kind(line: str) -> str | None:
    """'policy', 'prob' or None: what a heading line names, judged by its last labelled part.

    Prompts (`Enter NDice:`) and game traces are skipped, so a heading may end a prompt line.
    """
    if _TRACE_RE.search(line):
        return None
    for segment in reversed(re.split(r"[:=]", line)):
        segment = segment.strip(" \t-*#>[](){}'\"")
        if not segment or _PROMPT_RE.match(segment) or len(segment.split()) > 12:
            continue
        prob = _PROB_HEADING_RE.search(segment) or segment.lower() in ("p", "p(win)", "w")
        policy = _POLICY_HEADING_RE.search(segment) or segment.lower() in ("j", "b")
        if prob and policy and re.search(r"\band\b|&|/|,", segment):
            return None  # `PLAY and PROB`: names both
        if prob or policy:
            return "prob" if prob else "policy"  # `Best move probability` names probabilities
    return None


# ================================================================================ 4. brackets
class _Leaf(list):
    """The innermost list of a bracketed array: a list of cells."""


def _shape_of(node: Any) -> tuple[int, ...] | None:
    """Shape of a nested list of depth <= 4, or None if ragged."""
    if isinstance(node, _Leaf):
        return (len(node),)
    shapes = {_shape_of(child) for child in node}
    if len(shapes) != 1 or None in shapes:
        return None if node else (0,)
    return (len(node), *shapes.pop())


@dataclass
class _Frame:
    """An open bracket of a _BracketedArray: the lists closed inside it, and its own tokens."""

    children: list[Any] = field(default_factory=list)
    tokens: list[_Token] = field(default_factory=list)


class _BracketedArray:
    """A bracketed nested list being read, possibly over several lines (depth kept up to 4)."""

    MAX_DEPTH = 4

    def __init__(self, line: int, label: int | None, array_word: bool) -> None:
        self.line, self.label, self.array_word = line, label, array_word
        self.depth = self.max_depth = 0
        self.frames: list[_Frame] = []
        self.result: Any = None  # the outermost list, once closed
        self.invalid = self.summarised = self.commas = self.percent = False

    def feed(self, tokens: list[_Token], i: int) -> int | None:
        """Consume tokens from i; the index after the closing bracket, or None if still open."""
        while i < len(tokens):
            kind, text = tokens[i]
            i += 1
            if kind == "open_bracket":
                self.depth += 1
                self.max_depth = max(self.max_depth, self.depth)
                if self.depth > self.MAX_DEPTH:
                    self.invalid = True
                else:
                    self.frames.append(_Frame())
            elif kind == "close_bracket":
                if self.depth <= self.MAX_DEPTH:
                    self._close_frame()
                self.depth -= 1
                if self.depth == 0:
                    return i
            elif kind == "word":
                self.invalid = True
            else:
                self.summarised |= kind == "ellipsis"
                self.commas |= kind == "separator"
                self.array_word |= kind == "wrapper" and text.lower() in _ARRAY_WORDS
                self.percent |= kind == "number" and text.endswith("%")
                if self.depth <= self.MAX_DEPTH:
                    self.frames[-1].tokens.append((kind, text))
        return None

    def _close_frame(self) -> None:
        frame = self.frames.pop()
        node: Any
        if frame.children:
            if any(kind in _VALUE_KINDS for kind, _ in frame.tokens):
                self.invalid = True  # values beside nested lists
            node = frame.children
        else:
            cells = _cells(frame.tokens)
            if cells is None:
                self.invalid, cells = True, []
            node = _Leaf(cells)
        if self.frames:
            self.frames[-1].children.append(node)
        else:
            self.result = node

    def shape(self) -> tuple[int, ...] | None:
        """Shape of the nested list, or None if ragged or unreadable."""
        if self.invalid or self.result is None:
            return None
        return _shape_of(self.result)


# ================================================================================ 5. scanner
@dataclass
class _Row:
    """A numeric row as read (the likeliest of its readings), and where it was printed."""

    cells: list[Any]  # all PairCells if combined, else all Cells
    label: int | None
    combined: bool
    style: str  # 'grid' or 'csv'
    line: int
    paragraph: int  # rows separated by a blank line or a rule are in different paragraphs
    percent: bool = False
    readings: tuple[_Reading, ...] = ()  # every way to read the row (see _row_readings)

    @property
    def key(self) -> _RunKey:
        return _RunKey(len(self.cells), self.label is not None, self.combined)

    def read_as(self, key: _RunKey | None) -> _Row | None:
        """The row read the way that gives it this run key, or None if no way does."""
        for reading in self.readings:
            if reading.key == key:
                return replace(self, cells=reading.cells, label=reading.label,
                               combined=reading.combined)
        return None


@dataclass
class _Block:
    """An L x L table found in the text: one array, or both if combined."""

    rows: list[list[Any]]  # L rows of L cells: PairCells if combined, else Cells
    combined: bool
    layout: str
    heading: str | None  # 'policy', 'prob' or None: what the prose above it names
    line: int
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: The same rows read as a combined table, if they also read so (`2:0.5 n/a n/a` is a
    #: labelled row of probabilities or a row of `d:p` cells); _choose_arrays decides.
    alternative: _Block | None = None


_OTHER_SHAPES_KEPT = 8
_BLOCKS_KEPT = 24  # only the last blocks can be the arrays; older ones are forgotten 16 at a time


class _Scanner:
    """One pass over the lines of a submission, collecting L x L blocks in order.

    Lines come in through feed_line; numeric rows gather into the current run (rows of one
    _RunKey), which becomes blocks when it ends; bracketed arrays become blocks when they close.
    """

    def __init__(self, low: int, n_dice: int) -> None:
        self.low, self.n_dice = low, n_dice
        self.header_rows = (list(range(low)), list(range(1, low + 1)))
        self.blocks: list[_Block] = []
        self.blocks_dropped = 0  # old blocks forgotten (only the last few can be the arrays)
        self.other_shapes: list[str] = []  # numeric blocks that do not fit, for messages
        self.summarised_line = 0  # last line of a 1-D or 2-D array summarised with '...'
        self.summarised_3d = False  # a 3-D array (a count dump) was summarised
        self.headings: list[str] = []  # prose lines since the last block or run started
        self.paragraph = 0
        self.array: _BracketedArray | None = None  # a bracketed array still open
        self.run: list[_Row] = []  # rows of the current run, if they may form blocks
        self.run_count = 0  # rows in the current run
        self.run_key: _RunKey | None = None
        self.run_heading: str | None = None
        self.run_rows_kept = max(32 * low, low * low + low)  # the last rows of a long run

    def finish(self) -> None:
        """End of input: an unterminated bracketed array is dropped; the last run is closed."""
        self._abort_array()
        self._close_run()

    # ---------------------------------------------------------------------------- lines
    def feed_line(self, number: int, line: str) -> None:
        """Read one line: prose, a numeric row, or pieces of bracketed arrays."""
        tokens = _tokenize(line)
        first_word = next((i for i, (kind, _) in enumerate(tokens) if kind == "word"), None)
        if self.array is not None:  # an array continued from the lines above
            end = self.array.feed(tokens[:first_word], 0)
            if end is None:
                if first_word is None:
                    return
                self._abort_array()  # prose inside brackets: not an array
            else:
                self._finish_array()
                if end == len(tokens):
                    return
                tokens = tokens[end:]
                first_word = None if first_word is None else first_word - end
        if first_word is None:
            self._numeric_line(number, tokens)
        else:
            self._prose_line(number, tokens)

    def _prose_line(self, number: int, tokens: list[_Token]) -> None:
        """A line with words: headings followed by arrays (`PLAY = [[2 2 1 ...`), a labelled
        row (`Row 3: 0.5 0.4 ...`), or prose (heading, banner, prompt, trace)."""
        read = self._arrays_after_words(number, tokens)
        if read is None:
            return  # an array continues on the next lines, or the line was no array
        end, arrays = read
        rest = tokens[end:]
        words = [i for i, (kind, _) in enumerate(rest) if kind == "word"]
        if not words:
            if rest:
                self._numeric_line(number, rest)
            return
        after_words = rest[words[-1] + 1 :]
        if not arrays and len(words) <= 3 and self._labelled_text_row(number, after_words):
            return
        values = [_token_cell(*token) for token in after_words if token[0] in _NUMERIC_KINDS]
        if values and not _is_column_numbers(values):
            self._prose(None)  # a banner such as `NGames = 100,000`: no heading
        else:
            self._prose(_joined(rest[: words[-1] + 1]))  # `PLAY:  0 1 2 ... 14` is a heading

    def _arrays_after_words(self, number: int, tokens: list[_Token]) -> tuple[int, int] | None:
        """Read `words [label] = [...]` arrays from the start of a prose line: (the index after
        the last array read, how many were read), or None if the line is used up."""
        pos, arrays = 0, 0
        while True:
            opening = next(
                (i for i in range(pos, len(tokens)) if tokens[i][0] == "open_bracket"), None
            )
            if opening is None:
                return pos, arrays
            before = tokens[pos:opening]
            words = [i for i, (kind, _) in enumerate(before) if kind == "word"]
            between = before[words[-1] + 1 :] if words else before  # between words and '['
            label = None
            if (
                len(between) >= 2
                and _is_integer_token(between[0])
                and between[1][0] == "label_mark"
            ):
                label, between = int(between[0][1]), between[2:]  # `policy 3 = [...]`
            allowed = ("label_mark", "separator", "wrapper", "open_paren", "other", "dash")
            if any(kind not in allowed for kind, _ in between):
                return pos, arrays
            index_label = _index_label(tokens, opening)
            if index_label is not None:
                label, opening = index_label
            if words and (label is None or len(words) > 3):  # else `policy[3] = [...]`
                self._prose(_joined(before))
            array_word = any(text.lower() in _ARRAY_WORDS for _, text in between)
            self.array = _BracketedArray(number, label, array_word)
            end = self.array.feed(tokens, opening)
            if end is None:
                if self.array.invalid:  # `Enter M [default 100:` is no array
                    self.array = None
                    self._prose(None)
                return None
            self._finish_array()
            pos, arrays = end, arrays + 1

    def _labelled_text_row(self, number: int, tokens: list[_Token]) -> bool:
        """Read the numbers after the words of `Row 3: 0.5 0.4 ...` (or `X=3 ...`) as a row
        labelled 3; False (nothing read) if they are not one."""
        while tokens and tokens[0][0] in ("label_mark", "separator"):
            tokens = tokens[1:]
        if len(tokens) < 2 or not _is_integer_token(tokens[0]):
            return False
        rest = tokens[2:] if tokens[1][0] == "label_mark" else tokens[1:]
        if any(kind in ("open_bracket", "close_bracket", "ellipsis", "other") for kind, _ in rest):
            return False
        cells = _cells(rest)
        label = int(tokens[0][1])
        row = self._new_row(cells, label, _style(rest), number, _has_percent(rest))
        if row is None or cells is None:
            return False
        if len(cells) != self.low and _is_column_numbers([_token_cell(*tokens[0]), *cells]):
            return False  # `X\Y | 0 1 2 ...`: column numbers, not a row
        self._add_row(row)
        return True

    def _numeric_line(self, number: int, tokens: list[_Token]) -> None:
        """A line (or its tail) without prose: a row, or pieces of bracketed arrays."""
        if self.array is None and not any(kind == "open_bracket" for kind, _ in tokens):
            self._plain_row(number, tokens)
            return
        label: int | None = None
        array_word = False
        i = 0
        while i < len(tokens):
            if self.array is not None:
                end = self.array.feed(tokens, i)
                if end is None:
                    if self.array.invalid:
                        self._abort_array()
                    return
                self._finish_array()
                i, label, array_word = end, None, False
                continue
            kind, text = tokens[i]
            if kind == "open_bracket":
                index_label = _index_label(tokens, i)
                if index_label is not None:
                    label, i = index_label  # `[3] = [...]`
                self.array = _BracketedArray(number, label, array_word)
                continue  # fed from its opening bracket
            if _is_integer_token(tokens[i]):
                label = int(text)  # `3: [...]`
            elif kind == "wrapper" and text.lower() in _ARRAY_WORDS:
                array_word = True
            elif kind not in ("label_mark", "open_paren", "separator", "wrapper"):
                label = None
            i += 1

    def _plain_row(self, number: int, tokens: list[_Token]) -> None:
        """A line without words or brackets: a row of numbers, or a blank line or rule."""
        kinds = {kind for kind, _ in tokens}
        if kinds.isdisjoint(_NUMERIC_KINDS) and sum(kind == "dash" for kind, _ in tokens) < 2:
            self.paragraph += 1  # a blank line or a rule such as ----- or - (does not end a run)
            return
        if "ellipsis" in kinds:
            self.summarised_line = number  # a row summarised by pandas or by hand
        label, rest = _split_row_label(tokens)
        row = self._new_row(_cells(rest), label, _style(rest), number, _has_percent(rest))
        if row is None:
            self._prose(None)
            return
        self._add_row(row)

    def _new_row(
        self, cells: list[_AnyCell] | None, label: int | None, style: str, line: int,
        percent: bool,
    ) -> _Row | None:
        """A row of cells read the likeliest way (a combined reading only if L wide), or None."""
        readings = _row_readings(cells, label) if cells else []
        if not readings:
            return None
        pick = readings[0]
        if len(readings) > 1:
            pick = next((r for r in readings if not r.combined or len(r.cells) == self.low), pick)
        return _Row(*pick, style, line, self.paragraph, percent, tuple(readings))

    def _prose(self, line: str | None) -> None:
        """A line of prose ends the current run; it may be the heading of the next block."""
        self._close_run()
        if line is not None:
            self.headings = [*self.headings[-2:], line]

    def _take_heading(self) -> str | None:
        """What the last prose lines name ('policy', 'prob' or None); they are used up."""
        kinds = [_heading_kind(line) for line in reversed(self.headings)]
        self.headings = []
        return next((kind for kind in kinds if kind), None)

    # ---------------------------------------------------------------------------- runs
    def _add_row(self, row: _Row) -> None:
        """Add a row to the current run, or end the run and start another with it."""
        if (
            row.label is None
            and not row.combined
            and len(row.cells) == self.low > self.n_dice + 1
            and [c.value for c in row.cells] in self.header_rows
        ):
            self._close_run()  # a header row of column numbers (too large to be dice counts)
            return
        key = row.key
        if self.run_key is not None and key != self.run_key:
            row = self._fit_run(row)
            key = row.key
        if key != self.run_key:
            self._close_run()
            self.run_key, self.run_heading = key, self._take_heading()
        self.run_count += 1
        low, (width, labelled, combined) = self.low, key
        if width in (low, low + 1, 2 * low) or (width >= 4 and not labelled and not combined):
            self.run.append(row)
            if len(self.run) > 2 * self.run_rows_kept:  # memory stays bounded
                drop = len(self.run) - self.run_rows_kept
                del self.run[: drop - drop % low]  # keeps the alignment of blocks

    def _fit_run(self, row: _Row) -> _Row:
        """A row that would end the current run, read another way if that continues it (or the
        run's rows read another way): a row of a `d:p` table printed all `n/a` reads as plain."""
        fitted = row.read_as(self.run_key)
        if fitted is not None:
            return fitted
        if len(self.run) == self.run_count:  # every row of the run is kept: it may be re-read
            run: list[_Row] = []
            for old in self.run:
                read = old.read_as(row.key)
                if read is None:
                    return row
                run.append(read)
            self.run, self.run_key = run, row.key
        return row

    def _close_run(self) -> None:
        """End the current run: its rows become blocks."""
        rows, key, heading, count = self.run, self.run_key, self.run_heading, self.run_count
        self.run, self.run_key, self.run_count = [], None, 0
        if key is None:
            return
        found = len(self.blocks) + self.blocks_dropped
        self._run_blocks(rows, key, heading, count)
        if heading and len(self.blocks) + self.blocks_dropped == found:
            # no table (e.g. a header row of column numbers): the heading is the next run's
            self.headings = [*self.headings[-2:], heading]

    # ---------------------------------------------------------------------------- blocks
    def _run_blocks(self, rows: list[_Row], key: _RunKey, heading: str | None, count: int) -> None:
        """The L x L blocks of a run of `count` rows (the last of which are `rows`), and notes
        of what does not fit."""
        low = self.low
        width, labelled, combined = key
        if width >= 4 and not labelled and not combined and len(rows) >= low * low:
            block = self._long_block(rows[-low * low :], heading)
            if block is not None:
                self._add_block(block)
                return
        implicit = (  # pandas-like: the first column is the row label
            width == low + 1
            and not labelled
            and not combined
            and all(_is_integer_cell(r.cells[0]) for r in rows)
        )
        side_by_side = width == 2 * low and low > 1 and not combined
        if width != low and not implicit and not side_by_side:
            if width > 1 and count > 1:
                self._other_shape(f"{count}x{width}")
            return
        if implicit:
            rows = [replace(r, cells=r.cells[1:], label=int(r.cells[0].value)) for r in rows]
        for paragraph in _paragraphs(rows, low):
            tables, extra = divmod(len(paragraph), low)
            if extra and len(paragraph) > 1 and low > 1:
                self._other_shape(f"{extra}x{low}")
            for k in range(tables):  # blocks end-aligned: what precedes them is not the arrays
                table = paragraph[extra + k * low : extra + (k + 1) * low]
                halves = _halves(table, low) if side_by_side else [table]
                for half in halves:
                    block = self._table_block(half, labelled or implicit, implicit, combined,
                                              heading)
                    if block is not None and labelled and not combined:
                        block = replace(block, alternative=self._as_combined(half, heading))
                    heading = None  # only the first block of a run has the heading above it
                    if block is None:
                        self._other_shape(f"{low}x{width}")
                    elif side_by_side:
                        self._add_block(replace(block, notes=("arrays printed side by side",)))
                    else:
                        self._add_block(block)

    def _as_combined(self, rows: list[_Row], heading: str | None) -> _Block | None:
        """Labelled rows read instead as unlabelled rows of a combined table, if they all can."""
        states = [r.read_as(_RunKey(self.low, False, True)) for r in rows]
        if not all(r is not None for r in states):
            return None
        return self._table_block([r for r in states if r is not None], False, False, True,
                                 heading)

    def _long_block(self, rows: list[_Row], heading: str | None) -> _Block | None:
        """`x y best prob ...` per state (dicejack's CSV, per-state prints): a combined block.

        The first two columns must list every state once; the next two are the policy and the
        probability (or the other way round, if only that fits).
        """
        low = self.low
        places = []
        for row in rows:
            x, y = row.cells[0], row.cells[1]
            if not (x.is_integer and y.is_integer):
                return None
            if not (0 <= x.value < low and 0 <= y.value < low):
                return None
            places.append((int(x.value), int(y.value)))
        if len(set(places)) != low * low:
            return None
        dice, prob = (3, 2) if _has_fraction(rows, 2) and not _has_fraction(rows, 3) else (2, 3)
        cells: list[list[Any]] = [[None] * low for _ in range(low)]
        for (x, y), row in zip(places, rows, strict=True):
            cells[x][y] = _PairCell(row.cells[dice], row.cells[prob])
        return _Block(cells, True, "long", heading, rows[0].line)

    def _table_block(
        self, rows: list[_Row], labelled: bool, implicit: bool, combined: bool,
        heading: str | None,
    ) -> _Block | None:
        """An L x L block of rows, placed by their labels (0..L-1 or 1..L) if labelled; None
        if the labels of an implicitly labelled table (pandas-like) are not those."""
        low = self.low
        cells = [r.cells for r in rows]
        flags = ["prob-percent"] if any(r.percent for r in rows) else []
        notes: list[str] = []
        if labelled:
            labels = [int(r.label) for r in rows if r.label is not None]
            ordered = sorted(labels)
            base = next((b for b in (0, 1) if ordered == list(range(b, b + low))), None)
            if base is not None:
                if labels != ordered:
                    flags.append("rows-reordered")
                placed: list[list[Any]] = [[] for _ in range(low)]
                for label, row_cells in zip(labels, cells, strict=True):
                    placed[label - base] = row_cells
                cells = placed
            elif implicit:
                return None
            else:
                notes.append("row labels are not 0..L-1; rows kept in printed order")
        style = rows[0].style
        if combined:
            layout = "combined"
        elif labelled and style in ("grid", "csv"):
            layout = f"labelled-{style}"
        else:
            layout = style
        return _Block(cells, combined, layout, heading, rows[0].line, tuple(flags), tuple(notes))

    def _add_block(self, block: _Block) -> None:
        self.blocks.append(block)
        if len(self.blocks) > _BLOCKS_KEPT:
            del self.blocks[:16]
            self.blocks_dropped += 16

    def _other_shape(self, text: str) -> None:
        """Note a numeric block that is not L x L (`7x15`), for the error message."""
        self.other_shapes = [*self.other_shapes[-_OTHER_SHAPES_KEPT + 1 :], text]

    # ---------------------------------------------------------------------------- arrays
    def _finish_array(self) -> None:
        """A bracketed array has closed: a row if 1-D, blocks if L x L (or 2 x L x L)."""
        array, self.array = self.array, None
        if array is None:  # pragma: no cover - callers check
            return
        shape = array.shape()
        self._note_summarised(array)
        if shape is None or shape == (0,):
            self._prose(None)
            return
        style = "numpy-repr" if array.array_word else "list-repr" if array.commas else "numpy-str"
        root = array.result
        if len(shape) == 1:  # one row, e.g. print(list_row) per line
            row = self._new_row(list(root), array.label, style, array.line, array.percent)
            if row is None:
                self._prose(None)
            else:
                self._add_row(row)
            return
        self._close_run()
        heading = self._take_heading()
        low = self.low
        if len(shape) == 2 and shape[1] == low and shape[0] % low == 0:
            tables = [root[k * low : (k + 1) * low] for k in range(shape[0] // low)]
        elif len(shape) == 3 and shape[0] == 2 and shape[1:] == (low, low):
            tables = list(root)  # print(np.array([policy, prob]))
        else:
            self._other_shape("x".join(map(str, shape)))
            return
        for table in tables:
            read = self._bracketed_rows([list(leaf) for leaf in table])
            if read is None:
                self._other_shape("x".join(map(str, shape)))
                continue
            rows, combined = read
            layout = "combined" if combined else style
            flags = ("prob-percent",) if array.percent else ()
            self._add_block(_Block(rows, combined, layout, heading, array.line, flags))
            heading = None

    def _bracketed_rows(
        self, leaves: list[list[_AnyCell]]
    ) -> tuple[list[list[Any]], bool] | None:
        """The rows of a bracketed L x L array and whether combined (all rows plain or all
        combined); None if neither."""
        options = [
            [r for r in _row_readings(leaf, None) if r.label is None and len(r.cells) == self.low]
            for leaf in leaves
        ]
        for combined in (False, True):
            picked = [next((r for r in opts if r.combined == combined), None) for opts in options]
            if all(r is not None for r in picked):
                return [r.cells for r in picked if r is not None], combined
        return None

    def _note_summarised(self, array: _BracketedArray) -> None:
        if array.summarised and array.max_depth >= 3:
            self.summarised_3d = True
        elif array.summarised:
            self.summarised_line = array.line

    def _abort_array(self) -> None:
        """Drop a bracketed array that never closed (or has prose inside)."""
        array, self.array = self.array, None
        if array is not None:
            self._close_run()
            self._other_shape("an unterminated bracketed array")
            self._note_summarised(array)


def _paragraphs(rows: list[_Row], low: int) -> list[list[_Row]]:
    """Rows grouped by paragraph; all in one if no paragraph is L rows long (rows separated by
    blank lines)."""
    paragraphs: list[list[_Row]] = []
    for row in rows:
        if paragraphs and paragraphs[-1][-1].paragraph == row.paragraph:
            paragraphs[-1].append(row)
        else:
            paragraphs.append([row])
    if not any(len(p) >= low for p in paragraphs):
        return [rows]
    return paragraphs


def _halves(rows: list[_Row], low: int) -> list[list[_Row]]:
    """`2 2 1   0.53 0.47 0.21`: the two arrays printed side by side, as two tables."""
    return [[replace(r, cells=r.cells[h * low : (h + 1) * low]) for r in rows] for h in (0, 1)]


def _has_fraction(rows: list[_Row], column: int) -> bool:
    """True if a column of rows holds a finite non-integer value."""
    return any(r.cells[column].is_fraction for r in rows)


# ================================================================================ 6. choosing
def _plain_values(block: _Block) -> list[float]:
    return [c.value for row in block.rows for c in row if not c.no_data]


def _looks_like_policy(block: _Block, n_dice: int) -> bool:
    """Every value printed is an integer in -1..NDice (no-data words allowed)."""
    return all(
        v == int(v) and -1 <= v <= n_dice for v in _plain_values(block) if math.isfinite(v)
    )


def _looks_like_probability(block: _Block) -> bool:
    """Every finite value printed is in [0, 1] or the -1 marker."""
    return all(0 <= v <= 1 or v == -1 for v in _plain_values(block))


def _has_fractions(block: _Block) -> bool:
    return any(math.isfinite(v) and v != int(v) for v in _plain_values(block))


def _fits(policy: _Block, prob: _Block, n_dice: int) -> bool:
    return _looks_like_policy(policy, n_dice) and _looks_like_probability(prob)


def _pair_score(policy: _Block, prob: _Block, n_dice: int) -> int:
    """How well (policy, prob) fit their roles by content (higher is better)."""
    return (
        2 * _looks_like_policy(policy, n_dice)
        + 2 * _looks_like_probability(prob)
        + _has_fractions(prob)
        - 2 * _has_fractions(policy)
    )


def _split_combined(block: _Block) -> tuple[_Block, _Block]:
    """The policy and probability parts of a combined block."""
    policy = [[c.dice for c in row] for row in block.rows]
    prob = [[c.prob for c in row] for row in block.rows]
    return replace(block, rows=policy, combined=False), replace(block, rows=prob, combined=False)


def _choose_arrays(blocks: list[_Block], n_dice: int) -> tuple[_Block, ...] | None:
    """The arrays: the last combined block or adjacent pair of blocks that fits by content
    (a block that also reads as a combined table: as such if it pairs with none).

    If none fits, the later of the last combined block and the last two plain blocks (flags
    will tell what is wrong with them); None when there is neither.
    """
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.combined:
            if _fits(*_split_combined(block), n_dice):
                return (block,)
        elif i and not blocks[i - 1].combined:
            first = blocks[i - 1]
            if _fits(first, block, n_dice) or _fits(block, first, n_dice):
                return (first, block)
        other = block.alternative
        if other is not None and _fits(*_split_combined(other), n_dice):
            return (other,)
    plain = [b for b in blocks if not b.combined]
    combined = [b for b in blocks if b.combined]
    if len(plain) >= 2 and (not combined or plain[-2].line > combined[-1].line):
        return (plain[-2], plain[-1])
    if combined:
        return (combined[-1],)
    return None


def _policy_first(first: _Block, second: _Block, n_dice: int) -> tuple[_Block, _Block]:
    """(policy, probability) by content; ties by headings, then printed order."""
    forward = _pair_score(first, second, n_dice)
    backward = _pair_score(second, first, n_dice)
    if forward != backward:
        return (first, second) if forward > backward else (second, first)
    if first.heading == "prob" or second.heading == "policy":
        if first.heading != "policy" and second.heading != "prob":
            return second, first
    return first, second


def _describe_found(scanner: _Scanner) -> str:
    """What was found, for the error message: `1 array of 15x15 and a 7x15 block`."""
    low, fits = scanner.low, len(scanner.blocks) + scanner.blocks_dropped
    parts = [f"{fits} array{'s' if fits != 1 else ''} of {low}x{low}"] if fits else []
    others = list(dict.fromkeys(scanner.other_shapes[-3:]))
    shapes = [o for o in others if o[0].isdigit()]
    if shapes:
        listed = ", ".join(shapes)
        parts.append(f"a {listed} block" if len(shapes) == 1 else f"blocks of {listed}")
    if any(not o[0].isdigit() for o in others):
        parts.append("an unterminated bracketed array")
    return " and ".join(parts) if parts else "no numeric table"


def _build_submission(
    scanner: _Scanner, chosen: tuple[_Block, ...], n_dice: int
) -> Submission:
    """Build the Submission from the chosen block(s), with flags and notes."""
    flags: list[str] = []
    notes: list[str] = []
    if len(chosen) == 1:
        block = chosen[0]
        policy_cells, prob_cells = (part.rows for part in _split_combined(block))
        layout = block.layout
        flags.extend(block.flags)
        notes.extend(block.notes)
    else:
        policy_block, prob_block = _policy_first(chosen[0], chosen[1], n_dice)
        if policy_block is not chosen[0]:
            notes.append("probability array printed first")
        policy_cells, prob_cells = policy_block.rows, prob_block.rows
        if policy_block.heading == "prob" or prob_block.heading == "policy":
            flags.append("labels-swapped")
        if policy_block.heading is None and prob_block.heading is None:
            flags.append("unlabelled")
        for block in (policy_block, prob_block):
            flags.extend(block.flags)
            notes.extend(block.notes)
        layouts = (policy_block.layout, prob_block.layout)
        layout = layouts[0] if layouts[0] == layouts[1] else "+".join(layouts)

    low = scanner.low
    values = np.array([[c.value for c in row] for row in policy_cells], dtype=np.float64)
    markers = np.array([[c.no_data for c in row] for row in policy_cells], dtype=bool)
    finite = np.isfinite(values) & ~markers
    rounded = np.where(finite, np.rint(np.where(finite, values, 0)), -1)
    if np.any(finite & (rounded != values)):
        flags.append("policy-not-integer")
    if np.any(~markers & (~finite | (rounded < -1) | (rounded > n_dice))):
        flags.append("policy-out-of-range")
    if markers.any():
        notes.append(f"{int(markers.sum())} policy cells printed as no-data words, read as -1")
    policy = np.clip(rounded, -(2**62), 2**62).astype(np.int64)

    prob = np.array([[c.value for c in row] for row in prob_cells], dtype=np.float64)
    words = np.array([[c.no_data for c in row] for row in prob_cells], dtype=bool)
    no_data = words | (prob == -1)
    prob[no_data] = np.nan
    if np.any(~no_data & ~((prob >= 0) & (prob <= 1))):
        flags.append("prob-out-of-range")
    if scanner.summarised_line or scanner.summarised_3d:
        notes.append("ignored arrays summarised with '...' (not the tables)")
    ignored = len(scanner.blocks) + scanner.blocks_dropped - len(chosen)
    if ignored:
        notes.append(f"ignored {ignored} other {low}x{low} block(s)")

    for array in (policy, prob, no_data):
        array.setflags(write=False)
    ordered_flags = tuple(f for f in SUBMISSION_FLAGS if f in flags)
    return Submission(policy, prob, no_data, layout, ordered_flags, "; ".join(dict.fromkeys(notes)))
