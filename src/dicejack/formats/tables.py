"""What `dicejack solve` and `dicejack learn` write, and the run files they read back.

The handout's text tables (`format_table`) and the params header line; solutions as text, JSON,
CSV and .npz; any learner's run (:class:`dicejack.learners.Run`) as text, JSON and CSV, the
handout's learner in its own layout (:func:`run_text` picks it). Run files are
:mod:`dicejack.formats.learner_runs`'. Key names and
layouts are those of docs/design/formats.md; sizes.py estimates how large each will be.
"""

from __future__ import annotations

import io
import json
import os
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from dicejack.formats.atomic import savez_atomic
from dicejack.formats.json_output import json_text

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.learners import Run
    from dicejack.learners.handout import HandoutRun
    from dicejack.solver import Solution

__all__ = [
    "SOLUTION_NPZ_VERSION",
    "format_table",
    "learn_csv",
    "learn_dict",
    "learn_json",
    "learn_text",
    "read_params_header",
    "run_csv",
    "run_dict",
    "run_text",
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
    """The `solve --format json` object, keys exactly as in docs/design/formats.md; the tables
    as numpy arrays (json_text and json_chunks write them as nested lists, NaN as null)."""
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
# `dicejack learn`: the printed tables of any learner's run (text, JSON, CSV); the handout's
# learner prints its own layout (its counts, M), the others a header naming the learner. The run
# file is formats.learner_runs'.


def learn_dict(run: HandoutRun) -> dict[str, Any]:
    """The `learn --format json` object, keys exactly as in docs/design/formats.md; the tables
    as numpy arrays (json_text and json_chunks write them as nested lists)."""
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


def learn_json(run: HandoutRun) -> str:
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


def learn_text(run: HandoutRun) -> str:
    """`learn --format text`: the handout's two LxL arrays, labelled."""
    best, prob = run.tables
    return (
        f"# learned by self-play: {_params_header(run.game.params())} M={run.m:g}, "
        f"{run.games} games, seed {run.seed}\n"
        + _learned_tables_text(best, prob)
    )


def learn_csv(run: HandoutRun) -> str:
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


def _is_handout(run: Run) -> bool:
    """True for a run of the handout's learner, which prints its own layout (learn_*)."""
    return run.name == "handout" and hasattr(run, "win") and hasattr(run, "m")


def run_text(run: Run) -> str:
    """`learn --format text`: a header naming the learner, its parameters, the game (the line
    :func:`read_params_header` reads), games and seed; the two LxL arrays. The handout's
    learner's run: :func:`learn_text`."""
    if _is_handout(run):
        return learn_text(run)  # type: ignore[arg-type]
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
    each, written as nested lists). The handout's learner's run: :func:`learn_dict`."""
    if _is_handout(run):
        return learn_dict(run)  # type: ignore[arg-type]
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
    state: x, y, best_dice, win_probability, visits (moves made from the state). The handout's
    learner's run: :func:`learn_csv`."""
    if _is_handout(run):
        return learn_csv(run)  # type: ignore[arg-type]
    best, prob = run.tables
    visits = run.visits
    out = io.StringIO()
    out.write(f"# {_learner_words(run)} seed={run.seed} games={run.games}\n")
    out.write("x,y,best_dice,win_probability,visits\n")
    for x in range(run.game.low):
        for y in range(run.game.low):
            out.write(f"{x},{y},{best[x, y]},{float(prob[x, y])!r},{visits[x, y]}\n")
    return out.getvalue()
