"""Behaviour policies of games with hidden information (:mod:`dicejack.games.information`):
checked, evaluated, best-responded to, and their exploitability, all exact over the tree of
plays.

A behaviour policy is a mapping from information-state keys to the action probabilities there:
either a mapping action -> probability (actions left out: 0) or a sequence aligned with the
infoset's actions. Forced moves (one action) need no entry. Keys the game never reaches are
ignored (a policy of a bigger game may be given). Arithmetic follows the numbers given: with
Fractions (and a game whose payoffs are exact) every result here is an exact Fraction; with
floats, one rounding per operation.

``exploitability`` is OpenSpiel's (``open_spiel.python.algorithms.exploitability``): NashConv
over the number of players, i.e. for two-player zero-sum games the mean of what a best response
gains against each of the policy's two halves, ``(BR_0(pi_1) + BR_1(pi_0)) / 2``, each in its
responder's own payoff.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dicejack.games.information import InformationTree, enumerate_information
from dicejack.solver.solution import SolverError

__all__ = [
    "BestResponse",
    "information_tree",
    "uniform_policy",
    "behaviour",
    "expected_payoff",
    "best_response",
    "nash_conv",
    "exploitability",
    "PROBABILITY_TOLERANCE",
]

#: How far a policy's float probabilities at one key may sum from 1 (Fractions: exactly 1).
PROBABILITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class BestResponse:
    """A best response of `player` to the other's policy: `value`, its expected utility in its
    own payoff (player 1's is minus player 0's); `policy`, key -> its action (deterministic),
    at each decision key of the player."""

    player: int
    value: Any
    policy: dict[Hashable, Hashable]


def information_tree(game: Any) -> InformationTree:
    """`game`'s tree of plays (:func:`enumerate_information`), or `game` when it is a tree."""
    return game if isinstance(game, InformationTree) else enumerate_information(game)


def uniform_policy(game: Any) -> dict[Hashable, dict[Hashable, Fraction]]:
    """Every decision key's actions equally likely, as exact Fractions."""
    tree = information_tree(game)
    return {s.key: {a: Fraction(1, len(s.actions)) for a in s.actions} for s in tree.decisions()}


def _row(tree: InformationTree, s: int, given: Any) -> tuple[Any, ...]:
    """One key's entry as probabilities aligned with its actions, checked."""
    infoset = tree.infosets[s]
    key, actions = infoset.key, infoset.actions
    if isinstance(given, Mapping):
        unknown = [a for a in given if a not in actions]
        if unknown:
            raise SolverError(f"policy at {key!r}: {unknown[0]!r} is not an action there "
                              f"({', '.join(map(repr, actions))})")
        row = tuple(given.get(a, 0) for a in actions)
    else:
        try:
            row = tuple(given)
        except TypeError:
            raise SolverError(f"policy at {key!r}: give a mapping action -> probability or a "
                              f"list of {len(actions)} probabilities, got {given!r}") from None
        if len(row) != len(actions):
            raise SolverError(f"policy at {key!r}: {len(row)} probabilities for "
                              f"{len(actions)} actions ({', '.join(map(repr, actions))})")
    for p in row:
        ok = isinstance(p, numbers.Real) and not isinstance(p, bool)
        if not ok or not math.isfinite(p) or p < 0:
            raise SolverError(f"policy at {key!r}: probability {p!r} is not a number >= 0")
    total = sum(row)
    exact = all(isinstance(p, (int, Fraction)) for p in row)
    if (total != 1) if exact else abs(total - 1) > PROBABILITY_TOLERANCE:
        shown = total if exact else f"{total:.12g}"
        raise SolverError(f"policy at {key!r}: the probabilities sum to {shown}, not 1")
    return row


def behaviour(game: Any, policy: Mapping[Hashable, Any],
              players: tuple[int, ...] | None = None) -> list[tuple[Any, ...] | None]:
    """The policy per infoset index of the tree (its actions' probabilities; forced moves (1,)),
    checked at every decision key of `players` (default: all); None at the others' keys.
    SolverError, one line, at a key the policy misses or gets wrong."""
    tree = information_tree(game)
    wanted = range(tree.num_players) if players is None else players
    out: list[tuple[Any, ...] | None] = []
    for s, infoset in enumerate(tree.infosets):
        if infoset.forced:
            out.append((1,))
        elif infoset.player not in wanted:
            out.append(None)
        elif infoset.key not in policy:
            raise SolverError(f"the policy gives nothing at information state {infoset.key!r} "
                              f"(player {infoset.player})")
        else:
            out.append(_row(tree, s, policy[infoset.key]))
    return out


def _reach(tree: InformationTree, rows: list[tuple[Any, ...] | None],
           skip: int | None) -> list[Any]:
    """Each node's probability of being reached: chance times the policies of every player
    but `skip` (None: all players), top-down (a child's index is above its parent's)."""
    reach: list[Any] = [0] * tree.n_nodes
    reach[0] = 1
    for n, kids in enumerate(tree.children):
        if not kids or reach[n] == 0:
            continue
        s = tree.infoset[n]
        mine = tree.player[n] == skip
        probs = rows[s]
        for i, outcomes in enumerate(kids):
            weight = reach[n] if mine else reach[n] * probs[i]  # type: ignore[index]
            for child, p in outcomes:
                reach[child] = weight * p
    return reach


def expected_payoff(game: Any, policy: Mapping[Hashable, Any]) -> Any:
    """Player 0's expected utility when every player follows `policy`."""
    tree = information_tree(game)
    reach = _reach(tree, behaviour(tree, policy), None)
    return sum(reach[n] * tree.utility[n] for n in tree.terminals())


def best_response(game: Any, policy: Mapping[Hashable, Any], player: int) -> BestResponse:
    """A best response of `player` to the other player's part of `policy` (only that part is
    read), over the whole tree, by dynamic programming over the player's sequences: each play's
    end weighs its utility by the others' and chance's reach onto the player's own sequence
    there; a decision key's value is its best action's weight plus the values of the keys that
    follow that action (perfect recall: they follow it alone), computed deepest key first (a
    key's followers are met after it). Ties go to the first action."""
    tree = information_tree(game)
    if player not in range(tree.num_players):
        raise SolverError(f"player {player!r}: the game's players are "
                          f"{', '.join(map(str, range(tree.num_players)))}")
    rows = behaviour(tree, policy, tuple(p for p in range(tree.num_players) if p != player))
    reach = _reach(tree, rows, player)
    sign = 1 if player == 0 else -1
    weight: list[Any] = [0] * len(tree.sequences[player])  # by own sequence
    for n in tree.terminals():
        if reach[n]:
            weight[tree.own[n][player]] += reach[n] * sign * tree.utility[n]
    picked: dict[Hashable, Hashable] = {}
    decisions = [s for s, infoset in enumerate(tree.infosets)
                 if infoset.player == player and not infoset.forced]
    for s in reversed(decisions):  # a key's followers have higher indices: done first
        infoset = tree.infosets[s]
        totals = [weight[q] for q in infoset.sequences]
        best = max(range(len(totals)), key=totals.__getitem__)
        picked[infoset.key] = infoset.actions[best]
        weight[infoset.parent] += totals[best]
    return BestResponse(player, weight[0], {tree.infosets[s].key: picked[tree.infosets[s].key]
                                            for s in decisions})


def nash_conv(game: Any, policy: Mapping[Hashable, Any]) -> Any:
    """What best responses gain over `policy`, summed over the players (0 exactly at an
    equilibrium): sum_i BR_i(policy) - (player i's utility under policy)."""
    tree = information_tree(game)
    on_policy = expected_payoff(tree, policy)
    gains = [best_response(tree, policy, p).value for p in range(tree.num_players)]
    if tree.num_players == 1:
        return gains[0] - on_policy
    return gains[0] + gains[1]  # zero-sum: the on-policy utilities cancel


def exploitability(game: Any, policy: Mapping[Hashable, Any]) -> Any:
    """OpenSpiel's exploitability: NashConv / number of players (module docstring)."""
    tree = information_tree(game)
    total = nash_conv(tree, policy)
    if isinstance(total, int):  # exact 0 (or whole): stays exact
        return Fraction(total, tree.num_players)
    return total / tree.num_players
