"""A game as every bridge plays it: :func:`bridge_of` (the handout's game, the default, any
protocol game, or one with hidden information) -> a :class:`Bridge`, the one thing the
PettingZoo environment (:mod:`dicejack.envs.dicejack_v0`), its single-agent Gymnasium view
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

A game with hidden information (:func:`dicejack.games.information.is_information_game`: Kuhn
poker) is :class:`InformationBridge`'s, from its tree of plays
(:func:`~dicejack.games.information.enumerate_information`): states are the tree's nodes, forced
moves fold into the chance outcomes (a deal before anyone moves: the game opens with chance,
:attr:`Bridge.opening`), each player sees its own information state only, and the utility is
paid at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from dicejack.games.bounds import Bounds, game_bounds
from dicejack.games.handout import HandoutGame
from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, Game, roll_total
from dicejack.games.information import is_information_game
from dicejack.runtime.messages import DicejackError

__all__ = ["Bridge", "HandoutBridge", "InformationBridge", "bridge_of", "OpponentDraw"]

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
    if is_information_game(game):
        return InformationBridge(game)
    return Bridge(game)


class Bridge:
    """Any protocol game from its enumeration (module docstring); states are indices."""

    #: The handout's game in its own encoding (:class:`HandoutBridge`).
    handout = False
    #: A game with hidden information (:class:`InformationBridge`).
    hidden = False

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
    #: The action whose chance node is open at the start (OpenSpiel's first node is then chance):
    #: None, but for a game whose play opens with a deal (:class:`InformationBridge`).
    opening: int | None = None

    def start(self, rng: np.random.Generator) -> Any:
        """Where the environments start a game: the initial state (no draw from `rng`), or
        after the opening deal drawn with one uniform from `rng`."""
        if self.opening is None:
            return self.initial
        return self.after(self.initial, self.opening,
                          self.draw(self.initial, self.opening, float(rng.random())))

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

    def observation_string(self, s: Any, pending: int | None, paid: Any, mover: int,
                           player: int) -> str:
        """OpenSpiel's observation and information state string of `player` (a game of
        perfect information: the position, the same for every player)."""
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
        return 0 if nxt[3] is None else (1 if nxt[3] == 0 else -1)  # end(nxt), one call less

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

    def observation_string(self, s: Any, pending: int | None, paid: Any, mover: int,
                           player: int) -> str:
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


class InformationBridge(Bridge):
    """A game with hidden information (:mod:`dicejack.games.information`) from its tree of
    plays (:func:`~dicejack.games.information.enumerate_information`); states are the tree's
    nodes (module docstring).

    Only decisions are moves: a forced move (one action; Kuhn poker's ``"deal"``) is no node of
    its own, its chance outcomes join the outcomes of the move before it (the probabilities
    multiplied, exactly), or open the game (:attr:`opening`, :meth:`start`). Action ids number
    the decisions' actions in the order the tree first meets them (Kuhn poker: pass 0, bet 1,
    as OpenSpiel's ``kuhn_poker``). A player sees its own information state only: ``keys[p]``
    lists player p's keys (every node's, in the order met), ``key_of[p][node]`` the index there;
    the observation is that index, the information state string the key (a ``str`` key as it is,
    any other as its ``repr``). Player 0's utility (payoff plus rewards on the way) is paid at
    the end.
    """

    handout = False
    hidden = True
    #: :attr:`opening` when the game opens with chance: the forced move at the root.
    FORCED = -1

    def __init__(self, game: Any) -> None:  # noqa: D107 - the tree, not an enumeration
        from dicejack.games.information import enumerate_information
        from dicejack.games.protocol import game_label

        self.game, self.label, self.space = game, game_label(game), None
        tree = self.tree = enumerate_information(game)
        self.num_players = tree.num_players
        self.paid, self.reward_exact = False, None
        self.action_labels = list(dict.fromkeys(a for s in tree.decisions() for a in s.actions))
        ids = {a: i for i, a in enumerate(self.action_labels)}
        self._legal = [{} if s.forced else {ids[a]: i for i, a in enumerate(s.actions)}
                       for s in tree.infosets]
        self._next: dict[tuple[int, int], list[tuple[int, Any]]] = {}
        self._keys(tree)
        opening = self._settle(0)
        if len(opening) == 1:  # a decision at the root, or one reached by sure forced moves
            self.initial, self.opening = opening[0][0], None
        else:
            self.initial, self.opening = 0, self.FORCED
            self._next[0, self.FORCED] = opening
        if any(self.terminal(n) for n, _ in opening):
            raise DicejackError(f"{self.label}: a play ends before anyone decides")
        self.bounds = self._bounds(tree)
        # every move's outcomes, made now: the bridge is read only from here on
        self._widest = max([len(opening), *(len(self.outcomes(n, a)) for n in range(tree.n_nodes)
                                            for a in self.legal(n))])
        parts = {"player": slice(0, self.num_players)}
        width = max(len(k) for k in self.keys)
        parts["information_state"] = slice(self.num_players, self.num_players + width)
        self.tensor_parts = parts

    def _keys(self, tree: Any) -> None:
        """Every node's information state of every player, as index and text (one text a key)."""
        self.keys: list[list[str]] = []
        self.key_of: list[list[int]] = []
        for p in range(tree.num_players):
            texts: dict[str, int] = {}
            seen: dict[Any, str] = {}
            row = []
            for state in tree.states:
                key = tree.game.information_state(state, p)
                text = seen.get(key)
                if text is None:
                    text = seen[key] = key if isinstance(key, str) else repr(key)
                    if text in texts:
                        raise DicejackError(f"{self.label}: two information states of player "
                                            f"{p} read {text!r}")
                    texts[text] = len(texts)
                row.append(texts[text])
            self.keys.append(list(texts))
            self.key_of.append(row)

    def _bounds(self, tree: Any) -> Bounds:
        """The least and greatest utility; the most decisions in one play."""
        depth = [0] * tree.n_nodes
        for n, rows in enumerate(tree.children):
            step = 0 if tree.player[n] < 0 or tree.infosets[tree.infoset[n]].forced else 1
            for outcomes in rows:
                for child, _ in outcomes:
                    depth[child] = depth[n] + step
        ends = tree.terminals()
        values = [float(tree.utility[n]) for n in ends]
        return Bounds(min(values), max(values), max(depth[n] for n in ends))

    def _settle(self, node: int) -> list[tuple[int, Any]]:
        """The decision or terminal nodes that `node` leads to through forced moves, with their
        exact probabilities, in the tree's order."""
        tree, out = self.tree, []
        stack = [(node, Fraction(1))]
        while stack:
            n, p = stack.pop()
            if tree.player[n] < 0 or not tree.infosets[tree.infoset[n]].forced:
                out.append((n, p))
                continue
            stack.extend((c, p * q) for c, q in reversed(tree.children[n][0]))
        return out

    def outcomes(self, s: Any, a: int) -> list[tuple[int, Any]]:
        """(the next decision or terminal node, its exact probability) of playing `a` at `s`."""
        got = self._next.get((s, a))
        if got is None:
            i = self._legal[self.tree.infoset[s]][a]
            got = [(m, p * q) for c, p in self.tree.children[s][i] for m, q in self._settle(c)]
            self._next[s, a] = got
        return got

    @property
    def max_chance_outcomes(self) -> int:
        return self._widest

    def player(self, s: Any) -> int:
        return int(self.tree.player[s])

    def terminal(self, s: Any) -> bool:
        return self.tree.player[s] < 0

    def legal(self, s: Any) -> dict[int, int]:
        """Action id -> its index among the infoset's actions, at node `s` (none at a terminal
        node or a forced move's)."""
        return self._legal[self.tree.infoset[s]] if self.tree.player[s] >= 0 else {}

    def chance(self, s: Any, a: int) -> list[tuple[int, float]]:
        return [(k, float(p)) for k, (_, p) in enumerate(self.outcomes(s, a))]

    def sure(self, s: Any, a: int) -> bool:
        return len(self.outcomes(s, a)) == 1

    def after(self, s: Any, a: int, outcome: int) -> Any:
        return self.outcomes(s, a)[int(outcome)][0]

    def draw(self, s: Any, a: int, u: float) -> int:
        cum = np.cumsum([float(p) for _, p in self.outcomes(s, a)])
        return min(int(np.searchsorted(cum, u * cum[-1], side="right")), len(cum) - 1)

    def reward(self, s: Any, a: int) -> Any:
        return 0

    def step_reward(self, s: Any, a: int, nxt: Any) -> float:
        return float(self.tree.utility[nxt]) if self.terminal(nxt) else 0.0

    def end(self, s: Any) -> Any:
        return self.tree.utility[s] if self.terminal(s) else 0

    # ------------------------------------------------------------------ what is shown
    def observation_box(self) -> tuple[int, int, int]:
        return 0, max(len(k) for k in self.keys) - 1, 1

    def observation(self, s: Any, player: int) -> np.ndarray:
        return np.array([self.key_of[player][s]], dtype=np.int64)

    def move_info(self, s: Any, a: int, outcome: int, nxt: Any) -> dict[str, Any]:
        return {"action": self.action_labels[a]}  # not the state: it shows hidden cards

    def render(self, s: Any, to_move: str) -> str:
        text = f"{self.label}: {self.tree.states[s]!r}"
        return text if self.terminal(s) else f"{text}, {to_move} to move"

    def _pending_text(self, pending: int) -> str:
        if pending == self.FORCED:
            return repr(self.tree.infosets[self.tree.infoset[0]].actions[0])
        return repr(self.action_labels[pending])

    def outcome_text(self, s: Any, a: int, outcome: int) -> str:
        return f"outcome {outcome}: {self.tree.states[self.after(s, a, outcome)]!r}"

    def position(self, s: Any, pending: int | None) -> str:
        text = repr(self.tree.states[s])
        return text if pending is None else f"{text} after {self._pending_text(pending)}"

    def observation_string(self, s: Any, pending: int | None, paid: Any, mover: int,
                           player: int) -> str:
        """`player`'s information state: its key (the action it is about to see the outcome
        of added at a chance node after its move)."""
        text = self.keys[player][self.key_of[player][s]]
        if pending is None or pending == self.FORCED:
            return text
        return f"{text} after {self._pending_text(pending)}"

    def fill_tensor(self, tensor: np.ndarray, s: Any, pending: int | None, player: int) -> None:
        """One-hot: the observing player, then its information state's index (``keys``)."""
        tensor[:] = 0
        tensor[player] = 1
        tensor[self.num_players + self.key_of[player][s]] = 1

    # ------------------------------------------------------------------ fixed policies
    def opponent_draw(self, opponent: Any) -> OpponentDraw:
        """A behaviour policy, information-state key -> {action: probability} (or probabilities
        aligned with the key's actions) at every decision key (``uniform_policy(game)``, a CFR
        learner's average policy), as :data:`OpponentDraw`."""
        from dicejack.solver.information_policies import behaviour
        from dicejack.solver.results import SolverError

        try:
            rows = behaviour(self.tree, opponent)
        except SolverError as exc:
            raise DicejackError(f"bad opponent: {exc}") from None
        ids = [np.array(list(legal), dtype=np.int64) for legal in self._legal]

        def cdf(s: Any) -> tuple[np.ndarray, np.ndarray]:
            i = self.tree.infoset[s]
            return np.cumsum([float(p) for p in rows[i]]), ids[i]

        return cdf
