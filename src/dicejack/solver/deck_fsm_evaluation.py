"""The exact value, and a seeded simulation, of a finite-state-machine player of the deck
divide-the-dollar game (:mod:`dicejack.games.deck_dollar`) against the uniformly random opponent.

The player (:class:`FsmPlayer`): ``n`` states, an initial state, and for every (state,
observation) an action and a next state (a Mealy machine over the game's 40 observations, the
form of Ashlock's evolved game players; the study's README names its FSM players but gives no
details of them, so this form is a reconstruction, see :mod:`dicejack.learners.deck_fsm`). On
each of its turns the machine in state ``q`` sees observation ``o``, plays ``actions[q, o]`` and
moves to ``transitions[q, o]``. A 1-state machine is an observation policy.

The exact evaluation is :mod:`dicejack.solver.deck_evaluation`'s forward computation with the
machine's state joined to the round's state: a state is monte's hand, the opponent's, the deck's
composition (nine counts) and the machine's state ``q`` (key ``encode(counts) * n + q``), with a
distribution over the difference of totals ``d``. Per state the machine's action is fixed, so a
round has at most three outcomes (one per opponent action, 1/3 each; merged when equal,
:func:`_moves_plain`), then the draws. :func:`simulate_fsm` plays games on a numpy Generator with
the very draws of :func:`dicejack.games.deck_dollar.simulate` (one uniform draw per monte turn
is taken and ignored), so a 1-state machine's tally equals that function's for the same policy
and seed.

The game's rules on counts (what a hand plays, the observation, the draws, the score, the
keys) are :mod:`dicejack.solver.deck_rules`' plain kernels; the machine's own kernels here call
them. Each kernel is a plain Python function (the reference) compiled by numba unchanged
(:func:`_kernel`, :func:`~dicejack.solver.deck_rules.compile_kernels`);
tests/solver/test_deck_fsm_evaluation.py holds them equal, and equal to a brute force over the
whole game tree at tiny decks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.deck_dollar import (
    N_OBSERVATIONS,
    TRUE_STATE_INDEX,
    DeckDollar,
    Tally,
    policy_table,
)
from dicejack.solver.deck_evaluation import MEMORY_LIMIT, DeckEvaluation
from dicejack.solver.deck_rules import (
    card_plain,
    compile_kernels,
    deal_distribution,
    decode_plain,
    dense_forward,
    draws_plain,
    encode_plain,
    observe_plain,
    score_plain,
)
from dicejack.solver.solution import SolverError

__all__ = ["FsmPlayer", "evaluate_fsm", "simulate_fsm"]


@dataclass(frozen=True)
class FsmPlayer:
    """A finite-state-machine player: ``actions`` and ``transitions``, (n, 40) int64 arrays
    (action 0..2 and next state 0..n-1 per state and observation), and the ``initial`` state."""

    actions: np.ndarray
    transitions: np.ndarray
    initial: int = 0

    def __post_init__(self) -> None:
        acts = np.array(self.actions, dtype=np.int64)
        trans = np.array(self.transitions, dtype=np.int64)
        if acts.ndim != 2 or acts.shape[1] != N_OBSERVATIONS or acts.shape[0] < 1 \
                or trans.shape != acts.shape:
            raise SolverError(f"an FSM's actions and transitions are (n, 40) arrays, got "
                              f"{acts.shape} and {trans.shape}")
        n = acts.shape[0]
        if acts.min() < 0 or acts.max() > 2 or trans.min() < 0 or trans.max() >= n:
            raise SolverError("an FSM's actions must be 0..2 and its next states 0..n-1")
        if not isinstance(self.initial, int | np.integer) or not 0 <= self.initial < n:
            raise SolverError(f"an FSM's initial state must be in 0..{n - 1}, got {self.initial!r}")
        acts.flags.writeable = False
        trans.flags.writeable = False
        object.__setattr__(self, "actions", acts)
        object.__setattr__(self, "transitions", trans)
        object.__setattr__(self, "initial", int(self.initial))

    @property
    def n_states(self) -> int:
        return int(self.actions.shape[0])

    @classmethod
    def from_policy(cls, policy: Any) -> FsmPlayer:
        """The 1-state machine of a deterministic observation policy (40 action numbers)."""
        table = policy_table(policy)
        if not np.all((table == 0.0) | (table == 1.0)):
            raise SolverError("only a deterministic policy is a 1-state FSM")
        return cls(table.argmax(axis=1).reshape(1, -1), np.zeros((1, N_OBSERVATIONS), np.int64))

    def describe(self) -> str:
        """One line per state: its 40 actions (s m l) and next states."""
        letters = "sml"
        return "\n".join(
            f"{'*' if q == self.initial else ' '}q{q}: "
            + "".join(letters[a] for a in self.actions[q]) + " -> "
            + " ".join(str(t) for t in self.transitions[q]) for q in range(self.n_states))


# ------------------------------------------------------------- kernels (plain references)
def _moves_plain(c, q, lead_monte, acts, trans, half, passing, tsi, moves, probs):
    """The round's outcomes from hands c and machine state q: moves[m] = (monte's card type,
    the opponent's; 3 a pass; the machine's next state), probs[m]; equal ones merged."""
    m = 0
    for b in range(3):
        if lead_monte:
            o = observe_plain(c, 3, half, tsi)
            c1 = card_plain(c, 0, 3, acts[q, o], half, passing)
            c2 = card_plain(c, 3, c1, b, half, passing)
        else:
            c2 = card_plain(c, 3, 3, b, half, passing)
            o = observe_plain(c, c2, half, tsi)
            c1 = card_plain(c, 0, c2, acts[q, o], half, passing)
        i = 3 if c1 < 0 else c1
        j = 3 if c2 < 0 else c2
        nq = trans[q, o]
        k = 0
        while k < m and not (moves[k, 0] == i and moves[k, 1] == j and moves[k, 2] == nq):
            k += 1
        if k == m:
            moves[m, 0] = i
            moves[m, 1] = j
            moves[m, 2] = nq
            probs[m] = 0.0
            m += 1
        probs[k] += 1.0 / 3.0
    return m


def _deals_plain(c, i, j, mid, after, dprobs):
    """The deals after monte plays type i and the opponent type j (3: a pass) from hands c:
    mid the hands after the plays, after[m] and dprobs[m] the deals; returns how many."""
    mid[:] = c
    if i < 3:
        mid[i] -= 1
    if j < 3:
        mid[3 + j] -= 1
    return draws_plain(mid, after, dprobs)


def _scratch_plain():
    """A round's work arrays: the hands, the hands after the plays, the moves and their
    probabilities, the deals and theirs."""
    return (np.empty(9, dtype=np.int64), np.empty(9, dtype=np.int64),
            np.empty((3, 3), dtype=np.int64), np.empty(3), np.empty((9, 9), dtype=np.int64),
            np.empty(9))


def _successors_plain(keys, r, acts, trans, half, passing, tsi, base, out, fill):
    """The keys of round r + 1's states (duplicates kept) written to out when `fill`; returns
    how many there are."""
    n = acts.shape[0]
    c, mid, moves, mprobs, after, dprobs = _scratch_plain()
    m = 0
    for s in range(keys.shape[0]):
        decode_plain(keys[s] // n, base, c)
        for x in range(_moves_plain(c, keys[s] % n, r % 2 == 0, acts, trans, half, passing, tsi,
                                    moves, mprobs)):
            for k in range(_deals_plain(c, moves[x, 0], moves[x, 1], mid, after, dprobs)):
                if fill:
                    out[m] = encode_plain(after[k], base) * n + moves[x, 2]
                m += 1
    return m


def _push_plain(keys, probs, r, acts, trans, half, passing, tsi, base, swing, nkeys, nprobs,
                last):
    """Round r's probabilities pushed into round r + 1's (nkeys, nprobs); the `last` round
    collapses into nprobs[0] (the final distribution of d)."""
    n = acts.shape[0]
    c, mid, moves, mprobs, after, dprobs = _scratch_plain()
    width = probs.shape[1]
    for s in range(keys.shape[0]):
        decode_plain(keys[s] // n, base, c)
        for x in range(_moves_plain(c, keys[s] % n, r % 2 == 0, acts, trans, half, passing, tsi,
                                    moves, mprobs)):
            p = mprobs[x]
            shift = score_plain(moves[x, 0], moves[x, 1]) + swing
            if last:
                for w in range(width):
                    nprobs[0, w + shift] += p * probs[s, w]
                continue
            for k in range(_deals_plain(c, moves[x, 0], moves[x, 1], mid, after, dprobs)):
                t = np.searchsorted(nkeys, encode_plain(after[k], base) * n + moves[x, 2])
                qk = p * dprobs[k]
                for w in range(width):
                    nprobs[t, w + shift] += qk * probs[s, w]


def _play_plain(c, deck, top, size, r, q, acts, trans, half, passing, tsi, rng):
    """One round of a simulated game (counts c, the shuffled deck from `top`): the draws of
    deck_dollar.simulate's round; returns (d's change, the machine's next state, new top)."""
    if r % 2 == 0:
        o = observe_plain(c, 3, half, tsi)
        rng.random()  # monte's choice draw of deck_dollar.simulate (the machine needs none)
        c1 = card_plain(c, 0, 3, acts[q, o], half, passing)
        c2 = card_plain(c, 3, c1, int(rng.random() * 3.0), half, passing)
    else:
        c2 = card_plain(c, 3, 3, int(rng.random() * 3.0), half, passing)
        o = observe_plain(c, c2, half, tsi)
        rng.random()
        c1 = card_plain(c, 0, c2, acts[q, o], half, passing)
    if c1 >= 0:
        c[c1] -= 1
    if c2 >= 0:
        c[3 + c2] -= 1
    if top < size:
        c[deck[top]] += 1
        top += 1
    if top < size:
        c[3 + deck[top]] += 1
        top += 1
    return score_plain(3 if c1 < 0 else c1, 3 if c2 < 0 else c2), trans[q, o], top


def _simulate_plain(base, hand_size, rounds, passing, acts, trans, initial, tsi, games, rng,
                    tally):
    """Plays `games` games: the deck `base` shuffled by Fisher-Yates on ``rng.random()`` as
    deck_dollar.simulate shuffles it; tally[0..2] += wins, draws, losses of monte."""
    size = base.shape[0]
    half = hand_size // 2
    deck = base.copy()
    c = np.zeros(9, dtype=np.int64)
    for _ in range(games):
        for i in range(size - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            deck[i], deck[j] = deck[j], deck[i]
        c[:] = 0
        for i in range(hand_size):
            c[deck[i]] += 1
            c[3 + deck[hand_size + i]] += 1
        top, d, q = 2 * hand_size, 0, initial
        for r in range(rounds):
            step, q, top = _play_plain(c, deck, top, size, r, q, acts, trans, half, passing, tsi,
                                       rng)
            d += step
        tally[0 if d > 0 else (1 if d == 0 else 2)] += 1


_KERNELS: dict[str, Any] = {}
_PLAIN = {"moves": _moves_plain, "deals": _deals_plain,
          "scratch": _scratch_plain, "successors": _successors_plain, "push": _push_plain,
          "play": _play_plain, "simulate": _simulate_plain}


def _kernel(name: str, compiled: bool) -> Any:
    """The kernel `name` (successors, push, simulate): compiled (numba, cached; with the rule
    kernels of :mod:`dicejack.solver.deck_rules` as callees,
    :func:`~dicejack.solver.deck_rules.compile_kernels`) or the plain reference."""
    if not compiled:
        return _PLAIN[name]
    if not _KERNELS:
        _KERNELS.update(compile_kernels(_PLAIN, globals()))
    return _KERNELS[name]


def _start(game: DeckDollar, n: int, initial: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base, the deal's sorted keys with the machine in `initial`, their probabilities)."""
    base = np.array([k + 1 for k in game.counts] * 3, dtype=np.int64)
    if float(np.prod(base.astype(float))) * n >= 2.0 ** 62:
        raise SolverError(f"deck counts {game.counts} with {n} FSM states are too large to key "
                          f"a state in 63 bits")
    deal = deal_distribution(game)
    keys = np.array([encode_plain(np.array(c), base) * n + initial for c in deal],
                    dtype=np.int64)
    order = np.argsort(keys)
    return base, keys[order], np.array([float(p) for p in deal.values()])[order]


def evaluate_fsm(game: DeckDollar, fsm: FsmPlayer, compiled: bool = True,
                 memory_limit: int = MEMORY_LIMIT) -> DeckEvaluation:
    """The exact value of the machine `fsm` (monte's seat) in `game` against the uniformly
    random opponent (module docstring); ``states`` counts (hands, deck, machine state) per
    round. SolverError before a round's arrays would take more than `memory_limit` bytes."""
    tsi = np.asarray(TRUE_STATE_INDEX, dtype=np.int64)
    base, keys, probs = _start(game, fsm.n_states, fsm.initial)
    args = (fsm.actions, fsm.transitions, game.half, game.passing, tsi, base)
    final, states = dense_forward(game, keys, probs, _kernel("successors", compiled),
                                  _kernel("push", compiled), args, memory_limit,
                                  "try fewer FSM states, passing=False or a smaller deck")
    mid = game.swing * game.rounds
    win, draw, loss = float(final[mid + 1:].sum()), float(final[mid]), float(final[:mid].sum())
    return DeckEvaluation(win - loss, win, draw, loss, final, states)


def simulate_fsm(game: DeckDollar, fsm: FsmPlayer, games: int, rng: np.random.Generator,
                 compiled: bool = True) -> Tally:
    """`games` games of the machine `fsm` (monte's seat) against the uniform opponent, on `rng`
    (the draws of :func:`dicejack.games.deck_dollar.simulate`, module docstring)."""
    if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
        raise SolverError(f"games must be a whole number >= 1, got {games!r}")
    base = np.repeat(np.arange(3, dtype=np.int64), game.counts)
    tally = np.zeros(3, dtype=np.int64)
    tsi = np.asarray(TRUE_STATE_INDEX, dtype=np.int64)
    _kernel("simulate", compiled)(base, game.hand_size, game.rounds, game.passing, fsm.actions,
                                  fsm.transitions, fsm.initial, tsi, int(games), rng, tally)
    return Tally(int(games), int(tally[0]), int(tally[1]), int(tally[2]))
