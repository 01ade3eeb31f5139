"""The learners by name: the registry of bundled ones, their parameters (checked, parsed from
``key=value`` text, described for --help), and building or restoring one. The one place that
knows every bundled learner and which learners play which game (:func:`learners_for`): the
handout's five for the handout's game (a :class:`~dicejack.games.handout_rules.Game` or a
:class:`~dicejack.games.HandoutGame`), the learners of
:mod:`~dicejack.learners.game_learners` for any other protocol game; the session
(:mod:`.session`) builds learners through it.

A name with a colon, ``MODULE:Class`` (``my_agent:MonteCarloAverage``, ``agent.py:MyLearner``),
is the user's own learner class (:mod:`dicejack.runtime.user_code` loads it): built as
``Class(game, seed, **params)``, its parameters its ``PARAMS`` (a tuple of :class:`Param`) when
it declares them, else the keyword arguments of its ``__init__`` that have a number as default.
"""

from __future__ import annotations

import difflib
import inspect
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import Game
from dicejack.games.information import is_information_game
from dicejack.learners.base import Param, ResumableLearner, Run, check_params, check_protocol
from dicejack.learners.cfr import CFR_LEARNERS
from dicejack.learners.checks import LearnerError
from dicejack.learners.game_learners import GAME_LEARNERS
from dicejack.learners.handout import Handout
from dicejack.learners.mc_epsilon import MCEpsilon
from dicejack.learners.qlearning import QLearning
from dicejack.learners.thompson import Thompson
from dicejack.learners.ucb import UCB
from dicejack.runtime import user_code
from dicejack.runtime.messages import one_line

__all__ = ["REGISTRY", "NAMES", "GAME_LEARNERS", "is_handout_game", "handout_rules",
           "learners_for", "game_learner_class", "SAME_RULE", "same_rule_name",
           "canonical_name", "is_custom", "learner_class", "parameters",
           "check_learner_params",
           "parse_params", "help_text", "make", "restore"]

#: The bundled learners by name, in the order of every listing.
REGISTRY: dict[str, type] = {
    cls.NAME: cls for cls in (Handout, QLearning, MCEpsilon, UCB, Thompson)
}



#: Their names: handout, q-learning, mc-epsilon, ucb, thompson.
NAMES: tuple[str, ...] = tuple(REGISTRY)

#: One rule, one name on every game: the handout's counting rule is ``handout`` on the
#: handout's game (its compiled engine) and ``counting`` on the other win/lose games; either
#: name selects it on either kind of game (:func:`same_rule_name`).
SAME_RULE: dict[str, str] = {"counting": "handout"}



# ------------------------------------------------------------------------- learners per game
def is_handout_game(game: Any) -> bool:
    """True for the handout's game: a :class:`~dicejack.games.handout_rules.Game`, or a
    :class:`~dicejack.games.HandoutGame` (its protocol view)."""
    return isinstance(game, (Game, HandoutGame))


def handout_rules(game: Game | HandoutGame) -> Game:
    """The :class:`~dicejack.games.handout_rules.Game` of the handout's game given either way."""
    return game.rules if isinstance(game, HandoutGame) else game


def learners_for(game: Any) -> dict[str, type]:
    """The bundled learners that play `game`, by name: the handout's game's five
    (:data:`REGISTRY`) for the handout's game; for a game with hidden information the CFR family
    (:data:`~dicejack.learners.cfr.CFR_LEARNERS`: cfr); else the learners of protocol games
    (:data:`GAME_LEARNERS`: q-learning, mc-exploring-starts, counting)."""
    if is_handout_game(game):
        return REGISTRY
    return CFR_LEARNERS if is_information_game(game) else GAME_LEARNERS


def same_rule_name(name: str, handout: bool) -> str:
    """`name` (a learner's name, written any case, ``_`` for ``-``) as the handout's game
    (`handout` True) or the other games call its rule: ``counting`` is ``handout`` on the
    handout's game and ``handout`` is ``counting`` on the others (:data:`SAME_RULE`); other
    names come back as given."""
    key = str(name).strip().lower().replace("_", "-")
    if handout:
        return SAME_RULE.get(key, name)
    return {v: k for k, v in SAME_RULE.items()}.get(key, name)


def game_learner_class(name: str, game: Any = None) -> type:
    """The learner of protocol games (the CFR family for a game with hidden information; the
    handout's game counts as a protocol game here) called `name`, written any case, ``_`` for
    ``-`` (``handout`` is ``counting``: :data:`SAME_RULE`); LearnerError listing them."""
    known = CFR_LEARNERS if game is not None and is_information_game(game) else GAME_LEARNERS
    if known is GAME_LEARNERS:
        name = same_rule_name(name, handout=False)
    cls = known.get(str(name).strip().lower().replace("_", "-"))
    if cls is None:
        kind = "games with hidden information" if known is CFR_LEARNERS else "protocol games"
        raise LearnerError(f"no learner {name!r} for {kind}; the learners: "
                           f"{', '.join(known)}")
    return cls


# ------------------------------------------------------------------------------- the registry
def canonical_name(name: str) -> str:
    """`name` as a bundled learner's name, written any way people write it (``Q-Learning``,
    ``q_learning``, ``QLearning``); LearnerError listing the names, with the closest one
    ("did you mean q-learning?") for a slip such as ``q-learnin``."""
    if not isinstance(name, str):
        raise LearnerError(f"unknown learner {name!r}; choose one of: {', '.join(NAMES)}")
    if is_custom(name):
        return name.strip()
    key = re.sub(r"[\s_]+", "-", name.strip().lower())
    key = SAME_RULE.get(key, key)
    if key in REGISTRY:
        return key
    squashed = {n.replace("-", ""): n for n in NAMES}
    if key.replace("-", "") in squashed:
        return squashed[key.replace("-", "")]
    close = difflib.get_close_matches(key, NAMES, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    raise LearnerError(f"unknown learner {name!r}; {hint}choose one of: {', '.join(NAMES)}")


def is_custom(name: str) -> bool:
    """True when `name` is the user's own class, ``MODULE:Class``, not a bundled name."""
    return user_code.is_spec(name)


def learner_class(name: str, game: Any = None) -> type:
    """The bundled learner called `name` that plays `game` (None: the handout's game;
    :func:`learners_for`), written any case, or the user's class ``MODULE:Class``; LearnerError
    listing the names if there is none, or saying why the class cannot be had."""
    if game is not None and not is_handout_game(game) and not is_custom(str(name)):
        return game_learner_class(name, game)
    name = canonical_name(name)
    if not is_custom(name):
        return REGISTRY[name]
    try:
        cls = user_code.load_object(name, "--learner")
    except user_code.UserCodeError as exc:
        raise LearnerError(str(exc)) from None
    if not isinstance(cls, type):
        raise LearnerError(f"--learner {name}: {type(cls).__name__} is not a class (a learner "
                           "is a class called as Class(game, seed, **params))")
    return cls


def _signature_params(name: str, cls: type) -> tuple[Param, ...]:
    """A user's class's parameters as its __init__ declares them: every keyword argument after
    (game, seed) whose default is a number (whole: kind "int"; else "float")."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return ()
    out = []
    for p in list(signature.parameters.values())[2:]:
        default = p.default
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or isinstance(default, bool):
            continue
        if isinstance(default, int):
            out.append(Param(p.name, default, f"a parameter of {name}", kind="int"))
        elif isinstance(default, float) and math.isfinite(default):
            out.append(Param(p.name, default, f"a parameter of {name}"))
    return tuple(out)


def parameters(name: str) -> tuple[Param, ...]:
    """The parameters of learner `name` (names, defaults, ranges, help): a bundled learner's,
    or a user's class's (its PARAMS, else its numeric keyword arguments)."""
    cls = learner_class(name)
    if not is_custom(name):
        return cls.PARAMS
    declared = getattr(cls, "PARAMS", None)
    if isinstance(declared, tuple) and all(isinstance(p, Param) for p in declared):
        return declared
    return _signature_params(canonical_name(name), cls)



def check_learner_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` of learner `name`, checked and completed with the defaults (in the learner's
    order); LearnerError naming the learner, the parameter and the valid values."""
    return check_params(name, parameters(name), params)



def parse_params(name: str, items: Iterable[str]) -> dict[str, Any]:
    """``--param key=value`` strings for learner `name` as checked Python values (only the keys
    given; defaults are filled in by the learner). E.g. ``parse_params("q-learning",
    ["alpha=0.1", "epsilon=0.2"])`` gives ``{"alpha": 0.1, "epsilon": 0.2}``; ``alpha=1/n`` gives
    None (the 1/N step). LearnerError (one line) for a missing '=', an unknown or repeated key,
    or a bad value."""
    specs = {p.name: p for p in parameters(name)}
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            raise LearnerError(f"a learner parameter must be key=value, got {item!r}")
        if key not in specs:
            valid = ", ".join(specs) if specs else "none"
            raise LearnerError(f"learner {name} has no parameter {key!r}; its parameters: {valid}")
        if key in out:
            raise LearnerError(f"learner parameter {key} given twice")
        out[key] = specs[key].parse(name, value)
    check_learner_params(name, out)  # the checks across parameters
    return out



def help_text() -> str:
    """The bundled learners and their parameters, for --help (one line per learner, one per
    parameter)."""
    lines = []
    for name, cls in REGISTRY.items():
        lines.append(f"{name}: {cls.SUMMARY}")
        lines += [f"  {p.describe()}" for p in cls.PARAMS] or ["  (no parameters)"]
    return "\n".join(lines)



def make(
    game: Game, name: str, seed: int | None = None, *, engine: str = "numba", **params: Any
) -> ResumableLearner:
    """A fresh learner: ``make(game, "ucb", seed=1, c=1.0)``. engine "python" runs a bundled
    learner's plain reference loop (identical tables, about 100x slower). A user's class
    (``MODULE:Class``) is called as ``Class(game, seed, **params)``, params checked first."""
    cls = learner_class(name)
    if not is_custom(name):
        return cls(game, seed, engine=engine, **params)
    if engine != "numba":
        raise LearnerError(f"engine={engine!r} is for the bundled learners, not {name}")
    checked = check_learner_params(name, params)
    given = {k: v for k, v in checked.items() if k in params}
    try:
        obj = cls(game, seed, **given)
    except Exception as exc:  # the user's class: say which call failed, in one line
        raise LearnerError(f"{canonical_name(name)}(game, seed, **params) failed: "
                           f"{type(exc).__name__}: {one_line(exc)}") from None
    check_protocol(obj)
    return obj



def restore(run: Run, *, engine: str | None = None) -> ResumableLearner:
    """The learner positioned where `run` stopped (to play on with it); LearnerError when the
    run's learner cannot be resumed."""
    if not isinstance(run, Run):
        raise LearnerError(f"restore needs a learners.Run, got {type(run).__name__}")
    cls = run.learner_type if run.learner_type is not None else learner_class(run.name)
    if run.state is None or not callable(getattr(cls, "restore", None)):
        raise LearnerError(f"learner {run.name} cannot be resumed: it has no state()/restore()")
    extra = {} if engine is None else {"engine": engine}
    if cls in REGISTRY.values():
        state = run.state
    else:  # a user's class: give it copies it may keep and modify
        state = {k: np.array(v) if isinstance(v, np.ndarray) else v for k, v in run.state.items()}
    obj = cls.restore(run.game, run.seed, dict(run.params), state, **extra)
    check_protocol(obj)
    if obj.played != run.games:
        raise LearnerError(f"restored learner {run.name} has played {obj.played} games, "
                           f"not the run's {run.games}")
    return obj

