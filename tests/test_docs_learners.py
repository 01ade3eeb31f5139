"""docs/learners.md stays true: its Python runs (fewer games), its commands run, its tables name
every bundled learner and parameter with its default, and what it quotes is what dicejack
prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dicejack import learners
from dicejack.cli import main
from dicejack.learners.base import format_value
from dicejack.learners.catalogue import parameters

DOC = Path(__file__).resolve().parent.parent / "docs" / "learners.md"
TEXT = DOC.read_text()


def blocks(language: str) -> list[str]:
    """The doc's fenced code blocks of `language` ('' for the unlabelled ones), in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", TEXT, flags=re.M | re.S)


def fewer_games(code: str) -> str:
    """Every game count written with underscores (100_000) divided by 10 or more, so that the
    doc's examples run in about a second; checkpoints shrink with them."""
    smaller = {"1_000": "200", "10_000": "1_000", "20_000": "2_000", "100_000": "3_000",
               "200_000": "5_000"}

    def swap(match: re.Match) -> str:
        if match.group(0) not in smaller:
            raise AssertionError(f"docs/learners.md: no smaller count for {match.group(0)}")
        return smaller[match.group(0)]

    return re.sub(r"\b\d{1,3}(?:_\d{3})+\b", swap, code)


def test_the_python_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the examples save q.npz
    code = blocks("python")
    assert len(code) == 4
    namespace: dict = {}
    for block in code:
        exec(compile(fewer_games(block), str(DOC), "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    assert "mc-average epsilon=0.2 seed=1 games=2000" in out
    assert "{'alpha': 0.1, 'epsilon_decay': inf}" in out
    assert namespace["again"].label == namespace["longer"].label
    assert (tmp_path / "q.npz").exists()


def test_the_custom_agent_is_about_30_lines():
    agent = next(b for b in blocks("python") if "class MonteCarloAverage" in b)
    body = agent[agent.index("class MonteCarloAverage"):]
    lines = [line for line in body.splitlines() if line.strip()]
    assert len(lines) <= 36


def test_the_commands_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    commands = [line.split(" #")[0].split() for line in blocks("")[0].splitlines()]
    assert len(commands) == 7
    for words in commands:
        assert words[0] == "dicejack"
        args = words[1:]
        if "--games" in args:
            at = args.index("--games") + 1
            args[at] = str(int(args[at]) // 50)  # 100000 -> 2000, 200000 -> 4000
        code = main(args)
        _, err = capsys.readouterr()
        assert code == 0, (args, err)
    assert (tmp_path / "ucb.npz").exists()


def test_the_quoted_header_and_error_are_what_dicejack_prints(capsys):
    quoted = next(b for b in blocks("") if b.startswith("# learned")).strip()
    code = main(["learn", "--learner", "ucb", "--param", "c=0.5", "--games", "100000"])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[0] == quoted
    with pytest.raises(learners.LearnerError) as caught:
        learners.parse_params("q-learning", ["alpha=2"])
    assert f"`error: {caught.value}`" in " ".join(TEXT.split())


def test_every_learner_and_parameter_is_documented_with_its_default():
    rows = {line.split("`")[1]: line for line in TEXT.splitlines() if line.startswith("| `")}
    assert list(rows) == list(learners.NAMES)
    for name in learners.NAMES:
        row = rows[name]
        params = parameters(name)
        if not params:
            assert row.rstrip(" |").endswith("none")
        for p in params:
            shown = re.search(rf"`{p.name}` \((`?)([^`,)]+)", row)
            assert shown, (name, p.name)
            assert shown.group(2) == format_value(p.default), (name, p.name)
        assert f"**{name}**" in TEXT
    assert "epsilon_g = max(epsilon_min, epsilon / (1 + g / epsilon_decay))" in TEXT
    from dicejack.learners import reference

    assert reference.epsilon_at(9_000, 1.0, 0.1, 1000.0) == pytest.approx(0.1)
    assert reference.epsilon_at(8_000, 1.0, 0.1, 1000.0) > 0.1
    assert "(environment.md)" in TEXT and (DOC.parent / "environment.md").exists()


def test_the_own_learner_report_command_runs_with_the_documented_class(tmp_path, monkeypatch,
                                                                        capsys):
    # The doc's MonteCarloAverage saved as the file its report command names, then that command
    # (on a small game, few games and seeds): the class is a curve of the report.
    monkeypatch.chdir(tmp_path)
    agent = next(b for b in blocks("python") if "class MonteCarloAverage" in b)
    (tmp_path / "mc_average.py").write_text(agent)
    command = next(line for block in blocks("") for line in block.splitlines()
                   if "mc_average.py:MonteCarloAverage" in line)
    args = command.split()[1:] + ["--sides", "3", "--low", "6", "--high", "7", "--games",
                                  "10,30", "--seeds", "2", "--workers", "1"]
    assert main(args) == 0, capsys.readouterr().err
    report_md = (tmp_path / "reports" / "learners-s3-l6-h7-d2" / "report.md").read_text()
    assert "mc_average.py:MonteCarloAverage epsilon=0.3" in report_md
