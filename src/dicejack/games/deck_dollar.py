"""The deck-based divide-the-dollar game of E. Wild's study (``ecterceocgan/deck-divide-dollar``,
quoted in ``shared/spec/deck-divide-dollar.txt``): its rules, its 40 observations and three
actions, and a seeded simulation of a policy against the uniformly random opponent.

The game (:class:`DeckDollar`; the study's deck by default): a deck of cards worth 1/4, 1/2 and
3/4 (card types 0, 1, 2; ``counts`` of each, the study's 16, 28, 16) is shuffled; the first
player ("monte", the policy's seat) is dealt the first ``hand_size`` cards (5), the opponent the
next ``hand_size``; hands are kept sorted. ``rounds`` rounds are played (by default
``1 + (deck - 2 * hand_size) // 2``, the study's 26): on even rounds monte leads a card and the
opponent answers, on odd rounds the opponent leads. Both score their card's value when the two
sum to at most 1 (else neither scores). After each round, while the deck lasts, monte draws the
next card, then the opponent does (monte first, whoever led). After the last round the higher
total wins: reward +1, -1, or 0 for a draw (totals are kept in quarters, so exactly).

An observation is ``[card showing, smallest, median, largest]`` of the player's sorted hand
(card showing: the leader's card, or 3 = none when leading; "median" is the card at index
``hand_size // 2`` of the sorted hand, as the code indexes it), numbered 0..39 by the code's own
``true_state_index`` table (:data:`TRUE_STATE_INDEX`, :func:`observation`). The actions
(:data:`ACTIONS`): 0 ``small_spoil``, 1 ``median``, 2 ``large_max``. What each plays is the
code's ``play_action`` (:func:`play_position`):

* leading: the smallest card, the card at index ``hand_size // 2``, or the largest card;
* following: ``small_spoil`` plays the smallest card that makes the sum exceed 1, else the
  largest card; ``median`` the card at index ``hand_size // 2``; ``large_max`` the largest card
  that keeps the sum at most 1, else ...

... and here the code is not what its comment says. Its fallback ``elif len(player)-c == 0``
is dead (c never reaches ``len(player)``), so a follower whose every card is too large for
``large_max`` plays *nothing*: it scores 0, the leader keeps its card's value, and the
follower's hand keeps the card it did not play and still draws, so it grows by one (its
"median" is then still index ``hand_size // 2`` of the longer hand, for the action and the
observation alike). That is the default here, ``passing=True``, the code's behaviour. The
evident intent, ``passing=False``: the follower then plays its smallest card (the comment's
"can't maximize, play smallest card"), so hands keep ``hand_size`` cards at every decision.
Everything else of the quoted code is the same in both (the opponent's "random" strategy is a
uniform choice of the three actions every turn; the Monte Carlo learner's quirks are not the
game's and are not here).

Policies are arrays over the 40 observations x 3 actions (:func:`policy_table`: probabilities;
an array of 40 action numbers is a deterministic policy). :func:`simulate` plays games of a
policy against the uniform opponent, compiled by numba, with the plain function it is compiled
from (:func:`_simulate_plain`, on the same numpy Generator, draw by draw) as its reference:
tests hold them to identical counts. The exact evaluation is :mod:`dicejack.solver.deck_evaluation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dicejack.games.protocol import GameDefinitionError

__all__ = ["DeckDollar", "ACTIONS", "CARDS", "NO_CARD", "PASS", "TRUE_STATE_INDEX",
           "N_OBSERVATIONS", "observation", "play_position", "policy_table", "fixed_policy",
           "uniform_policy", "simulate", "Tally", "position_plain", "take_plain", "insert_plain",
           "turn_plain"]

#: The card values, in quarters, by card type 0, 1, 2 (1/4, 1/2, 3/4).
CARDS: tuple[int, int, int] = (1, 2, 3)
#: The "card showing" of a leader: no card (the code's ``num_cards``).
NO_CARD = 3
#: What :func:`play_position` returns when the follower plays nothing (``passing=True``).
PASS = -1
#: The three actions, numbered as the code numbers them.
ACTIONS: tuple[str, str, str] = ("small_spoil", "median", "large_max")
N_OBSERVATIONS = 40
#: The quoted code's ``true_state_index``: observation number of
#: ``ravel_multi_index([showing, small, median, large], (4, 3, 3, 3))``, -1 where unsorted.
TRUE_STATE_INDEX: tuple[int, ...] = (
    0, 1, 2, -1, 3, 4, -1, -1, 5, -1, -1, -1, -1, 6, 7, -1, -1, 8, -1, -1, -1, -1, -1, -1, -1,
    -1, 9, 10, 11, 12, -1, 13, 14, -1, -1, 15, -1, -1, -1, -1, 16, 17, -1, -1, 18, -1, -1, -1,
    -1, -1, -1, -1, -1, 19, 20, 21, 22, -1, 23, 24, -1, -1, 25, -1, -1, -1, -1, 26, 27, -1, -1,
    28, -1, -1, -1, -1, -1, -1, -1, -1, 29, 30, 31, 32, -1, 33, 34, -1, -1, 35, -1, -1, -1, -1,
    36, 37, -1, -1, 38, -1, -1, -1, -1, -1, -1, -1, -1, 39)


@dataclass(frozen=True)
class DeckDollar:
    """The game's parameters (module docstring): ``counts`` of the 1/4, 1/2 and 3/4 cards,
    ``hand_size``, ``rounds`` (None: as many as the deck allows, the code's
    ``1 + (deck - 2 * hand_size) // 2``), ``passing`` (True: the code's dead fallback, a
    follower that cannot keep the sum at most 1 with ``large_max`` passes; False: it plays its
    smallest card)."""

    counts: tuple[int, int, int] = (16, 28, 16)
    hand_size: int = 5
    rounds: int | None = None
    passing: bool = True

    def __post_init__(self) -> None:
        counts = tuple(self.counts)
        if len(counts) != 3 or any(not isinstance(c, int | np.integer) or c < 0 for c in counts):
            raise GameDefinitionError(
                f"counts must be three whole numbers >= 0, got {self.counts!r}")
        object.__setattr__(self, "counts", tuple(int(c) for c in counts))
        if not isinstance(self.hand_size, int) or self.hand_size < 1:
            raise GameDefinitionError(
                f"hand_size must be a whole number >= 1, got {self.hand_size!r}")
        spare = sum(counts) - 2 * self.hand_size
        if spare < 0:
            raise GameDefinitionError(
                f"a deck of {sum(counts)} cards cannot deal two hands of {self.hand_size}")
        most = 1 + spare // 2
        rounds = most if self.rounds is None else self.rounds
        if not isinstance(rounds, int) or not 1 <= rounds <= most:
            raise GameDefinitionError(f"rounds must be a whole number in 1..{most}, got {rounds!r}")
        object.__setattr__(self, "rounds", rounds)

    @property
    def deck_size(self) -> int:
        return sum(self.counts)

    @property
    def half(self) -> int:
        """The index of the "median" card in the sorted hand (the code's ``hand_size // 2``)."""
        return self.hand_size // 2

    @property
    def swing(self) -> int:
        """The most one round can move the difference of totals, in quarters."""
        return 3 if self.passing else 2


def position_plain(hand, n, showing, action, half, passing):
    """The code's ``play_action``: the position in the sorted ``hand[:n]`` of the card played
    (card types 0..2, worth type + 1 quarters), or -1 (:data:`PASS`) for nothing."""
    if showing == 3:
        if action == 0:
            return 0
        if action == 2:
            return n - 1
        return half
    if action == 0:
        for c in range(n):
            if hand[c] + showing > 2:  # (hand + 1) + (showing + 1) quarters > 4
                return c
        return n - 1
    if action == 2:
        for c in range(n - 1, -1, -1):
            if hand[c] + showing <= 2:
                return c
        return -1 if passing else 0
    return half


def play_position(hand: Any, showing: int, action: int, game: DeckDollar) -> int:
    """Where in the sorted `hand` (card types) the card played is, or :data:`PASS`."""
    return position_plain(hand, len(hand), showing, action, game.half, game.passing)


def _observe_plain(hand, n, showing, half, tsi):
    """The observation number of a player holding the sorted ``hand[:n]`` (module docstring)."""
    return tsi[showing * 27 + hand[0] * 9 + hand[half] * 3 + hand[n - 1]]


def observation(hand: Any, showing: int, game: DeckDollar) -> int:
    """The observation number (0..39) of a player holding the sorted `hand` (card types) with
    `showing` (a card type, or :data:`NO_CARD` when leading)."""
    return int(_observe_plain(hand, len(hand), showing, game.half, TRUE_STATE_INDEX))


def policy_table(policy: Any) -> np.ndarray:
    """A policy as a (40, 3) float64 array of action probabilities per observation: `policy`
    is such an array (each row summing to 1 within 1e-9) or 40 action numbers."""
    arr = np.asarray(policy)
    if arr.shape == (N_OBSERVATIONS,) and np.issubdtype(arr.dtype, np.integer):
        if arr.min() < 0 or arr.max() > 2:
            raise GameDefinitionError("a deterministic policy's actions must be 0, 1 or 2")
        return np.eye(3)[arr]
    if arr.shape != (N_OBSERVATIONS, 3):
        raise GameDefinitionError(
            f"a policy is 40 actions or a (40, 3) array, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or arr.min() < 0 or np.abs(arr.sum(axis=1) - 1).max() > 1e-9:
        raise GameDefinitionError("a policy's rows must be probabilities summing to 1")
    return arr


def fixed_policy(action: int) -> np.ndarray:
    """Always the same action (0 smallest, 1 median, 2 largest)."""
    return policy_table(np.full(N_OBSERVATIONS, action, dtype=np.int64))


def uniform_policy() -> np.ndarray:
    """Each action with probability 1/3 at every observation (the study's opponent)."""
    return np.full((N_OBSERVATIONS, 3), 1.0 / 3.0)


def take_plain(hand, n, pos):
    """Removes ``hand[pos]`` from the sorted ``hand[:n]``; returns the card."""
    card = hand[pos]
    for i in range(pos, n - 1):
        hand[i] = hand[i + 1]
    return card


def insert_plain(hand, n, card):
    """Inserts `card` into the sorted ``hand[:n]`` (room for n + 1)."""
    i = n
    while i > 0 and hand[i - 1] > card:
        hand[i] = hand[i - 1]
        i -= 1
    hand[i] = card


def turn_plain(hand, n, showing, action, half, passing):
    """One player's card played (module docstring): (card type or -1, the hand's new length)."""
    pos = position_plain(hand, n, showing, action, half, passing)
    if pos < 0:
        return -1, n
    return take_plain(hand, n, pos), n - 1


def _choose_plain(cum, obs, u):
    """The action of a policy's cumulative row `obs` for the uniform draw `u`."""
    a = 0
    while a < 2 and u >= cum[obs, a]:
        a += 1
    return a


def _round_plain(h1, n1, h2, n2, lead_monte, cum, half, passing, tsi, rng):
    """One round's two cards: (monte's card, opponent's card, n1, n2); -1 for a pass."""
    if lead_monte:
        a = _choose_plain(cum, _observe_plain(h1, n1, 3, half, tsi), rng.random())
        c1, n1 = turn_plain(h1, n1, 3, a, half, passing)
        c2, n2 = turn_plain(h2, n2, c1, int(rng.random() * 3.0), half, passing)
    else:
        c2, n2 = turn_plain(h2, n2, 3, int(rng.random() * 3.0), half, passing)
        a = _choose_plain(cum, _observe_plain(h1, n1, c2, half, tsi), rng.random())
        c1, n1 = turn_plain(h1, n1, c2, a, half, passing)
    return c1, c2, n1, n2


def _simulate_plain(base, hand_size, rounds, passing, cum, tsi, games, rng, tally):
    """Plays `games` games (module docstring): the deck `base` (card types) shuffled by
    Fisher-Yates on ``rng.random()``; tally[0..2] += wins, draws, losses of monte."""
    size = base.shape[0]
    half = hand_size // 2
    deck = base.copy()
    h1 = np.empty(hand_size + rounds + 1, dtype=np.int64)
    h2 = np.empty(hand_size + rounds + 1, dtype=np.int64)
    for _ in range(games):
        for i in range(size - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            deck[i], deck[j] = deck[j], deck[i]
        n1, n2 = 0, 0
        for i in range(hand_size):
            insert_plain(h1, n1, deck[i])
            n1 += 1
            insert_plain(h2, n2, deck[hand_size + i])
            n2 += 1
        top, d = 2 * hand_size, 0
        for r in range(rounds):
            c1, c2, n1, n2 = _round_plain(h1, n1, h2, n2, r % 2 == 0, cum, half, passing, tsi, rng)
            v1 = c1 + 1 if c1 >= 0 else 0
            v2 = c2 + 1 if c2 >= 0 else 0
            if v1 + v2 <= 4:
                d += v1 - v2
            if top < size:
                insert_plain(h1, n1, deck[top])
                n1 += 1
                top += 1
            if top < size:
                insert_plain(h2, n2, deck[top])
                n2 += 1
                top += 1
        tally[0 if d > 0 else (1 if d == 0 else 2)] += 1


_COMPILED: dict[str, Any] = {}
_PLAIN = {"play": position_plain, "observe": _observe_plain, "take": take_plain,
          "insert": insert_plain, "turn": turn_plain, "choose": _choose_plain,
          "round": _round_plain, "simulate": _simulate_plain}


def _kernel(compiled: bool) -> Any:
    """The simulation kernel: compiled (numba, cached; each callee compiled under its plain
    name, as solver.generic_sweeps does), or the plain reference."""
    if not compiled:
        return _simulate_plain
    if not _COMPILED:
        from types import FunctionType

        from numba import njit

        scope = dict(globals())
        for key, plain in _PLAIN.items():
            clone = FunctionType(plain.__code__, scope, plain.__name__)
            _COMPILED[key] = njit(cache=True, nogil=True)(clone)
            scope[plain.__name__] = _COMPILED[key]
    return _COMPILED["simulate"]


@dataclass(frozen=True)
class Tally:
    """Games played and monte's wins, draws and losses; the mean reward and its 95% interval."""

    games: int
    wins: int
    draws: int
    losses: int

    @property
    def mean(self) -> float:
        return (self.wins - self.losses) / self.games

    @property
    def half_width(self) -> float:
        """1.96 standard errors of the mean reward (the sample variance of the +1/0/-1 rewards)."""
        second = (self.wins + self.losses) / self.games
        return 1.96 * float(np.sqrt(max(second - self.mean ** 2, 0.0) / max(self.games - 1, 1)))


def simulate(game: DeckDollar, policy: Any, games: int, rng: np.random.Generator,
             compiled: bool = True) -> Tally:
    """`games` games of `policy` (monte's seat) against the uniform opponent, on `rng`."""
    if not isinstance(games, int) or games < 1:
        raise GameDefinitionError(f"games must be a whole number >= 1, got {games!r}")
    cum = np.cumsum(policy_table(policy), axis=1)
    cum[:, 2] = np.inf  # a row summing to 1 - 1e-16 still picks an action
    base = np.repeat(np.arange(3, dtype=np.int64), game.counts)
    tally = np.zeros(3, dtype=np.int64)
    tsi = np.asarray(TRUE_STATE_INDEX, dtype=np.int64)
    _kernel(compiled)(base, game.hand_size, game.rounds, game.passing, cum, tsi, games, rng, tally)
    return Tally(games, int(tally[0]), int(tally[1]), int(tally[2]))
