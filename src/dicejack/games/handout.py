"""The handout's dice game (:class:`dicejack.games.handout_rules.Game`) as a protocol game:
:class:`HandoutGame`.

A state is ``(score of player 0, score of player 1, player to move)``; a terminal state is
``("win", winner)``. The payoff is player 0's win probability (1 or 0). The handout's own tables
are the mover's view <x, y>: the value of ``(x, y, 0)`` is the specialised solver's P[x, y].
The specialised solver (:func:`dicejack.solver.solve`) stays the fast path for this game; this
adapter lets every generic tool (solver, learners) run on it, and tests hold the two to 1e-12.
It describes itself as arrays (:meth:`HandoutGame.compiled_space`,
:func:`dicejack.games.compiled.handout_space`): no Python call per state when enumerated.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from dicejack.games.handout_rules import CONTINUES, MOVER_WINS, Game, GameError
from dicejack.games.protocol import GameDefinitionError

__all__ = ["HandoutGame"]


@dataclass(frozen=True)
class HandoutGame:
    """The handout's game with NSides `sides`, LTarget `low`, UTarget `high`, NDice `dice`."""

    sides: int = 6
    low: int = 15
    high: int = 17
    dice: int = 2

    name = "handout"
    num_players = 2

    def __post_init__(self) -> None:
        try:
            self.rules  # noqa: B018 - validates the parameters now
        except GameError as exc:
            raise GameDefinitionError(str(exc)) from None

    @classmethod
    def from_game(cls, game: Game) -> HandoutGame:
        """The protocol view of a :class:`~dicejack.games.handout_rules.Game`."""
        return cls(game.n_sides, game.low, game.high, game.n_dice)

    @cached_property
    def rules(self) -> Game:
        """The :class:`~dicejack.games.handout_rules.Game` these parameters make."""
        return Game(n_sides=self.sides, low=self.low, high=self.high, n_dice=self.dice)

    @cached_property
    def _chances(self) -> tuple[tuple[tuple[int, Fraction], ...], ...]:
        """(total, exact probability) of every total j dice can show, for j = 0..NDice."""
        rules = self.rules
        rows = [()]
        for j in range(1, rules.n_dice + 1):
            fractions = rules.sum_fractions(j)
            rows.append(tuple((t, fractions[t]) for t in range(j, len(fractions)) if fractions[t]))
        return tuple(rows)

    def compiled_space(self, limit: int) -> Any:
        """The enumerated game as arrays from the exact J-dice sums, no Python call per state
        (:func:`dicejack.games.compiled.handout_space`); None (the protocol's enumeration) for
        a subclass, which may change the rules, or a game past the compiled grid."""
        from dicejack.games.compiled import handout_space

        if type(self) is not HandoutGame:
            return None
        return handout_space(self, limit)

    def initial_state(self) -> tuple[int, int, int]:
        return (0, 0, 0)

    def is_terminal(self, state: Any) -> bool:
        return state[0] == "win"

    def payoff(self, state: Any) -> int:
        return 1 if state[1] == 0 else 0

    def player(self, state: Any) -> int:
        return state[2]

    def actions(self, state: Any) -> tuple[int, ...]:
        return tuple(range(1, self.dice + 1))

    def outcomes(self, state: Any, action: Any) -> list[tuple[Any, Fraction]]:
        me = state[2]
        x = state[me]
        rules = self.rules
        out: dict[Any, Fraction] = {}
        for total, probability in self._chances[action]:
            result = rules.outcome(x + total)
            if result == CONTINUES:
                scores = [state[0], state[1]]
                scores[me] = x + total
                nxt: Any = (scores[0], scores[1], 1 - me)
            else:
                nxt = ("win", me if result == MOVER_WINS else 1 - me)
            out[nxt] = out.get(nxt, Fraction(0)) + probability
        return list(out.items())
