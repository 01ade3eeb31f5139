"""Games with hidden information: the protocol's extension (:class:`InformationGame`) and the
checker that enumerates such a game's tree of plays (:func:`enumerate_information`,
:class:`InformationTree`).

An information game is a :class:`~dicejack.games.protocol.FiniteGame` whose player does not see
the whole state: ``information_state(state, player)`` is a hashable key for what `player` has
seen at `state` (its own cards, the moves played), and the player to move acts on its key alone:
every state with one key must offer the same actions. Chance deals hidden cards as the
protocol's chance outcomes (``outcomes(state, action)``, exact probabilities); a deal before
anyone moves is the outcome of a move with one action (Kuhn poker's ``"deal"``). A move with one
legal action is forced: no decision, no entry in a policy, no sequence of the sequence form.

The tree is the game's plays (histories), not its states: it must be finite (no state repeats
along a play) and have perfect recall (a player's key tells the moves it made itself, and the
keys it made them at), and one key belongs to one player. Payoffs are player 0's, zero-sum, as in
the protocol; a history's utility is the payoff at its end plus the rewards on its way.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

from dicejack.games.protocol import (
    FiniteGame,
    GameDefinitionError,
    check_game_object,
    exact_probability,
    finite_number,
)

__all__ = [
    "InformationGame",
    "InformationSet",
    "InformationTree",
    "HISTORIES_LIMIT",
    "is_information_game",
    "enumerate_information",
]

#: The most histories (nodes of the tree of plays) a game may have.
HISTORIES_LIMIT = 1_000_000


@runtime_checkable
class InformationGame(FiniteGame, Protocol):
    """A :class:`FiniteGame` with hidden information (module docstring).

    information_state(state, player): a hashable key for what `player` has seen at `state`;
    the player to move chooses on its own key alone.
    """

    def information_state(self, state: Any, player: int) -> Hashable: ...


def is_information_game(game: Any) -> bool:
    """True when `game` declares hidden information (it has ``information_state``)."""
    return callable(getattr(game, "information_state", None))


@dataclass(frozen=True)
class InformationSet:
    """One key of one player: the histories at which the player acts on it.

    player: 0 or 1; key: the game's ``information_state``; actions: the legal actions there (the
    same at every history); nodes: the tree's histories with this key, in the order met;
    parent: the index of the player's own sequence that leads here (0: the empty sequence);
    sequences: the indices of the player's sequences (parent extended by each action), or ()
    when the move is forced (one action).
    """

    player: int
    key: Hashable
    actions: tuple[Hashable, ...]
    nodes: tuple[int, ...]
    parent: int
    sequences: tuple[int, ...]

    @property
    def forced(self) -> bool:
        """One legal action: no decision."""
        return len(self.actions) == 1


@dataclass(frozen=True, eq=False)
class InformationTree:
    """A game's tree of plays, checked (module docstring); nodes by index, 0 the root, a child's
    index above its parent's (top-down passes go in index order).

    states: each node's state; player: its mover (-1 at a terminal node); infoset: the index of
    its :class:`InformationSet` (-1 at a terminal node); children: per node, per legal action
    (in the infoset's order), the chance outcomes as (child node, exact probability) pairs;
    chance: each node's chance reach (the product of the chance probabilities from the root,
    exact); utility: player 0's utility at a terminal node (payoff plus rewards on the way, as
    exact as the game gave them), None elsewhere; own: per node, each player's own sequence
    index that leads to it; infosets: the information sets, in the order met; index:
    key -> infoset index; sequences: per player, each sequence as (infoset, action index), the
    empty sequence (index 0) as None.
    """

    game: Any
    states: tuple[Hashable, ...]
    player: tuple[int, ...]
    infoset: tuple[int, ...]
    children: tuple[tuple[tuple[tuple[int, Fraction], ...], ...], ...]
    chance: tuple[Fraction, ...]
    utility: tuple[Any, ...]
    own: tuple[tuple[int, ...], ...]
    infosets: tuple[InformationSet, ...]
    index: dict[Hashable, int]
    sequences: tuple[tuple[tuple[int, int] | None, ...], ...]

    @property
    def num_players(self) -> int:
        return int(self.game.num_players)

    @property
    def n_nodes(self) -> int:
        return len(self.states)

    def terminals(self) -> list[int]:
        """The terminal nodes, in index order."""
        return [n for n, p in enumerate(self.player) if p < 0]

    def decisions(self, player: int | None = None) -> list[InformationSet]:
        """The information sets with a choice (two actions or more), of `player` or of all."""
        return [s for s in self.infosets
                if not s.forced and (player is None or s.player == player)]


def enumerate_information(game: Any, limit: int = HISTORIES_LIMIT) -> InformationTree:
    """The tree of plays of an information game, every promise checked (module docstring):
    GameDefinitionError, one line, naming the state or key that breaks one."""
    check_game_object(game)
    if not is_information_game(game):
        raise GameDefinitionError(
            f"game {game.name} has no information_state(state, player): every player sees the "
            "whole state (enumerate it with dicejack.games.space.enumerate_game)"
        )
    walk = _Walk(game, limit)
    try:
        walk.run()
    except GameDefinitionError:
        raise
    except Exception as exc:  # the game's own code failed: say where, in one line
        raise GameDefinitionError(
            f"game {getattr(game, 'name', '?')}: {type(exc).__name__} at state "
            f"{walk.current!r}: {exc}"
        ) from None
    return walk.tree()


class _Infoset:
    """An information set as it is met: mutable until the tree is finished."""

    def __init__(self, player: int, key: Hashable, actions: tuple[Hashable, ...], parent: int,
                 sequences: tuple[int, ...]) -> None:
        self.player, self.key, self.actions = player, key, actions
        self.parent, self.sequences = parent, sequences
        self.nodes: list[int] = []


class _Walk:
    """The tree of :func:`enumerate_information` as it grows, depth first; the states on the
    current play remembered (a repeat is an endless game)."""

    def __init__(self, game: Any, limit: int) -> None:
        self.game, self.limit = game, limit
        self.players = (0, 1) if game.num_players == 2 else (0,)
        self.rewarded = callable(getattr(game, "reward", None))
        self.states: list[Hashable] = []
        self.player: list[int] = []
        self.infoset: list[int] = []
        self.children: list[tuple[tuple[tuple[int, Fraction], ...], ...]] = []
        self.chance: list[Fraction] = []
        self.utility: list[Any] = []
        self.gained: list[Any] = []  # player 0's rewards on the way to each node
        self.own: list[tuple[int, ...]] = []
        self.sets: list[_Infoset] = []
        self.index: dict[Hashable, int] = {}
        self.sequences: list[list[tuple[int, int] | None]] = [[None] for _ in range(2)]
        self.current: Any = None

    def add(self, state: Hashable, chance: Fraction, gained: Any, own: tuple[int, ...]) -> int:
        """A new node (expanded later), its state checked hashable; the limit held."""
        try:
            hash(state)
        except TypeError:
            raise GameDefinitionError(
                f"game {self.game.name}: states must be hashable, got {state!r}"
            ) from None
        if len(self.states) >= self.limit:
            raise GameDefinitionError(
                f"game {self.game.name}: more than {self.limit:,} histories; too large to "
                "enumerate"
            )
        self.states.append(state)
        self.chance.append(chance)
        self.gained.append(gained)
        self.own.append(own)
        self.player.append(-1)
        self.infoset.append(-1)
        self.children.append(())
        self.utility.append(None)
        return len(self.states) - 1

    def run(self) -> None:
        """Every play from the initial state, depth first (an explicit stack)."""
        root = self.add(self.game.initial_state(), Fraction(1), 0, (0, 0))
        stack: list[tuple[int, bool]] = [(root, True)]
        path: set[Hashable] = set()
        while stack:
            node, entering = stack.pop()
            state = self.states[node]
            if not entering:
                path.discard(state)
                continue
            self.current = state
            if state in path:
                raise GameDefinitionError(
                    f"game {self.game.name}: state {state!r} repeats along a play; a game with "
                    "hidden information must be a finite tree"
                )
            if self.game.is_terminal(state):
                payoff = finite_number(self.game, f"payoff at {state!r}", self.game.payoff(state))
                self.utility[node] = payoff + self.gained[node]
                continue
            path.add(state)
            stack.append((node, False))
            kids = self.expand(node, state)
            stack.extend((k, True) for k in reversed(kids))

    def expand(self, node: int, state: Hashable) -> list[int]:
        """A decision node: its player, key and infoset checked; its children added."""
        game = self.game
        mover = game.player(state)
        if isinstance(mover, bool) or mover not in self.players:
            raise GameDefinitionError(
                f"game {game.name}: player at {state!r} is {mover!r}, not "
                f"{'0 or 1' if len(self.players) == 2 else '0 (a one-player game)'}"
            )
        actions = tuple(game.actions(state))
        if not actions:
            raise GameDefinitionError(
                f"game {game.name}: no legal action at the non-terminal state {state!r}")
        if len(set(actions)) != len(actions):
            raise GameDefinitionError(f"game {game.name}: an action repeats at {state!r}")
        s = self.infoset_of(node, state, int(mover), actions)
        self.player[node], self.infoset[node] = int(mover), s
        infoset = self.sets[s]
        infoset.nodes.append(node)
        rows, kids = [], []
        for i, action in enumerate(actions):
            own = list(self.own[node])
            if infoset.sequences:
                own[mover] = infoset.sequences[i]
            gained = self.gained[node]
            if self.rewarded:
                gained = gained + finite_number(game, f"reward at {state!r}, action {action!r}",
                                          game.reward(state, action))
            row = self.outcomes(node, state, action, gained, tuple(own))
            rows.append(row)
            kids.extend(k for k, _ in row)
        self.children[node] = tuple(rows)
        return kids

    def outcomes(self, node: int, state: Hashable, action: Hashable, gained: Any,
                 own: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
        """The chance outcomes of one action as new nodes; exact, positive, distinct, sum 1."""
        game = self.game
        row, seen, total = [], set(), Fraction(0)
        for nxt, p in game.outcomes(state, action):
            q = exact_probability(game, state, action, p)
            if nxt in seen:
                raise GameDefinitionError(
                    f"game {game.name}: successor {nxt!r} appears twice at {state!r}, action "
                    f"{action!r} (give each once with its total probability)"
                )
            seen.add(nxt)
            total += q
            row.append((self.add(nxt, self.chance[node] * q, gained, own), q))
        if not row:
            raise GameDefinitionError(f"game {game.name}: action {action!r} at {state!r} has "
                                      "no outcome")
        if total != 1:
            raise GameDefinitionError(f"game {game.name}: the probabilities at {state!r}, "
                                      f"action {action!r} sum to {total}, not 1")
        return tuple(row)

    def infoset_of(self, node: int, state: Hashable, mover: int,
                   actions: tuple[Hashable, ...]) -> int:
        """The index of the mover's information set at `state` (made when first met), checked:
        one player's, the same actions, the same own sequence (perfect recall)."""
        game = self.game
        key = game.information_state(state, mover)
        try:
            s = self.index.get(key)
        except TypeError:
            raise GameDefinitionError(f"game {game.name}: information states must be hashable, "
                                      f"got {key!r} at {state!r}") from None
        parent = self.own[node][mover]
        if s is None:
            seqs = self.sequences[mover]
            made = () if len(actions) == 1 else tuple(range(len(seqs), len(seqs) + len(actions)))
            s = len(self.sets)
            seqs.extend((s, i) for i in range(len(made)))
            self.sets.append(_Infoset(mover, key, actions, parent, made))
            self.index[key] = s
            return s
        known = self.sets[s]
        if known.player != mover:
            raise GameDefinitionError(
                f"game {game.name}: information state {key!r} is player {known.player}'s and "
                f"player {mover}'s (at {state!r}); give each player its own keys"
            )
        if known.actions != actions:
            raise GameDefinitionError(
                f"game {game.name}: information state {key!r} has actions {list(known.actions)!r}"
                f" and {list(actions)!r} (at {state!r}); a player acts on what it has seen only"
            )
        if known.parent != parent:
            raise GameDefinitionError(
                f"game {game.name}: player {mover} reaches information state {key!r} after "
                f"different moves of its own (at {state!r}); the game must have perfect recall"
            )
        return s

    def tree(self) -> InformationTree:
        """The finished tree."""
        sets = tuple(InformationSet(s.player, s.key, s.actions, tuple(s.nodes), s.parent,
                                    s.sequences) for s in self.sets)
        return InformationTree(
            game=self.game, states=tuple(self.states), player=tuple(self.player),
            infoset=tuple(self.infoset), children=tuple(self.children),
            chance=tuple(self.chance), utility=tuple(self.utility), own=tuple(self.own),
            infosets=sets, index=dict(self.index),
            sequences=tuple(tuple(s) for s in self.sequences[:self.game.num_players]),
        )
