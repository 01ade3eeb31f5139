"""Copying, extracting and removing folders whose contents are hostile (what a student's build or
program wrote, a student's submitted folder), never following a link and never recursing.

Its one job is that the grader, outside the jail, can copy such a folder (:func:`copy_tree`),
unpack a tar stream of one (:func:`extract_tar`), remove one (:func:`remove_tree`) and measure one
(:func:`tree_usage`) without being turned against itself:

- only directories and regular files are copied or unpacked; a symbolic link, fifo, socket or
  device is skipped (counted), never opened or followed, at any level, so that a link to
  /proc/self/environ or /dev/zero cannot bring the grader's secrets in or fill its disk;
- every step is a system call relative to an open directory (``dir_fd``, ``O_NOFOLLOW``,
  ``O_DIRECTORY``; files opened ``O_NONBLOCK`` and checked by ``fstat`` after opening), so that a
  link or fifo swapped in while the walk runs is never followed and never blocks, and any depth and
  any path length work;
- the walk is an explicit stack holding at most :data:`WINDOW` open directories (deeper ones are
  opened again by name, one ``O_NOFOLLOW`` step at a time, from the nearest one still open), so a
  3,000-deep tree neither overflows Python's stack nor runs out of descriptors;
- what is written is the caller's: files 0o755 when the source had any execute bit, else 0o644,
  directories 0o755, never setuid, setgid or sticky, whatever the umask;
- a copy or unpacking is capped (:class:`TreeCaps`: entries, bytes, depth), checked while it
  runs: a file is never read past the byte cap;
- every failure is a :class:`TreeError` with one human-readable line (it becomes a student's row
  reason), naming the entry by its path inside the tree with control and other unprintable
  characters escaped; a copy or unpacking that fails removes what it had written.

The path handed to these functions is the caller's and is trusted up to its last component (the
parents are resolved as usual); from the last component down nothing is followed.
"""

from __future__ import annotations

from dicejack.runtime.tree.copying import copy_tree, extract_tar
from dicejack.runtime.tree.removal import remove_tree, tree_usage
from dicejack.runtime.tree.walk import WINDOW, TreeCaps, TreeError, TreeStats

__all__ = ["WINDOW", "TreeError", "TreeCaps", "TreeStats", "copy_tree", "extract_tar",
           "remove_tree", "tree_usage"]
