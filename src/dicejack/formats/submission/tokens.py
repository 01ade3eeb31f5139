"""Steps 1-3 of reading a submission: cleaning the text (controls, terminal escapes), splitting each
line into tokens (numbers, no-data words, dashes, `d:p` pairs, brackets, words), the cells a row
of tokens holds (one number or a `d:p` pair per state) and the ways a row may read, and the
headings a prose line above a table names (the policy or the probability)."""

from __future__ import annotations

import functools
import math
import re
from typing import Any, NamedTuple

from dicejack.formats import FormatError
from dicejack.formats.submission.parsed import SUBMISSION_NO_DATA_WORDS

#: Control characters that printed text does not contain (tab, newlines, \f, \v, ESC allowed);
#: bell and backspace (progress bars) are tolerated, but replaced like the others.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")



_TOLERATED_CONTROLS = "\x07\x08"



_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")



def clean_text(text: str) -> str:
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
#: A token: (kind, text). Kinds, as tokenize gives them:
#:   values       number (`0.53`, `-1`, `53%`), infinity, pair (`d:p`), no_data (a word of
#:                SUBMISSION_NO_DATA_WORDS, nan), dash (a lone `-`, `--`, en or em dash)
#:   punctuation  open_bracket, close_bracket, open_paren, close_paren, separator (`,` `;`),
#:                label_mark (`|` `:` `=`), ellipsis (`...`), other
#:   words        wrapper (numpy/torch names and dtypes: `array`, `dtype`, `np.float64(`), word
Token = tuple[str, str]



#: A number as the tokenizer reads it (the scanner's fast path for narrow rows uses it too).
NUMBER_PATTERN = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"



#: A dash standing alone (between blanks, separators or quotes; `|-` too, but not `|--|`, a
#: markdown rule): `-`, `--`, en or em dash.
_DASH_PATTERN = r"(?<![^\s,;|'\"])(?:--?|\u2013|\u2014)(?![^\s,;'\"])"



_TOKEN_RE = re.compile(  # single characters first: no other kind starts with them
    r"(?P<space>\s+)"
    r"|(?P<open_bracket>\[)|(?P<close_bracket>\])|(?P<open_paren>\()|(?P<close_paren>\))"
    r"|(?P<separator>[,;])"
    r"|(?P<ellipsis>\.\.\.+|\u2026)"
    rf"|(?P<pair>{NUMBER_PATTERN}:(?:{NUMBER_PATTERN}|[-+]?nan|none|null|n/a|na|nil)(?![\w/.:]))"
    rf"|(?P<number>{NUMBER_PATTERN}%?)"
    r"|(?P<special>[-+]?(?:inf(?:inity)?|nan)(?![\w/]))"
    rf"|(?P<dash>{_DASH_PATTERN})"
    r"|(?P<word>[^\W\d][\w.]*(?:/[\w.]+)*)"
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
ARRAY_WORDS = frozenset({"array", "np.array", "numpy.array", "matrix", "tensor"})



#: Token kinds that are values; a dash is a no-data cell (`-`, `--` where a state has no data).
VALUE_KINDS = frozenset({"number", "infinity", "pair", "no_data", "dash"})



NUMERIC_KINDS = VALUE_KINDS - {"dash"}



def tokenize(line: str) -> list[Token]:
    """Tokens of one line as (kind, text).

    Besides the regex's kinds: a `special` token is `no_data` (nan) or `infinity`; a word is
    `no_data` (SUBMISSION_NO_DATA_WORDS), `wrapper` (numpy/torch names and dtypes, and any
    word called like a function: `np.float64(`) or stays a `word`.
    """
    tokens: list[Token] = []
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



def is_integer_token(token: Token) -> bool:
    kind, text = token
    digits = text.lstrip("+-")
    # A label or index has few digits; a longer one is a (huge) value, never int()ed (Python
    # refuses to convert strings of over 4300 digits).
    return kind == "number" and digits.isdigit() and len(digits) <= 18



def joined(tokens: list[Token]) -> str:
    return " ".join(text for _, text in tokens)



def has_percent(tokens: list[Token]) -> bool:
    return any(kind == "number" and text.endswith("%") for kind, text in tokens)



def style(tokens: list[Token]) -> str:
    """'csv' if a row's cells are separated by commas or semicolons, else 'grid'."""
    return "csv" if any(kind == "separator" for kind, _ in tokens) else "grid"



def split_row_label(tokens: list[Token]) -> tuple[int | None, list[Token]]:
    """An explicit row label `N |`, `N:` or `N =` at the start, and the remaining tokens.

    The label mark must not occur again in the row (in `| 3 | 0.1 | 0.2 |` pipes separate cells).
    """
    i = 0
    while i < len(tokens) and tokens[i][0] in ("label_mark", "separator", "other"):
        i += 1
    if i + 1 < len(tokens) and is_integer_token(tokens[i]) and tokens[i + 1][0] == "label_mark":
        mark, rest = tokens[i + 1][1], tokens[i + 2 :]
        if all(text != mark for _, text in rest):
            return int(tokens[i][1]), rest
    return None, tokens[i:]



def index_label(tokens: list[Token], i: int) -> tuple[int, int] | None:
    """`[3] = [` at i: an index used as a row label; (label, index of the second '[')."""
    kinds = [kind for kind, _ in tokens[i : i + 5]]
    expected = ["open_bracket", "number", "close_bracket", "label_mark", "open_bracket"]
    if kinds == expected and is_integer_token(tokens[i + 1]):
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



class PairCell(NamedTuple):
    """A cell of a combined table, both arrays' values for one state: `d:p`, `(d, p)`, `d (p)`."""

    dice: _Cell
    prob: _Cell

    @classmethod
    def of_state(cls, cell: _Cell | PairCell) -> PairCell:
        """A cell of a combined table as a pair: a bare no-data cell is policy -1, no data."""
        return cell if isinstance(cell, PairCell) else _state_of_bare(cell)



AnyCell = _Cell | PairCell



@functools.lru_cache(maxsize=2**10)  # a row of 10^6 dashes is 10^6 times the same cell
def _state_of_bare(cell: _Cell) -> PairCell:
    return PairCell(_Cell(-1.0, False), cell)



#: The cell of a no-data word, nan or a dash.
_NO_DATA_CELL = _Cell(math.nan, True)



def _number_cell(text: str) -> _Cell:
    """The cell of a number token ('53%' is 0.53); never raises on what the regex matched."""
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    return _Cell(value, math.isnan(value))



@functools.lru_cache(maxsize=2**14)  # cells are immutable; tables repeat their values a lot
def token_cell(kind: str, text: str) -> AnyCell:
    """The cell of one value token: a PairCell for a `pair` token, else a _Cell."""
    if kind == "pair":
        dice, prob = text.split(":", 1)
        no_data = prob.lower().lstrip("+-") in SUBMISSION_NO_DATA_WORDS
        return PairCell(_number_cell(dice), _NO_DATA_CELL if no_data else _number_cell(prob))
    if kind in ("no_data", "dash"):
        return _NO_DATA_CELL
    return _number_cell(text)  # a number or infinity



def _first_value(cell: AnyCell) -> float:
    """The first number printed in a cell (of `d:p`, the d)."""
    return cell.dice.value if isinstance(cell, PairCell) else cell.value



def the_cells(tokens: list[Token]) -> list[AnyCell] | None:
    """Cells of a row's tokens: numbers, `d:p`, `(d, p)`, `d (p)` and wrapped `f(x)` values.

    Separators, wrappers and stray punctuation are skipped. None if a parenthesised group holds
    more than two values or a `d:p` cell (it is then no cell of either array).
    """
    cells: list[AnyCell] = []
    group: list[_Cell] | None = None  # the values inside an open parenthesis
    after_number = False  # the previous token was a plain value outside parentheses
    pair_with_previous = False  # that value before '(' may be the d of `d (p)`
    for kind, text in tokens:
        if kind in VALUE_KINDS:
            cell = token_cell(kind, text)
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
                cells[-1] = PairCell(previous, group[0])  # `d (p)`
            elif len(group) == 1:
                cells.append(group[0])  # `np.float64(0.5)`
            elif len(group) == 2:
                cells.append(PairCell(*group))  # `(d, p)`
            group, after_number = None, False
        else:
            after_number = False
    return None if group else cells  # an unclosed '(' with values in it: no row



def is_integer_cell(cell: AnyCell) -> bool:
    return isinstance(cell, _Cell) and cell.is_integer



def is_column_numbers(cells: list[AnyCell]) -> bool:
    """True for cells 0, 1, 2, ... or 1, 2, 3, ... (at least two): a header of column numbers."""
    values = [_first_value(c) for c in cells]
    return (
        len(values) >= 2
        and values[0] in (0, 1)
        and values == list(range(int(values[0]), int(values[0]) + len(values)))
    )



class RunKey(NamedTuple):
    """What rows of one run share: width, whether they are labelled, whether combined."""

    width: int
    labelled: bool
    combined: bool



class Reading(NamedTuple):
    """One way to read a row: its cells (all PairCells if combined, else all Cells), label."""

    cells: list[Any]
    label: int | None
    combined: bool

    @property
    def key(self) -> RunKey:
        return RunKey(len(self.cells), self.label is not None, self.combined)



def row_readings(cells: list[AnyCell], label: int | None) -> list[Reading]:
    """The ways to read a row, the likeliest first; [] if none.

    A row of a combined table may mix `d:p` cells and bare no-data cells (`n/a`, `-`, `-1`);
    a row of bare no-data cells alone reads either way (the rows around it decide).
    """
    if not cells:
        return []
    types = {type(c) for c in cells}
    if types == {PairCell}:
        return [Reading(cells, label, True)]
    readings: list[Reading] = []
    if types == {_Cell}:
        readings.append(Reading(cells, label, False))
        if not all(c.is_bare_no_data for c in cells[1:]):
            return readings  # the usual row of numbers: no other reading
    first, rest = cells[0], cells[1:]
    if label is None and rest:
        if (
            isinstance(first, PairCell)
            and first.dice.is_integer
            and all(isinstance(c, _Cell) for c in rest)
        ):
            first_label = int(first.dice.value)
            readings.append(Reading([first.prob, *rest], first_label, False))  # `3:0.5 0.4 ...`
        if is_integer_cell(first) and all(_is_state_cell(c) for c in rest):
            states = [PairCell.of_state(c) for c in rest]
            readings.append(Reading(states, int(first.value), True))  # `3  2:0.5 n/a 1:0.4`
    if all(_is_state_cell(c) for c in cells):
        states = [PairCell.of_state(c) for c in cells]
        readings.append(Reading(states, label, True))  # `2:0.5 n/a ...`
    return readings



def _is_state_cell(cell: AnyCell) -> bool:
    """A cell that may stand for one state of a combined table: `d:p` or a bare no-data cell."""
    return isinstance(cell, PairCell) or cell.is_bare_no_data



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



def heading_kind(line: str) -> str | None:
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

