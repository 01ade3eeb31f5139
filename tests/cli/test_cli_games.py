"""`dicejack solve --game`: protocol games on the command line; the handout's commands unchanged
without it; every command's --game help (learn --game: test_cli_learners.py)."""

from __future__ import annotations

import json

import pytest

from dicejack.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_solve_pig_text_and_json(capsys):
    code, out, err = run(capsys, "solve", "--game", "pig", "--game-param", "goal=2")
    assert code == 0
    assert out.splitlines()[0].startswith("# pig goal=2 die=6 (two players, zero-sum)")
    assert "0.857142857143" in out  # 6/7 by hand: roll; 5/6 win, 1/6 the opponent starts
    assert "note: enumerated" in err
    code, out, _ = run(capsys, "solve", "--game", "pig", "--game-param", "goal=2",
                       "--format", "json")
    doc = json.loads(out)
    assert doc["game"] == "pig" and doc["params"] == {"goal": 2, "die": 6}
    assert abs(doc["value"] - 6 / 7) <= 1e-12 and doc["residual"] <= 1e-12
    assert doc["method"] == "value-iteration" and doc["optimal_start"] == ["roll"]


def test_solve_game_handout_is_the_handouts_solve_byte_for_byte(capsys):
    """--game handout is the default game: its parameters by --game-param or by the handout's
    options, the same engines and the same output as `dicejack solve`."""
    plain = run(capsys, "solve", "--sides", "4", "--low", "6", "--high", "7", "--exact")
    named = run(capsys, "solve", "--game", "handout", "--game-param", "sides=4",
                "--game-param", "low=6", "--game-param", "high=7", "--exact")
    options = run(capsys, "solve", "--game", "handout", "--sides", "4", "--low", "6",
                  "--high", "7", "--exact")
    assert plain[0] == 0 and "1211265/2097152" in plain[1]  # solver.solve(Game(4, 6, 7, 2))
    assert named == plain and options == plain
    for fmt in ("json", "csv"):
        assert run(capsys, "solve", "--game", "handout", "--format", fmt) == \
            run(capsys, "solve", "--format", fmt)
    code, _, err = run(capsys, "solve", "--game", "handout", "--low", "6", "--game-param",
                       "low=6")
    assert code == 2 and "give one of them" in err
    code, _, err = run(capsys, "solve", "--game", "handout", "--tolerance", "1e-9")
    assert code == 2 and "games with cycles" in err


def test_solve_csv_has_every_state(capsys, tmp_path):
    path = tmp_path / "piglet.csv"
    code, _, err = run(capsys, "solve", "--game", "piglet", "--game-param", "goal=2",
                       "--method", "policy-iteration", "--format", "csv", "--out", str(path))
    assert code == 0 and f"wrote {path}" in err
    lines = path.read_text().splitlines()
    assert lines[0] == "state,player,value,optimal"
    assert len(lines) == 1 + 14  # Piglet to 2: 14 reachable states
    assert lines[1].startswith('"(0, 0, 0, 0)",0,')


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--game", "chess"], "no game 'chess'"),
        (["--game", "pig", "--sides", "3"], "--sides set the handout's game"),
        (["--game-param", "goal=3"], "need --game NAME"),
        (["--game", "pig", "--format", "npz", "--out", "x.npz"], "--format npz"),
        (["--game", "pig", "--game-param", "goal=0"], "goal must be a whole number"),
        (["--game", "piglet", "--exact"], "has cycles"),
        (["--method", "policy-iteration"], "is for games with cycles"),
        (["--game", "nothere.py:Game"], "no file nothere.py"),
    ],
)
def test_solve_game_errors_are_one_line(capsys, args, words):
    code, out, err = run(capsys, "solve", *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and words in err and err.count("\n") == 1


def test_a_broken_game_file_is_one_line(capsys, tmp_path, monkeypatch):
    (tmp_path / "broken.py").write_text(
        "from dicejack.games import Piglet\n"
        "class Floats(Piglet):\n"
        "    def outcomes(self, state, action):\n"
        "        return [(s, float(p)) for s, p in super().outcomes(state, action)]\n"
        "syntax = 1\n"
    )
    (tmp_path / "bad_syntax.py").write_text("class Game(:\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "solve", "--game", "broken.py:Floats")
    assert code == 2 and out == ""
    assert err.startswith("error: game piglet: outcome probability 0.5 at (0, 0, 0, 0), "
                          "action 'roll' is not exact")
    code, out, err = run(capsys, "solve", "--game", "bad_syntax.py:Game")
    assert code == 2 and "importing bad_syntax.py failed: SyntaxError" in err
    assert err.count("\n") == 1
    code, _, err = run(capsys, "solve", "--game", "pig", "--game-param", "goal=500")
    assert code == 2 and "goal must be a whole number in 1..120" in err


@pytest.mark.parametrize("command", ["solve", "learn", "compare", "report"])
def test_game_help_lists_every_bundled_game_with_its_parameters(capsys, command):
    """Every command with --game names every game of dicejack.games.registry (GAMES, then the
    games with hidden information) in its help, and (where it has --game-param) each game's
    parameters, as the game's constructor has them."""
    import inspect
    import re

    from dicejack.games.registry import GAMES as PERFECT
    from dicejack.games.registry import INFORMATION_GAMES

    GAMES = {**PERFECT, **INFORMATION_GAMES}

    assert main([command, "--help"]) == 0
    # click wraps lines after a hyphen too ("peeking-" at a line's end): joined back
    text = " ".join(re.sub(r"-\n\s*", "-", capsys.readouterr().out).split())
    start = text.index("--game NAME|FILE.py:Class")
    game_help = text[start:text.index("FILE.py:Class", start + 30)]
    assert ", ".join(GAMES) in game_help, game_help
    if "--game-param" in text:
        params = text[text.index("--game-param KEY=VALUE"):]
        for name, cls in GAMES.items():
            keys = ", ".join(inspect.signature(cls).parameters)
            assert f"{name}: {keys}" in params, (name, keys)


def test_learn_a_game_with_hidden_information_by_cfr(capsys, tmp_path):
    """learn --game kuhn: CFR+ (the default for hidden information), its average policy's exact
    exploitability beside the sequence form's value."""
    code, out, _ = run(capsys, "learn", "--game", "kuhn", "--games", "1000", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["learner"] == "cfr" and doc["learner_params"]["variant"] == "cfr+"
    assert abs(doc["game_value"] + 1 / 18) <= 1e-12
    assert 0 < doc["exploitability"] < 1e-4  # 8.7e-5 at 1,000 iterations (tests/learners)
    assert set(doc["policy"]) == {"J", "Q", "K", "Jpb", "Qpb", "Kpb", "Jb", "Qb", "Kb",
                                  "Jp", "Qp", "Kp"}
    code, _, err = run(capsys, "learn", "--game", "kuhn", "--learner", "q-learning")
    assert code == 2 and "no learner 'q-learning' for games with hidden information" in err


def test_learn_kuhn_out_and_resume_equal_a_straight_run(capsys, tmp_path):
    """learn --game kuhn --out saves the run (the one run file); --resume, with or without
    --game, plays it on to what a straight run prints, and saves that run too."""
    half, whole, again = (tmp_path / f"{n}.npz" for n in ("half", "whole", "again"))
    args = ("--param", "variant=outcome-sampling", "--seed", "3")
    straight = run(capsys, "learn", "--game", "kuhn", *args, "--games", "900", "--format",
                   "json")
    assert straight[0] == 0
    assert run(capsys, "learn", "--game", "kuhn", *args, "--games", "400", "--out",
               str(half))[0] == 0
    code, out, err = run(capsys, "learn", "--resume", str(half), "--games", "900", "--out",
                         str(whole), "--format", "json")
    assert code == 0 and out == straight[1] and f"wrote {whole}" in err
    code, out, _ = run(capsys, "learn", "--game", "kuhn", "--resume", str(half), "--games",
                       "900", "--out", str(again), "--format", "json")
    assert code == 0 and out == straight[1]
    from dicejack.formats import load_learner_run

    one, two = load_learner_run(whole), load_learner_run(again)
    assert one.games == two.games == 900 and one.final.equals(two.final)
    code, _, err = run(capsys, "learn", "--game", "pig", "--resume", str(half), "--games", "990")
    assert code == 2 and err.count("\n") == 1
    assert "is a run of kuhn ante=1 bet=1, not of pig goal=100 die=6" in err
    code, _, err = run(capsys, "learn", "--resume", str(half), "--games", "10")
    assert code == 2 and "already has 400 games" in err


def test_learn_kuhn_ctrl_c_saves_the_partial_run(capsys, tmp_path, monkeypatch):
    from dicejack import learners
    from dicejack.formats import load_learner_run
    from dicejack.games.kuhn import Kuhn

    played = learners.Session.play

    def interrupted(self, games):
        if self.played >= 100:
            raise KeyboardInterrupt
        played(self, min(games, 100 - self.played))

    monkeypatch.setattr(learners.Session, "play", interrupted)
    out = tmp_path / "k.npz"
    code, _, err = run(capsys, "learn", "--game", "kuhn", "--games", "1000", "--out", str(out))
    assert code == 130 and "interrupted after 100 of 1,000 games" in err
    assert f"Resume with: dicejack learn --game kuhn --resume {out} --games 1000" in err
    back = load_learner_run(out)
    assert back.games == 100
    assert back.final.equals(learners.learn(Kuhn(), "cfr", 100, seed=1).final)


def test_solve_a_game_with_hidden_information_by_the_sequence_form(capsys):
    code, out, _ = run(capsys, "solve", "--game", "kuhn", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["value_exact"] == "-1/18" and abs(doc["value"] + 1 / 18) <= 1e-12
    assert doc["exploitability"] <= 1e-9
    assert doc["policy"]["Kb"] == {"pass": 0.0, "bet": 1.0}  # a king calls
    code, out, _ = run(capsys, "solve", "--game", "kuhn")
    assert code == 0 and "value for player 0: -0.0555555555556 (exactly -1/18)" in out
    code, _, err = run(capsys, "solve", "--game", "kuhn", "--method", "value-iteration")
    assert code == 2 and "sequence-form" in err


def test_compare_game_handout_is_the_handouts_compare_byte_for_byte(capsys, tmp_path):
    """compare --game handout is compare without --game: parameters by --game-param or by the
    handout's options, a run file read as the handout's (its game its own), the same output."""
    small = ("--sides", "4", "--low", "6", "--high", "7")
    named = ("--game-param", "sides=4", "--game-param", "low=6", "--game-param", "high=7")
    learning = ("--learner", "ucb", "--games", "300", "--seed", "2")
    for fmt in ("text", "json"):
        plain = run(capsys, "compare", *learning, *small, "--format", fmt)
        assert plain[0] == 0 and plain[1]
        assert run(capsys, "compare", "--game", "handout", *learning, *named, "--format",
                   fmt) == plain
        assert run(capsys, "compare", "--game", "handout", *learning, *small, "--format",
                   fmt) == plain
    path = tmp_path / "h.npz"
    assert main(["learn", *small, "--games", "200", "--out", str(path)]) == 0
    capsys.readouterr()
    plain = run(capsys, "compare", str(path))
    assert plain[0] == 0 and run(capsys, "compare", "--game", "handout", str(path)) == plain
    code, _, err = run(capsys, "compare", "--game", "handout", "--game-param", "low=7",
                       str(path))
    assert code == 2 and "is a run of" in err
    code, _, err = run(capsys, "compare", "--game", "handout", "--low", "6", "--game-param",
                       "low=6", *learning)
    assert code == 2 and "give one of them" in err


def test_compare_a_run_of_another_game_without_game_names_the_options(capsys, tmp_path):
    """compare RUN.npz of Kuhn poker without --game: one line naming the --game options that
    compare it (not a traceback), and those options do compare it."""
    path = str(tmp_path / "k.npz")
    assert run(capsys, "learn", "--game", "kuhn", "--games", "50", "--out", path)[0] == 0
    code, out, err = run(capsys, "compare", path)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    options = err.strip().split("compare it with ")[1].split()
    assert options == ["--game", "kuhn", "--game-param", "ante=1", "--game-param", "bet=1"]
    code, out, _ = run(capsys, "compare", path, *options)
    assert code == 0 and "exploitability" in out
