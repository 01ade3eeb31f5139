"""Counterfactual regret minimisation for information games (:mod:`dicejack.games.information`):
:class:`CFR`, a learner whose learned policy is CFR's average policy, over the enumerated tree
of plays as flat arrays.

Variants (parameter ``variant``): ``cfr+`` (the default; regret matching+, linear averaging)
and ``cfr`` (regret matching, uniform averaging), both with alternating updates, exactly as
OpenSpiel's ``CFRPlusSolver`` and ``CFRSolver`` (tests hold the average policies equal on
kuhn_poker), deterministic (the seed is kept for the learner contract and used by nothing); and
``outcome-sampling``, sampled MCCFR (OpenSpiel's ``OutcomeSamplingSolver``'s rule, parameter
``exploration``, its 0.6 by default; regrets and sums start at its 1e-6,
:data:`SAMPLING_PRIOR`), one sampled play per player per iteration, drawn from a numpy
Generator seeded by ``seed`` (tests hold it to OpenSpiel's solver made to sample the same
plays). The rules are :mod:`dicejack.learners.cfr_reference`'s docstring. One "game" of the
harness (``played``, ``play(n)``) is one iteration (a full pass over the tree per player, or
one sampled play per player); ``moves`` counts infoset updates (one key's regrets updated once:
the decision keys per CFR iteration, the player's keys on each sampled play).

Two engines with identical tables and draws (tests): "numba", :mod:`dicejack.learners
.cfr_kernel` (the default), and "python", :mod:`dicejack.learners.cfr_reference`, its
reference (benchmarks/bench_cfr.py, Kuhn poker, one run: CFR+ 0.8 million iterations per
CPU-second compiled, 47x the plain reference, 370x OpenSpiel's Python CFRPlusSolver, 16x its
C++ one; outcome sampling 1.7 million, 17x, 136x and 3.4x).

The flat arrays (:func:`tree_arrays`), nodes in the tree's index order (a child above its
parent): mover (-1 terminal), node_set (the node's infoset, -1 terminal), row_start (per node,
its rows: one per action, in the infoset's order), out_start/succ/prob (per row, its chance
outcomes: child node and probability), utility (player 0's, at terminals); per infoset:
set_player, decides (two actions or more), slot_start (its actions' slots in the per-slot
tables regret, cumulative and current).

The learner runs on the one harness (:func:`dicejack.learners.learn` with checkpoints,
:func:`~dicejack.learners.check_learner`);
:class:`CFRTables` is what a checkpoint keeps, and :func:`exploitability_curve` reads a run's
checkpoints as exact exploitabilities (OpenSpiel's convention).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dicejack.games.information import InformationTree, enumerate_information
from dicejack.learners.base import (
    Counted,
    Param,
    check_params,
    format_value,
    generator_from_text,
    readonly,
    rng_state_text,
    state_array,
    state_int,
)
from dicejack.learners.cfr_reference import cfr_iterations as reference_iterations
from dicejack.learners.cfr_reference import outcome_sampling as reference_sampling
from dicejack.learners.checks import LearnerError, check_count, check_games_limit, check_seed
from dicejack.runtime import interrupts
from dicejack.solver.information_policies import exploitability

__all__ = [
    "CFR",
    "CFRLayout",
    "CFRTables",
    "CFR_LEARNERS",
    "VARIANTS",
    "SAMPLING_PRIOR",
    "information_tree_of",
    "tree_arrays",
    "exploitability_curve",
]

#: The variants: name -> (regret matching+, linear averaging); None: sampled (outcome sampling).
VARIANTS: dict[str, tuple[bool, bool] | None] = {"cfr+": (True, True), "cfr": (False, False),
                                                 "outcome-sampling": None}

#: Outcome sampling's regrets and policy sums start here (OpenSpiel's MCCFR: a uniform policy
#: "erased fast", and never a sum of 0); CFR's start at 0.
SAMPLING_PRIOR = 1e-6

_TREES: dict[Any, InformationTree] = {}


def information_tree_of(game: Any) -> InformationTree:
    """`game`'s tree of plays (`game` itself when it is one), enumerated once per process for a
    hashable game (the last four kept)."""
    if isinstance(game, InformationTree):
        return game
    try:
        key = (type(game), game)
        hash(key)
    except TypeError:
        return enumerate_information(game)
    tree = _TREES.get(key)
    if tree is None:
        tree = enumerate_information(game)
        if len(_TREES) >= 4:
            _TREES.pop(next(iter(_TREES)))
        _TREES[key] = tree
    return tree


@dataclass(frozen=True, eq=False)
class CFRLayout:
    """The infosets as the per-slot tables hold them: per infoset its key, actions, player and
    whether it is a decision; slot_start[s]..slot_start[s + 1] its actions' slots."""

    keys: tuple[Hashable, ...]
    actions: tuple[tuple[Hashable, ...], ...]
    player: tuple[int, ...]
    decides: tuple[bool, ...]
    slot_start: np.ndarray


@dataclass(frozen=True, eq=False)
class CFRTables:
    """A CFR learner's tables now, read-only, per slot (:class:`CFRLayout`): average (the
    learned policy: cumulative over its sum per infoset, uniform where that is 0), current (the
    policy of the next iteration), regret and cumulative (the reach-weighted policy sums)."""

    layout: CFRLayout
    average: np.ndarray
    current: np.ndarray
    regret: np.ndarray
    cumulative: np.ndarray

    def equals(self, other: CFRTables) -> bool:
        return all(np.array_equal(getattr(self, k), getattr(other, k))
                   for k in ("average", "current", "regret", "cumulative"))

    def policy(self, which: str = "average") -> dict[Hashable, dict[Hashable, float]]:
        """The average (or "current") policy: decision key -> {action: probability}."""
        if which not in ("average", "current"):
            raise LearnerError(f"which must be average or current, got {which!r}")
        table, lay = getattr(self, which), self.layout
        return {key: {a: float(table[lay.slot_start[s] + i]) for i, a in enumerate(actions)}
                for s, (key, actions) in enumerate(zip(lay.keys, lay.actions, strict=True))
                if lay.decides[s]}


def tree_arrays(tree: InformationTree) -> dict[str, np.ndarray]:
    """The tree as flat arrays (module docstring)."""
    row_start, out_start, succ, prob = [0], [0], [], []
    for rows in tree.children:
        row_start.append(row_start[-1] + len(rows))
        for outcomes in rows:
            succ.extend(c for c, _ in outcomes)
            prob.extend(float(p) for _, p in outcomes)
            out_start.append(len(succ))
    utility = [0.0 if u is None else float(u) for u in tree.utility]
    sizes = [len(s.actions) for s in tree.infosets]
    return {
        "mover": np.array(tree.player, dtype=np.int64),
        "node_set": np.array(tree.infoset, dtype=np.int64),
        "row_start": np.array(row_start, dtype=np.int64),
        "out_start": np.array(out_start, dtype=np.int64),
        "succ": np.array(succ, dtype=np.int64),
        "prob": np.array(prob, dtype=np.float64),
        "utility": np.array(utility, dtype=np.float64),
        "set_player": np.array([s.player for s in tree.infosets], dtype=np.int64),
        "decides": np.array([not s.forced for s in tree.infosets], dtype=np.bool_),
        "slot_start": np.concatenate(([0], np.cumsum(sizes, dtype=np.int64))),
    }


class CFR(Counted):
    """CFR+ or CFR over an information game's tree (module docstring); contract as the learners
    of protocol games: ``name, game, seed, params, played, moves, play(iterations), tables(),
    policy(), state(), restore``."""

    NAME: ClassVar[str] = "cfr"
    SUMMARY: ClassVar[str] = ("counterfactual regret minimisation (CFR+ or CFR), the average "
                              "policy (two-player zero-sum information games)")
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("variant", "cfr+", "cfr+: regret matching+ and linear averaging; cfr: plain "
              "regret matching, uniform averaging; outcome-sampling: sampled MCCFR (seeded)",
              kind="choice", choices=tuple(VARIANTS)),
        Param("exploration", 0.6, "outcome-sampling: the share of uniform play in the updating "
              "player's sampling", low=0.0, high=1.0),
    )
    ENGINES: ClassVar[tuple[str, ...]] = ("numba", "python")
    #: The entries of :meth:`state` (a run file's ``state__KEY`` members).
    STATE_KEYS: ClassVar[tuple[str, ...]] = ("regret", "cumulative", "current", "games", "moves",
                                             "rng_state")

    def __init__(self, game: Any, seed: int | None = None, *, engine: str = "numba",
                 **params: Any) -> None:
        if engine not in self.ENGINES:
            raise LearnerError(f"engine must be one of {', '.join(self.ENGINES)}; got {engine!r}")
        self.engine, self.name = engine, self.NAME
        self.seed = check_seed(seed)
        self.params = check_params(self.NAME, self.PARAMS, params)
        try:
            self.tree = information_tree_of(game)
        except Exception as exc:  # GameDefinitionError, or not an information game at all
            raise LearnerError(f"learner cfr: {exc}") from None
        self.game = game
        if self.tree.num_players not in (1, 2):
            raise LearnerError(f"learner cfr: the game has {self.tree.num_players} players; CFR "
                               "here is for one- or two-player zero-sum games")
        self.arrays = tree_arrays(self.tree)
        sets = self.tree.infosets
        self.layout = CFRLayout(tuple(s.key for s in sets), tuple(s.actions for s in sets),
                                tuple(s.player for s in sets), tuple(not s.forced for s in sets),
                                readonly(self.arrays["slot_start"].copy()))
        sizes = np.diff(self.arrays["slot_start"])
        slots = int(sizes.sum())
        start = SAMPLING_PRIOR if VARIANTS[self.params["variant"]] is None else 0.0
        self.regret = np.full(slots, start)
        self.cumulative = np.full(slots, start)
        self.current = 1.0 / np.repeat(sizes, sizes).astype(np.float64)
        self.counters = np.zeros(2, dtype=np.int64)  # iterations, infoset updates
        self.per_iteration = int(self.arrays["decides"].sum())
        self.rng = np.random.default_rng(self.seed)
        depth = [0] * self.tree.n_nodes
        for n, rows in enumerate(self.tree.children):
            for outcomes in rows:
                for c, _ in outcomes:
                    depth[c] = depth[n] + 1
        self.depth = max(1, max(depth))
        self._lists: dict[str, list[Any]] | None = None

    def __repr__(self) -> str:
        words = " ".join(f"{k}={format_value(v)}" for k, v in self.params.items())
        return f"<CFR {words} seed={self.seed} played={self.played}>"

    @property
    def label(self) -> str:
        words = [self.name, *(f"{k}={format_value(v)}" for k, v in self.params.items())]
        return " ".join([*words, f"iterations={self.played}"])

    def play(self, iterations: int) -> None:
        """`iterations` more iterations (chunking never changes the result): the compiled
        kernel (engine "numba") or the plain reference ("python"), identical tables."""
        iterations = check_games_limit(check_count("iterations", iterations))
        if not iterations:
            return
        rule = VARIANTS[self.params["variant"]]
        if rule is None:
            self._sample(iterations)
            return
        plus, linear = rule
        players = self.tree.num_players
        if self.engine == "numba":
            with interrupts.atomic():  # a signal inside an import can hang the next one
                from dicejack.learners.cfr_kernel import cfr_iterations
            a = self.arrays
            n_nodes, n_rows = len(a["mover"]), int(a["row_start"][-1])
            cfr_iterations(a["mover"], a["node_set"], a["row_start"], a["out_start"], a["succ"],
                           a["prob"], a["utility"], a["set_player"], a["decides"],
                           a["slot_start"], self.regret, self.cumulative, self.current,
                           np.zeros((3, n_nodes)), np.zeros(n_nodes), np.zeros(n_rows),
                           self.counters, players, plus, linear, self.per_iteration, iterations)
            return
        self._plain(reference_iterations, players, plus, linear, self.per_iteration,
                    iterations)

    def _sample(self, iterations: int) -> None:
        """Outcome-sampling iterations: compiled or plain, the same draws."""
        players, eps = self.tree.num_players, self.params["exploration"]
        if self.engine == "python":
            self._plain(reference_sampling, players, eps, iterations, self.rng)
            return
        with interrupts.atomic():
            from dicejack.learners import pcg
            from dicejack.learners.cfr_kernel import outcome_sampling
        a = self.arrays
        pcg.stepping(self.rng, outcome_sampling, a["mover"], a["node_set"], a["row_start"],
                     a["out_start"], a["succ"], a["prob"], a["utility"], a["decides"],
                     a["slot_start"], self.regret, self.cumulative, self.current, self.depth,
                     self.counters, players, eps, iterations)

    def _plain(self, loop: Any, *args: Any) -> None:
        """Run a plain loop of :mod:`~dicejack.learners.cfr_reference` on lists."""
        if self._lists is None:
            self._lists = {k: v.tolist() for k, v in self.arrays.items()}
        tables = {"regret": self.regret.tolist(), "cumulative": self.cumulative.tolist(),
                  "current": self.current.tolist()}
        counters = self.counters.tolist()
        loop(self._lists, tables, counters, *args)
        self.regret = np.asarray(tables["regret"], dtype=np.float64)
        self.cumulative = np.asarray(tables["cumulative"], dtype=np.float64)
        self.current = np.asarray(tables["current"], dtype=np.float64)
        self.counters = np.asarray(counters, dtype=np.int64)

    def average(self) -> np.ndarray:
        """The average policy per slot: cumulative over its sum per infoset (OpenSpiel's rule:
        uniform where the sum is 0)."""
        starts = self.arrays["slot_start"]
        sizes = np.diff(starts)
        totals = np.repeat(np.add.reduceat(self.cumulative, starts[:-1]), sizes)
        uniform = np.repeat(1.0 / sizes, sizes)
        safe = np.where(totals == 0, 1.0, totals)
        return np.where(totals == 0, uniform, self.cumulative / safe)

    def tables(self) -> CFRTables:
        return CFRTables(self.layout, readonly(self.average()), readonly(self.current.copy()),
                         readonly(self.regret.copy()), readonly(self.cumulative.copy()))

    def policy(self, which: str = "average") -> dict[Hashable, dict[Hashable, float]]:
        """The learned (average) policy, or the current one: key -> {action: probability}."""
        return self.tables().policy(which)

    def state(self) -> dict[str, Any]:
        return {"regret": self.regret.copy(), "cumulative": self.cumulative.copy(),
                "current": self.current.copy(), "games": self.played, "moves": self.moves,
                "rng_state": rng_state_text(self.rng)}

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any], engine: str = "numba") -> CFR:
        """A learner that iterates on exactly as the one whose :meth:`state` this is."""
        obj = cls(game, seed, engine=engine, **dict(params))
        shape = obj.regret.shape
        for key in ("regret", "cumulative", "current"):
            setattr(obj, key, np.array(state_array(state, key, shape, "f"), dtype=np.float64))
        obj.counters = np.array([state_int(state, "games"), state_int(state, "moves")],
                                dtype=np.int64)
        obj.rng = generator_from_text(state.get("rng_state"))
        return obj


#: The CFR-family learners by name (for the registry of information-game learners).
CFR_LEARNERS: dict[str, type[CFR]] = {CFR.NAME: CFR}


def exploitability_curve(run: Any) -> dict[int, float]:
    """iterations -> the exact exploitability (:func:`dicejack.solver.information_policies
    .exploitability`, OpenSpiel's convention) of the average policy at each checkpoint of `run`
    (a :class:`~dicejack.learners.game_learners.GameRun` of :class:`CFR`) and at its end."""
    tree = information_tree_of(run.game)
    marks = {**dict(run.snapshots), run.games: run.final}
    return {t: float(exploitability(tree, marks[t].policy())) for t in sorted(marks)}
