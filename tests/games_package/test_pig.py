"""games.pig: Pig, Piglet and PigReset held to value iterations written here from the rules (in
the mover's view, not from the protocol's outcomes), state by state, through the solver; and the
rules' probabilities (each roll's outcomes sum to 1)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicejack.games.pig import Pig, Piglet, PigReset
from dicejack.games.space import enumerate_game
from dicejack.solver.generic import solve_game


def pig_rolls(die: int) -> tuple[float, float, dict[int, float]]:
    """(pig, reset, points -> probability) of one die: a 1 is the pig, 2..die score."""
    return 1 / die, 0.0, {face: 1 / die for face in range(2, die + 1)}


def piglet_rolls() -> tuple[float, float, dict[int, float]]:
    """A coin: tails the pig, heads 1 point."""
    return 0.5, 0.0, {1: 0.5}


def reset_rolls(die: int) -> tuple[float, float, dict[int, float]]:
    """Two dice: one 1 the pig, two 1s the reset (banked score to 0), else their sum."""
    points: dict[int, float] = {}
    for a in range(1, die + 1):
        for b in range(1, die + 1):
            if a > 1 and b > 1:
                points[a + b] = points.get(a + b, 0.0) + 1 / die**2
    return 2 * (die - 1) / die**2, 1 / die**2, points


def plain_value_iteration(goal: int, rolls: tuple[float, float, dict[int, float]]
                          ) -> dict[tuple[int, int, int], float]:
    """P[i, j, k]: the mover's chance to win with i banked, the opponent j, turn total k; in place
    sweeps until no value moves by more than 1e-15."""
    pig, reset, points = rolls
    keys = [(i, j, k) for i in range(goal) for j in range(goal) for k in range(goal - i)]
    p = dict.fromkeys(keys, 0.5)
    for _ in range(20_000):
        change = 0.0
        for i, j, k in keys:
            roll = pig * (1 - p[j, i, 0]) + reset * (1 - p[j, 0, 0])
            for t, q in points.items():
                roll += q * (1.0 if i + k + t >= goal else p[i, j, k + t])
            new = max(roll, 1 - p[j, i + k, 0]) if k > 0 else roll
            change = max(change, abs(new - p[i, j, k]))
            p[i, j, k] = new
        if change <= 1e-15:
            return p
    raise AssertionError("no fixed point")


CASES = [
    (Pig(goal=12), pig_rolls(6)),
    (Pig(goal=10, die=3), pig_rolls(3)),
    (Piglet(goal=7), piglet_rolls()),
    (PigReset(goal=12), reset_rolls(6)),
    (PigReset(goal=9, die=3), reset_rolls(3)),
]


@pytest.mark.parametrize("python", [False, True], ids=["compiled", "python"])
@pytest.mark.parametrize("game,rolls", CASES, ids=lambda c: getattr(c, "name", ""))
def test_every_state_equals_a_value_iteration_written_from_the_rules(game, rolls, python):
    """Both enumerations: the compiled one (games.compiled) and the rules' Python (exact=True
    takes the protocol's outcomes, one call per state and action)."""
    want = plain_value_iteration(game.goal, rolls)
    sol = solve_game(enumerate_game(game, exact=python))
    seen = 0
    for s, state in enumerate(sol.space.states):
        if state[0] == "win":
            continue
        s0, s1, k, mover = state
        mine = want[s0, s1, k] if mover == 0 else 1 - want[s1, s0, k]
        assert abs(sol.values[s] - mine) <= 1e-12, state
        seen += 1
    assert seen >= game.goal**2  # at least every pair of banked scores, each seat


@pytest.mark.parametrize("game", [Pig(goal=20, die=5), Piglet(goal=4), PigReset(goal=20, die=4)])
def test_every_roll_outcomes_sum_to_one(game):
    for state in [(0, 0, 0, 0), (3, 1, 2, 1), (game.goal - 2, 0, 1, 0)]:
        outs = game.outcomes(state, "roll")
        assert sum((p for _, p in outs), Fraction(0)) == 1, state
        assert all(p > 0 for _, p in outs)
