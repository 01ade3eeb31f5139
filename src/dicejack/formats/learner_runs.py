"""Runs of any bundled learner of any game (:mod:`dicejack.learners`) as .npz files: saved
atomically, read back checked, resumed exactly: :func:`save_learner_run` and
:func:`load_learner_run`, the one writer and reader (``dicejack learn --out/--resume``, with or
without --game; ``dicejack compare``). Two layouts, told apart by their kind:

The handout's game's runs (:data:`LEARNER_RUN_KIND`). Members: kind ("dicejack-learner-run"),
version, learner (its name), params (JSON of the learner's parameters), game (JSON of the game's
parameters), games, seed, moves (-1 when not counted), ``state__KEY`` for every entry KEY of the
learner's state (arrays as they are; ints, floats and text as 0-d arrays), and snapshot_games
(n,), snapshot_best, snapshot_probability and snapshot_visits (n, L, L): the tables at the
checkpoints. The final tables are not stored: they are recomputed from the state, which the
learner's own ``restore`` checks.

:func:`load_learner_run` also reads the handout learner's old run files (:data:`LEGACY_RUN_KIND`)
as a ``handout`` run.

Runs of any other protocol game, and of a game with hidden information (CFR's,
:mod:`dicejack.learners.cfr`) (:data:`GAME_RUN_KIND`). Members: kind ("dicejack-game-run"),
version, learner (its name), params (JSON of its parameters, 1/n as null), game (the ``--game``
name or ``FILE.py:Class`` it was learned on), game_params (JSON list of ``KEY=VALUE`` texts, as
``--game-param`` reads them), game_label (e.g. ``pig goal=40 die=6``), games, seed, moves, and
``state__KEY`` for every entry of the learner's state (q, n, visits, lose: arrays over the
enumerated game's rows or states; CFR's regret, cumulative and current: arrays over the action
slots of the game's information sets; games, moves, rng_state as 0-d arrays). The tables are
recomputed from the state; checkpoints are not kept. Every member's declared shape is checked
against the enumerated game (its tree of plays, for hidden information) before its data is
read, and the learner must be one that plays the game. A run of a user's game (``FILE.py:Class``)
is read only with that game given (the file never makes dicejack import code).

Either layout: members it does not name are refused unread.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from dicejack.formats import FormatError
from dicejack.formats.atomic import savez_atomic
from dicejack.formats.npz import SMALL_MEMBER_BYTES, NpzMembers, open_npz
from dicejack.games.handout_rules import Game
from dicejack.runtime.messages import DicejackError, one_line
from dicejack.runtime.user_code import is_spec

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.learners.base import LearnedRun, Run
    from dicejack.learners.game_learners import GameRun

__all__ = ["LEARNER_RUN_KIND", "LEARNER_RUN_VERSION", "LEGACY_RUN_KIND", "LEGACY_RUN_VERSION",
           "GAME_RUN_KIND", "GAME_RUN_VERSION",
           "save_learner_run", "load_learner_run", "run_kind", "save_run_npz", "load_run_npz"]

LEARNER_RUN_KIND = "dicejack-learner-run"
LEARNER_RUN_VERSION = 1
#: The old layout of the handout learner's runs, still read (converted on load), never written.
LEGACY_RUN_KIND = "dicejack-learn-run"
LEGACY_RUN_VERSION = 1
#: The layout of the runs of protocol games other than the handout's.
GAME_RUN_KIND = "dicejack-game-run"
GAME_RUN_VERSION = 1

#: Most checkpoints a run file may hold (the old layout allowed more; each costs two count
#: tables there, so its memory check bounds them first).
_SNAPSHOT_LIMIT = 100_000
_LEGACY_SNAPSHOT_LIMIT = 1_000_000
_STATE = "state__"
T = TypeVar("T")
#: The members of every run file besides the learner's state (``state__<key>``).
_MEMBERS = ("kind", "version", "learner", "params", "game", "games", "seed", "moves",
            "snapshot_games", "snapshot_best", "snapshot_probability", "snapshot_visits")


def save_learner_run(path: str | os.PathLike[str], run: LearnedRun,
                     game_spec: str | None = None,
                     game_params: dict[str, Any] | None = None) -> None:
    """Write `run` (of a bundled learner, of any game) atomically. For a run of a protocol game
    other than the handout's, `game_spec` is how ``--game`` names its game (default: the bundled
    game of that name, when the run's game is one) and `game_params` its parameters (default:
    the game's own, :func:`dicejack.games.protocol.game_params`)."""
    from dicejack import learners

    if not isinstance(run, learners.Run):
        _save_game_run(path, run, game_spec, game_params)
        return
    if game_spec is not None or game_params is not None:
        raise FormatError("a run of the handout's game saves its game itself: give no "
                          "game_spec or game_params")
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
    """A small JSON object nested at most `depth` deep (size and brackets checked before
    parsing: brackets inside strings count too, stricter, never looser)."""
    if len(text) > SMALL_MEMBER_BYTES or text.count("{") + text.count("[") > depth:
        shape = "flat" if depth == 1 else f"nested at most {depth} deep"
        raise ValueError(f"{key} is not a small {shape} JSON object")
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{key} is not a JSON object")
    return value


@dataclass(frozen=True)
class _Parts:
    """What a run file holds, read and checked member by member, before the learner checks its
    state: the learner's name, game, parameters, counts, state and the snapshots' tables."""

    name: str
    game: Game
    params: dict[str, Any]
    games: int
    seed: int
    moves: int
    state: dict[str, Any]
    marks: np.ndarray
    snapshots: tuple[np.ndarray, np.ndarray, np.ndarray]  # best, probability, visits (n, L, L)


class _Bad(Exception):
    """A reason a file is not a run (becomes the one-line FormatError)."""


def load_learner_run(path: str | os.PathLike[str], game: Any = None) -> LearnedRun:
    """Read and check a run written by :func:`save_learner_run` (or a handout run of the old
    layout, :data:`LEGACY_RUN_KIND`, converted); FormatError (one line) if anything is off. Every
    member's header is checked against the game before its data is read, members the layout does
    not name (for a learner run, besides the fixed ones, its STATE_KEYS) are refused unread, and
    so is a file whose arrays would need more memory than a real run may
    (:data:`dicejack.learners.checks.LEARNER_BYTES_LIMIT`); the state is checked by the learner's
    own restore.

    `game`: the game to read the run against (None: the file's own; a run of a user's game,
    ``FILE.py:Class``, needs it); a run of another game is refused."""
    path = Path(path)
    with open_npz(path) as archive:
        members = NpzMembers(archive)
        kind = _guarded(path, lambda: _scalar(members, "kind", "U"))
        if kind == GAME_RUN_KIND:
            return _load_game_run(path, members, game)
        parts = _guarded(path, lambda: _read_parts(path, members))
    if game is not None:
        _check_handout_game(path, parts.game, game)
    return _guarded(path, lambda: _rebuild(parts), DicejackError)


def _check_handout_game(path: Path, has: Game, game: Any) -> None:
    """FormatError unless `game` is the handout's game `has` (given either way)."""
    from dicejack.games.protocol import game_label
    from dicejack.learners.catalogue import handout_rules, is_handout_game

    if not is_handout_game(game) or handout_rules(game) != has:
        raise FormatError(f"run file {path} is a run of the handout's game {has}, not of "
                          f"{game_label(game)}")


def run_kind(path: str | os.PathLike[str]) -> str | None:
    """The kind of run file `path` holds (:data:`LEARNER_RUN_KIND`, :data:`GAME_RUN_KIND`, ...),
    read alone; None when it cannot be read (:func:`load_learner_run` then says why)."""
    try:
        with open_npz(Path(path)) as archive:
            return str(_scalar(NpzMembers(archive), "kind", "U"))
    except Exception:  # any failure: the loader reports it in full
        return None


#: The old names of the one writer and reader (kept: many callers use them).
save_run_npz = save_learner_run
load_run_npz = load_learner_run


def _guarded(path: Path, read: Callable[[], T],
             failures: type[Exception] | tuple[type[Exception], ...] = Exception) -> T:
    """read(), its `failures` (and _Bad) as the one-line FormatError naming `path`: while
    reading members, any exception (zlib, zip, header, value, JSON, game and learner errors);
    while the learner checks its state, its own errors (DicejackError) only."""
    try:
        return read()
    except FormatError:
        raise
    except _Bad as exc:
        raise _bad(path, str(exc)) from None
    except KeyError as exc:
        raise _bad(path, f"missing {one_line(exc)}") from None
    except failures as exc:
        raise _bad(path, one_line(exc)) from None


def _bad(path: Path, why: str) -> FormatError:
    return FormatError(f"run file {path} is corrupt or not a dicejack learner run: {why}")


def _read_parts(path: Path, members: NpzMembers) -> _Parts:
    """The members of either layout, checked (kind and version first)."""
    kind = _scalar(members, "kind", "U")
    if kind not in (LEARNER_RUN_KIND, LEGACY_RUN_KIND):
        raise _Bad(f"kind is {kind!r}")
    newest = LEARNER_RUN_VERSION if kind == LEARNER_RUN_KIND else LEGACY_RUN_VERSION
    version = _scalar(members, "version", "iu")
    if version > newest:
        raise FormatError(f"run file {path} has format version {version}; this dicejack reads "
                          f"up to {newest}")
    return _read_current(members) if kind == LEARNER_RUN_KIND else _read_legacy(members)


def _refuse_unknown(members: NpzMembers, allowed: Callable[[str], bool]) -> None:
    """_Bad listing (the first three of) the members not allowed(key)."""
    unknown = sorted(k for k in members.infos if not allowed(k))
    if unknown:
        more = f" and {len(unknown) - 3:,} more" if len(unknown) > 3 else ""
        raise _Bad(f"unknown members {', '.join(map(repr, unknown[:3]))}{more}")


def _snapshot_marks(members: NpzMembers, games: int, limit: int) -> np.ndarray:
    """snapshot_games (n,): at most `limit`, increasing, within 0..games (empty when absent)."""
    if "snapshot_games" not in members.infos:
        return np.zeros(0, dtype=np.int64)
    (n,), _ = members.header("snapshot_games")
    if n > limit:
        raise _Bad(f"{n} snapshots, over the limit of {limit}")
    marks = _read(members, "snapshot_games", ((n,),), "iu")
    if np.any(marks < 0) or np.any(marks > games) or np.any(np.diff(marks) <= 0):
        raise _Bad(f"snapshots not at increasing game counts within 0..{games}")
    return marks


def _read_current(members: NpzMembers) -> _Parts:
    """A learner run file (:data:`LEARNER_RUN_KIND`)."""
    from dicejack import learners
    from dicejack.learners.catalogue import check_learner_params, learner_class
    from dicejack.learners.checks import check_table_sizes

    name = _scalar(members, "learner", "U")
    if name not in learners.NAMES:
        raise _Bad(f"unknown learner {name!r} (bundled: {', '.join(learners.NAMES)})")
    game = Game(**_json_object("game", _scalar(members, "game", "U")))
    params = check_learner_params(
        name, _json_object("params", _scalar(members, "params", "U")))
    games, seed, moves = (_scalar(members, k, "iu") for k in ("games", "seed", "moves"))
    if games < 0 or seed < 0 or moves < -1:
        raise _Bad("negative games, seed or moves")
    keys = getattr(learner_class(name), "STATE_KEYS", None)
    allowed = set(_MEMBERS) | ({_STATE + k for k in keys} if keys is not None else set())
    _refuse_unknown(members, lambda k: k in allowed or (keys is None and k.startswith(_STATE)))
    if "snapshot_games" not in members.infos:
        raise _Bad("missing snapshot_games")
    marks = _snapshot_marks(members, games, _SNAPSHOT_LIMIT)
    n = len(marks)
    states = [k for k in members.infos if k.startswith(_STATE)]
    declared = sum(math.prod(members.header(k)[0]) * 8 for k in states) + (
        3 * n * math.prod(game.shape) * 8)
    check_table_sizes(game, declared, f"the run file's learner {name}", "state and snapshots")
    state = {}
    for key in states:
        value = _read(members, key, (None, game.table_shape), "iufU")
        state[key[len(_STATE):]] = value.item() if value.shape == () else value
    shape = (n, *game.shape)
    tables = (_read(members, "snapshot_best", (shape,), "iu"),
              _read(members, "snapshot_probability", (shape,), "f"),
              _read(members, "snapshot_visits", (shape,), "iu"))
    return _Parts(name, game, params, games, seed, moves, state, marks, tables)


#: The members of the old layout (anything else is refused unread).
_LEGACY_MEMBERS = frozenset({"kind", "version", "params", "m", "games", "moves", "seed",
                             "tie_break", "rng_state", "win", "lose", "snapshot_games",
                             "snapshot_win", "snapshot_lose"})
_LEGACY_REQUIRED = ("kind", "version", "params", "m", "games", "seed", "rng_state", "win", "lose")


def _read_legacy(members: NpzMembers) -> _Parts:
    """A handout run of the old layout (:data:`LEGACY_RUN_KIND`), converted: m and tie_break
    become the learner's params, the counts and generator its state, the count snapshots
    tables."""
    from dicejack.learners.catalogue import check_learner_params
    from dicejack.learners.checks import check_table_sizes
    from dicejack.learners.counting import count_tables

    missing = [key for key in _LEGACY_REQUIRED if key not in members.infos]
    if missing:
        raise _Bad(f"missing {', '.join(missing)}")
    game = Game(**_json_object("params", _scalar(members, "params", "U")))
    tie_break = _scalar(members, "tie_break", "U") if "tie_break" in members.infos else "lowest"
    params = check_learner_params(
        "handout", {"m": float(_scalar(members, "m", "iuf")), "tie_break": tie_break})
    games, seed = _scalar(members, "games", "iu"), _scalar(members, "seed", "iu")
    if games < 0 or seed < 0:
        raise _Bad("negative games or seed")
    rng_state = _json_object("rng_state", _scalar(members, "rng_state", "U"), depth=2)
    _refuse_unknown(members, lambda k: k in _LEGACY_MEMBERS)
    marks = _snapshot_marks(members, games, _LEGACY_SNAPSHOT_LIMIT)
    n = len(marks)
    # the memory a real run with these snapshots held (win, lose, f cache, count snapshots)
    check_table_sizes(game, (3 + 2 * n) * game.table_bytes, "the run file's learner",
                      "win/lose tables and snapshots")
    win, lose = (_int64_counts(_read(members, key, (game.table_shape,), "iu"), key)
                 for key in ("win", "lose"))
    moves = (_scalar(members, "moves", "iu") if "moves" in members.infos
             else int(win.sum() + lose.sum()))
    snap_win, snap_lose = (_legacy_counts(members, key, (n, *game.table_shape))
                           for key in ("snapshot_win", "snapshot_lose"))
    tables = [count_tables(snap_win[i], snap_lose[i]) for i in range(n)]
    stacked = tuple(np.array([getattr(t, k) for t in tables]).reshape(n, *game.shape)
                    for k in ("best", "probability", "visits"))
    state = {"win": win, "lose": lose, "games": games, "moves": moves,
             "rng_state": json.dumps(rng_state)}
    return _Parts("handout", game, params, games, seed, moves, state, marks, stacked)


def _int64_counts(table: np.ndarray, key: str) -> np.ndarray:
    """`table` as int64, refused when an unsigned count does not fit (it would wrap negative)."""
    if table.dtype.kind == "u" and table.size and table.max() > np.iinfo(np.int64).max:
        raise _Bad(f"{key} has counts over 2**63 - 1")
    return table.astype(np.int64, copy=False)


def _legacy_counts(members: NpzMembers, key: str, shape: tuple[int, ...]) -> np.ndarray:
    """Count snapshots `key` of the old layout ((n, L, L, K+1), empty when n = 0): >= 0, column
    J = 0 zero."""
    if not shape[0]:
        return np.zeros(shape, dtype=np.int64)
    table = _read(members, key, (shape,), "iu")
    if table.min() < 0 or table[..., 0].any() or (
            table.dtype.kind == "u" and table.max() > np.iinfo(np.int64).max):
        raise _Bad(f"{key} has negative counts, counts over 2**63 - 1 or a non-zero column J=0")
    return table.astype(np.int64, copy=False)


def _rebuild(parts: _Parts) -> Run:
    """The run the parts describe: the learner restored from its state (which checks it), its
    games and moves as recorded, the snapshots as checked tables (read-only, no copy)."""
    from dicejack import learners
    from dicejack.learners.catalogue import learner_class

    learner = learner_class(parts.name).restore(parts.game, parts.seed, parts.params, parts.state)
    if learner.played != parts.games or (parts.moves != -1 and learner.moves != parts.moves):
        raise _Bad(f"its state records {learner.played} games, not {parts.games}")
    best, prob, visits = parts.snapshots
    snapshots = {
        int(g): learners.Tables.checked(parts.game, (best[i], prob[i], visits[i]), copy=False)
        for i, g in enumerate(parts.marks.tolist())
    }
    return learners.Session(learner, snapshots).result()


# --------------------------------------------------------------- runs of other protocol games
def _save_game_run(path: str | os.PathLike[str], run: GameRun, game_spec: str | None,
                   game_params: dict[str, Any] | None) -> None:
    """`run` of a protocol game other than the handout's in the :data:`GAME_RUN_KIND` layout."""
    from dicejack.games.protocol import game_label
    from dicejack.games.protocol import game_params as params_of
    from dicejack.games.registry import GAMES, INFORMATION_GAMES

    if run.name not in _saved_learners() or run.state is None:
        raise FormatError(f"cannot save a run of learner {run.name!r}: only runs of "
                          f"{', '.join(_saved_learners())} are saved")
    if game_spec is None:
        name = str(getattr(run.game, "name", ""))
        if {**GAMES, **INFORMATION_GAMES}.get(name) is not type(run.game):
            raise FormatError(f"cannot save a run of {game_label(run.game)}: give game_spec, "
                              "the --game that builds it")
        game_spec = name
    params = params_of(run.game) if game_params is None else dict(game_params)
    savez_atomic(
        path,
        compressed=True,
        kind=np.array(GAME_RUN_KIND),
        version=np.array(GAME_RUN_VERSION),
        learner=np.array(run.name),
        params=np.array(json.dumps(dict(run.params))),
        game=np.array(str(game_spec)),
        game_params=np.array(json.dumps([f"{k}={v}" for k, v in params.items()])),
        game_label=np.array(game_label(run.game)),
        games=np.array(int(run.games), dtype=np.int64),
        seed=np.array(int(run.seed), dtype=np.int64),
        moves=np.array(-1 if run.moves is None else int(run.moves), dtype=np.int64),
        **_state_members(run.state),
    )


def _saved_learners() -> dict[str, type]:
    """The learners of protocol games by name, the CFR family's included."""
    from dicejack.learners.cfr import CFR_LEARNERS
    from dicejack.learners.game_learners import GAME_LEARNERS

    return {**GAME_LEARNERS, **CFR_LEARNERS}


def _state_members(state: Any) -> dict[str, np.ndarray]:
    """A learner's state as ``state__KEY`` members (numbers and text as 0-d arrays)."""
    arrays: dict[str, Any] = {}
    for key, value in state.items():
        if isinstance(value, np.ndarray):
            arrays[_STATE + key] = value
        elif isinstance(value, (bool, int, float, str)):
            arrays[_STATE + key] = np.array(value)
        else:
            raise FormatError(f"cannot save the learner state's {key}: a {type(value).__name__}")
    return arrays


_GAME_MEMBERS = ("kind", "version", "learner", "params", "game", "game_params", "game_label",
                 "games", "seed", "moves")


def _json_list(key: str, text: str) -> list[Any]:
    if len(text) > SMALL_MEMBER_BYTES or text.count("{") + text.count("[") > 1:
        raise ValueError(f"{key} is not small flat JSON")
    value = json.loads(text)
    if not isinstance(value, list):
        raise ValueError(f"{key} is not a JSON list")
    return value


def _state_shapes(game: Any) -> dict[str, tuple[int, ...]]:
    """The shapes of the learner's state tables `game` fixes: over its enumerated rows and
    states, or (hidden information) over the action slots of its tree's information sets."""
    from dicejack.games.information import is_information_game

    if is_information_game(game):
        from dicejack.learners.cfr import information_tree_of

        slots = (sum(len(s.actions) for s in information_tree_of(game).infosets),)
        return {"regret": slots, "cumulative": slots, "current": slots}
    from dicejack.learners.game_learners import game_space

    space = game_space(game)
    return {"q": (space.n_rows,), "n": (space.n_rows,), "lose": (space.n_rows,),
            "visits": (space.n_states,)}


def _game_state(members: NpzMembers, keys: tuple[str, ...], game: Any) -> dict[str, Any]:
    """The learner's saved state (``state__<key>`` members, every one of `keys`), its tables
    checked against the shapes `game` fixes (:func:`_state_shapes`)."""
    shapes = _state_shapes(game)
    state: dict[str, Any] = {}
    for key in keys:
        member = _STATE + key
        if member not in members.infos:
            raise _Bad(f"missing {member}")
        if key in shapes:
            shape, _ = members.header(member, "iuf")
            if shape != shapes[key]:
                raise _Bad(f"{member} has shape {shape}, the game {shapes[key]}")
            state[key] = members.read(member)
        else:
            state[key] = _scalar(members, member, "iuU")
    return state


def _load_game_run(path: Path, members: NpzMembers, game: Any) -> GameRun:
    """A run of the :data:`GAME_RUN_KIND` layout, read against `game` (None: the bundled game
    the file names, built with its parameters)."""
    def bad(why: str) -> FormatError:
        return FormatError(f"run file {path} is corrupt or not a dicejack game run: {why}")

    try:
        cls, game, state, numbers = _game_run_parts(path, members, game)
    except FormatError:
        raise
    except _Bad as exc:
        raise bad(str(exc)) from None
    except DicejackError as exc:
        raise FormatError(f"run file {path}: {one_line(exc)}") from None
    except Exception as exc:  # a bad member or JSON
        raise bad(one_line(exc)) from None
    params, games, seed, moves = numbers
    try:
        learner = cls.restore(game, seed, params, state)
        if learner.played != games or (moves != -1 and learner.moves != moves):
            raise bad(f"its state records {learner.played} games, not {games}")
    except FormatError:
        raise
    except DicejackError as exc:
        raise bad(one_line(exc)) from None
    from dicejack.learners.harness import Session

    return Session(learner).result()


def _game_run_parts(path: Path, members: NpzMembers, game: Any) -> tuple[Any, ...]:
    """(learner class, game, state, (params, games, seed, moves)) of a game run file, each
    member checked (the kind already read)."""
    from dicejack.games import make_game
    from dicejack.games.information import is_information_game
    from dicejack.games.protocol import game_label
    from dicejack.games.registry import parse_game_params
    from dicejack.learners.catalogue import is_handout_game
    from dicejack.learners.cfr import CFR_LEARNERS

    version = _scalar(members, "version", "iu")
    if version > GAME_RUN_VERSION:
        raise FormatError(f"run file {path} has format version {version}; this "
                          f"dicejack reads up to {GAME_RUN_VERSION}")
    name = _scalar(members, "learner", "U")
    cls = _saved_learners().get(name)
    if cls is None:
        raise _Bad(f"unknown learner {name!r}")
    allowed = set(_GAME_MEMBERS) | {_STATE + s for s in cls.STATE_KEYS}
    _refuse_unknown(members, lambda k: k in allowed)
    spec = _scalar(members, "game", "U")
    items = [str(v) for v in _json_list("game_params", _scalar(members, "game_params", "U"))]
    label = _scalar(members, "game_label", "U")
    params = _json_object("params", _scalar(members, "params", "U"))
    games, seed, moves = (_scalar(members, k, "iu") for k in ("games", "seed", "moves"))
    if games < 0 or seed < 0 or moves < -1:
        raise _Bad("negative games, seed or moves")
    if game is None:
        if is_spec(spec):
            raise FormatError(f"run file {path} is a run of {label} ({spec}, your own "
                              f"code): give --game {spec} to read it")
        game = make_game(spec, parse_game_params(items))
    if is_handout_game(game):  # the protocol view HandoutGame, as game learners play it
        from dicejack.games.handout import HandoutGame

        game = game if isinstance(game, HandoutGame) else HandoutGame.from_game(game)
    if game_label(game) != label:
        raise FormatError(f"run file {path} is a run of {label}, not of "
                          f"{game_label(game)}")
    if (name in CFR_LEARNERS) != is_information_game(game):
        raise _Bad(f"learner {name} does not play {label}")
    state = _game_state(members, cls.STATE_KEYS, game)
    return cls, game, state, (params, games, seed, moves)
