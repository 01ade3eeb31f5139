"""The jail's promise as a property: whatever a submission's build and run do (any mix of links,
special files, searches and prints, drawn by hypothesis), no byte of the grader's environment
or of a classmate's files appears in any output of the batch, the classmate is graded, and no
process of the batch outlives it. Each example is a real batch
(bubblewrap, a build, a run), so the examples are few and each is a hostile mix."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicejack.runtime import tree
from tests.hostile import test_hostile_jail as jail

#: What a hostile build or run may do (shell; {i} numbers the step).
ACTIONS = (
    "ln -s /proc/self/environ e{i}",
    "ln -s /proc/1/environ p{i}",
    "ln -s /proc/self/cwd c{i}",
    "ln -s ../../.. u{i}",
    "ln -s / r{i}",
    "ln -s /dev/zero z{i}",
    "mkfifo f{i}",
    "cp /bin/sh s{i} && chmod 6755 s{i}",
    "env",
    "cat /proc/self/environ /proc/1/environ e* p*",
    "cat c*/* u*/*/*/notes.txt r*/tmp/*/*/notes.txt",
    "ls -laR .. /tmp",
    "grep -r -a -l -e classmate-answer -e grader-secret /tmp /work /.dicejack /etc /dev .. "
    "2>/dev/null | head -5",
    "find / -xdev -name '*.txt' 2>/dev/null | head -20 | xargs cat",
    "mkdir -p d{i}/d/d/d/d && ln -s /proc/self/environ d{i}/d/d/d/d/e",
    "head -c 100000 z* | wc -c",
)
STEPS = st.lists(st.sampled_from(ACTIONS), min_size=1, max_size=6)


def _script(steps: list[str], tail: str) -> str:
    body = "\n".join(f"{s.format(i=i)} 2>&1 | tee -a /dev/stderr" if " " in s else s
                     for i, s in enumerate(steps))
    return f"{body}\n{tail}\n"


@pytest.fixture(scope="module", autouse=True)
def _shared_cache(tmp_path_factory):
    jail._CACHE[:] = [tmp_path_factory.mktemp("refs")]
    yield
    jail._CACHE.clear()


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(build=STEPS, run=STEPS)
def test_nothing_of_the_grader_or_a_classmate_leaves_the_jail(tmp_path_factory, monkeypatch,
                                                              build, run):
    tmp = tmp_path_factory.mktemp("batch")
    root = tmp / "class"
    try:
        attacker = jail._shell_program(root, _script(build, "true"), _script(run, "exit 1"))
        rows, written = jail._batch(tmp, attacker, monkeypatch,
                                    languages={"shellbuild": jail.SHELL})
        jail._assert_contained(rows, written, "attacker")  # the classmate graded, unharmed
    finally:
        tree.remove_tree(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
