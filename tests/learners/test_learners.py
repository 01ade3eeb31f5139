"""dicejack.learners: the registry (which learners for which game), parameters from the command
line, learn/resume of any game for bundled learners and for a user's own learner, and that every
bundled learner learns."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack import compare, learners
from dicejack.games import HandoutGame, Pig, Piglet
from dicejack.games.handout_rules import Game
from dicejack.learners import LearnerError, Tables
from dicejack.learners.base import LearnedRun, ResumableLearner, Run
from dicejack.learners.catalogue import (
    GAME_LEARNERS,
    REGISTRY,
    canonical_name,
    game_learner_class,
    is_custom,
    learner_class,
    learners_for,
    parameters,
)
from dicejack.learners.formulas import learned_tables
from dicejack.learners.game_learners import GameMCExploringStarts, GameQLearning, GameRun
from tests.games import HAND_SIZED as TINY
from tests.games import HANDOUT

from .support import same_state


# ------------------------------------------------------------------------------ registry
def test_names_and_classes():
    assert learners.NAMES == ("handout", "q-learning", "mc-epsilon", "ucb", "thompson")
    for name in learners.NAMES:
        cls = learner_class(name)
        assert cls.NAME == name
        obj = learners.make(TINY, name, 1)
        assert isinstance(obj, ResumableLearner) and obj.name == name
    with pytest.raises(LearnerError, match="unknown learner 'sarsa'; choose one of: handout, "
                                           "q-learning, mc-epsilon, ucb, thompson"):
        learner_class("sarsa")


def test_parameters_and_help():
    assert [p.name for p in parameters("q-learning")] == [
        "epsilon", "epsilon_min", "epsilon_decay", "alpha", "q_init"]
    assert parameters("thompson") == ()
    text = learners.help_text()
    for name in learners.NAMES:
        assert f"{name}: " in text
    assert "  alpha: step size; 1/n: 1/N(state, J) ((0, 1] or 1/n; default 1/n)" in text
    assert "  m: M, the handout's explore/exploit constant ([0, inf); default 100)" in text


@pytest.mark.parametrize(
    "name, items, expected",
    [
        ("q-learning", ["alpha=0.1", "epsilon=0.2"], {"alpha": 0.1, "epsilon": 0.2}),
        ("q-learning", ["alpha=1/n"], {"alpha": None}),
        ("q-learning", [" epsilon_decay = inf "], {"epsilon_decay": float("inf")}),
        ("handout", ["m=0", "tie_break=random"], {"m": 0.0, "tie_break": "random"}),
        ("ucb", ["c=2"], {"c": 2.0}),
        ("thompson", [], {}),
    ],
)
def test_parse_params(name, items, expected):
    assert learners.parse_params(name, items) == expected


@pytest.mark.parametrize(
    "name, items, message",
    [
        ("q-learning", ["alpha"], "must be key=value, got 'alpha'"),
        ("q-learning", ["=1"], "must be key=value"),
        ("q-learning", ["beta=1"], "learner q-learning has no parameter 'beta'; its parameters: "
                                   "epsilon, epsilon_min, epsilon_decay, alpha, q_init"),
        ("thompson", ["c=1"], "learner thompson has no parameter 'c'; its parameters: none"),
        ("q-learning", ["alpha=0.1", "alpha=0.2"], "alpha given twice"),
        ("q-learning", ["alpha=0"], r"alpha must be in \(0, 1\] or 1/n, got 0.0"),
        ("q-learning", ["alpha=fast"], "alpha must be a number or 1/n, got 'fast'"),
        ("q-learning", ["epsilon=0.05"], r"epsilon_min \(0.1, its default\) must be <= epsilon"),
        ("ucb", ["c=-1"], r"ucb parameter c must be in \[0, inf\), got -1.0"),
        ("handout", ["tie_break=first"], "must be one of lowest, random; got 'first'"),
        ("handout", ["m=nan"], r"m must be in \[0, inf\)"),
        ("sarsa", [], "unknown learner 'sarsa'"),
    ],
)
def test_parse_params_errors(name, items, message):
    with pytest.raises(LearnerError, match=message) as info:
        learners.parse_params(name, items)
    assert "\n" not in str(info.value)


def test_make_checks_everything():
    with pytest.raises(LearnerError, match="has no parameter 'alpha'"):
        learners.make(HANDOUT, "ucb", 1, alpha=0.1)
    with pytest.raises(LearnerError, match="engine must be one of numba, python"):
        learners.make(HANDOUT, "ucb", 1, engine="c")
    with pytest.raises(LearnerError, match="game must be a Game"):
        learners.make((6, 15, 17, 2), "thompson", 1)
    with pytest.raises(LearnerError, match="M must be finite"):
        learners.make(HANDOUT, "handout", 1, m=1e308)
    obj = learners.make(HANDOUT, "mc-epsilon", 5, epsilon=0.5)
    assert obj.params == {"epsilon": 0.5, "epsilon_min": 0.1, "epsilon_decay": 1000.0}
    assert "mc-epsilon epsilon=0.5" in repr(obj)


def test_which_learners_play_which_game():
    assert learners_for(Game(4, 6, 7, 2)) is REGISTRY
    assert learners_for(HandoutGame(4, 6, 7, 2)) is REGISTRY
    assert list(learners_for(Pig(goal=8))) == ["q-learning", "mc-exploring-starts", "counting"]
    assert learners_for(Piglet(goal=3)) is GAME_LEARNERS
    assert learner_class("q-learning", Pig(goal=8)) is GameQLearning
    assert learner_class("q-learning", HandoutGame()) is learner_class("q-learning")
    assert game_learner_class("MC_Exploring_Starts") is GameMCExploringStarts
    # one name per rule: the counting rule is the handout's learner on the handout's game
    assert learner_class("counting") is learner_class("Handout") is REGISTRY["handout"]
    assert learner_class("handout", Pig(goal=8)) is learner_class("counting", Pig(goal=8))
    assert learner_class("handout", Pig(goal=8)).NAME == "counting"
    with pytest.raises(LearnerError, match="no learner 'sarsa' for protocol games"):
        game_learner_class("sarsa")
    with pytest.raises(LearnerError, match="no learner 'ucb' for protocol games"):
        learner_class("ucb", Pig(goal=8))


# ------------------------------------------------------------------------- learn / resume
def test_the_handout_game_given_either_way_runs_its_own_learners():
    """learn(HandoutGame) and learn(None) are learn(Game): the handout's learners, a Run, the
    same tables as always."""
    game = Game(4, 6, 7, 2)
    plain = learners.learn(game, "handout", 300, seed=2, checkpoints=(100,))
    viewed = learners.learn(HandoutGame(4, 6, 7, 2), "handout", 300, seed=2, checkpoints=(100,))
    assert type(viewed) is type(plain) and isinstance(viewed, Run) and viewed.game == game
    assert viewed.final.equals(plain.final) and viewed.snapshots[100].equals(plain.snapshots[100])
    default = learners.learn(None, games=50, seed=1)
    assert default.name == "handout" and default.game == Game(6, 15, 17, 2)


def test_any_other_game_runs_the_learners_of_protocol_games():
    game = Pig(goal=8)
    run = learners.learn(game, games=200, seed=3)
    assert isinstance(run, GameRun) and isinstance(run, LearnedRun) and not isinstance(run, Run)
    assert run.name == "q-learning" and run.game is game and run.games == run.played == 200
    direct = GameQLearning(game, 3)
    direct.play(200)
    assert run.final.equals(direct.tables())
    with pytest.raises(LearnerError, match="no learner 'ucb' for protocol games"):
        learners.learn(game, "ucb", 10)


@pytest.mark.parametrize("name", ["q-learning", "mc-exploring-starts", "counting"])
def test_resume_of_a_protocol_game_equals_a_straight_run(name):
    game = Pig(goal=8)
    straight = learners.learn(game, name, 400, seed=3, checkpoints=(100,))
    half = learners.learn(game, name, 150, seed=3, checkpoints=(100,))
    resumed = learners.resume(half, 400)
    assert resumed.final.equals(straight.final)
    assert sorted(resumed.snapshots) == [100] and resumed.snapshots[100].equals(
        straight.snapshots[100])
    if name == "mc-exploring-starts":
        assert resumed.label == "mc-exploring-starts q_init=0.5 max_moves=100000 seed=3 games=400"
    python = learners.resume(half, 400, engine="python")
    assert python.final.equals(straight.final)


@pytest.mark.parametrize("name", learners.NAMES)
def test_learn_checkpoints_and_resume_equal_a_straight_run(name):
    straight = learners.learn(HANDOUT, name, 900, 3)
    marked = learners.learn(HANDOUT, name, 900, 3, checkpoints=(900, 50, 0, 50))
    assert same_state(marked.state, straight.state) and sorted(marked.snapshots) == [0, 50, 900]
    assert marked.snapshots[0].equals(Tables.empty(HANDOUT))
    short = learners.learn(HANDOUT, name, 50, 3)
    assert marked.snapshots[50].equals(short.final)
    resumed = learners.resume(short, 900, checkpoints=(400,))
    assert same_state(resumed.state, straight.state) and resumed.final.equals(straight.final)
    assert resumed.label == straight.label and resumed.moves == straight.moves
    assert sorted(resumed.snapshots) == [400]
    again = learners.resume(marked, 1000)
    assert sorted(again.snapshots) == [0, 50, 900] and again.games == 1000


def test_runs_are_frozen_copies():
    obj = learners.make(HANDOUT, "q-learning", 2)
    run = learners.learn(HANDOUT, obj, 100)
    obj.play(10)
    assert run.games == 100 and run.state["games"] == 100
    assert not run.state["q"].flags.writeable and not run.final.best.flags.writeable
    with pytest.raises(AttributeError):
        run.games = 5


def test_learn_plays_on_with_a_built_learner():
    obj = learners.make(HANDOUT, "ucb", 8, c=1.0)
    first = learners.learn(HANDOUT, obj, 100, 8)
    second = learners.learn(HANDOUT, obj, 300, checkpoints=(200,))
    assert second.games == 300 and sorted(second.snapshots) == [200]
    assert same_state(second.state, learners.learn(HANDOUT, "ucb", 300, 8, c=1.0).state)
    assert first.games == 100
    for kwargs, message in (
        ({"c": 2.0}, "pass its parameters and engine to its constructor"),
        ({"engine": "python"}, "pass its parameters and engine"),
        ({"seed": 9}, "has seed 8, not 9"),
    ):
        with pytest.raises(LearnerError, match=message):
            learners.learn(HANDOUT, obj, 400, **kwargs)
    with pytest.raises(LearnerError, match="plays another game"):
        learners.learn(TINY, obj, 400)
    with pytest.raises(LearnerError, match="already has 300 games"):
        learners.learn(HANDOUT, obj, 100)


@pytest.mark.parametrize(
    "games, checkpoints, message",
    [
        (-1, (), "games must be >= 0"),
        (10, (11,), r"checkpoints must lie in 0..10, got 11"),
        (10, (-1,), "checkpoint must be >= 0"),
        (10**13, (), "more than the limit"),
        (1.5, (), "whole number"),
    ],
)
def test_bad_learn_arguments(games, checkpoints, message):
    with pytest.raises(LearnerError, match=message):
        learners.learn(TINY, "thompson", games, 1, checkpoints=checkpoints)


def test_compare_accepts_a_run():
    run = learners.learn(HANDOUT, "q-learning", 2000, 1)
    result = compare.compare(HANDOUT, None, run)
    assert result.source == run.label
    direct = compare.compare(HANDOUT, None, run.tables)
    assert result.metrics == direct.metrics
    with pytest.raises(compare.CompareError, match="another game"):
        compare.compare(TINY, None, run)


# ------------------------------------------------------------------- a user's own learner
class RandomCounts:
    """A user's learner: uniformly random J for both players, the handout's counts."""

    name = "random-counts"

    def __init__(self, game: Game, seed: int, **params: Any) -> None:
        self.game, self.seed, self.params = game, seed, dict(params)
        self.rng = np.random.default_rng(seed)
        self.win = np.zeros(game.table_shape, np.int64)
        self.lose = np.zeros(game.table_shape, np.int64)
        self.played = 0

    def play(self, games: int) -> None:
        g = self.game
        for _ in range(games):
            score, moves, mover = [0, 0], [], 0
            while True:
                j = int(self.rng.integers(1, g.n_dice + 1))
                moves.append((score[mover], score[1 - mover], j))
                score[mover] += int(self.rng.integers(1, g.n_sides + 1, size=j).sum())
                if score[mover] >= g.low:
                    won = score[mover] <= g.high
                    for i, (x, y, jj) in enumerate(reversed(moves)):
                        (self.win if (i % 2 == 0) == won else self.lose)[x, y, jj] += 1
                    break
                mover = 1 - mover
        self.played += games

    def tables(self) -> Tables:
        best, prob = learned_tables(self.win, self.lose)
        return Tables(best, prob, (self.win + self.lose).sum(axis=-1))

    def state(self) -> dict[str, Any]:
        return {"win": self.win.copy(), "lose": self.lose.copy(), "played": self.played,
                "rng": copy.deepcopy(self.rng.bit_generator.state)}

    @classmethod
    def restore(cls, game, seed, params, state):
        obj = cls(game, seed, **params)
        obj.win, obj.lose, obj.played = state["win"], state["lose"], state["played"]
        obj.rng.bit_generator.state = state["rng"]
        return obj


def test_a_users_learner_runs_compares_and_resumes():
    assert isinstance(RandomCounts(TINY, 1), ResumableLearner)
    run = learners.learn(TINY, RandomCounts, 300, 4, checkpoints=(100,))
    assert run.name == "random-counts" and run.label == "random-counts seed=4 games=300"
    assert run.final.visits[0, 0] == 300 and sorted(run.snapshots) == [100]
    assert compare.compare(TINY, None, run).source == run.label
    straight = learners.learn(TINY, RandomCounts(TINY, 4), 700)
    resumed = learners.resume(run, 700)
    assert resumed.final.equals(straight.final) and sorted(resumed.snapshots) == [100]
    assert not run.state["win"].flags.writeable  # the run's copy stays as it was
    assert run.final.visits.sum() < resumed.final.visits.sum()


def test_a_users_class_by_module_name_has_parameters_from_its_signature(tmp_path, monkeypatch):
    # `MODULE:Class` names a user's class wherever a learner name goes (report --learner).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(
        "from tests.learners.test_learners import RandomCounts\n"
        "class Tuned(RandomCounts):\n"
        "    def __init__(self, game, seed, rate=0.5, rounds=3, tag='x', flag=False):\n"
        "        super().__init__(game, seed, rate=rate, rounds=rounds)\n")
    name = "mine.py:Tuned"
    assert is_custom(name) and not is_custom("ucb")
    assert canonical_name(f" {name} ") == name
    assert [(p.name, p.kind, p.default) for p in parameters(name)] == [
        ("rate", "float", 0.5), ("rounds", "int", 3)]  # a str or bool default: not settable
    assert learners.parse_params(name, ["rounds=4", "rate=0.25"]) == {"rounds": 4, "rate": 0.25}
    with pytest.raises(LearnerError, match="parameter rounds must be a whole number, got 2.5"):
        learners.parse_params(name, ["rounds=2.5"])
    with pytest.raises(LearnerError, match="has no parameter 'tag'; its parameters: rate, "
                                           "rounds"):
        learners.parse_params(name, ["tag=y"])
    learner = learners.make(TINY, name, 3, rounds=4)
    assert type(learner).__name__ == "Tuned" and learner.params == {"rate": 0.5, "rounds": 4}
    run = learners.learn(TINY, name, 200, 3, rounds=4)
    assert run.final.equals(learners.learn(TINY, RandomCounts, 200, 3).final)
    with pytest.raises(LearnerError, match="engine='python' is for the bundled learners"):
        learners.make(TINY, name, 3, engine="python")
    (tmp_path / "bad.py").write_text("def f(game, seed):\n    return 1\n")
    with pytest.raises(LearnerError, match="function is not a class"):
        learners.make(TINY, "bad.py:f", 3)


def test_a_broken_learner_is_a_one_line_error():
    class Lazy(RandomCounts):
        def play(self, games):  # plays nothing
            pass

    with pytest.raises(LearnerError, match="asked for 10 games and played 0"):
        learners.learn(TINY, Lazy(TINY, 1), 10)

    class Wrong(RandomCounts):
        def tables(self):
            return Tables(np.full(TINY.shape, 7), np.zeros(TINY.shape), np.zeros(TINY.shape, int))

    with pytest.raises(LearnerError, match="outside 0..2"):
        learners.learn(TINY, Wrong, 10, 1)
    with pytest.raises(LearnerError, match="object is not a learner: it has no name, game, seed"):
        learners.learn(TINY, object(), 10)

    class Forgetful(RandomCounts):
        state = None

    run = learners.learn(TINY, Forgetful, 10, 1)
    assert run.state is None
    with pytest.raises(LearnerError, match="cannot be resumed"):
        learners.resume(run, 20)


# ----------------------------------------------------------------------------- properties
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(learners.NAMES),
    seed=st.integers(0, 2**63 - 1),
    chunks=st.lists(st.integers(0, 60), min_size=1, max_size=6),
)
def test_any_chunking_gives_the_straight_run(name, seed, chunks):
    total = sum(chunks)
    straight = learners.learn(TINY, name, total, seed)
    obj = learners.make(TINY, name, seed)
    for n in chunks:
        obj.play(n)
    assert same_state(obj.state(), straight.state)


# ------------------------------------------------------------------- every learner learns
@pytest.mark.parametrize("name", learners.NAMES)
def test_every_learner_learns(name):
    """On the handout's game, decisive agreement with the exact solution rises from a few
    hundred games to twenty thousand (3 seeds), and so does the score against optimal play."""
    truth = compare.truth(HANDOUT)
    marks = (300, 3000, 20000)
    agree, score = [], []
    for seed in (1, 2, 3):
        run = learners.learn(HANDOUT, name, marks[-1], seed, checkpoints=marks)
        snaps = [run.snapshots[m] for m in marks]
        metrics = [compare.compare(HANDOUT, truth, (t.best, t.probability)).metrics for t in snaps]
        agree.append([m["agreement_decisive"] for m in metrics])
        score.append([m["score_vs_optimal"] for m in metrics])
    agree, score = np.array(agree), np.array(score)
    assert np.all(agree[:, 2] > agree[:, 0] + 0.1), agree
    assert agree[:, 2].mean() > agree[:, 1].mean() > agree[:, 0].mean(), agree
    assert agree[:, 2].mean() - agree[:, 0].mean() > 0.2, agree
    assert score[:, 2].mean() > score[:, 0].mean() + 0.03, score
