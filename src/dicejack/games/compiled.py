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

And the handout's game (:class:`~dicejack.games.handout.HandoutGame`, :func:`handout_space`):
its own kernel and reference over the codes ``(m * L + a) * L + b`` of states (a, b, m) (L =
LTarget), its probabilities from the exact J-dice sum counts, each rounded once as
``float(Fraction)`` rounds it (bit for bit, also where NSides**J passes 2**53).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from dicejack.games.protocol import GameDefinitionError
from dicejack.games.space import StateSpace

__all__ = ["turn_total_space", "handout_space", "CompactMatrix", "TurnTotalStates",
           "TurnTotalIndex", "RowActions", "WinPayoffs", "HandoutStates", "HandoutIndex",
           "DiceActions"]


def _turn_total_plain(goal, points, table, index_of, order, known, fill, row_start, row_state,
                      row_action, indptr, indices, codes, player, payoff):
    """Breadth first from code 0 (module docstring), the outcomes of a roll in the protocol's
    order (the pig; the reset when it is another state; each face that does not win; the win).
    Probabilities are positions in `table` (:func:`_table`: pig, reset, both, 1, the faces',
    the wins'). With fill False it only numbers the states (index_of, order) and counts; with
    fill True (index_of and order, `known` states, from the first pass) it writes the rows and
    the matrix (indptr, indices, codes). Returns (states, rows, nnz)."""
    g, g3, n_faces = goal, goal * goal * goal, points.shape[0]
    n_wins = table.shape[0] - 4 - n_faces
    out_code = np.empty(points.shape[0] + 3, dtype=np.int64)
    out_p = np.empty(points.shape[0] + 3, dtype=np.int64)
    n = known if fill else 1
    rows, nnz, s = 0, 0, 0
    order[0], index_of[0] = 0, 0
    while s < n:
        code = order[s]
        if fill:
            row_start[s] = rows
        if code >= 2 * g3:
            if fill:
                player[s] = -1
                payoff[s] = 1.0 if code == 2 * g3 else 0.0
            s += 1
            continue
        me = code // g3
        s0 = (code // (g * g)) % g
        s1 = (code // g) % g
        k = code % g
        if fill:
            player[s] = me
            payoff[s] = 0.0
        for a in range(2 if k > 0 else 1):
            m = 0
            if a == 0:
                out_code[0] = (((1 - me) * g + s0) * g + s1) * g
                out_p[0] = 0
                m = 1
                if table[1] > 0.0:
                    back = (g * g + s1) * g if me == 0 else s0 * g * g
                    if back == out_code[0]:
                        out_p[0] = 2
                    else:
                        out_code[1] = back
                        out_p[1] = 1
                        m = 2
                need = goal - (s0 if me == 0 else s1) - k
                for f in range(points.shape[0]):
                    if 0 < points[f] < need:
                        out_code[m] = code + points[f]
                        out_p[m] = 4 + f
                        m += 1
                if need < n_wins and table[4 + n_faces + need] > 0.0:
                    out_code[m] = 2 * g3 + me
                    out_p[m] = 4 + n_faces + need
                    m += 1
            else:
                out_code[0] = ((g + s0 + k) * g + s1) * g if me == 0 else (s0 * g + s1 + k) * g
                out_p[0] = 3
                m = 1
            for i in range(m):
                j = index_of[out_code[i]]
                if j < 0:
                    j = n
                    index_of[out_code[i]] = n
                    order[n] = out_code[i]
                    n += 1
                if fill:
                    indices[nnz] = j
                    codes[nnz] = out_p[i]
                nnz += 1
            if fill:
                row_state[rows] = s
                row_action[rows] = a
                indptr[rows + 1] = nnz
            rows += 1
        s += 1
    if fill:
        row_start[n] = rows
    return n, rows, nnz


_COMPILED: dict[Any, Any] = {}


def _kernel(plain: Any, compiled: bool) -> Any:
    """The enumeration kernel `plain`: compiled (numba, cached, once per process), or itself."""
    if not compiled:
        return plain
    if plain not in _COMPILED:
        from numba import njit

        _COMPILED[plain] = njit(cache=True, nogil=True)(plain)
    return _COMPILED[plain]


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


class CompactMatrix:
    """A space's outcomes as a matrix whose probabilities are small codes into a table (the
    few distinct probabilities of a game): indptr (int32, rows + 1), indices (int32, the
    successor per outcome), codes (uint8 or uint16 per outcome), table (float64): 5 bytes an
    outcome where scipy's CSR takes 12 (PigReset 100: 9.3 million outcomes). The solver sweeps
    it as it is (``StateSpace.compact``); :meth:`csr` is the same matrix as scipy.sparse CSR,
    bit for bit."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, codes: np.ndarray,
                 table: np.ndarray, n_states: int) -> None:
        self.indptr, self.indices, self.codes, self.table = indptr, indices, codes, table
        self.n_states = n_states

    def csr(self) -> Any:
        from scipy import sparse

        return sparse.csr_matrix((self.table[self.codes], self.indices, self.indptr),
                                 shape=(len(self.indptr) - 1, self.n_states))


def _table(faces: Sequence[tuple[int, float]], pig: float, reset: float, pig_reset: float,
           winning: Sequence[float]) -> np.ndarray:
    """The probabilities a turn-total game's outcomes take, as the kernel codes them: 0 the
    pig, 1 the reset, 2 both in one (a reset to the same state), 3 certainty (holding), 4 + f
    face f, 4 + len(faces) + need a win from `need` points away."""
    return np.array([pig, reset, pig_reset, 1.0, *(q for _, q in faces), *winning],
                    dtype=np.float64)


def turn_total_space(game: Any, faces: Sequence[tuple[int, float]], pig: float, reset: float,
                     pig_reset: float, winning: Sequence[float], limit: int,
                     actions: tuple[Any, Any] = ("roll", "hold"),
                     compiled: bool = True) -> StateSpace:
    """The :class:`StateSpace` of a turn-total game (module docstring): `faces` the scoring
    throws as (points, probability), `pig` and `reset` the probabilities of losing the turn
    total and of losing the banked score too (`pig_reset` their float sum as the game's exact
    sum rounds it), winning[need] the probability of a throw of at least `need` points (index 0
    unused); `actions` the names of rolling and holding. The outcomes are kept as a
    :class:`CompactMatrix` (``StateSpace.compact``); scipy's CSR (``StateSpace.transitions``) is
    made from it on first read."""
    goal = int(game.goal)
    grid = 2 * goal ** 3 + 2
    points = np.array([p for p, _ in faces], dtype=np.int64)
    table = _table(faces, pig, reset, pig_reset, winning)
    kernel = _kernel(_turn_total_plain, compiled)
    index_of = np.full(grid, -1, dtype=np.int32)
    order = np.empty(grid, dtype=np.int32)
    none_i, none_f = np.zeros(0, dtype=np.int64), np.zeros(0)
    n, rows, nnz = kernel(goal, points, table, index_of, order, 0, False, none_i, none_i,
                          np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int32),
                          np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint8),
                          np.zeros(0, dtype=np.int8), none_f)
    if n > limit:
        raise GameDefinitionError(f"game {game.name}: more than {limit:,} reachable states; "
                                  "too large to enumerate")
    order = order[:n].copy()
    index_of[:] = -1
    index_of[order] = np.arange(n, dtype=np.int32)
    out = (np.empty(n + 1, dtype=np.int64), np.empty(rows, dtype=np.int64),
           np.empty(rows, dtype=np.int8), np.zeros(rows + 1, dtype=np.int32),
           np.empty(nnz, dtype=np.int32),
           np.empty(nnz, dtype=np.uint8 if len(table) <= 256 else np.uint16),
           np.empty(n, dtype=np.int8), np.empty(n))
    kernel(goal, points, table, index_of, order, n, True, *out)
    row_start, row_state, row_action, indptr, indices, codes, player, payoff = out
    states = TurnTotalStates(order, goal)
    terminal = player < 0
    return StateSpace(
        game=game, states=states, index=TurnTotalIndex(index_of, states),  # type: ignore[arg-type]
        player=player, payoff=payoff,
        payoff_exact=WinPayoffs(payoff, terminal),  # type: ignore[arg-type]
        row_start=row_start, row_state=row_state,
        actions=RowActions(row_action, tuple(actions)),  # type: ignore[arg-type]
        transitions=None, enumeration="compiled",
        compact=CompactMatrix(indptr, indices, codes, table, n),
    )


# ------------------------------------------------------------------ the handout's game
# A state (a, b, m) of :class:`~dicejack.games.handout.HandoutGame` (scores a, b, player m to
# move) has code ``(m * L + a) * L + b`` (L = LTarget), ("win", w) the code ``2 L**2 + w``.

def _handout_plain(low, high, sides, dice, cont, win, lose, index_of, order, known, fill, cap,
                   row_start, row_state, row_action, indptr, indices, codes, player, payoff):
    """Breadth first from code 0 (the codes above), the outcomes of rolling j dice in the
    protocol's order: the totals that continue, ascending; the mover's win; the mover's loss.
    Probabilities are positions in the table :func:`_handout_table` makes: cont[j] + t for a
    total t that continues, win[x, j] and lose[x, j] (x the mover's score). With fill False it
    only numbers the states (index_of, order), stopping once more than `cap`; with fill True
    (`known` states from the first pass) it writes the rows and the matrix. Returns (states,
    rows, outcomes)."""
    g, g2 = low, low * low
    out_code = np.empty(min(dice * sides, low) + 3, dtype=np.int64)
    out_p = np.empty(min(dice * sides, low) + 3, dtype=np.int64)
    n = known if fill else 1
    rows, nnz, s = 0, 0, 0
    order[0], index_of[0] = 0, 0
    while s < n and (fill or n <= cap):
        code = order[s]
        if fill:
            row_start[s] = rows
        if code >= 2 * g2:
            if fill:
                player[s] = -1
                payoff[s] = 1.0 if code == 2 * g2 else 0.0
            s += 1
            continue
        me = code // g2
        a = (code // g) % g
        b = code % g
        x = a if me == 0 else b
        if fill:
            player[s] = me
            payoff[s] = 0.0
        for j in range(1, dice + 1):
            top, m = j * sides, 0
            for t in range(j, min(top, g - 1 - x) + 1):
                out_code[m] = (g + a + t) * g + b if me == 0 else a * g + b + t
                out_p[m] = cont[j] + t
                m += 1
            if win[x, j] >= 0:
                out_code[m] = 2 * g2 + me
                out_p[m] = win[x, j]
                m += 1
            if lose[x, j] >= 0:
                out_code[m] = 2 * g2 + 1 - me
                out_p[m] = lose[x, j]
                m += 1
            for i in range(m):
                k = index_of[out_code[i]]
                if k < 0:
                    k = n
                    index_of[out_code[i]] = n
                    order[n] = out_code[i]
                    n += 1
                if fill:
                    indices[nnz] = k
                    codes[nnz] = out_p[i]
                nnz += 1
            if fill:
                row_state[rows] = s
                row_action[rows] = j - 1
                indptr[rows + 1] = nnz
            rows += 1
        s += 1
    if fill:
        row_start[n] = rows
    return n, rows, nnz


class HandoutStates(TurnTotalStates):
    """The states of the handout's game by index, decoded from their codes on demand; equal to
    any sequence of the same states (a list, another view)."""

    def decode(self, code: int) -> tuple[Any, ...]:
        g = self.goal
        if code >= 2 * g * g:
            return ("win", code - 2 * g * g)
        return ((code // g) % g, code % g, code // (g * g))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandoutStates):
            return self.goal == other.goal and np.array_equal(self.order, other.order)
        return isinstance(other, Sequence) and len(other) == len(self) and \
            list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]


class HandoutIndex(TurnTotalIndex):
    """state -> index of the handout's game, through the code table (a dict's interface)."""

    def code(self, state: Any) -> int:
        g = self.states.goal
        try:
            if state[0] == "win" and len(state) == 2 and state[1] in (0, 1):
                return 2 * g * g + int(state[1])
            a, b, me = state
            if all(isinstance(v, (int, np.integer)) for v in state) and me in (0, 1) and \
                    0 <= a < g and 0 <= b < g:
                return (int(me) * g + int(a)) * g + int(b)
        except (TypeError, ValueError, IndexError):
            pass
        return -1


class DiceActions(RowActions):
    """The handout's actions per row (J = code + 1) with numpy's view of them as an int64
    array, made at once rather than element by element."""

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return (self.codes.astype(np.int64) + 1).astype(dtype or np.int64, copy=False)


#: The largest code grid (2 LTarget**2 + 2 entries, two int32 arrays) the handout's compiled
#: enumeration allocates; a larger game declines (the protocol's enumeration, at its own speed).
HANDOUT_GRID_LIMIT = 2 ** 25


def _handout_table(rules: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(table, cont, win, lose): every probability an outcome of the handout's game takes, from
    the exact J-dice sum counts, each the exact count over NSides**J rounded once (Python's
    int / int, as float(Fraction) rounds it): a total t of j dice that continues at
    table[cont[j] + t]; the mover at score x winning (landing in [LTarget, UTarget]) or losing
    (passing UTarget) with j dice at table[win[x, j]], table[lose[x, j]] (-1: impossible)."""
    low, high, sides, dice = rules.low, rules.high, rules.n_sides, rules.n_dice
    table: list[float] = []
    cont = np.zeros(dice + 1, dtype=np.int64)
    win = np.full((low, dice + 1), -1, dtype=np.int64)
    lose = np.full((low, dice + 1), -1, dtype=np.int64)
    for j in range(1, dice + 1):
        counts, denominator, top = rules.sum_counts(j), sides ** j, j * sides
        prefix = [0]
        for c in counts:
            prefix.append(prefix[-1] + c)
        cont[j] = len(table) - j
        table.extend(counts[t] / denominator for t in range(j, min(top, low - 1) + 1))
        for x in range(low):
            lo, hi = max(j, low - x), min(top, high - x)
            if lo <= hi:
                win[x, j] = len(table)
                table.append((prefix[hi + 1] - prefix[lo]) / denominator)
            lo = max(j, high - x + 1)
            if lo <= top:
                lose[x, j] = len(table)
                table.append((prefix[top + 1] - prefix[lo]) / denominator)
    return np.array(table, dtype=np.float64), cont, win, lose


def handout_space(game: Any, limit: int, compiled: bool = True) -> StateSpace | None:
    """The :class:`StateSpace` of :class:`~dicejack.games.handout.HandoutGame` `game` as arrays
    (its ``rules``: :class:`~dicejack.games.handout_rules.Game`), equal to the protocol's
    enumeration of it; None when its code grid is over :data:`HANDOUT_GRID_LIMIT`."""
    rules = game.rules
    low, dice = rules.low, rules.n_dice
    grid = 2 * low * low + 2
    if grid > HANDOUT_GRID_LIMIT:
        return None
    table, cont, win, lose = _handout_table(rules)
    kernel = _kernel(_handout_plain, compiled)
    index_of = np.full(grid, -1, dtype=np.int32)
    order = np.empty(grid, dtype=np.int32)
    none_i, none_f = np.zeros(0, dtype=np.int64), np.zeros(0)
    act = np.int8 if dice <= 127 else np.int32
    code_type = np.uint8 if len(table) <= 256 else np.uint16 if len(table) <= 65536 \
        else np.uint32
    args = (low, rules.high, rules.n_sides, dice, cont, win, lose, index_of, order)
    n, rows, nnz = kernel(*args, 0, False, limit, none_i, none_i, np.zeros(0, dtype=act),
                          np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32),
                          np.zeros(0, dtype=code_type), np.zeros(0, dtype=np.int8), none_f)
    if n > limit:
        raise GameDefinitionError(f"game {game.name}: more than {limit:,} reachable states; "
                                  "too large to enumerate")
    if nnz >= 2 ** 31:  # past the int32 matrix: the protocol's enumeration
        return None
    order = order[:n].copy()
    index_of[:] = -1
    index_of[order] = np.arange(n, dtype=np.int32)
    out = (np.empty(n + 1, dtype=np.int64), np.empty(rows, dtype=np.int64),
           np.empty(rows, dtype=act), np.zeros(rows + 1, dtype=np.int32),
           np.empty(nnz, dtype=np.int32), np.empty(nnz, dtype=code_type),
           np.empty(n, dtype=np.int8), np.empty(n))
    kernel(*args[:-2], index_of, order, n, True, limit, *out)
    row_start, row_state, row_action, indptr, indices, codes, player, payoff = out
    states = HandoutStates(order, low)
    return StateSpace(
        game=game, states=states, index=HandoutIndex(index_of, states),  # type: ignore[arg-type]
        player=player, payoff=payoff,
        payoff_exact=WinPayoffs(payoff, player < 0),  # type: ignore[arg-type]
        row_start=row_start, row_state=row_state,
        actions=DiceActions(row_action, tuple(range(1, dice + 1))),  # type: ignore[arg-type]
        transitions=None, enumeration="compiled",
        compact=CompactMatrix(indptr, indices, codes, table, n),
    )
