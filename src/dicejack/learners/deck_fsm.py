"""Evolved finite-state-machine players of the deck divide-the-dollar game
(:mod:`dicejack.games.deck_dollar`): a seeded evolutionary algorithm whose fitness is a machine's
expected reward against the uniformly random opponent, with checkpoints of the best machine.

**A reconstruction.** The study's README (``shared/spec/deck-divide-dollar.txt``) says only that
"evolutionary computation is used to evolve players encoded as a finite-state machine"; it gives
no representation, operators or parameters. What is here follows the form of the evolved game
players of D. Ashlock's work, which the study's deck-based games come from (Ashlock and
Schonfeld 2015; Wild's thesis, Guelph 2017, not quoted here):

* the machine (:class:`~dicejack.solver.deck_fsm_evaluation.FsmPlayer`): ``n_states`` states,
  an initial state, and per (state, observation) an action and a next state (a Mealy machine
  over the game's 40 observations; it moves once per turn of its own);
* the population (``population``, a multiple of 4) starts from machines with every action,
  next state and the initial state drawn uniformly;
* a generation is Ashlock's single tournament selection: the population is shuffled into groups
  of four; in each, the two fittest are copied over the two least fit (ties by position, so the
  order is seeded), the copies undergo two-point crossover (``crossover``: the ``n_states * 40``
  genes, each an action with its next state, in state-major order; the child keeps its own
  initial state) and then 1 to ``max_mutations`` mutations each (uniformly many), each one a new
  uniform action of a uniform (state, observation) with probability ``action_rate``, else a new
  next state there, except that with probability ``initial_rate`` it is a new initial state;
* fitness is the expected reward (+1 win, -1 loss, 0 draw) against the uniform opponent, exact
  (``fitness="exact"``, :func:`~dicejack.solver.deck_fsm_evaluation.evaluate_fsm`; only the new
  children are evaluated) or simulated (``fitness="simulated"``, ``games`` games per machine on
  :func:`~dicejack.solver.deck_fsm_evaluation.simulate_fsm`; the whole population is re-simulated
  every generation on one generation seed, common random numbers, so a lucky estimate does not
  survive). ``"auto"`` is exact for decks of at most :data:`EXACT_DECK_LIMIT` cards.

What Ashlock's work varies and this does not: its fitness is usually play against the rest of
the population; here it is the study's uniform opponent (the brief's and the Monte Carlo agent's
opponent), so the machines are ranked on the quantity every method of the study is placed on.

Measured (defaults: 8 states, population 36; ``passing=False``; benchmarks/bench_deck_fsm.py
``--evolve``): at a 14-card deck (4, 6, 4; hands of 3) seed 1 reaches an exact 0.565538811571
after 200 generations, above the observation-policy local search's 0.549241469876 (a 1-state
run reaches exactly that): the machine's memory is worth something. At 22 cards (6, 10, 6;
hands of 4) seed 1 reaches 0.644204811781 after 100 generations (local search 0.679559388670).
At the study's deck (simulated fitness, 2000 games per machine) seed 2's best after 1000
generations (72 million games, 155 CPU-s) is worth exactly 0.719686746766, just under the local
search's 0.720259339339; seed 1 after 300 generations, 0.685163323122.

Two entry points, both seeded by a numpy Generator: :func:`evolve_fsm` runs a number of
generations (exact or simulated fitness) and records checkpoints; :class:`DeckFSM` (name
``evolved-fsm``) is the same algorithm with simulated fitness as a learner on the one harness
(:func:`dicejack.learners.learn`, checkpoints, :func:`~dicejack.learners.check_learner`).

**Games played, on the harness.** A learner's games are the games its fitness simulations play:
the initial population's scoring and every generation after it each simulate ``population x
machine_games`` games (:math:`C`; ``moves`` counts the machines' turns in them, ``rounds`` a
game). ``play(games)`` adds `games` to a budget (``played``) and runs every whole scoring round
the budget now covers: after a budget of ``played`` games, ``played // C`` rounds (the initial
scoring and ``played // C - 1`` generations) have run, and ``C * (played // C)`` games have been
simulated, the rest of the budget waiting for the next whole generation. So the machines
depend only on the budget, never on how it was chunked, and a learner with budget
``(g + 1) * C`` has exactly :func:`evolve_fsm`'s population after ``g`` generations (same seed,
``fitness="simulated"``). Its greedy player (:meth:`DeckFSM.policy`, the tables' ``best``) is
the fittest machine of the latest scoring (the first on ties); before any scoring (a budget
under :math:`C`), the first machine of the initial population, unscored.

The simulation is compiled (numba) beside its plain reference (engine "python"; tests hold
them to identical machines). Measured (benchmarks/bench_deck_fsm.py ``--counts 16,28,16
--hand 5 --states 2 --learner``; 2 states, population 36, 100 games per machine, the study's
deck): 406,801 games (10.6 million moves) per CPU-second compiled, 9,289 (241,505) plain, 44x
in the same run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dicejack.games.deck_dollar import N_OBSERVATIONS, DeckDollar
from dicejack.learners.base import (
    Param,
    generator_from_text,
    readonly,
    rng_state_text,
    state_array,
    state_int,
)
from dicejack.learners.checks import LearnerError, check_count, check_games_limit, check_seed
from dicejack.learners.deck_mc import DeckLearner
from dicejack.runtime import interrupts
from dicejack.solver.deck_fsm_evaluation import FsmPlayer, evaluate_fsm, simulate_fsm

__all__ = ["EvolutionConfig", "Checkpoint", "Evolution", "evolve_fsm", "EXACT_DECK_LIMIT",
           "random_fsm", "mutate", "crossover", "DeckFSM", "DeckFSMTables"]

#: ``fitness="auto"`` evaluates exactly at decks of at most this many cards, else simulates.
EXACT_DECK_LIMIT = 30


@dataclass(frozen=True)
class EvolutionConfig:
    """The algorithm's parameters (module docstring), with their defaults."""

    n_states: int = 8
    population: int = 36
    max_mutations: int = 3
    crossover: bool = True
    action_rate: float = 0.5
    initial_rate: float = 0.05
    fitness: str = "auto"
    games: int = 2000

    def __post_init__(self) -> None:
        if check_count("n_states", self.n_states) < 1:
            raise LearnerError("n_states must be at least 1")
        if check_count("population", self.population) < 4 or self.population % 4:
            raise LearnerError(f"population must be a multiple of 4, got {self.population}")
        if check_count("max_mutations", self.max_mutations) < 1:
            raise LearnerError("max_mutations must be at least 1")
        for name in ("action_rate", "initial_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise LearnerError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        if self.fitness not in ("auto", "exact", "simulated"):
            raise LearnerError(f"fitness must be auto, exact or simulated, got {self.fitness!r}")
        if check_count("games", self.games) < 1:
            raise LearnerError("games must be at least 1")

    def exact_for(self, game: DeckDollar) -> bool:
        """Whether fitness is exact at `game`."""
        if self.fitness == "auto":
            return game.deck_size <= EXACT_DECK_LIMIT
        return self.fitness == "exact"


@dataclass(frozen=True)
class Checkpoint:
    """The best machine after `generation` generations: fitness evaluations and simulated games
    spent so far (games 0 under exact fitness), its fitness (exact, or the generation's
    estimate), and the machine."""

    generation: int
    evaluations: int
    games: int
    fitness: float
    fsm: FsmPlayer


@dataclass(frozen=True)
class Evolution:
    """A run: its game, seed, configuration, checkpoints (in order) and whether fitness was
    exact."""

    game: DeckDollar
    seed: int
    config: EvolutionConfig
    exact: bool
    checkpoints: tuple[Checkpoint, ...] = field(default=())

    @property
    def best(self) -> Checkpoint:
        return self.checkpoints[-1]


def random_fsm(n_states: int, rng: np.random.Generator) -> FsmPlayer:
    """A machine with every action, next state and the initial state uniform."""
    acts = rng.integers(0, 3, size=(n_states, N_OBSERVATIONS))
    trans = rng.integers(0, n_states, size=(n_states, N_OBSERVATIONS))
    return FsmPlayer(acts, trans, int(rng.integers(0, n_states)))


def mutate(fsm: FsmPlayer, config: EvolutionConfig, rng: np.random.Generator) -> FsmPlayer:
    """1 to ``max_mutations`` point mutations (module docstring)."""
    acts, trans, initial = fsm.actions.copy(), fsm.transitions.copy(), fsm.initial
    n = fsm.n_states
    for _ in range(int(rng.integers(1, config.max_mutations + 1))):
        if rng.random() < config.initial_rate:
            initial = int(rng.integers(0, n))
            continue
        q, o = int(rng.integers(0, n)), int(rng.integers(0, N_OBSERVATIONS))
        if rng.random() < config.action_rate:
            acts[q, o] = rng.integers(0, 3)
        else:
            trans[q, o] = rng.integers(0, n)
    return FsmPlayer(acts, trans, initial)


def crossover(one: FsmPlayer, two: FsmPlayer,
              rng: np.random.Generator) -> tuple[FsmPlayer, FsmPlayer]:
    """Two-point crossover of the state-major genes (an action with its next state); each child
    keeps its own parent's initial state."""
    size = one.n_states * N_OBSERVATIONS
    lo, hi = sorted(int(x) for x in rng.integers(0, size + 1, size=2))
    a1, a2 = one.actions.ravel().copy(), two.actions.ravel().copy()
    t1, t2 = one.transitions.ravel().copy(), two.transitions.ravel().copy()
    a1[lo:hi], a2[lo:hi] = two.actions.ravel()[lo:hi], one.actions.ravel()[lo:hi]
    t1[lo:hi], t2[lo:hi] = two.transitions.ravel()[lo:hi], one.transitions.ravel()[lo:hi]
    shape = one.actions.shape
    return (FsmPlayer(a1.reshape(shape), t1.reshape(shape), one.initial),
            FsmPlayer(a2.reshape(shape), t2.reshape(shape), two.initial))


class _Fitness:
    """Fitness of machines at one game, counting evaluations and simulated games."""

    def __init__(self, game: DeckDollar, config: EvolutionConfig, compiled: bool) -> None:
        self.game, self.config, self.compiled = game, config, compiled
        self.exact = config.exact_for(game)
        self.evaluations = 0
        self.games = 0

    def __call__(self, fsm: FsmPlayer, seed: int) -> float:
        self.evaluations += 1
        if self.exact:
            return evaluate_fsm(self.game, fsm, compiled=self.compiled).expected
        self.games += self.config.games
        rng = np.random.default_rng(seed)
        return simulate_fsm(self.game, fsm, self.config.games, rng, compiled=self.compiled).mean


def _generation(pop: list[FsmPlayer], fit: np.ndarray, fitness: _Fitness,
                config: EvolutionConfig, rng: np.random.Generator) -> None:
    """One generation of single tournament selection, in place (module docstring)."""
    order = rng.permutation(len(pop))
    seed = int(rng.integers(0, 2**63 - 1))
    for g in range(0, len(pop), 4):
        group = order[g:g + 4]
        ranked = group[np.argsort(-fit[group], kind="stable")]
        one, two = pop[ranked[0]], pop[ranked[1]]
        if config.crossover:
            one, two = crossover(one, two, rng)
        for slot, child in zip(ranked[2:], (one, two), strict=True):
            pop[slot] = mutate(child, config, rng)
            if fitness.exact:
                fit[slot] = fitness(pop[slot], seed)
    if not fitness.exact:
        for i in range(len(pop)):
            fit[i] = fitness(pop[i], seed)


def evolve_fsm(game: DeckDollar, generations: int, seed: int,
               config: EvolutionConfig | None = None, checkpoints: list[int] | None = None,
               compiled: bool = True) -> Evolution:
    """Evolves machines for `generations` generations from `seed` (module docstring); the best
    machine (highest fitness, first in the population on ties) is recorded after each generation
    in `checkpoints` (default: every generation; 0 is the initial population)."""
    config = config or EvolutionConfig()
    generations = check_count("generations", generations)
    seed = check_seed(seed)
    wanted = set(range(generations + 1)) if checkpoints is None else {
        check_count("checkpoint", c) for c in checkpoints}
    if any(c > generations for c in wanted):
        raise LearnerError(f"a checkpoint is past the last generation {generations}")
    rng = np.random.default_rng(seed)
    fitness = _Fitness(game, config, compiled)
    pop = [random_fsm(config.n_states, rng) for _ in range(config.population)]
    first = int(rng.integers(0, 2**63 - 1))
    fit = np.array([fitness(f, first) for f in pop])
    out = []
    for gen in range(generations + 1):
        if gen > 0:
            _generation(pop, fit, fitness, config, rng)
        if gen in wanted:
            i = int(np.argmax(fit))
            out.append(Checkpoint(gen, fitness.evaluations, fitness.games, float(fit[i]), pop[i]))
    return Evolution(game, seed, config, fitness.exact, tuple(out))


# --------------------------------------------------------------------------------- learner
@dataclass(frozen=True, eq=False)
class DeckFSMTables:
    """What a checkpoint keeps, read-only: the greedy machine ``best`` (module docstring), the
    latest scoring's fitness of every machine (NaN before the first), the scoring rounds run
    (the initial scoring counts 1; generations are one fewer) and the games simulated."""

    best: FsmPlayer
    fitness: np.ndarray
    rounds: int
    simulated: int

    @property
    def policy(self) -> FsmPlayer:
        return self.best

    def equals(self, other: DeckFSMTables) -> bool:
        a, b = self.best, other.best
        return (np.array_equal(a.actions, b.actions) and a.initial == b.initial
                and np.array_equal(a.transitions, b.transitions)
                and np.array_equal(self.fitness, other.fitness, equal_nan=True)
                and (self.rounds, self.simulated) == (other.rounds, other.simulated))


class DeckFSM(DeckLearner):
    """Evolved FSM players on the harness (module docstring: simulated fitness; ``played`` is
    the budget of fitness games); the learner contract of protocol games: ``name, game, seed,
    params, played, moves, play(games), tables(), policy(), state(), restore``."""

    NAME: ClassVar[str] = "evolved-fsm"
    SUMMARY: ClassVar[str] = ("evolved finite-state-machine players of the deck divide-the-"
                              "dollar game, fitness simulated against the uniform opponent")
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("n_states", 8, "states of each machine", kind="int", low=1, high=256),
        Param("population", 36, "machines (a multiple of 4)", kind="int", low=4, high=10**5),
        Param("machine_games", 2000, "games simulated per machine per scoring", kind="int",
              low=1, high=10**8),
        Param("max_mutations", 3, "a child's mutations: 1 to this many", kind="int", low=1,
              high=10**4),
        Param("crossover", "on", "two-point crossover of the parents", kind="choice",
              choices=("on", "off")),
        Param("action_rate", 0.5, "a mutation's chance to change an action (else a next "
              "state)", low=0.0, high=1.0),
        Param("initial_rate", 0.05, "a mutation's chance to change the initial state", low=0.0,
              high=1.0),
    )

    def __init__(self, game: Any, seed: int | None = None, *, engine: str = "numba",
                 **params: Any) -> None:
        self.setup(game, seed, params, engine)
        p = self.params
        self.config = EvolutionConfig(
            n_states=p["n_states"], population=p["population"], max_mutations=p["max_mutations"],
            crossover=p["crossover"] == "on", action_rate=p["action_rate"],
            initial_rate=p["initial_rate"], fitness="simulated", games=p["machine_games"])
        self.rng = np.random.default_rng(self.seed)
        self.pop = [random_fsm(self.config.n_states, self.rng)
                    for _ in range(self.config.population)]
        self.fit = np.full(self.config.population, np.nan)
        # budget (played), moves, scoring rounds run, games simulated
        self.counters = np.zeros(4, dtype=np.int64)


    @property
    def cost(self) -> int:
        """Games one scoring round simulates: population x machine_games."""
        return self.config.population * self.config.games

    def play(self, games: int) -> None:
        """`games` more games of budget: every whole scoring round it now covers (module
        docstring), on the compiled simulation (engine "numba") or its plain reference
        ("python"), identical machines."""
        games = check_games_limit(check_count("games", games))
        if not games:
            return
        self.counters[0] += games
        fitness = _Fitness(self.game, self.config, self.engine == "numba")
        while (self.counters[2] + 1) * self.cost <= self.counters[0]:
            with interrupts.atomic():
                if self.counters[2] == 0:
                    first = int(self.rng.integers(0, 2**63 - 1))
                    self.fit[:] = [fitness(f, first) for f in self.pop]
                else:
                    _generation(self.pop, self.fit, fitness, self.config, self.rng)
            self.counters[2] += 1
            self.counters[3] += self.cost
            self.counters[1] += self.cost * self.game.rounds

    def _best(self) -> FsmPlayer:
        return self.pop[0] if self.counters[2] == 0 else self.pop[int(np.argmax(self.fit))]

    def tables(self) -> DeckFSMTables:
        return DeckFSMTables(self._best(), readonly(self.fit.copy()), int(self.counters[2]),
                             int(self.counters[3]))

    def policy(self) -> FsmPlayer:
        """The greedy machine now (module docstring)."""
        return self._best()

    def state(self) -> dict[str, Any]:
        return {"actions": np.array([f.actions for f in self.pop]),
                "transitions": np.array([f.transitions for f in self.pop]),
                "initials": np.array([f.initial for f in self.pop], dtype=np.int64),
                "fitness": self.fit.copy(), "games": self.played, "moves": self.moves,
                "rounds": int(self.counters[2]), "simulated": int(self.counters[3]),
                "rng_state": rng_state_text(self.rng)}

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any], engine: str = "numba") -> DeckFSM:
        """A learner that plays on exactly as the one whose :meth:`state` this is."""
        obj = cls(game, seed, engine=engine, **dict(params))
        size, n = obj.config.population, obj.config.n_states
        acts = state_array(state, "actions", (size, n, N_OBSERVATIONS), "iu")
        trans = state_array(state, "transitions", (size, n, N_OBSERVATIONS), "iu")
        initials = state_array(state, "initials", (size,), "iu")
        try:
            obj.pop = [FsmPlayer(a, t, int(i)) for a, t, i in zip(acts, trans, initials,
                                                                   strict=True)]
        except Exception as exc:  # SolverError: a machine out of range
            raise LearnerError(f"the learner state's machines are invalid: {exc}") from exc
        obj.fit = np.array(state_array(state, "fitness", (size,), "f"), dtype=np.float64)
        obj.counters = np.array([state_int(state, k) for k in ("games", "moves", "rounds",
                                                                "simulated")], dtype=np.int64)
        if not obj.counters[3] == obj.counters[2] * obj.cost <= obj.counters[0] \
                < (obj.counters[2] + 1) * obj.cost:
            raise LearnerError("the learner state's scoring rounds do not match its games")
        obj.rng = generator_from_text(state.get("rng_state"))
        return obj
