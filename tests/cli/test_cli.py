"""The command line: thin wrappers, one-line errors with exit code 2, every command documented."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from dicejack import solver
from dicejack.cli import app, main
from dicejack.games.handout_rules import Game


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_command_is_documented_with_an_example(capsys):
    import typer.main

    group = typer.main.get_command(app)
    assert group.commands, "no commands registered"
    for name, command in group.commands.items():
        assert command.help and "Example" in command.help, f"`dicejack {name}` lacks an example"
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and "Usage" in out


def test_solve_text_prints_both_tables_and_p00(capsys):
    code, out, err = run(capsys, "solve", "--sides", "6", "--low", "15", "--high", "17")
    assert code == 0 and err == ""
    assert "Best number of dice" in out and "Win probability" in out
    assert "P[0,0]" in out and "0.576272956998" in out
    rows = [line for line in out.splitlines() if line.strip().startswith("14 |")]
    assert len(rows) == 2


def test_solve_json_has_the_design_keys(capsys):
    code, out, _ = run(capsys, "solve", "--sides", "2", "--low", "2", "--high", "2", "--dice", "1",
                       "--exact", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["params", "win_probability", "best_dice", "optimal_dice", "q", "gap",
                          "p00", "p00_exact", "method", "sweeps"]
    assert data["params"] == {"n_sides": 2, "low": 2, "high": 2, "n_dice": 1}
    assert data["p00_exact"] == "5/8" and data["p00"] == 0.625
    assert data["gap"] == [[None, None], [None, None]]
    assert data["optimal_dice"][0][0] == [1]
    assert np.array(data["q"]).shape == (2, 2, 2)


def test_solve_value_iteration_json_and_csv(capsys, tmp_path):
    out_path = tmp_path / "sol.json"
    code, _, err = run(capsys, "solve", "--method", "value-iteration", "--format", "json",
                       "--out", str(out_path))
    assert code == 0 and "wrote" in err
    data = json.loads(out_path.read_text())
    assert data["method"] == "value-iteration" and data["sweeps"] > 1
    assert data["p00_exact"] is None
    code, out, _ = run(capsys, "solve", "--format", "csv")
    lines = out.splitlines()
    assert lines[0] == "x,y,best_dice,optimal_dice,win_probability,gap,q1,q2"
    assert len(lines) == 1 + 15 * 15


def test_solve_npz_round_trip(capsys, tmp_path):
    path = tmp_path / "sol.npz"
    code, _, _ = run(capsys, "solve", "--format", "npz", "--out", str(path))
    assert code == 0
    with np.load(path) as data:
        expected = solver.solve(Game(6, 15, 17, 2))
        np.testing.assert_array_equal(data["q"], expected.q)
        assert json.loads(str(data["params"]))["low"] == 15


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "--low", "0"], "low (LTarget) must be >= 1"),
        (["solve", "--low", "abc"], "--low"),
        (["solve", "--low", "20", "--high", "10"], "high (UTarget)"),
        (["solve", "--format", "npz"], "needs --out"),
        (["solve", "--out", "/nonexistent-dir/x.txt"], "does not exist"),
        (["solve", "--exact", "--low", "300", "--high", "310", "--dice", "6"], "too large"),
        (["solve", "--sides", "6", "--low", "40000", "--high", "40010", "--dice", "10"], "GiB"),
        (["solve", "--bogus"], "--bogus"),
        (["nosuchcommand"], "nosuchcommand"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err
    assert "Traceback" not in err + out


# ------------------------------------------------------------------------------ start-up
_IMPORTS_AFTER = """
import sys
from dicejack.cli import main
code = main(sys.argv[1:])
heavy = ("numba", "llvmlite", "scipy", "matplotlib", "dask", "distributed", "rich")
print(code, " ".join(sorted(m for m in heavy if m in sys.modules)) or "-", "numpy" in sys.modules)
"""


def _heavy_imports(*args: str, cwd=None) -> tuple[int, str, bool]:
    """(exit code, heavy packages loaded, numpy loaded) after `dicejack ARGS` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS_AFTER, *args], capture_output=True, text=True, cwd=cwd,
        check=True,
    )
    code, heavy, numpy_loaded = done.stdout.split()[-3:]
    return int(code), heavy, numpy_loaded == "True"


@pytest.mark.slow
def test_solve_and_compare_of_a_small_game_load_no_compiler_and_help_no_numpy(tmp_path):
    from dicejack.formats.learner_runs import save_run_npz
    from dicejack.learners import handout

    assert _heavy_imports("solve") == (0, "-", True)
    assert _heavy_imports("solve", "--exact", "--format", "json") == (0, "-", True)
    save_run_npz(tmp_path / "run.npz", handout.learn(Game(6, 15, 17, 2), 100.0, 200, 1))
    assert _heavy_imports("compare", "run.npz", cwd=tmp_path) == (0, "-", True)
    assert _heavy_imports("--help") == (0, "-", False)  # plain click help: no rich either
    assert _heavy_imports("--version") == (0, "-", False)
    assert _heavy_imports("solve", "--low", "abc") == (2, "-", False)  # usage error


# ------------------------------------------------------------------------- no newcomer traps
def _help_texts(capsys, monkeypatch) -> dict[str, str]:
    """`dicejack --help` and `dicejack COMMAND --help` of every command, 200 columns wide."""
    import typer.main

    monkeypatch.setenv("COLUMNS", "200")
    texts = {}
    for name in ["", *typer.main.get_command(app).commands]:
        code, out, err = run(capsys, *([name] if name else []), "--help")
        assert code == 0 and err == "", (name, err)
        texts[name or "dicejack"] = out
    return texts


def test_help_shows_what_it_says(capsys, monkeypatch):
    texts = _help_texts(capsys, monkeypatch)
    assert set(texts) == {"dicejack", "solve", "learn", "compare", "report", "grade", "study"}
    for name in ("report", "grade"):  # the Dask option, word for word, square brackets too
        assert "pip install 'dicejack[cluster]'" in " ".join(texts[name].split()), texts[name]
    for name, text in texts.items():
        assert "<bool>" not in text and "BOOLEAN" not in text, name
        options = [line.split()[0] for line in text.splitlines() if line.startswith("  -")]
        assert "-h," in options, name
        assert "--m" not in [o.rstrip(",") for o in options], f"{name}: -m shown as --m"
    for name in ("learn", "report", "grade"):
        lines = [line for line in texts[name].splitlines() if line.startswith("  -m")]
        assert lines and lines[0].split()[:2] == ["-m,", "--m"], name
    flags = {"solve": ["--exact", "--force"], "learn": ["--explain", "--force"]}
    for name, names in flags.items():
        for flag in names:
            line = next(line for line in texts[name].splitlines() if line.split()[:1] == [flag])
            assert line.split()[1][0].isupper(), f"{flag} shows a value: {line}"
    assert "--version" in texts["dicejack"]


def test_help_lists_commands_in_the_readmes_order_whole_with_real_metavars(capsys,
                                                                          monkeypatch):
    """`dicejack --help` lists the commands as the README introduces them, each with its whole
    first sentence (click cut them: "...(or..."), and no help shows typer's Python types
    (`<list[str]>`, `<list[Path]>`) for a value: a metavar says what to type."""
    import re
    from pathlib import Path

    import typer.main

    group = typer.main.get_command(app)
    for columns in ("80", "200"):
        texts = _help_texts(capsys, monkeypatch) if columns == "200" else None
        if texts is None:
            monkeypatch.setenv("COLUMNS", columns)
            texts = {"dicejack": run(capsys, "--help")[1]}
            texts.update({n: run(capsys, n, "--help")[1] for n in group.commands})
        listing = texts["dicejack"].split("Commands:\n", 1)[1]
        rows = re.split(r"\n(?=  \S)", listing.rstrip("\n"))
        names = [row.split()[0] for row in rows]
        assert names == ["solve", "learn", "compare", "report", "grade", "study"], columns
        readme = Path(__file__).resolve().parents[2].joinpath("README.md").read_text()
        order = [readme.index(f"| `dicejack {n}` |") for n in names]
        assert order == sorted(order)
        for name, row in zip(names, rows, strict=True):
            shown = " ".join(row.split()[1:])
            whole = " ".join(group.commands[name].help.split("\n\n")[0].split())
            assert shown == whole[:whole.index(".") + 1] or shown == whole, (name, shown)
            assert shown.endswith(".") and "..." not in shown, (name, shown)
        for name, text in texts.items():
            assert "<list[" not in text and "list[" not in text, (name, columns)
    report, grade = texts["report"], texts["grade"]
    for metavar in ("--learner NAME[,NAME...]", "--param KEY=VALUE[,VALUE...]",
                    "-m, --m M[,M...]", "--figure-format FMT[,FMT...]"):
        assert metavar in report, metavar
    assert "--lms-hold VERDICT[,VERDICT...]" in grade
    assert re.search(r"^  SUBMISSION  ", grade, re.M), grade


def test_version_and_bare_command(capsys):
    from dicejack import __version__

    assert run(capsys, "--version") == (0, f"dicejack {__version__}\n", "")
    assert __version__ == "0.1.0"
    code, out, err = run(capsys)
    assert code == 0 and out.startswith("Usage: dicejack") and "Commands:" in out


def test_solve_value_iteration_text_gives_its_sweep_count(capsys):
    sol = solver.solve(Game(6, 15, 17, 2), method="value-iteration")
    code, out, _ = run(capsys, "solve", "--method", "value-iteration")
    assert code == 0 and sol.sweeps > 2
    assert out.splitlines()[0].endswith(
        f"(value-iteration: {sol.sweeps} sweeps, the last one changing nothing)")
    code, out, _ = run(capsys, "solve")
    assert "sweeps" not in out.splitlines()[0]  # backward induction: one pass, nothing to say


# ------------------------------------------------------------------------------ big outputs
def test_outputs_over_the_limit_need_force(capsys, tmp_path, monkeypatch):
    from dicejack.cli import common
    from dicejack.formats.sizes import run_bytes, solution_bytes

    game = Game(6, 15, 17, 2)
    size = solution_bytes(game, "npz")
    monkeypatch.setattr(common, "LARGE_OUTPUT_BYTES", size - 1)
    path = tmp_path / "sol.npz"
    monkeypatch.setattr("sys.stdin", _Stdin(""))  # not a terminal
    code, out, err = run(capsys, "solve", "--format", "npz", "--out", str(path))
    assert code == 2 and not path.exists() and out == ""
    assert err.count("\n") == 1 and "--force" in err and f"{path} would take up to" in err
    assert common.size_text(size) in err
    code, _, err = run(capsys, "solve", "--format", "npz", "--out", str(path), "--force")
    assert code == 0 and path.exists()
    # --force writes it, but not silently: its size first, before the work
    assert err.splitlines()[0] == f"note: writing {path}: up to {common.size_text(size)}"
    assert err.splitlines()[1] == f"wrote {path}"
    # stdout counts too; text of the same game is far smaller than its .npz
    assert solution_bytes(game, "text") < size
    assert run(capsys, "solve")[0] == 0
    # learn: the run file, before a single game is played
    monkeypatch.setattr(common, "LARGE_OUTPUT_BYTES", run_bytes(game, "npz", 100) - 1)
    run_path = tmp_path / "run.npz"
    code, out, err = run(capsys, "learn", "--games", "100", "--out", str(run_path))
    assert code == 2 and not run_path.exists() and "--force" in err and out == ""
    code, out, err = run(capsys, "learn", "--games", "100", "--out", str(run_path), "--force")
    assert code == 0 and run_path.exists()


class _Stdin:
    """A stand-in for sys.stdin: its text, read a line at a time, and whether it is a terminal."""

    def __init__(self, text: str, tty: bool = False) -> None:
        import io

        self.lines = io.StringIO(text)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def readline(self) -> str:
        return self.lines.readline()


def test_outputs_over_the_announcement_size_are_announced_before_the_work(capsys, tmp_path,
                                                                         monkeypatch):
    from dicejack.cli import common
    from dicejack.formats.sizes import solution_bytes

    game = Game(6, 15, 17, 2)
    size = solution_bytes(game, "npz")
    path = tmp_path / "sol.npz"
    assert run(capsys, "solve", "--format", "npz", "--out", str(path))[2] == f"wrote {path}\n"
    monkeypatch.setattr(common, "ANNOUNCED_OUTPUT_BYTES", size - 1)
    began = []
    solve = solver.solve
    monkeypatch.setattr(solver, "solve", lambda *a, **k: began.append(
        capsys.readouterr().err) or solve(*a, **k))
    code, _, err = run(capsys, "solve", "--format", "npz", "--out", str(path))
    assert code == 0
    assert began == [f"note: writing {path}: up to {common.size_text(size)}\n"]  # before
    assert err == f"wrote {path}\n"


@pytest.mark.parametrize("answer, written", [("y\n", True), ("\n", False), ("no\n", False)])
def test_at_a_terminal_a_big_output_is_asked_for(capsys, tmp_path, monkeypatch, answer, written):
    from dicejack.cli import common

    monkeypatch.setattr(common, "LARGE_OUTPUT_BYTES", 1000)
    monkeypatch.setattr("sys.stdin", _Stdin(answer, tty=True))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    path = tmp_path / "sol.npz"
    code, _, err = run(capsys, "solve", "--format", "npz", "--out", str(path))
    assert "Write it? [y/N]" in err
    assert (code == 0) is written and path.exists() is written
    if not written:
        assert "not written" in err and "--force" in err


def test_size_estimates_are_close_upper_bounds(tmp_path):
    from dicejack.formats.learner_runs import save_run_npz
    from dicejack.formats.sizes import run_bytes, solution_bytes
    from dicejack.formats.tables import (
        learn_csv,
        learn_json,
        learn_text,
        solution_csv,
        solution_json,
        solution_text,
    )
    from dicejack.learners import handout

    game = Game(6, 60, 65, 4)
    sol = solver.solve(game)
    for fmt, text in (("text", solution_text(sol)), ("json", solution_json(sol)),
                      ("csv", solution_csv(sol))):
        actual = len(text.encode())
        assert actual <= solution_bytes(game, fmt) <= 1.6 * actual + 2**16, fmt
    run_ = handout.learn(game, 10.0, 3000, 1)
    for fmt, text in (("text", learn_text(run_)), ("json", learn_json(run_)),
                      ("csv", learn_csv(run_))):
        actual = len(text.encode())
        # counts as wide as NGAMES: an upper bound, loose for a short run (mostly zeros)
        assert actual <= run_bytes(game, fmt, 3000) <= 3 * actual + 2**16, fmt
    save_run_npz(tmp_path / "run.npz", run_)
    actual = (tmp_path / "run.npz").stat().st_size  # compressed: the estimate is a bound
    raw = run_.win.nbytes + run_.lose.nbytes
    assert actual <= raw <= run_bytes(game, "npz", 3000) <= raw + 2**16


def test_the_readmes_size_note_is_what_its_command_says():
    """Issue 46: the README's example note (it said 1.9 GiB where the tool says 1.8) is the
    note its command prints before the work: the estimate test_outputs_over_the_limit_need_force
    holds the printed note to."""
    import re
    from pathlib import Path

    from dicejack.cli import common
    from dicejack.formats.sizes import solution_bytes

    text = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    m = re.search(r"\(`dicejack solve --sides (\d+) --low (\d+) --high (\d+) --dice (\d+) "
                  r"--format npz --out big\.npz --force` first says `note: writing big\.npz: "
                  r"up to ([^`]+)`\)", text)
    assert m, "the README's size note and its command"
    game = Game(*map(int, m.groups()[:4]))
    assert m.group(5) == common.size_text(solution_bytes(game, "npz")) == "1.8 GiB"
