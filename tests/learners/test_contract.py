"""learners.check_learner: every bundled learner of any game keeps the contract, and each broken
promise of a user's learner is named in one line."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack import learners
from dicejack.games import HandoutGame, Pig, Piglet
from dicejack.learners import LearnerError, check_learner
from dicejack.learners.game_learners import GAME_LEARNERS, GameQLearning
from tests.games import HAND_SIZED, TINY, Climb


@pytest.mark.parametrize("name", learners.NAMES)
def test_every_bundled_learner_keeps_the_contract(name):
    check_learner(learners.make(TINY, name, seed=5), games=120)


@pytest.mark.parametrize("name", ["q-learning", "mc-exploring-starts"])
@pytest.mark.parametrize("game", [Piglet(goal=3), HandoutGame(3, 6, 7, 2), Pig(goal=8), Climb()],
                         ids=lambda g: g.name)
def test_every_learner_of_protocol_games_keeps_the_contract(name, game):
    check_learner(GAME_LEARNERS[name](game, 7), games=120)


def test_a_protocol_game_learner_with_hidden_randomness_fails_the_contract():
    class Leaky(GameQLearning):
        def play(self, games):
            super().play(games)
            self.q[0] += np.random.default_rng().random()  # not from the learner's generator

    with pytest.raises(LearnerError, match="same seed gives other tables"):
        check_learner(Leaky(Piglet(goal=2), 1), games=10)


class Average:
    """A small learner of the protocol: the mean outcome of each (state, J), J drawn at random."""

    name = "average"

    def __init__(self, game, seed, **params):
        self.game, self.seed, self.params, self.played = game, seed, dict(params), 0
        self.rng = np.random.default_rng(seed)
        self.wins = np.zeros(game.table_shape)
        self.tries = np.zeros(game.table_shape, dtype=np.int64)

    def one_game(self):
        g, score, mover, moves = self.game, [0, 0], 0, []
        while True:
            x, y = score[mover], score[1 - mover]
            j = int(self.rng.integers(1, g.n_dice + 1))
            moves.append((mover, x, y, j))
            score[mover] += int(self.rng.integers(1, g.n_sides + 1, size=j).sum())
            if score[mover] >= g.low:
                winner = mover if score[mover] <= g.high else 1 - mover
                break
            mover = 1 - mover
        for player, x, y, j in moves:
            self.wins[x, y, j] += player == winner
            self.tries[x, y, j] += 1

    def play(self, games):
        for _ in range(games):
            self.one_game()
        self.played += games

    def tables(self):
        tried = self.tries[..., 1:] > 0
        mean = np.where(tried, self.wins[..., 1:] / np.maximum(self.tries[..., 1:], 1), -1.0)
        seen = tried.any(axis=-1)
        best = np.where(seen, mean.argmax(axis=-1) + 1, 0)
        return learners.Tables(best, np.where(seen, mean.max(axis=-1), -1.0),
                               self.tries[..., 1:].sum(axis=-1))


class Unseeded(Average):
    """Ignores its seed: two learners built alike differ."""

    def __init__(self, game, seed, **params):
        super().__init__(game, seed, **params)
        self.rng = np.random.default_rng()


class ChunkSensitive(Average):
    """Reseeds at every call of play(): chunks change what is learnt."""

    def play(self, games):
        self.rng = np.random.default_rng([self.seed, self.played])
        super().play(games)


class BadResume(Average):
    """Resumable on paper, but restore forgets the counts."""

    def state(self):
        return {"played": self.played}

    @classmethod
    def restore(cls, game, seed, params, state):
        obj = cls(game, seed, **params)
        obj.played = state["played"]
        return obj


def test_a_plain_learner_of_the_protocol_passes():
    check_learner(Average(HAND_SIZED, 1), games=60)


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (Unseeded, "a second learner with the same seed gives other tables"),
        (ChunkSensitive, "playing in chunks gives other tables"),
        (BadResume, "saving, restoring and playing on gives other tables"),
    ],
)
def test_each_broken_promise_is_named(cls, message):
    with pytest.raises(LearnerError, match=message):
        check_learner(cls(HAND_SIZED, 1), games=60)


def test_an_object_that_is_not_a_learner_is_refused():
    with pytest.raises(LearnerError, match="is not a learner: it has no name, game"):
        check_learner(object())
    with pytest.raises(LearnerError, match="at least 2 games"):
        check_learner(Average(HAND_SIZED, 1), games=1)


def test_the_checked_learner_is_left_as_it_was():
    obj = learners.make(TINY, "ucb", seed=2)
    obj.play(30)
    before = obj.tables()
    check_learner(obj, games=40)
    assert obj.played == 30 and obj.tables().equals(before)
