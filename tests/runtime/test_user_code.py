"""The user's own Python named as MODULE:NAME: loaded once per file, errors in one line."""

from __future__ import annotations

import pytest

from dicejack.runtime import user_code


def test_a_file_is_loaded_once_and_two_files_of_one_name_stay_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "agent.py").write_text("class Agent:\n    home = 'a'\n")
    (tmp_path / "b" / "agent.py").write_text("class Agent:\n    home = 'b'\n")
    first = user_code.load_object("a/agent.py:Agent", "--learner")
    assert first.home == "a"
    assert user_code.load_object("a/agent.py:Agent", "--learner") is first
    assert user_code.load_object(str(tmp_path / "a" / "agent.py") + ":Agent", "--x") is first
    assert user_code.load_object("b/agent.py:Agent", "--learner").home == "b"


def test_a_module_on_the_current_folder_is_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "my_policy_mod.py").write_text("def choose(x, y):\n    return 1\n")
    assert user_code.load_object("my_policy_mod:choose", "--policy")(0, 0) == 1


@pytest.mark.parametrize("spec, message", [
    ("nocolon", "--learner 'nocolon': give MODULE:NAME, e.g. my_agent:MyLearner or "
                "agent.py:MyLearner"),
    ("agent.py:", "--learner 'agent.py:': give MODULE:NAME"),
    ("agent.py:1x", "--learner 'agent.py:1x': give MODULE:NAME"),
    ("absent.py:A", "--learner: no file absent.py"),
    ("broken.py:A", "--learner: importing broken.py failed: ZeroDivisionError: division by zero"),
    ("fine.py:Missing", "--learner: fine.py has no Missing"),
    ("no_such_module_here:A", "--learner: importing no_such_module_here failed: "
                              "ModuleNotFoundError"),
])
def test_what_cannot_be_had_is_one_line(tmp_path, monkeypatch, spec, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("x = 1 / 0\n")
    (tmp_path / "fine.py").write_text("A = 1\n")
    with pytest.raises(user_code.UserCodeError) as info:
        user_code.load_object(spec, "--learner")
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
    assert user_code.is_spec(spec) == (":" in spec)
