"""Student-style programs for the course handout (docs/assignment.md), written from the handout
alone and independently of dicejack (nothing here imports dicejack). They are test material for
`dicejack grade`: FAITHFUL programs must pass (false-alarm rate), BUGS should be caught (power).

Programs (one per module; each module's docstring says what it does differently):
- alice: the handout line by line; int counts; lowest J on ties; the handout's cumulative loop;
  J per-die draws; moves in arrays, counts updated after the game.
- bob: one 4-d count array; uniformly random tie-break; np.searchsorted(np.cumsum(p), u);
  a die as int(u * NSides) + 1; one move history per player.
- carol: float counts; np.argmax tie-break (lowest) or random; random.choices-style draw
  (u * sum of weights); moves walked backwards after the game.
- dave: Visits / Wins counts; HIGHEST J on ties; inverse-cdf draw by subtraction; the sum of J
  dice drawn at once from its exact distribution; trains in ten chunks (progress lines).
- erin: plain Python, nested lists, random.Random(seed).choices; M read as int when whole. Slow:
  only for small games (compiled=False).
- hank: the program behind every bug (bug codes), faithful with no bug.
- ivy: int32 count arrays; np.argmax tie-break (lowest); the draw runs from J = NDice downward
  (u against running sums of p_K, p_K-1, ...; J = 1 takes the rest); J dice as one integer among
  NSides**J outcomes read in base NSides; flat cell codes logged per game. Faithful learning
  whatever she prints; her print slips (bug) are the SLIPS.
The compiled learners are numba.njit(cache=True) functions taking a seeded numpy Generator.

Printing conventions (Student fields; "dice/prob" as printed):
- no_data, a state with no data at all: "-1/-1", "0/0" (ints), "0/0.0", "1/0.0", "K/-1" (NDice),
  "random/-1", "random/0.0" (a random J), "n/a", "nan", "-", "--" (bare cell in a combined table).
- lost, a state where every J with data has estimate 0: "lowest/0.0", "highest/0.0",
  "random/0.0" (among the J with data), "lowest-any/0.0" (J = 1 even without data: argmax over
  J = 1..K of ratios that are 0 without data), "0/0.0" (np.argmax over J = 0..K lands on 0).
- printed_tie, exactly tied best estimates: "lowest", "highest", "random".
- decimals: 2, 3, 4, 6, or None (full repr / numpy's default).
- layouts: "labelled" (two titled grids), "plain" (bare whitespace grids), "csv" (csv.writer, CRLF),
  "tsv" (X\\Y corner, header row), "pylist" (print(table.tolist())), "rows" (print(row) per row),
  "numpy" (print(array), no summarising, rows wrap), "repr" (print(repr(array))), "combined" /
  "centred" (one table of "d:p" cells under a header of column numbers), "twice" (tables printed
  twice, the second copy double-spaced), "prose" (progress and a sentence first).

Bug classes (BUGS; all run by hank with the labelled layout, 4 decimals, -1 where no data):
- pb-factor-misplaced: the (1 - p_B) factor of p_J dropped; Hank's draw normalises the weights,
  so B is drawn with probability p_B / (1 + p_B) instead of p_B.
- xy-swapped: the second player's moves recorded as <opponent, own>.
- last-sampled: prints, per state, the last J drawn there and the p_J it was drawn with.
- raw-wincount: B (learning) and the printed best J by raw WinCount, not by the ratio.
- fj-zero: f_J = 0 instead of 0.5 for an untried J.
- integer-division: f_J = W // (W + L), in learning and in the printed probabilities.
- greedy: M = 0 whatever M is asked (always rolls B, the lowest tied J).
- m-tenth / m-tenfold: M / 10 and 10 M.

Print slips (SLIPS; all run by ivy, labelled layout, 4 decimals, -1 where no data): the learning
is faithful and identical to ivy-labelled's for the same seed; only the printed tables differ.
- printed-by-wins: printed best J = the J with the most WinCount (lowest on ties, among the J
  with data), printed probability = that J's WinCount / (WinCount + LoseCount).
- printed-by-plays: printed best J = the J played most (most WinCount + LoseCount, lowest on
  ties), printed probability = that J's ratio.
- printed-prob-of-most-played: printed best J = the faithful one (best ratio), printed
  probability = the ratio of the J played most (two table loops with different keys).

DEBATABLE: one more student (alice-f-half) whose printed best J is B exactly as in play (an
untried J counts f = 0.5), beside its estimate or -1: an arguable reading, kept out of FAITHFUL.

API (arguments: n_sides, low, high, n_dice, m, games, seed):
- run_student(student, ...) -> the printed text;
- learn_tables(student, ...) -> (best, prob) as the program holds them before printing (what a
  state without data holds there depends on the program: -1 / -1, 0 / 0.0, nan / nan, ...);
- learn_counts(student, ...) -> (WinCount, LoseCount) of the same run;
- action_probabilities(student, win_row, lose_row, m) and counts_after(student, low, n_dice,
  moves, last_player_won): the student's own p_J code and record-a-game code, for the handout's
  worked examples.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Student:
    name: str
    program: str  # module of this package
    tie: str  # B in learning: lowest | highest | random
    printed_tie: str  # best J shown among exactly tied estimates: lowest | highest | random
    no_data: str  # what a state without data prints, "dice/prob" (see the module docstring)
    lost: str  # what a state where every J with data has lost prints
    decimals: int | None  # None: full repr / numpy's default
    layout: str
    bug: str | None = None
    compiled: bool = True  # False: plain Python, small games only
    reading: str = "estimate"  # "f-half": printed best J is B as in play (DEBATABLE only)


def _s(*args, **kwargs) -> Student:
    return Student(*args, **kwargs)


FAITHFUL: dict[str, Student] = {
    s.name: s
    for s in [
        _s("alice-labelled", "alice", "lowest", "lowest", "-1/-1", "lowest/0.0", 4, "labelled"),
        _s("alice-numpy", "alice", "lowest", "lowest", "0/0.0", "0/0.0", None, "numpy"),
        _s("alice-repr", "alice", "lowest", "lowest", "-1/-1", "lowest/0.0", 3, "repr"),
        _s("bob-csv", "bob", "random", "lowest", "0/0", "lowest/0.0", 3, "csv"),
        _s("bob-csv-random", "bob", "random", "random", "random/0.0", "random/0.0", 4, "csv"),
        _s("bob-combined", "bob", "random", "random", "n/a", "random/0.0", 2, "combined"),
        _s("bob-combined-dash", "bob", "random", "lowest", "--", "lowest/0.0", 4, "combined"),
        _s("carol-tsv", "carol", "lowest", "lowest", "1/0.0", "lowest-any/0.0", 6, "tsv"),
        _s("carol-pylist", "carol", "random", "lowest", "nan", "lowest/0.0", None, "pylist"),
        _s("carol-centred", "carol", "random", "random", "-", "random/0.0", 3, "centred"),
        _s("dave-twice", "dave", "highest", "highest", "K/-1", "highest/0.0", 4, "twice"),
        _s("dave-prose", "dave", "highest", "random", "random/-1", "random/0.0", 2, "prose"),
        _s("dave-plain", "dave", "highest", "lowest", "n/a", "lowest/0.0", 6, "plain"),
        _s("erin-rows", "erin", "lowest", "lowest", "-1/-1", "lowest/0.0", 2, "rows",
           compiled=False),
        _s("hank-labelled", "hank", "lowest", "lowest", "-1/-1", "lowest/0.0", 4, "labelled"),
        _s("ivy-labelled", "ivy", "lowest", "lowest", "-1/-1", "lowest/0.0", 4, "labelled"),
    ]
}

BUG_NAMES = [
    "pb-factor-misplaced",
    "xy-swapped",
    "last-sampled",
    "raw-wincount",
    "fj-zero",
    "integer-division",
    "greedy",
    "m-tenth",
    "m-tenfold",
]

BUGS: dict[str, Student] = {
    name: _s(name, "hank", "lowest", "lowest", "-1/-1", "lowest/0.0", 4, "labelled", bug=name)
    for name in BUG_NAMES
}

SLIP_NAMES = ["printed-by-wins", "printed-by-plays", "printed-prob-of-most-played"]

SLIPS: dict[str, Student] = {
    name: _s(name, "ivy", "lowest", "lowest", "-1/-1", "lowest/0.0", 4, "labelled", bug=name)
    for name in SLIP_NAMES
}

# A reading of the handout that is arguable rather than plainly right or wrong: "the correct
# number of dice" taken as B exactly as in play (an untried J counts 0.5), printed beside its
# estimate, -1 when B has no data. Kept apart: use it to see how the grader treats it.
DEBATABLE: dict[str, Student] = {
    "alice-f-half": _s(
        "alice-f-half", "alice", "lowest", "lowest", "1/-1", "untried-B/-1", 4, "labelled",
        reading="f-half",
    ),
}


def program(student: Student):
    return importlib.import_module(f"{__name__}.{student.program}")


def run_student(student: Student, n_sides, low, high, n_dice, m, games, seed) -> str:
    """Run the student's program and return what it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        program(student).run(student, n_sides, low, high, n_dice, m, games, seed)
    return out.getvalue()


def learn_tables(student: Student, n_sides, low, high, n_dice, m, games, seed):
    """(best J, probability) as the program holds them just before printing."""
    best, prob = program(student).run(
        student, n_sides, low, high, n_dice, m, games, seed, output=False
    )
    return np.asarray(best), np.asarray(prob)


def learn_counts(student: Student, n_sides, low, high, n_dice, m, games, seed):
    """(WinCount, LoseCount) as (LTarget, LTarget, NDice+1) int arrays after the same learning
    as run_student / learn_tables with these arguments."""
    win, lose = program(student).learn_counts(
        student, n_sides, low, high, n_dice, m, games, seed
    )
    return np.asarray(win, np.int64), np.asarray(lose, np.int64)


def action_probabilities(student: Student, win_row, lose_row, m) -> np.ndarray:
    """The distribution over J = 0..K (or 1..K for erin: index 0 is 0 everywhere) that the
    student's code draws from, in a state with these WinCount / LoseCount rows (index 0 unused)."""
    mod = program(student)
    if student.program == "hank":
        from .hank import BUG_CODES, M_FACTOR

        m = float(m) * M_FACTOR.get(student.bug, 1.0)
        return np.asarray(mod.probabilities_for(win_row, lose_row, m, BUG_CODES[student.bug]))
    if student.program == "carol":
        return np.asarray(mod.probabilities_for(win_row, lose_row, m, int(student.tie == "random")))
    return np.asarray(mod.probabilities_for(win_row, lose_row, m))


def counts_after(student: Student, low, n_dice, moves, last_player_won):
    """(WinCount, LoseCount) after the student's record-a-game code is fed one finished game:
    moves = [(X, Y, J), ...] in order (X the mover's score), and whether the last mover won."""
    mod = program(student)
    if student.program == "hank":
        from .hank import BUG_CODES

        return mod.counts_after(low, n_dice, moves, last_player_won, BUG_CODES[student.bug])
    return mod.counts_after(low, n_dice, moves, last_player_won)
