"""The handout's counting learner: worked examples, corner cases, compiled vs reference loop,
run files (the old layout still read) and `dicejack learn`."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dicejack import formats, learners
from dicejack.cli import app, main
from dicejack.formats import FormatError
from dicejack.formats.learner_runs import (
    LEARNER_RUN_KIND,
    LEGACY_RUN_KIND,
    load_run_npz,
    save_run_npz,
)
from dicejack.formats.tables import learn_text
from dicejack.games.handout_rules import Game, GameError
from dicejack.learners import checks, formulas, handout, playing
from dicejack.learners.checks import LearnerError
from dicejack.learners.handout import reference_loop as handout_reference
from dicejack.learners.handout.trace import replay_game
from tests.games import HANDOUT
from tests.learners.legacy_runs import legacy_run_file, save_legacy_run


def tables(game: Game) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(game.table_shape, np.int64), np.zeros(game.table_shape, np.int64)


def same_run(a: handout.HandoutRun, b: handout.HandoutRun) -> bool:
    return (
        np.array_equal(a.win, b.win)
        and np.array_equal(a.lose, b.lose)
        and a.games == b.games
        and a.moves == b.moves
        and a.rng_state == b.rng_state
    )


# ------------------------------------------------------------------ the handout's examples


def changed_cells(win, lose):
    cells = {("Win", *map(int, c)): int(win[tuple(c)]) for c in np.argwhere(win)}
    cells.update({("Lose", *map(int, c)): int(lose[tuple(c)]) for c in np.argwhere(lose)})
    return cells


def test_handout_game_1_update():
    moves, winner = replay_game(HANDOUT, [(5, 6), (3, 4), (5, 5)])
    assert moves == [(0, 0, 2), (0, 11, 2), (11, 7, 2)] and winner == "B"
    win, lose = tables(HANDOUT)
    handout_reference.record_game(win, lose, moves, winner)
    assert changed_cells(win, lose) == {
        ("Lose", 0, 0, 2): 1,
        ("Lose", 11, 7, 2): 1,
        ("Win", 0, 11, 2): 1,
    }


def test_handout_game_3_update():
    # The handout's 4th line says "A total: 13"; it is B's total (5 + 3 + 5).
    rolls = [(3, 4), (1, 4), (2, 5), (3, 5), (1,)]
    moves, winner = replay_game(HANDOUT, rolls)
    assert winner == "A"
    win, lose = tables(HANDOUT)
    handout_reference.record_game(win, lose, moves, winner)
    assert changed_cells(win, lose) == {
        ("Win", 0, 0, 2): 1,
        ("Lose", 0, 7, 2): 1,
        ("Win", 7, 5, 2): 1,
        ("Lose", 5, 14, 2): 1,
        ("Win", 14, 13, 1): 1,
    }


# --------------------------------------------------------------------------- corner cases


def test_other_bad_inputs():
    win, lose = tables(HANDOUT)
    with pytest.raises(LearnerError, match="x must"):
        formulas.action_probabilities(win, lose, 15, 0, 1.0)
    with pytest.raises(LearnerError, match="shape"):
        formulas.action_probabilities(win[:, :, :2], lose, 0, 0, 1.0)
    for bad in (-1, 1.5, "10"):
        with pytest.raises(LearnerError, match="games"):
            handout.learn(HANDOUT, 1.0, bad, 1)
    with pytest.raises(LearnerError, match="seed"):
        handout.learn(HANDOUT, 1.0, 1, -3)
    with pytest.raises(LearnerError, match="tie_break"):
        handout.learn(HANDOUT, 1.0, 1, 1, tie_break="highest")
    with pytest.raises(LearnerError, match="engine"):
        handout.learn(HANDOUT, 1.0, 1, 1, engine="c")
    with pytest.raises(LearnerError, match="checkpoints"):
        handout.learn(HANDOUT, 1.0, 10, 1, checkpoints=(11,))


def test_games_too_large_for_the_learner():
    with pytest.raises(LearnerError, match="too large for the learner"):
        handout.learn(Game(6, 8000, 8000, 6), 1.0, 1, 1)
    with pytest.raises(LearnerError, match="NDice=3000 is too large"):
        handout.learn(Game(6, 20, 20, 3000), 1.0, 1, 1)


def test_table_size_limits_name_the_learner_and_its_tables():
    big = Game(6, 8000, 8000, 6)  # 8000 * 8000 * 7 int64 cells: 3.3 GiB per table
    checks.check_table_sizes(big, 2 * big.table_bytes, "ucb")  # 6.7 GiB: within 8 GiB
    with pytest.raises(LearnerError, match=r"^game too large for ucb: its tables need 10\.0 GiB, "
                       r"over the 8 GiB limit$"):
        checks.check_table_sizes(big, 3 * big.table_bytes, "ucb")
    with pytest.raises(LearnerError, match=r"^game too large for the learner: its win/lose "
                       r"tables need 10\.0 GiB, over the 8 GiB limit$"):
        handout.learn(Game(6, 8000, 8000, 6), 1.0, 100, 1)
    with pytest.raises(LearnerError, match=r"NDice=3000 is too large for ucb's exact dice-sum "
                       r"tables \(\(NDice\+1\)\*\(NDice\*NSides\+1\) = 54021001 entries"):
        checks.check_table_sizes(Game(6, 20, 20, 3000), 0, "ucb")


def test_run_target_checks_the_total_and_the_checkpoints():
    assert playing.run_target(100, 40, (100, 50, 40, 50)) == (100, [40, 50, 100])
    assert playing.run_target(40, 40) == (40, [])
    with pytest.raises(LearnerError, match="already has 40 games; games must be >= that"):
        playing.run_target(39, 40)
    with pytest.raises(LearnerError, match="checkpoints must lie in 40..100, got 30, 101"):
        playing.run_target(100, 40, (30, 101))
    with pytest.raises(LearnerError, match="more than the limit"):
        playing.run_target(10**13, 0)
    with pytest.raises(LearnerError, match="games must be a whole number"):
        playing.run_target(1.5, 0)


# ----------------------------------------------------------------- learned tables output


# ------------------------------------------------------------- compiled vs reference loop
@pytest.mark.parametrize(
    "game, m, games, tie_break",
    [
        (HANDOUT, 100.0, 2_000, "lowest"),
        (HANDOUT, 0.0, 2_000, "lowest"),
        (HANDOUT, 1e12, 1_000, "lowest"),
        (HANDOUT, 0.5, 2_000, "random"),
        (Game(6, 15, 17, 1), 100.0, 1_000, "lowest"),
        (Game(6, 15, 17, 1), 0.0, 1_000, "random"),
        (Game(3, 10, 20, 3), 0.0, 2_000, "random"),
        (Game(2, 9, 9, 4), 3.0, 2_000, "lowest"),
        (Game(6, 100, 105, 6), 100.0, 150, "lowest"),
        (Game(6, 100, 105, 6), 0.0, 150, "random"),
    ],
    ids=lambda v: v.label() if isinstance(v, Game) else str(v),
)
def test_compiled_equals_reference(game, m, games, tie_break):
    fast = handout.learn(game, m, games, 11, tie_break=tie_break, checkpoints=(games // 3,))
    slow = handout.learn(game, m, games, 11, tie_break=tie_break, checkpoints=(games // 3,),
                         engine="python")
    assert same_run(fast, slow)
    assert fast.moves > games
    assert fast.snapshots[games // 3].equals(slow.snapshots[games // 3])
    # Bookkeeping: every game passes <0,0> once; every move is counted once.
    assert fast.win[0, 0].sum() + fast.lose[0, 0].sum() == games
    assert fast.win.sum() + fast.lose.sum() == fast.moves
    assert not fast.win[..., 0].any() and not fast.lose[..., 0].any()


def test_generator_state_is_shared_with_numba():
    session = handout.Handout(HANDOUT, 5, m=100.0)
    session.play(10)
    reference = handout.Handout(HANDOUT, 5, m=100.0, engine="python")
    reference.play(10)
    assert session.rng.bit_generator.state == reference.rng.bit_generator.state
    assert session.rng.random() == reference.rng.random()


@pytest.mark.parametrize("engine", ["numba", "python"])
def test_chunks_checkpoints_and_resume_do_not_change_results(engine):
    straight = handout.learn(HANDOUT, 10.0, 600, 3, engine=engine)
    session = learners.Session(handout.Handout(HANDOUT, 3, m=10.0, engine=engine))
    for n in (1, 0, 7, 92, 250, 250):
        session.play(n)
    assert same_run(session.result(), straight)
    marked = handout.learn(HANDOUT, 10.0, 600, 3, checkpoints=(600, 50, 0, 50), engine=engine)
    assert same_run(marked, straight) and sorted(marked.snapshots) == [0, 50, 600]
    short = handout.learn(HANDOUT, 10.0, 50, 3, engine=engine)
    assert marked.snapshots[50].equals(short.final)
    assert not marked.snapshots[0].visits.any()
    resumed = handout.resume(short, 600, checkpoints=(100,), engine=engine)
    assert same_run(resumed, straight)
    assert sorted(resumed.snapshots) == [100]


def test_random_tie_break_uses_an_extra_uniform_only_on_ties():
    one = Game(6, 15, 17, 1)  # a single J never ties
    assert same_run(handout.learn(one, 5.0, 200, 2), handout.learn(one, 5.0, 200, 2,
                                                                   tie_break="random"))
    # K = 2 at the fresh <0,0>: f = (0.5, 0.5) tie, so the streams part after the first move.
    a = handout.learn(HANDOUT, 5.0, 1, 2)
    b = handout.learn(HANDOUT, 5.0, 1, 2, tie_break="random")
    assert a.rng_state != b.rng_state


def test_roll_totals_follow_the_exact_distribution():
    game = Game(6, 60, 60, 2)  # the first roll never ends the game
    run = handout.learn(game, 1e9, 12_000, 4)  # M huge: J nearly uniform
    visits = run.win[0, :, 1:].sum(axis=1) + run.lose[0, :, 1:].sum(axis=1)  # B at <0, t>
    probs = 0.5 * game.sum_probability_table[1, :13] + 0.5 * game.sum_probability_table[2, :13]
    expected = 12_000 * probs
    sd = np.sqrt(12_000 * probs * (1 - probs))
    assert np.all(np.abs(visits[1:13] - expected[1:]) <= 5 * sd[1:])
    assert visits[13:].sum() == 0 and visits[0] == 12_000  # A's first move, at <0,0>


def test_learning_improves_play_at_the_start():
    run = handout.learn(HANDOUT, 100.0, 100_000, 1)
    best, prob = run.best_dice(), run.win_probability()
    assert best[0, 0] == 2 and 0.5 < prob[0, 0] < 0.6  # the exact answer is 2 dice, about 0.55
    assert not best.flags.writeable and not run.win.flags.writeable


# ------------------------------------------------------------------------------ run files
def test_run_file_round_trip_and_resume(tmp_path):
    run = handout.learn(HANDOUT, 7.5, 300, 12, checkpoints=(100,), tie_break="random")
    path = tmp_path / "run.npz"
    save_run_npz(path, run)
    back = load_run_npz(path)
    assert same_run(back, run) and back.game == HANDOUT and back.m == 7.5 and back.seed == 12
    assert back.tie_break == "random" and sorted(back.snapshots) == [100]
    assert back.snapshots[100].equals(run.snapshots[100])
    straight = handout.learn(HANDOUT, 7.5, 900, 12, tie_break="random")
    assert same_run(handout.resume(back, 900), straight)


def test_an_old_run_file_loads_converted(tmp_path):
    path = tmp_path / "old.npz"
    run = legacy_run_file(path, HANDOUT, 7.5, 300, 12, checkpoints=(40, 100), tie_break="random")
    assert str(np.load(path)["kind"]) == LEGACY_RUN_KIND
    back = formats.load_learner_run(path)
    assert type(back) is handout.HandoutRun and back.name == "handout"
    assert same_run(back, run) and (back.m, back.seed, back.tie_break) == (7.5, 12, "random")
    assert sorted(back.snapshots) == [40, 100]
    assert all(back.snapshots[g].equals(run.snapshots[g]) for g in (40, 100))
    assert back.label == run.label and back.params == run.params
    # saved again, it is a run file of the one kind, and reads back the same
    formats.save_learner_run(path, back)
    assert str(np.load(path)["kind"]) == LEARNER_RUN_KIND
    again = formats.load_learner_run(path)
    assert same_run(again, run) and again.snapshots[40].equals(run.snapshots[40])
    # an old file without moves (the first layout) counts them from its tables
    first = tmp_path / "first.npz"
    save_legacy_run(first, run)
    data = {k: v for k, v in np.load(first).items() if k != "moves"}
    np.savez(first, **data)
    assert formats.load_learner_run(first).moves == run.moves == int(run.win.sum() + run.lose.sum())


def test_bad_run_files(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        load_run_npz(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file at all")
    with pytest.raises(FormatError, match="not a valid .npz"):
        load_run_npz(junk)
    run = handout.learn(HANDOUT, 1.0, 20, 1)
    good = tmp_path / "good.npz"
    save_run_npz(good, run)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(FormatError):
        load_run_npz(cut)
    data = dict(np.load(good))
    for key, value, why in [
        ("kind", np.array("dicejack-solution"), "kind"),
        ("version", np.array(99), "version 99"),
        ("games", np.array(21), "records 20 games, not 21"),
        ("params", np.array('{"m": -1.0}'), r"m must be in \[0, inf\)"),
        ("state__rng_state", np.array("{}"), "PCG64"),
        ("game", np.array('{"n_sides": 6}'), "corrupt"),
        ("state__win", data["state__win"][:, :, :2], "shape"),
    ]:
        bad = tmp_path / f"bad-{key}.npz"
        np.savez(bad, **{**data, key: value})
        with pytest.raises(FormatError, match=why):
            load_run_npz(bad)
    save_legacy_run(good, run)  # the old layout: the same checks, in its own members
    data = dict(np.load(good))
    for key, value, why in [
        ("kind", np.array("dicejack-solution"), "kind"),
        ("version", np.array(99), "version 99"),
        ("games", np.array(21), "record a number of games other than 21"),
        ("m", np.array(-1.0), r"m must be in \[0, inf\)"),
        ("rng_state", np.array("{}"), "corrupt"),
        ("params", np.array('{"n_sides": 6}'), "corrupt"),
        ("win", data["win"][:, :, :2], "shape"),
    ]:
        bad = tmp_path / f"bad-{key}.npz"
        np.savez(bad, **{**data, key: value})
        with pytest.raises(FormatError, match=why):
            load_run_npz(bad)


# ----------------------------------------------------------------------------------- CLI
def cli(capsys, *args):
    code = main(["learn", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_json_csv(capsys):
    code, out, err = cli(capsys, "--games", 2000, "--seed", 3)
    assert code == 0 and err == ""
    assert "Best number of dice" in out and "Estimated win probability" in out
    run = handout.learn(HANDOUT, 100.0, 2000, 3)
    assert out == learn_text(run)
    code, out, _ = cli(capsys, "--games", 2000, "--seed", 3, "--format", "json", "--dice", 2)
    data = json.loads(out)
    assert list(data) == ["params", "m", "games", "seed", "best_dice", "win_probability",
                          "win_count", "lose_count"]
    assert data["best_dice"] == run.best_dice().tolist()
    assert data["win_count"] == run.win.tolist() and data["games"] == 2000
    code, out, _ = cli(capsys, "--games", 50, "--format", "csv", "--low", 4, "--high", 5)
    lines = out.splitlines()
    assert lines[0] == "x,y,best_dice,win_probability,win1,win2,lose1,lose2"
    assert len(lines) == 1 + 16


def test_cli_out_and_resume(tmp_path, capsys):
    path = tmp_path / "run.npz"
    code, out, err = cli(capsys, "--games", 400, "-m", 2.5, "--out", path)
    assert code == 0 and "wrote" in err and path.exists()
    code, out, err = cli(capsys, "--resume", path, "--games", 1000, "--out", path)
    assert code == 0
    assert same_run(load_run_npz(path), handout.learn(HANDOUT, 2.5, 1000, 1))
    assert out == learn_text(handout.learn(HANDOUT, 2.5, 1000, 1))


def test_cli_trace_does_not_change_tables(capsys):
    _, plain, _ = cli(capsys, "--games", 300)
    code, traced, _ = cli(capsys, "--games", 300, "--trace", 3)
    assert code == 0
    head, tables_text = traced.split("# learned", 1)
    assert "# learned" + tables_text == plain
    assert head.startswith("Game 1:\nPlayer A rolls ")
    assert head.count("Game ") == 3 and "Game 3:" in head
    assert " wins." in head or " loses." in head
    _, out, err = cli(capsys, "--games", 300, "--trace", 2, "--format", "json")
    assert json.loads(out)["games"] == 300 and "Game 2:" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--games", "-5"], "--games must be >= 0"),
        (["--games", "many"], "--games"),
        (["-m", "-1"], "M must be >= 0"),
        (["-m", "lots"], "-m"),
        (["-m", "nan"], "M must be >= 0"),
        (["--dice", "0"], "n_dice"),
        (["--dice", "3000", "--low", "20", "--high", "20"], "too large"),
        (["--trace", "-1"], "--trace"),
        (["--out", "no/such/folder/run.npz"], "does not exist"),
        (["--resume", "missing.npz"], "no such file"),
    ],
)
def test_cli_bad_input(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "--games", 10, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_cli_bad_resume_never_overwrites(tmp_path, capsys):
    path = tmp_path / "run.npz"
    save_legacy_run(path, handout.learn(HANDOUT, 3.0, 100, 1))  # an old file: resumed the same
    before = path.read_bytes()
    for args, message in [
        (["--dice", 3], "different run"),
        (["-m", 4], "different run"),
        (["--games", 50], "already has 100 games"),
    ]:
        code, _, err = cli(capsys, "--resume", path, "--out", path, *args)
        assert code == 2 and message in err and err.count("\n") == 1
        assert path.read_bytes() == before
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"garbage")
    code, _, err = cli(capsys, "--resume", junk, "--out", junk, "--games", 10)
    assert code == 2 and junk.read_bytes() == b"garbage"


def test_cli_ctrl_c_saves_a_resumable_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    real_play = learners.Session.play
    calls = {"n": 0}

    def play_then_interrupt(self, games):
        real_play(self, games)  # the interrupt lands after a chunk, as with the compiled loop
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(learners.Session, "play", play_then_interrupt)
    # The command's own exit code (typer returns it in non-standalone mode).
    code = app(["learn", "--games", "200000", "--seed", "8"], standalone_mode=False,
               prog_name="dicejack")
    out, err = capsys.readouterr()
    assert code == 130 and out == ""
    saved = tmp_path / learner_interrupted_name()
    assert saved.exists() and f"--resume {saved.name} --games 200000" in err
    partial = load_run_npz(saved)
    assert 0 < partial.games < 200_000
    assert same_run(partial, handout.learn(HANDOUT, 100.0, partial.games, 8))
    monkeypatch.setattr(learners.Session, "play", real_play)
    code, _, _ = cli(capsys, "--resume", saved, "--games", 200_000, "--out", saved)
    assert code == 0
    assert same_run(load_run_npz(saved), handout.learn(HANDOUT, 100.0, 200_000, 8))


def learner_interrupted_name() -> str:
    from dicejack.cli import INTERRUPTED_RUN

    return INTERRUPTED_RUN


def test_game_errors_are_dicejack_errors():
    with pytest.raises(GameError):
        handout.learn(Game(6, 15, 17, 2).__class__(6, 15, 14, 2), 1.0, 1, 1)




@pytest.mark.parametrize("game", [HANDOUT, Game(4, 9, 10, 2), Game(6, 40, 45, 2)],
                         ids=lambda g: g.label())
@pytest.mark.parametrize("m", [0.0, 0.5, 3.0, 100.0, 1e9])
def test_the_two_dice_loop_is_the_general_loop_written_out(game, m, monkeypatch):
    # NDice = 2 with lowest ties runs kernel.two_dice_self_play; forced onto the general loop,
    # the same session gives identical tables, counters and generator state.
    from dicejack.learners.handout import kernel

    assert kernel.loop_for(2, False) is kernel.two_dice_self_play
    assert kernel.loop_for(2, True) is kernel.learner_self_play
    written_out = handout.learn(game, m, 1500, 29, checkpoints=(300,))
    monkeypatch.setattr(kernel, "loop_for", lambda n_dice, random_ties: kernel.learner_self_play)
    general = handout.learn(game, m, 1500, 29, checkpoints=(300,))
    assert same_run(written_out, general) and written_out.moves == general.moves
