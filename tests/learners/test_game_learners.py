"""Learners of protocol games (dicejack.learners.game_learners): a first game by hand, learning
that lowers the exact exploitability (dicejack.solver.generic), the compiled loops equal to the
plain ones, the counting rule. (Their contract: test_contract.py; learn/resume of any game:
test_learners.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games import HandoutGame, Pig, Piglet
from dicejack.learners import check_learner, learn
from dicejack.learners.checks import LearnerError
from dicejack.learners.game_learners import (
    GAME_LEARNERS,
    GameCounting,
    GameQLearning,
    game_space,
)
from dicejack.solver.generic import game_exploitability, solve_game, uniform_policy
from tests.games import Climb


def test_first_q_learning_games_by_hand():
    # Piglet to 1, epsilon 0: each mover rolls (the only action at turn total 0); the outcomes
    # are listed pig first, so u < 1/2 is the pig (the turn passes: target = the other seat's
    # Q), else the mover wins (target = player 0's payoff). alpha = 1/n.
    game = Piglet(goal=1)
    learner = GameQLearning(game, 11, epsilon=0.0, epsilon_min=0.0)
    rng = np.random.default_rng(11)
    q, n = [0.5, 0.5], [0, 0]  # Q(roll) of player 0's and player 1's start
    for _ in range(3):
        mover = 0
        while True:
            rng.random()  # the epsilon draw
            pig = rng.random() < 0.5
            target = q[1 - mover] if pig else (1.0 if mover == 0 else 0.0)
            n[mover] += 1
            q[mover] += (target - q[mover]) / n[mover]
            if not pig:
                break
            mover = 1 - mover
    learner.play(3)
    space = game_space(game)
    got = learner.state()["q"]
    assert got[space.row_of((0, 0, 0, 0), "roll")] == q[0]
    assert got[space.row_of((0, 0, 0, 1), "roll")] == q[1]
    assert learner.played == 3 and learner.moves == sum(n)


@pytest.mark.parametrize("name", list(GAME_LEARNERS))
def test_learning_lowers_the_exact_exploitability(name):
    game = Pig(goal=10)
    sol = solve_game(game)
    uniform = game_exploitability(sol.space, uniform_policy(sol.space))
    run = learn(game, name, 3000, seed=2)
    learned = game_exploitability(sol.space, run.final.policy(sol.space))
    assert learned < 0.5 * uniform
    visited = run.final.best >= 0
    assert sol.optimal[run.final.best[visited]].mean() > 0.8


def test_one_player_climb_learns_to_go():
    sol = solve_game(Climb())
    # stop at 0: 0; going on to the top: V0 = 2/3 V1 + 1/3 V0, ... -> always go, value 1
    assert abs(sol.value - 1.0) <= 1e-9 and sol.best_action(0) == "go"
    run = learn(Climb(), "q-learning", 500, seed=1)
    assert sol.space.actions[run.final.best[0]] == "go"


def test_bad_params():
    with pytest.raises(LearnerError, match="no parameter 'm'"):
        GameQLearning(Piglet(goal=2), 1, m=3)
    with pytest.raises(LearnerError, match="alpha"):
        GameQLearning(Piglet(goal=2), 1, alpha=2.0)


@pytest.mark.parametrize("name", ["q-learning", "mc-exploring-starts"])
@pytest.mark.parametrize("game", [Pig(goal=10), Climb(), HandoutGame(4, 8, 9, 2)],
                         ids=lambda g: g.name)
def test_the_compiled_loop_equals_the_plain_one(name, game):
    cls = GAME_LEARNERS[name]
    compiled = cls(game, 5, engine="numba")
    plain = cls(game, 5, engine="python")
    for chunk in (1, 37, 400):
        compiled.play(chunk)
        plain.play(chunk)
        assert compiled.tables().equals(plain.tables())
        a, b = compiled.state(), plain.state()
        np.testing.assert_array_equal(a["q"], b["q"])
        np.testing.assert_array_equal(a["n"], b["n"])
        assert a["rng_state"] == b["rng_state"] and a["moves"] == b["moves"]


@pytest.mark.parametrize("game", [Pig(goal=10), HandoutGame(4, 8, 9, 2), HandoutGame(5, 9, 11, 3),
                                  Piglet(goal=5)], ids=lambda g: g.name)
def test_the_compiled_counting_loop_equals_the_plain_one(game):
    compiled = GameCounting(game, 5, m=3.0)
    plain = GameCounting(game, 5, m=3.0, engine="python")
    assert compiled.engine == "numba"  # the default
    for chunk in (1, 37, 400):
        compiled.play(chunk)
        plain.play(chunk)
        assert compiled.tables().equals(plain.tables())
        a, b = compiled.state(), plain.state()
        for key in ("n", "lose", "visits"):
            np.testing.assert_array_equal(a[key], b[key])
        assert a["rng_state"] == b["rng_state"] and a["moves"] == b["moves"]


@pytest.mark.parametrize("params", [{"m": 0.0}, {"m": 3.0, "max_moves": 80}],
                         ids=["m0", "cut-at-80"])
def test_the_compiled_counting_loop_equals_the_plain_one_over_long_games(params):
    # Piglet to 10: most games outlast the compiled loop's first 64-move buffers (they grow
    # outside the move loop); M = 0 draws uniformly while a state has no count (den_b = 0);
    # max_moves 80 cuts the longest games (nothing counted), after one growth
    game = Piglet(goal=10)
    compiled = GameCounting(game, 3, **params)
    plain = GameCounting(game, 3, engine="python", **params)
    lengths = []
    for _ in range(60):
        before = compiled.moves
        compiled.play(1)
        lengths.append(compiled.moves - before)
    plain.play(60)
    cut = lengths.count(80) if "max_moves" in params else 0
    assert sum(n > 64 for n in lengths) >= 10 and max(lengths) <= compiled.params["max_moves"]
    assert cut >= 3 or "max_moves" not in params
    a, b = compiled.state(), plain.state()
    for key in ("n", "lose", "visits"):
        np.testing.assert_array_equal(a[key], b[key])
    assert a["rng_state"] == b["rng_state"] and a["moves"] == b["moves"]
    assert a["n"].sum() + a["lose"].sum() == a["moves"] - 80 * cut


def _counted_start(lose: tuple[int, int], engine: str, seed: int) -> tuple[GameCounting, list]:
    """A counting learner on the handout's game (2 dice, M = 0) whose start state has
    `lose` losses after J = 1, 2 and no win; and the start state's two rows."""
    game = HandoutGame(6, 10, 12, 2)
    space = game_space(game)
    rows = [space.row_of((0, 0, 0), j) for j in (1, 2)]
    fresh = GameCounting(game, seed, m=0.0, engine=engine)
    state = fresh.state()
    state["lose"][rows] = lose
    state["visits"][space.index[(0, 0, 0)]] = sum(lose)
    return GameCounting.restore(game, seed, fresh.params, state, engine=engine), rows


@pytest.mark.parametrize("engine", ["numba", "python"])
def test_an_untried_j_counts_as_one_half_when_choosing(engine):
    # the handout: f_J = 0.5 when J has no data. J = 1 lost once (f_1 = 0), J = 2 untried
    # (f_2 = 0.5): B = 2 and, with M = 0, p_2 = 1: every learner takes J = 2 from the start
    # (with f_2 = 0 the two would tie and be drawn half and half)
    for seed in range(8):
        learner, (one, two) = _counted_start((1, 0), engine, seed)
        learner.play(1)
        state = learner.state()
        assert (state["n"][one], state["lose"][one]) == (0, 1)
        assert state["n"][two] + state["lose"][two] == 1


def test_the_counting_table_shows_the_best_j_with_data():
    # J = 1 untried, J = 2 lost once: the table shows J = 2 (f 0), as the handout prints,
    # never the untried J (its 0.5 guides learning only)
    learner, (_, two) = _counted_start((0, 1), "python", 1)
    tables = learner.tables()
    start = learner.space.index[(0, 0, 0)]
    assert tables.best[start] == two and tables.value[start] == 0.0


@pytest.mark.parametrize("game", [Piglet(goal=3), HandoutGame(3, 6, 7, 2), Pig(goal=8)],
                         ids=lambda g: g.name)
def test_the_counting_rule_keeps_the_contract(game):
    check_learner(GameCounting(game, 4, m=10.0), games=120)


def test_the_counting_rule_counts_wins_and_losses_by_hand():
    # Piglet to 1: one action (roll), p = 1; the mover of each pig loses the turn; the game's
    # winner's moves count as wins, the loser's as losses (the handout's update).
    game = Piglet(goal=1)
    learner = GameCounting(game, 21)
    rng = np.random.default_rng(21)
    wins, losses = [0, 0], [0, 0]
    for _ in range(4):
        mover, made = 0, []
        while True:
            rng.random()  # the action draw (one action: p = 1)
            pig = rng.random() < 0.5
            made.append(mover)
            if not pig:
                break
            mover = 1 - mover
        for who in made:
            (wins if who == mover else losses)[who] += 1
    learner.play(4)
    space = game_space(game)
    rows = [space.row_of((0, 0, 0, 0), "roll"), space.row_of((0, 0, 0, 1), "roll")]
    state = learner.state()
    assert [int(state["n"][r]) for r in rows] == wins
    assert [int(state["lose"][r]) for r in rows] == losses
    tables = learner.tables()
    start = space.index[(0, 0, 0, 0)]
    assert tables.value[start] == wins[0] / (wins[0] + losses[0])


def test_the_counting_rule_needs_win_lose_payoffs():
    with pytest.raises(LearnerError, match="win/lose payoffs"):
        GameCounting(Climb(), 1)
