"""Running an untrusted program in a jail and bringing back nothing but what it printed: a fresh
folder of its own, a cleared environment, limits on the whole jail, a wall-clock timeout that
ends everything it started, output capped while it is read, and no network.

The jail is bubblewrap unless the caller names a weaker one (:func:`choose_sandbox`); a weaker
jail is never chosen silently:

- ``bwrap`` (bubblewrap): every namespace unshared (no network, own users, own process tree,
  own hostname, no further user namespaces), /usr and a few /etc entries read-only, the run's
  folder ``/work`` and ``/tmp`` two size-capped memory file systems private to this jail. The
  first process of the jail is bubblewrap's own, which the program cannot change: when the
  program ends, or the grader kills the jail, that process dies and the kernel kills every
  process of the jail with it, whatever they did to their signals or sessions. The program's
  starting files (``source``) are bound read-only at ``/.dicejack/src`` and copied into
  ``/work`` *inside* the jail, so a link among them can only lead to the jail's own files.
- ``unshare`` (util-linux; only when the caller asks for it): no network, own process tree
  (its first process a shell the program cannot change), but **the host's files stay
  visible**: as root each run is a user of its own (``RUN_UIDS``), as an ordinary user the
  program runs as you;
- ``none`` (only when the caller asks for it): the limits below and nothing else.

A caller may show the jail more of the host: folders bound read-only at their own path
(``readonly``, e.g. a Python environment for the programs) and folders put first on the jail's
PATH (``path``); in the weaker jails the host's files are visible anyway, and only the PATH
changes. Nothing else of the host becomes visible: a bound folder's parents inside the jail are
empty folders made for the mount.

Limits: per process (set in the child before it executes): CPU time, address space, file size,
open files; per jail: processes (``prlimit`` inside the jail, where the kernel counts that
jail's processes only) and, where this machine has writable control groups
(:mod:`dicejack.runtime.cgroups`), memory with the jail's memory file systems included, an equal
CPU share of at most one CPU, and processes again; ``RunResult.reason`` says which limit ended a
run. Builds take their result out the same way a run does: as output (a tar stream of the
folder, :data:`EXPORT`), read by the caller with :func:`dicejack.runtime.tree.extract_tar`.
Plumbing only: what is run, and what its output means, is the caller's. This module is the
face: the types are :mod:`dicejack.runtime.jail_types`'s, running the one process to its end
:mod:`dicejack.runtime.jail_process`'s.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from dicejack.runtime import cgroups, tree
from dicejack.runtime.jail_process import jails_cpu_seconds, limiter, run_process
from dicejack.runtime.jail_types import Limits, RunResult, Sandbox, SandboxError

__all__ = ["MODES", "SandboxError", "Limits", "Sandbox", "RunResult", "choose_sandbox",
           "probe_mode", "run_jailed", "jailed_command", "private_folder", "NOBODY", "RUN_UIDS",
           "INSTALL_HINT", "jails_cpu_seconds", "check_readonly", "check_collect", "collected"]

#: Sandbox modes, strongest first.
MODES = ("bwrap", "unshare", "none")
#: The unprivileged user a root parent drops to in bubblewrap (uid, gid).
NOBODY = (65534, 65534)
#: Users of the weaker jails when dicejack runs as root: each run gets the next one, so that no
#: run can touch another's folder (they are not in /etc/passwd; nothing else uses them).
RUN_UIDS = range(1_500_000_000, 1_500_000_000 + 1_000_000)
#: What the run's folder is called inside the bwrap jail, and where its starting files are.
JAIL_DIR = "/work"
JAIL_SRC = "/.dicejack/src"
#: /etc entries bound read-only in the bwrap jail (those that exist): the dynamic linker's cache
#: and the alternatives links (java, javac), a JDK's configuration, locale and time zone data.
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime",
               "java-17-openjdk", "java-21-openjdk", "java-11-openjdk", "ssl/certs")
#: Environment every run gets (and nothing else).
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
#: How to get bubblewrap, said when it is missing.
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install "
                "bubblewrap; Arch: pacman -S bubblewrap)")
#: The shell line that runs a command with its standard output sent to standard error, then
#: writes the folder as a tar stream on standard output (a build's way out of the jail).
EXPORT = '"$@" 1>&2 && exec tar --format=gnu -cf - .'
#: The shell line of a run whose printout is files of its folder (`collect`): the command's
#: standard output goes to standard error, then the named files (those there) come back as a
#: tar stream on standard output; the exit status is the command's.
COLLECT = ('"$@" 1>&2; rc=$?; set --; for f in $COLLECT_NAMES; do [ -f "$f" ] && set -- "$@" '
           '"$f"; done; [ $# -gt 0 ] && tar --format=gnu -cf - -- "$@"; exit $rc')
_COLLECT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _works(cmd: Sequence[str], run_as: tuple[int, int] | None, cwd: str) -> bool:
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                           env=dict(BASE_ENV), preexec_fn=_dropper(run_as), cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0 and r.stdout.strip() == b"ok"


def _dropper(run_as: tuple[int, int] | None):  # noqa: ANN202 - a preexec function or None
    if run_as is None:
        return None
    uid, gid = run_as

    def drop() -> None:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)

    return drop


def _is_root() -> bool:
    return os.geteuid() == 0


def probe_mode(mode: str) -> bool:
    """Does `mode` work on this machine (its tool installed and the kernel allowing it)?"""
    if mode == "none":
        return True
    if mode not in MODES or shutil.which(mode) is None:
        return False
    run_as = NOBODY if _is_root() else None
    with tempfile.TemporaryDirectory(prefix="dicejack-probe-") as tmp:
        os.chmod(tmp, 0o755)
        if mode == "bwrap":
            cmd = [*_bwrap_prefix(Limits(), Path(tmp)), "/bin/sh", "-c", "echo ok"]
        else:
            cmd = [*_unshare_prefix(), "/bin/sh", "-c", "echo ok"]
        return _works(cmd, run_as, tmp)


def choose_sandbox(weaker: str | None = None) -> Sandbox:
    """Bubblewrap when it works here; otherwise the `weaker` jail the caller accepts
    (``unshare`` or ``none``), when it works; otherwise SandboxError naming how to install
    bubblewrap and the option that accepts a weaker jail. A weaker jail is never chosen
    without being named."""
    if weaker is not None and weaker not in MODES[1:]:
        raise SandboxError(f"the weaker sandbox must be one of {', '.join(MODES[1:])}, got "
                           f"{weaker!r}")
    grouped, how = cgroups.support()
    if probe_mode("bwrap"):
        return Sandbox("bwrap", _describe("bwrap", grouped, how), NOBODY if _is_root() else None,
                       grouped)
    if weaker is None:
        raise SandboxError(
            f"bubblewrap does not work on this machine (not installed, or user namespaces are "
            f"off): {INSTALL_HINT}, or accept a weaker jail with --unsafe-sandbox unshare "
            f"(the host's files stay readable) or --unsafe-sandbox none (limits only)")
    if not probe_mode(weaker):
        raise SandboxError(f"bubblewrap does not work on this machine and neither does the "
                           f"{weaker} jail: {INSTALL_HINT}")
    return Sandbox(weaker, _describe(weaker, grouped, how), None, grouped)


def _describe(mode: str, grouped: bool, how: str) -> str:
    bounds = (f"memory, CPU share and processes capped per jail ({how})" if grouped else
              f"memory capped per process only ({how})")
    jail = {
        "bwrap": "bubblewrap: no network, own process tree, only /usr (read-only) and the run's "
                 "own size-capped folder visible",
        "unshare": "UNSHARE (--unsafe-sandbox unshare): no network, own process tree; the "
                   "host's files stay readable" + ("" if _is_root() else
                                                   ", and writable as you"),
        "none": "NONE (--unsafe-sandbox none): network and the host's files reachable",
    }[mode]
    return f"{jail}; {bounds}; a wall-clock timeout"


#: Where a folder bound read-only cannot be: the jail's own folders (a folder there would be the
#: program's, or hide its files) and the file systems bubblewrap makes.
_JAIL_OWN = (JAIL_DIR, str(Path(JAIL_SRC).parent), "/proc", "/dev")


def check_readonly(folders: Sequence[Path]) -> tuple[Path, ...]:
    """The folders to bind read-only into a jail, as absolute paths, with links resolved; those
    under /usr (visible already) left out. SandboxError (one line) for a folder that does not
    exist, is the root, or is within the jail's own folders (/work, /.dicejack, /proc, /dev)."""
    out: list[Path] = []
    for folder in folders:
        path = Path(os.path.realpath(folder))
        if not path.is_dir():
            raise SandboxError(f"cannot show {folder} to the jail: not a folder")
        if path == Path("/") or any(path == Path(own) or Path(own) in path.parents
                                    for own in _JAIL_OWN):
            raise SandboxError(f"cannot show {folder} to the jail: it would be at / or within "
                               f"the jail's own folders ({', '.join(_JAIL_OWN)})")
        if path == Path("/usr") or Path("/usr") in path.parents:
            continue
        out.append(path)
    return tuple(out)


def _jail_env(home: str, path: Sequence[str]) -> dict[str, str]:
    """The environment of a jail's program: BASE_ENV with `path` first on PATH, and HOME."""
    return {**BASE_ENV, "PATH": ":".join([*path, BASE_ENV["PATH"]]), "HOME": home}


def _bwrap_prefix(limits: Limits, source: Path | None, readonly: Sequence[Path] = (),
                  path: Sequence[str] = ()) -> list[str]:
    cmd = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
           "--new-session", "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin"):
        target = Path("/") / name
        if target.is_symlink():
            cmd += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            cmd += ["--ro-bind", str(target), str(target)]
    for entry in ETC_ENTRIES:
        etc = Path("/etc") / entry
        if etc.exists():
            cmd += ["--ro-bind", str(etc), str(etc)]
    size = str(limits.disk_bytes)
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", size, "--tmpfs", "/tmp",
            "--perms", "0700", "--size", size, "--tmpfs", JAIL_DIR]
    for folder in check_readonly(readonly):
        cmd += ["--ro-bind", str(folder), str(folder)]
    if source is not None:
        cmd += ["--ro-bind", str(source), JAIL_SRC]
    cmd += ["--chdir", JAIL_DIR, "--clearenv"]
    for key, value in {**_jail_env(JAIL_DIR, path), "TMPDIR": "/tmp"}.items():
        cmd += ["--setenv", key, value]
    return [*cmd, "--"]


def _unshare_prefix() -> list[str]:
    # the shell is the namespace's first process (it does not exec the program: two commands),
    # so that the program cannot clear the parent-death signal that ends the jail with unshare
    return ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child",
            "--mount", "--mount-proc", "--", "/bin/sh", "-c", '"$@"; exit $?', "sh"]


def private_folder(prefix: str = "dicejack-", *, parent: Path | None = None) -> Path:
    """A new empty folder only its owner can enter (the caller removes it with
    :func:`dicejack.runtime.tree.remove_tree`)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))


def jailed_command(sandbox: Sandbox, argv: Sequence[str], limits: Limits = Limits(), *,
                   source: Path | None = None, export: bool = False,
                   readonly: Sequence[Path] = (), path: Sequence[str] = (),
                   collect: Sequence[str] = ()) -> list[str]:
    """The command line that runs `argv` under `sandbox` (argv's paths relative to the run's
    folder, the working directory in every mode). In bwrap the starting files are copied in
    first, inside the jail, and the `readonly` folders are bound read-only at their own paths
    (:func:`check_readonly`); `path`: folders first on the jail's PATH (bwrap only: the weaker
    jails get their environment from :func:`run_jailed`). `export`: the command's stdout goes
    to stderr and, when it succeeds, the folder is written to stdout as a tar stream. The
    process limit is set inside the jail (prlimit), where the kernel counts only the jail's
    own processes."""
    inner = ["prlimit", f"--nproc={limits.processes}", "--", *argv]
    if export:
        inner = ["/bin/sh", "-c", EXPORT, "sh", *inner]
    elif collect:
        names = " ".join(check_collect(collect))
        inner = ["/bin/sh", "-c", f"COLLECT_NAMES='{names}'; {COLLECT}", "sh", *inner]
    if sandbox.mode == "bwrap":
        start = (["/bin/sh", "-c", f'cp -R {JAIL_SRC}/. . && exec "$@"', "sh"]
                 if source is not None else [])
        return [*_bwrap_prefix(limits, source, readonly, path), *start, *inner]
    if sandbox.mode == "unshare":
        return [*_unshare_prefix(), *inner]
    return inner


_uids = itertools.cycle(RUN_UIDS)
_uids_lock = threading.Lock()


def _weak_user() -> tuple[int, int] | None:
    """A user of its own for a run of a weaker jail when dicejack runs as root (None: the
    caller's own user)."""
    if not _is_root():
        return None
    with _uids_lock:
        uid = next(_uids)
    return uid, uid


def _chown_tree(folder: Path, owner: tuple[int, int]) -> None:
    """Give the run's user a folder the grader just made (its own files: plain files and
    folders only)."""
    for root, dirs, names in os.walk(folder):
        for name in (*dirs, *names):
            os.chown(os.path.join(root, name), *owner, follow_symlinks=False)
    os.chown(folder, *owner)
    os.chmod(folder, 0o700)


def _open_group(sandbox: Sandbox, limits: Limits) -> cgroups.JailGroup | None:
    if not sandbox.grouped:
        return None
    try:
        return cgroups.JailGroup.create(cgroups.GroupLimits(
            memory_bytes=limits.memory_bytes, processes=limits.processes + 8))
    except cgroups.CgroupError as exc:  # said once per batch would be nicer; never silent
        raise SandboxError(f"cannot make the jail's control group: {exc}") from None


def run_jailed(
    sandbox: Sandbox,
    argv: Sequence[str],
    *,
    source: Path | None = None,
    files: Mapping[str, bytes] | None = None,
    limits: Limits = Limits(),
    stdin: bytes = b"",
    export: bool = False,
    cancel: threading.Event | None = None,
    readonly: Sequence[Path] = (),
    path: Sequence[str] = (),
    collect: Sequence[str] = (),
) -> RunResult:
    """Run `argv` under `sandbox` with `limits`, in a fresh folder holding a copy of the folder
    `source` (the grader's own, plain files and folders: a submission's intake or a build) and
    `files` (name -> bytes, e.g. an input file), feeding `stdin`; the folder is gone when this
    returns. `export`: the command's stdout goes to stderr and the folder comes back as a tar
    stream in ``stdout`` (when the command succeeded). Never raises for what the program does
    (its result says); OSError or SandboxError only when it cannot be started at all. stdout
    beyond limits.output_bytes kills the run (reason output-limit); stderr beyond
    limits.stderr_bytes is dropped. Setting `cancel` (Ctrl-C in the caller) kills the run within
    a fraction of a second (reason cancelled). `readonly`: host folders the program may read, at
    their own paths (bwrap binds them; the weaker jails show them anyway); `path`: folders put
    first on its PATH (e.g. a Python environment's bin). `collect`: plain file names of the
    folder that are the run's printout: the command's stdout goes to stderr and those of the
    files it left come back as a tar stream in ``stdout`` (read with :func:`collected`)."""
    files = dict(files or {})
    readonly = check_readonly(readonly)
    made: list[Path] = []  # folders of ours to remove afterwards
    group: cgroups.JailGroup | None = None
    try:
        if sandbox.mode == "bwrap":
            run_as = sandbox.run_as
            staging, mounted = _stage(source, files, run_as)
            made += [staging] if staging is not None else []
            cmd = jailed_command(sandbox, argv, limits, source=mounted, export=export,
                                 readonly=readonly, path=path, collect=collect)
            cwd = Path("/")
        else:
            run_as = _weak_user()
            folder = _host_folder(source, files, run_as)
            made.append(folder.parent)
            cmd = jailed_command(sandbox, argv, limits, export=export, collect=collect)
            cwd = folder
        group = _open_group(sandbox, limits)
        return run_process(cmd, cwd, argv, limits, stdin, cancel, group,
                    limiter(limits, run_as, group, sandbox.mode == "none" and run_as is not None),
                    _jail_env(JAIL_DIR, ()) if sandbox.mode == "bwrap" else
                    _jail_env(str(cwd), path))
    finally:
        if group is not None:
            group.close()
        for ours in made:
            tree.remove_tree(ours)


def check_collect(names: Sequence[str]) -> list[str]:
    """`collect`'s names checked: plain file names only (SandboxError otherwise)."""
    bad = [n for n in names if not _COLLECT_NAME.match(n)]
    if bad:
        raise SandboxError(f"collect takes plain file names, got {bad[0]!r}")
    return list(names)


def collected(stdout: bytes, limit: int = 16 << 20) -> dict[str, bytes]:
    """The files a `collect` run returned (name -> bytes): plain files of the top folder only,
    each within `limit` bytes; anything else in the stream (a link, a folder) is ignored."""
    out: dict[str, bytes] = {}
    if not stdout:
        return out
    try:
        with tarfile.open(fileobj=io.BytesIO(stdout), mode="r:") as tar:
            for member in tar:
                if member.isfile() and "/" not in member.name and member.size <= limit:
                    data = tar.extractfile(member)
                    if data is not None:
                        out[member.name] = data.read()
    except (tarfile.TarError, OSError):
        pass
    return out


def _stage(source: Path | None, files: Mapping[str, bytes], run_as: tuple[int, int] | None
           ) -> tuple[Path | None, Path | None]:
    """For bwrap: (a folder of ours to remove afterwards, the folder to bind read-only as the
    jail's starting files). The source itself is bound when bubblewrap runs as the caller and
    no file is added; otherwise a staging copy (:func:`dicejack.runtime.tree.copy_tree`) with
    the files, readable by the user bubblewrap runs as and no one else: a folder of the
    caller's is never changed."""
    if not files and run_as is None:
        return None, source
    if source is None and not files:
        return None, None
    staging, start = _starting_folder("dicejack-stage-", source, files)
    try:
        _let_in(start, run_as)
    except BaseException:
        tree.remove_tree(staging)
        raise
    return staging, start


def _starting_folder(prefix: str, source: Path | None, files: Mapping[str, bytes]
                     ) -> tuple[Path, Path]:
    """(a new private folder, the folder inside it holding a copy of `source` made by
    :func:`dicejack.runtime.tree.copy_tree` (no link followed, no special bit kept) and
    `files`): what a run starts from."""
    parent = private_folder(prefix)
    folder = parent / "w"
    try:
        if source is not None:
            tree.copy_tree(source, folder)
        else:
            folder.mkdir(mode=0o755)
        for name, data in files.items():
            (folder / name).write_bytes(data)
            os.chmod(folder / name, 0o644)
    except BaseException:
        tree.remove_tree(parent)
        raise
    return parent, folder


def _let_in(folder: Path, run_as: tuple[int, int] | None) -> None:
    """Let the user bubblewrap runs as (``nobody`` when dicejack is root) read a folder of
    ours: the folder owned by that user and closed to everyone else (0700), its parent
    passable without being listable (0711)."""
    if run_as is None:
        return
    os.chown(folder, *run_as)
    os.chmod(folder, 0o700)
    parent = folder.parent
    if parent.stat().st_uid == os.geteuid() and parent != Path(tempfile.gettempdir()):
        os.chmod(parent, 0o711)


def _host_folder(source: Path | None, files: Mapping[str, bytes],
                 owner: tuple[int, int] | None) -> Path:
    """The run's folder on the host for the weaker jails (:func:`_starting_folder`), owned by
    the run's own user when there is one."""
    parent, folder = _starting_folder("dicejack-run-", source, files)
    try:
        if owner is not None:
            _chown_tree(folder, owner)
            os.chmod(parent, 0o711)
    except BaseException:
        tree.remove_tree(parent)
        raise
    return folder


