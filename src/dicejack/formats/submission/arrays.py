"""Step 4 of reading a submission: bracketed arrays (`[[...]]`, `array([...])`) followed across
lines (numpy wraps long rows), and the rows and L x L blocks the scanner builds from lines."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dicejack.formats.submission.tokens import (
    ARRAY_WORDS,
    VALUE_KINDS,
    Reading,
    RunKey,
    Token,
    the_cells,
)


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
    """An open bracket of a BracketedArray: the lists closed inside it, and its own tokens."""

    children: list[Any] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)



class BracketedArray:
    """A bracketed nested list being read, possibly over several lines (depth kept up to 4)."""

    MAX_DEPTH = 4

    def __init__(self, line: int, label: int | None, array_word: bool) -> None:
        self.line, self.label, self.array_word = line, label, array_word
        self.depth = self.max_depth = 0
        self.frames: list[_Frame] = []
        self.result: Any = None  # the outermost list, once closed
        self.invalid = self.summarised = self.commas = self.percent = False

    def feed(self, tokens: list[Token], i: int) -> int | None:
        """Consume tokens from i; the index after the closing bracket, or None if still open."""
        while i < len(tokens):
            if self.invalid:
                return self._skip(tokens, i)
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
                self.array_word |= kind == "wrapper" and text.lower() in ARRAY_WORDS
                self.percent |= kind == "number" and text.endswith("%")
                if self.depth <= self.MAX_DEPTH:
                    self.frames[-1].tokens.append((kind, text))
        return None

    def _skip(self, tokens: list[Token], i: int) -> int | None:
        """feed for an array already invalid (never read): only its depth and '...' count."""
        depth, deepest = self.depth, self.max_depth
        for j in range(i, len(tokens)):
            kind = tokens[j][0]
            if kind == "open_bracket":
                depth += 1
                deepest = max(deepest, depth)
            elif kind == "close_bracket":
                depth -= 1
                if depth == 0:
                    self.depth, self.max_depth = depth, deepest
                    return j + 1
            elif kind == "ellipsis":
                self.summarised = True
        self.depth, self.max_depth = depth, deepest
        return None

    def _close_frame(self) -> None:
        frame = self.frames.pop()
        node: Any
        if frame.children:
            if any(kind in VALUE_KINDS for kind, _ in frame.tokens):
                self.invalid = True  # values beside nested lists
            node = frame.children
        else:
            cells = the_cells(frame.tokens)
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
class Row:
    """A numeric row as read (the likeliest of its readings), and where it was printed."""

    cells: list[Any]  # all PairCells if combined, else all Cells
    label: int | None
    combined: bool
    style: str  # 'grid' or 'csv'
    line: int
    paragraph: int  # rows separated by a blank line or a rule are in different paragraphs
    percent: bool = False
    readings: tuple[Reading, ...] = ()  # every way to read the row (see row_readings)

    @property
    def key(self) -> RunKey:
        return RunKey(len(self.cells), self.label is not None, self.combined)

    def read_as(self, key: RunKey | None) -> Row | None:
        """The row read the way that gives it this run key, or None if no way does."""
        for reading in self.readings:
            if reading.key == key:
                return replace(self, cells=reading.cells, label=reading.label,
                               combined=reading.combined)
        return None



@dataclass
class Block:
    """An L x L table found in the text: one array, or both if combined."""

    rows: list[list[Any]]  # L rows of L cells: PairCells if combined, else Cells
    combined: bool
    layout: str
    heading: str | None  # 'policy', 'prob' or None: what the prose above it names
    line: int
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: The same rows read as a combined table, if they also read so (`2:0.5 n/a n/a` is a
    #: labelled row of probabilities or a row of `d:p` cells); choose_arrays decides.
    alternative: Block | None = None
    #: The 1-based lines of the text the block was read from (shown on the student's page).
    lines: tuple[int, ...] = ()

