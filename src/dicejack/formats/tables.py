"""What `dicejack solve` and `dicejack learn` write, and the run files they read back.

The handout's text tables (`format_table`) and the params header line; solutions as text, JSON,
CSV and .npz; learner runs as .npz (saved and loaded exactly, so that a run can be resumed) and
as text, JSON and CSV; any learner's run (:class:`dicejack.learners.Run`, `learn --learner`) as
text, JSON and CSV; game traces in the handout's words (`learn --trace`). Key names and
layouts are those of DESIGN.md "File formats"; sizes.py estimates how large each will be.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dicejack import one_line
from dicejack.formats import FormatError
from dicejack.formats.atomic import savez_atomic
from dicejack.formats.json_output import json_text
from dicejack.formats.npz import SMALL_MEMBER_BYTES, NpzMembers, open_npz

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.learners import Run
    from dicejack.learners.handout.session import LearnRun
    from dicejack.solver import Solution

__all__ = [
    "RUN_NPZ_KIND",
    "RUN_NPZ_VERSION",
    "SOLUTION_NPZ_VERSION",
    "format_table",
    "learn_csv",
    "learn_dict",
    "learn_json",
    "learn_text",
    "load_run_npz",
    "read_params_header",
    "run_csv",
    "run_dict",
    "run_text",
    "save_run_npz",
    "save_solution_npz",
    "solution_csv",
    "solution_dict",
    "solution_json",
    "solution_text",
]


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
    """The line read_params_header reads: 'NSides=6 LTarget=15 UTarget=17 NDice=2'."""
    return (
        f"NSides={params['n_sides']} LTarget={params['low']} "
        f"UTarget={params['high']} NDice={params['n_dice']}"
    )


def read_params_header(text: str) -> dict[str, int] | None:
    """The game named by a 'NSides=6 LTarget=15 UTarget=17 NDice=2' line, as Game kwargs."""
    found = re.search(
        r"NSides=(\d{1,9})\W{0,3}LTarget=(\d{1,9})\W{0,3}UTarget=(\d{1,9})\W{0,3}NDice=(\d{1,9})",
        text[:100_000],
    )
    if found is None:
        return None
    n_sides, low, high, n_dice = map(int, found.groups())
    return {"n_sides": n_sides, "low": low, "high": high, "n_dice": n_dice}


# ------------------------------------------------------------------------------ solutions
def solution_dict(sol: Solution) -> dict[str, Any]:
    """The `solve --format json` object, keys exactly as in DESIGN.md; the tables as numpy
    arrays (json_text and json_chunks write them as nested lists, NaN as null)."""
    return {
        "params": sol.game.params(),
        "win_probability": sol.p,
        "best_dice": sol.best,
        "optimal_dice": sol.optimal_sets(),
        "q": sol.q,
        "gap": sol.gap,
        "p00": sol.p00,
        "p00_exact": None if sol.p00_exact is None else str(sol.p00_exact),
        "method": sol.method,
        "sweeps": sol.sweeps,
    }


def solution_json(sol: Solution) -> str:
    """`solve --format json`."""
    return json_text(solution_dict(sol), compact=True)


def solution_text(sol: Solution) -> str:
    """`solve --format text`: the handout's two arrays (best dice, win probability) and P[0,0]."""
    exact = f" = {sol.p00_exact}" if sol.p00_exact is not None else ""
    method = f"{sol.method}, exact rationals" if sol.exact else sol.method
    if sol.method == "value-iteration":
        method += f": {sol.sweeps} sweeps, the last one changing nothing"
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


# ------------------------------------------------------------------------------ learner runs
# `dicejack learn`: the run file (.npz, resumable) and the printed tables (text, JSON, CSV).
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


#: Deepest JSON nesting of params (1: a flat object) and rng_state (2: PCG64's state object).
_JSON_DEPTH = {"params": 1, "rng_state": 2}
#: Most checkpoints a run file may hold.
_SNAPSHOT_LIMIT = 1_000_000


def _read(members: NpzMembers, key: str, shape: tuple[int, ...] | None, kinds: str) -> np.ndarray:
    """Member `key`, read only if its header declares `shape` (None: any shape of at most
    SMALL_MEMBER_BYTES) and a dtype kind of `kinds`; ValueError if not."""
    declared, dtype = members.header(key, kinds)
    if shape is None:
        if len(declared) > 1 or int(np.prod(declared)) * dtype.itemsize > SMALL_MEMBER_BYTES:
            raise ValueError(f"{key} has shape {declared} ({dtype}), too large")
    elif declared != shape:
        raise ValueError(f"{key} has shape {declared} ({dtype}), not {shape}")
    return members.read(key)


def _small_json(key: str, raw: str) -> Any:
    """json.loads of a small flat field, after checking its size and nesting (no recursion)."""
    if len(raw) > SMALL_MEMBER_BYTES:
        raise ValueError(f"{key} is {len(raw)} characters long")
    depth = deepest = 0
    for char in raw:  # brackets inside strings count too: stricter, never looser
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    if deepest > _JSON_DEPTH[key]:
        raise ValueError(f"{key} is nested {deepest} deep")
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError(f"{key} is not a JSON object")
    return value


def _check_rng_state(state: Any) -> dict[str, Any]:
    """`state` if it has the shape of PCG64's `bit_generator.state`; ValueError if not."""

    def whole(value: Any, bits: int) -> bool:
        return type(value) is int and 0 <= value < 2**bits

    inner = state.get("state")
    if (
        set(state) != {"bit_generator", "state", "has_uint32", "uinteger"}
        or state["bit_generator"] != "PCG64"
        or not isinstance(inner, dict)
        or set(inner) != {"state", "inc"}
        or not (whole(inner["state"], 128) and whole(inner["inc"], 128))
        or not (whole(state["has_uint32"], 1) and whole(state["uinteger"], 32))
    ):
        raise ValueError("rng_state is not a PCG64 generator state")
    return state


#: The members a handout run file may hold (anything else is refused unread).
_RUN_MEMBERS = frozenset({"kind", "version", "params", "m", "games", "moves", "seed", "tie_break",
                          "rng_state", "win", "lose", "snapshot_games", "snapshot_win",
                          "snapshot_lose"})


def _frozen(a: np.ndarray) -> np.ndarray:
    """A count table just read, as int64 and read-only (no copy when it is int64 already)."""
    a = a.astype(np.int64, copy=False)
    a.setflags(write=False)
    return a


def load_run_npz(path: str | os.PathLike[str]) -> LearnRun:
    """Read and check a run written by :func:`save_run_npz`; FormatError if anything is off.

    Hostile files are refused with a one-line FormatError before much is read: every member's
    .npy header (shape, dtype) is checked against the game named in params before its data is
    read, JSON fields are size- and depth-checked before parsing, a folder, FIFO or device is
    never opened.
    """
    from dicejack.game import Game
    from dicejack.learners import checks, formulas, handout

    path = Path(path)

    def bad(why: str) -> FormatError:
        return FormatError(f"run file {path} is corrupt or not a dicejack learner run: {why}")

    with open_npz(path) as archive:
        members = NpzMembers(archive)
        required = ("kind", "version", "params", "m", "games", "seed", "rng_state", "win", "lose")
        missing = [key for key in required if key not in members.infos]
        if missing:
            raise bad(f"missing {', '.join(missing)}")

        def small(key: str, kinds: str, default: Any = None) -> Any:
            if key not in members.infos:
                return default
            value = _read(members, key, None, kinds)
            if value.shape != ():
                raise ValueError(f"{key} has shape {value.shape}, not a single value")
            return value.item()

        try:
            kind = small("kind", "U")
            if kind != RUN_NPZ_KIND:
                raise bad(f"kind is {kind!r}")
            version = small("version", "iu")
            if version > RUN_NPZ_VERSION:
                raise FormatError(
                    f"run file {path} has format version {version}; this dicejack reads up to "
                    f"{RUN_NPZ_VERSION}"
                )
            game = Game(**_small_json("params", small("params", "U")))
            m = formulas.check_m(float(small("m", "iuf")), game.n_dice)
            games, moves, seed = (int(small(k, "iu", 0)) for k in ("games", "moves", "seed"))
            tie_break = small("tie_break", "U", "lowest")
            rng_state = _check_rng_state(_small_json("rng_state", small("rng_state", "U")))
            bitgen = np.random.PCG64()
            bitgen.state = rng_state
            if tie_break not in handout.TIE_BREAKS:
                raise bad(f"unknown tie_break {tie_break!r}")
            if games < 0 or moves < 0 or not 0 <= seed < checks.SEED_LIMIT:
                raise bad("negative games, moves or seed")
            unknown = sorted(k for k in members.infos if k not in _RUN_MEMBERS)
            if unknown:
                more = f" and {len(unknown) - 3:,} more" if len(unknown) > 3 else ""
                raise bad(f"unknown members {', '.join(map(repr, unknown[:3]))}{more}")
            shape = game.table_shape
            if "snapshot_games" in members.infos:
                (n,), _ = members.header("snapshot_games")
                if n > _SNAPSHOT_LIMIT:
                    raise bad(f"{n} snapshots, over the limit of {_SNAPSHOT_LIMIT}")
                snap_games = _read(members, "snapshot_games", (n,), "iu")
                if (np.any(snap_games < 0) or np.any(snap_games > games)
                        or np.any(np.diff(snap_games) <= 0)):
                    raise bad(f"snapshots not at increasing game counts within 0..{games}")
            else:
                n, snap_games = 0, np.zeros(0, dtype=np.int64)
            # the memory a real run with these snapshots holds (win, lose, f cache, snapshots)
            checks.check_table_sizes(game, (3 + 2 * n) * game.table_bytes,
                                      "the run file's learner", "win/lose tables and snapshots")
            win = _frozen(_read(members, "win", shape, "iu"))
            lose = _frozen(_read(members, "lose", shape, "iu"))
            if n:
                snap_win = _frozen(_read(members, "snapshot_win", (n, *shape), "iu"))
                snap_lose = _frozen(_read(members, "snapshot_lose", (n, *shape), "iu"))
            else:
                snap_win = snap_lose = np.zeros((0, *shape), dtype=np.int64)
        except FormatError:
            raise
        except KeyError as exc:
            raise bad(f"missing {one_line(exc)}") from None
        except Exception as exc:  # zlib, zip, header, value and I/O errors of a bad member
            raise bad(one_line(exc)) from None
    limit = np.iinfo(np.int64).max
    for name, table in (("win", win), ("lose", lose), ("snapshot_win", snap_win),
                        ("snapshot_lose", snap_lose)):
        if table.size and (table.min() < 0 or int(table.max()) > limit or table[..., 0].any()):
            raise bad(f"{name} has negative or huge counts or a non-zero column J=0")
    # Every game starts with A at <0,0>, and nobody else is ever there: T(0,0) = games.
    recorded = sum(int(v) for v in win[0, 0]) + sum(int(v) for v in lose[0, 0])
    if recorded != games:
        raise bad(f"tables record {recorded} games, not {games}")
    snapshots = {}
    for i, g in enumerate(snap_games.tolist()):
        if not 0 <= g <= games:
            raise bad(f"snapshot at {g} games, beyond the run's {games}")
        snapshots[int(g)] = (snap_win[i], snap_lose[i])  # read-only views, no copy
    return handout.LearnRun(
        game=game, m=m, games=games, seed=seed, win=win,
        lose=lose, rng_state=bitgen.state, tie_break=tie_break,
        moves=moves,
        snapshots=snapshots,
    )


def learn_dict(run: LearnRun) -> dict[str, Any]:
    """The `learn --format json` object, keys exactly as in DESIGN.md; the tables as numpy
    arrays (json_text and json_chunks write them as nested lists)."""
    best, prob = run.tables
    return {
        "params": run.game.params(),
        "m": run.m,
        "games": run.games,
        "seed": run.seed,
        "best_dice": best,
        "win_probability": prob,
        "win_count": run.win,
        "lose_count": run.lose,
    }


def learn_json(run: LearnRun) -> str:
    """`learn --format json`."""
    return json_text(learn_dict(run), compact=True)


def _learned_tables_text(best: np.ndarray, prob: np.ndarray) -> str:
    """The two labelled LxL arrays every `learn --format text` prints, whatever the learner."""
    return (
        format_table(best, "Best number of dice in state <X,Y> (0 = no data):", kind="int")
        + "\n"
        + format_table(
            prob, "Estimated win probability with that number of dice (-1 = no data):"
        )
    )


def learn_text(run: LearnRun) -> str:
    """`learn --format text`: the handout's two LxL arrays, labelled."""
    best, prob = run.tables
    return (
        f"# learned by self-play: {_params_header(run.game.params())} M={run.m:g}, "
        f"{run.games} games, seed {run.seed}\n"
        + _learned_tables_text(best, prob)
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


# `dicejack learn --learner NAME` (any learner's run, dicejack.learners.Run): text, JSON, CSV.
def _learner_words(run: Run) -> str:
    """The learner and its parameters as typed on the command line: 'ucb c=1.41421'."""
    from dicejack.learners.base import format_value

    return " ".join([run.name, *(f"{k}={format_value(v)}" for k, v in run.params.items())])


def run_text(run: Run) -> str:
    """`learn --learner NAME --format text`: a header naming the learner, its parameters, the
    game (the line :func:`read_params_header` reads), games and seed; the two LxL arrays."""
    best, prob = run.tables
    return (
        f"# learned by self-play with {_learner_words(run)}: "
        f"{_params_header(run.game.params())}, {run.games} games, seed {run.seed}\n"
        + _learned_tables_text(best, prob)
    )


def run_dict(run: Run) -> dict[str, Any]:
    """The `learn --learner NAME --format json` object: params (the game's, as `learn`),
    learner, learner_params (alpha's 1/n as null), label, games, seed, moves (null when the
    learner does not count them), best_dice, win_probability and visits (LxL numpy arrays
    each, written as nested lists)."""
    best, prob = run.tables
    return {
        "params": run.game.params(),
        "learner": run.name,
        "learner_params": dict(run.params),
        "label": run.label,
        "games": run.games,
        "seed": run.seed,
        "moves": run.moves,
        "best_dice": best,
        "win_probability": prob,
        "visits": run.visits,
    }


def run_csv(run: Run) -> str:
    """`learn --learner NAME --format csv`: a '# learner ...' comment line, then one row per
    state: x, y, best_dice, win_probability, visits (moves made from the state)."""
    best, prob = run.tables
    visits = run.visits
    out = io.StringIO()
    out.write(f"# {_learner_words(run)} seed={run.seed} games={run.games}\n")
    out.write("x,y,best_dice,win_probability,visits\n")
    for x in range(run.game.low):
        for y in range(run.game.low):
            out.write(f"{x},{y},{best[x, y]},{float(prob[x, y])!r},{visits[x, y]}\n")
    return out.getvalue()
