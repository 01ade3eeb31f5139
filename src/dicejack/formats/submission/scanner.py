"""Step 5 of reading a submission: the line scanner. A line with ordinary words is prose (heading,
banner, trace, prompt); other lines are numeric rows or pieces of bracketed arrays. Rows of one
width form runs (a row that reads two ways is read the way that continues the run); runs and
bracketed 2-D arrays yield L x L blocks (a run of `x y best prob` lines listing every state
yields both arrays; a copy double-spaced after a table in the same run is not another block).
Blank lines and rows of one to three plain numbers, too narrow to join a block, are counted
without being tokenized, so that no shape of text costs much more than a table of its size."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from dicejack.formats.submission.arrays import Block, BracketedArray, Row
from dicejack.formats.submission.tokens import (
    ARRAY_WORDS,
    NUMBER_PATTERN,
    NUMERIC_KINDS,
    AnyCell,
    PairCell,
    RunKey,
    Token,
    has_percent,
    heading_kind,
    index_label,
    is_column_numbers,
    is_integer_cell,
    is_integer_token,
    joined,
    row_readings,
    split_row_label,
    style,
    the_cells,
    token_cell,
    tokenize,
)

_OTHER_SHAPES_KEPT = 8



_BLOCKS_KEPT = 24  # only the last blocks can be the arrays; older ones are forgotten 16 at a time



#: A line of one to three numbers and nothing else, bracketed or not (`0.5`, `1 2`, `[1, 2]`):
#: a row too narrow to be kept (unless L <= 3) whose only reading is plain (unless a value is
#: -1), counted without tokenizing it. One number per line is the cheapest text to write and
#: the dearest to read token by token.
_NARROW_ROW = rf"{NUMBER_PATTERN}(?:[ \t]*[,;][ \t]*{NUMBER_PATTERN}|[ \t]+{NUMBER_PATTERN}){{0,2}}"



_NARROW_RE = re.compile(rf"[ \t]*(?:{_NARROW_ROW}|\[[ \t]*{_NARROW_ROW}[ \t]*\])[ \t]*")



_NUMBER_RE = re.compile(NUMBER_PATTERN)



class Scanner:
    """One pass over the lines of a submission, collecting L x L blocks in order.

    Lines come in through feed_line; numeric rows gather into the current run (rows of one
    RunKey), which becomes blocks when it ends; bracketed arrays become blocks when they close.
    """

    def __init__(self, low: int, n_dice: int) -> None:
        self.low, self.n_dice = low, n_dice
        self.header_rows = (list(range(low)), list(range(1, low + 1)))
        self.blocks: list[Block] = []
        self.blocks_dropped = 0  # old blocks forgotten (only the last few can be the arrays)
        self.other_shapes: list[str] = []  # numeric blocks that do not fit, for messages
        self.summarised_line = 0  # last line of a 1-D or 2-D array summarised with '...'
        self.summarised_3d = False  # a 3-D array (a count dump) was summarised
        self.headings: list[str] = []  # prose lines since the last block or run started
        self.paragraph = 0
        self.array: BracketedArray | None = None  # a bracketed array still open
        self.run: list[Row] = []  # rows of the current run, if they may form blocks
        self.run_count = 0  # rows in the current run
        self.run_key: RunKey | None = None
        self.run_heading: str | None = None
        self.run_rows_kept = max(32 * low, low * low + low)  # the last rows of a long run
        #: Widths of rows that never join a block (too narrow): such rows are only counted.
        self.narrow_widths = frozenset(range(1, 4)) - {low, low + 1, 2 * low} if low >= 2 \
            else frozenset()
        self.lines_tokenized = 0  # lines read token by token (the others were blank or narrow)
        self.line_now = 0  # the number of the line being read

    def finish(self) -> None:
        """End of input: an unterminated bracketed array is dropped; the last run is closed."""
        self._abort_array()
        self._close_run()

    # ---------------------------------------------------------------------------- lines
    def feed_line(self, number: int, line: str) -> None:
        """Read one line: prose, a numeric row, or pieces of bracketed arrays."""
        self.line_now = number
        if not line or line.isspace():
            if self.array is None:
                self.paragraph += 1  # a blank line (does not end a run)
            return
        if self.array is None and self.narrow_widths and self._narrow_row(line):
            return
        self.lines_tokenized += 1
        tokens = tokenize(line)
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

    def _narrow_row(self, line: str) -> bool:
        """Count a row of one to three plain numbers too narrow to join a block, as _plain_row
        (or _finish_array, bracketed) and _add_row would: the run it continues or starts; False
        if the line is not one.

        Such a row reads only one way (no value is -1: it would also read as no data), so it
        is never fitted to another run nor re-reads one; it is never kept, only counted."""
        if _NARROW_RE.fullmatch(line) is None:
            return False
        values = _NUMBER_RE.findall(line)
        if len(values) not in self.narrow_widths:
            return False
        if "-" in line and any(float(v) == -1 for v in values):
            return False
        key = RunKey(len(values), False, False)
        if key != self.run_key:
            self._close_run()
            self.run_key, self.run_heading = key, self._take_heading()
        self.run_count += 1
        return True

    def _prose_line(self, number: int, tokens: list[Token]) -> None:
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
        values = [token_cell(*token) for token in after_words if token[0] in NUMERIC_KINDS]
        if values and not is_column_numbers(values):
            self._prose(None)  # a banner such as `NGames = 100,000`: no heading
        else:
            self._prose(joined(rest[: words[-1] + 1]))  # `PLAY:  0 1 2 ... 14` is a heading

    def _arrays_after_words(self, number: int, tokens: list[Token]) -> tuple[int, int] | None:
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
                and is_integer_token(between[0])
                and between[1][0] == "label_mark"
            ):
                label, between = int(between[0][1]), between[2:]  # `policy 3 = [...]`
            allowed = ("label_mark", "separator", "wrapper", "open_paren", "other", "dash")
            if any(kind not in allowed for kind, _ in between):
                return pos, arrays
            indexed = index_label(tokens, opening)
            if indexed is not None:
                label, opening = indexed
            if words and (label is None or len(words) > 3):  # else `policy[3] = [...]`
                self._prose(joined(before))
            array_word = any(text.lower() in ARRAY_WORDS for _, text in between)
            self.array = BracketedArray(number, label, array_word)
            end = self.array.feed(tokens, opening)
            if end is None:
                if self.array.invalid:  # `Enter M [default 100:` is no array
                    self.array = None
                    self._prose(None)
                return None
            self._finish_array()
            pos, arrays = end, arrays + 1

    def _labelled_text_row(self, number: int, tokens: list[Token]) -> bool:
        """Read the numbers after the words of `Row 3: 0.5 0.4 ...` (or `X=3 ...`) as a row
        labelled 3; False (nothing read) if they are not one."""
        while tokens and tokens[0][0] in ("label_mark", "separator"):
            tokens = tokens[1:]
        if len(tokens) < 2 or not is_integer_token(tokens[0]):
            return False
        rest = tokens[2:] if tokens[1][0] == "label_mark" else tokens[1:]
        if any(kind in ("open_bracket", "close_bracket", "ellipsis", "other") for kind, _ in rest):
            return False
        cells = the_cells(rest)
        label = int(tokens[0][1])
        row = self._new_row(cells, label, style(rest), number, has_percent(rest))
        if row is None or cells is None:
            return False
        if len(cells) != self.low and is_column_numbers([token_cell(*tokens[0]), *cells]):
            return False  # `X\Y | 0 1 2 ...`: column numbers, not a row
        self._add_row(row)
        return True

    def _numeric_line(self, number: int, tokens: list[Token]) -> None:
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
                indexed = index_label(tokens, i)
                if indexed is not None:
                    label, i = indexed  # `[3] = [...]`
                self.array = BracketedArray(number, label, array_word)
                continue  # fed from its opening bracket
            if is_integer_token(tokens[i]):
                label = int(text)  # `3: [...]`
            elif kind == "wrapper" and text.lower() in ARRAY_WORDS:
                array_word = True
            elif kind not in ("label_mark", "open_paren", "separator", "wrapper"):
                label = None
            i += 1

    def _plain_row(self, number: int, tokens: list[Token]) -> None:
        """A line without words or brackets: a row of numbers, or a blank line or rule."""
        kinds = {kind for kind, _ in tokens}
        if kinds.isdisjoint(NUMERIC_KINDS) and sum(kind == "dash" for kind, _ in tokens) < 2:
            self.paragraph += 1  # a blank line or a rule such as ----- or - (does not end a run)
            return
        if "ellipsis" in kinds:
            self.summarised_line = number  # a row summarised by pandas or by hand
        label, rest = split_row_label(tokens)
        row = self._new_row(the_cells(rest), label, style(rest), number, has_percent(rest))
        if row is None:
            self._prose(None)
            return
        self._add_row(row)

    def _new_row(
        self, cells: list[AnyCell] | None, label: int | None, style: str, line: int,
        percent: bool,
    ) -> Row | None:
        """A row of cells read the likeliest way (a combined reading only if L wide), or None."""
        readings = row_readings(cells, label) if cells else []
        if not readings:
            return None
        pick = readings[0]
        if len(readings) > 1:
            pick = next((r for r in readings if not r.combined or len(r.cells) == self.low), pick)
        return Row(*pick, style, line, self.paragraph, percent, tuple(readings))

    def _prose(self, line: str | None) -> None:
        """A line of prose ends the current run; it may be the heading of the next block."""
        self._close_run()
        if line is not None:
            self.headings = [*self.headings[-2:], line]

    def _take_heading(self) -> str | None:
        """What the last prose lines name ('policy', 'prob' or None); they are used up."""
        kinds = [heading_kind(line) for line in reversed(self.headings)]
        self.headings = []
        return next((kind for kind in kinds if kind), None)

    # ---------------------------------------------------------------------------- runs
    def _add_row(self, row: Row) -> None:
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

    def _fit_run(self, row: Row) -> Row:
        """A row that would end the current run, read another way if that continues it (or the
        run's rows read another way): a row of a `d:p` table printed all `n/a` reads as plain."""
        fitted = row.read_as(self.run_key)
        if fitted is not None:
            return fitted
        if len(self.run) == self.run_count:  # every row of the run is kept: it may be re-read
            run: list[Row] = []
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
    def _run_blocks(self, rows: list[Row], key: RunKey, heading: str | None, count: int) -> None:
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
            and all(is_integer_cell(r.cells[0]) for r in rows)
        )
        side_by_side = width == 2 * low and low > 1 and not combined
        if width != low and not implicit and not side_by_side:
            if width > 1 and count > 1:
                self._other_shape(f"{count}x{width}")
            return
        if implicit:
            rows = [replace(r, cells=r.cells[1:], label=int(r.cells[0].value)) for r in rows]
        for paragraph in _paragraphs(rows, low):
            heading = self._paragraph_blocks(paragraph, key, implicit, side_by_side, heading)

    def _paragraph_blocks(self, paragraph: list[Row], key: RunKey, implicit: bool,
                          side_by_side: bool, heading: str | None) -> str | None:
        """The blocks of one paragraph of a run, end-aligned (what precedes them is not the
        arrays); returns the heading still unused (only a run's first block has it)."""
        low = self.low
        tables, extra = divmod(len(paragraph), low)
        if extra and len(paragraph) > 1 and low > 1:
            self._other_shape(f"{extra}x{low}")
        for k in range(tables):  # blocks end-aligned: what precedes them is not the arrays
            table = paragraph[extra + k * low : extra + (k + 1) * low]
            halves = _halves(table, low) if side_by_side else [table]
            for half in halves:
                self._half_block(half, key, implicit, side_by_side, heading)
                heading = None  # only the first block of a run has the heading above it
        return heading

    def _half_block(self, half: list[Row], key: RunKey, implicit: bool, side_by_side: bool,
                    heading: str | None) -> None:
        """One L x L table of rows (or half of a side-by-side pair) as a block, or a note of its
        shape when it is none."""
        width, labelled, combined = key
        block = self._table_block(half, labelled or implicit, implicit, combined, heading)
        if block is not None and labelled and not combined:
            block = replace(block, alternative=self._as_combined(half, heading))
        if block is None:
            self._other_shape(f"{self.low}x{width}")
        elif side_by_side:
            self._add_block(replace(block, notes=("arrays printed side by side",)))
        else:
            self._add_block(block)

    def _as_combined(self, rows: list[Row], heading: str | None) -> Block | None:
        """Labelled rows read instead as unlabelled rows of a combined table, if they all can."""
        states = [r.read_as(RunKey(self.low, False, True)) for r in rows]
        if not all(r is not None for r in states):
            return None
        return self._table_block([r for r in states if r is not None], False, False, True,
                                 heading)

    def _long_block(self, rows: list[Row], heading: str | None) -> Block | None:
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
            cells[x][y] = PairCell(row.cells[dice], row.cells[prob])
        return Block(cells, True, "long", heading, rows[0].line,
                     lines=tuple(r.line for r in rows))

    def _table_block(
        self, rows: list[Row], labelled: bool, implicit: bool, combined: bool,
        heading: str | None,
    ) -> Block | None:
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
        return Block(cells, combined, layout, heading, rows[0].line, tuple(flags), tuple(notes),
                     lines=tuple(r.line for r in rows))

    def _add_block(self, block: Block) -> None:
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
            self._add_block(Block(rows, combined, layout, heading, array.line, flags,
                                  lines=tuple(range(array.line, self.line_now + 1))))
            heading = None

    def _bracketed_rows(
        self, leaves: list[list[AnyCell]]
    ) -> tuple[list[list[Any]], bool] | None:
        """The rows of a bracketed L x L array and whether combined (all rows plain or all
        combined); None if neither."""
        options = [
            [r for r in row_readings(leaf, None) if r.label is None and len(r.cells) == self.low]
            for leaf in leaves
        ]
        for combined in (False, True):
            picked = [next((r for r in opts if r.combined == combined), None) for opts in options]
            if all(r is not None for r in picked):
                return [r.cells for r in picked if r is not None], combined
        return None

    def _note_summarised(self, array: BracketedArray) -> None:
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



def _paragraphs(rows: list[Row], low: int) -> list[list[Row]]:
    """Rows grouped by paragraph; all in one if no paragraph is L rows long (rows separated by
    blank lines)."""
    paragraphs: list[list[Row]] = []
    for row in rows:
        if paragraphs and paragraphs[-1][-1].paragraph == row.paragraph:
            paragraphs[-1].append(row)
        else:
            paragraphs.append([row])
    if not any(len(p) >= low for p in paragraphs):
        return [rows]
    return paragraphs



def _halves(rows: list[Row], low: int) -> list[list[Row]]:
    """`2 2 1   0.53 0.47 0.21`: the two arrays printed side by side, as two tables."""
    return [[replace(r, cells=r.cells[h * low : (h + 1) * low]) for r in rows] for h in (0, 1)]



def _has_fraction(rows: list[Row], column: int) -> bool:
    """True if a column of rows holds a finite non-integer value."""
    return any(r.cells[column].is_fraction for r in rows)

