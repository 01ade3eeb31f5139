"""Runs of any bundled learner of any game as .npz, the one writer and reader: round trip, exact
resumption, the handout learner's old layout read and converted, protocol games' runs (their
layout carries the game), files written by the code before the one reader (old_runs/) still
read, and damaged or hostile files refused in one line before much is read."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack import learners
from dicejack.formats import FormatError
from dicejack.formats.learner_runs import (
    GAME_RUN_KIND,
    LEARNER_RUN_KIND,
    load_learner_run,
    load_run_npz,
    save_learner_run,
    save_run_npz,
)
from dicejack.games import HandoutGame, Pig, Piglet
from dicejack.games.handout_rules import Game
from dicejack.learners import handout
from dicejack.learners.game_learners import GameRun
from tests.games import HANDOUT
from tests.learners.legacy_runs import legacy_run_file

SMALL = Game(4, 9, 10, 2)
#: Run files written by the code before runs of every game had one writer (the commit before
#: "one learn"): formats.learner_runs.save_learner_run for the handout's game and
#: formats.game_runs.save_game_run for protocol games, as listed in test_files_of_the_old_code.
OLD_RUNS = Path(__file__).parent / "old_runs"


def same(a: learners.Run, b: learners.Run) -> bool:
    return (
        a.name == b.name and a.params == b.params and a.game == b.game and a.games == b.games
        and a.seed == b.seed and a.moves == b.moves and a.final.equals(b.final)
        and sorted(a.snapshots) == sorted(b.snapshots)
        and all(a.snapshots[g].equals(b.snapshots[g]) for g in a.snapshots)
        and set(a.state) == set(b.state)
        and all(np.array_equal(a.state[k], b.state[k]) for k in a.state)
    )


@pytest.mark.parametrize("name", learners.NAMES)
def test_round_trip_and_resume(tmp_path, name):
    run = learners.learn(HANDOUT, name, 600, 5, checkpoints=(0, 60, 600))
    path = tmp_path / f"{name}.npz"
    save_learner_run(path, run)
    back = load_learner_run(path)
    assert same(back, run) and back.label == run.label
    assert same(learners.resume(back, 1500), learners.learn(HANDOUT, name, 1500, 5,
                                                            checkpoints=(0, 60, 600)))


def test_the_handout_learners_old_run_file_loads_converted(tmp_path):
    path = tmp_path / "run.npz"
    own = legacy_run_file(path, HANDOUT, 20.0, 400, 2, checkpoints=(40,), tie_break="random")
    run = load_learner_run(path)
    assert run.name == "handout" and run.params == {"m": 20.0, "tie_break": "random"}
    assert same(run, own) and type(run) is handout.HandoutRun
    straight = learners.learn(HANDOUT, "handout", 900, 2, m=20.0, tie_break="random")
    assert learners.resume(run, 900).final.equals(straight.final)


def test_the_old_names_are_the_one_writer_and_reader(tmp_path):
    assert save_run_npz is save_learner_run and load_run_npz is load_learner_run
    run = handout.learn(HANDOUT, 20.0, 100, 2)
    save_run_npz(tmp_path / "run.npz", run)
    with np.load(tmp_path / "run.npz") as npz:
        assert str(npz["kind"]) == LEARNER_RUN_KIND == "dicejack-learner-run"


def test_only_bundled_learners_are_saved(tmp_path):
    run = learners.learn(SMALL, "ucb", 50, 1)
    import dataclasses

    mine = dataclasses.replace(run, name="mine")
    with pytest.raises(FormatError, match="only runs of the bundled learners"):
        save_learner_run(tmp_path / "x.npz", mine)
    assert not (tmp_path / "x.npz").exists()


def rewrite(path, out, **replace):
    """Copy run file `path` to `out` with some members replaced (None: dropped)."""
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    for key, value in replace.items():
        if value is None:
            arrays.pop(key)
        else:
            arrays[key] = value
    np.savez(out, **arrays)
    return out


@pytest.fixture
def saved(tmp_path):
    run = learners.learn(SMALL, "q-learning", 200, 3, checkpoints=(20,))
    path = tmp_path / "run.npz"
    save_learner_run(path, run)
    return path


@pytest.mark.parametrize(
    "replace, message",
    [
        ({"kind": np.array("dicejack-solution")}, "kind is 'dicejack-solution'"),
        ({"version": np.array(9)}, "format version 9"),
        ({"learner": np.array("sarsa")}, "unknown learner 'sarsa'"),
        ({"params": np.array(json.dumps({"alpha": 7}))}, r"alpha must be in \(0, 1\]"),
        ({"params": np.array(json.dumps({"beta": 1}))}, "no parameter 'beta'"),
        ({"params": np.array("[" * 50)}, "not a small flat JSON"),
        ({"game": np.array(json.dumps({"n_sides": 0, "low": 9, "high": 10, "n_dice": 2}))},
         "n_sides"),
        ({"game": np.array(json.dumps({"n_sides": 4, "low": 10, "high": 10, "n_dice": 2}))},
         "shape"),
        ({"games": np.array(201)}, "records 200 games, not 201"),
        ({"seed": np.array(-4)}, "negative"),
        ({"state__q": np.full((9, 9, 3), 2.0)}, r"outside \[0, 1\]"),
        ({"state__q": np.zeros((10**4, 10**4, 3), np.float32)[:1]}, "state__q has shape"),
        ({"state__visits": None}, "has no 'visits'"),
        ({"state__rng_state": np.array("{}")}, "PCG64"),
        ({"snapshot_best": np.full((1, 9, 9), 5)}, "outside 0..2"),
        ({"snapshot_games": np.array([500])}, "increasing game counts within 0..200"),
        ({"snapshot_visits": None}, "missing snapshot_visits"),
        ({"moves": np.zeros(10**5, np.int64)}, "moves has shape"),
        ({"learner": np.array("x" * 5000)}, "learner has dtype"),
    ],
)
def test_bad_files_are_one_line_errors(saved, tmp_path, replace, message):
    bad = rewrite(saved, tmp_path / "bad.npz", **replace)
    with pytest.raises(FormatError, match=message) as info:
        load_learner_run(bad)
    assert "\n" not in str(info.value) and str(bad) in str(info.value)


def test_a_huge_declared_member_is_refused_unread(saved, tmp_path):
    """A member whose header declares a giant array is refused from its header alone."""
    from numpy.lib import format as npy

    bad = tmp_path / "huge.npz"
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            if info.filename == "state__q.npy":
                with dst.open("state__q.npy", "w") as fh:
                    npy.write_array_header_1_0(
                        fh, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)}
                    )
            else:
                dst.writestr(info, src.read(info))
    with pytest.raises(FormatError, match="state__q: its header and its size"):
        load_learner_run(bad)


def test_not_run_files(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(FormatError, match="not a valid .npz file"):
        load_learner_run(junk)
    with pytest.raises(FormatError, match="no such file"):
        load_learner_run(tmp_path / "missing.npz")
    with pytest.raises(FormatError, match="it is a folder"):
        load_learner_run(tmp_path)
    empty = tmp_path / "empty.npz"
    np.savez(empty, other=np.zeros(2))
    with pytest.raises(FormatError, match="missing kind"):
        load_learner_run(empty)


# ------------------------------------------ hostile members of the one kind `learn --out` writes
HANDOUT_MEMBERS = ("kind", "version", "learner", "params", "game", "games", "seed", "moves",
                   "state__win", "state__lose", "state__games", "state__moves",
                   "state__rng_state", "snapshot_games", "snapshot_best",
                   "snapshot_probability", "snapshot_visits")


@pytest.fixture(scope="module")
def handout_file(tmp_path_factory):
    """A handout run file of the one kind (as `learn --out` writes it), its members and run."""
    path = tmp_path_factory.mktemp("one-kind") / "handout.npz"
    run = handout.learn(SMALL, 3.0, 60, 4, checkpoints=(20,), tie_break="random")
    save_learner_run(path, run)
    with np.load(path) as npz:
        return path, {k: npz[k] for k in npz.files}, run


def reads_back(handout_file, load) -> None:
    """The valid file still loads to its run exactly (a property that only says "an error or no
    crash" would hold for a loader that refuses everything)."""
    path, _, run = handout_file
    back = load(path)
    assert same(back, run) and back.rng_state == run.rng_state
    assert np.array_equal(back.win, run.win) and np.array_equal(back.lose, run.lose)


def one_run_or_one_line(path, load) -> None:
    try:
        load(path)
    except FormatError as exc:
        assert str(exc) and "\n" not in str(exc)


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(HANDOUT_MEMBERS),
       dtype=st.sampled_from(["int8", "uint64", "int64", "float64", "bool", "U5", "S3", "V8"]),
       shape=st.sampled_from([(), (0,), (1,), (9, 9), (9, 9, 3), (9, 9, 2), (1, 9, 9)]),
       fill=st.sampled_from([0, 1, -1, 2**63 - 1, 2**64 - 1, float("nan"), float("inf")]),
       drop=st.booleans())
def test_any_member_of_a_handout_run_replaced(tmp_path, handout_file, key, dtype, shape, fill,
                                               drop):
    member_replaced(tmp_path, handout_file, key, dtype, shape, fill, drop, load_run_npz)


def member_replaced(tmp_path, handout_file, key, dtype, shape, fill, drop, load) -> None:
    """Member `key` dropped or replaced by an array (`dtype`, `shape`, `fill`): `load` gives a
    run or a one-line FormatError, and still reads the valid file back exactly."""
    data = dict(handout_file[1])
    if drop:
        del data[key]
    else:
        try:
            with np.errstate(all="ignore"):
                data[key] = np.full(shape, fill).astype(dtype)
        except (ValueError, TypeError, OverflowError):
            data[key] = np.zeros(shape, dtype=dtype)
    np.savez(tmp_path / "member.npz", **data)
    one_run_or_one_line(tmp_path / "member.npz", load)
    reads_back(handout_file, load)


@pytest.mark.parametrize("broken", ["refuses everything", "swaps the counts"])
def test_the_property_catches_a_broken_loader(tmp_path, handout_file, broken):
    def refuses(path):
        raise FormatError("not a run file")

    def swaps(path):
        run = load_learner_run(path)
        state = {**run.state, "win": run.state["lose"], "lose": run.state["win"]}
        return dataclasses.replace(run, state=state)

    member_replaced(tmp_path, handout_file, "moves", "int64", (), 1, False, load_learner_run)
    with pytest.raises((AssertionError, FormatError)):  # the property fails, loudly
        member_replaced(tmp_path, handout_file, "moves", "int64", (), 1, False,
                        refuses if broken == "refuses everything" else swaps)


# ------------------------------------------------------------ files written by the old code
@pytest.mark.parametrize(("file", "game", "learner", "games", "seed", "params", "marks"), [
    ("learner_run_q.npz", Game(4, 6, 7, 2), "q-learning", 200, 3, {"epsilon": 0.5}, (50,)),
    ("learner_run_handout.npz", Game(4, 6, 7, 2), "handout", 120, 4, {"m": 3.0}, (30, 60)),
    ("game_run_piglet_q.npz", Piglet(goal=3), "q-learning", 200, 5, {"alpha": 0.5}, ()),
    ("game_run_pig_counting.npz", Pig(goal=6, die=3), "counting", 150, 2, {"m": 4.0}, ()),
])
def test_files_of_the_old_code(file, game, learner, games, seed, params, marks):
    """Each file was saved by the old code from learn(game, learner, games, seed, **params)
    (learn_game for the protocol games); read by the one reader, it is that run again."""
    back = load_learner_run(OLD_RUNS / file)
    again = learners.learn(game, learner, games, seed, checkpoints=marks, **params)
    assert type(back) is type(again) and (back.name, back.games, back.seed, back.moves) == (
        again.name, again.games, again.seed, again.moves)
    assert back.params == again.params and back.final.equals(again.final)
    assert sorted(back.snapshots) == list(marks)
    assert all(back.snapshots[n].equals(again.snapshots[n]) for n in marks)
    longer = learners.learn(game, learner, games + 100, seed, **params)
    assert learners.resume(back, games + 100).final.equals(longer.final)


# ------------------------------------------------------------------- runs of protocol games
@pytest.mark.parametrize("learner", ["q-learning", "mc-exploring-starts", "counting"])
def test_a_protocol_game_run_round_trips_and_resumes(tmp_path, learner):
    game = Piglet(goal=5)
    straight = learners.learn(game, learner, 400, seed=3)
    half = learners.learn(game, learner, 150, seed=3)
    save_learner_run(tmp_path / "half.npz", half)
    with np.load(tmp_path / "half.npz") as npz:
        assert str(npz["kind"]) == GAME_RUN_KIND and str(npz["game"]) == "piglet"
    back = load_learner_run(tmp_path / "half.npz")
    assert isinstance(back, GameRun)
    assert (back.name, back.seed, back.games, back.moves) == (learner, 3, 150, half.moves)
    assert back.final.equals(half.final)
    assert learners.resume(back, 400).final.equals(straight.final)


def test_a_run_is_read_against_its_own_game(tmp_path):
    save_learner_run(tmp_path / "r.npz", learners.learn(Pig(goal=6), "q-learning", 10, seed=1))
    with pytest.raises(FormatError, match="a run of pig goal=6 die=6, not of pig goal=7"):
        load_learner_run(tmp_path / "r.npz", Pig(goal=7))
    assert load_learner_run(tmp_path / "r.npz", Pig(goal=6)).games == 10
    save_learner_run(tmp_path / "h.npz", learners.learn(SMALL, "ucb", 10, seed=1))
    with pytest.raises(FormatError, match="a run of the handout's game .*, not of pig goal=6"):
        load_learner_run(tmp_path / "h.npz", Pig(goal=6))
    assert load_learner_run(tmp_path / "h.npz", HandoutGame(4, 9, 10, 2)).games == 10
    with pytest.raises(FormatError, match="a run of the handout's game"):
        load_learner_run(tmp_path / "h.npz", HandoutGame(4, 9, 11, 2))


def test_a_users_game_is_read_only_with_the_game_given(tmp_path):
    run = learners.learn(Piglet(goal=3), "q-learning", 5, seed=1)
    save_learner_run(tmp_path / "r.npz", run, game_spec="mine.py:Game", game_params={})
    with pytest.raises(FormatError, match="give --game mine.py:Game"):
        load_learner_run(tmp_path / "r.npz")
    assert load_learner_run(tmp_path / "r.npz", Piglet(goal=3)).games == 5
    with pytest.raises(FormatError, match="saves its game itself"):
        save_learner_run(tmp_path / "h.npz", learners.learn(SMALL, "ucb", 5, 1), "handout")


def _rewrite(path, out, **members):
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
    ({"version": np.array(2)}, "has format version 2; this dicejack reads up to 1"),
    ({"game_params": np.array('["goal=6", ["x"]]')}, "game_params is not small flat JSON"),
])
def test_bad_protocol_game_run_files_are_refused_in_one_line(tmp_path, members, message):
    save_learner_run(tmp_path / "r.npz", learners.learn(Pig(goal=6), "q-learning", 10, seed=1))
    bad = _rewrite(tmp_path / "r.npz", tmp_path / "bad.npz", **members)
    with pytest.raises(FormatError, match=message) as info:
        load_learner_run(bad)
    assert "\n" not in str(info.value)


# ---------------------------------------------------- runs of games with hidden information
@pytest.mark.parametrize("variant", ["cfr+", "cfr", "outcome-sampling"])
def test_a_cfr_run_round_trips_and_resumes_as_a_straight_run(tmp_path, variant):
    """CFR on Kuhn poker: the one layout (GAME_RUN_KIND, the game by name), its tables over the
    tree's action slots; resumed, it equals a straight run (outcome sampling: its generator
    too)."""
    from dicejack.games.kuhn import Kuhn

    straight = learners.learn(Kuhn(), "cfr", 300, seed=4, variant=variant)
    half = learners.learn(Kuhn(), "cfr", 120, seed=4, variant=variant)
    save_learner_run(tmp_path / "k.npz", half)
    with np.load(tmp_path / "k.npz") as npz:
        assert str(npz["kind"]) == GAME_RUN_KIND and str(npz["game"]) == "kuhn"
        assert str(npz["game_label"]) == "kuhn ante=1 bet=1"
        assert npz["state__regret"].shape == (25,)  # 12 decision keys x 2 + the deal's 1
    back = load_learner_run(tmp_path / "k.npz")
    assert isinstance(back, GameRun) and back.game == Kuhn()
    assert (back.name, back.seed, back.games, back.moves, back.params) == (
        "cfr", 4, 120, half.moves, half.params)
    assert back.final.equals(half.final)
    again = learners.resume(back, 300)
    assert again.final.equals(straight.final) and again.moves == straight.moves
    assert not again.final.equals(half.final)


def test_a_cfr_run_is_read_against_its_own_game_and_only_by_cfr(tmp_path):
    """A run of another game is refused in one line, either way round; so is a file whose
    learner does not play its game or whose tables do not fit the game's tree."""
    from dicejack.games.kuhn import Kuhn

    save_learner_run(tmp_path / "k.npz", learners.learn(Kuhn(), "cfr", 10, seed=1))
    save_learner_run(tmp_path / "p.npz", learners.learn(Pig(goal=6), "q-learning", 10, seed=1))
    cases = [
        (lambda: load_learner_run(tmp_path / "k.npz", Pig(goal=6)),
         "is a run of kuhn ante=1 bet=1, not of pig goal=6 die=6"),
        (lambda: load_learner_run(tmp_path / "k.npz", Kuhn(bet=2)),
         "is a run of kuhn ante=1 bet=1, not of kuhn ante=1 bet=2"),
        (lambda: load_learner_run(tmp_path / "p.npz", Kuhn()),
         "is a run of pig goal=6 die=6, not of kuhn ante=1 bet=1"),
        (lambda: load_learner_run(_rewrite(tmp_path / "k.npz", tmp_path / "b1.npz",
                                           state__regret=np.zeros(24))),
         r"state__regret has shape \(24,\), the game \(25,\)"),
        (lambda: load_learner_run(_rewrite(tmp_path / "k.npz", tmp_path / "b2.npz",
                                           extra=np.zeros(1))), "unknown members 'extra'"),
        (lambda: load_learner_run(_rewrite(tmp_path / "k.npz", tmp_path / "b3.npz",
                                           state__current=None)), "missing state__current"),
        (lambda: load_learner_run(_rewrite(tmp_path / "p.npz", tmp_path / "b4.npz",
                                           learner=np.array("cfr"))),
         "unknown members 'state__n', 'state__q', 'state__visits'"),
    ]
    for load, message in cases:
        with pytest.raises(FormatError, match=message) as info:
            load()
        assert "\n" not in str(info.value)
    assert load_learner_run(tmp_path / "k.npz", Kuhn()).games == 10


def test_a_cfr_learner_named_on_a_perfect_information_game_is_refused(tmp_path):
    """A file claiming CFR on pig, its members CFR's: refused before CFR is built."""
    from dicejack.games.kuhn import Kuhn

    save_learner_run(tmp_path / "k.npz", learners.learn(Kuhn(), "cfr", 10, seed=1))
    bad = _rewrite(tmp_path / "k.npz", tmp_path / "bad.npz", game=np.array("pig"),
                   game_params=np.array('["goal=6", "die=6"]'),
                   game_label=np.array("pig goal=6 die=6"))
    with pytest.raises(FormatError, match="learner cfr does not play pig goal=6 die=6"):
        load_learner_run(bad)
