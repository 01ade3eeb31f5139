"""Reading a submission: the two tables a student program printed, from whatever else it printed.

After NGAMES games a program prints two LTarget x LTarget arrays: the best number of dice per
state <X,Y> and the estimated win probability. `read_submission` (a file) and
`read_submission_text` (text or bytes) find them and return a `Submission`. Submissions are
data, never code: nothing here evaluates the text, every pass is linear in its size, and every
failure is a FormatError with a one-line message.

How, one step a module (record.py: the Submission and the constants; reader.py: the checks,
the scan and the Submission built from the chosen arrays, with flags and notes):
1. Tokens (tokens.py). Each line is split by one regex into numbers, no-data words and lone
   dashes, `d:p` pairs, brackets, parentheses, separators, label marks and words.
2. Cells (tokens.py). The values of a line: a `Cell` (one number) or a `PairCell` (`d:p`,
   `(d, p)` or `d (p)`: both arrays' values for one state). A row may read more than one way (a
   row of `n/a` is plain or combined); a `Reading` is one way, its `RunKey` its width and kind.
3. Headings (tokens.py): what a prose line above a table names (the policy or the probability).
4. Bracketed arrays (arrays.py: `[[...]]`, `array([...])`), followed across lines (numpy wraps
   long rows).
5. The scanner (scanner.py). A line with ordinary words is prose (heading, banner, trace,
   prompt); other lines are numeric rows or pieces of bracketed arrays. Consecutive rows of one
   width form runs (a row that reads two ways is read the way that continues the run); runs and
   bracketed 2-D arrays yield L x L blocks (a run of `x y best prob` lines listing every state
   yields both arrays; a copy double-spaced after a table in the same run is not another block).
6. Choosing (choosing.py). The arrays are the last two blocks that fit by content (or the last
   combined block: `d:p` cells or one line per state), told apart by content, with the heading
   above each as a cross-check.
"""

from __future__ import annotations

from dicejack.formats.submission.parsed import (
    SUBMISSION_FLAGS,
    SUBMISSION_LAYOUTS,
    SUBMISSION_NO_DATA_WORDS,
    SUBMISSION_SIZE_LIMIT,
    Submission,
)
from dicejack.formats.submission.reader import (
    find_table_size,
    read_submission,
    read_submission_text,
    submission_text,
)

__all__ = [
    "SUBMISSION_FLAGS",
    "SUBMISSION_LAYOUTS",
    "SUBMISSION_NO_DATA_WORDS",
    "SUBMISSION_SIZE_LIMIT",
    "Submission",
    "find_table_size",
    "read_submission",
    "read_submission_text",
    "submission_text",
]
