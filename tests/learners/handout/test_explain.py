"""`learn --explain`: the handout's computation, move by move, with the numbers the learner used.

The handout's worked examples are the test material: its action-probability example (NDice 3,
M 4, state <2,3>) reached in a replayed game, and its Game 3 with the counts it updates.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.formats.learner_runs import save_run_npz
from dicejack.games.handout_rules import Game
from dicejack.learners import formulas, handout
from dicejack.learners.handout import explain, trace
from dicejack.learners.handout import reference_loop as handout_reference
from tests.games import HANDOUT
from tests.games import HANDOUT_3_DICE as THREE_DICE


def printed_p(text: str) -> dict[int, float]:
    """{J: p_J} from the 'p_J = ... = value.' lines of one move."""
    return {int(j): float(v) for j, v in re.findall(r"^  p_(\d+) = .* = ([-\d.e]+)\.$", text,
                                                    flags=re.M)}


def moves_of(text: str) -> list[str]:
    """The text of each move ('Move N: ...' up to the next move or the game's end)."""
    return re.split(r"^(?=Move \d+:|After Game)", text, flags=re.M)[1:]


# ------------------------------------------------------------------ the handout's examples
def test_the_handouts_action_probability_example_line_by_line():
    # A at <0,0> rolls 1+1, B at <0,2> rolls 1+2: A is at <2,3>, the handout's state, with its
    # counts WinCount[2,3,1..3] = 0, 3, 1 and LoseCount[2,3,1..3] = 2, 1, 1.
    win = np.zeros(THREE_DICE.table_shape, np.int64)
    lose = np.zeros(THREE_DICE.table_shape, np.int64)
    win[2, 3, 1:], lose[2, 3, 1:] = (0, 3, 1), (2, 1, 1)
    before = (win.copy(), lose.copy())
    tg = trace.replay_trace(THREE_DICE, 4.0, [(1, 1), (1, 2), (6, 6, 3)], win, lose)
    third = moves_of(explain.explain_text(THREE_DICE, 4.0, [tg]))[2]
    for line in [
        "Move 3: Player A at <X,Y> = <2,3>",
        "  WinCount[2,3,1] = 0.  LoseCount[2,3,1] = 2.  f_1 = 0/(0 + 2) = 0.",
        "  WinCount[2,3,2] = 3.  LoseCount[2,3,2] = 1.  f_2 = 3/(3 + 1) = 0.75.",
        "  WinCount[2,3,3] = 1.  LoseCount[2,3,3] = 1.  f_3 = 1/(1 + 1) = 0.5.",
        "  B = 2 (the best move).",
        "  g = 0 + 0.5 = 0.5.",
        "  T = 0 + 2 + 3 + 1 + 1 + 1 = 8.",
        "  p_2 = (8*0.75 + 4)/(8*0.75 + 3*4) = 0.5556.",
        "  p_1 = (1 - 0.5556)*(8*0 + 4)/(8*0.5 + 2*4) = 0.1481.",
        "  p_3 = (1 - 0.5556)*(8*0.5 + 4)/(8*0.5 + 2*4) = 0.2963.",
        "  (replayed game: J = 3 is given, not drawn)",
        "  Player A rolls 3 dice, which come up 6, 6 and 3. A total: 17. A wins.",
    ]:
        assert line in third.splitlines(), line
    expected = formulas.action_probabilities(*before, 2, 3, 4.0)
    assert printed_p(third) == {j: round(float(expected[j]), 4) for j in (1, 2, 3)}
    # with 12 digits, the printed p_J are the formulas' to 12 digits
    precise = moves_of(explain.explain_text(THREE_DICE, 4.0, [tg], digits=12))[2]
    for j, v in printed_p(precise).items():
        assert v == pytest.approx(float(expected[j]), abs=1e-12)
    # the replay updated the tables in place: A won, so its <2,3> roll of 3 dice counts a win
    assert win[2, 3, 3] == 2 and lose[0, 2, 2] == 1 and win[0, 0, 2] == 1


def test_the_handouts_game_3_updates():
    # The handout's 4th line says "A total: 13"; it is B's total (5 + 3 + 5).
    tg = trace.replay_trace(HANDOUT, 100.0, [(3, 4), (1, 4), (2, 5), (3, 5), (1,)], number=3)
    text = explain.explain_text(HANDOUT, 100.0, [tg])
    lines = text.splitlines()
    start = lines.index("After Game 3 (A wins), these counts are incremented by 1:")
    assert lines[start + 1 : start + 6] == [
        "  WinCount[0,0,2] = 1",
        "  LoseCount[0,7,2] = 1",
        "  WinCount[7,5,2] = 1",
        "  LoseCount[5,14,2] = 1",
        "  WinCount[14,13,1] = 1",
    ]
    rolls = [line.strip() for line in lines if line.startswith("  Player ")]
    assert rolls == [
        "Player A rolls 2 dice, which come up 3 and 4. A total: 7.",
        "Player B rolls 2 dice, which come up 1 and 4. B total: 5.",
        "Player A rolls 2 dice, which come up 2 and 5. A total: 14.",
        "Player B rolls 2 dice, which come up 3 and 5. B total: 13.",
        "Player A rolls 1 die, which comes up 1. A total: 15. A wins.",
    ]
    # every state is new: f_J = 0.5 for both J, a tie broken to the lowest J, p = (0.5, 0.5)
    for move in moves_of(text)[:5]:
        assert "  B = 1 (f_1 = f_2 = 0.5: a tie, the lowest J)." in move
        assert printed_p(move) == {1: 0.5, 2: 0.5}


def test_game_1_after_game_3_sees_the_counts_game_3_left():
    win = np.zeros(HANDOUT.table_shape, np.int64)
    lose = np.zeros(HANDOUT.table_shape, np.int64)
    trace.replay_trace(HANDOUT, 100.0, [(3, 4), (1, 4), (2, 5), (3, 5), (1,)], win, lose)
    tg = trace.replay_trace(HANDOUT, 100.0, [(5, 6), (3, 4), (5, 5)], win, lose, number=4)
    first = moves_of(explain.explain_text(HANDOUT, 100.0, [tg]))[0]
    assert "  WinCount[0,0,2] = 1.  LoseCount[0,0,2] = 0.  f_2 = 1/(1 + 0) = 1." in first
    assert "  B = 2 (the best move)." in first and "  T = 0 + 0 + 1 + 0 = 1." in first
    after_game_3 = np.zeros_like(win)
    after_game_3[0, 0, 2] = 1  # <0,0> as Game 3 left it: A won with 2 dice
    expected = formulas.action_probabilities(after_game_3, np.zeros_like(lose), 0, 0, 100.0)
    assert printed_p(first) == {1: round(float(expected[1]), 4), 2: round(float(expected[2]), 4)}
    assert [(u.table, u.x, u.y, u.j, u.count) for u in tg.updates] == [
        ("LoseCount", 0, 0, 2, 1), ("WinCount", 0, 11, 2, 1), ("LoseCount", 11, 7, 2, 1)]


# ------------------------------------------------------------- a real trace, replayed exactly
@pytest.mark.parametrize("game, m, tie_break", [
    (HANDOUT, 100.0, "lowest"), (HANDOUT, 3.0, "random"), (Game(4, 9, 11, 3), 1.0, "random"),
])
def test_the_explained_numbers_are_the_ones_the_learner_used(game, m, tie_break):
    seed, games = 5, 40
    traced = trace.trace(game, m, games, seed, tie_break=tie_break)
    win = np.zeros(game.table_shape, np.int64)
    lose = np.zeros(game.table_shape, np.int64)
    ties = 0
    for tg in traced:
        for mv in tg.moves:
            c = mv.choice
            assert (c.x, c.y, c.dice) == (mv.x, mv.y, mv.dice)
            assert c.win == tuple(win[c.x, c.y]) and c.lose == tuple(lose[c.x, c.y])
            assert c.p == tuple(formulas.action_probabilities(win, lose, c.x, c.y, m,
                                                              best=c.best))
            u = c.cumulative  # the handout's sampler on the recorded draw gives the J rolled
            assert c.dice == next((i for i in range(1, c.k) if c.draw < u[i]), c.k)
            ties += c.tie_draw is not None
        moves = [(mv.x, mv.y, mv.dice) for mv in tg.moves]
        expected = handout_reference.updated_counts(moves, tg.winner)
        handout_reference.record_game(win, lose, moves, tg.winner)
        assert [(u.table == "WinCount", u.x, u.y, u.j) for u in tg.updates] == expected
        assert all(u.count == (win if u.table == "WinCount" else lose)[u.x, u.y, u.j]
                   for u in tg.updates)
    run = handout.learn(game, m, games, seed, tie_break=tie_break)
    assert np.array_equal(win, run.win) and np.array_equal(lose, run.lose)
    if tie_break == "random":
        assert ties > 0  # new states tie at f_J = 0.5: the random tie-break draws
    text = explain.explain_text(game, m, traced, tie_break=tie_break)
    chunks = moves_of(text)
    moves = [mv for tg in traced for mv in tg.moves]
    explained = [chunk for chunk in chunks if chunk.startswith("Move ")]
    assert len(explained) == len(moves)
    for chunk, mv in zip(explained, moves, strict=True):
        assert printed_p(chunk) == {j: float(explain.number_text(mv.choice.p[j]))
                                    for j in range(1, game.n_dice + 1)}
        assert f"so J = {mv.dice}" in chunk or f"J = K = {mv.dice}" in chunk
        assert f"gives {mv.total}," in chunk
        if mv.choice.tie_draw is not None:
            assert "a tie; rand() = " in chunk


def test_corner_cases_are_named():
    # M = 0 and no data: T f_B + K M = 0, no preference; K = 1: the only move
    text = explain.explain_text(HANDOUT, 0.0, trace.trace(HANDOUT, 0.0, 1, 3))
    assert "T*f_B + K*M = 0*0.5 + 2*0 = 0: no preference, every p_J = 1/K = 0.5." in text
    one = Game(6, 10, 12, 1)
    text = explain.explain_text(one, 5.0, trace.trace(one, 5.0, 1, 3))
    assert "  p_1 = 1 (K = 1: the only move)." in text and "  g = 0." in text
    # M = 0 with data for the best J only: g T + (K - 1) M = 0, so p_B = 1
    win = np.zeros(HANDOUT.table_shape, np.int64)
    lose = np.zeros(HANDOUT.table_shape, np.int64)
    win[0, 0, 2], lose[0, 0, 1] = 3, 2
    tg = trace.replay_trace(HANDOUT, 0.0, [(6, 6), (6, 6), (4,)], win, lose)
    first = moves_of(explain.explain_text(HANDOUT, 0.0, [tg]))[0]
    assert "  p_2 = (5*1 + 0)/(5*1 + 2*0) = 1." in first
    assert "  p_1 = 0 (g*T + (K - 1)*M = 0: p_B = 1, nothing left)." in first


def test_number_text_is_the_handouts():
    assert [explain.number_text(v) for v in (0.0, 8, 0.75, 5 / 9, 100.0, 4 / 27, 1e-7)] == [
        "0", "8", "0.75", "0.5556", "100", "0.1481", "1e-07"]


# ----------------------------------------------------------------------------------- CLI
def cli(capsys, *args):
    code = main(["learn", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_explain_replays_the_run_and_leaves_its_tables_alone(capsys):
    _, plain, _ = cli(capsys, "--games", 300, "--seed", 4)
    code, out, err = cli(capsys, "--games", 300, "--seed", 4, "--trace", 2, "--explain")
    assert code == 0 and err == ""
    head, tables_text = out.split("# learned", 1)
    assert "# learned" + tables_text == plain
    traced = trace.trace(HANDOUT, 100.0, 2, 4)
    assert head == explain.explain_text(HANDOUT, 100.0, traced)
    assert "Game 2:" in head and "After Game 2 (" in head
    # --explain alone explains the first game; with --format json it goes to stderr
    code, out, err = cli(capsys, "--games", 300, "--seed", 4, "--explain", "--format", "json")
    assert code == 0 and "Game 1:" in err and "Game 2:" not in err and out.startswith("{")
    assert err == explain.explain_text(HANDOUT, 100.0, traced[:1])


def test_cli_explain_after_resume_starts_at_the_next_game(capsys, tmp_path):
    path = tmp_path / "run.npz"
    save_run_npz(path, handout.learn(HANDOUT, 100.0, 50, 2))
    code, out, _ = cli(capsys, "--resume", path, "--games", 60, "--trace", 1, "--explain")
    assert code == 0 and "Game 51:" in out and "Game 1:" not in out


# ------------------------------------------------------------- learn --replay FILE
#: A student's own replay file: the handout's state <2,3> with its counts, reached by their dice.
STUDENT_REPLAY = """\
# my counts at <2,3> (the handout's example), then a game that reaches it
WinCount[2,3,1] = 0
LoseCount[2,3,1] = 2
WinCount[2,3,2] = 3
LoseCount(2,3,2) = 1
wincount[2,3,3]=1
LoseCount[2,3,3] = 1   # the last one
1 1 | 1 2 | 6 6 3

1,2 | 6 | 5 5 | 6, 4
"""


def test_cli_replay_prints_the_handouts_computation_for_a_students_own_dice(capsys, tmp_path):
    path = tmp_path / "my_games.txt"
    path.write_text(STUDENT_REPLAY, encoding="utf-8")
    code, out, err = cli(capsys, "--replay", path, "--dice", 3, "-m", 4)
    assert code == 0 and err == ""
    win = np.zeros(THREE_DICE.table_shape, np.int64)
    lose = np.zeros(THREE_DICE.table_shape, np.int64)
    win[2, 3, 1:], lose[2, 3, 1:] = (0, 3, 1), (2, 1, 1)
    first = trace.replay_trace(THREE_DICE, 4.0, [(1, 1), (1, 2), (6, 6, 3)], win, lose)
    second = trace.replay_trace(THREE_DICE, 4.0, [(1, 2), (6,), (5, 5), (6, 4)],
                                win, lose, number=2)
    assert out == explain.explain_text(THREE_DICE, 4.0, [first, second])
    third = moves_of(out)[2]
    assert "  p_2 = (8*0.75 + 4)/(8*0.75 + 3*4) = 0.5556." in third.splitlines()
    assert "  p_1 = (1 - 0.5556)*(8*0 + 4)/(8*0.5 + 2*4) = 0.1481." in third.splitlines()
    assert "Game 2:" in out and "After Game 2 (B wins)" in out
    # the handout's Game 3 from empty counts, on the handout's game
    path.write_text("3 4 | 1 4 | 2 5 | 3 5 | 1\n")
    code, out, _ = cli(capsys, "--replay", path)
    assert code == 0 and "  WinCount[14,13,1] = 1" in out.splitlines()


@pytest.mark.parametrize("text, extra, message", [
    ("3 4 | 1 4 | 2 5\n", [], "my.txt line 1: the rolls end before the game does"),
    ("3 4 | 1 4 | 9 5 | 3 5 | 1\n", [], "my.txt line 1: roll 3: faces must be in 1..6, got "
                                        "(9, 5)"),
    ("5 6 | 3 4 | 5 5 | 1\n", [], "my.txt line 1: the game ends at roll 3 of 4"),
    ("\n\n3 4 | | 1\n", [], "my.txt line 3: roll 2 is empty"),
    ("roll 3 4\n", [], "my.txt line 1: 'roll 3 4' is neither a game nor a count"),
    ("WinCount[2,3,3] = 1\n3 4 | 1 4 | 2 5 | 3 5 | 1\n", [],
     "my.txt line 1: WinCount[2,3,3] is outside the tables: X and Y in 0..14, J in 1..2"),
    ("# nothing here\n", [], "no game to replay"),
    ("3 4 | 1 4 | 2 5 | 3 5 | 1\n", ["--out", "x.npz"],
     "--replay prints the handout's computation for the dice in my.txt; --out does not apply"),
    ("3 4 | 1 4 | 2 5 | 3 5 | 1\n", ["--learner", "ucb", "--trace", "1"],
     "--trace, --learner do not apply to it"),
])
def test_cli_replay_errors_are_one_line_exit_2(capsys, tmp_path, monkeypatch, text, extra,
                                               message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my.txt").write_text(text)
    code, out, err = cli(capsys, "--replay", "my.txt", *extra)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err
