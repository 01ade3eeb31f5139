"""Compiled enumeration: a bundled game that describes itself as arrays, so that
:func:`~dicejack.games.space.enumerate_game` makes no Python call per state or transition.

The optional game member (duck-typed, beside :class:`~dicejack.games.protocol.FiniteGame`'s;
protocol.py is unchanged): ``compiled_space(limit)`` -> a :class:`StateSpace` equal to what the
protocol's own enumeration makes of the game (same states in the same breadth-first order, the
same rows, actions and float64 probabilities: tests hold them equal), or None to decline.
``enumerate_game`` uses it unless exact Fractions are asked for; a game without it (a user's
class) is enumerated through its Python, one call per state and action, and the space says so
(``StateSpace.enumeration``: "compiled" or "python"; ``dicejack solve --game`` notes it).

Here: the turn-total games (Pig, Piglet, :class:`~dicejack.games.pig.PigReset`), one
breadth-first kernel over integer state codes, compiled by numba, with the plain Python function
it is compiled from as its reference (tests run both). A state ``(s0, s1, k, me)`` has code
``((me * G + s0) * G + s1) * G + k`` (G the goal), ``("win", w)`` the code ``2 G**3 + w``. The
states and the index are lazy views of two integer arrays (``order``: code per state;
``index_of``: state per code, -1 where unreachable), not a list of tuples and a dict: about
8 bytes per state instead of a few hundred.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from dicejack.games.protocol import GameDefinitionError
from dicejack.games.space import StateSpace

__all__ = ["turn_total_space", "TurnTotalStates", "TurnTotalIndex", "RowActions", "WinPayoffs"]


def _turn_total_outcomes_plain(rules, code, a, out_code, out_p):
    """The rules, once: the outcomes of action a (0 roll, 1 hold) at the non-terminal state
    `code` in the protocol's order (the pig; the reset when it is another state; each face
    that does not win; the win) as codes and probabilities into out_code and out_p; returns
    their number. rules: (goal, points, probs, pig, reset, pig_reset, winning)."""
    g, points, probs, pig, reset, pig_reset, winning = rules
    g3 = g * g * g
    me = code // g3
    s0 = (code // (g * g)) % g
    s1 = (code // g) % g
    k = code % g
    if a == 1:
        out_code[0] = ((g + s0 + k) * g + s1) * g if me == 0 else (s0 * g + s1 + k) * g
        out_p[0] = 1.0
        return 1
    out_code[0] = (((1 - me) * g + s0) * g + s1) * g
    out_p[0] = pig
    m = 1
    if reset > 0.0:
        back = (g * g + s1) * g if me == 0 else s0 * g * g
        if back == out_code[0]:
            out_p[0] = pig_reset
        else:
            out_code[1] = back
            out_p[1] = reset
            m = 2
    need = g - (s0 if me == 0 else s1) - k
    for f in range(points.shape[0]):
        if 0 < points[f] < need:
            out_code[m] = code + points[f]
            out_p[m] = probs[f]
            m += 1
    if need < winning.shape[0] and winning[need] > 0.0:
        out_code[m] = 2 * g3 + me
        out_p[m] = winning[need]
        m += 1
    return m


def _turn_total_plain(rules, index_of, order, known, fill, row_start, row_state, row_action,
                      indptr, indices, data, player, payoff):
    """Breadth first from code 0 (module docstring), each row's outcomes by
    :func:`_turn_total_outcomes_plain`. With fill False it only numbers the states (index_of,
    order) and counts; with fill True (index_of and order, `known` states, from the first
    pass) it writes the rows, and the matrix (indptr, indices, data) unless those are empty.
    Returns (states, rows, nnz)."""
    g3 = rules[0] ** 3
    out_code = np.empty(rules[1].shape[0] + 3, dtype=np.int64)
    out_p = np.empty(rules[1].shape[0] + 3)
    matrix = fill and indices.shape[0] > 0
    n = known if fill else 1
    rows, nnz, s = 0, 0, 0
    order[0], index_of[0] = 0, 0
    while s < n:
        code = order[s]
        if fill:
            row_start[s] = rows
            player[s] = -1 if code >= 2 * g3 else code // g3
            payoff[s] = 1.0 if code == 2 * g3 else 0.0
        if code >= 2 * g3:
            s += 1
            continue
        for a in range(2 if code % rules[0] > 0 else 1):
            m = _outcomes_rule(rules, code, a, out_code, out_p)
            for i in range(m):
                j = index_of[out_code[i]]
                if j < 0:
                    j = n
                    index_of[out_code[i]] = n
                    order[n] = out_code[i]
                    n += 1
                if matrix:
                    indices[nnz] = j
                    data[nnz] = out_p[i]
                nnz += 1
            if fill:
                row_state[rows] = s
                row_action[rows] = a
            if matrix:
                indptr[rows + 1] = nnz
            rows += 1
        s += 1
    if fill:
        row_start[n] = rows
    return n, rows, nnz


def _turn_total_row_plain(graph, s, r, js, ps):
    """The solver's callee (:mod:`dicejack.solver.generic_sweeps`): the outcomes of row r of
    state s as state indices and probabilities into js and ps, on the fly from the rules
    (graph: :meth:`TurnTotalRules.graph`); returns their number."""
    row_start, order, index_of, rules = graph
    m = _outcomes_rule(rules, order[s], r - row_start[s], js, ps)
    for i in range(m):
        js[i] = index_of[js[i]]
    return m


_PLAIN = {"outcomes": _turn_total_outcomes_plain, "enumerate": _turn_total_plain,
          "row": _turn_total_row_plain}
#: The kernels' callee by the name they call it: the plain rule here, the compiled one in
#: the compiled kernels' globals (:func:`_kernel`).
_outcomes_rule = _turn_total_outcomes_plain
_COMPILED: dict[str, Any] = {}


def _kernel(name: str, compiled: bool = True) -> Any:
    """The kernel `name` (outcomes, enumerate, row): the plain reference, or compiled (numba,
    cached): the plain function's code with globals in which `_outcomes_rule` is compiled."""
    if not compiled:
        return _PLAIN[name]
    if not _COMPILED:
        from types import FunctionType

        from numba import njit

        scope = dict(globals())
        for key, plain in _PLAIN.items():
            _COMPILED[key] = njit(cache=True, nogil=True)(
                FunctionType(plain.__code__, scope, plain.__name__))
            if key == "outcomes":
                scope["_outcomes_rule"] = _COMPILED[key]
    return _COMPILED[name]


class TurnTotalRules:
    """A turn-total space's own description (``StateSpace.rules``): the rules as a tuple
    (:func:`_turn_total_outcomes_plain`) and the code tables, from which the solver computes
    a row's outcomes on the fly (:meth:`graph`, :meth:`row_kernel`; no matrix of all
    transitions: about 137 bytes per state at PigReset 100) and :meth:`transitions` builds
    the matrix when something asks for it."""

    family = "turn-total"

    def __init__(self, rules: tuple, index_of: np.ndarray, order: np.ndarray,
                 row_start: np.ndarray, n_rows: int, nnz: int, compiled: bool) -> None:
        self.rules, self.index_of, self.order, self.row_start = rules, index_of, order, row_start
        self.n_rows, self.nnz, self.compiled = n_rows, nnz, compiled
        #: The most outcomes of one row.
        self.width = int(rules[1].shape[0]) + 3

    def graph(self) -> tuple:
        """The row kernel's first argument: (row_start, order, index_of, rules)."""
        return (self.row_start, self.order, self.index_of, self.rules)

    @staticmethod
    def row_kernel(compiled: bool = True) -> Any:
        """(graph, s, r, js, ps) -> the number of outcomes of row r of state s, written to js
        (state indices) and ps (probabilities): :func:`_turn_total_row_plain`."""
        return _kernel("row", compiled)

    def transitions(self) -> Any:
        """The matrix of every row's outcomes (scipy.sparse CSR, rows x states), enumerated
        again with the numbering fixed."""
        from scipy import sparse

        n = len(self.order)
        rows, nnz = self.n_rows, self.nnz
        indptr = np.zeros(rows + 1, dtype=np.int32)
        indices, data = np.empty(nnz, dtype=np.int32), np.empty(nnz)
        _kernel("enumerate", self.compiled)(
            self.rules, self.index_of, self.order, n, True, np.empty(n + 1, dtype=np.int64),
            np.empty(rows, dtype=np.int64), np.empty(rows, dtype=np.int8), indptr, indices,
            data, np.empty(n, dtype=np.int8), np.empty(n))
        return sparse.csr_matrix((data, indices, indptr), shape=(rows, n))


class TurnTotalStates(Sequence):
    """The states of a turn-total space by index, decoded from their codes on demand."""

    def __init__(self, order: np.ndarray, goal: int) -> None:
        self.order, self.goal = order, goal

    def __len__(self) -> int:
        return len(self.order)

    def decode(self, code: int) -> tuple[Any, ...]:
        g = self.goal
        if code >= 2 * g ** 3:
            return ("win", code - 2 * g ** 3)
        return ((code // (g * g)) % g, (code // g) % g, code % g, code // g ** 3)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self.decode(int(c)) for c in self.order[i]]
        return self.decode(int(self.order[i]))

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for code in self.order.tolist():
            yield self.decode(code)


class TurnTotalIndex(Mapping):
    """state -> index of a turn-total space, through the code table (a dict's interface)."""

    def __init__(self, index_of: np.ndarray, states: TurnTotalStates) -> None:
        self.index_of, self.states = index_of, states

    def code(self, state: Any) -> int:
        g = self.states.goal
        try:
            if state[0] == "win" and len(state) == 2 and state[1] in (0, 1):
                return 2 * g ** 3 + int(state[1])
            s0, s1, k, me = state
            if all(type(x) is int for x in state) and me in (0, 1) and \
                    0 <= s0 < g and 0 <= s1 < g and 0 <= k < g:
                return ((me * g + s0) * g + s1) * g + k
        except (TypeError, ValueError, IndexError):
            pass
        return -1

    def __getitem__(self, state: Any) -> int:
        code = self.code(state)
        j = int(self.index_of[code]) if code >= 0 else -1
        if j < 0:
            raise KeyError(state)
        return j

    def __len__(self) -> int:
        return len(self.states)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.states)


class WinPayoffs(Sequence):
    """Player 0's exact payoff per state: 1 or 0 at terminal states, None elsewhere."""

    def __init__(self, payoff: np.ndarray, terminal: np.ndarray) -> None:
        self.payoff, self.terminal = payoff, terminal

    def __len__(self) -> int:
        return len(self.payoff)

    def __getitem__(self, s: Any) -> Any:
        if isinstance(s, slice):
            return [self[i] for i in range(len(self))[s]]
        return int(self.payoff[s]) if self.terminal[s] else None


class RowActions(Sequence):
    """The action of each row, from a small integer per row and the game's action names."""

    def __init__(self, codes: np.ndarray, names: tuple[Any, ...]) -> None:
        self.codes, self.names = codes, names

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, r: Any) -> Any:
        if isinstance(r, slice):
            return [self.names[c] for c in self.codes[r].tolist()]
        return self.names[int(self.codes[r])]

    def __iter__(self) -> Iterator[Any]:
        names = self.names
        return (names[c] for c in self.codes.tolist())


def turn_total_space(game: Any, faces: Sequence[tuple[int, float]], pig: float, reset: float,
                     pig_reset: float, winning: Sequence[float], limit: int,
                     actions: tuple[Any, Any] = ("roll", "hold"),
                     compiled: bool = True) -> StateSpace:
    """The :class:`StateSpace` of a turn-total game (module docstring): `faces` the scoring
    throws as (points, probability), `pig` and `reset` the probabilities of losing the turn
    total and of losing the banked score too (`pig_reset` their float sum as the game's exact
    sum rounds it), winning[need] the probability of a throw of at least `need` points (index 0
    unused); `actions` the names of rolling and holding. The matrix of transitions is left to
    be built on first read (``StateSpace.transitions``; the solver needs none)."""
    goal = int(game.goal)
    grid = 2 * goal ** 3 + 2
    rules = (goal, np.array([p for p, _ in faces], dtype=np.int64),
             np.array([q for _, q in faces], dtype=np.float64), float(pig), float(reset),
             float(pig_reset), np.asarray(winning, dtype=np.float64))
    kernel = _kernel("enumerate", compiled)
    index_of = np.full(grid, -1, dtype=np.int32)
    order = np.empty(grid, dtype=np.int32)
    none_i, none_f, none_8 = np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, np.int8)
    none_32 = np.zeros(0, dtype=np.int32)
    n, rows, nnz = kernel(rules, index_of, order, 0, False, none_i, none_i, none_8, none_32,
                          none_32, none_f, none_8, none_f)
    if n > limit:
        raise GameDefinitionError(f"game {game.name}: more than {limit:,} reachable states; "
                                  "too large to enumerate")
    order = order[:n].copy()
    index_of[:] = -1
    index_of[order] = np.arange(n, dtype=np.int32)
    out = (np.empty(n + 1, dtype=np.int64), np.empty(rows, dtype=np.int64),
           np.empty(rows, dtype=np.int8), none_32, none_32, none_f, np.empty(n, dtype=np.int8),
           np.empty(n))
    kernel(rules, index_of, order, n, True, *out)
    row_start, row_state, row_action, _, _, _, player, payoff = out
    states = TurnTotalStates(order, goal)
    terminal = player < 0
    return StateSpace(
        game=game, states=states, index=TurnTotalIndex(index_of, states),  # type: ignore[arg-type]
        player=player, payoff=payoff,
        payoff_exact=WinPayoffs(payoff, terminal),  # type: ignore[arg-type]
        row_start=row_start, row_state=row_state,
        actions=RowActions(row_action, tuple(actions)),  # type: ignore[arg-type]
        matrix=None, enumeration="compiled",
        rules=TurnTotalRules(rules, index_of, order, row_start, rows, nnz, compiled),
    )
