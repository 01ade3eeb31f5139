"""Runs of learners of protocol games (:mod:`dicejack.learners.game_learners`) as .npz files:
saved atomically, read back checked, resumed exactly (``dicejack learn --game ... --out``,
``--resume``; ``dicejack compare --game ... RUN.npz``).

Members: kind ("dicejack-game-run"), version, learner (its name), params (JSON of its
parameters, 1/n as null), game (the ``--game`` name or ``FILE.py:Class`` it was learned on),
game_params (JSON list of ``KEY=VALUE`` texts, as ``--game-param`` reads them), game_label (e.g.
``pig goal=40 die=6``), games, seed, moves, and ``state__KEY`` for every entry of the learner's
state (q, n, visits, lose: arrays over the enumerated game's rows or states; games, moves,
rng_state as 0-d arrays). The tables are recomputed from the state; checkpoints are not kept.

Reading costs no more than the game: every member's declared shape is checked against the
enumerated game before its data is read, and members the format does not name are refused
unread. A run of a user's game (``FILE.py:Class``) is read only with that game given (the file
never makes dicejack import code).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dicejack.formats import FormatError
from dicejack.formats.atomic import savez_atomic
from dicejack.formats.npz import SMALL_MEMBER_BYTES, NpzMembers, open_npz
from dicejack.runtime.messages import DicejackError, one_line
from dicejack.runtime.user_code import is_spec

if TYPE_CHECKING:  # pragma: no cover
    from dicejack.learners.game_session import GameRun

__all__ = ["GAME_RUN_KIND", "GAME_RUN_VERSION", "save_game_run", "load_game_run"]

GAME_RUN_KIND = "dicejack-game-run"
GAME_RUN_VERSION = 1
_STATE = "state__"
_MEMBERS = ("kind", "version", "learner", "params", "game", "game_params", "game_label",
            "games", "seed", "moves")


def _param_text(value: Any) -> str:
    return str(value)


def save_game_run(path: str | os.PathLike[str], run: GameRun, game_spec: str | None = None,
                  game_params: dict[str, Any] | None = None) -> None:
    """Write `run` atomically. `game_spec` is how ``--game`` names its game (default: the
    bundled game of that name, when the run's game is one); `game_params` its parameters
    (default: the game's own, :func:`dicejack.games.protocol.game_params`)."""
    from dicejack.games.protocol import game_label
    from dicejack.games.protocol import game_params as params_of
    from dicejack.games.registry import GAMES
    from dicejack.learners.game_learners import GAME_LEARNERS

    if run.name not in GAME_LEARNERS or run.state is None:
        raise FormatError(f"cannot save a run of learner {run.name!r}: only runs of "
                          f"{', '.join(GAME_LEARNERS)} are saved")
    if game_spec is None:
        name = str(getattr(run.game, "name", ""))
        if GAMES.get(name) is not type(run.game):
            raise FormatError(f"cannot save a run of {game_label(run.game)}: give game_spec, "
                              "the --game that builds it")
        game_spec = name
    params = params_of(run.game) if game_params is None else dict(game_params)
    arrays: dict[str, Any] = {}
    for key, value in run.state.items():
        if isinstance(value, np.ndarray):
            arrays[_STATE + key] = value
        elif isinstance(value, (bool, int, float, str)):
            arrays[_STATE + key] = np.array(value)
        else:
            raise FormatError(f"cannot save the learner state's {key}: a {type(value).__name__}")
    savez_atomic(
        path,
        compressed=True,
        kind=np.array(GAME_RUN_KIND),
        version=np.array(GAME_RUN_VERSION),
        learner=np.array(run.name),
        params=np.array(json.dumps(dict(run.params))),
        game=np.array(str(game_spec)),
        game_params=np.array(json.dumps([f"{k}={_param_text(v)}" for k, v in params.items()])),
        game_label=np.array(game_label(run.game)),
        games=np.array(int(run.games), dtype=np.int64),
        seed=np.array(int(run.seed), dtype=np.int64),
        moves=np.array(-1 if run.moves is None else int(run.moves), dtype=np.int64),
        **arrays,
    )


def _scalar(members: NpzMembers, key: str, kinds: str) -> Any:
    if key not in members.infos:
        raise ValueError(f"missing {key}")
    shape, dtype = members.header(key, kinds)
    if shape != () or dtype.itemsize > SMALL_MEMBER_BYTES:
        raise ValueError(f"{key} has shape {shape} ({dtype})")
    return members.read(key).item()


def _json(key: str, text: str, kind: type) -> Any:
    if len(text) > SMALL_MEMBER_BYTES or text.count("{") + text.count("[") > 1:
        raise ValueError(f"{key} is not small flat JSON")
    value = json.loads(text)
    if not isinstance(value, kind):
        raise ValueError(f"{key} is not a JSON {kind.__name__}")
    return value


def _learner_state(members: NpzMembers, keys: tuple[str, ...], space: Any,
                   bad: Callable[[str], FormatError]) -> dict[str, Any]:
    """The learner's saved state (``state_<key>`` members, every one of `keys`), its tables
    checked against the game's shape (`space`: the game's enumeration)."""
    shapes = {"q": (space.n_rows,), "n": (space.n_rows,), "lose": (space.n_rows,),
              "visits": (space.n_states,)}
    state: dict[str, Any] = {}
    for key in keys:
        member = _STATE + key
        if member not in members.infos:
            raise bad(f"missing {member}")
        if key in shapes:
            shape, _ = members.header(member, "iuf")
            if shape != shapes[key]:
                raise bad(f"{member} has shape {shape}, the game {shapes[key]}")
            state[key] = members.read(member)
        else:
            state[key] = _scalar(members, member, "iuU")
    return state


def load_game_run(path: str | os.PathLike[str], game: Any = None) -> GameRun:
    """Read and check a run written by :func:`save_game_run`; FormatError (one line) if
    anything is off. `game`: the game object to read it against (its label must be the
    file's); by default the bundled game the file names, built with its parameters (a run of a
    user's game needs `game`)."""
    from dicejack.games import make_game
    from dicejack.games.protocol import game_label
    from dicejack.games.registry import parse_game_params
    from dicejack.learners.game_learners import GAME_LEARNERS, game_space
    from dicejack.learners.game_session import GameSession

    path = Path(path)

    def bad(why: str) -> FormatError:
        return FormatError(f"run file {path} is corrupt or not a dicejack game run: {why}")

    with open_npz(path) as archive:
        members = NpzMembers(archive)
        try:
            kind = _scalar(members, "kind", "U")
            if kind != GAME_RUN_KIND:
                raise bad(f"kind is {kind!r}" + (" (a run of the handout's game: read it "
                                                 "without --game)" if "run" in str(kind) else ""))
            version = _scalar(members, "version", "iu")
            if version > GAME_RUN_VERSION:
                raise FormatError(f"run file {path} has format version {version}; this "
                                  f"dicejack reads up to {GAME_RUN_VERSION}")
            name = _scalar(members, "learner", "U")
            cls = GAME_LEARNERS.get(name)
            if cls is None:
                raise bad(f"unknown learner {name!r}")
            unknown = sorted(k for k in members.infos
                             if k not in _MEMBERS and k not in {_STATE + s for s in
                                                               cls.STATE_KEYS})
            if unknown:
                raise bad(f"unknown members {', '.join(map(repr, unknown[:3]))}")
            spec = _scalar(members, "game", "U")
            items = [str(v) for v in _json("game_params", _scalar(members, "game_params", "U"),
                                           list)]
            label = _scalar(members, "game_label", "U")
            params = _json("params", _scalar(members, "params", "U"), dict)
            games, seed, moves = (_scalar(members, k, "iu") for k in ("games", "seed", "moves"))
            if games < 0 or seed < 0 or moves < -1:
                raise bad("negative games, seed or moves")
            if game is None:
                if is_spec(spec):
                    raise FormatError(f"run file {path} is a run of {label} ({spec}, your own "
                                      f"code): give --game {spec} to read it")
                game = make_game(spec, parse_game_params(items))
            if game_label(game) != label:
                raise FormatError(f"run file {path} is a run of {label}, not of "
                                  f"{game_label(game)}")
            state = _learner_state(members, cls.STATE_KEYS, game_space(game), bad)
        except FormatError:
            raise
        except DicejackError as exc:
            raise FormatError(f"run file {path}: {one_line(exc)}") from None
        except Exception as exc:  # a bad member or JSON
            raise bad(one_line(exc)) from None
    try:
        learner = cls.restore(game, seed, params, state)
        if learner.played != games or (moves != -1 and learner.moves != moves):
            raise bad(f"its state records {learner.played} games, not {games}")
    except FormatError:
        raise
    except DicejackError as exc:
        raise bad(one_line(exc)) from None
    return GameSession(learner).result()
