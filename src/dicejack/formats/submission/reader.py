"""Reading a submission file or text: the size and decoding checks, the scan, the choice of the
arrays and the :class:`~.record.Submission` built from them with flags and notes; and
:func:`find_table_size`, which guesses LTarget from the text."""

from __future__ import annotations

import codecs
import math
import os
import re
import stat
from pathlib import Path

import numpy as np

from dicejack.formats import FormatError
from dicejack.formats.submission.arrays import Block
from dicejack.formats.submission.choosing import choose_arrays, policy_first, split_combined
from dicejack.formats.submission.parsed import SUBMISSION_FLAGS, SUBMISSION_SIZE_LIMIT, Submission
from dicejack.formats.submission.scanner import Scanner
from dicejack.formats.submission.tokens import VALUE_KINDS, clean_text, tokenize


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
        text = submission_text(bytes(text))
    if not text.strip():
        raise FormatError("submission is empty")
    text = clean_text(text)
    scanner = Scanner(int(low), int(n_dice))
    for number, line in enumerate(text.splitlines(), start=1):
        scanner.feed_line(number, line)
    scanner.finish()

    chosen = choose_arrays(scanner.blocks, n_dice)
    summarised = scanner.summarised_line
    if chosen is None or (summarised and summarised >= chosen[0].line):
        if summarised:
            raise FormatError(summarised_reason(text))
        raise FormatError(f"found {_describe_found(scanner)}, need 2 arrays of {low}x{low}")
    ignored = len(scanner.blocks) + scanner.blocks_dropped - len(chosen)
    return _build_submission(scanner, chosen, n_dice), ignored



#: pandas' footer under a DataFrame it printed summarised: `[31 rows x 31 columns]`.
_PANDAS_FOOTER_RE = re.compile(r"^\s*\[\d+ rows x \d+ columns\]\s*$", re.MULTILINE)


def summarised_reason(text: str) -> str:
    """Why tables printed summarised with '...' cannot be read, and how to print them in full:
    values are left out, so a person could not read them either."""
    if _PANDAS_FOOTER_RE.search(text):
        return ("the tables were printed summarised with '...' (pandas leaves out rows and "
                "columns by default): print them in full, e.g. print(df.to_string())")
    return ("the tables were printed summarised with '...' (numpy prints at most 1,000 values "
            "by default): print them in full, e.g. numpy.set_printoptions(threshold=sys.maxsize)")



#: What find_table_size may spend, in characters read. Nothing when no line or bracket holds
#: two values. A short text (up to _SHORT_TEXT): surveyed whole, read whole by each try, twice
#: its length (at least _SIZE_BUDGET) in all. A long one: its survey reads its last
#: _SURVEY_CHARS; each try its tail, max(16 L, L^2) + 16 lines and at most max(_WINDOW_CHARS,
#: 64 L^2) characters (two L x L tables and their headings); the first try at most
#: max(2 _SIZE_BUDGET, an eighth of the text), the others max(_SIZE_BUDGET / 2, a sixteenth of
#: the text) in all, and _SIZE_TRIES of them: a fraction of a read, however it is shaped.
_SIZE_BUDGET = 32 * 2**10



_SURVEY_CHARS = 16 * 2**10



_WINDOW_CHARS = 4 * 2**10



#: A text up to _SHORT_TEXT characters is read whole by each try.
_SHORT_TEXT = 64 * 2**10



_SIZE_TRIES = 16



#: Flags of a read that suggest the size is wrong (a table's rows or corner read as another).
_SIZE_DOUBTS = frozenset({"unlabelled", "policy-not-integer", "policy-out-of-range",
                          "prob-out-of-range"})



_INNER_BRACKETS_RE = re.compile(r"\[([^\[\]]*)\]")



def _value_count(text: str) -> int:
    return sum(1 for kind, _ in tokenize(text) if kind in VALUE_KINDS)



def _tail(text: str, chars: int, lines: int | None = None) -> str:
    """The last lines of the text: at most `chars` characters (the end of its last line if that
    is longer) and at most `lines` lines; all of it if it is shorter."""
    start = max(0, len(text) - chars)
    if lines is not None:
        end = len(text) - 1  # a final newline ends the last line
        for _ in range(lines):
            end = text.rfind("\n", start, end)
            if end < 0:
                break
        else:
            return text[end + 1 :]
    if start == 0:
        return text
    newline = text.find("\n", start)
    return text[start:] if newline < 0 else text[newline + 1 :]



def find_table_size(text: str | bytes, n_dice: int) -> int | None:
    """The L at which two L x L arrays read from `text` (a submission), or None.

    For a message when the tables are not the size expected ("the tables are 10x10:
    LTarget=10?"). Candidates, each confirmed by reading the text at that size: first the sizes
    the text's shape suggests, most frequent first (values per line, with or without a row
    label, one or two per cell; values per innermost bracket, across wrapped lines, counted
    once for each line it spans; the number of lines listing a state each), then sizes near the
    square root of its count of values over 2, 3, 4, ... (two tables, printed once or twice,
    labelled or one line per state); at most 16 of them, within a budget of characters read
    (see _SIZE_BUDGET): a short text is read whole, a long one's tail as many lines and
    characters as two L x L tables take (they are printed last); the hint of a long text costs
    a fraction of a read of it.
    Of the sizes that read, the one whose reading has the fewest doubtful flags (values out of
    range, no headings), then the fewest other blocks of its size left over, then the largest:
    a wrong size reads pieces of tables.
    """
    try:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = submission_text(bytes(text[:SUBMISSION_SIZE_LIMIT]))
        text = clean_text(text[:SUBMISSION_SIZE_LIMIT])
    except FormatError:
        return None
    support: dict[int, int] = {}

    def vote(*sizes: int, weight: int = 1) -> None:
        for size in set(sizes):
            if size >= 2:
                support[size] = support.get(size, 0) + weight

    short = len(text) <= _SHORT_TEXT
    survey = text if short else _tail(text, _SURVEY_CHARS)  # a long text's shape: its end
    scale = len(text) / max(len(survey), 1)
    values = state_lines = 0
    for line in survey.splitlines():
        kinds = [kind for kind, _ in tokenize(line)]
        count = sum(kind in VALUE_KINDS for kind in kinds)
        values += count
        if kinds.count("word") <= 3:  # a table's row (a label word at most), not a trace line
            state_lines += count >= 4
            vote(count, count - 1, count // 2, (count - 1) // 2)
    for group in _INNER_BRACKETS_RE.finditer(survey):
        # a row wrapped over lines (numpy wraps at 75 characters) counts once a line: its
        # lines' own votes are for pieces of it
        vote(_value_count(group.group(1)), weight=1 + group.group(1).count("\n"))
    values, state_lines = int(values * scale), int(state_lines * scale)
    vote(math.isqrt(state_lines), math.isqrt(state_lines // 2))
    if not support:
        return None  # no line nor bracket of two values or more: no table of any size
    ranked = sorted(support, key=lambda size: (-support[size], -size))
    near = [math.isqrt(values // d) + e for d in (2, 4, 3, 6, 8, 5) for e in (0, 1, -1)]
    candidates = [size for size in dict.fromkeys(ranked[:8] + near)
                  if size >= 2 and size * size <= values]  # a table of d:p cells at least
    # a short text (what most programs print) is read whole by each try, twice its length in
    # all (more tries when it is tiny); a long one's tries read its tail: the first up to an
    # eighth of it (big tables), the others a sixteenth in all
    budget = max(_SIZE_BUDGET, 2 * len(text)) if short else max(_SIZE_BUDGET // 2,
                                                                 len(text) // 16)
    first = max(2 * _SIZE_BUDGET, len(text) // 8)  # a long text's first try, apart
    spent = 0
    reads = []
    for n, size in enumerate(candidates[:_SIZE_TRIES]):
        left = first if n == 0 and not short else budget - spent
        # two L x L tables with their headings, rows wrapped as numpy wraps them, or a line
        # per state
        lines = max(16 * size, size * size) + 16
        window = text if short else _tail(text, min(max(_WINDOW_CHARS, 64 * size * size), left),
                                          lines)
        if n and len(window) > left:
            break
        if short or n:
            spent += len(window)
        try:
            sub, ignored = _read_text(window, size, n_dice)
        except FormatError:
            continue
        reads.append((len(_SIZE_DOUBTS.intersection(sub.flags)), ignored, -size))
    return -min(reads)[2] if reads else None



def _check_params(low: int, n_dice: int) -> None:
    for name, value in (("low", low), ("n_dice", n_dice)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise FormatError(f"{name} must be an integer >= 1, got {value!r}")



def submission_text(data: bytes) -> str:
    """Text of a submission's bytes as the reader reads it (its line numbers are the reader's):
    BOMs honoured, utf-8, else latin-1; binary data refused (FormatError)."""
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



def _describe_found(scanner: Scanner) -> str:
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
    scanner: Scanner, chosen: tuple[Block, ...], n_dice: int
) -> Submission:
    """Build the Submission from the chosen block(s), with flags and notes."""
    flags: list[str] = []
    notes: list[str] = []
    if len(chosen) == 1:
        block = chosen[0]
        policy_cells, prob_cells = (part.rows for part in split_combined(block))
        layout = block.layout
        flags.extend(block.flags)
        notes.extend(block.notes)
    else:
        policy_block, prob_block = policy_first(chosen[0], chosen[1], n_dice)
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
    lines = tuple(sorted({n for block in chosen for n in block.lines}))
    return Submission(policy, prob, no_data, layout, ordered_flags,
                      "; ".join(dict.fromkeys(notes)), lines)

