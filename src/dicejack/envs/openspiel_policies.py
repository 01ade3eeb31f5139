"""The bridges between OpenSpiel policies of the handout's game and dicejack's conventions, all
keyed by information state (:mod:`dicejack.envs.openspiel_game`'s decision states, never a walk
of every history): :func:`tabular_policy`, :func:`policy_table`, :func:`openspiel_policy`,
:func:`seat_values`, :func:`exploitability`; and any OpenSpiel policy of a game with hidden
information read as dicejack's behaviour policy (:func:`information_policy`). On import this
module teaches ``compare.learned_from_policy`` to read OpenSpiel policies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicejack import compare, solver
from dicejack.compare.learned import register_policy_reader
from dicejack.envs.openspiel_game import decision_state, decision_states, game_of, state_at
from dicejack.games.handout_rules import Game
from dicejack.runtime.messages import DicejackError
from dicejack.solver.best_response import SeatValues
from dicejack.solver.solution import policy_distribution

__all__ = ["SeatsDifferError", "tabular_policy", "policy_table", "openspiel_policy",
           "seat_values", "exploitability", "information_policy"]


def tabular_policy(os_game: Any) -> Any:
    """OpenSpiel's ``TabularPolicy`` (uniformly random) over :func:`decision_states`, keyed by
    information state: what ``TabularPolicy(os_game)`` gives on a tiny game, on any game
    dicejack solves (``TabularPolicy(os_game)`` walks every history and does not return on
    the handout's game)."""
    from open_spiel.python import policy as policy_lib

    return policy_lib.TabularPolicy(os_game, states=decision_states(os_game))


class SeatsDifferError(DicejackError):
    """An OpenSpiel policy plays differently as player 0 and as player 1 at <x, y>; read one
    seat (``policy_table(..., seat=)``) or measure the pair (:func:`seat_values`)."""

    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y
        super().__init__(
            f"the policy plays differently as player 0 and player 1 (first at <{x},{y}>): read "
            "one seat with policy_table(os_game, policy, seat=0) or seat=1, and measure the pair "
            "with dicejack.envs.openspiel.seat_values(os_game, policy)"
        )


def policy_table(os_game: Any, policy: Any, seat: int | None = None) -> np.ndarray:
    """An OpenSpiel policy (anything with ``action_probabilities(state)``) as the handout's
    (L, L, K+1) action distribution per <X, Y> from the mover's view (column 0 zero).

    seat: read the policy as player 0 or player 1 plays it; None (default) reads both and refuses
    a policy that plays differently in the two seats (:class:`SeatsDifferError`), rather than
    picking one. A state the policy cannot answer in the seats read (a ``TabularPolicy(os_game)``
    knows only the states reachable from the start: player 0 never moves at <0, Y> with Y > 0)
    is a row of NaN, which compare and the solver read as "no data" (a uniformly random J, or
    an error with fill='error'). Asks the policy 2 L^2 times (L^2 with `seat`).
    """
    game = game_of(os_game)
    if seat not in (None, 0, 1):
        raise DicejackError(f"seat must be 0, 1 or None (both), got {seat!r}")
    seats = (0, 1) if seat is None else (seat,)
    tables = [_seat_table(os_game, game, policy, player) for player in seats]
    dist = tables[0]
    if len(tables) == 2:
        a, b = tables
        known_a, known_b = ~np.isnan(a).all(axis=2), ~np.isnan(b).all(axis=2)
        differ = known_a & known_b & ~np.isclose(a, b, atol=1e-12).all(axis=2)
        if differ.any():
            x, y = np.argwhere(differ)[0]
            raise SeatsDifferError(int(x), int(y))
        dist = np.where(known_a[:, :, None], a, b)
    return dist


def _seat_table(os_game: Any, game: Game, policy: Any, player: int) -> np.ndarray:
    """One seat's (L, L, K+1) distribution; rows of NaN where the policy has no answer."""
    k = game.n_dice
    dist = np.full(game.table_shape, np.nan)
    for x in range(game.low):
        for y in range(game.low):
            try:
                probs = policy.action_probabilities(state_at(os_game, x, y, player))
            except (KeyError, IndexError):  # a tabular policy without this state
                continue
            row = np.zeros(k + 1)
            for action, p in probs.items():
                if not 0 <= int(action) < k:
                    raise DicejackError(f"the policy plays action {action} at <{x},{y}>; "
                                        f"legal actions are 0..{k - 1}")
                row[int(action) + 1] += float(p)
            dist[x, y] = row
    return dist


def openspiel_policy(
    os_game: Any, policy: Any, second: Any = None, *, zero_based: bool = False
) -> Any:
    """A dicejack policy (an (L, L) table of J, an (L, L, K+1) distribution, a callable
    (x, y) -> J or a Solution; `zero_based`: a table or callable of actions 0..K-1) as an
    OpenSpiel ``TabularPolicy`` over :func:`decision_states` (keyed by information state, every
    <X, Y> in both seats): `policy` in both seats, or in player 0's seat with `second` (any such
    form) in player 1's -- a seat pair, as two learners trained apart. No-data states (-1, NaN)
    play a uniformly random J."""
    game = game_of(os_game)
    dists = [policy_distribution(game, policy, zero_based=zero_based)]
    dists.append(dists[0] if second is None
                 else policy_distribution(game, second, zero_based=zero_based))
    table = tabular_policy(os_game)
    for key, index in table.state_lookup.items():
        state = decision_state(key)
        if state is None:
            continue
        s0, s1, player = state
        x, y = (s0, s1) if player == 0 else (s1, s0)
        table.action_probability_array[index] = dists[player][x, y, 1:]
    return table


def seat_values(os_game: Any, policy: Any) -> SeatValues:
    """What a best response wins against any OpenSpiel policy, each seat read as it plays
    (:func:`policy_table` with seat=0 and seat=1): a
    :class:`dicejack.solver.best_response.SeatValues`, whose
    ``exploitability`` is OpenSpiel's ``exploitability(os_game, policy)`` and ``nash_conv`` its
    ``nash_conv``, exactly and in milliseconds where OpenSpiel walks every history."""
    game = game_of(os_game)
    first, second = (policy_table(os_game, policy, seat=s) for s in (0, 1))
    return solver.seat_values(game, first, second)


def exploitability(os_game: Any, policy: Any) -> float:
    """OpenSpiel's ``exploitability(os_game, policy)`` (NashConv / 2), exactly, by
    :func:`seat_values`."""
    return seat_values(os_game, policy).exploitability



def _is_openspiel_policy(obj: Any) -> bool:
    return hasattr(obj, "action_probabilities") and hasattr(obj, "game")


def _read_openspiel_policy(game: Game, policy: Any) -> np.ndarray:
    os_game = policy.game
    if game_of(os_game) != game:
        raise compare.CompareError(f"the OpenSpiel policy is for {game_of(os_game)}, not {game}")
    try:
        return policy_table(os_game, policy)
    except SeatsDifferError as exc:
        raise compare.CompareError(
            f"the OpenSpiel policy plays differently as player 0 and player 1 (first at "
            f"<{exc.x},{exc.y}>), so compare will not pick one: compare each seat's table, "
            "dicejack.envs.openspiel.policy_table(os_game, policy, seat=0) (and seat=1), and "
            "measure the pair with dicejack.envs.openspiel.seat_values(os_game, policy)"
        ) from None
    except DicejackError as exc:
        raise compare.CompareError(str(exc)) from None


register_policy_reader(_is_openspiel_policy, _read_openspiel_policy)


def information_policy(os_game: Any, os_policy: Any) -> dict[Any, dict[Any, float]]:
    """Any OpenSpiel policy of a loaded game with hidden information (``load(Kuhn())``; a CFR
    solver's ``average_policy()``...) as dicejack's behaviour policy: the game's information
    state key -> {action label: probability} at every decision key, what
    :mod:`dicejack.solver.information_policies` measures. The policy is asked at one node of
    each key (OpenSpiel's policies answer by information state)."""
    bridge = getattr(os_game, "bridge", None)
    if not getattr(bridge, "hidden", False):
        raise DicejackError(f"information_policy needs a dicejack game with hidden information "
                            f"loaded by dicejack.envs.openspiel.load, got {os_game}")
    tree, out = bridge.tree, {}
    for infoset in tree.decisions():
        state = os_game.new_initial_state()
        state.s, state.pending = infoset.nodes[0], None
        probs = os_policy.action_probabilities(state, infoset.player)
        legal = bridge.legal(infoset.nodes[0])
        out[infoset.key] = {infoset.actions[i]: float(probs.get(a, 0.0))
                            for a, i in legal.items()}
    return out
