"""The Python that student programs run on (`grade --run --python`): an environment of the system's
own interpreter (/usr/bin/python3, the one the jail shows) with the packages student programs
import, built once, cached, and shown read-only to Python programs' jails at its own path, its
bin first on their PATH; or the system's python3 alone (``system``); or a class's own
environment (a folder) or requirements file.

The default packages (:data:`DEFAULT_PACKAGES`): numpy, which most student programs of this
assignment import (8 of 13 real Python submissions died on ``import numpy`` without it);
colorama (another of them needed it), tabulate and tqdm (printing the two tables, a progress bar
over NGAMES games): small, pure Python, common in such programs. Nothing heavier (scipy, pandas,
matplotlib: tens of MB each, and none of those programs needed them): a class that does gives a
requirements file. The versions are whatever the package index had when the environment was
built; the batch header and runs.html name them.

The environment never holds dicejack (it is made with ``venv --without-pip`` from the system's
interpreter, not dicejack's, and an environment a student program could import dicejack from is
refused). Built under $DICEJACK_CACHE/python, else /var/cache/dicejack/python when dicejack runs
as root (the jail's user, nobody, must reach the folder: root's home is closed to it), else
$XDG_CACHE_HOME/dicejack/python or ~/.cache/dicejack/python; one folder per key (a hash of the
requirements and the system interpreter's version). A build happens in a temporary folder,
under a lock, and is renamed into place when complete: concurrent batches build it once.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dicejack.formats.escape import safe_text
from dicejack.grade.settings import GradeError
from dicejack.runtime import sandbox as sb
from dicejack.runtime import tree

__all__ = ["StudentPython", "DEFAULT_PACKAGES", "SYSTEM_PYTHON", "MARKER", "cache_root",
           "environment_for", "default_python", "system_python", "folder_python",
           "resolve_python"]

#: The interpreter every environment is made from: the one the jail shows (under /usr).
SYSTEM_PYTHON = Path("/usr/bin/python3")
#: What the default environment holds (the module's docstring says why these).
DEFAULT_PACKAGES = ("numpy", "colorama", "tabulate", "tqdm")
#: Written last into a built environment: what it was built from and what it holds.
MARKER = "dicejack-env.json"
#: Changes the key of every environment when the way they are built changes.
_FORMAT = "1"
#: How to choose another Python, said when one cannot be had.
_HINT = ("give --python system (the system's python3 alone), a Python environment's folder or "
         "a requirements file")
#: Listed in a description before "and N more".
_SHOWN = 12
#: Run inside the jail: the interpreter, its packages, whether dicejack can be imported.
_PROBE = """\
import importlib.metadata as md, importlib.util as u, json, sys
seen = {}
for d in md.distributions():
    name = d.metadata["Name"]
    if name:
        seen.setdefault(name.lower(), (name, d.version))
print(json.dumps({"version": sys.version.split()[0], "executable": sys.executable,
                  "packages": sorted(seen.values(), key=lambda p: p[0].lower()),
                  "dicejack": u.find_spec("dicejack") is not None}))
"""


@dataclass(frozen=True)
class StudentPython:
    """The Python student programs run on: the environment's folder (None: the system's
    python3 alone), its python executable as the jail sees it, and one line naming it and its
    packages with their versions (the batch header's ``python:`` line)."""

    folder: Path | None
    python: str
    description: str

    @property
    def readonly(self) -> tuple[Path, ...]:
        """The folders a Python program's jail is shown (read-only, at their own paths)."""
        return () if self.folder is None else (self.folder,)

    @property
    def path(self) -> tuple[str, ...]:
        """The folders first on a Python program's PATH (its python3 and python)."""
        return () if self.folder is None else (str(Path(self.python).parent),)


def cache_root() -> Path:
    """Where built environments are kept (the module's docstring)."""
    root = os.environ.get("DICEJACK_CACHE")
    if root:
        return Path(root) / "python"
    if os.geteuid() == 0:
        return Path("/var/cache/dicejack/python")
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "dicejack" / "python"


@lru_cache(maxsize=1)
def _system_version() -> str:
    """The system interpreter's implementation, version and machine (part of the key)."""
    if not SYSTEM_PYTHON.exists():
        raise GradeError(f"there is no {SYSTEM_PYTHON}, the Python the jail shows: install "
                         "python3, or give --python a Python environment's folder")
    code = "import platform, sys; print(sys.implementation.name, sys.version, platform.machine())"
    try:
        out = subprocess.run([str(SYSTEM_PYTHON), "-I", "-c", code], capture_output=True,
                             text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise GradeError(f"{SYSTEM_PYTHON} does not run ({exc})") from None
    return " ".join(out.split())


def _key(requirements: str) -> str:
    text = "\n".join([_FORMAT, _system_version(), requirements.strip()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _quiet_env() -> dict[str, str]:
    """The environment for venv and pip: ours without what would point them elsewhere (the
    package index settings, PIP_INDEX_URL and the like, are kept)."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "VIRTUAL_ENV", "PIP_TARGET",
            "PIP_PREFIX", "PIP_USER", "PIP_REQUIRE_VIRTUALENV", "PIP_PYTHON")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _umask() -> None:  # the environment must be readable by the jail's user
    os.umask(0o022)


def _run(argv: list[str], timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          env=_quiet_env(), preexec_fn=_umask, stdin=subprocess.DEVNULL)


def _said(proc: subprocess.CompletedProcess) -> str:
    """pip's last error line (or its last line)."""
    lines = [line.strip() for line in (proc.stderr or proc.stdout or "").splitlines()
             if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return safe_text((errors or lines or ["no message"])[-1][:300])


def _our_pip() -> bool:
    """Can dicejack's own pip install into another interpreter (pip --python, pip >= 22.3)?"""
    try:
        from importlib.metadata import version

        major, minor = (int(p) for p in version("pip").split(".")[:2])
    except Exception:  # noqa: BLE001 - no pip, or a version we cannot read
        return False
    return (major, minor) >= (22, 3)


def _install(env: Path, requirements: Path) -> subprocess.CompletedProcess | None:
    """Install the requirements into `env` with pip (dicejack's own, run for env's interpreter;
    else a pip put into the environment for the install and removed afterwards). None when
    there is nothing to install."""
    wanted = [line for line in requirements.read_text().splitlines()
              if line.strip() and not line.strip().startswith("#")]
    if not wanted:
        return None
    python = str(env / "bin" / "python3")
    options = ["install", "--no-input", "--disable-pip-version-check", "--quiet",
               "--retries", "1", "--timeout", "20", "-r", str(requirements)]
    if _our_pip():
        return _run([sys.executable, "-m", "pip", "--python", python, *options])
    made = _run([python, "-m", "ensurepip", "--default-pip"])
    if made.returncode != 0:
        return made
    done = _run([python, "-m", "pip", *options])
    _run([python, "-m", "pip", "uninstall", "--yes", "--quiet", "pip", "setuptools"])
    return done


def _relocate(built: Path, final: Path) -> None:
    """Point the scripts and activation files of an environment built at `built` at `final`
    (the interpreter finds its environment from where it is; only these name the folder)."""
    old, new = str(built).encode(), str(final).encode()
    for path in [*sorted((built / "bin").iterdir()), built / "pyvenv.cfg"]:
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if old in data:
            path.write_bytes(data.replace(old, new))


def _open_to_all(folder: Path) -> None:
    """Every folder of the environment passable and every file readable by any user (the
    jail's user is not its owner)."""
    for root, dirs, names in os.walk(folder):
        for name in (*dirs, *names):
            path = os.path.join(root, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode):
                os.chmod(path, stat.S_IMODE(mode) | 0o555)
            elif stat.S_ISREG(mode):
                os.chmod(path, stat.S_IMODE(mode) | 0o444)
    os.chmod(folder, 0o755)


def _make_folders(root: Path) -> None:
    """The cache folder and its missing parents, passable by every user."""
    missing = [p for p in (root, *root.parents) if not p.exists()]
    root.mkdir(parents=True, exist_ok=True)
    for path in missing:
        os.chmod(path, 0o755)


def environment_for(requirements: str, *, root: Path | None = None, what: str = "",
                    notify: Callable[[str], None] | None = None) -> Path:
    """The folder of an environment of the system's python3 with `requirements` (the text of a
    requirements file) installed: the cached one, else built now (once, whatever runs
    concurrently). `what` names the requirements in messages; `notify` gets a line before and
    after a build. GradeError (one line) when it cannot be built."""
    root = cache_root() if root is None else root
    key = _key(requirements)
    final = root / key
    if (final / MARKER).is_file():
        return final
    try:
        _make_folders(root)
        with open(root / f".{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if (final / MARKER).is_file():  # built by another batch while we waited
                return final
            _build(requirements, final, what, notify)
    except OSError as exc:
        raise GradeError(f"cannot build the student Python environment in {root}: "
                         f"{exc.strerror or exc}; {_HINT}") from None
    return final


def _build(requirements: str, final: Path, what: str,
           notify: Callable[[str], None] | None) -> None:
    """Build the environment in a temporary folder beside `final`, then rename it (the caller
    holds the lock)."""
    work = final.with_name(f".{final.name}.building")
    if work.exists() or work.is_symlink():  # a build that was stopped
        tree.remove_tree(work)
    what = what or "the default packages"
    if notify is not None:
        notify(f"python: building the student Python environment ({what}) in {final}, once; "
               "later batches reuse it")
    began = time.monotonic()
    try:
        made = _run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(work)], 300)
        if made.returncode != 0:
            raise GradeError(f"cannot make a Python environment with {SYSTEM_PYTHON} -m venv: "
                             f"{_said(made)}; {_HINT}")
        wanted = work / "dicejack-requirements.txt"
        wanted.write_text(requirements.strip() + "\n")
        done = _install(work, wanted)
        if done is not None and done.returncode != 0:
            raise GradeError(f"pip cannot install {what} for the student programs' Python "
                             f"({_said(done)}); is the package index reachable? Or {_HINT}")
        _relocate(work, final)
        _open_to_all(work)
        listed = _run([str(work / "bin" / "python3"), "-I", "-c", _PROBE], 120)
        if listed.returncode != 0:
            raise GradeError(f"the new Python environment does not start: {_said(listed)}")
        facts = json.loads(listed.stdout)
        facts.update(executable=str(final / "bin" / "python3"), requirements=requirements,
                     seconds=round(time.monotonic() - began, 1),
                     built=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        (work / MARKER).write_text(json.dumps(facts, indent=1) + "\n")
        os.chmod(work / MARKER, 0o644)
        os.rename(work, final)
    except subprocess.TimeoutExpired:  # pragma: no cover - pip stuck for half an hour
        tree.remove_tree(work)
        raise GradeError(f"building the student Python environment took too long; {_HINT}"
                         ) from None
    except BaseException:
        if work.exists():
            tree.remove_tree(work)
        raise
    if notify is not None:
        notify(f"python: built in {time.monotonic() - began:.0f} s")


def _describe(where: str, facts: dict) -> str:
    packages = [f"{name} {version}" for name, version in facts.get("packages", [])]
    shown = ", ".join(packages[:_SHOWN]) + (f" and {len(packages) - _SHOWN} more"
                                             if len(packages) > _SHOWN else "")
    return safe_text(f"{where} (Python {facts.get('version', '?')}): "
                     + (f"the standard library and {shown}" if shown else
                        "the standard library only"))


def _probe(sandbox: sb.Sandbox, folder: Path | None, python: str) -> dict:
    """What the Python a jail shows says of itself (run in such a jail)."""
    readonly = () if folder is None else (folder,)
    path = () if folder is None else (str(Path(python).parent),)
    limits = sb.Limits(cpu_seconds=60, wall_seconds=120.0, memory_bytes=2 << 30)
    try:
        result = sb.run_jailed(sandbox, [python, "-I", "-c", _PROBE], readonly=readonly,
                               path=path, limits=limits)
    except (OSError, sb.SandboxError) as exc:
        raise GradeError(f"cannot start Python in the jail: {exc}") from None
    try:
        facts = json.loads(result.stdout) if result.ok else None
    except ValueError:
        facts = None
    if not isinstance(facts, dict):
        raise GradeError(f"{python} does not start in the jail ({safe_text(result.why())}); "
                         f"{_HINT}")
    if facts.get("dicejack"):
        raise GradeError(f"{folder or python} holds dicejack: student programs could import "
                         f"the grader; {_HINT} without it")
    return facts


def _reachable(folder: Path) -> None:
    """When dicejack runs as root, the jail's user is another (nobody, or a run's own): every
    folder on the way to `folder` must let other users through."""
    if os.geteuid() != 0:
        return
    for path in (*reversed(folder.parents), folder):
        mode = path.stat().st_mode
        if not mode & stat.S_IXOTH or (path == folder and not mode & stat.S_IROTH):
            raise GradeError(f"the jail's user cannot reach {folder}: {path} is closed to other "
                             f"users (mode {stat.S_IMODE(mode):04o}); move the environment "
                             "where every user can read it (e.g. under /opt)")


def system_python(sandbox: sb.Sandbox) -> StudentPython:
    """The system's python3 alone (what the jail shows under /usr)."""
    facts = _probe(sandbox, None, str(SYSTEM_PYTHON))
    return StudentPython(None, str(SYSTEM_PYTHON),
                         _describe(f"system {SYSTEM_PYTHON}", facts))


def folder_python(folder: Path, sandbox: sb.Sandbox, *, label: str | None = None
                  ) -> StudentPython:
    """A Python environment the instructor built (a venv, or a prefix with bin/python3): shown
    read-only at its own path. GradeError (one line) when the jail cannot run it."""
    folder = Path(os.path.realpath(folder))
    python = folder / "bin" / "python3"
    if not python.exists():
        raise GradeError(f"--python {folder} is not a Python environment (no bin/python3 in "
                         f"it); {_HINT}")
    home = _venv_home(folder)  # a venv's interpreter is elsewhere; a prefix's is its own
    target = Path(os.path.realpath(python))
    runs = home if home is not None else target.parent
    if not (runs == Path("/usr") or Path("/usr") in runs.parents or (
            home is None and folder in target.parents)):
        raise GradeError(f"--python {folder} runs the python3 of {runs}, which the jail does "
                         f"not show (only /usr): make it with {SYSTEM_PYTHON} -m venv, or give a "
                         "requirements file")
    try:
        sb.check_readonly([folder])
    except sb.SandboxError as exc:
        raise GradeError(f"--python {folder}: {exc}") from None
    _reachable(folder)
    facts = _probe(sandbox, folder, str(python))
    return StudentPython(folder, str(python), _describe(label or str(folder), facts))


def _venv_home(folder: Path) -> Path | None:
    """The `home` of a venv's pyvenv.cfg (the interpreter's folder), None when not a venv."""
    cfg = folder / "pyvenv.cfg"
    if not cfg.is_file():
        return None
    for line in cfg.read_text(errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home":
            return Path(os.path.realpath(value.strip()))
    return None


def default_python(sandbox: sb.Sandbox, *, root: Path | None = None,
                   notify: Callable[[str], None] | None = None) -> StudentPython:
    """The default: an environment with :data:`DEFAULT_PACKAGES` (built once, then cached)."""
    folder = environment_for("\n".join(DEFAULT_PACKAGES), root=root,
                             what=", ".join(DEFAULT_PACKAGES), notify=notify)
    return folder_python(folder, sandbox, label=f"default environment {folder}")


def resolve_python(spec: str | None, sandbox: sb.Sandbox, *,
                   notify: Callable[[str], None] | None = None) -> StudentPython:
    """--python's SPEC: None (the default environment), ``system``, a Python environment's
    folder, or a requirements file (an environment built from it, once, then cached)."""
    if spec is None:
        return default_python(sandbox, notify=notify)
    if spec.strip() == "system":
        return system_python(sandbox)
    path = Path(spec).expanduser()
    if path.is_dir():
        return folder_python(path, sandbox)
    if path.is_file():
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise GradeError(f"--python {safe_text(spec)}: cannot read it ({exc})") from None
        folder = environment_for(text, what=f"the requirements of {path}", notify=notify)
        return folder_python(folder, sandbox, label=f"environment of {path} in {folder}")
    raise GradeError(f"--python takes system, a Python environment's folder or a requirements "
                     f"file; {safe_text(spec)!r} is none of them (no such file or folder)")
