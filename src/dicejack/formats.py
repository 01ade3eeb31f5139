"""File layouts: the only module that knows how tables, solutions and runs look on disk.

Sections: atomic writing; solutions (`dicejack solve`); learner runs (`dicejack learn`, .npz);
submissions (reading whatever a student program printed, for `dicejack grade`).
Every write goes to a temporary file in the target folder and is renamed into place, so an
existing file is never left half-written.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dicejack.game import DicejackError

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.solver import Solution


class FormatError(DicejackError):
    """A file could not be read or written in the expected layout."""


# ------------------------------------------------------------------------------ atomic writes
def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write `data` to `path` via a temporary file in the same folder and a rename."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FormatError(f"cannot write {path}: folder {folder} does not exist")
    payload = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def savez_atomic(path: str | os.PathLike[str], **arrays: Any) -> None:
    """np.savez_compressed to `path`, atomically (the exact name is kept, no '.npz' added)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomic(path, buffer.getvalue())


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
        + format_table(sol.best, "Best number of dice (lowest optimal J) in state <X,Y>:", kind="int")
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
