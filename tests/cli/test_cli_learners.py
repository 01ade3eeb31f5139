"""`dicejack learn --learner NAME --param KEY=VALUE` (of the handout's game and, with --game, of
any other) and `dicejack compare` with any learner's run, through dicejack.cli.main: the printed
tables are the library's, runs save and resume exactly (Ctrl-C included) on the one path, every
long learn is under the progress bar, bad options are one line and exit 2, and compare on the
command line measures what compare.compare measures in Python."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from dicejack import compare, formats, learners
from dicejack.cli import app, main
from dicejack.formats.json_output import json_text
from dicejack.formats.learner_runs import load_run_npz, save_run_npz
from dicejack.formats.tables import learn_text, read_params_header, run_text
from dicejack.games import Piglet
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.learners.catalogue import parameters

#: Small enough that a few hundred games visit most states; large enough to have decisive ones.
SMALL = Game(4, 9, 10, 2)
GAME_ARGS = ["--sides", "4", "--low", "9", "--high", "10", "--dice", "2"]
#: A non-default parameter setting per learner (thompson has none).
SETTINGS = {
    "handout": {"m": 3.0, "tie_break": "random"},
    "q-learning": {"alpha": 0.2, "epsilon": 0.5, "epsilon_min": 0.05, "epsilon_decay": 200.0},
    "mc-epsilon": {"epsilon": 0.3, "epsilon_min": 0.3, "epsilon_decay": float("inf")},
    "ucb": {"c": 0.5},
    "thompson": {},
}


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def param_args(params: dict) -> list[str]:
    return [a for k, v in params.items() for a in ("--param", f"{k}={v}")]


def same_run(a: learners.Run, b: learners.Run) -> bool:
    return (a.name == b.name and a.params == b.params and a.game == b.game
            and a.games == b.games and a.seed == b.seed and a.final.equals(b.final))


# ------------------------------------------------------------------------------------- learn
@pytest.mark.parametrize("name", [n for n in learners.NAMES if n != "handout"])
def test_learn_prints_the_librarys_tables_for_every_learner(capsys, name):
    params = SETTINGS[name]
    expected = learners.learn(SMALL, name, 400, 7, **params)
    args = ["learn", "--learner", name, *param_args(params), *GAME_ARGS, "--games", 400,
            "--seed", 7]
    code, out, err = run(capsys, *args)
    assert code == 0 and err == ""
    assert out == run_text(expected)
    first = out.splitlines()[0]
    assert first.startswith(f"# learned by self-play with {name}") and "seed 7" in first
    for key in params:
        assert f" {key}=" in first
    assert read_params_header(out) == SMALL.params()

    code, out, _ = run(capsys, *args, "--format", "json")
    data = json.loads(out)
    assert data["learner"] == name and data["games"] == 400 and data["seed"] == 7
    assert data["params"] == SMALL.params() and data["label"] == expected.label
    assert data["best_dice"] == expected.tables[0].tolist()
    assert data["win_probability"] == expected.tables[1].tolist()
    assert data["visits"] == expected.visits.tolist()
    assert data["visits"][0][0] == 400  # every game starts at <0,0>

    code, out, _ = run(capsys, *args, "--format", "csv")
    lines = out.splitlines()
    assert lines[0] == f"# {expected.label}" and lines[1] == "x,y,best_dice,win_probability,visits"
    assert len(lines) == 2 + SMALL.low**2
    x, y, best, prob, visits = lines[2 + 1 * SMALL.low + 2].split(",")  # state <1,2>
    assert (int(best), float(prob), int(visits)) == (
        expected.tables[0][1, 2], expected.tables[1][1, 2], expected.visits[1, 2])


def test_default_learner_is_the_handouts_and_its_output_is_unchanged(capsys):
    code, plain, _ = run(capsys, "learn", *GAME_ARGS, "--games", 300, "--seed", 3)
    assert code == 0
    assert plain == learn_text(handout.learn(SMALL, 100.0, 300, 3))
    code, named, _ = run(capsys, "learn", "--learner", "handout", *GAME_ARGS, "--games", 300,
                         "--seed", 3)
    assert code == 0 and named == plain


def test_handout_param_equals_m_and_tie_break(capsys, tmp_path):
    base = ["learn", *GAME_ARGS, "--games", 500, "--seed", 2]
    code, by_options, _ = run(capsys, *base, "-m", 2.5, "--tie-break", "random",
                              "--out", tmp_path / "a.npz")
    assert code == 0
    code, by_params, _ = run(capsys, *base, "--param", "m=2.5", "--param", "tie_break=random",
                             "--out", tmp_path / "b.npz")
    assert code == 0 and by_params == by_options
    code, mixed, _ = run(capsys, *base, "-m", 2.5, "--param", "m=2.5", "--param",
                         "tie_break=random")
    assert code == 0 and mixed == by_options
    a, b = load_run_npz(tmp_path / "a.npz"), load_run_npz(tmp_path / "b.npz")
    assert (a.m, a.tie_break) == (b.m, b.tie_break) == (2.5, "random")
    assert np.array_equal(a.win, b.win) and np.array_equal(a.lose, b.lose)
    # the default M differs from 2.5: the parameter really reached the learner
    code, default, _ = run(capsys, *base, "--tie-break", "random")
    assert default != by_options


@pytest.mark.parametrize(
    "args, message",
    [
        (["--learner", "sarsa"], "unknown learner 'sarsa'; choose one of: handout, q-learning"),
        (["--learner", "ucb", "--param", "alpha=0.1"], "learner ucb has no parameter 'alpha'"),
        (["--learner", "q-learning", "--param", "alpha=2"],
         "q-learning parameter alpha must be in (0, 1] or 1/n"),
        (["--learner", "q-learning", "--param", "epsilon=lots"],
         "q-learning parameter epsilon must be a number"),
        (["--learner", "ucb", "--param", "c"], "must be key=value"),
        (["--learner", "ucb", "--param", "c=1", "--param", "c=2"], "given twice"),
        (["--learner", "q-learning", "--param", "epsilon=0.05"],
         "epsilon_min (0.1, its default) must be <= epsilon"),
        (["--learner", "ucb", "-m", "3"], "-m is a setting of the handout's learner, not of ucb"),
        (["--learner", "thompson", "--tie-break", "random"], "thompson has no parameters"),
        (["--learner", "mc-epsilon", "--trace", "2"], "do not apply to --learner mc-epsilon"),
        (["--learner", "ucb", "--explain"], "--trace and --explain"),
        (["-m", "4", "--param", "m=5"], "-m 4 and --param m=5 disagree"),
        (["--param", "tie_break=first"], "must be one of lowest, random"),
        (["--param", "m=-1"], "handout parameter m must be in [0, inf)"),
    ],
)
def test_bad_learner_options_are_one_line_and_exit_2(capsys, tmp_path, monkeypatch, args,
                                                     message):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "learn", "--games", 10, *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["q-learning", "thompson"])
def test_out_and_resume_equal_a_straight_run(capsys, tmp_path, name):
    params = SETTINGS[name]
    path = tmp_path / "run.npz"
    code, _, err = run(capsys, "learn", "--learner", name, *param_args(params), *GAME_ARGS,
                       "--games", 300, "--seed", 4, "--out", path)
    assert code == 0 and f"wrote {path}" in err
    first = formats.load_learner_run(path)
    assert same_run(first, learners.learn(SMALL, name, 300, 4, **params))
    # the file names the learner, its parameters, game and seed: --resume alone continues it
    code, out, _ = run(capsys, "learn", "--resume", path, "--games", 800, "--out", path)
    assert code == 0
    straight = learners.learn(SMALL, name, 800, 4, **params)
    assert same_run(formats.load_learner_run(path), straight)
    assert out == run_text(straight)
    # options that agree with the file are accepted
    code, _, _ = run(capsys, "learn", "--resume", path, "--learner", name, *param_args(params),
                     "--seed", 4, *GAME_ARGS, "--games", 800)
    assert code == 0


def test_resume_refuses_options_that_contradict_the_file(capsys, tmp_path):
    path = tmp_path / "run.npz"
    formats.save_learner_run(path, learners.learn(SMALL, "ucb", 200, 1, c=0.5))
    before = path.read_bytes()
    for args, message in [
        (["--param", "c=2"], "different run (NSides=4, LTarget=9, UTarget=10, NDice=2, ucb c=0.5, "
                             "seed 1): --param c=2 disagrees; omit it to resume"),
        (["--seed", 2], "--seed 2 disagrees"),
        (["--dice", 3], "--dice 3 disagrees"),
        (["--learner", "thompson"], "is a run of learner ucb, not thompson"),
        (["-m", 5], "-m is a setting of the handout's learner, not of ucb"),
        (["--games", 100], "already has 200 games; --games must be >= that"),
        (["--trace", 1], "--trace and --explain"),
    ]:
        code, out, err = run(capsys, "learn", "--resume", path, "--out", path, "--games", 400,
                             *args)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
        assert path.read_bytes() == before
    # a handout run file cannot be resumed as another learner
    legacy = tmp_path / "legacy.npz"
    save_run_npz(legacy, handout.learn(SMALL, 100.0, 100, 1))
    code, _, err = run(capsys, "learn", "--resume", legacy, "--learner", "ucb", "--games", 200)
    assert code == 2 and "is a run of learner handout, not ucb" in err


def test_a_handout_run_saved_by_the_library_resumes_on_the_command_line(capsys, tmp_path):
    path = tmp_path / "handout.npz"
    formats.save_learner_run(path, learners.learn(SMALL, "handout", 300, 6, m=5.0))
    code, out, _ = run(capsys, "learn", "--resume", path, "--games", 700, "--out", path)
    assert code == 0
    straight = learners.learn(SMALL, "handout", 700, 6, m=5.0)
    back = formats.load_learner_run(path)
    assert same_run(back, straight) and out == run_text(straight)
    # the handout learner's own session gives the same tables
    assert np.array_equal(back.tables[0], handout.learn(SMALL, 5.0, 700, 6).tables[0])
    code, _, err = run(capsys, "learn", "--resume", path, "--games", 900, "-m", 6)
    assert code == 2 and "--param m=6 disagrees" in err


def test_an_old_handout_run_file_resumes_into_the_one_kind(capsys, tmp_path):
    from tests.learners.legacy_runs import legacy_run_file

    path = tmp_path / "old.npz"
    legacy_run_file(path, SMALL, 5.0, 300, 6, checkpoints=(100,))
    code, out, err = run(capsys, "learn", "--resume", path, "--games", 700, "--out", path,
                         "--trace", 1)
    assert code == 0 and f"wrote {path}" in err
    straight = handout.learn(SMALL, 5.0, 700, 6)
    head, printed = out.split("# learned", 1)
    assert "# learned" + printed == learn_text(straight) == run_text(straight)
    assert head.startswith("Game 301:")  # the trace follows the resumed run's next game
    with np.load(path) as npz:
        assert str(npz["kind"]) == "dicejack-learner-run"
    back = formats.load_learner_run(path)
    assert same_run(back, straight) and sorted(back.snapshots) == [100]


def test_ctrl_c_saves_a_resumable_run_of_any_learner(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    real_play = learners.Session.play
    calls = {"n": 0}

    def play_then_interrupt(self, games):
        real_play(self, games)  # the interrupt lands between chunks, as with a compiled loop
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(learners.Session, "play", play_then_interrupt)
    args = ["learn", "--learner", "q-learning", "--param", "alpha=0.3", *GAME_ARGS,
            "--games", "5000000", "--seed", "9"]
    code = app(args, standalone_mode=False, prog_name="dicejack")
    out, err = capsys.readouterr()
    assert code == 130 and out == ""
    from dicejack.cli import INTERRUPTED_RUN

    saved = tmp_path / INTERRUPTED_RUN
    assert f"--resume {saved.name} --games 5000000" in err
    partial = formats.load_learner_run(saved)
    assert 0 < partial.games < 5_000_000
    assert same_run(partial, learners.learn(SMALL, "q-learning", partial.games, 9, alpha=0.3))
    monkeypatch.setattr(learners.Session, "play", real_play)
    total = partial.games + 500
    code, _, _ = run(capsys, "learn", "--resume", saved, "--games", total, "--out", saved)
    assert code == 0
    assert same_run(formats.load_learner_run(saved),
                    learners.learn(SMALL, "q-learning", total, 9, alpha=0.3))


# ----------------------------------------------------------------------------------- compare
def test_compare_of_a_saved_learner_run_equals_compare_in_python(capsys, tmp_path):
    path = tmp_path / "q.npz"
    code, _, _ = run(capsys, "learn", "--learner", "q-learning", "--param", "alpha=0.1",
                     *GAME_ARGS, "--games", 2000, "--seed", 5, "--out", path)
    assert code == 0
    code, out, err = run(capsys, "compare", path, "--format", "json")
    assert code == 0 and err == ""
    run_again = learners.learn(SMALL, "q-learning", 2000, 5, alpha=0.1)
    expected = dataclasses.replace(compare.compare(SMALL, None, run_again),
                                   source=f"{path}: {run_again.label}")  # the file, then its run
    assert json.loads(out) == json.loads(json_text(expected.as_dict()))
    assert json.loads(out)["source"].startswith(f"{path}: q-learning epsilon=1 ")
    code, text, _ = run(capsys, "compare", path)
    assert code == 0
    assert text.rstrip("\n") == compare.format_comparison(expected, more="--format json").rstrip(
        "\n")


def test_compare_reads_the_printed_tables_of_any_learner(capsys, tmp_path):
    path = tmp_path / "ucb.txt"
    code, out, _ = run(capsys, "learn", "--learner", "ucb", *GAME_ARGS, "--games", 1500)
    assert code == 0
    path.write_text(out)
    code, printed, _ = run(capsys, "compare", path, "--format", "json")  # game from the header
    assert code == 0
    from_run = compare.compare(SMALL, None, learners.learn(SMALL, "ucb", 1500, 1))
    got = json.loads(printed)["metrics"]
    for name in ("agreement_all", "agreement_decisive", "score_vs_optimal"):
        assert got[name] == pytest.approx(from_run.metrics[name], abs=1e-12), name


def test_compare_learner_learns_then_compares(capsys):
    code, out, err = run(capsys, "compare", "--learner", "mc-epsilon", "--param", "epsilon=0.5",
                         *GAME_ARGS, "--games", 1000, "--seed", 3, "--format", "json")
    assert code == 0
    expected = compare.compare(SMALL, None, learners.learn(SMALL, "mc-epsilon", 1000, 3,
                                                           epsilon=0.5))
    assert json.loads(out) == json.loads(json_text(expected.as_dict()))
    code, out, _ = run(capsys, "compare", "--learner", "handout", "-m", 4, *GAME_ARGS,
                       "--games", 800, "--seed", 2, "--format", "json")
    assert code == 0
    handout_result = compare.compare(SMALL, None, handout.learn(SMALL, 4.0, 800, 2))
    expected = json.loads(json_text(handout_result.as_dict()))["metrics"]
    assert json.loads(out)["metrics"] == expected


@pytest.mark.parametrize(
    "args, message",
    [
        (["run.npz", "--learner", "ucb"], "give one of SOURCE, --learner NAME or --policy"),
        (["--policy", "agent:choose", "--learner", "ucb"],
         "give one of SOURCE, --learner NAME or --policy"),
        (["--policy", "agent:choose", "--games", "10"], "--games: only with --learner"),
        (["--policy", "nocolon"], "give MODULE:NAME"),
        ([], "give SOURCE (a run file or printed tables), --learner NAME to learn a run, or "
             "--policy MODULE:NAME"),
        (["run.npz", "--games", "10"], "--games: only with --learner"),
        (["run.npz", "--param", "c=1"], "--param: only with --learner"),
        (["--learner", "ucb", "--param", "c=-1"], "ucb parameter c must be in [0, inf)"),
        (["--learner", "q-learning", "-m", "3"], "-m is a setting of the handout's learner"),
        (["--learner", "sarsa"], "unknown learner 'sarsa'"),
        (["--learner", "ucb", "--games", "-3"], "--games must be >= 0"),
    ],
)
def test_compare_learner_usage_errors(capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    formats.save_learner_run(tmp_path / "run.npz", learners.learn(SMALL, "ucb", 50, 1))
    code, out, err = run(capsys, "compare", *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err, err


def test_help_lists_every_learner_and_its_parameters(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    for command in ("learn", "compare"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "--learner NAME" in out and "--param KEY=VALUE" in out
        for name in learners.NAMES:
            assert f"  {name}: " in out, (command, name)
        for param in parameters("q-learning"):
            assert f"    {param.describe()}" in out
        assert "--param alpha=0.1" in out


@pytest.mark.parametrize("games", ["2000", "2_000", "2,000", "2e3"])
def test_every_count_notation_gives_the_same_run(capsys, games):
    code, out, _ = run(capsys, "learn", "--games", games, "--seed", "3", "--format", "json")
    assert code == 0 and json.loads(out)["games"] == 2000


@pytest.mark.parametrize("spelling", ["Q-Learning", "q_learning", "QLEARNING"])
def test_learner_names_in_any_case(capsys, spelling):
    code, out, _ = run(capsys, "learn", "--learner", spelling, "--games", "1e3", "--format",
                       "json")
    assert code == 0 and json.loads(out)["learner"] == "q-learning"


def test_a_slip_in_a_name_or_a_count_is_one_line_that_helps(capsys):
    code, _, err = run(capsys, "learn", "--learner", "q-learnin")
    assert code == 2 and err == ("error: unknown learner 'q-learnin'; did you mean q-learning? "
                                 "choose one of: handout, q-learning, mc-epsilon, ucb, "
                                 "thompson\n")
    code, _, err = run(capsys, "learn", "--games", "1e14")
    assert code == 2 and "--games 100,000,000,000,000 is more than the limit of " \
                         "1,000,000,000,000 games" in err and "e+" not in err
    code, _, err = run(capsys, "grade", "x.txt", "-m", "100", "--games", "12.5")
    assert code == 2 and err == "error: --games must be a whole number, got '12.5'\n"


# ---------------------------------------------------------- learn --game: any protocol game
def test_learn_game_text_json_csv(capsys):
    args = ["learn", "--game", "pig", "--game-param", "goal=8", "--games", "500", "--seed", "3"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert out.startswith("# learned by self-play with q-learning epsilon=1 ")
    assert "seed=3 games=500: pig goal=8 die=6" in out and "exploitability" in out
    code, out, _ = run(capsys, *args, "--format", "json")
    doc = json.loads(out)
    assert doc["learner"] == "q-learning" and doc["games"] == 500 and doc["seed"] == 3
    metrics = doc["metrics"]
    assert 0 <= metrics["agreement_all"] <= 1 and metrics["exploitability"] >= -1e-9
    assert 0.6 < metrics["game_value"] < 0.9  # Pig to 8: the first player has the edge
    code, again, _ = run(capsys, *args, "--format", "json")
    assert again == out  # seeded: the same bytes
    code, out, _ = run(capsys, "learn", "--game", "piglet", "--game-param", "goal=2",
                       "--learner", "mc-exploring-starts", "--games", "50", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "state,player,best,value,visits"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--game", "pig", "-m", "3"], "-m does not apply to --game"),
        (["--game", "pig", "--param", "m=3"], "q-learning takes KEY=VALUE"),
        (["--game", "pig", "--learner", "ucb"], "no learner 'ucb' for protocol games"),
        (["--learner", "mc-exploring-starts"], "give --game NAME"),
        (["--game-param", "goal=3"], "needs --game NAME"),
    ],
)
def test_learn_game_errors_are_one_line(capsys, args, words):
    code, out, err = run(capsys, "learn", *args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and words in err and err.count("\n") == 1


def test_learn_game_with_the_counting_rule(capsys):
    code, out, _ = run(capsys, "learn", "--game", "piglet", "--game-param", "goal=6",
                       "--learner", "counting", "--param", "m=10", "--games", "300",
                       "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["learner"] == "counting" and doc["learner_params"] == {"m": 10.0,
                                                                      "max_moves": 100000}
    assert doc["metrics"]["states_with_data"] > 0
    code, _, err = run(capsys, "learn", "--learner", "mc-exploring-starts")
    assert code == 2 and "give --game NAME" in err and "handout: the counting rule" in err


def test_the_counting_rule_has_one_name_on_every_game(capsys):
    """counting on the handout's game is its learner, byte for byte; handout on another game is
    counting (catalogue.SAME_RULE)."""
    outs = [run(capsys, "learn", "--learner", name, "--games", "500", "--seed", "3")
            for name in ("counting", "handout")]
    assert outs[0][0] == 0 and outs[0][1] == outs[1][1] and "Best number of dice" in outs[0][1]
    game = ("--game", "piglet", "--game-param", "goal=6", "--param", "m=10", "--games", "300",
            "--format", "json")
    docs = [json.loads(run(capsys, "learn", *game, "--learner", name)[1])
            for name in ("handout", "counting")]
    assert docs[0]["learner"] == "counting" and docs[0] == docs[1]


def test_learn_game_handout_is_the_handouts_learn_byte_for_byte(capsys):
    """--game handout is the default game: its parameters by --game-param or by the handout's
    options, the handout's learners, the same output as `learn` without --game."""
    plain = run(capsys, "learn", "--sides", "3", "--low", "6", "--high", "7", "--games", "500",
                "--seed", "4", "-m", "10")
    named = run(capsys, "learn", "--game", "handout", "--game-param", "sides=3",
                "--game-param", "low=6", "--game-param", "high=7", "--games", "500",
                "--seed", "4", "-m", "10")
    options = run(capsys, "learn", "--game", "handout", "--sides", "3", "--low", "6",
                  "--high", "7", "--games", "500", "--seed", "4", "-m", "10")
    assert plain[0] == 0 and plain[1].count("\n") > 10
    assert named == plain and options == plain
    assert run(capsys, "learn", "--game", "handout", "--learner", "ucb", "--games", "300",
               "--format", "json") == run(capsys, "learn", "--learner", "ucb", "--games",
                                          "300", "--format", "json")
    code, _, err = run(capsys, "learn", "--game", "handout", "--low", "6", "--game-param",
                       "low=6")
    assert code == 2 and "give one of them" in err


def test_learn_game_out_and_resume_equal_a_straight_run(tmp_path, capsys):
    game = ["--game", "piglet", "--game-param", "goal=5"]
    a, b, c, d = (str(tmp_path / n) for n in ("a.npz", "b.npz", "c.npz", "d.npz"))
    assert main(["learn", *game, "--games", "300", "--seed", "2", "--out", a]) == 0
    straight = capsys.readouterr().out
    assert main(["learn", *game, "--games", "100", "--seed", "2", "--out", b]) == 0
    capsys.readouterr()
    assert main(["learn", *game, "--games", "300", "--resume", b, "--out", c]) == 0
    assert capsys.readouterr().out == straight
    assert formats.load_learner_run(c).final.equals(formats.load_learner_run(a).final)
    # the file carries its game: --resume alone plays it on
    assert main(["learn", "--games", "300", "--resume", b, "--out", d]) == 0
    assert capsys.readouterr().out == straight
    assert formats.load_learner_run(d).final.equals(formats.load_learner_run(a).final)
    assert main(["learn", *game, "--games", "50", "--resume", b]) == 2
    assert "already has 100 games" in capsys.readouterr().err
    assert main(["learn", *game, "--games", "300", "--resume", b, "--learner", "counting"]) == 2
    assert "resume it without --learner" in capsys.readouterr().err
    assert main(["learn", "--game", "piglet", "--game-param", "goal=6", "--games", "300",
                 "--resume", b]) == 2
    assert "is a run of piglet goal=5, not of piglet goal=6" in capsys.readouterr().err


def test_learn_game_refuses_a_handout_run_and_learn_refuses_nothing_it_can_read(tmp_path,
                                                                               capsys):
    h = str(tmp_path / "h.npz")
    assert main(["learn", *GAME_ARGS, "--games", "50", "--out", h]) == 0
    capsys.readouterr()
    code, _, err = run(capsys, "learn", "--game", "pig", "--games", "60", "--resume", h)
    assert code == 2 and "a run of the handout's game" in err and err.count("\n") == 1
    # --game handout is the handout's learn: its run resumes as without --game
    named = run(capsys, "learn", "--game", "handout", "--game-param", "low=9",
                "--game-param", "high=10", "--game-param", "sides=4", "--games", "60",
                "--resume", h)
    assert named[0] == 0 and named == run(capsys, "learn", "--games", "60", "--resume", h)


def test_learn_game_ctrl_c_saves_the_partial_run_and_says_how_to_resume(tmp_path, capsys,
                                                                        monkeypatch):
    played = learners.Session.play

    def interrupted(self, games):
        if self.played >= 100:
            raise KeyboardInterrupt
        played(self, min(games, 100 - self.played))

    monkeypatch.setattr(learners.Session, "play", interrupted)
    out = tmp_path / "run.npz"
    code = main(["learn", "--game", "piglet", "--game-param", "goal=5", "--games", "1000",
                 "--seed", "2", "--out", str(out)])
    assert code == 130
    err = capsys.readouterr().err
    assert "interrupted after 100 of 1,000 games" in err
    assert (f"Resume with: dicejack learn --game piglet --game-param goal=5 --resume {out} "
            f"--games 1000 --out {out}") in err
    back = formats.load_learner_run(out)
    assert back.games == 100
    assert back.final.equals(learners.learn(Piglet(goal=5), "q-learning", 100, seed=2).final)


@pytest.mark.parametrize("args", [
    ["--games", "3000"],
    ["--learner", "ucb", "--games", "3000", *GAME_ARGS],
    ["--game", "pig", "--game-param", "goal=8", "--games", "3000"],
])
def test_every_learn_is_under_the_progress_bar(capsys, monkeypatch, args):
    """The same bar for the handout's game and --game: opened at the games to play, updated as
    chunks finish (the session at its played count), closed once."""
    from dicejack.runtime import parallel

    seen: dict[str, list] = {"open": [], "update": [], "close": []}

    def bar(total, done):
        seen["open"].append((total, done))
        return (lambda session: seen["update"].append(session.played),
                lambda: seen["close"].append(True))

    monkeypatch.setattr(parallel, "games_progress_bar", bar)
    code, _, _ = run(capsys, "learn", *args)
    assert code == 0
    assert seen["open"] == [(3000, 0)] and seen["close"] == [True]
    assert seen["update"] and seen["update"][-1] == 3000
