"""Runs of any bundled learner (:mod:`dicejack.learners`) as .npz files: saved atomically, read
back checked, resumed exactly.

Members: kind ("dicejack-learner-run"), version, learner (its name), params (JSON of the learner's
parameters), game (JSON of the game's parameters), games, seed, moves (-1 when not counted),
``state__KEY`` for every entry KEY of the learner's state (arrays as they are; ints, floats and
text as 0-d arrays), and snapshot_games (n,), snapshot_best, snapshot_probability and
snapshot_visits (n, L, L): the tables at the checkpoints. The final tables are not stored: they
are recomputed from the state, which the learner's own ``restore`` checks.

:func:`load_learner_run` also reads the handout learner's own run files (`dicejack learn --out`,
:func:`dicejack.formats.tables.load_run_npz`) as a ``handout`` run.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dicejack import DicejackError, one_line
from dicejack.formats import FormatError
from dicejack.formats.atomic import savez_atomic
from dicejack.formats.npz import SMALL_MEMBER_BYTES, NpzMembers, open_npz

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.learners import Run

__all__ = ["LEARNER_RUN_KIND", "LEARNER_RUN_VERSION", "save_learner_run", "load_learner_run"]

LEARNER_RUN_KIND = "dicejack-learner-run"
LEARNER_RUN_VERSION = 1

#: Most checkpoints a run file may hold.
_SNAPSHOT_LIMIT = 100_000
_STATE = "state__"
#: The members of every run file besides the learner's state (``state__<key>``).
_MEMBERS = ("kind", "version", "learner", "params", "game", "games", "seed", "moves",
            "snapshot_games", "snapshot_best", "snapshot_probability", "snapshot_visits")


def save_learner_run(path: str | os.PathLike[str], run: Run) -> None:
    """Write `run` (a :class:`dicejack.learners.Run` of a bundled learner) atomically."""
    from dicejack import learners

    if run.name not in learners.NAMES or run.state is None:
        raise FormatError(
            f"cannot save a run of learner {run.name!r}: only runs of the bundled learners "
            f"({', '.join(learners.NAMES)}) are saved"
        )
    arrays: dict[str, Any] = {}
    for key, value in run.state.items():
        if isinstance(value, np.ndarray):
            arrays[_STATE + key] = value
        elif isinstance(value, (bool, int, float, str)):
            arrays[_STATE + key] = np.array(value)
        else:
            raise FormatError(f"cannot save the learner state's {key}: a {type(value).__name__}")
    shape = run.game.shape
    marks = sorted(run.snapshots)
    best = np.zeros((len(marks), *shape), dtype=np.int64)
    prob = np.zeros((len(marks), *shape))
    visits = np.zeros((len(marks), *shape), dtype=np.int64)
    for i, n in enumerate(marks):
        best[i], prob[i], visits[i] = run.snapshots[n]
    savez_atomic(
        path,
        compressed=run.game.table_bytes < 2**26,
        kind=np.array(LEARNER_RUN_KIND),
        version=np.array(LEARNER_RUN_VERSION),
        learner=np.array(run.name),
        params=np.array(json.dumps(dict(run.params))),
        game=np.array(json.dumps(run.game.params())),
        games=np.array(int(run.games), dtype=np.int64),
        seed=np.array(int(run.seed), dtype=np.int64),
        moves=np.array(-1 if run.moves is None else int(run.moves), dtype=np.int64),
        snapshot_games=np.array(marks, dtype=np.int64),
        snapshot_best=best,
        snapshot_probability=prob,
        snapshot_visits=visits,
        **arrays,
    )


def _read(
    members: NpzMembers, key: str, shapes: tuple[tuple[int, ...] | None, ...], kinds: str
) -> np.ndarray:
    """Member `key` if its declared shape is one of `shapes` (None: a small scalar) and its
    dtype kind one of `kinds`; ValueError naming the member if not."""
    if key not in members.infos:
        raise ValueError(f"missing {key}")
    shape, dtype = members.header(key, kinds)
    small = shape == () and dtype.itemsize <= SMALL_MEMBER_BYTES
    if not any(shape == s if s is not None else small for s in shapes):
        raise ValueError(f"{key} has shape {shape} ({dtype})")
    return members.read(key)


def _scalar(members: NpzMembers, key: str, kinds: str) -> Any:
    return _read(members, key, (None,), kinds).item()


def _json_object(key: str, text: str, depth: int = 1) -> dict[str, Any]:
    """A flat JSON object (size and nesting checked before parsing)."""
    if len(text) > SMALL_MEMBER_BYTES or text.count("{") + text.count("[") > depth:
        raise ValueError(f"{key} is not a small flat JSON object")
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{key} is not a JSON object")
    return value


def load_learner_run(path: str | os.PathLike[str]) -> Run:
    """Read and check a run written by :func:`save_learner_run` (or a handout learner run file
    from `dicejack learn --out`); FormatError (one line) if anything is off. Every member's
    header is checked against the game before its data is read, members other than the learner's
    own (:data:`_MEMBERS` and its STATE_KEYS) are refused unread, and so is a file whose arrays
    would need more memory than a real run may
    (:data:`dicejack.learners.checks.LEARNER_BYTES_LIMIT`); the state is checked by the learner's
    own restore."""
    from dicejack import learners
    from dicejack.formats.tables import RUN_NPZ_KIND, load_run_npz
    from dicejack.game import Game
    from dicejack.learners.checks import check_table_sizes

    path = Path(path)

    def bad(why: str) -> FormatError:
        return FormatError(f"run file {path} is corrupt or not a dicejack learner run: {why}")

    with open_npz(path) as archive:
        members = NpzMembers(archive)
        try:
            kind = _scalar(members, "kind", "U")
        except Exception as exc:
            raise bad(one_line(exc)) from None
    if kind == RUN_NPZ_KIND:
        return _from_learn_run(load_run_npz(path))
    with open_npz(path) as archive:
        members = NpzMembers(archive)
        try:
            if kind != LEARNER_RUN_KIND:
                raise bad(f"kind is {kind!r}")
            version = _scalar(members, "version", "iu")
            if version > LEARNER_RUN_VERSION:
                raise FormatError(
                    f"run file {path} has format version {version}; this dicejack reads up to "
                    f"{LEARNER_RUN_VERSION}"
                )
            name = _scalar(members, "learner", "U")
            if name not in learners.NAMES:
                raise bad(f"unknown learner {name!r} (bundled: {', '.join(learners.NAMES)})")
            game = Game(**_json_object("game", _scalar(members, "game", "U")))
            params = learners.check_learner_params(
                name, _json_object("params", _scalar(members, "params", "U"))
            )
            games, seed, moves = (_scalar(members, k, "iu") for k in ("games", "seed", "moves"))
            if games < 0 or seed < 0 or moves < -1:
                raise bad("negative games, seed or moves")
            keys = getattr(learners.learner_class(name), "STATE_KEYS", None)
            allowed = set(_MEMBERS) | ({_STATE + k for k in keys} if keys is not None else set())
            unknown = sorted(k for k in members.infos if k not in allowed and not (
                keys is None and k.startswith(_STATE)))
            if unknown:
                more = f" and {len(unknown) - 3:,} more" if len(unknown) > 3 else ""
                raise bad(f"unknown members {', '.join(map(repr, unknown[:3]))}{more}")
            (n,), _ = members.header("snapshot_games")
            if n > _SNAPSHOT_LIMIT:
                raise bad(f"{n} snapshots, over the limit of {_SNAPSHOT_LIMIT}")
            marks = _read(members, "snapshot_games", ((n,),), "iu")
            if np.any(marks < 0) or np.any(marks > games) or np.any(np.diff(marks) <= 0):
                raise bad(f"snapshots not at increasing game counts within 0..{games}")
            table = game.table_shape
            states = [k for k in members.infos if k.startswith(_STATE)]
            declared = sum(math.prod(members.header(k)[0]) * 8 for k in states) + (
                3 * n * math.prod(game.shape) * 8)
            check_table_sizes(game, declared, f"the run file's learner {name}",
                              "state and snapshots")
            state = {}
            for key in states:
                value = _read(members, key, (None, table), "iufU")
                state[key[len(_STATE):]] = value.item() if value.shape == () else value
            best = _read(members, "snapshot_best", ((n, *game.shape),), "iu")
            prob = _read(members, "snapshot_probability", ((n, *game.shape),), "f")
            visits = _read(members, "snapshot_visits", ((n, *game.shape),), "iu")
        except FormatError:
            raise
        except KeyError as exc:
            raise bad(f"missing {one_line(exc)}") from None
        except Exception as exc:  # a bad member, JSON, game or parameter
            raise bad(one_line(exc)) from None
    try:
        learner = learners.learner_class(name).restore(game, seed, params, state)
        if learner.played != games or (moves != -1 and learner.moves != moves):
            raise bad(f"its state records {learner.played} games, not {games}")
        snapshots = {}
        for i, g in enumerate(marks.tolist()):
            if not 0 <= g <= games:
                raise bad(f"snapshot at {g} games, beyond the run's {games}")
            snapshots[int(g)] = learners.Tables.checked(game, (best[i], prob[i], visits[i]),
                                                        copy=False)
    except FormatError:
        raise
    except DicejackError as exc:
        raise bad(one_line(exc)) from None
    return learners.Session(learner, snapshots).result()


def _from_learn_run(run: Any) -> Run:
    """A handout learner's LearnRun as a learners.Run (snapshots as tables)."""
    from dicejack import learners
    from dicejack.learners.counting import count_tables

    learner = learners.Handout.from_learn_run(run)
    snapshots = {g: count_tables(w, lo) for g, (w, lo) in run.snapshots.items()}
    return learners.Session(learner, snapshots).result()
