"""Print the same pair of tables the ways student programs print them (for round-trip tests).

Written from the layouts' descriptions (the handout's output, docs/grading.md "Reading a
submission", the comments of formats.SUBMISSION_LAYOUTS), not from the reader's code: the
reader is what is being tested. Numpy layouts are printed by numpy itself.

The tables: `Tables` holds what a learner knows about each state <X, Y> (an estimate, an
estimate of 0 in a lost state, or no data) and the best J. A `Convention` says how a state
without data is printed (number of dice / probability). `render` prints the tables in one
layout of LAYOUTS; `expected` gives the arrays the reader must return for them.
"""

from __future__ import annotations

import math
import pprint
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------- tables
DATA, LOST, NONE = 0, 1, 2  # kinds of state: an estimate in (0, 1], an estimate of 0, no data


@dataclass(frozen=True)
class Tables:
    """What a learner knows after NGAMES games (L = low, K = n_dice)."""

    low: int
    n_dice: int
    kind: np.ndarray  # (L, L) DATA, LOST or NONE
    best: np.ndarray  # (L, L) J in 1..K where the state has data (a lost state too)
    estimate: np.ndarray  # (L, L) W / (W + L) where the state has data, else NaN
    random_j: np.ndarray  # (L, L) a J in 1..K, printed beside -1 by some programs


def make_tables(low: int, n_dice: int, seed: int) -> Tables:
    """Random tables with states of every kind (when L x L >= 3); <0,0> always has an estimate."""
    rng = np.random.default_rng(seed)
    kind = rng.choice([DATA, LOST, NONE], size=(low, low), p=[0.5, 0.2, 0.3])
    cells = [(x, y) for x in range(low) for y in range(low) if (x, y) != (0, 0)]
    if len(cells) >= 2:
        first, second = rng.choice(len(cells), 2, replace=False)
        kind[cells[first]], kind[cells[second]] = LOST, NONE
    kind[0, 0] = DATA
    visits = rng.integers(1, 201, (low, low))
    wins = rng.integers(1, visits + 1)  # an estimate W / (W + L) > 0
    estimate = np.where(kind == DATA, wins / visits, np.where(kind == LOST, 0.0, np.nan))
    estimate[0, 0] = rng.integers(30, 71) / 100 + rng.integers(0, 1000) / 1e6
    best = rng.integers(1, n_dice + 1, (low, low))
    random_j = rng.integers(1, n_dice + 1, (low, low))
    return Tables(low, n_dice, kind, best, estimate, random_j)


# --------------------------------------------------------------------------------- conventions
#: Stands for the float nan in a Convention (printed `nan`).
NAN = "<nan>"


@dataclass(frozen=True)
class Convention:
    """How a program prints a state without data: number of dice, probability."""

    name: str
    dice: Any  # -1, 0, "J" (the tie-break J = 1), "random-J", a word, "-", NAN
    prob: Any  # -1, 0 (printed `0`), 0.0 (printed as a float), a word, "-", NAN
    bare: bool = False  # in a `d:p` table: one bare cell for the state, not `d:p`

    def expected_policy(self, random_j: int) -> int:
        if isinstance(self.dice, int):
            return self.dice
        return {"J": 1, "random-J": random_j}.get(self.dice, -1)  # words and nan read as -1

    @property
    def no_data(self) -> bool:
        """True if the reader marks the state as no data (0 is a real 0: the grader decides)."""
        return isinstance(self.prob, str) or self.prob != 0


CONVENTIONS = {
    c.name: c
    for c in (
        Convention("-1/-1", -1, -1),
        Convention("0/0", 0, 0),
        Convention("0/0.0", 0, 0.0),
        Convention("J/0.0", "J", 0.0),
        Convention("J/-1", "J", -1.0),
        Convention("random-J/-1", "random-J", -1),
        Convention("n/a", "n/a", "n/a", bare=True),
        Convention("nan", NAN, NAN, bare=True),
        Convention("None", "None", "None", bare=True),
        Convention("-", "-", "-", bare=True),
        Convention("--", "--", "--", bare=True),
        Convention("-1 (bare)", -1, -1, bare=True),
        Convention("J/n/a", "J", "n/a"),
        Convention("0/nan", 0, NAN),
    )
}
#: Conventions a Python or numpy program can print (no dashes; words are quoted strings; a
#: bare -1 is -1/-1 outside a `d:p` table).
OBJECT_CONVENTIONS = tuple(c for c in CONVENTIONS if c not in ("-", "--", "-1 (bare)"))
TEXT_CONVENTIONS = tuple(CONVENTIONS)

#: Decimals the probabilities are printed with; None = Python's full repr.
DECIMALS = (2, 3, 4, 6, None)


@dataclass(frozen=True)
class Style:
    """The choices of one printing: convention, decimals, a second double-spaced copy."""

    convention: Convention
    decimals: int | None
    twice: bool = False
    headings: bool = True  # a title line above each table
    variant: int = 0  # a layout's own choices (padding, separators, wrapping), from a seed


def printed_decimals(tables: Tables, layout: str, style: Style) -> int | None:
    """Decimals of the probabilities as actually printed (numpy's float arrays: at most 8)."""
    if layout.startswith("numpy") and style.decimals is None:
        if numpy_arrays(tables, style)[1].dtype != object:
            return 8
    return style.decimals


# --------------------------------------------------------------------------------- cells
def _round(value: float, decimals: int | None) -> float:
    return value if decimals is None else round(value, decimals)


def state_values(tables: Tables, style: Style, x: int, y: int) -> tuple[Any, Any]:
    """The (dice, probability) a program prints for <x, y>, as Python values.

    Ints stay ints, probabilities are floats rounded to the decimals, words are strings,
    NaN is float('nan'), None is None.
    """
    conv = style.convention
    if tables.kind[x, y] != NONE:
        return int(tables.best[x, y]), _round(float(tables.estimate[x, y]), style.decimals)

    def value(v: Any) -> Any:
        if v == NAN:
            return math.nan
        if v == "None":
            return None
        if v == "J":
            return 1
        if v == "random-J":
            return int(tables.random_j[x, y])
        return v

    return value(conv.dice), value(conv.prob)


def text(value: Any, decimals: int | None) -> str:
    """A value as a C or Python program prints it with printf("%.{d}f") for floats."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return repr(value) if decimals is None else f"{value:.{decimals}f}"
    return str(value)


def text_tables(tables: Tables, style: Style) -> tuple[list[list[str]], list[list[str]]]:
    """The policy and probability cells as printed text."""
    rows = range(tables.low)
    values = [[state_values(tables, style, x, y) for y in rows] for x in rows]
    dice = [[text(v[0], style.decimals) for v in row] for row in values]
    prob = [[text(v[1], style.decimals) for v in row] for row in values]
    return dice, prob


def combined_cells(tables: Tables, style: Style, pair: str = "{d}:{p}") -> list[list[str]]:
    """Cells of a combined table: `d:p` (or `pair`), or one bare word for a state without data."""
    dice, prob = text_tables(tables, style)
    bare = style.convention.bare
    return [
        [
            prob[x][y]
            if bare and tables.kind[x, y] == NONE
            else pair.format(d=dice[x][y], p=prob[x][y])
            for y in range(tables.low)
        ]
        for x in range(tables.low)
    ]


def expected(tables: Tables, layout: str, style: Style) -> tuple[np.ndarray, ...]:
    """(policy, probability, no_data) the reader must return for this printing."""
    conv, low = style.convention, tables.low
    decimals = printed_decimals(tables, layout, style)
    policy = np.empty((low, low), dtype=np.int64)
    prob = np.empty((low, low), dtype=np.float64)
    no_data = np.zeros((low, low), dtype=bool)
    for x in range(low):
        for y in range(low):
            if tables.kind[x, y] == NONE:
                policy[x, y] = conv.expected_policy(int(tables.random_j[x, y]))
                no_data[x, y] = conv.no_data
                prob[x, y] = math.nan if conv.no_data else 0.0
            else:
                policy[x, y] = tables.best[x, y]
                value = float(tables.estimate[x, y])
                prob[x, y] = value if decimals is None else float(f"{value:.{decimals}f}")
    return policy, prob, no_data


# --------------------------------------------------------------------------------- layouts
POLICY_TITLES = ("Best number of dice:", "PLAY =", "Policy", "Best move", "Strategy:")
PROB_TITLES = ("Win probability:", "PROB =", "Probability", "P(win)", "Winning chances:")


def _titled(style: Style, rng: random.Random, policy: str, prob: str) -> str:
    """The two tables, each under a title (or unlabelled, separated by a blank line)."""
    if not style.headings:
        return f"{policy}\n\n{prob}\n"
    return f"{rng.choice(POLICY_TITLES)}\n{policy}\n{rng.choice(PROB_TITLES)}\n{prob}\n"


def _join(rows: list[list[str]], sep: str, width: int = 0, align: str = ">") -> str:
    return "\n".join(sep.join(f"{c:{align}{width}}" for c in row).rstrip() for row in rows)


def lay_grid(tables: Tables, style: Style, rng: random.Random) -> str:
    """Whitespace-separated rows, single spaces or columns padded to a fixed width."""
    dice, prob = text_tables(tables, style)
    width = rng.choice([0, 4, 8, 10])
    return _titled(style, rng, _join(dice, " ", width), _join(prob, " ", width))


def lay_grid_tabs(tables: Tables, style: Style, rng: random.Random) -> str:
    """TAB-separated rows (a trailing TAB sometimes)."""
    dice, prob = text_tables(tables, style)
    end = rng.choice(["", "\t"])
    policy, probability = ("\n".join("\t".join(r) + end for r in rows) for rows in (dice, prob))
    return _titled(style, rng, policy, probability)


def lay_grid_column_header(tables: Tables, style: Style, rng: random.Random) -> str:
    """pandas-like: a header row of column numbers, each row led by its number (the labels)."""
    dice, prob = text_tables(tables, style)
    width = max(len(c) for rows in (dice, prob) for row in rows for c in row) + 2

    def table(rows: list[list[str]]) -> str:
        header = "    " + "".join(f"{y:>{width}}" for y in range(tables.low))
        body = [f"{x:<4}" + "".join(f"{c:>{width}}" for c in row) for x, row in enumerate(rows)]
        return "\n".join([header, *body])

    return _titled(style, rng, table(dice), table(prob))


def _tab_corner(rows: list[list[str]], low: int) -> str:
    header = "X\\Y\t" + "\t".join(map(str, range(low)))
    return "\n".join([header, *(f"{x}\t" + "\t".join(row) for x, row in enumerate(rows))])


def lay_tab_corner(tables: Tables, style: Style, rng: random.Random) -> str:
    """TAB-separated, an `X\\Y` corner cell, a header row of column numbers, row numbers."""
    dice, prob = text_tables(tables, style)
    return _titled(style, rng, _tab_corner(dice, tables.low), _tab_corner(prob, tables.low))


def lay_csv(tables: Tables, style: Style, rng: random.Random) -> str:
    """Comma- or semicolon-separated rows."""
    dice, prob = text_tables(tables, style)
    sep = rng.choice([",", ", ", ";"])
    return _titled(style, rng, _join(dice, sep), _join(prob, sep))


def lay_labelled_grid(tables: Tables, style: Style, rng: random.Random) -> str:
    """Rows labelled `3 | ...`, `3: ...` or `Row 3: ...`."""
    dice, prob = text_tables(tables, style)
    label = rng.choice(["{x} | ", "{x}: ", "Row {x}: ", "{x:>3} |"])
    width = rng.choice([0, 7])

    def table(rows: list[list[str]]) -> str:
        return "\n".join(
            label.format(x=x) + " ".join(f"{c:>{width}}" for c in row) for x, row in enumerate(rows)
        )

    return _titled(style, rng, table(dice), table(prob))


def lay_labelled_csv(tables: Tables, style: Style, rng: random.Random) -> str:
    """Comma-separated rows led by the row number: `3: a, b, ...` or `3, a, b, ...`."""
    dice, prob = text_tables(tables, style)
    label = rng.choice(["{x}: ", "{x}, "])

    def table(rows: list[list[str]]) -> str:
        return "\n".join(label.format(x=x) + ", ".join(row) for x, row in enumerate(rows))

    return _titled(style, rng, table(dice), table(prob))


def _python_values(tables: Tables, style: Style, numpy_items: bool) -> tuple[list, list]:
    rows = range(tables.low)
    values = [[state_values(tables, style, x, y) for y in rows] for x in rows]

    def item(v: Any, as_float: bool) -> Any:
        if not numpy_items or v is None or isinstance(v, str):
            return v
        return np.float64(v) if as_float or isinstance(v, float) else np.int64(v)

    dice = [[item(v[0], False) for v in row] for row in values]
    prob = [[item(v[1], True) for v in row] for row in values]
    return dice, prob


def lay_list(tables: Tables, style: Style, rng: random.Random) -> str:
    """Python lists: print(list) on one line, one row per line, or pprint (wrapped)."""
    dice, prob = _python_values(tables, style, numpy_items=False)
    how = rng.choice(["one-line", "rows", "pprint"])
    if how == "one-line":
        return _titled(style, rng, repr(dice), repr(prob))
    if how == "rows":
        return _titled(style, rng, "\n".join(map(repr, dice)), "\n".join(map(repr, prob)))
    width = rng.choice([20, 40, 80])
    return _titled(style, rng, pprint.pformat(dice, width=width), pprint.pformat(prob, width=width))


def lay_list_numpy_items(tables: Tables, style: Style, rng: random.Random) -> str:
    """numpy 2 scalars in Python lists: `[[np.int64(2), np.int64(1)], ...]` (or one row a line)."""
    dice, prob = _python_values(tables, style, numpy_items=True)
    if rng.random() < 0.5:
        return _titled(style, rng, repr(dice), repr(prob))
    return _titled(style, rng, "\n".join(map(repr, dice)), "\n".join(map(repr, prob)))


def numpy_arrays(tables: Tables, style: Style) -> tuple[np.ndarray, np.ndarray]:
    """The tables as a numpy program holds them: int or float arrays, object arrays for words."""
    dice, prob = _python_values(tables, style, numpy_items=False)

    def array(rows: list[list[Any]], floats: bool) -> np.ndarray:
        flat = [v for row in rows for v in row]
        if any(v is None or isinstance(v, str) for v in flat):
            out = np.empty((tables.low, tables.low), dtype=object)
            for x, row in enumerate(rows):
                for y, v in enumerate(row):
                    out[x, y] = v
            return out
        if floats or any(isinstance(v, float) for v in flat):
            return np.array(rows, dtype=np.float64)
        return np.array(rows, dtype=np.int64)

    return array(dice, False), array(prob, True)


def _numpy_text(array: np.ndarray, fn: Callable[[Any], str], linewidth: int) -> str:
    with np.printoptions(linewidth=linewidth, threshold=10**6):
        return fn(array)


def lay_numpy_repr(tables: Tables, style: Style, rng: random.Random) -> str:
    """repr(array) (rows wrapped over several lines when narrow), or a list of row arrays."""
    dice, prob = numpy_arrays(tables, style)
    width = rng.choice([20, 30, 75])
    if rng.random() < 0.25:
        return _titled(
            style, rng, _numpy_text(list(dice), repr, width), _numpy_text(list(prob), repr, width)
        )
    return _titled(style, rng, _numpy_text(dice, repr, width), _numpy_text(prob, repr, width))


def lay_numpy_str(tables: Tables, style: Style, rng: random.Random) -> str:
    """print(array): `[[2 1 ...]\\n [1 2 ...]]`, rows wrapped over several lines when narrow."""
    dice, prob = numpy_arrays(tables, style)
    width = rng.choice([20, 30, 75])
    return _titled(style, rng, _numpy_text(dice, str, width), _numpy_text(prob, str, width))


def _combined_table(cells: list[list[str]], low: int, width: int, align: str, corner: bool) -> str:
    head = "X\\Y" if corner else ""
    header = f"{head:<5}" + "".join(f"{y:{align}{width}}" for y in range(low))
    body = [
        f"{x:>3}  " + "".join(f"{c:{align}{width}}" for c in row) for x, row in enumerate(cells)
    ]
    return "\n".join([header.rstrip(), *body])


def _combined_title(style: Style, rng: random.Random) -> str:
    if not style.headings:
        return ""
    return rng.choice(["Best move:probability\n", "J:P(win)\n", "Results (dice:prob)\n"])


def lay_combined_padded(tables: Tables, style: Style, rng: random.Random) -> str:
    """One table of `d:p` cells, right-aligned to a fixed width, header row of column numbers."""
    cells = combined_cells(tables, style)
    width = max(len(c) for row in cells for c in row) + rng.choice([2, 4])
    table = _combined_table(cells, tables.low, width, ">", rng.random() < 0.5)
    return _combined_title(style, rng) + table + "\n"


def lay_combined_centred(tables: Tables, style: Style, rng: random.Random) -> str:
    """One table of `d:p` cells centred in a fixed width (`  2:0.5312  `, `   n/a    `)."""
    cells = combined_cells(tables, style)
    width = max(len(c) for row in cells for c in row) + rng.choice([2, 4])
    table = _combined_table(cells, tables.low, width, "^", rng.random() < 0.5)
    return _combined_title(style, rng) + table + "\n"


def lay_combined_tab(tables: Tables, style: Style, rng: random.Random) -> str:
    """One TAB-separated table of `d:p` cells with an `X\\Y` corner cell."""
    cells = combined_cells(tables, style)
    return _combined_title(style, rng) + _tab_corner(cells, tables.low) + "\n"


def lay_combined_plain(tables: Tables, style: Style, rng: random.Random) -> str:
    """One table of `d:p` cells separated by spaces, no header, no row numbers."""
    cells = combined_cells(tables, style)
    return _combined_title(style, rng) + _join(cells, rng.choice([" ", "  ", "\t"])) + "\n"


def lay_combined_tuples(tables: Tables, style: Style, rng: random.Random) -> str:
    """One table of `(d, p)` cells (print of tuples) or `d (p)` cells."""
    pair = rng.choice(["({d}, {p})", "{d} ({p})"])
    cells = combined_cells(tables, style, pair)
    return _combined_title(style, rng) + _join(cells, "  ") + "\n"


def lay_long(tables: Tables, style: Style, rng: random.Random) -> str:
    """One line per state: `x y best prob` (spaces or CSV, a header line, maybe shuffled)."""
    dice, prob = text_tables(tables, style)
    states = [(x, y) for x in range(tables.low) for y in range(tables.low)]
    if rng.random() < 0.3:
        rng.shuffle(states)
    sep = rng.choice([" ", ",", "\t"])
    extra = rng.random() < 0.3  # a column of visit counts after the two values
    names = ["x", "y", "best", "prob"] + (["visits"] if extra else [])
    lines = [sep.join(names)] if style.headings else []
    for x, y in states:
        cells = [str(x), str(y), dice[x][y], prob[x][y]] + ([str(3 * x + y + 7)] if extra else [])
        lines.append(sep.join(cells))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Layout:
    render: Callable[[Tables, Style, random.Random], str]
    reader_layout: str  # the `layout` the reader reports
    conventions: tuple[str, ...] = TEXT_CONVENTIONS
    min_low: int = 1


LAYOUTS = {
    "grid": Layout(lay_grid, "grid"),
    "grid-tabs": Layout(lay_grid_tabs, "grid"),
    # L = 1: the header row `0` is indistinguishable from a row of the table
    "grid-column-header": Layout(lay_grid_column_header, "labelled-grid", min_low=2),
    "tab-corner": Layout(lay_tab_corner, "labelled-grid"),
    "csv": Layout(lay_csv, "csv"),
    "labelled-grid": Layout(lay_labelled_grid, "labelled-grid"),
    "labelled-csv": Layout(lay_labelled_csv, "labelled-csv"),
    "list-repr": Layout(lay_list, "list-repr", OBJECT_CONVENTIONS),
    "list-numpy-items": Layout(lay_list_numpy_items, "list-repr", OBJECT_CONVENTIONS),
    "numpy-repr": Layout(lay_numpy_repr, "numpy-repr", OBJECT_CONVENTIONS),
    "numpy-str": Layout(lay_numpy_str, "numpy-str", OBJECT_CONVENTIONS),
    "combined-padded": Layout(lay_combined_padded, "combined"),
    "combined-centred": Layout(lay_combined_centred, "combined"),
    "combined-tab": Layout(lay_combined_tab, "combined"),
    "combined-plain": Layout(lay_combined_plain, "combined"),
    "combined-tuples": Layout(lay_combined_tuples, "combined"),
    "long": Layout(lay_long, "long"),
}


def double_spaced(text: str) -> str:
    """The text with a blank line after every line (as some programs print)."""
    return "".join(line + "\n\n" for line in text.splitlines())


def render(tables: Tables, layout: str, style: Style) -> str:
    """The submission's text: the tables in `layout`, printed twice if style.twice (the
    second copy double-spaced)."""
    rng = random.Random(style.variant)
    once = LAYOUTS[layout].render(tables, style, rng)
    if not style.twice:
        return once
    again = LAYOUTS[layout].render(tables, style, random.Random(style.variant))
    return once + "\n" + double_spaced(again)
