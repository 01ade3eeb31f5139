"""A game as every bridge plays it: :func:`bridge_of` (the handout's game, the default, or any
protocol game) -> a :class:`Bridge`, the one thing the PettingZoo environment
(:mod:`dicejack.envs.dicejack_v0`), its single-agent Gymnasium view
(:mod:`dicejack.envs.aec_single`) and the OpenSpiel game (:mod:`dicejack.envs.openspiel_game`)
read. No optional package needed.

A bridge's states are opaque tokens: a protocol game's are the indices of its enumeration
(:func:`dicejack.games.enumerate_game`); action ids number the game's actions in the order the
enumeration first meets them; a move's chance outcomes are its successors, with their exact
probabilities, drawn with one uniform; rewards on the way (``reward(state, action)``) and the
payoff at the end are player 0's, as the game gives them; bounds (return range, longest play)
are :func:`dicejack.games.bounds.game_bounds`'s.

The handout's game (a :class:`dicejack.games.handout_rules.Game` or
:class:`dicejack.games.HandoutGame`) keeps the encoding its users depend on, as
:class:`HandoutBridge`'s parameters of the same bridge: a state is (player 0's score, player
1's, the player to move, the winner or None) for any <X, Y> (OpenSpiel's policy bridges ask for
decision states no game reaches), action a rolls J = a + 1 dice, a roll's outcomes are the
totals (``Game.chance_outcomes``) drawn by :func:`~dicejack.games.handout_rules.roll_total`,
the observation is <own score, opponent's>, and the end pays +1 / -1 (2 x payoff - 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dicejack.games.bounds import Bounds, game_bounds
from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, Game, roll_total
from dicejack.runtime.messages import DicejackError

__all__ = ["Bridge", "HandoutBridge", "bridge_of", "OpponentDraw"]

#: A fixed policy as the single-agent view samples it: state -> (cumulative weights of the legal
#: actions, their action ids); the first action whose cumulative weight exceeds u is played.
OpponentDraw = Callable[[Any], tuple[np.ndarray, np.ndarray]]


def bridge_of(game: Any) -> Bridge:
    """The bridge of `game`: the handout's game (Game or HandoutGame) in its own encoding, any
    other protocol game from its enumeration."""
    if isinstance(game, Bridge):
        return game
    if isinstance(game, Game):
        return HandoutBridge(game)
    if isinstance(game, HandoutGame):
        return HandoutBridge(game.rules)
    return Bridge(game)


class Bridge:
    """Any protocol game from its enumeration (module docstring); states are indices."""

    #: The handout's game in its own encoding (:class:`HandoutBridge`).
    handout = False

    def __init__(self, game: Any) -> None:
        from dicejack.games import enumerate_game
        from dicejack.games.protocol import game_label

        self.game = game
        self.label = game_label(game)
        space = self.space = enumerate_game(game)
        if space.terminal[0]:
            raise DicejackError(f"{self.label}: the initial state is terminal")
        self.num_players = space.num_players
        self.bounds: Bounds = game_bounds(space)
        self.paid = space.reward is not None and bool(np.any(space.reward))
        self.reward_exact = space.reward_exact if self.paid else None
        self.action_labels = list(dict.fromkeys(space.actions))
        ids = {a: i for i, a in enumerate(self.action_labels)}
        self.row_action = np.array([ids[a] for a in space.actions], dtype=np.int64)
        t = space.transitions
        self.indptr, self.succ, self.prob = t.indptr, t.indices, t.data

    def __deepcopy__(self, memo: dict) -> Bridge:
        """The bridge itself: it is read only, and OpenSpiel clones a state (a deepcopy) at every
        node it walks: the states share their game's bridge."""
        return self

    # ------------------------------------------------------------------ sizes and ranges
    @property
    def n_actions(self) -> int:
        return len(self.action_labels)

    @property
    def max_chance_outcomes(self) -> int:
        return int(np.diff(self.indptr).max(initial=1))

    @property
    def max_length(self) -> int:
        """Where a play that has not ended is cut (OpenSpiel's max_game_length, truncation)."""
        return self.bounds.move_limit

    def seat_range(self, player: int) -> tuple[float, float]:
        """`player`'s least and greatest return."""
        return self.bounds.seat(player)

    # ----------------------------------------------------------------------- the rules
    initial: Any = 0

    def player(self, s: Any) -> int:
        return int(self.space.player[s])

    def terminal(self, s: Any) -> bool:
        return bool(self.space.terminal[s])

    def legal(self, s: Any) -> dict[int, int]:
        """Action id -> the enumeration's row (state, action), at state `s`."""
        lo, hi = int(self.space.row_start[s]), int(self.space.row_start[s + 1])
        return {int(self.row_action[r]): r for r in range(lo, hi)}

    def _row(self, s: Any, a: int) -> int:
        return self.legal(s)[a]

    def chance(self, s: Any, a: int) -> list[tuple[int, float]]:
        """(outcome id, probability) of every outcome of playing `a` at `s`."""
        row = self._row(s, a)
        lo, hi = int(self.indptr[row]), int(self.indptr[row + 1])
        return [(k, float(self.prob[lo + k])) for k in range(hi - lo)]

    def sure(self, s: Any, a: int) -> bool:
        """True when playing `a` at `s` has one outcome (OpenSpiel: no chance node)."""
        row = self._row(s, a)
        return int(self.indptr[row + 1]) - int(self.indptr[row]) == 1

    def after(self, s: Any, a: int, outcome: int) -> Any:
        """The state after outcome `outcome` of playing `a` at `s`."""
        return int(self.succ[int(self.indptr[self._row(s, a)]) + int(outcome)])

    def draw(self, s: Any, a: int, u: float) -> int:
        """The outcome of playing `a` at `s` that uniform `u` in [0, 1) picks: the first whose
        running probability exceeds u."""
        row = self._row(s, a)
        lo, hi = int(self.indptr[row]), int(self.indptr[row + 1])
        cum = np.cumsum(self.prob[lo:hi])
        return min(int(np.searchsorted(cum, u * cum[-1], side="right")), hi - lo - 1)

    def reward(self, s: Any, a: int) -> Any:
        """Player 0's reward for playing `a` at `s`, as the game gives it (0 when it pays none)."""
        return 0 if self.reward_exact is None else self.reward_exact[self._row(s, a)]

    def step_reward(self, s: Any, a: int, nxt: Any) -> float:
        """What player 0 is paid for the move from `s` by `a` to `nxt`, in the environments:
        its reward, and the payoff when the game ends at `nxt`."""
        paid = float(self.space.reward[self._row(s, a)]) if self.paid else 0.0
        return paid + (float(self.space.payoff[nxt]) if self.terminal(nxt) else 0.0)

    def to_move(self, nxt: Any, mover: int) -> int:
        """Who the environments select after `mover`'s move to `nxt` (the mover when it ends)."""
        return mover if self.terminal(nxt) else self.player(nxt)

    def end(self, s: Any) -> Any:
        """Player 0's payoff at `s` when the game is over there, else 0."""
        return self.space.payoff_exact[s] if self.terminal(s) else 0

    def seats(self, value: Any) -> list[float]:
        """Player 0's `value` and player 1's (its negative) as OpenSpiel's per-player list."""
        v = float(value)
        return [v, -v] if self.num_players == 2 else [v]

    # ------------------------------------------------------------------ what is shown
    def observation_box(self) -> tuple[int, int, int]:
        """(low, high, length) of the environments' observation vector."""
        return 0, self.space.n_states - 1, 1

    def observation(self, s: Any, player: int) -> np.ndarray:
        return np.array([s], dtype=np.int64)

    def move_info(self, s: Any, a: int, outcome: int, nxt: Any) -> dict[str, Any]:
        """What the environments' infos say of a move (beside who made it)."""
        return {"action": self.action_labels[a], "state": repr(self.space.states[nxt])}

    def render(self, s: Any, to_move: str) -> str:
        """The environments' "ansi" text of state `s`, `to_move` naming the agent to move."""
        text = f"{self.label}: {self.space.states[s]!r}"
        return text if self.terminal(s) else f"{text}, {to_move} to move"

    def action_hint(self) -> str:
        return f"actions 0..{self.n_actions - 1}: {self.action_labels}"

    def action_text(self, a: int) -> str:
        return str(self.action_labels[a])

    def outcome_text(self, s: Any, a: int, outcome: int) -> str:
        return f"outcome {outcome}: {self.space.states[self.after(s, a, outcome)]!r}"

    def position(self, s: Any, pending: int | None) -> str:
        """The state's text (OpenSpiel's), `pending` the action whose chance node is open."""
        text = repr(self.space.states[s])
        if pending is not None:
            text += f" after {self.action_labels[pending]!r}"
        return text

    def state_text(self, s: Any, pending: int | None, paid: Any) -> str:
        """OpenSpiel's ``str(state)`` (what its value_iteration keys by): the position, and
        what has been paid so far when it is not 0."""
        return self.position(s, pending) + (f" (paid so far: {paid})" if paid else "")

    def observation_string(self, s: Any, pending: int | None, paid: Any, mover: int) -> str:
        return f"{self.position(s, pending)} (to move: {mover})"

    tensor_parts: dict[str, slice] = {}  # noqa: RUF012 - read only: no observation tensor

    def fill_tensor(self, tensor: np.ndarray, s: Any, pending: int | None, player: int) -> None:
        """OpenSpiel's observation tensor of `player` (none for a protocol game)."""

    # ------------------------------------------------------------------ fixed policies
    def opponent_draw(self, opponent: Any) -> OpponentDraw:
        """A fixed policy as weights per (state, action) row of the enumerated game
        (``GameSolution.policy()``, ``uniform_policy(space)``...), as :data:`OpponentDraw`; a
        state whose weights are all 0 plays uniformly."""
        space = self.space
        weights = np.asarray(opponent, dtype=np.float64)
        if weights.shape != (space.n_rows,) or not np.isfinite(weights).all() or (
                weights < 0).any():
            raise DicejackError(f"opponent must be weights >= 0 per (state, action) row "
                                f"({space.n_rows} rows)")

        def cdf(s: Any) -> tuple[np.ndarray, np.ndarray]:
            lo, hi = int(space.row_start[s]), int(space.row_start[s + 1])
            w = weights[lo:hi]
            w = w / w.sum() if w.sum() > 0 else np.full(hi - lo, 1.0 / (hi - lo))
            return np.cumsum(w), self.row_action[lo:hi]

        return cdf


class HandoutBridge(Bridge):
    """The handout's game (:class:`dicejack.games.handout_rules.Game`) in its own encoding
    (module docstring); a state is (score 0, score 1, player to move, winner or None)."""

    handout = True

    def __init__(self, game: Game) -> None:  # noqa: D107 - no enumeration: the rules directly
        self.game = game
        self.label = game.label()
        self.space = None
        self.num_players = 2
        # each player decides at most LTarget times: every roll adds at least 1
        self.bounds = Bounds(-1.0, 1.0, 2 * game.low)
        self.paid = False
        self.reward_exact = None
        self.action_labels = list(range(1, game.n_dice + 1))
        self._cdf = game.sum_cdf_table.tolist()  # lists: bisect is fastest on them
        self._every_j = {a: a for a in range(game.n_dice)}
        self.initial = (0, 0, 0, None)

    @property
    def max_chance_outcomes(self) -> int:
        return self.game.n_dice * self.game.n_sides + 1

    @staticmethod
    def decision(x: int, y: int, player: int) -> tuple[int, int, int, None]:
        """The state where `player` is to move with its own score x against y."""
        return (x, y, 0, None) if player == 0 else (y, x, 1, None)

    def player(self, s: Any) -> int:
        return s[2]

    def terminal(self, s: Any) -> bool:
        return s[3] is not None

    def legal(self, s: Any) -> dict[int, int]:
        return self._every_j  # every J, everywhere (read only)

    def chance(self, s: Any, a: int) -> list[tuple[int, float]]:
        return self.game.chance_outcomes(a + 1)

    def sure(self, s: Any, a: int) -> bool:
        return False

    def after(self, s: Any, a: int, outcome: int) -> Any:
        s0, s1, me, _ = s
        score = (s0, s1)[me] + int(outcome)
        result = self.game.outcome(score)
        if result != CONTINUES:
            return (s0, s1, me, me if result == MOVER_WINS else 1 - me)
        return (score, s1, 1, None) if me == 0 else (s0, score, 0, None)

    def draw(self, s: Any, a: int, u: float) -> int:
        return roll_total(self._cdf[a + 1], u)

    def reward(self, s: Any, a: int) -> Any:
        return 0

    def end(self, s: Any) -> Any:
        return 0 if s[3] is None else (1 if s[3] == 0 else -1)

    def step_reward(self, s: Any, a: int, nxt: Any) -> float:
        return self.end(nxt)

    def seats(self, value: Any) -> list[float]:
        return [float(value), float(-value)]  # whole numbers: never -0.0

    def to_move(self, nxt: Any, mover: int) -> int:
        return 1 - mover  # turns alternate; after the last move too

    def observation_box(self) -> tuple[int, int, int]:
        return 0, self.game.low - 1, 2

    def observation(self, s: Any, player: int) -> np.ndarray:
        return np.array([s[player], s[1 - player]], dtype=np.int64)

    def move_info(self, s: Any, a: int, outcome: int, nxt: Any) -> dict[str, Any]:
        return {"dice": a + 1, "total": int(outcome), "score": s[s[2]] + int(outcome)}

    def render(self, s: Any, to_move: str) -> str:
        head = f"player_0 {s[0]}, player_1 {s[1]}"
        return f"{head}: player_{s[3]} won" if s[3] is not None else f"{head}: {to_move} to move"

    def action_hint(self) -> str:
        return f"actions 0..{self.game.n_dice - 1} roll J = action + 1 dice"

    def action_text(self, a: int) -> str:
        return f"roll {Game.dice_label(a + 1)}"

    def outcome_text(self, s: Any, a: int, outcome: int) -> str:
        return f"rolled {outcome}"

    def state_text(self, s: Any, pending: int | None, paid: Any) -> str:
        s0, s1, me, winner = s
        if winner is not None:
            return f"scores {s0},{s1}: player {winner} won"
        if pending is not None:
            return f"scores {s0},{s1}: player {me} rolls {Game.dice_label(pending + 1)}"
        return f"scores {s0},{s1}: player {me} to move"

    def observation_string(self, s: Any, pending: int | None, paid: Any, mover: int) -> str:
        return self.state_text(s, pending, paid)

    tensor_parts = {"scores": slice(0, 2), "to_move": slice(2, 3), "dice": slice(3, 4)}  # noqa: RUF012

    def fill_tensor(self, tensor: np.ndarray, s: Any, pending: int | None, player: int) -> None:
        mine = s[3] is None and s[2] == player
        dice = 0 if pending is None else pending + 1
        tensor[:] = (s[player], s[1 - player], float(mine), dice if mine else 0)

    def opponent_draw(self, opponent: Any) -> OpponentDraw:
        """Any policy the solver takes (a Solution: optimal play, ties split evenly; an (L, L)
        table of J, -1 = no data played uniformly; an (L, L, K+1) action distribution; a
        callable (x, y) -> J), from the mover's view <its score, the other's>."""
        from dicejack import solver
        from dicejack.solver.solution import policy_distribution

        try:
            dist = policy_distribution(self.game, opponent)
        except solver.ZeroBasedError as exc:
            raise DicejackError(f"bad opponent: {exc.saying('add 1 to each J')}") from None
        except solver.SolverError as exc:
            raise DicejackError(f"bad opponent: {exc}") from None
        cumulative = np.cumsum(dist[:, :, 1:], axis=2)
        ids = np.arange(self.game.n_dice)

        def cdf(s: Any) -> tuple[np.ndarray, np.ndarray]:
            me = s[2]
            return cumulative[s[me], s[1 - me]], ids

        return cdf
