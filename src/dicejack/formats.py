"""File layouts: the only module that knows how tables, solutions and runs look on disk.

Sections: atomic writing; solutions (`dicejack solve`); learner runs (`dicejack learn`, .npz);
submissions (reading whatever a student program printed, for `dicejack grade`).
Every write goes to a temporary file in the target folder and is renamed into place, so an
existing file is never left half-written.
"""

from __future__ import annotations

import codecs
import io
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dicejack.game import DicejackError

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.solver import Solution


class FormatError(DicejackError):
    """A file could not be read or written in the expected layout."""


# ------------------------------------------------------------------------------ atomic writes
def _replace_atomically(path: Path, write: Any) -> None:
    """Call write(binary file) on a temporary file beside `path`, then rename it into place."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FormatError(f"cannot write {path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        # mkstemp creates the file 0600; give it the permissions an ordinary open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write `data` to `path` via a temporary file in the same folder and a rename."""
    payload = data.encode() if isinstance(data, str) else data
    _replace_atomically(Path(path), lambda fh: fh.write(payload))


def savez_atomic(
    path: str | os.PathLike[str], *, compressed: bool = True, **arrays: Any
) -> None:
    """np.savez(_compressed) to `path`, atomically (the exact name is kept, no '.npz' added).

    Streams to the temporary file, so a large table is never held twice in memory.
    """
    save = np.savez_compressed if compressed else np.savez
    _replace_atomically(Path(path), lambda fh: save(fh, **arrays))


# ------------------------------------------------------------------------------ text tables
def format_table(
    table: np.ndarray, title: str, *, kind: str = "float", decimals: int = 4
) -> str:
    """One labelled low x low array in the handout's layout: rows X = 0..L-1, columns Y.

    kind 'int' prints integers; 'float' prints fixed decimals, with -1 printed as '-1'.
    """
    table = np.asarray(table)
    low = table.shape[0]
    if kind == "int":
        cells = [[str(int(v)) for v in row] for row in table]
    else:
        cells = [
            ["-1" if v == -1 else f"{v:.{decimals}f}" for v in row] for row in table
        ]
    width = max([len(c) for row in cells for c in row] + [len(str(low - 1))])
    label_width = max(len(str(low - 1)), 3)
    lines = [title]
    header = " " * (label_width + 3) + " ".join(f"{y:>{width}d}" for y in range(low))
    corner = "X\\Y"
    lines.append(f"{corner:>{label_width}} |" + header[label_width + 2 :])
    lines.append("-" * len(lines[-1]))
    for x, row in enumerate(cells):
        lines.append(f"{x:>{label_width}d} | " + " ".join(f"{c:>{width}}" for c in row))
    return "\n".join(lines) + "\n"


def _params_header(params: dict[str, int]) -> str:
    return (
        f"NSides={params['n_sides']} LTarget={params['low']} "
        f"UTarget={params['high']} NDice={params['n_dice']}"
    )


def read_params_header(text: str) -> dict[str, int] | None:
    """The game named by a 'NSides=6 LTarget=15 UTarget=17 NDice=2' line, as Game kwargs."""
    import re

    found = re.search(
        r"NSides=(\d{1,9})\W{0,3}LTarget=(\d{1,9})\W{0,3}UTarget=(\d{1,9})\W{0,3}NDice=(\d{1,9})",
        text[:100_000],
    )
    if found is None:
        return None
    n_sides, low, high, n_dice = map(int, found.groups())
    return {"n_sides": n_sides, "low": low, "high": high, "n_dice": n_dice}


def _json_dumps(obj: Any) -> str:
    return json.dumps(obj, indent=None, separators=(",", ":")) + "\n"


# ------------------------------------------------------------------------------ solutions
def _nested(array: np.ndarray, nan_as_null: bool = False) -> list:
    """Array to nested lists, NaN as None when asked (JSON has no NaN)."""
    if nan_as_null:
        obj = array.astype(object)
        obj[np.isnan(array)] = None
        return obj.tolist()
    return array.tolist()


def solution_dict(sol: Solution) -> dict[str, Any]:
    """The `solve --format json` object, keys exactly as in DESIGN.md."""
    return {
        "params": sol.game.params(),
        "win_probability": sol.p.tolist(),
        "best_dice": sol.best.tolist(),
        "optimal_dice": sol.optimal_sets(),
        "q": sol.q.tolist(),
        "gap": _nested(sol.gap, nan_as_null=True),
        "p00": sol.p00,
        "p00_exact": None if sol.p00_exact is None else str(sol.p00_exact),
        "method": sol.method,
        "sweeps": sol.sweeps,
    }


def solution_json(sol: Solution) -> str:
    """`solve --format json`."""
    return _json_dumps(solution_dict(sol))


def solution_text(sol: Solution) -> str:
    """`solve --format text`: the handout's two arrays (best dice, win probability) and P[0,0]."""
    exact = f" = {sol.p00_exact}" if sol.p00_exact is not None else ""
    method = f"{sol.method}, exact rationals" if sol.exact else sol.method
    return (
        f"# optimal play for {_params_header(sol.game.params())} ({method})\n"
        + format_table(
            sol.best, "Best number of dice (lowest optimal J) in state <X,Y>:", kind="int"
        )
        + "\n"
        + format_table(sol.p, "Win probability with optimal play in state <X,Y>:", decimals=4)
        + f"\nP[0,0] (first player wins under optimal play) = {sol.p00:.12f}{exact}\n"
    )


def solution_csv(sol: Solution) -> str:
    """`solve --format csv`: one row per state, long form."""
    out = io.StringIO()
    k = sol.game.n_dice
    out.write("x,y,best_dice,optimal_dice,win_probability,gap," + ",".join(
        f"q{j}" for j in range(1, k + 1)) + "\n")
    sets = sol.optimal_sets()
    for x in range(sol.game.low):
        for y in range(sol.game.low):
            gap = "" if np.isnan(sol.gap[x, y]) else repr(float(sol.gap[x, y]))
            qs = ",".join(repr(float(v)) for v in sol.q[x, y, 1:])
            opt = ";".join(str(j) for j in sets[x][y])
            out.write(
                f"{x},{y},{sol.best[x, y]},{opt},{float(sol.p[x, y])!r},{gap},{qs}\n"
            )
    return out.getvalue()


SOLUTION_NPZ_VERSION = 1


def save_solution_npz(path: str | os.PathLike[str], sol: Solution) -> None:
    """`solve --format npz`: arrays q, p, best, optimal, gap plus params, atomically."""
    savez_atomic(
        path,
        compressed=sol.game.table_bytes < 2**26,  # compressing gigabytes takes minutes
        kind=np.array("dicejack-solution"),
        version=np.array(SOLUTION_NPZ_VERSION),
        params=np.array(json.dumps(sol.game.params())),
        q=sol.q,
        p=sol.p,
        best=sol.best,
        optimal=sol.optimal,
        gap=sol.gap,
        p00=np.array(sol.p00),
        p00_exact=np.array("" if sol.p00_exact is None else str(sol.p00_exact)),
        method=np.array(sol.method),
        sweeps=np.array(sol.sweeps),
    )


# ---- learner runs
# `dicejack learn`: the run file (.npz, resumable) and the printed tables (text, JSON, CSV).
if TYPE_CHECKING:  # pragma: no cover
    from dicejack.learner import LearnRun, TracedGame

RUN_NPZ_KIND = "dicejack-learn-run"
RUN_NPZ_VERSION = 1


def save_run_npz(path: str | os.PathLike[str], run: LearnRun) -> None:
    """Write a learner run atomically: tables, params, m, games, seed, generator state, version.

    Arrays: kind, version, params (JSON), m, games, moves, seed, tie_break, rng_state (JSON of
    ``bit_generator.state``), win, lose (int64 LxLx(K+1)), and snapshot_games / snapshot_win /
    snapshot_lose (the checkpoints, stacked; empty when none).
    """
    shape = run.game.table_shape
    marks = sorted(run.snapshots)
    snap_win = np.zeros((len(marks), *shape), dtype=np.int64)
    snap_lose = np.zeros((len(marks), *shape), dtype=np.int64)
    for i, n in enumerate(marks):
        snap_win[i], snap_lose[i] = run.snapshots[n]
    savez_atomic(
        path,
        kind=np.array(RUN_NPZ_KIND),
        version=np.array(RUN_NPZ_VERSION),
        params=np.array(json.dumps(run.game.params())),
        m=np.array(float(run.m)),
        games=np.array(int(run.games), dtype=np.int64),
        moves=np.array(int(run.moves), dtype=np.int64),
        seed=np.array(int(run.seed), dtype=np.int64),
        tie_break=np.array(run.tie_break),
        rng_state=np.array(json.dumps(run.rng_state)),
        win=np.asarray(run.win, dtype=np.int64),
        lose=np.asarray(run.lose, dtype=np.int64),
        snapshot_games=np.array(marks, dtype=np.int64),
        snapshot_win=snap_win,
        snapshot_lose=snap_lose,
    )


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def load_run_npz(path: str | os.PathLike[str]) -> LearnRun:
    """Read and check a run written by :func:`save_run_npz`; FormatError if anything is off."""
    from dicejack import learner
    from dicejack.game import Game

    path = Path(path)
    if not path.is_file():
        raise FormatError(f"cannot read run {path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as npz:
            data = {key: npz[key] for key in npz.files}
    except Exception as exc:  # zip, pickle, header and I/O errors all mean "not a run file"
        raise FormatError(
            f"cannot read run {path}: not a valid .npz file ({_one_line(exc)})"
        ) from None

    def bad(why: str) -> FormatError:
        return FormatError(f"run file {path} is corrupt or not a dicejack learner run: {why}")

    required = ("kind", "version", "params", "m", "games", "seed", "rng_state", "win", "lose")
    missing = [key for key in required if key not in data]
    if missing:
        raise bad(f"missing {', '.join(missing)}")
    try:
        if str(data["kind"]) != RUN_NPZ_KIND:
            raise bad(f"kind is {str(data['kind'])!r}")
        version = int(data["version"])
        if version > RUN_NPZ_VERSION:
            raise FormatError(
                f"run file {path} has format version {version}; this dicejack reads up to "
                f"{RUN_NPZ_VERSION}"
            )
        game = Game(**json.loads(str(data["params"])))
        m = learner.check_m(float(data["m"]), game.n_dice)
        games, moves, seed = (int(data.get(k, 0)) for k in ("games", "moves", "seed"))
        tie_break = str(data.get("tie_break", "lowest"))
        rng_state = json.loads(str(data["rng_state"]))
        bitgen = np.random.PCG64()
        bitgen.state = rng_state
        win, lose = data["win"], data["lose"]
        snap_games = data.get("snapshot_games", np.zeros(0, dtype=np.int64))
        snap_win = data.get("snapshot_win", np.zeros((0, *game.table_shape), dtype=np.int64))
        snap_lose = data.get("snapshot_lose", np.zeros((0, *game.table_shape), dtype=np.int64))
    except FormatError:
        raise
    except (DicejackError, ValueError, TypeError, KeyError, OverflowError) as exc:
        raise bad(_one_line(exc)) from None
    if tie_break not in learner.TIE_BREAKS:
        raise bad(f"unknown tie_break {tie_break!r}")
    if games < 0 or moves < 0 or not 0 <= seed < learner.SEED_LIMIT:
        raise bad("negative games, moves or seed")
    for name, table in (("win", win), ("lose", lose)):
        if table.shape != game.table_shape or table.dtype.kind not in "iu":
            raise bad(f"{name} has shape {table.shape} ({table.dtype}), not {game.table_shape}")
        if (table < 0).any() or table[..., 0].any():
            raise bad(f"{name} has negative counts or a non-zero column J=0")
    # Every game starts with A at <0,0>, and nobody else is ever there: T(0,0) = games.
    if int(win[0, 0].sum() + lose[0, 0].sum()) != games:
        raise bad(f"tables record {int(win[0, 0].sum() + lose[0, 0].sum())} games, not {games}")
    n = snap_games.shape[0] if snap_games.ndim == 1 else -1
    if n < 0 or snap_win.shape != (n, *game.table_shape) or snap_lose.shape != snap_win.shape:
        raise bad("snapshot arrays do not match")
    snapshots = {}
    for i, g in enumerate(snap_games.tolist()):
        if not 0 <= g <= games:
            raise bad(f"snapshot at {g} games, beyond the run's {games}")
        snapshots[int(g)] = (learner._frozen(snap_win[i]), learner._frozen(snap_lose[i]))
    return learner.LearnRun(
        game=game, m=m, games=games, seed=seed, win=learner._frozen(win),
        lose=learner._frozen(lose), rng_state=bitgen.state, tie_break=tie_break, moves=moves,
        snapshots=snapshots,
    )


def learn_dict(run: LearnRun) -> dict[str, Any]:
    """The `learn --format json` object, keys exactly as in DESIGN.md."""
    best, prob = run.tables
    return {
        "params": run.game.params(),
        "m": run.m,
        "games": run.games,
        "seed": run.seed,
        "best_dice": best.tolist(),
        "win_probability": prob.tolist(),
        "win_count": run.win.tolist(),
        "lose_count": run.lose.tolist(),
    }


def learn_json(run: LearnRun) -> str:
    """`learn --format json`."""
    return _json_dumps(learn_dict(run))


def learn_text(run: LearnRun) -> str:
    """`learn --format text`: the handout's two LxL arrays, labelled."""
    best, prob = run.tables
    return (
        f"# learned by self-play: {_params_header(run.game.params())} M={run.m:g}, "
        f"{run.games} games, seed {run.seed}\n"
        + format_table(best, "Best number of dice in state <X,Y> (0 = no data):", kind="int")
        + "\n"
        + format_table(
            prob, "Estimated win probability with that number of dice (-1 = no data):"
        )
    )


def learn_csv(run: LearnRun) -> str:
    """`learn --format csv`: one row per state: x, y, best_dice, win_probability, counts."""
    best, prob = run.tables
    k = run.game.n_dice
    out = io.StringIO()
    out.write(
        "x,y,best_dice,win_probability,"
        + ",".join([f"win{j}" for j in range(1, k + 1)] + [f"lose{j}" for j in range(1, k + 1)])
        + "\n"
    )
    for x in range(run.game.low):
        for y in range(run.game.low):
            counts = ",".join(str(int(v)) for v in (*run.win[x, y, 1:], *run.lose[x, y, 1:]))
            out.write(f"{x},{y},{best[x, y]},{float(prob[x, y])!r},{counts}\n")
    return out.getvalue()


def _faces_text(faces: tuple[int, ...]) -> str:
    if len(faces) == 1:
        return f"which comes up {faces[0]}"
    return "which come up " + ", ".join(map(str, faces[:-1])) + f" and {faces[-1]}"


def trace_text(games: list[TracedGame]) -> str:
    """`learn --trace N`: games move by move in the handout's words."""
    lines = []
    for tg in games:
        lines.append(f"Game {tg.number}:")
        for mv in tg.moves:
            dice = "1 die" if mv.dice == 1 else f"{mv.dice} dice"
            line = (
                f"Player {mv.player} rolls {dice}, {_faces_text(mv.faces)}. "
                f"{mv.player} total: {mv.score}."
            )
            if mv is tg.moves[-1]:
                line += f" {mv.player} {'wins' if mv.player == tg.winner else 'loses'}."
            lines.append(line)
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- submissions
# Reading whatever a student program printed after NGAMES games: two LTarget x LTarget arrays, the
# best number of dice per state <X,Y> and the estimated win probability. Submissions are data,
# never code: nothing here evaluates the text, every pass is linear in its size, and every
# failure is a FormatError with a one-line message.
#
# How: each line is tokenised by one regex (numbers, no-data words and lone dashes, `d:p` cells,
# brackets, separators, words). A line with ordinary words is prose (heading, banner, trace,
# prompt); other lines are numeric rows or, with brackets, pieces of a nested list followed across
# lines (numpy wraps long rows). Consecutive rows of one width form runs (a row that reads two
# ways, such as a row of `n/a` in a `d:p` table, is read the way that continues the run); runs
# and bracketed 2-D arrays yield L x L blocks (a run of `x y best prob` lines listing every state
# yields both arrays; a copy double-spaced after a table in the same run is not another block);
# the arrays are the last two blocks that fit by content (or the last combined block: `d:p`
# cells or one line per state), told apart by content, with the heading above each as a
# cross-check.

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


_SUB_NUM_PATTERN = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
#: A dash standing alone (between blanks, separators or quotes; `|-` too, but not `|--|`, a
#: markdown rule): `-`, `--`, en or em dash.
_SUB_DASH_PATTERN = r"(?<![^\s,;|'\"])(?:--?|\u2013|\u2014)(?![^\s,;'\"])"
_SUB_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<ell>\.\.\.+|\u2026)"
    rf"|(?P<dp>{_SUB_NUM_PATTERN}:(?:{_SUB_NUM_PATTERN}|[-+]?nan|none|null|n/a|na|nil)(?![\w/.:]))"
    rf"|(?P<num>{_SUB_NUM_PATTERN}%?)"
    r"|(?P<spec>[-+]?(?:inf(?:inity)?|nan)(?![\w/]))"
    rf"|(?P<dash>{_SUB_DASH_PATTERN})"
    r"|(?P<word>[^\W\d][\w.]*(?:/[\w.]+)*)"
    r"|(?P<open>\[)|(?P<close>\])|(?P<lpar>\()|(?P<rpar>\))"
    r"|(?P<sep>[,;])"
    r"|(?P<lab>[|:=])"
    r"|(?P<other>.)",
    re.IGNORECASE,
)
#: Words that may stand in a numeric line: numpy / torch wrappers and dtypes.
_SUB_NOISE_RE = re.compile(
    r"(?:np\.|numpy\.|torch\.)?(?:array|matrix|tensor|dtype|u?int\d*|float\d*|object|bool_?)",
    re.IGNORECASE,
)
_SUB_ARRAY_WORDS = frozenset({"array", "np.array", "numpy.array", "matrix", "tensor"})
#: Token kinds that are values; a dash is a no-data cell (`-`, `--` where a state has no data).
_SUB_VALUE_KINDS = frozenset({"num", "spec", "dp", "nod", "dash"})
_SUB_NUMERIC_KINDS = _SUB_VALUE_KINDS - {"dash"}
#: Control characters that printed text does not contain (tab, newlines, \f, \v, ESC allowed);
#: bell and backspace (progress bars) are tolerated, but replaced like the others.
_SUB_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_SUB_TOLERATED_CONTROLS = "\x07\x08"
_SUB_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_SUB_PROB_HEADING_RE = re.compile(
    r"prob|chance|likel|odds|percent|win\s*(?:rate|%|pct)|win_rate|winrate", re.IGNORECASE
)
_SUB_POLICY_HEADING_RE = re.compile(
    r"(?<![a-z])(?:play|moves?|actions?|choices?|decisions?)(?![a-z])"
    r"|polic|strateg|(?<![a-z])dice|(?<![a-z])best",
    re.IGNORECASE,
)
_SUB_PROMPT_RE = re.compile(r"\s*(?:enter|input|please|type)\b", re.IGNORECASE)
_SUB_TRACE_RE = re.compile(r"comes? up|rolled|\bwins\b|\bloses\b", re.IGNORECASE)
_SUB_OTHER_SHAPES_KEPT = 8

_SubToken = tuple[str, str]
#: A cell: (value, is_no_data_word) for a plain number; (d, d_no_data, p, p_no_data) for `d:p`.
_SubCell = tuple[Any, ...]
#: One way to read a row: (cells, row label, combined).
_SubReading = tuple[list[_SubCell], int | None, bool]


def _sub_num_value(text: str) -> float:
    """The float a numeric token denotes ('53%' is 0.53); never raises on what the regex matched."""
    if text.endswith("%"):
        return float(text[:-1]) / 100
    return float(text)


def _sub_token_cell(kind: str, text: str) -> _SubCell:
    """The cell of one value token."""
    if kind in ("nod", "dash"):
        return (math.nan, True)
    if kind == "dp":
        d_text, p_text = text.split(":", 1)
        p_kind = "nod" if p_text.lower().lstrip("+-") in SUBMISSION_NO_DATA_WORDS else "num"
        return _sub_token_cell("num", d_text) + _sub_token_cell(p_kind, p_text)
    value = _sub_num_value(text)
    return (value, math.isnan(value))


def _sub_tokenize(line: str) -> list[_SubToken]:
    """Tokens of one line as (kind, text); words become 'nod' (no data), 'noise' or 'word'."""
    tokens: list[_SubToken] = []
    for match in _SUB_TOKEN_RE.finditer(line):
        kind = match.lastgroup or "other"
        if kind == "ws":
            continue
        text = match.group()
        if kind == "word":
            lowered = text.lower().rstrip(".")
            if lowered in SUBMISSION_NO_DATA_WORDS:
                kind = "nod"
            elif _SUB_NOISE_RE.fullmatch(lowered):
                kind = "noise"
        elif kind == "spec" and "nan" in text.lower():
            kind = "nod"
        if kind == "lpar" and tokens and tokens[-1][0] == "word":
            tokens[-1] = ("noise", tokens[-1][1])  # a call such as np.float64( wraps a value
        tokens.append((kind, text))
    return tokens


def _sub_cells(tokens: list[_SubToken]) -> list[_SubCell] | None:
    """Cells of a row's tokens: numbers, `d:p`, `(d, p)`, `d (p)` and wrapped `f(x)` values.

    Separators, wrappers and stray punctuation are skipped. None if a parenthesised group holds
    more than two values or a `d:p` cell (it is then no cell of either array).
    """
    cells: list[_SubCell] = []
    group: list[_SubCell] | None = None
    pair_with_previous = False  # a plain number right before '(' may be the d of `d (p)`
    adjacent = False
    for kind, text in tokens:
        if kind in _SUB_VALUE_KINDS:
            cell = _sub_token_cell(kind, text)
            if group is not None:
                if len(cell) != 2:
                    return None
                group.append(cell)
                continue
            cells.append(cell)
            adjacent = len(cell) == 2
        elif kind == "lpar":
            if group is not None:
                return None
            group, pair_with_previous = [], adjacent
        elif kind == "rpar":
            if group is None:
                continue
            if len(group) == 1 and pair_with_previous and cells and len(cells[-1]) == 2:
                cells[-1] = cells[-1] + group[0]
            elif len(group) == 1:
                cells.append(group[0])
            elif len(group) == 2:
                cells.append(group[0] + group[1])
            elif group:
                return None
            group, adjacent = None, False
        else:
            adjacent = False
    return None if group else cells


def _sub_is_int_text(token: _SubToken) -> bool:
    return token[0] == "num" and token[1].lstrip("+-").isdigit()


def _sub_split_label(tokens: list[_SubToken]) -> tuple[int | None, list[_SubToken]]:
    """An explicit row label `N |`, `N:` or `N =` at the start, and the remaining tokens.

    The separator must not occur again in the row (in `| 3 | 0.1 | 0.2 |` pipes separate cells).
    """
    i = 0
    while i < len(tokens) and tokens[i][0] in ("lab", "sep", "other"):
        i += 1
    if i + 1 < len(tokens) and _sub_is_int_text(tokens[i]) and tokens[i + 1][0] == "lab":
        mark, rest = tokens[i + 1][1], tokens[i + 2 :]
        if all(text != mark for _, text in rest):
            return int(tokens[i][1]), rest
    return None, tokens[i:]


def _sub_is_int_cell(cell: _SubCell) -> bool:
    return len(cell) == 2 and not cell[1] and math.isfinite(cell[0]) and cell[0] == int(cell[0])


def _sub_is_bare(cell: _SubCell) -> bool:
    """A plain cell that may stand alone for a state without data in a table of `d:p` cells:
    a no-data word, nan, a dash or -1."""
    return len(cell) == 2 and (cell[1] or cell[0] == -1)


def _sub_state_cell(cell: _SubCell) -> _SubCell:
    """A cell of a combined table as `d:p`: a bare no-data cell is policy -1, no data."""
    return cell if len(cell) == 4 else (-1.0, False, *cell)


def _sub_row_readings(cells: list[_SubCell], label: int | None) -> list[_SubReading]:
    """The ways to read a row as (cells, label, combined), the likeliest first; [] if none.

    A row of a combined table may mix `d:p` cells and bare no-data cells (`n/a`, `-`, `-1`);
    a row of bare no-data cells alone reads either way (the rows around it decide).
    """
    if not cells:
        return []
    readings: list[_SubReading] = []
    sizes = {len(c) for c in cells}
    if sizes == {4}:
        return [(cells, label, True)]
    if sizes == {2}:
        readings.append((cells, label, False))
        if not all(_sub_is_bare(c) for c in cells[1:]):
            return readings  # the usual row of numbers: no other reading
    first, rest = cells[0], cells[1:]
    if label is None and rest:
        if len(first) == 4 and _sub_is_int_cell(first[:2]) and {len(c) for c in rest} == {2}:
            readings.append(([first[2:], *rest], int(first[0]), False))  # `3:0.5 0.4 ...`
        if _sub_is_int_cell(first) and all(len(c) == 4 or _sub_is_bare(c) for c in rest):
            states = [_sub_state_cell(c) for c in rest]
            readings.append((states, int(first[0]), True))  # `3  2:0.5 n/a 1:0.4 ...`
    if sizes != {4} and all(len(c) == 4 or _sub_is_bare(c) for c in cells):
        readings.append(([_sub_state_cell(c) for c in cells], label, True))  # `2:0.5 n/a ...`
    return readings


def _sub_reading_key(reading: _SubReading) -> tuple[int, bool, bool]:
    """The run key of a reading: (width, labelled, combined)."""
    return len(reading[0]), reading[1] is not None, reading[2]


def _sub_heading_kind(line: str) -> str | None:
    """'policy', 'prob' or None: what a heading line names, judged by its last labelled part.

    Prompts (`Enter NDice:`) and game traces are skipped, so a heading may end a prompt line.
    """
    if _SUB_TRACE_RE.search(line):
        return None
    for segment in reversed(re.split(r"[:=]", line)):
        segment = segment.strip(" \t-*#>[](){}'\"")
        if not segment or _SUB_PROMPT_RE.match(segment) or len(segment.split()) > 12:
            continue
        prob = _SUB_PROB_HEADING_RE.search(segment) or segment.lower() in ("p", "p(win)", "w")
        policy = _SUB_POLICY_HEADING_RE.search(segment) or segment.lower() in ("j", "b")
        if prob and policy and re.search(r"\band\b|&|/|,", segment):
            return None  # `PLAY and PROB`: names both
        if prob or policy:
            return "prob" if prob else "policy"  # `Best move probability` names probabilities
    return None


def _sub_bracket_label(tokens: list[_SubToken], i: int) -> tuple[int, int] | None:
    """`[3] = [` at i: an index used as a row label; (label, index of the second '[')."""
    kinds = [kind for kind, _ in tokens[i : i + 5]]
    if kinds == ["open", "num", "close", "lab", "open"] and _sub_is_int_text(tokens[i + 1]):
        return int(tokens[i + 1][1]), i + 4
    return None


def _sub_column_numbers(cells: list[_SubCell]) -> bool:
    """True for cells 0, 1, 2, ... or 1, 2, 3, ... (at least two): a header of column numbers."""
    values = [c[0] for c in cells]
    return (
        len(values) >= 2
        and values[0] in (0, 1)
        and values == list(range(int(values[0]), int(values[0]) + len(values)))
    )


def _sub_fractional(rows: list[_SubRow], column: int) -> bool:
    """True if a column of rows holds a finite non-integer value."""
    return any(
        not c[1] and math.isfinite(c[0]) and c[0] != int(c[0])
        for c in (r.cells[column] for r in rows)
    )


def _sub_joined(tokens: list[_SubToken]) -> str:
    return " ".join(text for _, text in tokens)


def _sub_percent(tokens: list[_SubToken]) -> bool:
    return any(kind == "num" and text.endswith("%") for kind, text in tokens)


def _sub_style(tokens: list[_SubToken]) -> str:
    """'csv' if a row's cells are separated by commas or semicolons, else 'grid'."""
    return "csv" if any(kind == "sep" for kind, _ in tokens) else "grid"


@dataclass
class _SubRow:
    cells: list[_SubCell]
    label: int | None
    combined: bool
    style: str
    line: int
    para: int
    percent: bool = False
    readings: tuple[_SubReading, ...] = ()  # every way to read the row (see _sub_row_readings)


def _sub_read_as(row: _SubRow, key: tuple[int, bool, bool] | None) -> _SubRow | None:
    """The row read the way that gives it this run key, or None if no way does."""
    for reading in row.readings:
        if _sub_reading_key(reading) == key:
            return replace(row, cells=reading[0], label=reading[1], combined=reading[2])
    return None


@dataclass
class _SubBlock:
    rows: list[list[_SubCell]]
    combined: bool
    layout: str
    heading: str | None
    line: int
    flags: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: The same rows read as a combined table, if they also read so (`2:0.5 n/a n/a` is a
    #: labelled row of probabilities or a row of `d:p` cells); _sub_choose decides.
    alternative: _SubBlock | None = None


class _SubLeaf(list):
    """The innermost list of a bracketed array: a list of cells."""


def _sub_shape(node: Any) -> tuple[int, ...] | None:
    """Shape of a nested list of depth <= 4, or None if ragged."""
    if isinstance(node, _SubLeaf):
        return (len(node),)
    shapes = {_sub_shape(child) for child in node}
    if len(shapes) != 1 or None in shapes:
        return None if node else (0,)
    return (len(node), *shapes.pop())


class _SubArray:
    """A bracketed nested list being read, possibly over several lines (depth kept up to 4)."""

    MAX_DEPTH = 4

    def __init__(self, line: int, label: int | None, array_word: bool) -> None:
        self.line, self.label, self.array_word = line, label, array_word
        self.depth = self.max_depth = 0
        self.frames: list[tuple[list[Any], list[_SubToken]]] = []
        self.result: Any = None
        self.invalid = self.summarised = self.commas = self.percent = False

    def feed(self, tokens: list[_SubToken], i: int) -> int | None:
        """Consume tokens from i; the index after the closing bracket, or None if still open."""
        while i < len(tokens):
            kind, text = tokens[i]
            i += 1
            if kind == "open":
                self.depth += 1
                self.max_depth = max(self.max_depth, self.depth)
                if self.depth > self.MAX_DEPTH:
                    self.invalid = True
                else:
                    self.frames.append(([], []))
            elif kind == "close":
                if self.depth <= self.MAX_DEPTH:
                    self._close_frame()
                self.depth -= 1
                if self.depth == 0:
                    return i
            elif kind == "word":
                self.invalid = True
            else:
                self.summarised |= kind == "ell"
                self.commas |= kind == "sep"
                self.array_word |= kind == "noise" and text.lower() in _SUB_ARRAY_WORDS
                self.percent |= kind == "num" and text.endswith("%")
                if self.depth <= self.MAX_DEPTH:
                    self.frames[-1][1].append((kind, text))
        return None

    def _close_frame(self) -> None:
        children, tokens = self.frames.pop()
        node: Any
        if children:
            if any(kind in _SUB_VALUE_KINDS for kind, _ in tokens):
                self.invalid = True  # values beside nested lists
            node = children
        else:
            cells = _sub_cells(tokens)
            if cells is None:
                self.invalid, cells = True, []
            node = _SubLeaf(cells)
        if self.frames:
            self.frames[-1][0].append(node)
        else:
            self.result = node

    def shape(self) -> tuple[int, ...] | None:
        """Shape of the nested list, or None if ragged or unreadable."""
        if self.invalid or self.result is None:
            return None
        return _sub_shape(self.result)


class _SubScanner:
    """One pass over the lines of a submission, collecting L x L blocks in order."""

    def __init__(self, low: int, n_dice: int) -> None:
        self.low, self.n_dice = low, n_dice
        self.header_rows = (list(range(low)), list(range(1, low + 1)))
        self.run_keep = max(32 * low, low * low + low)  # rows of a run kept (the last ones)
        self.blocks: list[_SubBlock] = []
        self.other_shapes: list[str] = []  # numeric blocks that do not fit, for messages
        self.summarised_line = 0  # last line of a 1-D or 2-D array summarised with '...'
        self.summarised_3d = False  # a 3-D array (a count dump) was summarised
        self.run: list[_SubRow] = []  # rows of the current run, if they may form blocks
        self.run_count = 0  # rows in the current run
        self.blocks_dropped = 0  # old blocks forgotten (only the last few can be the arrays)
        self.run_key: tuple[int, bool, bool] | None = None
        self.run_heading: str | None = None
        self.para = 0
        self.headings: list[str] = []  # prose lines since the last block or run started
        self.struct: _SubArray | None = None

    def finish(self) -> None:
        """End of input: an unterminated bracketed array is dropped; the last run is closed."""
        self._abort_struct()
        self._close_run()

    # ------------------------------------------------------------------------------ lines
    def feed_line(self, number: int, line: str) -> None:
        """Read one line: prose, a numeric row, or pieces of bracketed arrays."""
        tokens = _sub_tokenize(line)
        first_word = next((i for i, (kind, _) in enumerate(tokens) if kind == "word"), None)
        if self.struct is not None:  # an array continued from the lines above
            end = self.struct.feed(tokens[:first_word], 0)
            if end is None:
                if first_word is None:
                    return
                self._abort_struct()  # prose inside brackets: not an array
            else:
                self._finish_struct()
                if end == len(tokens):
                    return
                tokens = tokens[end:]
                first_word = None if first_word is None else first_word - end
        if first_word is None:
            self._numeric(number, tokens)
        else:
            self._prose_line(number, tokens)

    def _prose_line(self, number: int, tokens: list[_SubToken]) -> None:
        """A line with words: headings followed by arrays (`PLAY = [[2 2 1 ...`), a labelled
        row (`Row 3: 0.5 0.4 ...`), or prose (heading, banner, prompt, trace)."""
        pos, arrays = 0, 0
        while True:
            opening = next((i for i in range(pos, len(tokens)) if tokens[i][0] == "open"), None)
            if opening is None:
                break
            segment = tokens[pos:opening]
            words = [i for i, (kind, _) in enumerate(segment) if kind == "word"]
            after = segment[words[-1] + 1 :] if words else segment
            label = None
            if len(after) >= 2 and _sub_is_int_text(after[0]) and after[1][0] == "lab":
                label, after = int(after[0][1]), after[2:]  # `policy 3 = [...]`
            if any(
                kind not in ("lab", "sep", "noise", "lpar", "other", "dash") for kind, _ in after
            ):
                break
            index_label = _sub_bracket_label(tokens, opening)
            if index_label is not None:
                label, opening = index_label
            if words and (label is None or len(words) > 3):  # else `policy[3] = [...]`
                self._prose(_sub_joined(segment))
            array_word = any(text.lower() in _SUB_ARRAY_WORDS for _, text in after)
            self.struct = _SubArray(number, label, array_word)
            end = self.struct.feed(tokens, opening)
            if end is None:
                if self.struct.invalid:  # `Enter M [default 100:` is no array
                    self.struct = None
                    self._prose(None)
                return
            self._finish_struct()
            pos, arrays = end, arrays + 1
        rest = tokens[pos:]
        words = [i for i, (kind, _) in enumerate(rest) if kind == "word"]
        if not words:
            if rest:
                self._numeric(number, rest)
            return
        tail = rest[words[-1] + 1 :]
        if not arrays and len(words) <= 3 and self._labelled_text_row(number, tail):
            return
        values = [
            _sub_token_cell(kind, text)
            for kind, text in tail
            if kind in _SUB_NUMERIC_KINDS
        ]
        if values and not _sub_column_numbers(values):
            self._prose(None)  # a banner such as `NGames = 100,000`: no heading
        else:
            self._prose(_sub_joined(rest[: words[-1] + 1]))  # `PLAY:  0 1 2 ... 14` is a heading

    def _labelled_text_row(self, number: int, tokens: list[_SubToken]) -> bool:
        while tokens and tokens[0][0] in ("lab", "sep"):
            tokens = tokens[1:]
        if len(tokens) < 2 or not _sub_is_int_text(tokens[0]):
            return False
        rest = tokens[2:] if tokens[1][0] == "lab" else tokens[1:]
        if any(kind in ("open", "close", "ell", "other") for kind, _ in rest):
            return False
        cells = _sub_cells(rest)
        row = self._new_row(cells, int(tokens[0][1]), _sub_style(rest), number, _sub_percent(rest))
        if row is None or cells is None:
            return False
        if len(cells) != self.low and _sub_column_numbers([_sub_token_cell(*tokens[0]), *cells]):
            return False  # `X\Y | 0 1 2 ...`: column numbers, not a row
        self._add_row(row)
        return True

    def _new_row(
        self, cells: list[_SubCell] | None, label: int | None, style: str, line: int, percent: bool
    ) -> _SubRow | None:
        """A row of cells read the likeliest way (a combined reading only if L wide), or None."""
        readings = _sub_row_readings(cells, label) if cells else []
        if not readings:
            return None
        pick = readings[0]
        if len(readings) > 1:
            pick = next((r for r in readings if not r[2] or len(r[0]) == self.low), pick)
        return _SubRow(*pick, style, line, self.para, percent, tuple(readings))

    def _prose(self, line: str | None) -> None:
        """A line of prose ends the current run; it may be the heading of the next block."""
        self._close_run()
        if line is not None:
            self.headings = [*self.headings[-2:], line]

    def _numeric(self, number: int, tokens: list[_SubToken]) -> None:
        """A line (or its tail) without prose: a row, or pieces of bracketed arrays."""
        if self.struct is None and not any(kind == "open" for kind, _ in tokens):
            self._plain_row(number, tokens)
            return
        label: int | None = None
        array_word = False
        i = 0
        while i < len(tokens):
            if self.struct is not None:
                end = self.struct.feed(tokens, i)
                if end is None:
                    if self.struct.invalid:
                        self._abort_struct()
                    return
                self._finish_struct()
                i, label, array_word = end, None, False
                continue
            kind, text = tokens[i]
            if kind == "open":
                index_label = _sub_bracket_label(tokens, i)
                if index_label is not None:
                    label, i = index_label  # `[3] = [...]`
                self.struct = _SubArray(number, label, array_word)
                continue
            if _sub_is_int_text(tokens[i]):
                label = int(text)
            elif kind == "noise" and text.lower() in _SUB_ARRAY_WORDS:
                array_word = True
            elif kind not in ("lab", "lpar", "sep", "noise"):
                label = None
            i += 1

    def _plain_row(self, number: int, tokens: list[_SubToken]) -> None:
        kinds = {kind for kind, _ in tokens}
        if kinds.isdisjoint(_SUB_NUMERIC_KINDS) and sum(k == "dash" for k, _ in tokens) < 2:
            self.para += 1  # a blank line or a rule such as ----- or - (does not end a run)
            return
        if "ell" in kinds:
            self.summarised_line = number  # a row summarised by pandas or by hand
        label, rest = _sub_split_label(tokens)
        row = self._new_row(_sub_cells(rest), label, _sub_style(rest), number, _sub_percent(rest))
        if row is None:
            self._prose(None)
            return
        self._add_row(row)

    # ------------------------------------------------------------------------------ runs
    def _add_row(self, row: _SubRow) -> None:
        if (
            row.label is None
            and not row.combined
            and len(row.cells) == self.low > self.n_dice + 1
            and [c[0] for c in row.cells] in self.header_rows
        ):
            self._close_run()  # a header row of column numbers (too large to be dice counts)
            return
        key = (len(row.cells), row.label is not None, row.combined)
        if key != self.run_key and self.run_key is not None:
            row = self._fit_run(row, key)
            key = (len(row.cells), row.label is not None, row.combined)
        if key != self.run_key:
            self._close_run()
            self.run_key, self.run_heading = key, self._take_heading()
        self.run_count += 1
        low, (width, labelled, combined) = self.low, key
        if width in (low, low + 1, 2 * low) or (width >= 4 and not labelled and not combined):
            self.run.append(row)
            if len(self.run) > 2 * self.run_keep:  # memory stays bounded
                drop = len(self.run) - self.run_keep
                del self.run[: drop - drop % low]  # keeps the alignment of blocks

    def _fit_run(self, row: _SubRow, key: tuple[int, bool, bool]) -> _SubRow:
        """A row that would end the current run, read another way if that continues it (or the
        run's rows read another way): a row of a `d:p` table printed all `n/a` reads as plain."""
        fitted = _sub_read_as(row, self.run_key)
        if fitted is not None:
            return fitted
        if len(self.run) == self.run_count:
            run: list[_SubRow] = []
            for old in self.run:
                read = _sub_read_as(old, key)
                if read is None:
                    return row
                run.append(read)
            self.run, self.run_key = run, key
        return row

    def _take_heading(self) -> str | None:
        kinds = [_sub_heading_kind(line) for line in reversed(self.headings)]
        self.headings = []
        return next((kind for kind in kinds if kind), None)

    def _add_block(self, block: _SubBlock) -> None:
        self.blocks.append(block)
        if len(self.blocks) > 24:
            del self.blocks[:16]
            self.blocks_dropped += 16

    def _other_shape(self, text: str) -> None:
        self.other_shapes = [*self.other_shapes[-_SUB_OTHER_SHAPES_KEPT + 1 :], text]

    def _close_run(self) -> None:
        rows, key, heading, count = self.run, self.run_key, self.run_heading, self.run_count
        self.run, self.run_key, self.run_count = [], None, 0
        if key is None:
            return
        found = len(self.blocks) + self.blocks_dropped
        self._run_blocks(rows, key, heading, count)
        if heading and len(self.blocks) + self.blocks_dropped == found:
            # no table (e.g. a header row of column numbers): the heading is the next run's
            self.headings = [*self.headings[-2:], heading]

    def _run_blocks(
        self, rows: list[_SubRow], key: tuple[int, bool, bool], heading: str | None, count: int
    ) -> None:
        """The L x L blocks of a run of rows (and notes of what does not fit)."""
        width, labelled, combined = key
        low = self.low
        if width >= 4 and not labelled and not combined and len(rows) >= low * low:
            block = self._long_block(rows[-low * low :], heading)
            if block is not None:
                self._add_block(block)
                return
        implicit = (
            width == low + 1
            and not labelled
            and not combined
            and all(_sub_is_int_cell(r.cells[0]) for r in rows)
        )
        side_by_side = width == 2 * low and low > 1 and not combined
        if width != low and not implicit and not side_by_side:
            if width > 1 and count > 1:
                self._other_shape(f"{count}x{width}")
            return
        if implicit:  # pandas-like: the first column is the row label
            rows = [replace(r, cells=r.cells[1:], label=int(r.cells[0][0])) for r in rows]
        paragraphs: list[list[_SubRow]] = []
        for row in rows:
            if paragraphs and paragraphs[-1][-1].para == row.para:
                paragraphs[-1].append(row)
            else:
                paragraphs.append([row])
        if not any(len(p) >= low for p in paragraphs):
            paragraphs = [rows]  # rows separated by blank lines
        for paragraph in paragraphs:
            count, extra = divmod(len(paragraph), low)
            if extra and len(paragraph) > 1 and low > 1:
                self._other_shape(f"{extra}x{low}")
            for k in range(count):  # blocks end-aligned: what precedes them is not the arrays
                chunk = paragraph[extra + k * low : extra + (k + 1) * low]
                halves = [chunk]
                if side_by_side:  # `2 2 1   0.53 0.47 0.21`: the two arrays side by side
                    halves = [
                        [replace(r, cells=r.cells[h * low : (h + 1) * low]) for r in chunk]
                        for h in (0, 1)
                    ]
                for half in halves:
                    block = self._run_block(half, labelled or implicit, implicit, combined, heading)
                    if block is not None and labelled and not combined:
                        states = [_sub_read_as(r, (low, False, True)) for r in half]
                        if all(r is not None for r in states):
                            rows_read = [r for r in states if r is not None]
                            other = self._run_block(rows_read, False, False, True, heading)
                            block = replace(block, alternative=other)
                    heading = None
                    if block is None:
                        self._other_shape(f"{low}x{width}")
                    elif side_by_side:
                        self._add_block(replace(block, notes=("arrays printed side by side",)))
                    else:
                        self._add_block(block)

    def _long_block(self, rows: list[_SubRow], heading: str | None) -> _SubBlock | None:
        """`x y best prob ...` per state (dicejack's CSV, per-state prints): a combined block.

        The first two columns must list every state once; the next two are the policy and the
        probability (or the other way round, if only that fits).
        """
        low = self.low
        places = []
        for row in rows:
            x, y = row.cells[0], row.cells[1]
            if not (_sub_is_int_cell(x) and _sub_is_int_cell(y)):
                return None
            if not (0 <= x[0] < low and 0 <= y[0] < low):
                return None
            places.append((int(x[0]), int(y[0])))
        if len(set(places)) != low * low:
            return None
        a, b = (3, 2) if _sub_fractional(rows, 2) and not _sub_fractional(rows, 3) else (2, 3)
        cells: list[list[_SubCell]] = [[()] * low for _ in range(low)]
        for (x, y), row in zip(places, rows, strict=True):
            cells[x][y] = row.cells[a] + row.cells[b]
        return _SubBlock(cells, True, "long", heading, rows[0].line)

    def _run_block(
        self,
        rows: list[_SubRow],
        labelled: bool,
        implicit: bool,
        combined: bool,
        heading: str | None,
    ) -> _SubBlock | None:
        """An L x L block of rows, placed by their labels (0..L-1 or 1..L) if labelled."""
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
                placed: list[list[_SubCell]] = [[] for _ in range(low)]
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
        return _SubBlock(cells, combined, layout, heading, rows[0].line, tuple(flags), tuple(notes))

    # ------------------------------------------------------------------------------ arrays
    def _finish_struct(self) -> None:
        struct, self.struct = self.struct, None
        if struct is None:  # pragma: no cover - callers check
            return
        shape = struct.shape()
        self._note_summarised(struct)
        if shape is None or shape == (0,):
            self._prose(None)
            return
        style = "numpy-repr" if struct.array_word else "list-repr" if struct.commas else "numpy-str"
        root = struct.result
        if len(shape) == 1:  # one row, e.g. print(list_row) per line
            row = self._new_row(list(root), struct.label, style, struct.line, struct.percent)
            if row is None:
                self._prose(None)
            else:
                self._add_row(row)
            return
        self._close_run()
        heading = self._take_heading()
        low = self.low
        if len(shape) == 2 and shape[1] == low and shape[0] % low == 0:
            stacks = [root[k * low : (k + 1) * low] for k in range(shape[0] // low)]
        elif len(shape) == 3 and shape[0] == 2 and shape[1:] == (low, low):
            stacks = list(root)  # print(np.array([policy, prob]))
        else:
            self._other_shape("x".join(map(str, shape)))
            return
        for stack in stacks:
            read = self._stack_rows([list(leaf) for leaf in stack])
            if read is None:
                self._other_shape("x".join(map(str, shape)))
                continue
            rows, combined = read
            layout = "combined" if combined else style
            self._add_block(
                _SubBlock(
                    rows,
                    combined,
                    layout,
                    heading,
                    struct.line,
                    ("prob-percent",) if struct.percent else (),
                )
            )
            heading = None

    def _stack_rows(
        self, leaves: list[list[_SubCell]]
    ) -> tuple[list[list[_SubCell]], bool] | None:
        """The rows of a bracketed L x L array, all plain or all combined; None if neither."""
        options = [
            [r for r in _sub_row_readings(leaf, None) if r[1] is None and len(r[0]) == self.low]
            for leaf in leaves
        ]
        for combined in (False, True):
            picked = [next((r for r in opts if r[2] == combined), None) for opts in options]
            if all(r is not None for r in picked):
                return [r[0] for r in picked if r is not None], combined
        return None

    def _note_summarised(self, struct: _SubArray) -> None:
        if struct.summarised and struct.max_depth >= 3:
            self.summarised_3d = True
        elif struct.summarised:
            self.summarised_line = struct.line

    def _abort_struct(self) -> None:
        struct, self.struct = self.struct, None
        if struct is not None:
            self._close_run()
            self._other_shape("an unterminated bracketed array")
            self._note_summarised(struct)


# ------------------------------------------------------------- submissions: choosing the arrays
def _sub_plain_values(block: _SubBlock) -> list[float]:
    return [c[0] for row in block.rows for c in row if not c[1]]


def _sub_looks_policy(block: _SubBlock, n_dice: int) -> bool:
    """Every value printed is an integer in -1..NDice (no-data words allowed)."""
    return all(
        v == int(v) and -1 <= v <= n_dice for v in _sub_plain_values(block) if math.isfinite(v)
    )


def _sub_looks_prob(block: _SubBlock) -> bool:
    """Every finite value printed is in [0, 1] or the -1 marker."""
    return all(0 <= v <= 1 or v == -1 for v in _sub_plain_values(block))


def _sub_has_fraction(block: _SubBlock) -> bool:
    return any(math.isfinite(v) and v != int(v) for v in _sub_plain_values(block))


def _sub_pair_score(policy: _SubBlock, prob: _SubBlock, n_dice: int) -> int:
    return (
        2 * _sub_looks_policy(policy, n_dice)
        + 2 * _sub_looks_prob(prob)
        + _sub_has_fraction(prob)
        - 2 * _sub_has_fraction(policy)
    )


def _sub_split(block: _SubBlock) -> tuple[_SubBlock, _SubBlock]:
    """The policy and probability parts of a combined block."""
    policy = [[c[:2] for c in row] for row in block.rows]
    prob = [[c[2:] for c in row] for row in block.rows]
    return replace(block, rows=policy, combined=False), replace(block, rows=prob, combined=False)


def _sub_fits(policy: _SubBlock, prob: _SubBlock, n_dice: int) -> bool:
    return _sub_looks_policy(policy, n_dice) and _sub_looks_prob(prob)


def _sub_choose(blocks: list[_SubBlock], n_dice: int) -> tuple[_SubBlock, ...] | None:
    """The arrays: the last combined block or adjacent pair of blocks that fits by content
    (a block that also reads as a combined table: as such if it pairs with none).

    If none fits, the later of the last combined block and the last two plain blocks (flags
    will tell what is wrong with them); None when there is neither.
    """
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.combined:
            if _sub_fits(*_sub_split(block), n_dice):
                return (block,)
        elif i and not blocks[i - 1].combined:
            first = blocks[i - 1]
            if _sub_fits(first, block, n_dice) or _sub_fits(block, first, n_dice):
                return (first, block)
        other = block.alternative
        if other is not None and _sub_fits(*_sub_split(other), n_dice):
            return (other,)
    plain = [b for b in blocks if not b.combined]
    combined = [b for b in blocks if b.combined]
    if len(plain) >= 2 and (not combined or plain[-2].line > combined[-1].line):
        return (plain[-2], plain[-1])
    if combined:
        return (combined[-1],)
    return None


def _sub_order(first: _SubBlock, second: _SubBlock, n_dice: int) -> tuple[_SubBlock, _SubBlock]:
    """(policy, probability) by content; ties by headings, then printed order."""
    forward, backward = (
        _sub_pair_score(first, second, n_dice),
        _sub_pair_score(second, first, n_dice),
    )
    if forward != backward:
        return (first, second) if forward > backward else (second, first)
    if first.heading == "prob" or second.heading == "policy":
        if first.heading != "policy" and second.heading != "prob":
            return second, first
    return first, second


def _sub_describe_found(scanner: _SubScanner) -> str:
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


# ------------------------------------------------------------- submissions: public functions
def _sub_decode(data: bytes) -> str:
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


def _sub_clean_text(text: str) -> str:
    """The text without ANSI colour codes and stray control characters; binary data refused."""
    if "\x1b" in text:
        text = _SUB_ANSI_RE.sub("", text)
    found = sum(1 for _ in _SUB_CONTROL_RE.finditer(text))
    bad = found - sum(text.count(c) for c in _SUB_TOLERATED_CONTROLS)
    if found:
        if bad * 100 > len(text):
            raise FormatError(
                f"submission looks like binary data ({bad} control characters in "
                f"{len(text)}), not printed text"
            )
        text = _SUB_CONTROL_RE.sub(" ", text)
    return text


def _sub_check_params(low: int, n_dice: int) -> None:
    for name, value in (("low", low), ("n_dice", n_dice)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise FormatError(f"{name} must be an integer >= 1, got {value!r}")


def read_submission_text(text: str | bytes, low: int, n_dice: int) -> Submission:
    """Read the two L x L arrays (L = low) from a submission's text (or undecoded bytes).

    See the `submissions` section notes and Submission for what is read and how. Raises
    FormatError (one line) for empty, binary or over-10-MiB input, a summarised ('...') array,
    or fewer than two L x L arrays.
    """
    _sub_check_params(low, n_dice)
    if len(text) > SUBMISSION_SIZE_LIMIT:
        raise FormatError(
            f"submission is {len(text) / 2**20:.1f} MiB, over the "
            f"{SUBMISSION_SIZE_LIMIT // 2**20} MiB limit"
        )
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = _sub_decode(bytes(text))
    if not text.strip():
        raise FormatError("submission is empty")
    text = _sub_clean_text(text)
    scanner = _SubScanner(int(low), int(n_dice))
    for number, line in enumerate(text.splitlines(), start=1):
        scanner.feed_line(number, line)
    scanner.finish()

    chosen = _sub_choose(scanner.blocks, n_dice)
    summarised = scanner.summarised_line
    if chosen is None or (summarised and summarised >= chosen[0].line):
        if summarised:
            raise FormatError(
                "array is summarised with '...' (incomplete); print with "
                "numpy.set_printoptions(threshold=sys.maxsize)"
            )
        raise FormatError(f"found {_sub_describe_found(scanner)}, need 2 arrays of {low}x{low}")
    return _sub_build(scanner, chosen, n_dice)


def read_submission(path: str | os.PathLike[str], low: int, n_dice: int) -> Submission:
    """Read a submission file (at most 10 MiB; never written to); see read_submission_text."""
    path = Path(path)
    try:
        size = path.stat().st_size  # a missing file raises here, with the system's reason
        if not path.is_file():
            raise FormatError(f"cannot read submission {path}: not a regular file")
        if size > SUBMISSION_SIZE_LIMIT:
            raise FormatError(
                f"submission {path.name} is {size / 2**20:.1f} MiB, over the "
                f"{SUBMISSION_SIZE_LIMIT // 2**20} MiB limit"
            )
        with open(path, "rb") as fh:
            data = fh.read(SUBMISSION_SIZE_LIMIT + 1)
    except OSError as exc:
        raise FormatError(f"cannot read submission {path}: {exc.strerror or exc}") from None
    return read_submission_text(data, low, n_dice)


def _sub_build(scanner: _SubScanner, chosen: tuple[_SubBlock, ...], n_dice: int) -> Submission:
    """Build the Submission from the chosen block(s), with flags and notes."""
    flags: list[str] = []
    notes: list[str] = []
    if len(chosen) == 1:
        block = chosen[0]
        policy_cells, prob_cells = (part.rows for part in _sub_split(block))
        layout = block.layout
        flags.extend(block.flags)
        notes.extend(block.notes)
    else:
        policy_block, prob_block = _sub_order(chosen[0], chosen[1], n_dice)
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
    values = np.array([[c[0] for c in row] for row in policy_cells], dtype=np.float64)
    markers = np.array([[c[1] for c in row] for row in policy_cells], dtype=bool)
    finite = np.isfinite(values) & ~markers
    rounded = np.where(finite, np.rint(np.where(finite, values, 0)), -1)
    if np.any(finite & (rounded != values)):
        flags.append("policy-not-integer")
    if np.any(~markers & (~finite | (rounded < -1) | (rounded > n_dice))):
        flags.append("policy-out-of-range")
    if markers.any():
        notes.append(f"{int(markers.sum())} policy cells printed as no-data words, read as -1")
    policy = np.clip(rounded, -(2**62), 2**62).astype(np.int64)

    prob = np.array([[c[0] for c in row] for row in prob_cells], dtype=np.float64)
    words = np.array([[c[1] for c in row] for row in prob_cells], dtype=bool)
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
