"""solver.best_response / exploitability: held to brute force over every deterministic
response on tiny games, to exact evaluation, and to 0 for optimal play. (OpenSpiel's own
exploitability is the third check: tests/envs/test_openspiel.py.)"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dicejack import solver
from dicejack.games.handout_rules import Game
from dicejack.solver import SolverError
from tests.games import HAND_SIZED, SMALL, SMALLEST


@pytest.mark.parametrize("game", [SMALLEST, HAND_SIZED], ids=Game.label)
def test_the_best_response_beats_every_deterministic_response(game):
    rng = np.random.default_rng(0)
    policy = rng.integers(1, game.n_dice + 1, size=game.shape)
    br = solver.best_response(game, policy)
    tables = [np.array(bits).reshape(game.shape)
              for bits in itertools.product(range(1, game.n_dice + 1), repeat=game.states)]
    first = max(solver.evaluate(game, t, policy) for t in tables)
    second = max(1 - solver.evaluate(game, policy, t) for t in tables)
    assert br.first == pytest.approx(first, abs=1e-12)
    assert br.second == pytest.approx(second, abs=1e-12)
    assert br.exploitability == pytest.approx(first + second - 1, abs=1e-12)


@pytest.mark.parametrize("game", [SMALL, Game(6, 15, 17, 2), Game(4, 12, 14, 3)], ids=Game.label)
def test_its_table_achieves_its_values_and_optimal_play_is_unexploitable(game):
    sol = solver.solve(game)
    assert solver.exploitability(game, sol) == pytest.approx(0.0, abs=1e-12)
    assert solver.exploitability(game, sol.best) == pytest.approx(0.0, abs=1e-12)
    uniform = np.zeros(game.table_shape)
    uniform[:, :, 1:] = 1 / game.n_dice
    for policy in (uniform, lambda x, y: 1, np.full(game.shape, game.n_dice)):
        br = solver.best_response(game, policy)
        assert solver.evaluate(game, br.best, policy) == pytest.approx(br.first, abs=1e-12)
        assert 1 - solver.evaluate(game, policy, br.best) == pytest.approx(br.second, abs=1e-12)
        assert 0 < br.exploitability <= 1
        assert br.first >= sol.p00 - 1e-12 and br.second >= 1 - sol.p00 - 1e-12


def test_no_data_cells_play_uniformly_unless_refused():
    game = SMALL
    table = np.ones(game.shape, dtype=int)
    table[2, 3] = -1
    dist = np.zeros(game.table_shape)
    dist[:, :, 1] = 1.0
    dist[2, 3, 1:] = 1 / game.n_dice
    assert solver.exploitability(game, table) == pytest.approx(
        solver.exploitability(game, dist), abs=1e-15)
    with pytest.raises(SolverError, match="fill='error'"):
        solver.best_response(game, table, fill="error")
    with pytest.raises(SolverError, match="needs a Game"):
        solver.best_response((4, 8, 9, 2), table)


@pytest.mark.parametrize("game", [SMALLEST, HAND_SIZED], ids=Game.label)
def test_a_seat_pair_is_held_to_brute_force_and_its_seats_are_not_interchangeable(game):
    """exploitability(first=pi0, second=pi1) = P(BR first beats pi1) + P(BR second beats pi0)
    - 1, each term the best over every deterministic response (no OpenSpiel needed); swapping
    the seats gives another number on these pairs."""
    k = game.n_dice
    tables = [np.array(bits).reshape(game.shape)
              for bits in itertools.product(range(1, k + 1), repeat=game.states)]
    always_one, always_k = np.ones(game.shape, dtype=int), np.full(game.shape, k)
    rng = np.random.default_rng(3)
    pairs = [(always_one, always_k), (rng.integers(1, k + 1, game.shape), always_one)]
    differ = 0
    for pi0, pi1 in pairs:
        vs_second = max(solver.evaluate(game, t, pi1) for t in tables)
        vs_first = max(1 - solver.evaluate(game, pi0, t) for t in tables)
        seats = solver.seat_values(game, pi0, pi1)
        assert seats.first == pytest.approx(vs_second, abs=1e-12)
        assert seats.second == pytest.approx(vs_first, abs=1e-12)
        pair = solver.exploitability(game, first=pi0, second=pi1)
        assert pair == pytest.approx(vs_second + vs_first - 1, abs=1e-12)
        swapped = (max(solver.evaluate(game, t, pi0) for t in tables)
                   + max(1 - solver.evaluate(game, pi1, t) for t in tables) - 1)
        differ += abs(swapped - pair) > 1e-6
    assert differ >= 1  # the pairs tell the seats apart
