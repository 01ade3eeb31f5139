"""What a caller may show a jail beyond /usr (runtime.sandbox's `readonly` and `path`): a folder
bound read-only at its own path, its parents empty folders made for the mount (nothing else of
the host), a folder first on PATH in every mode; folders the jail owns are refused."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from dicejack.runtime import sandbox as sb
from tests.runtime.test_sandbox import MODES, PYTHON, jail  # noqa: F401 - the same jails

pytestmark = pytest.mark.skipif(not Path(PYTHON).exists(), reason="no /usr/bin/python3")


@pytest.fixture
def shown():
    """A folder every user may read (the jail's user is another when we are root), holding
    bin/hello and data.txt, beside a sibling folder the jail must not see."""
    parent = Path(tempfile.mkdtemp(prefix="dicejack-shown-", dir="/tmp"))
    os.chmod(parent, 0o755)
    folder = parent / "env"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "hello").write_text("#!/bin/sh\necho hello from the env\n")
    os.chmod(folder / "bin" / "hello", 0o755)
    (folder / "data.txt").write_text("shared\n")
    (parent / "sibling").mkdir()
    (parent / "sibling" / "secret.txt").write_text("no\n")
    for path in (folder, folder / "bin", parent / "sibling"):
        os.chmod(path, 0o755)
    for path in (folder / "data.txt", parent / "sibling" / "secret.txt"):
        os.chmod(path, 0o644)
    yield folder
    shutil.rmtree(parent, ignore_errors=True)


def test_a_folder_is_shown_read_only_at_its_own_path_and_nothing_beside_it(shown):
    code = (
        "import os, sys\n"
        "env = sys.argv[1]\n"
        "print(open(os.path.join(env, 'data.txt')).read().strip())\n"
        "print(sorted(os.listdir(os.path.dirname(env))))\n"
        "print(sorted(os.listdir('/')))\n"
        "try:\n"
        "    open(os.path.join(env, 'new.txt'), 'w')\n"
        "    print('wrote')\n"
        "except OSError:\n"
        "    print('read-only')\n")
    if not sb.probe_mode("bwrap"):
        pytest.skip("bubblewrap does not work here")
    r = sb.run_jailed(jail("bwrap"), [PYTHON, "-c", code, str(shown)], readonly=[shown])
    assert r.ok, r.stderr
    lines = r.stdout.decode().splitlines()
    assert lines[0] == "shared" and lines[1] == "['env']" and lines[3] == "read-only"
    top = eval(lines[2])  # noqa: S307 - our own program's printout
    assert "root" not in top and "home" not in top


@pytest.mark.parametrize("mode", MODES)
def test_a_folder_first_on_path_is_found_first(mode, shown):
    r = sb.run_jailed(jail(mode), ["hello"], readonly=[shown], path=[str(shown / "bin")])
    assert r.ok and r.stdout == b"hello from the env\n", r.stderr
    r = sb.run_jailed(jail(mode), ["/bin/sh", "-c", 'echo "$PATH"'], path=["/opt/x/bin"])
    assert r.stdout.decode().startswith("/opt/x/bin:/usr/local/bin:")


def test_nothing_is_shown_unless_asked(shown):
    if not sb.probe_mode("bwrap"):
        pytest.skip("bubblewrap does not work here")
    r = sb.run_jailed(jail("bwrap"), ["/bin/sh", "-c", f"ls {shown.parent} || echo absent"])
    assert b"absent" in r.stdout and b"env" not in r.stdout


@pytest.mark.parametrize("where", ["/", "/proc/self", "/dev", "/no/such/folder"])
def test_the_jails_own_folders_and_missing_ones_are_refused(where):
    with pytest.raises(sb.SandboxError, match="cannot show"):
        sb.check_readonly([Path(where)])


def test_folders_under_usr_are_visible_already():
    assert sb.check_readonly([Path("/usr/bin")]) == ()
