"""Learners for any protocol game (:mod:`dicejack.games`): tabular Q-learning and Monte Carlo
with exploring starts, on the enumerated game's rows (one per state and legal action).

Both estimate Q(s, a), player 0's expected payoff of playing a at s then on; player 0 takes the
largest, player 1 the smallest (self-play of a zero-sum game; a one-player game has player 0
only). Every random draw comes from one seeded numpy Generator, game after game in a fixed
order, so the tables are the same however the games are chunked, and a learner saved with
:meth:`state` and rebuilt with :meth:`restore` plays on exactly as the original would have.

``q-learning``: epsilon-greedy self-play from the initial state (the schedule of
:data:`~dicejack.learners.base.EPSILON_PARAMS`); after each move
Q(s, a) += alpha (target - Q(s, a)), target = the payoff at a terminal successor, else the
successor's greedy value (its mover's best Q). alpha None = 1/n, n the pair's updates.
``mc-exploring-starts``: each game starts at a (state, action) pair drawn uniformly from every
non-terminal pair (exploring starts), then both seats play greedily; at the end each pair first
visited in the game moves to the running mean of the payoffs seen after it (Sutton and Barto,
Monte Carlo ES).

A game cut at `max_moves` moves (a greedy policy that never ends a cyclic game) still counts as
played; Q-learning keeps its updates, Monte Carlo ES learns nothing from it. Two engines with
identical tables (tests): "numba", the compiled loops of :mod:`dicejack.learners.game_kernels`
(the default), and "python", the plain loops here over lists, their reference
(benchmarks/bench_game_learners.py --rounds 15: on Pig to 50, 12.5-15.2 and 5.2-5.7 million
moves per CPU-second compiled, 38-51x and 23-28x the plain loops; q-learning 1.01-1.06x a C loop
of the same update, the counting rule 1.03-1.08x). Tests hold both learners to the contract
(:func:`~dicejack.learners.contract.check_learner`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from dicejack.games import StateSpace, enumerate_game
from dicejack.games.protocol import game_label
from dicejack.learners.base import (
    EPSILON_PARAMS,
    Counted,
    LearnedRun,
    Param,
    check_params,
    format_value,
    generator_from_text,
    readonly,
    rng_state_text,
    state_array,
    state_int,
)
from dicejack.learners.checks import LearnerError, check_count, check_games_limit, check_seed
from dicejack.learners.reference import epsilon_at
from dicejack.runtime import interrupts

__all__ = [
    "GameTables",
    "GameRun",
    "GameLearner",
    "GameQLearning",
    "GameMCExploringStarts",
    "GameCounting",
    "GAME_LEARNERS",
    "game_space",
]

_SPACES: dict[Any, StateSpace] = {}


def game_space(game: Any) -> StateSpace:
    """The game's :class:`StateSpace`, enumerated once per process for a hashable game (the
    last four kept)."""
    try:
        key = (type(game), game)
        hash(key)
    except TypeError:
        return enumerate_game(game)
    space = _SPACES.get(key)
    if space is None:
        space = enumerate_game(game)
        if len(_SPACES) >= 4:
            _SPACES.pop(next(iter(_SPACES)))
        _SPACES[key] = space
    return space


@dataclass(frozen=True, eq=False)
class GameTables:
    """A learner's greedy tables over the enumerated states, read-only.

    best: int64 per state, the row (state, action) the learner rates best, -1 where it has no
    data or the state is terminal; value: float64 per state, its Q there (NaN where none);
    visits: int64 per state, the moves made from it.
    """

    best: np.ndarray
    value: np.ndarray
    visits: np.ndarray

    def equals(self, other: GameTables) -> bool:
        return (np.array_equal(self.best, other.best) and np.array_equal(self.visits, other.visits)
                and np.array_equal(self.value, other.value, equal_nan=True))

    def policy(self, space: StateSpace) -> np.ndarray:
        """The greedy policy as row weights (uniform where there is no data)."""
        counts = np.diff(space.row_start)
        w = 1.0 / np.maximum(np.repeat(counts, counts), 1).astype(np.float64)
        known = np.flatnonzero(self.best >= 0)
        w[np.isin(space.row_state, known)] = 0.0
        w[self.best[known]] = 1.0
        return w


@dataclass(frozen=True, eq=False)
class GameRun(LearnedRun):
    """A run of a protocol game other than the handout's (a
    :class:`~dicejack.learners.base.LearnedRun` whose tables are :class:`GameTables`)."""

    final: GameTables
    snapshots: Mapping[int, GameTables] = field(default_factory=dict)


class GameLearner(Counted):
    """What the two learners share: the game, its rows as Python lists, Q, counts, the
    generator, and the contract (``name, game, seed, params, played, moves, play(games),
    tables(), state(), restore``)."""

    NAME: ClassVar[str] = ""
    SUMMARY: ClassVar[str] = ""
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    STATE_KEYS: ClassVar[tuple[str, ...]] = ("q", "n", "visits", "games", "moves", "rng_state")

    ENGINES: ClassVar[tuple[str, ...]] = ("numba", "python")

    def __init__(self, game: Any, seed: int | None = None, *, engine: str = "numba",
                 **params: Any) -> None:
        if engine not in self.ENGINES:
            raise LearnerError(f"engine must be one of {', '.join(self.ENGINES)}; got {engine!r}")
        self.engine = engine
        self.name = self.NAME
        self.game = game
        self.seed = check_seed(seed)
        self.params = check_params(self.NAME, self.PARAMS, params)
        self.space = game_space(game)
        space = self.space
        if space.reward is not None and np.any(space.reward != 0):
            raise LearnerError(f"{game_label(game)} pays rewards per action; the learner "
                               f"{self.NAME} learns terminal payoffs only (see "
                               "dicejack.learners.feature_q for one that takes rewards)")
        if space.terminal[0]:
            raise LearnerError(f"{game_label(game)}: the initial state is terminal; nothing to "
                               "learn")
        self.rng = np.random.default_rng(self.seed)
        self.q = np.full(space.n_rows, float(self.params.get("q_init", 0.0)))
        self.n = np.zeros(space.n_rows, dtype=np.int64)
        self.visits = np.zeros(space.n_states, dtype=np.int64)
        self.counters = np.zeros(2, dtype=np.int64)  # games, moves
        self.arrays = _row_arrays(space)
        self._lists: dict[str, list[Any]] | None = None

    def __repr__(self) -> str:
        words = " ".join(f"{k}={format_value(v)}" for k, v in self.params.items())
        return f"<{type(self).__name__} {self.name} {words} seed={self.seed} played={self.played}>"


    def lists(self) -> dict[str, list[Any]]:
        """The row arrays as Python lists, for the plain loops (made on first use)."""
        if self._lists is None:
            self._lists = {k: v.tolist() for k, v in self.arrays.items()}
        return self._lists

    @property
    def label(self) -> str:
        words = [self.name, *(f"{k}={format_value(v)}" for k, v in self.params.items())]
        return " ".join([*words, f"seed={self.seed}", f"games={self.played}"])

    # ----------------------------------------------------------------------------- helpers
    def _outcome(self, row: int, u: float) -> int:
        """The successor one uniform u draws from `row`'s outcomes."""
        lists = self.lists()
        i = lists["indptr"][row]
        cum = lists["cum"]
        while u >= cum[i]:
            i += 1
        return lists["succ"][i]

    @staticmethod
    def _greedy(q: list[float], lo: int, hi: int, sign: float) -> int:
        """The row of lo..hi-1 with the mover's best Q (player 1: the smallest); ties: first."""
        best, top = lo, sign * q[lo]
        for r in range(lo + 1, hi):
            v = sign * q[r]
            if v > top:
                best, top = r, v
        return best

    def play(self, games: int) -> None:
        """Play `games` more games (chunking never changes the result): the compiled loop
        (engine "numba") or the plain one ("python"), identical tables."""
        games = check_games_limit(check_count("games", games))
        if not games:
            return
        if self.engine == "numba":
            with interrupts.atomic():  # a signal inside an import can hang the next one
                from dicejack.learners import game_kernels, pcg
            self._play_compiled(games, game_kernels, pcg)
            return
        q, n, visits = self.q.tolist(), self.n.tolist(), self.visits.tolist()
        counters = self.counters.tolist()
        try:
            self._play(games, q, n, visits, counters)
        finally:  # whole games only: the loop bumps the counters after each
            self.q = np.asarray(q, dtype=np.float64)
            self.n = np.asarray(n, dtype=np.int64)
            self.visits = np.asarray(visits, dtype=np.int64)
            self.counters = np.asarray(counters, dtype=np.int64)

    def _play(self, games: int, q: list[float], n: list[int], visits: list[int],
              counters: list[int]) -> None:
        raise NotImplementedError  # pragma: no cover - every learner overrides

    def _play_compiled(self, games: int, kernels: Any, pcg: Any) -> None:
        raise NotImplementedError  # pragma: no cover - every learner overrides

    def tables(self) -> GameTables:
        """The greedy tables now (:class:`GameTables`): in each visited state the first row with
        the mover's best Q, as the loops choose."""
        space = self.space
        best = np.full(space.n_states, -1, dtype=np.int64)
        value = np.full(space.n_states, np.nan)
        seen = np.flatnonzero(self.visits > 0)
        if len(seen):
            a = self.arrays
            mover_q = a["sign"][a["row_state"]] * self.q
            starts = a["row_start"][seen]
            counts = a["row_start"][seen + 1] - starts
            rows = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts) \
                + np.arange(int(counts.sum()))
            top = np.maximum.reduceat(mover_q[rows], np.concatenate(([0], np.cumsum(counts)[:-1])))
            owner = np.repeat(np.arange(len(seen)), counts)
            hit = rows[mover_q[rows] == top[owner]]
            first = np.unique(a["row_state"][hit], return_index=True)
            best[first[0]] = hit[first[1]]
            value[first[0]] = self.q[hit[first[1]]]
        return GameTables(readonly(best), readonly(value), readonly(self.visits.copy()))

    def state(self) -> dict[str, Any]:
        return {"q": self.q.copy(), "n": self.n.copy(), "visits": self.visits.copy(),
                "games": self.played, "moves": self.moves,
                "rng_state": rng_state_text(self.rng)}

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any], engine: str = "numba") -> GameLearner:
        """A learner that plays on exactly as the one whose :meth:`state` this is."""
        obj = cls(game, seed, engine=engine, **dict(params))
        space = obj.space
        obj.q = np.array(state_array(state, "q", (space.n_rows,), "f"), dtype=np.float64)
        obj.n = np.array(state_array(state, "n", (space.n_rows,), "iu"), dtype=np.int64)
        obj.visits = np.array(state_array(state, "visits", (space.n_states,), "iu"),
                              dtype=np.int64)
        obj.counters = np.array([state_int(state, "games"), state_int(state, "moves")],
                                dtype=np.int64)
        obj.rng = generator_from_text(state.get("rng_state"))
        return obj


MAX_MOVES = Param("max_moves", 100_000, "moves after which a game is cut (a cyclic game "
                  "greedy play never ends)", kind="int", low=1, high=10**9)


class GameQLearning(GameLearner):
    """Tabular Q-learning by epsilon-greedy self-play (module docstring)."""

    NAME = "q-learning"
    SUMMARY = "tabular Q-learning, target the successor's greedy value (any protocol game)"
    PARAMS = (
        *EPSILON_PARAMS,
        Param("alpha", None, "step size (1/n: the pair's running mean)", low=0.0, high=1.0,
              low_open=True, none="1/n"),
        Param("q_init", 0.5, "initial Q of every pair", low=-1e300, high=1e300),
        MAX_MOVES,
    )

    def _play_compiled(self, games: int, kernels: Any, pcg: Any) -> None:
        p, a = self.params, self.arrays
        pcg.stepping(
            self.rng, kernels.q_game_self_play, self.q, self.n, self.visits, self.counters,
            a["row_start"], a["indptr"], a["succ"], a["cum"], a["sign"], a["terminal"],
            a["payoff"], p["epsilon"], p["epsilon_min"], p["epsilon_decay"],
            0.0 if p["alpha"] is None else p["alpha"], p["max_moves"], games,
        )

    def _play(self, games: int, q: list[float], n: list[int], visits: list[int],
              counters: list[int]) -> None:
        p, lists = self.params, self.lists()
        alpha, cap = p["alpha"], p["max_moves"]
        rng, rs, sign, terminal, payoff = (self.rng, lists["row_start"], lists["sign"],
                                           lists["terminal"], lists["payoff"])
        greedy, outcome = self._greedy, self._outcome
        for _ in range(games):
            eps = epsilon_at(counters[0], p["epsilon"], p["epsilon_min"],
                             p["epsilon_decay"])
            s, moves = 0, 0
            while not terminal[s] and moves < cap:
                lo, hi = rs[s], rs[s + 1]
                u = rng.random()
                if u < eps:
                    r = lo + min(int(u / eps * (hi - lo)), hi - lo - 1)
                else:
                    r = greedy(q, lo, hi, sign[s])
                nxt = outcome(r, rng.random())
                if terminal[nxt]:
                    target = payoff[nxt]
                else:
                    target = q[greedy(q, rs[nxt], rs[nxt + 1], sign[nxt])]
                n[r] += 1
                step = 1.0 / n[r] if alpha is None else alpha
                q[r] += step * (target - q[r])
                visits[s] += 1
                s = nxt
                moves += 1
            counters[0] += 1
            counters[1] += moves


class GameMCExploringStarts(GameLearner):
    """Monte Carlo with exploring starts, greedy self-play (module docstring)."""

    NAME = "mc-exploring-starts"
    SUMMARY = "Monte Carlo ES: random first (state, action), then greedy; first-visit means"
    PARAMS = (
        Param("q_init", 0.5, "initial Q of every pair (before its first return)",
              low=-1e300, high=1e300),
        MAX_MOVES,
    )

    def _play_compiled(self, games: int, kernels: Any, pcg: Any) -> None:
        a = self.arrays
        pcg.stepping(
            self.rng, kernels.mc_es_self_play, self.q, self.n, self.visits, self.counters,
            a["row_start"], a["indptr"], a["succ"], a["cum"], a["sign"], a["terminal"],
            a["payoff"], a["row_state"], a["pairs"], self.params["max_moves"], games,
        )

    def _play(self, games: int, q: list[float], n: list[int], visits: list[int],
              counters: list[int]) -> None:
        cap, lists = self.params["max_moves"], self.lists()
        rng, rs, sign, terminal, payoff = (self.rng, lists["row_start"], lists["sign"],
                                           lists["terminal"], lists["payoff"])
        greedy, outcome, pairs = self._greedy, self._outcome, lists["pairs"]
        row_state = lists["row_state"]
        for _ in range(games):
            r = pairs[min(int(rng.random() * len(pairs)), len(pairs) - 1)]
            s = row_state[r]
            seen: dict[int, None] = {}
            moves = 0
            while True:
                seen.setdefault(r, None)
                visits[s] += 1
                moves += 1
                s = outcome(r, rng.random())
                if terminal[s] or moves >= cap:
                    break
                r = greedy(q, rs[s], rs[s + 1], sign[s])
            if terminal[s]:
                g = payoff[s]
                for pair in seen:
                    n[pair] += 1
                    q[pair] += (g - q[pair]) / n[pair]
            counters[0] += 1
            counters[1] += moves


def _row_arrays(space: StateSpace) -> dict[str, np.ndarray]:
    """What the loops read, contiguous: row_start, indptr, succ, cum (the running sum of each
    row's probabilities, its last entry inf: an outcome is the first with u < cum), sign (+1
    player 0, -1 player 1), terminal, payoff, row_state, pairs (the rows of non-terminal
    states: every row)."""
    t = space.transitions
    indptr = t.indptr.astype(np.int64)
    lengths = np.diff(indptr)
    within = np.arange(len(t.data)) - np.repeat(indptr[:-1], lengths)
    cum = t.data.astype(np.float64)
    for j in range(1, int(lengths.max(initial=1))):  # row by row, left to right, as a loop would
        at = np.flatnonzero(within == j)
        cum[at] = cum[at - 1] + cum[at]
    cum[indptr[1:] - 1] = np.inf  # the last outcome takes whatever rounding leaves
    return {
        "row_start": space.row_start.astype(np.int64),
        "indptr": indptr,
        "succ": t.indices.astype(np.int64),
        "cum": np.ascontiguousarray(cum),
        "sign": np.where(space.player == 1, -1.0, 1.0),
        "terminal": np.ascontiguousarray(space.terminal),
        "payoff": space.payoff.astype(np.float64),
        "row_state": space.row_state.astype(np.int64),
        "pairs": np.arange(space.n_rows, dtype=np.int64),
    }


class GameCounting(GameLearner):
    """The handout's counting learner on any win/lose protocol game: per (state, action) the
    mover's wins and losses after it (``n`` holds the wins, ``q`` is unused: the counts are
    the state), f_a = W / (W + L) (0.5 for an untried action, as the handout says), B the
    lowest best f, and the handout's p_a with M
    (:func:`dicejack.learners.formulas.move_probabilities`, actions in the game's order as
    J = 1..K); the action drawn by the handout's sampler (cumulative p, first with x < it).
    Each move counts (a state visited twice in one game counts twice). Payoffs must be 0 or 1
    (player 0 wins with 1); one-player games count 1 as a win. Compiled (engine "numba",
    :func:`dicejack.learners.game_kernels.counting_self_play`) or the plain loop ("python"),
    identical tables."""

    NAME = "counting"
    SUMMARY = "the handout's counting rule (win/lose counts, M) on any win/lose protocol game"
    PARAMS = (
        Param("m", 100.0, "the handout's M: explore/exploit", low=0.0, high=1e300),
        MAX_MOVES,
    )
    STATE_KEYS = ("q", "n", "lose", "visits", "games", "moves", "rng_state")

    def __init__(self, game: Any, seed: int | None = None, *, engine: str = "numba",
                 **params: Any) -> None:
        super().__init__(game, seed, engine=engine, **params)
        self._player = self.space.player.astype(np.int64)
        bad = [p for p in set(self.space.payoff[self.space.terminal].tolist()) if p not in (0, 1)]
        if bad:
            raise LearnerError(f"{game_label(game)}: the counting rule needs win/lose payoffs "
                               f"(0 or 1), got {bad[0]!r}")
        self.lose = np.zeros(self.space.n_rows, dtype=np.int64)

    def _play_compiled(self, games: int, kernels: Any, pcg: Any) -> None:
        p, a = self.params, self.arrays
        pcg.stepping(
            self.rng, kernels.counting_self_play, self.n, self.lose, self.visits, self.counters,
            a["row_start"], a["indptr"], a["succ"], a["cum"], a["terminal"], a["payoff"],
            self._player, float(p["m"]), p["max_moves"], games,
        )

    def _play(self, games: int, q: list[float], n: list[int], visits: list[int],
              counters: list[int]) -> None:
        from dicejack.learners.formulas import estimates, move_probabilities

        lose = self.lose.tolist()
        m, cap, lists = self.params["m"], self.params["max_moves"], self.lists()
        rng, rs, terminal, payoff = self.rng, lists["row_start"], lists["terminal"], \
            lists["payoff"]
        player = self.space.player.tolist()
        outcome = self._outcome
        try:
            for _ in range(games):
                s, moves, made = 0, 0, []
                while not terminal[s] and moves < cap:
                    lo, hi = rs[s], rs[s + 1]
                    k = hi - lo
                    # the handout's f_J (0.5 untried), T and B; the rows as J = 1..K
                    f, total, best = estimates([0, *n[lo:hi]], [0, *lose[lo:hi]], k)
                    p = move_probabilities(f, total, best, k, m)
                    x = rng.random()
                    j, u = k, p[0]
                    for i in range(1, k):
                        u += p[i]
                        if x < u:
                            j = i
                            break
                    r = lo + j - 1
                    made.append((r, player[s]))
                    visits[s] += 1
                    s = outcome(r, rng.random())
                    moves += 1
                if terminal[s]:
                    winner = 0 if payoff[s] == 1 else 1
                    for r, mover in made:
                        if mover == winner:
                            n[r] += 1
                        else:
                            lose[r] += 1
                counters[0] += 1
                counters[1] += moves
        finally:
            self.lose = np.asarray(lose, dtype=np.int64)

    def tables(self) -> GameTables:
        """Per state with counts: B (the lowest best f, as a row) and f_B as player 0's payoff
        (1 - f_B where player 1 moves), as every learner's values are."""
        space = self.space
        best = np.full(space.n_states, -1, dtype=np.int64)
        value = np.full(space.n_states, np.nan)
        tried = self.n + self.lose
        # as the handout prints: the best among the actions with data (an untried one's 0.5
        # guides the choice while learning, never the table)
        f = np.where(tried > 0, self.n / np.maximum(tried, 1), -np.inf)
        rs = self.arrays["row_start"]
        for s in np.flatnonzero(self.visits > 0).tolist():
            lo, hi = int(rs[s]), int(rs[s + 1])
            if tried[lo:hi].sum() == 0:
                continue
            r = lo + int(np.argmax(f[lo:hi]))
            best[s], value[s] = r, f[r] if space.player[s] == 0 else 1.0 - f[r]
        return GameTables(readonly(best), readonly(value), readonly(self.visits.copy()))

    def state(self) -> dict[str, Any]:
        out = super().state()
        out["lose"] = self.lose.copy()
        return out

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any], engine: str = "numba") -> GameLearner:
        obj = super().restore(game, seed, params, state, engine=engine)
        obj.lose = np.array(state_array(state, "lose", (obj.space.n_rows,), "iu"),
                            dtype=np.int64)
        return obj


#: The learners of protocol games by name.
GAME_LEARNERS: dict[str, type[GameLearner]] = {
    GameQLearning.NAME: GameQLearning,
    GameMCExploringStarts.NAME: GameMCExploringStarts,
    GameCounting.NAME: GameCounting,
}
