"""What a submission read gives: the :class:`Submission` (the two tables as graded, the layout,
flags and notes) and the reader's published constants (layouts, flags, no-data words, size
limit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
    lines_read: the 1-based lines of the text the two arrays were read from, in order.
    """

    policy: np.ndarray
    probability: np.ndarray
    no_data: np.ndarray
    layout: str
    flags: tuple[str, ...]
    notes: str
    lines_read: tuple[int, ...] = ()  # the 1-based lines the two arrays were read from

