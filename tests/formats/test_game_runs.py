"""Runs of protocol-game learners as .npz: saved, read back checked, resumed to the tables of a
straight run (the CLI's `learn --game --out/--resume` too), and bad files refused in one line."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from dicejack.cli import main
from dicejack.formats import FormatError
from dicejack.formats.game_runs import load_game_run, save_game_run
from dicejack.games import Pig, Piglet
from dicejack.learners import learn_game
from dicejack.learners.game_session import resume_game


@pytest.mark.parametrize("learner", ["q-learning", "mc-exploring-starts", "counting"])
def test_a_saved_run_resumes_to_the_straight_runs_tables(tmp_path, learner):
    game = Piglet(goal=5)
    straight = learn_game(game, learner, 400, seed=3)
    half = learn_game(game, learner, 150, seed=3)
    save_game_run(tmp_path / "half.npz", half)
    back = load_game_run(tmp_path / "half.npz")
    assert (back.name, back.seed, back.games, back.moves) == (learner, 3, 150, half.moves)
    assert back.final.equals(half.final)
    assert resume_game(back, 400).final.equals(straight.final)


def test_the_file_is_read_against_its_own_game(tmp_path):
    save_game_run(tmp_path / "r.npz", learn_game(Pig(goal=6), "q-learning", 10, seed=1))
    with pytest.raises(FormatError, match="a run of pig goal=6 die=6, not of pig goal=7"):
        load_game_run(tmp_path / "r.npz", Pig(goal=7))
    assert load_game_run(tmp_path / "r.npz", Pig(goal=6)).games == 10


def test_a_users_game_is_read_only_with_the_game_given(tmp_path):
    run = learn_game(Piglet(goal=3), "q-learning", 5, seed=1)
    save_game_run(tmp_path / "r.npz", run, game_spec="mine.py:Game", game_params={})
    with pytest.raises(FormatError, match="give --game mine.py:Game"):
        load_game_run(tmp_path / "r.npz")
    assert load_game_run(tmp_path / "r.npz", Piglet(goal=3)).games == 5


def rewrite(path, out, **members):
    """`path` with `members` replaced (name -> array) or removed (None), written to `out`."""
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    for k, v in members.items():
        if v is None:
            arrays.pop(k)
        else:
            arrays[k] = v
    np.savez(out, **arrays)
    return out


@pytest.mark.parametrize("members, message", [
    ({"state__q": np.zeros(3)}, "state__q has shape"),
    ({"extra": np.zeros(2)}, "unknown members 'extra'"),
    ({"state__n": None}, "missing state__n"),
    ({"kind": np.array("other")}, "kind is 'other'"),
    ({"games": np.array(7)}, "records 10 games, not 7"),
    ({"learner": np.array("ucb")}, "unknown learner 'ucb'"),
])
def test_bad_files_are_refused_in_one_line(tmp_path, members, message):
    save_game_run(tmp_path / "r.npz", learn_game(Pig(goal=6), "q-learning", 10, seed=1))
    bad = rewrite(tmp_path / "r.npz", tmp_path / "bad.npz", **members)
    with pytest.raises(FormatError, match=message) as info:
        load_game_run(bad)
    assert "\n" not in str(info.value)


def test_not_a_zip_is_refused(tmp_path):
    (tmp_path / "x.npz").write_bytes(b"no zip")
    with pytest.raises(FormatError):
        load_game_run(tmp_path / "x.npz")
    assert not zipfile.is_zipfile(tmp_path / "x.npz")


def test_cli_learn_out_and_resume_equal_a_straight_run(tmp_path, capsys):
    game = ["--game", "piglet", "--game-param", "goal=5"]
    a, b, c = (str(tmp_path / n) for n in ("a.npz", "b.npz", "c.npz"))
    assert main(["learn", *game, "--games", "300", "--seed", "2", "--out", a]) == 0
    straight = capsys.readouterr().out
    assert main(["learn", *game, "--games", "100", "--seed", "2", "--out", b]) == 0
    capsys.readouterr()
    assert main(["learn", *game, "--games", "300", "--resume", b, "--out", c]) == 0
    assert capsys.readouterr().out == straight
    assert load_game_run(c).final.equals(load_game_run(a).final)
    assert main(["learn", *game, "--games", "50", "--resume", b]) == 2
    assert "already has 100 games" in capsys.readouterr().err
    assert main(["learn", *game, "--games", "300", "--resume", b, "--learner", "counting"]) == 2
    assert "resume it without --learner" in capsys.readouterr().err


def test_cli_ctrl_c_saves_the_partial_run_and_says_how_to_resume(tmp_path, capsys,
                                                                  monkeypatch):
    from dicejack.learners.game_session import GameSession

    played = GameSession.play

    def interrupted(self, games):
        if self.played >= 100:
            raise KeyboardInterrupt
        played(self, min(games, 100 - self.played))

    monkeypatch.setattr(GameSession, "play", interrupted)
    out = tmp_path / "run.npz"
    code = main(["learn", "--game", "piglet", "--game-param", "goal=5", "--games", "1000",
                 "--seed", "2", "--out", str(out)])
    assert code == 130
    err = capsys.readouterr().err
    assert "interrupted after 100 of 1,000 games" in err
    assert (f"Resume with: dicejack learn --game piglet --game-param goal=5 --resume {out} "
            f"--games 1000 --out {out}") in err
    run = load_game_run(out)
    assert run.games == 100
    assert run.final.equals(learn_game(Piglet(goal=5), "q-learning", 100, seed=2).final)
