"""Traces of the handout's learner: scripted games from their dice, traced games move by move,
and the count updates they record (the handout's worked examples)."""

from __future__ import annotations

import numpy as np
import pytest

from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.learners.checks import LearnerError
from dicejack.learners.handout import reference_loop as handout_reference
from dicejack.learners.handout import trace
from tests.games import HANDOUT


def tables(game: Game) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(game.table_shape, np.int64), np.zeros(game.table_shape, np.int64)


def changed_cells(win, lose):
    cells = {("Win", *map(int, c)): int(win[tuple(c)]) for c in np.argwhere(win)}
    cells.update({("Lose", *map(int, c)): int(lose[tuple(c)]) for c in np.argwhere(lose)})
    return cells


# ------------------------------------------------------------------ the handout's examples
def test_handout_game_2_and_trace_wording():
    rolls = [(3, 4), (5, 6), (3, 1), (4,)]
    moves, winner = trace.replay_game(HANDOUT, rolls)
    assert winner == "B"
    traced = trace.TracedGame(
        2,
        tuple(
            trace.TracedMove("AB"[i % 2], x, y, j, rolls[i], sum(rolls[i]), x + sum(rolls[i]))
            for i, (x, y, j) in enumerate(moves)
        ),
        winner,
    )
    assert trace.trace_text([traced]).splitlines() == [
        "Game 2:",
        "Player A rolls 2 dice, which come up 3 and 4. A total: 7.",
        "Player B rolls 2 dice, which come up 5 and 6. B total: 11.",
        "Player A rolls 2 dice, which come up 3 and 1. A total: 11.",
        "Player B rolls 1 die, which comes up 4. B total: 15. B wins.",
    ]


def test_updated_counts_and_replay_trace_follow_the_handouts_game_1():
    moves, winner = trace.replay_game(HANDOUT, [(5, 6), (3, 4), (5, 5)])
    assert handout_reference.updated_counts(moves, winner) == [
        (False, 0, 0, 2), (True, 0, 11, 2), (False, 11, 7, 2)]
    win, lose = tables(HANDOUT)
    traced = trace.replay_trace(HANDOUT, 100.0, [(5, 6), (3, 4), (5, 5)], win, lose)
    assert traced.winner == "B" and traced.loser_busted
    assert [(u.table, u.x, u.y, u.j, u.count) for u in traced.updates] == [
        ("LoseCount", 0, 0, 2, 1), ("WinCount", 0, 11, 2, 1), ("LoseCount", 11, 7, 2, 1)]
    assert changed_cells(win, lose) == {
        ("Lose", 0, 0, 2): 1, ("Lose", 11, 7, 2): 1, ("Win", 0, 11, 2): 1}
    first = traced.moves[0].choice
    assert first.draw is None and first.total == 0 and first.p == (0.0, 0.5, 0.5)
    with pytest.raises(LearnerError, match="shape"):
        trace.replay_trace(HANDOUT, 100.0, [(5, 6)], *tables(Game(6, 10, 12, 2)))
    with pytest.raises(LearnerError, match="M must"):
        trace.replay_trace(HANDOUT, -1.0, [(5, 6), (3, 4), (5, 5)])


def test_replay_game_rejects_bad_scripts():
    with pytest.raises(LearnerError, match="must roll 1..2 dice"):
        trace.replay_game(HANDOUT, [(1, 1, 1)])
    with pytest.raises(LearnerError, match="faces"):
        trace.replay_game(HANDOUT, [(7,)])
    with pytest.raises(LearnerError, match="ends at roll 3"):
        trace.replay_game(HANDOUT, [(5, 6), (3, 4), (5, 5), (1,)])
    with pytest.raises(LearnerError, match="before the game"):
        trace.replay_game(HANDOUT, [(5, 6)])
    with pytest.raises(LearnerError, match="winner"):
        handout_reference.record_game(*tables(HANDOUT), [(0, 0, 1)], "C")


# ------------------------------------------------------------------------------ traces
def test_trace_replays_the_first_games_without_touching_learning():
    traced = trace.trace(HANDOUT, 100.0, 5, 9)
    win, lose = tables(HANDOUT)
    for number, tg in enumerate(traced, start=1):
        assert tg.number == number and tg.moves[0].player == "A"
        for i, mv in enumerate(tg.moves):
            assert mv.player == "AB"[i % 2] and len(mv.faces) == mv.dice
            assert all(1 <= v <= 6 for v in mv.faces) and sum(mv.faces) == mv.total
            assert mv.score == mv.x + mv.total
        moves = [(mv.x, mv.y, mv.dice) for mv in tg.moves]
        handout_reference.record_game(win, lose, moves, tg.winner)
    run = handout.learn(HANDOUT, 100.0, 5, 9)
    assert np.array_equal(win, run.win) and np.array_equal(lose, run.lose)
    later = trace.trace(HANDOUT, 100.0, 2, 9, start=run)
    assert [tg.number for tg in later] == [6, 7]
    assert trace.trace(HANDOUT, 100.0, 5, 9) == traced  # faces are reproducible too
