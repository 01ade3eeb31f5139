"""A protocol game enumerated once into arrays: :class:`StateSpace`, :func:`enumerate_game`.

Every state reachable from the initial state gets an index (breadth first, the initial state
0); every (state, legal action) pair a row, the rows of one state contiguous and in the order of
its actions. The chance outcomes become one sparse matrix (rows x states, float64 probabilities;
scipy.sparse CSR), and, when asked (``exact=True``), a list of exact (successor, Fraction) pairs
per row. The solver and the learners work on these arrays, never on the game's objects, so a
game's own Python runs once per state.

While enumerating, every promise of :class:`~dicejack.games.protocol.FiniteGame` is checked,
each broken one a one-line GameDefinitionError naming the state.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dicejack.games.protocol import (
    GameDefinitionError,
    check_game_object,
    exact_probability,
    finite_number,
    game_label,
)

__all__ = ["StateSpace", "enumerate_game", "STATES_LIMIT"]

#: The most states a game may have (Pig to 100 has 960,896; enumerating and solving it took
#: about 850 MB, so this limit keeps a game within about 2 GB).
STATES_LIMIT = 2_000_000
#: How far the float sum of a row's probabilities may be from 1 (the exact sum is checked with
#: ``exact=True``).
SUM_TOLERANCE = 1e-12


class _Transitions:
    """``StateSpace.transitions``, a descriptor-typed dataclass field (still a required
    argument: no default): the scipy matrix given, or, where None was given in a compiled
    space, the matrix made from its `compact` one on first read and kept."""

    def __get__(self, space: Any, owner: Any = None) -> Any:
        if space is None:
            raise AttributeError("transitions")  # the dataclass: no default
        matrix = space.__dict__["_transitions"]
        if matrix is None and space.compact is not None:
            matrix = space.__dict__["_transitions"] = space.compact.csr()
        return matrix

    def __set__(self, space: Any, matrix: Any) -> None:
        space.__dict__["_transitions"] = matrix


@dataclass(frozen=True, eq=False)
class StateSpace:
    """The enumerated game (module docstring).

    states: the states, by index (0 = initial); index: state -> index; player: int8 per state
    (-1 at terminal states); payoff: float64 per state (player 0's; 0 where not terminal);
    payoff_exact: player 0's payoff per state as given (None where not terminal);
    row_start: int64 (n + 1,), the rows of state s are row_start[s]:row_start[s + 1];
    row_state: int64 per row, its state; actions: the action of each row;
    transitions: scipy.sparse CSR (rows x n) of the outcome probabilities; a compiled space is
    given None and makes it from `compact` on first read (:attr:`matrix`: it if made, else None);
    exact_rows: per row, ((successor index, Fraction), ...) when enumerated with exact=True;
    reward: float64 per row, player 0's reward for playing it (the game's optional
    ``reward(state, action)``; None when the game has no rewards: all 0); reward_exact: the
    rewards per row as the game gave them (None when the game has none); enumeration:
    "compiled" when the game described itself as arrays (its optional ``compiled_space``,
    :mod:`dicejack.games.compiled`; states, index and actions are then lazy views with the
    interfaces of a list and a dict), "python" when its Python ran once per state and action;
    compact: a compiled space's outcomes as a matrix with its probabilities coded into a small
    table (:class:`dicejack.games.compiled.CompactMatrix`: 5 bytes an outcome, not 12), which
    the solver sweeps and from which :attr:`transitions` is made on first read; None for a
    space enumerated through Python.
    """

    game: Any
    states: list[Hashable]
    index: dict[Hashable, int]
    player: np.ndarray
    payoff: np.ndarray
    payoff_exact: list[Any]
    row_start: np.ndarray
    row_state: np.ndarray
    actions: list[Hashable]
    transitions: Any = _Transitions()  # type: ignore[assignment]
    exact_rows: list[tuple[tuple[int, Fraction], ...]] | None = None
    reward: np.ndarray | None = None
    reward_exact: list[Any] | None = None
    enumeration: str = "python"
    compact: Any = None

    @property
    def matrix(self) -> Any:
        """The scipy matrix of transitions if it has been given or made, else None (a compiled
        space's before anything reads :attr:`transitions`); never makes it."""
        return self.__dict__["_transitions"]

    @property
    def n_states(self) -> int:
        return len(self.states)

    @property
    def n_rows(self) -> int:
        return len(self.actions)

    @property
    def terminal(self) -> np.ndarray:
        """Boolean per state: the game is over there."""
        return self.player < 0

    @property
    def num_players(self) -> int:
        return int(self.game.num_players)

    @property
    def label(self) -> str:
        return game_label(self.game)

    def rows(self, s: int) -> range:
        """The rows (state s, action) of state s."""
        return range(int(self.row_start[s]), int(self.row_start[s + 1]))

    def row_of(self, state: Hashable, action: Hashable) -> int:
        """The row of (state, action); GameDefinitionError if it is not a legal pair."""
        s = self.index.get(state)
        if s is None:
            raise GameDefinitionError(f"{state!r} is not a reachable state of {self.label}")
        for r in self.rows(s):
            if self.actions[r] == action:
                return r
        raise GameDefinitionError(f"{action!r} is not a legal action at {state!r}")


def _probability(game: Any, state: Any, action: Any, p: Any, seen: dict[int, Any]) -> float:
    """p as a float, checked exact and positive (:func:`~dicejack.games.protocol.
    exact_probability`); `seen` remembers the objects already checked by id (a game usually
    hands out the same few Fraction objects), keeping them alive."""
    known = seen.get(id(p))
    if known is not None and known[0] is p:
        return known[1]
    value = float(exact_probability(game, state, action, p))
    if len(seen) < 4096:
        seen[id(p)] = (p, value)
    return value


def _reward(game: Any, state: Any, action: Any) -> Any:
    try:
        value = game.reward(state, action)
    except Exception as exc:  # the game's own code: say where it failed
        raise GameDefinitionError(
            f"game {game.name}: reward({state!r}, {action!r}) raised {type(exc).__name__}: {exc}"
        ) from None
    return finite_number(game, f"reward at {state!r}, action {action!r}", value)


def _payoff(game: Any, state: Any) -> Any:
    try:
        value = game.payoff(state)
    except Exception as exc:  # the game's own code: say where it failed
        raise GameDefinitionError(
            f"game {game.name}: payoff({state!r}) raised {type(exc).__name__}: {exc}"
        ) from None
    return finite_number(game, f"payoff at {state!r}", value)


def enumerate_game(game: Any, exact: bool = False, limit: int = STATES_LIMIT) -> StateSpace:
    """Every state reachable from the game's initial state, as a :class:`StateSpace`.

    exact=True also keeps each row's outcomes as Fractions and checks that they sum to exactly
    1 (otherwise the float sum is checked to 1e-12). More than `limit` states is an error.
    A game with the optional ``compiled_space(limit)`` (a bundled game,
    :mod:`dicejack.games.compiled`) describes itself as arrays, unless `exact`; any other is
    enumerated through its Python, one call per state and action (``StateSpace.enumeration``).
    """
    check_game_object(game)
    if callable(getattr(game, "information_state", None)):  # games.information's games
        raise GameDefinitionError(
            f"game {game.name} has hidden information: its states are not what its players "
            "see; solve it with dicejack.solver.sequence_form (enumerate_information)"
        )
    fast = None if exact else getattr(game, "compiled_space", None)
    if callable(fast):
        space = fast(limit)
        if space is not None:
            return space
    start = game.initial_state()
    try:
        hash(start)
    except TypeError:
        raise GameDefinitionError(f"game {game.name}: states must be hashable, got {start!r}")\
            from None
    walk = _Enumeration(game, start, exact, limit)
    states, s = walk.states, 0
    try:
        while s < len(states):  # breadth first: the states met are appended as they come
            state = states[s]
            if game.is_terminal(state):
                walk.add_terminal(state)
            else:
                walk.add_rows(s, state, walk.legal(state))
            s += 1
    except GameDefinitionError:
        raise
    except Exception as exc:  # the game's own code failed: say where, in one line
        raise GameDefinitionError(
            f"game {getattr(game, 'name', '?')}: {type(exc).__name__} at state "
            f"{states[s]!r}: {exc}"
        ) from None
    return walk.space()


class _Enumeration:
    """The arrays of :func:`enumerate_game` as they grow, breadth first, one state at a time;
    every promise of the protocol checked on the way."""

    def __init__(self, game: Any, start: Hashable, exact: bool, limit: int) -> None:
        self.game, self.exact, self.limit = game, exact, limit
        self.two = game.num_players == 2
        self.states: list[Hashable] = [start]
        self.index: dict[Hashable, int] = {start: 0}
        self.player: list[int] = []
        self.payoff: list[float] = []
        self.payoff_exact: list[Any] = []
        self.row_start = [0]
        self.row_state: list[int] = []
        self.actions: list[Hashable] = []
        self.cols: list[int] = []
        self.data: list[float] = []
        self.indptr = [0]
        self.exact_rows: list[tuple[tuple[int, Fraction], ...]] | None = [] if exact else None
        self.checked: dict[int, Any] = {}
        self.rewarded = callable(getattr(game, "reward", None))
        self.rewards: list[Any] = []

    def add_terminal(self, state: Hashable) -> None:
        """Add a terminal state: its payoff, no rows."""
        value = _payoff(self.game, state)
        self.player.append(-1)
        self.payoff.append(float(value))
        self.payoff_exact.append(value)
        self.row_start.append(len(self.actions))

    def legal(self, state: Hashable) -> list[Hashable]:
        """The legal actions at a non-terminal state, its player (0, or 0/1 in a two-player
        game) recorded; GameDefinitionError if either breaks the protocol."""
        game = self.game
        mover = game.player(state)
        if mover not in ((0, 1) if self.two else (0,)):
            raise GameDefinitionError(
                f"game {game.name}: player at {state!r} is {mover!r}, not "
                f"{'0 or 1' if self.two else '0 (a one-player game)'}"
            )
        legal = list(game.actions(state))
        if not legal:
            raise GameDefinitionError(
                f"game {game.name}: no legal action at the non-terminal state {state!r}"
            )
        if len(set(legal)) != len(legal):
            raise GameDefinitionError(f"game {game.name}: an action repeats at {state!r}")
        self.player.append(int(mover))
        self.payoff.append(0.0)
        self.payoff_exact.append(None)
        return legal

    def add_rows(self, s: int, state: Hashable, legal: list[Hashable]) -> None:
        """Add the rows of non-terminal state `s`, one per legal action: its outcomes (new
        states queued), their sum checked, its reward if the game has rewards."""
        game, exact, checked, index = self.game, self.exact, self.checked, self.index
        cols, data, rewarded = self.cols, self.data, self.rewarded
        actions, row_state, indptr = self.actions, self.row_state, self.indptr
        for action in legal:
            seen: set[int] = set()
            total = 0.0
            exact_row = []
            for nxt, p in game.outcomes(state, action):
                known = checked.get(id(p))  # the fast path of _probability
                if known is not None and known[0] is p:
                    q = known[1]
                else:
                    q = _probability(game, state, action, p, checked)
                j = index.get(nxt)
                if j is None:
                    j = self._new_state(nxt)
                if j in seen:
                    raise GameDefinitionError(
                        f"game {game.name}: successor {nxt!r} appears twice at {state!r}, "
                        f"action {action!r} (give each once with its total probability)"
                    )
                seen.add(j)
                cols.append(j)
                data.append(q)
                total += q
                if exact:
                    exact_row.append((j, Fraction(p)))
            if exact or not seen or abs(total - 1.0) > SUM_TOLERANCE * len(seen):
                self._check_sum(state, action, len(seen), total, exact_row)
            if rewarded:
                self.rewards.append(_reward(game, state, action))
            actions.append(action)
            row_state.append(s)
            indptr.append(len(cols))
        self.row_start.append(len(actions))

    def _new_state(self, nxt: Any) -> int:
        """Index a state met for the first time (queued to be expanded); GameDefinitionError if
        it is not hashable or one too many."""
        try:
            j = self.index[nxt] = len(self.states)
        except TypeError:
            raise GameDefinitionError(
                f"game {self.game.name}: states must be hashable, got {nxt!r}"
            ) from None
        self.states.append(nxt)
        if len(self.states) > self.limit:
            raise GameDefinitionError(
                f"game {self.game.name}: more than {self.limit:,} reachable states; "
                "too large to enumerate"
            )
        return j

    def _check_sum(self, state: Hashable, action: Hashable, n: int, total: float,
                   exact_row: list[tuple[int, Fraction]]) -> None:
        """A row has outcomes, and its probabilities sum to 1 (exactly with `exact`, the exact
        row kept; else within SUM_TOLERANCE per outcome): GameDefinitionError otherwise."""
        game = self.game
        if not n:
            raise GameDefinitionError(
                f"game {game.name}: action {action!r} at {state!r} has no outcome"
            )
        if self.exact:
            if sum(p for _, p in exact_row) != 1:
                raise GameDefinitionError(
                    f"game {game.name}: the probabilities at {state!r}, action {action!r} "
                    "sum to " + str(sum(p for _, p in exact_row)) + ", not 1"
                )
            self.exact_rows.append(tuple(exact_row))  # type: ignore[union-attr]
        elif abs(total - 1.0) > SUM_TOLERANCE * n:
            raise GameDefinitionError(
                f"game {game.name}: the probabilities at {state!r}, action {action!r} "
                f"sum to {total!r}, not 1"
            )

    def space(self) -> StateSpace:
        """The finished enumeration as a :class:`StateSpace` (the transitions as CSR)."""
        from scipy import sparse

        n = len(self.states)
        matrix = sparse.csr_matrix(
            (np.asarray(self.data, dtype=np.float64), np.asarray(self.cols, dtype=np.int64),
             np.asarray(self.indptr, dtype=np.int64)),
            shape=(len(self.actions), n),
        )
        rewarded, rewards = self.rewarded, self.rewards
        return StateSpace(
            game=self.game,
            states=self.states,
            index=self.index,
            player=np.asarray(self.player, dtype=np.int8),
            payoff=np.asarray(self.payoff, dtype=np.float64),
            payoff_exact=self.payoff_exact,
            row_start=np.asarray(self.row_start, dtype=np.int64),
            row_state=np.asarray(self.row_state, dtype=np.int64),
            actions=self.actions,
            transitions=matrix,
            exact_rows=self.exact_rows,
            reward=np.asarray([float(x) for x in rewards], dtype=np.float64) if rewarded
            else None,
            reward_exact=rewards if rewarded else None,
        )
