"""The Monte Carlo agent of E. Wild's deck divide-the-dollar study (its README's quoted code,
``shared/spec/deck-divide-dollar.txt``) learning against the uniformly random opponent of
:mod:`dicejack.games.deck_dollar`: :class:`DeckMC`, a learner on the one harness.

What the quoted code does, each step kept (the default) and each oddity switchable by a
parameter to the evident intent:

* tables ``Q``, ``action_reward_sum``, ``action_reward_count`` (40 x 3, zero) and a policy
  ``policy_pi`` of 40 actions drawn uniformly at random (``np.random.randint``; here
  ``rng.integers(3, size=40)`` on the learner's Generator);
* each game: the deck shuffled, two hands dealt, ``rounds`` rounds (monte leads on even
  rounds); at each of its turns the agent records its observation ``[card showing, smallest,
  median, largest]`` and plays ``policy_pi[obs]``; the opponent plays a uniform action;
* exploring starts: in the first two rounds (``round_index <= 1``; parameter
  ``explore_rounds``, 2) the agent draws a uniform action. The code does not just play it: it
  *writes it into* ``policy_pi[obs]`` (``explore="overwrite"``, the default), so a later turn
  of the same game at the same observation plays that random action again (the entry is
  reset to the greedy action by the game's update). ``explore="act"``: the random action is
  played and the policy left alone (what the README says: "selects a random action during
  the first two rounds rather than selecting the best action according to its policy");
* after the game, reward +1 / 0 / -1 to every recorded turn (every visit; ``visits="first"``
  takes a game's first visit of an observation only, the textbook's first-visit method), in
  the order played: count += 1, sum += reward, ``Q = sum / count``, then
  ``policy_pi[obs] = argmax Q[obs]`` (numpy's argmax: the first action on ties);
* the action credited is not the action taken: the code credits
  ``true_state_index[policy_pi[obs]]`` (``true_state_index`` maps 0, 1, 2 to themselves), the
  policy's action *at update time*: that is the action played unless an exploring start
  overwrote it for a later turn, or an earlier update of this game moved the greedy action
  (then every later visit of that observation credits the new greedy action, one it did not
  play). ``credit="policy"`` (the default) keeps that; ``credit="taken"`` credits the action
  played.

The game's own rules (the passing follower of the quoted ``play_action`` or the evident intent)
are the game's (:class:`~dicejack.games.deck_dollar.DeckDollar`'s ``passing``), not the
learner's. Python 2's ``np.random.choice(actions.values())`` is a uniform choice of 0, 1, 2
whatever the dict's order; the shuffle, exploring draws and opponent actions here all come from
``rng.random()`` (Fisher-Yates as :func:`~dicejack.games.deck_dollar.simulate` shuffles; an
action is ``int(3 * u)``), so the stream differs from numpy's legacy one but not in law.

One harness "game" is one game; ``moves`` counts the agent's turns (``rounds`` a game).
:class:`DeckMCTables` is what a checkpoint keeps; its ``policy`` (``policy_pi``) is the greedy
policy whose exact value :func:`dicejack.solver.deck_evaluation.evaluate_deck_policy` gives.
The loop is a plain Python function (:func:`_games_plain`, engine "python") compiled by numba
unchanged (engine "numba"); tests hold them to identical tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dicejack.games.deck_dollar import (
    N_OBSERVATIONS,
    TRUE_STATE_INDEX,
    DeckDollar,
    insert_plain,
    position_plain,
    take_plain,
    turn_plain,
)
from dicejack.learners.base import (
    Bundled,
    Counted,
    Param,
    generator_from_text,
    readonly,
    rng_state_text,
    state_array,
    state_int,
)
from dicejack.learners.checks import LearnerError, check_count, check_games_limit
from dicejack.runtime import interrupts

__all__ = ["DeckLearner", "DeckMC", "DeckMCTables", "PLAY_RULE"]


@dataclass(frozen=True, eq=False)
class DeckMCTables:
    """The agent's tables now, read-only: q (40 x 3, ``sums / counts``, 0 where never
    credited), sums and counts (int64, 40 x 3), policy (the code's ``policy_pi``: 40 actions),
    outcomes (the games won, drawn and lost while learning, exploring starts and all: what the
    study's own simulation would count)."""

    q: np.ndarray
    sums: np.ndarray
    counts: np.ndarray
    policy: np.ndarray
    outcomes: np.ndarray

    def equals(self, other: DeckMCTables) -> bool:
        return all(np.array_equal(getattr(self, k), getattr(other, k))
                   for k in ("q", "sums", "counts", "policy", "outcomes"))


# ------------------------------------------------------------------ the plain loop (reference)
def _agent_plain(policy, hand, n, showing, r, knobs, tsi, seen, acted, rng):
    """The agent's turn in round `r`: its action (recorded in seen/acted)."""
    half = knobs[1]
    obs = tsi[showing * 27 + hand[0] * 9 + hand[half] * 3 + hand[n - 1]]
    if r < knobs[3]:
        a = int(rng.random() * 3.0)
        if knobs[4] == 1:
            policy[obs] = a
    else:
        a = policy[obs]
    seen[r] = obs
    acted[r] = a
    return a


def _update_plain(policy, sums, counts, q, seen, acted, rounds, reward, knobs):
    """The game's end: every recorded turn (or each observation's first) credited."""
    done = np.zeros(policy.shape[0], dtype=np.bool_)
    for i in range(rounds):
        s = seen[i]
        if knobs[6] == 1 and done[s]:
            continue
        done[s] = True
        a = policy[s] if knobs[5] == 1 else acted[i]
        counts[s, a] += 1
        sums[s, a] += reward
        q[s, a] = sums[s, a] / counts[s, a]
        best = 0
        for b in range(1, 3):
            if q[s, b] > q[s, best]:
                best = b
        policy[s] = best


def _games_plain(base, knobs, tsi, policy, sums, counts, q, counters, games, rng):
    """Plays `games` games (module docstring). knobs: hand_size, half, rounds, explore_rounds,
    overwrite (1/0), credit the policy (1/0), first visit (1/0), passing (1/0)."""
    size = base.shape[0]
    hand_size, half, rounds, passing = knobs[0], knobs[1], knobs[2], knobs[7] == 1
    deck = np.empty(size, dtype=np.int64)
    h1 = np.empty(hand_size + rounds + 1, dtype=np.int64)
    h2 = np.empty(hand_size + rounds + 1, dtype=np.int64)
    seen = np.empty(rounds, dtype=np.int64)
    acted = np.empty(rounds, dtype=np.int64)
    for _ in range(games):
        for i in range(size):  # each game shuffles the deck in its order (chunking-free)
            deck[i] = base[i]
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
            if r % 2 == 0:
                a = _agent_plain(policy, h1, n1, 3, r, knobs, tsi, seen, acted, rng)
                c1, n1 = turn_plain(h1, n1, 3, a, half, passing)
                c2, n2 = turn_plain(h2, n2, c1, int(rng.random() * 3.0), half, passing)
            else:
                c2, n2 = turn_plain(h2, n2, 3, int(rng.random() * 3.0), half, passing)
                a = _agent_plain(policy, h1, n1, c2, r, knobs, tsi, seen, acted, rng)
                c1, n1 = turn_plain(h1, n1, c2, a, half, passing)
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
        reward = 1 if d > 0 else (0 if d == 0 else -1)
        _update_plain(policy, sums, counts, q, seen, acted, rounds, reward, knobs)
        counters[0] += 1
        counters[1] += rounds
        counters[3 - reward] += 1


#: The play rule the loop compiles (the quoted ``play_action``; tests hold it equal to
#: :func:`dicejack.games.deck_dollar.play_position`).
PLAY_RULE = position_plain  # the game's own rule (games.deck_dollar), not a copy

_PLAIN = {"position": position_plain, "take": take_plain, "insert": insert_plain,
          "play": turn_plain,
          "agent": _agent_plain, "update": _update_plain, "games": _games_plain}
_COMPILED: dict[str, Any] = {}


def _kernel(compiled: bool) -> Any:
    """The loop: compiled (numba, cached; each callee compiled under its plain name, as
    games.deck_dollar does) or the plain reference."""
    if not compiled:
        return _games_plain
    if not _COMPILED:
        from types import FunctionType

        with interrupts.atomic():  # a signal inside an import can hang the next one
            from numba import njit
        scope = dict(globals())
        for key, plain in _PLAIN.items():
            clone = FunctionType(plain.__code__, scope, plain.__name__)
            _COMPILED[key] = njit(cache=True, nogil=True)(clone)
            scope[plain.__name__] = _COMPILED[key]
    return _COMPILED["games"]


# --------------------------------------------------------------------------------- learner
class DeckLearner(Counted, Bundled):
    """What the deck game's learners share: the game check (a :class:`DeckDollar`), seed,
    parameters and engine (:meth:`Bundled.setup`), repr and label."""

    def check_game(self, game: Any) -> None:
        if not isinstance(game, DeckDollar):
            raise LearnerError(f"learner {self.NAME} plays the deck divide-the-dollar game "
                               f"(DeckDollar), not {type(game).__name__}")

    @property
    def label(self) -> str:
        return self.games_label


class DeckMC(DeckLearner):
    """The study's Monte Carlo agent (module docstring); the learner contract of protocol
    games: ``name, game, seed, params, played, moves, play(games), tables(), policy(), state(),
    restore``."""

    NAME: ClassVar[str] = "deck-mc"
    SUMMARY: ClassVar[str] = ("the deck divide-the-dollar study's Monte Carlo agent with "
                              "exploring starts, against the uniform opponent")
    PARAMS: ClassVar[tuple[Param, ...]] = (
        Param("explore", "overwrite", "overwrite: an exploring start writes its random action "
              "into the policy (the quoted code); act: it only plays it",
              kind="choice", choices=("overwrite", "act")),
        Param("credit", "policy", "policy: the update credits the policy's action at update "
              "time (the quoted code); taken: the action played",
              kind="choice", choices=("policy", "taken")),
        Param("visits", "every", "every: every turn is credited (the quoted code); first: a "
              "game's first turn at each observation", kind="choice", choices=("every", "first")),
        Param("explore_rounds", 2, "rounds at the start of each game played at random "
              "(exploring starts; the code's round_index <= 1)", kind="int", low=0, high=10**6),
    )
    #: The quoted code's oddities off: the evident intent.
    INTENT: ClassVar[dict[str, Any]] = {"explore": "act", "credit": "taken"}

    def __init__(self, game: Any, seed: int | None = None, *, engine: str = "numba",
                 **params: Any) -> None:
        self.setup(game, seed, params, engine)
        p = self.params
        self.knobs = np.array(
            [game.hand_size, game.half, game.rounds, min(int(p["explore_rounds"]), game.rounds),
             p["explore"] == "overwrite", p["credit"] == "policy", p["visits"] == "first",
             game.passing], dtype=np.int64)
        self.rng = np.random.default_rng(self.seed)
        self.policy_pi = self.rng.integers(3, size=N_OBSERVATIONS).astype(np.int64)
        self.sums = np.zeros((N_OBSERVATIONS, 3), dtype=np.int64)
        self.counts = np.zeros((N_OBSERVATIONS, 3), dtype=np.int64)
        self.q = np.zeros((N_OBSERVATIONS, 3))
        self.counters = np.zeros(5, dtype=np.int64)  # games, moves, wins, draws, losses


    def play(self, games: int) -> None:
        """`games` more games (chunking never changes the result): the compiled loop (engine
        "numba") or the plain reference ("python"), identical tables."""
        games = check_games_limit(check_count("games", games))
        if not games:
            return
        base = np.repeat(np.arange(3, dtype=np.int64), self.game.counts)
        tsi = np.asarray(TRUE_STATE_INDEX, dtype=np.int64)
        with interrupts.atomic():
            loop = _kernel(self.engine == "numba")
        loop(base, self.knobs, tsi, self.policy_pi, self.sums, self.counts, self.q,
             self.counters, games, self.rng)

    def choose(self, hand: Any, showing: int, round_index: int) -> int:
        """One turn of the agent by the plain rule, outside a game (to step through the
        learning by hand, as the study's README does): the action for the sorted `hand` (card
        types) with `showing` (3 = leading) in round `round_index`; an exploring start draws
        from the learner's generator and, with ``explore="overwrite"``, writes the policy."""
        cards = np.asarray(hand, dtype=np.int64)
        seen, acted = np.zeros(round_index + 1, np.int64), np.zeros(round_index + 1, np.int64)
        return int(_agent_plain(self.policy_pi, cards, len(cards), int(showing), round_index,
                                self.knobs, np.asarray(TRUE_STATE_INDEX), seen, acted,
                                self.rng))

    def credit(self, seen: Any, acted: Any, reward: int) -> None:
        """The game-end update by the plain rule (module docstring), outside a game: the
        turns' observations `seen` and actions played `acted`, all given `reward`."""
        seen, acted = np.asarray(seen, dtype=np.int64), np.asarray(acted, dtype=np.int64)
        _update_plain(self.policy_pi, self.sums, self.counts, self.q, seen, acted, len(seen),
                      int(reward), self.knobs)

    def tables(self) -> DeckMCTables:
        return DeckMCTables(readonly(self.q.copy()), readonly(self.sums.copy()),
                            readonly(self.counts.copy()), readonly(self.policy_pi.copy()),
                            readonly(self.counters[2:].copy()))

    def policy(self) -> np.ndarray:
        """The greedy policy now (the code's ``policy_pi``): 40 action numbers."""
        return self.policy_pi.copy()

    def state(self) -> dict[str, Any]:
        return {"policy": self.policy_pi.copy(), "sums": self.sums.copy(),
                "counts": self.counts.copy(), "games": self.played, "moves": self.moves,
                "outcomes": self.counters[2:].copy(), "rng_state": rng_state_text(self.rng)}

    @classmethod
    def restore(cls, game: Any, seed: int, params: Mapping[str, Any],
                state: Mapping[str, Any], engine: str = "numba") -> DeckMC:
        """A learner that plays on exactly as the one whose :meth:`state` this is."""
        obj = cls(game, seed, engine=engine, **dict(params))
        obj.policy_pi = np.array(state_array(state, "policy", (N_OBSERVATIONS,), "iu"),
                                 dtype=np.int64)
        obj.sums = np.array(state_array(state, "sums", (N_OBSERVATIONS, 3), "iu"),
                            dtype=np.int64)
        obj.counts = np.array(state_array(state, "counts", (N_OBSERVATIONS, 3), "iu"),
                              dtype=np.int64)
        if obj.policy_pi.min() < 0 or obj.policy_pi.max() > 2 or obj.counts.min() < 0:
            raise LearnerError("the learner state's policy or counts are out of range")
        safe = np.where(obj.counts == 0, 1, obj.counts)
        obj.q = np.where(obj.counts == 0, 0.0, obj.sums / safe)
        outcomes = state_array(state, "outcomes", (3,), "iu")
        obj.counters = np.array([state_int(state, "games"), state_int(state, "moves"),
                                 *outcomes.tolist()], dtype=np.int64)
        obj.rng = generator_from_text(state.get("rng_state"))
        return obj
